// What every glReadPixels in glreader shares: the client format of a glr_format, and a
// guard that puts back the GL state a readback changes.
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

// Puts back the bindings and pack state that a readback changes, so the host renderer's
// GL state is as it left it, whatever path (error included) leaves the readback.
class readback_state_guard {
public:
    explicit readback_state_guard(const GladGLContext &gl) : gl_(gl)
    {
        gl.GetIntegerv(GL_READ_FRAMEBUFFER_BINDING, &read_fbo_);
        gl.GetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &draw_fbo_);
        gl.GetIntegerv(GL_PIXEL_PACK_BUFFER_BINDING, &pack_buffer_);
        gl.GetIntegerv(GL_RENDERBUFFER_BINDING, &renderbuffer_);
        gl.GetIntegerv(GL_PACK_ALIGNMENT, &alignment_);
        gl.GetIntegerv(GL_PACK_ROW_LENGTH, &row_length_);
        gl.GetIntegerv(GL_PACK_SKIP_ROWS, &skip_rows_);
        gl.GetIntegerv(GL_PACK_SKIP_PIXELS, &skip_pixels_);
    }

    // glReadBuffer is state of the framebuffer object itself: remember the source's.
    void changed_read_buffer(GLuint fbo, GLint previous)
    {
        source_fbo_ = fbo;
        source_read_buffer_ = previous;
    }

    ~readback_state_guard()
    {
        if (source_fbo_ != 0) {
            gl_.BindFramebuffer(GL_READ_FRAMEBUFFER, source_fbo_);
            gl_.ReadBuffer(static_cast<GLenum>(source_read_buffer_));
        }
        gl_.BindFramebuffer(GL_READ_FRAMEBUFFER, static_cast<GLuint>(read_fbo_));
        gl_.BindFramebuffer(GL_DRAW_FRAMEBUFFER, static_cast<GLuint>(draw_fbo_));
        gl_.BindBuffer(GL_PIXEL_PACK_BUFFER, static_cast<GLuint>(pack_buffer_));
        gl_.BindRenderbuffer(GL_RENDERBUFFER, static_cast<GLuint>(renderbuffer_));
        gl_.PixelStorei(GL_PACK_ALIGNMENT, alignment_);
        gl_.PixelStorei(GL_PACK_ROW_LENGTH, row_length_);
        gl_.PixelStorei(GL_PACK_SKIP_ROWS, skip_rows_);
        gl_.PixelStorei(GL_PACK_SKIP_PIXELS, skip_pixels_);
    }

private:
    const GladGLContext &gl_;
    GLint read_fbo_ = 0, draw_fbo_ = 0, pack_buffer_ = 0, renderbuffer_ = 0;
    GLint alignment_ = 4, row_length_ = 0, skip_rows_ = 0, skip_pixels_ = 0;
    GLuint source_fbo_ = 0;
    GLint source_read_buffer_ = 0;
};

} // namespace glr::gl
