// What a ring reads from: binds a glr_source for reading (checked: it exists, is complete
// and large enough), resolves multisampled sources, and gives the conversion pass a
// texture it can sample. Owns the internal framebuffers this needs, created on first use.
#pragma once

#include "context/functions.hpp"
#include "glreader/ring.h"
#include "ring/readback_state.hpp"

namespace glr::gl {

class source_binding {
public:
    source_binding(const functions &fns, int width, int height)
        : gl_(fns.gl), width_(width), height_(height),
          // Mesa's compatibility profiles refuse GL_TEXTURE_TARGET (GL_INVALID_ENUM, which a
          // host's debug callback would hear): a texture of unknown target is copied.
          texture_targets_known_(!fns.compatibility && fns.gl.GetTextureParameteriv)
    {
    }
    source_binding(const source_binding &) = delete;
    source_binding &operator=(const source_binding &) = delete;

    // Binds source as GL_READ_FRAMEBUFFER, resolved into an internal framebuffer when it
    // is multisampled, and returns the framebuffer bound. guard restores the source's read
    // buffer; the caller's state_scope (scope::readback) the rest.
    GLuint bind_for_read(const glr_source &source, read_buffer_guard &guard);

    // A texture holding the source's lower-left width x height pixels, and the mip level
    // to fetch: the source's own texture when it is a plain 2D one, else a copy blitted
    // into an internal texture (default framebuffer, renderbuffers, multisampling, sRGB:
    // the blit, with GL_FRAMEBUFFER_SRGB off, copies the stored bytes that sampling an sRGB
    // texture would decode).
    struct texture_level {
        GLuint texture;
        GLint level;
    };
    texture_level texture_for_sampling(const glr_source &source, read_buffer_guard &guard);

    // A width x height RGBA8 renderbuffer framebuffer, created on first use.
    GLuint internal_framebuffer(GLuint &fbo, GLuint &renderbuffer);

    void delete_gl_objects();

private:
    GLuint bind_unresolved(const glr_source &source, read_buffer_guard &guard);
    void check_size(const glr_source &source, GLuint fbo);
    bool multisampled(const glr_source &source, GLuint fbo);

    const GladGLContext &gl_;
    int width_, height_;
    bool texture_targets_known_;
    GLuint texture_fbo_ = 0;
    GLuint resolve_fbo_ = 0, resolve_rb_ = 0;
    GLuint copy_fbo_ = 0, copy_texture_ = 0;
};

} // namespace glr::gl
