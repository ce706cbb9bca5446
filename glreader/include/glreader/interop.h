/* Memory another API allocated, as GL textures: an image Vulkan made exportable (an opaque
 * file descriptor, VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT) imported into GL with
 * GL_EXT_memory_object_fd, so that glr_converter writes a frame's planes into it and the
 * other API (an encoder on the GPU) reads them with no copy and no readback; and that API's
 * timeline semaphores, which order the two on the GPU where GL can import them.
 *
 * Threads: every call on a thread where the GL context is current; the caller's GL state
 * (texture bindings) is left as it was.
 */
#ifndef GLREADER_INTEROP_H
#define GLREADER_INTEROP_H

#include "glreader/common.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct glr_memory_texture glr_memory_texture;

/* The image as the other API made it: GL must be told the same, or it reads another layout. */
struct glr_memory_image {
    /* The memory's opaque fd (vkGetMemoryFdKHR). Always taken: GL owns it after a successful
     * import, and glreader closes it when the import fails. */
    int fd;
    uint64_t memory_size; /* the whole allocation's size in bytes (VkMemoryAllocateInfo) */
    uint64_t offset;      /* where the image is bound in that memory */
    int dedicated;        /* nonzero: a dedicated allocation (VkMemoryDedicatedAllocateInfo) */
    int width, height;    /* level 0's size in texels */
    /* GL_R8, GL_RG8, GL_R16, GL_RG16, GL_RGBA8 ...: the format matching the image's VkFormat. */
    unsigned internal_format;
    int linear; /* 0: VK_IMAGE_TILING_OPTIMAL (GL_OPTIMAL_TILING_EXT); nonzero: LINEAR */
    /* GL function loader; NULL: as for a ring (glr_ring_params). */
    glr_get_proc_address_fn get_proc_address;
    uint64_t reserved_[4]; /* zero: room for later fields without an ABI break */
};

/* Imports image as a 2D texture with one level (immutable, as glTexStorage makes). Returns
 * NULL with the reason logged and in glr_last_error(): GLR_ERROR_UNSUPPORTED where the
 * driver lacks GL_EXT_memory_object_fd, -EINVAL for bad fields, GLR_ERROR_GL where the
 * driver refuses the memory (another device's, a size or format that does not match). */
GLR_API glr_memory_texture *glr_memory_texture_import(glr_log *log, const struct glr_memory_image *image);

/* The texture's GL name, for glr_converter_convert or any GL use. */
GLR_API unsigned glr_memory_texture_name(const glr_memory_texture *texture);

/* Deletes the texture and GL's memory object (its context current), and sets *texture to
 * NULL; NULL and a pointer to NULL are accepted. The other API's memory lives on. */
GLR_API void glr_memory_texture_destroy(glr_memory_texture **texture);

/* A timeline semaphore of the other API (an opaque fd of a VK_SEMAPHORE_TYPE_TIMELINE
 * semaphore, vkGetSemaphoreFdKHR) imported into GL (GL_EXT_semaphore_fd and
 * GL_NV_timeline_semaphore, which NVIDIA's GL has and Mesa's has not), so that GL's writes
 * into imported textures and that API's work on them are ordered on the GPU, with no wait
 * on the host. */
typedef struct glr_memory_semaphore glr_memory_semaphore;

/* 1 where the current context imports timeline semaphores (both extensions above), else 0
 * (0 too where no context is current). */
GLR_API int glr_gl_has_timeline_semaphores(glr_get_proc_address_fn get_proc_address);

/* Imports the semaphore fd names (always taken: GL owns it after a successful import, and
 * glreader closes it when the import fails). Returns NULL with the reason logged and in
 * glr_last_error(): GLR_ERROR_UNSUPPORTED where the driver lacks either extension, -EINVAL
 * for a bad fd, GLR_ERROR_GL where the driver refuses it (another device's, a binary one).
 * get_proc_address: as for glr_memory_image. */
GLR_API glr_memory_semaphore *glr_memory_semaphore_import(glr_log *log, int fd,
                                                          glr_get_proc_address_fn get_proc_address);

/* GL's later commands wait, on the GPU, until the semaphore reaches value. textures (count
 * GL names, imported with glr_memory_texture_import) are the ones those commands write
 * whole: their contents are not kept (the layout the other API left them in is not asked
 * for). Returns 0 or a negative glreader code, the reason logged. */
GLR_API int glr_memory_semaphore_wait(glr_memory_semaphore *semaphore, uint64_t value, const unsigned *textures,
                                      int count);

/* The semaphore reaches value once GL's earlier commands are done, textures (count GL names)
 * then in the general layout (VK_IMAGE_LAYOUT_GENERAL, for the other API's barriers); GL's
 * commands are flushed, so the other API may wait for it at once. Returns 0 or a negative
 * glreader code, the reason logged. */
GLR_API int glr_memory_semaphore_signal(glr_memory_semaphore *semaphore, uint64_t value, const unsigned *textures,
                                        int count);

/* Deletes GL's semaphore (its context current) and sets *semaphore to NULL; NULL and a
 * pointer to NULL are accepted. The other API's semaphore lives on. */
GLR_API void glr_memory_semaphore_destroy(glr_memory_semaphore **semaphore);

/* The current context's device and driver UUIDs (GL_DEVICE_UUID_EXT, GL_DRIVER_UUID_EXT),
 * to choose the Vulkan physical device whose memory GL can import: the one whose
 * VkPhysicalDeviceIDProperties carry the same two. Returns 0, or GLR_ERROR_UNSUPPORTED
 * (no GL_EXT_memory_object) or GLR_ERROR_NO_CONTEXT, with the reason logged. */
GLR_API int glr_gl_device_uuids(glr_log *log, glr_get_proc_address_fn get_proc_address, uint8_t device_uuid[16],
                                uint8_t driver_uuid[16]);

#ifdef __cplusplus
}
#endif

#endif /* GLREADER_INTEROP_H */
