// Per-object OpenGL function tables (glad's multi-context mode), so glreader never
// touches the global GL symbols of the host renderer's own loader.
#pragma once

#include "glreader/common.h" // glr_get_proc_address_fn

#include <glad/gl.h>

namespace glr::gl {

struct functions {
    GladGLContext gl{};
    int major = 0, minor = 0;
    // A compatibility profile (or a context older than profiles): fixed-function state
    // such as the alpha test still applies to draws.
    bool compatibility = false;
    GLint max_clip_distances = 0;
    // Returns the window-system context current on this thread (EGL or GLX), or NULL
    // when none is; NULL pointer when the API is unknown (user loader, no EGL/GLX).
    void *(*current_context)() = nullptr;

    bool version_at_least(int want_major, int want_minor) const
    {
        return major > want_major || (major == want_major && minor >= want_minor);
    }
};

// Loads GL for the context current on the calling thread through loader, or through
// eglGetProcAddress / glXGetProcAddressARB when loader is NULL.
// Throws glr::failure(GLR_ERROR_NO_CONTEXT) when no context is current.
void load(functions &out, glr_get_proc_address_fn loader);

// Throws GLR_ERROR_NO_CONTEXT when the thread has no current context (when detectable).
void require_current(const functions &fns, const char *call);

// "GL_INVALID_OPERATION" and the like.
const char *error_name(GLenum error);

// Throws GLR_ERROR_GL naming `what` if the GL calls since the last check raised an error
// (inside a state_scope, which kept the host's earlier errors aside).
void check_errors(const GladGLContext &gl, const char *what);

// GL_FRAMEBUFFER_INCOMPLETE_ATTACHMENT and the like.
const char *framebuffer_status_name(GLenum status);

} // namespace glr::gl
