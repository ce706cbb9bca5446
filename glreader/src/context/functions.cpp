#include "context/functions.hpp"

#include "error.hpp"
#include "context/egl_api.hpp"

#include <dlfcn.h>

#include <atomic>

namespace glr::gl {

namespace {

using glx_get_proc_fn = void (*(*)(const unsigned char *))(void);
using glx_current_fn = void *(*)();

struct glx_api {
    glx_get_proc_fn get_proc_address = nullptr;
    glx_current_fn get_current_context = nullptr;
};

// GLX entry points if the host already loaded libGL (GLX cannot be current otherwise).
glx_api glx_if_loaded()
{
    glx_api out;
    void *lib = dlopen("libGL.so.1", RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
    if (!lib)
        return out;
    out.get_proc_address = reinterpret_cast<glx_get_proc_fn>(dlsym(lib, "glXGetProcAddressARB"));
    out.get_current_context = reinterpret_cast<glx_current_fn>(dlsym(lib, "glXGetCurrentContext"));
    // libGL stays loaded: the host holds its own reference, and we hold this one.
    return out;
}

void *egl_current_context() { return egl::if_loaded()->GetCurrentContext(); }

// The GLX entry points found when a GLX context was current; atomics, as rings may be
// created on several threads at once (they only ever store the same two addresses).
std::atomic<glx_get_proc_fn> glx_get_proc_address{nullptr};
std::atomic<glx_current_fn> glx_get_current_context{nullptr};

void *glx_current_context() { return glx_get_current_context.load(std::memory_order_acquire)(); }

GLADapiproc egl_loader(void *, const char *name)
{
    return reinterpret_cast<GLADapiproc>(egl::if_loaded()->GetProcAddress(name));
}

GLADapiproc glx_loader(void *, const char *name)
{
    return reinterpret_cast<GLADapiproc>(
        glx_get_proc_address.load(std::memory_order_acquire)(reinterpret_cast<const unsigned char *>(name)));
}

GLADapiproc user_loader(void *userptr, const char *name)
{
    auto loader = reinterpret_cast<glr_get_proc_address_fn>(userptr);
    return reinterpret_cast<GLADapiproc>(loader(name));
}

} // namespace

void load(functions &out, glr_get_proc_address_fn loader)
{
    const egl::api *egl = egl::if_loaded();
    bool egl_current = egl && egl->GetCurrentContext() != EGL_NO_CONTEXT;
    bool glx_current = false;
    if (!egl_current) {
        glx_api glx = glx_if_loaded();
        if (glx.get_current_context && glx.get_proc_address && glx.get_current_context()) {
            glx_get_proc_address.store(glx.get_proc_address, std::memory_order_release);
            glx_get_current_context.store(glx.get_current_context, std::memory_order_release);
            glx_current = true;
        }
    }
    out.current_context = egl_current ? egl_current_context
                          : glx_current ? glx_current_context
                                        : nullptr;

    int version = 0;
    if (loader)
        version = gladLoadGLContextUserPtr(&out.gl, user_loader, reinterpret_cast<void *>(loader));
    else if (egl_current)
        version = gladLoadGLContextUserPtr(&out.gl, egl_loader, nullptr);
    else if (glx_current)
        version = gladLoadGLContextUserPtr(&out.gl, glx_loader, nullptr);
    else
        fail(GLR_ERROR_NO_CONTEXT,
             "no OpenGL context is current on this thread (looked for EGL and GLX contexts): "
             "make the renderer's context current before creating the ring");
    if (version == 0)
        fail(GLR_ERROR_NO_CONTEXT,
             "could not load OpenGL functions: glGetString(GL_VERSION) returned nothing, so no "
             "OpenGL context is current on this thread for the given loader");
    out.major = GLAD_VERSION_MAJOR(version);
    out.minor = GLAD_VERSION_MINOR(version);
    out.compatibility = true;
    if (out.version_at_least(3, 2)) {
        GLint profile = 0;
        out.gl.GetIntegerv(GL_CONTEXT_PROFILE_MASK, &profile);
        out.compatibility = (profile & GL_CONTEXT_COMPATIBILITY_PROFILE_BIT) != 0;
    }
    out.gl.GetIntegerv(GL_MAX_CLIP_DISTANCES, &out.max_clip_distances);
}

void require_current(const functions &fns, const char *call)
{
    if (fns.current_context && !fns.current_context())
        fail(GLR_ERROR_NO_CONTEXT,
             "%s: no OpenGL context is current on this thread; call it on the thread where "
             "the ring's context is current",
             call);
}

const char *error_name(GLenum error)
{
    switch (error) {
    case GL_NO_ERROR: return "GL_NO_ERROR";
    case GL_INVALID_ENUM: return "GL_INVALID_ENUM";
    case GL_INVALID_VALUE: return "GL_INVALID_VALUE";
    case GL_INVALID_OPERATION: return "GL_INVALID_OPERATION";
    case GL_INVALID_FRAMEBUFFER_OPERATION: return "GL_INVALID_FRAMEBUFFER_OPERATION";
    case GL_OUT_OF_MEMORY: return "GL_OUT_OF_MEMORY";
    case GL_STACK_UNDERFLOW: return "GL_STACK_UNDERFLOW";
    case GL_STACK_OVERFLOW: return "GL_STACK_OVERFLOW";
    default: return "unknown GL error";
    }
}

void check_errors(const GladGLContext &gl, const char *what)
{
    GLenum error = gl.GetError();
    if (error == GL_NO_ERROR)
        return;
    // The rest are glreader's too: take them, so the host finds only its own. Bounded: a
    // lost context may report errors forever.
    for (int i = 0; i < 16 && gl.GetError() != GL_NO_ERROR; i++) {
    }
    fail(GLR_ERROR_GL, "%s failed with %s", what, error_name(error));
}

const char *framebuffer_status_name(GLenum status)
{
    switch (status) {
    case GL_FRAMEBUFFER_COMPLETE: return "GL_FRAMEBUFFER_COMPLETE";
    case GL_FRAMEBUFFER_UNDEFINED: return "GL_FRAMEBUFFER_UNDEFINED";
    case GL_FRAMEBUFFER_INCOMPLETE_ATTACHMENT: return "GL_FRAMEBUFFER_INCOMPLETE_ATTACHMENT";
    case GL_FRAMEBUFFER_INCOMPLETE_MISSING_ATTACHMENT:
        return "GL_FRAMEBUFFER_INCOMPLETE_MISSING_ATTACHMENT";
    case GL_FRAMEBUFFER_INCOMPLETE_DRAW_BUFFER: return "GL_FRAMEBUFFER_INCOMPLETE_DRAW_BUFFER";
    case GL_FRAMEBUFFER_INCOMPLETE_READ_BUFFER: return "GL_FRAMEBUFFER_INCOMPLETE_READ_BUFFER";
    case GL_FRAMEBUFFER_UNSUPPORTED: return "GL_FRAMEBUFFER_UNSUPPORTED";
    case GL_FRAMEBUFFER_INCOMPLETE_MULTISAMPLE: return "GL_FRAMEBUFFER_INCOMPLETE_MULTISAMPLE";
    case GL_FRAMEBUFFER_INCOMPLETE_LAYER_TARGETS:
        return "GL_FRAMEBUFFER_INCOMPLETE_LAYER_TARGETS";
    default: return "unknown framebuffer status";
    }
}

} // namespace glr::gl
