/* GPU conversion into the caller's textures: the ring's RGB to Y'CbCr pass (the same
 * shader, so the same bytes), writing each plane of a YUV format into a texture of its own
 * instead of a buffer read back to memory. For memory the GPU shares with another API: a
 * Vulkan image or CUDA array imported into GL, which an encoder on the GPU then reads
 * without a readback.
 *
 * Plane p's texture holds glr_format_plane_rows(format, height, p) rows of
 * glr_converter_plane_width(...) samples, in the internal format
 * glr_converter_plane_format(...) gives (GL_R8, GL_RG8, GL_R16, GL_RG16: unsigned
 * normalized, as Vulkan's and CUDA's NV12 and P010 planes are), each sample the code value
 * the ring would read back (P010's in the high 10 bits of 16). Row 0 is the frame's top
 * row, unless flip is GLR_FLIP_NONE (GL's bottom row first).
 *
 * Threads: every call on the thread whose GL context the converter was made in, with that
 * context current (or one sharing its objects); the caller's GL state is left as it was.
 */
#ifndef GLREADER_CONVERT_H
#define GLREADER_CONVERT_H

#include "glreader/common.h"
#include "glreader/ring.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct glr_converter glr_converter;

struct glr_converter_params {
    /* Frame size in pixels, 1..the GL size limit; even where the format's chroma is
     * halved (4:2:0). */
    int width, height;
    /* A YUV format: NV12, I420, P010, YUV444, YUVA420, YUVA444, YUVA444P10. */
    enum glr_format format;
    /* How to convert: 0 fields are BT.709, limited range, left chroma siting (glr_color). */
    struct glr_color color;
    /* GLR_FLIP_STRIDE (0) and GLR_FLIP_GPU: row 0 is the top row; GLR_FLIP_NONE: GL's. */
    enum glr_flip flip;
    /* GL function loader; NULL: as for a ring (glr_ring_params). */
    glr_get_proc_address_fn get_proc_address;
    uint64_t reserved_[4]; /* zero: room for later fields without an ABI break */
};

/* Builds the pass in the current context (OpenGL 4.3: compute shaders, image stores).
 * Returns NULL with the reason logged and in glr_last_error(). */
GLR_API glr_converter *glr_converter_create(glr_log *log, const struct glr_converter_params *params);

/* The GL internal format (GL_R8 0x8229, GL_RG8 0x822B, GL_R16 0x822A, GL_RG16 0x822C) and
 * width in samples of plane p's texture; 0 for a plane the format does not have. */
GLR_API unsigned glr_converter_plane_format(const glr_converter *conv, int plane);
GLR_API int glr_converter_plane_width(const glr_converter *conv, int plane);

/* Makes textures[0..planes-1] (the rest 0): a 2D texture of each plane's format and size,
 * one level of immutable storage, for another API to read what the conversion writes
 * (CUDA's cuGraphicsGLRegisterImage). Returns 0, or a negative code with the reason logged
 * (none made then). Free them with glr_converter_delete_textures, the context current. */
GLR_API int glr_converter_make_textures(glr_converter *conv, unsigned textures[4]);

/* Deletes textures made by glr_converter_make_textures and zeroes them (0s are skipped). */
GLR_API void glr_converter_delete_textures(glr_converter *conv, unsigned textures[4]);

/* Converts source's frame (its lower-left width x height pixels) into textures[0..planes-1],
 * 2D textures of the formats above, at least the planes' sizes, level 0. The writes are
 * ordered before later GL commands, a fence or a semaphore signal included: a reader
 * outside GL waits on one of those. Returns 0, or a negative code with the reason logged
 * (a texture of another format or too small, a source that does not fit, a GL error). */
GLR_API int glr_converter_convert(glr_converter *conv, const struct glr_source *source, const unsigned textures[4]);

/* A GL fence after every command so far (the conversions included), flushed, so that a
 * wait on it ends: what tells that a frame's planes are written before another API reads
 * them, without glFinish. NULL with the reason logged where GL cannot make one. */
typedef struct glr_gl_fence glr_gl_fence;
GLR_API glr_gl_fence *glr_converter_fence(glr_converter *conv);

/* Waits up to timeout_ns (0: only looks) for fence: 1 once GL finished the commands before
 * it, 0 when the time passed first, a negative code with the reason logged when GL fails. */
GLR_API int glr_converter_fence_wait(glr_converter *conv, glr_gl_fence *fence, uint64_t timeout_ns);

/* Deletes fence (NULL is accepted). */
GLR_API void glr_converter_fence_delete(glr_converter *conv, glr_gl_fence *fence);

/* Frees the pass (its context current) and sets *conv to NULL; NULL and a pointer to NULL
 * are accepted. */
GLR_API void glr_converter_destroy(glr_converter **conv);

#ifdef __cplusplus
}
#endif

#endif /* GLREADER_CONVERT_H */
