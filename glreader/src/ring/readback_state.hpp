// What every glReadPixels in glreader shares: the client format of a glr_format, and a
// guard for the one piece of the host's state that is not context state but a
// framebuffer object's: its read buffer.
#pragma once

#include "glreader/common.h"
#include "context/functions.hpp"

namespace glr::gl {

// The glReadPixels format of a glr_format (type GL_UNSIGNED_BYTE); 0 for none.
inline GLenum pack_format_of(int format)
{
    switch (format) {
    case GLR_FORMAT_RGBA8: return GL_RGBA;
    case GLR_FORMAT_BGRA8: return GL_BGRA;
    case GLR_FORMAT_RGB8: return GL_RGB;
    }
    return 0;
}

// glReadBuffer changes the framebuffer object bound for reading, so a state_scope (which
// restores the context's bindings) cannot put it back: this does, when it ends, for the
// host's framebuffer whose read buffer was changed (changed_read_buffer). Declare it
// inside the operation's state_scope, which then restores the read binding.
class read_buffer_guard {
public:
    explicit read_buffer_guard(const GladGLContext &gl) : gl_(gl) {}
    void changed_read_buffer(GLuint fbo, GLint previous)
    {
        fbo_ = fbo;
        previous_ = previous;
    }
    ~read_buffer_guard()
    {
        if (fbo_ == 0)
            return;
        gl_.BindFramebuffer(GL_READ_FRAMEBUFFER, fbo_);
        gl_.ReadBuffer(static_cast<GLenum>(previous_));
    }
    read_buffer_guard(const read_buffer_guard &) = delete;
    read_buffer_guard &operator=(const read_buffer_guard &) = delete;

private:
    const GladGLContext &gl_;
    GLuint fbo_ = 0;
    GLint previous_ = 0;
};

} // namespace glr::gl
