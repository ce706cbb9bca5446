/*
 * glreader: a Shadertoy-style scene, rendered into a framebuffer of its own in the current
 * GL context, ready to be captured by a ring. The exporter, the samples and the FFmpeg
 * filter all render through it, so the same shader gives the same pixels everywhere.
 *
 * The shader is a GLSL fragment body with Shadertoy's entry point and uniforms:
 *
 *   void mainImage(out vec4 fragColor, in vec2 fragCoord)   // fragCoord: pixel centre,
 *   uniform vec3 iResolution; uniform float iTime;          // origin at the bottom left
 *   uniform float iTimeDelta; uniform int iFrame;
 *
 * Alpha is written as 1. Compile errors come back as "NAME:LINE:COLUMN: error: ...",
 * counting lines of the user's source.
 */
#ifndef GLREADER_SCENE_H
#define GLREADER_SCENE_H

#include "glreader/common.h"
#include "glreader/ring.h"

#ifdef __cplusplus
extern "C" {
#endif

struct glr_scene_params {
    int width, height;        /* required, 1..the GL size limit */
    /* The mainImage source. NULL: read it from source_path; both NULL: the built-in
     * animated scene (glr_scene_builtin_source). */
    const char *source;
    const char *source_path;
    /* How compile errors name the source; NULL: source_path, else "shader". */
    const char *source_name;
    /* Loader for the GL context current at create; NULL: glreader's own (EGL, or GLX). */
    glr_get_proc_address_fn get_proc_address;
};

/* Thread-safety: use it on the thread where its GL context is current.
 * Lifetime: destroy it while that context is current. */
typedef struct glr_scene glr_scene;

/* Compiles the shader and creates the framebuffer (RGBA8) in the current context.
 * Returns NULL with the reason logged and in glr_last_error(): GLR_ERROR_NO_CONTEXT,
 * -EINVAL (size), -ENOENT and the like (source_path unreadable, naming the file),
 * GLR_ERROR_SHADER (the compiler's log, located as NAME:LINE:COLUMN). */
GLR_API glr_scene *glr_scene_create(glr_log *log, const struct glr_scene_params *params);

/* Draws frame number `frame` at `seconds` (iTime; delta: iTimeDelta) into the scene's
 * framebuffer. Returns 0, or GLR_ERROR_NO_CONTEXT / GLR_ERROR_GL with a message. */
GLR_API int glr_scene_draw(glr_scene *scene, int frame, double seconds, double delta);

/* Reads the framebuffer into caller memory synchronously with glReadPixels: the GL
 * finishes drawing and copies every pixel before this returns. Rows go bottom row first
 * (GL's order), `stride` bytes apart. To stream frames use a ring, which does not wait;
 * this is the design the ring is measured against, and fine for a one-off capture.
 * Returns 0, -EINVAL (no RGB glr_format, data NULL, stride smaller than a row or not a whole
 * number of pixels), GLR_ERROR_NO_CONTEXT or GLR_ERROR_GL, with a message. */
GLR_API int glr_scene_read_pixels(glr_scene *scene, enum glr_format format, uint8_t *data, ptrdiff_t stride);

/* The scene's framebuffer as a ring source (colour attachment 0). */
GLR_API struct glr_source glr_scene_source(const glr_scene *scene);

/* The scene's framebuffer object name, for the caller's own GL calls. */
GLR_API unsigned glr_scene_framebuffer(const glr_scene *scene);

/* Frees the GL objects (the context must be current) and sets *scene to NULL. NULL and a
 * pointer to NULL are accepted. */
GLR_API void glr_scene_destroy(glr_scene **scene);

/* The built-in scene's mainImage source: an animated plasma with rings and a clock hand.
 * Static string. */
GLR_API const char *glr_scene_builtin_source(void);

#ifdef __cplusplus
}
#endif

#endif /* GLREADER_SCENE_H */
