/*
 * glreader: a headless OpenGL context through EGL, for programs without a window
 * (tests, the FFmpeg filter, the offline exporter).
 */
#ifndef GLREADER_CONTEXT_H
#define GLREADER_CONTEXT_H

#include "glreader/common.h"

#ifdef __cplusplus
extern "C" {
#endif

enum glr_platform {
    /* Try, in order: a hardware EGL device (EGL_EXT_platform_device, e.g. NVIDIA), Mesa's
     * surfaceless platform, the default EGL display with a pbuffer surface, and finally a
     * software EGL device. The first that gives a context wins. */
    GLR_PLATFORM_AUTO = 0,
    GLR_PLATFORM_SURFACELESS = 1, /* EGL_MESA_platform_surfaceless */
    GLR_PLATFORM_DEVICE = 2,      /* EGL_EXT_platform_device, first usable device */
    GLR_PLATFORM_PBUFFER = 3      /* eglGetDisplay(EGL_DEFAULT_DISPLAY) + a 16x16 pbuffer */
};

struct glr_context_params {
    enum glr_platform platform;
    /* Non-zero: fail with GLR_ERROR_SOFTWARE_RENDERER instead of accepting a software
     * rasterizer (llvmpipe, softpipe, SwiftShader); the message names what was found. */
    int require_hw;
    /* Desktop OpenGL core version to ask for. 0: 4.5, then 3.3 if 4.5 is refused. */
    int gl_major, gl_minor;
    /* Non-zero: give the context a default framebuffer (an EGL pbuffer) of this size, for
     * renderers that draw to framebuffer 0. 0: none where EGL allows it (render into
     * framebuffer objects), else a 16x16 pbuffer. */
    int surface_width, surface_height;
};

/* A headless OpenGL context with no default framebuffer (render into FBOs).
 * Thread-safety: current on at most one thread at a time; glr_context_make_current()
 * binds it to the calling thread, glr_context_release_current() unbinds it there so that
 * another thread may take it. Rendering with it happens on the thread where it is current.
 * Lifetime: every ring created while it was current must be destroyed before it. */
typedef struct glr_context glr_context;

/* Creates a context and makes it current on the calling thread. params may be NULL.
 * Returns NULL on failure, having logged why (which platforms were tried and what each
 * said); glr_last_error() has the same text. log may be NULL (stderr). */
GLR_API glr_context *glr_context_create(glr_log *log, const struct glr_context_params *params);

/* Releases the context from the calling thread if it is current there, destroys it and
 * sets *ctx to NULL. NULL and a pointer to NULL are accepted. */
GLR_API void glr_context_destroy(glr_context **ctx);

/* Makes the context current on the calling thread. Errors: GLR_ERROR_EGL when EGL
 * refuses (most often: it is still current on another thread). */
GLR_API int glr_context_make_current(glr_context *ctx);

/* Unbinds whatever EGL context is current on the calling thread. */
GLR_API int glr_context_release_current(glr_context *ctx);

/* The GL_RENDERER string, e.g. "llvmpipe (LLVM 15.0.6, 256 bits)". Never NULL.
 * Lifetime: as long as the context. */
GLR_API const char *glr_context_renderer(const glr_context *ctx);

/* Short name of the platform that gave the context: "device", "surfaceless", "pbuffer". */
GLR_API const char *glr_context_platform_name(const glr_context *ctx);

/* Non-zero when the renderer is a software rasterizer. */
GLR_API int glr_context_is_software(const glr_context *ctx);

/* The GL version obtained, e.g. 4 and 5. */
GLR_API void glr_context_gl_version(const glr_context *ctx, int *major, int *minor);

/* Looks up a GL or EGL function by name (eglGetProcAddress); NULL if unknown.
 * Pass it as glr_ring_params.get_proc_address or to your own GL loader.
 * Thread-safety: any thread, once any glr_context exists. */
GLR_API void (*glr_context_get_proc_address(const char *name))(void);

#ifdef __cplusplus
}
#endif

#endif /* GLREADER_CONTEXT_H */
