/* Memory another API allocated, as GL textures: an image Vulkan made exportable (an opaque
 * file descriptor, VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT) imported into GL with
 * GL_EXT_memory_object_fd, so that glr_converter writes a frame's planes into it and the
 * other API (an encoder on the GPU) reads them with no copy and no readback.
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
