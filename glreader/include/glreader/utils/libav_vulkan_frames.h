/*
 * glreader: a header-only bridge from GL to FFmpeg's Vulkan frames (AV_PIX_FMT_VULKAN), for
 * glreader-av's hardware frames and the FFmpeg source filter alike: the Vulkan device whose
 * memory the current GL context can import (the same device and driver UUIDs, exportable
 * memory), a pool of frames GL can write (optimally tiled, a memory object per plane), and
 * each pooled frame's planes as GL textures (GL_EXT_memory_object_fd), imported once, for
 * glr_converter to write: the frame then holds exactly the bytes the ring would read back.
 * Where GL imports timeline semaphores (NVIDIA's: GL_EXT_semaphore_fd and
 * GL_NV_timeline_semaphore) and the device exports them, GL waits on each frame's own
 * (AVVkFrame.sem, at sem_value) before writing it and signals the next value after, as
 * FFmpeg's users of the frame do: nothing waits on the host. Elsewhere (Mesa's GL) a GL
 * fence marks the frame written, to wait on before handing it on.
 *
 *   AVBufferRef *device;
 *   struct glr_av_vulkan_frames vk;
 *   glr_av_vulkan_device_for_gl(log, "", NULL, &device);   (-init_hw_device vulkan)
 *   glr_av_vulkan_frames_init(&vk, log, device, &converter_params, converter);
 *   glr_av_vulkan_convert(&vk, log, &source, &frame, &fence);
 *   glr_av_vulkan_wait(&vk, fence, UINT64_MAX);   then hand the frame on
 *   glr_av_vulkan_forget(&vk, fence);
 *   glr_av_vulkan_frames_uninit(&vk);
 *
 * Static inline, compiled against the FFmpeg it is built with (its hwcontext_vulkan.h and
 * the system's Vulkan headers); where that FFmpeg was built without Vulkan, making the
 * device fails: ask glr_av_has_device_type(AV_HWDEVICE_TYPE_VULKAN) first to say so. Those
 * that can fail return 0 or a negative glreader code with the reason logged and kept as the
 * thread's last error (glr_last_error()). Threads: with the GL context current, but
 * glr_av_vulkan_frames_init.
 */
#ifndef GLREADER_UTILS_LIBAV_VULKAN_FRAMES_H
#define GLREADER_UTILS_LIBAV_VULKAN_FRAMES_H

#include "glreader/interop.h"
#include "glreader/utils/libav_hw_frames.h"

#ifdef __cplusplus
extern "C" {
#endif
#include <libavutil/hwcontext_vulkan.h>
#ifdef __cplusplus
}
#endif

#include <string.h>
#include <unistd.h>

/* FFmpeg 6.1 (libavutil 58.11.100) on: frames may be multiplane images, and carry a lock
 * and the queue family that owns each image. */
#define GLR_AV_VULKAN_SINCE_6_1_ (LIBAVUTIL_VERSION_INT >= AV_VERSION_INT(58, 11, 100))

/* One plane's image of a pooled frame, as GL imported it, and its timeline semaphore where
 * the frames are ordered by them. */
struct glr_av_vulkan_import {
    VkImage image;
    glr_memory_texture *texture;
    glr_memory_semaphore *semaphore;
};

/* A pool of Vulkan frames GL writes, and the planes imported so far (a pool's frames come
 * round again: each image is imported once). Zeroed before glr_av_vulkan_frames_init. */
struct glr_av_vulkan_frames {
    AVBufferRef *pool; /* the frames context (AVHWFramesContext): the caller's to reference */
    struct glr_converter_params params;
    glr_converter *converter; /* the caller's, made for params */
    struct glr_color color;   /* params' resolved: the frames' tags, as the ring's */
    VkDevice device;
    PFN_vkGetMemoryFdKHR get_memory_fd;
    PFN_vkGetSemaphoreFdKHR get_semaphore_fd;
    PFN_vkGetImageMemoryRequirements2 get_requirements;
    int semaphores; /* 1: ordered by the frames' timeline semaphores, 0: by GL fences; -1: not known
                     * yet (decided with GL current, at the first frame) */
    struct glr_av_vulkan_import *imports;
    int nb_imports;
};

static inline const AVVulkanDeviceContext *glr_av_vulkan_context_(AVBufferRef *device)
{
    return (const AVVulkanDeviceContext *)((AVHWDeviceContext *)device->data)->hwctx;
}

static inline int glr_av_vulkan_has_extension_(const AVVulkanDeviceContext *vk, const char *name)
{
    int i;

    for (i = 0; i < vk->nb_enabled_dev_extensions; i++)
        if (!strcmp(vk->enabled_dev_extensions[i], name))
            return 1;
    return 0;
}

/* Whether device is the one with GL's device and driver UUIDs and exports memory: 1 or 0,
 * its name and, where it is not, why not in name. */
static inline int glr_av_vulkan_matches_(AVBufferRef *device, const uint8_t gl_device[16], const uint8_t gl_driver[16],
                                         char *name, size_t size)
{
    const AVVulkanDeviceContext *vk = glr_av_vulkan_context_(device);
    PFN_vkGetPhysicalDeviceProperties2 properties2 =
        (PFN_vkGetPhysicalDeviceProperties2)vk->get_proc_addr(vk->inst, "vkGetPhysicalDeviceProperties2");
    VkPhysicalDeviceIDProperties id;
    VkPhysicalDeviceProperties2 props;
    int same;

    memset(&id, 0, sizeof(id));
    id.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES;
    memset(&props, 0, sizeof(props));
    props.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
    props.pNext = &id;
    properties2(vk->phys_dev, &props);
    same = !memcmp(id.deviceUUID, gl_device, 16) && !memcmp(id.driverUUID, gl_driver, 16);
    if (same && glr_av_vulkan_has_extension_(vk, VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME)) {
        snprintf(name, size, "%s", props.properties.deviceName);
        return 1;
    }
    snprintf(name, size, "%s (%s)", props.properties.deviceName,
             same ? "no " VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME : "another device than GL's");
    return 0;
}

/* Whether device (a Vulkan AVHWDeviceContext) is the one behind the current GL context and
 * exports memory GL can import: 1, or 0 (another device, or no VK_KHR_external_memory_fd:
 * not logged), or a negative code where GL cannot say (no GL_EXT_memory_object: logged).
 * The device's name goes into name (size bytes), and where it is not, why not after it. */
static inline int glr_av_vulkan_device_is_gl(glr_log *log, AVBufferRef *device, glr_get_proc_address_fn loader,
                                             char *name, size_t size)
{
    uint8_t gl_device[16], gl_driver[16];
    int ret = glr_gl_device_uuids(log, loader, gl_device, gl_driver);

    return ret < 0 ? ret : glr_av_vulkan_matches_(device, gl_device, gl_driver, name, size);
}

/* Makes in *device the Vulkan device GL can share memory with: the one spec names
 * (-init_hw_device vulkan's spelling after the colon: an index or a name), or with an empty
 * spec (or NULL) each device in turn, as FFmpeg chooses them by index or name, not UUID.
 * Refuses naming what is missing: no device at all, or named so; no device GL shares
 * memory with (each one tried, and why not). The caller owns *device. */
static inline int glr_av_vulkan_device_for_gl(glr_log *log, const char *spec, glr_get_proc_address_fn loader,
                                              AVBufferRef **device)
{
    char tried[1024] = "", name[300], index[16], message[1400], why[AV_ERROR_MAX_STRING_SIZE];
    uint8_t gl_device[16], gl_driver[16];
    int named = spec && *spec, i, err;

    if ((err = glr_gl_device_uuids(log, loader, gl_device, gl_driver)) < 0) /* GL cannot say: logged */
        return err;
    for (i = 0; i < (named ? 1 : 16); i++) {
        snprintf(index, sizeof(index), "%d", i);
        if ((err = av_hwdevice_ctx_create(device, AV_HWDEVICE_TYPE_VULKAN, named ? spec : index, NULL, 0)) < 0) {
            if (i > 0)
                break; /* past the last device */
            av_strerror(err, why, sizeof(why));
            snprintf(message, sizeof(message), "no Vulkan device %s%s: %s (FFmpeg's -init_hw_device vulkan%s%s)",
                     named ? "named " : "", named ? spec : "at all", why, named ? ":" : "", named ? spec : "");
            return glr_av_fail_(log, glr_av_code_of(err), message);
        }
        if (glr_av_vulkan_matches_(*device, gl_device, gl_driver, name, sizeof(name))) {
            snprintf(message, sizeof(message), "hardware frames: Vulkan device %s (%s), the GL context's",
                     named ? spec : index, name);
            glr_log_message(log, GLR_LOG_INFO, message);
            return 0;
        }
        av_buffer_unref(device);
        snprintf(tried + strlen(tried), sizeof(tried) - strlen(tried), "%s%s", *tried ? ", " : "", name);
    }
    snprintf(message, sizeof(message), "no Vulkan device shares memory with the GL context: tried %s", tried);
    return glr_av_fail_(log, GLR_ERROR_UNSUPPORTED, message);
}

/* Optimal tiling, which GL imports (not a DRM format modifier's), and an image (with its
 * memory and semaphore) per plane: each plane becomes one GL texture. From 6.1 on FFmpeg
 * would make one multiplane image where the device can sample it (NVIDIA's can), which GL
 * cannot import plane by plane. */
static inline void glr_av_vulkan_configure_(AVHWFramesContext *ctx)
{
    AVVulkanFramesContext *vk = (AVVulkanFramesContext *)ctx->hwctx;
    vk->tiling = VK_IMAGE_TILING_OPTIMAL;
#if GLR_AV_VULKAN_SINCE_6_1_
    vk->flags = (AVVkFrameFlags)(AV_VK_FRAME_FLAG_NONE | AV_VK_FRAME_FLAG_DISABLE_MULTIPLANE);
#else
    vk->flags = AV_VK_FRAME_FLAG_NONE;
#endif
}

/* Makes vk's pool of params' frames (a YUV format of the ring, at its size) on device (made
 * by glr_av_vulkan_device_for_gl, or one checked by glr_av_vulkan_device_is_gl), which
 * converter (made for params, outliving vk) writes. */
static inline int glr_av_vulkan_frames_init(struct glr_av_vulkan_frames *vk, glr_log *log, AVBufferRef *device,
                                            const struct glr_converter_params *params, glr_converter *converter)
{
    const AVVulkanDeviceContext *dev = glr_av_vulkan_context_(device);
    PFN_vkGetDeviceProcAddr device_proc =
        (PFN_vkGetDeviceProcAddr)dev->get_proc_addr(dev->inst, "vkGetDeviceProcAddr");
    int ret;

    /* (No av_vkfmt_from_pixfmt here: glreader-av must load with an FFmpeg built without
     * Vulkan; av_hwframe_ctx_init refuses a format the frames do not take.) */
    if ((ret = glr_av_hw_frames_pool(log, device, AV_PIX_FMT_VULKAN, "Vulkan", params, glr_av_vulkan_configure_,
                                     &vk->pool)) < 0)
        return ret;
    vk->params = *params;
    vk->converter = converter;
    glr_color_resolve(params->format, &params->color, &vk->color); /* as the converter did */
    vk->device = dev->act_dev;
    vk->get_memory_fd = (PFN_vkGetMemoryFdKHR)device_proc(vk->device, "vkGetMemoryFdKHR");
    vk->get_semaphore_fd = (PFN_vkGetSemaphoreFdKHR)device_proc(vk->device, "vkGetSemaphoreFdKHR");
    vk->semaphores = -1;
    vk->get_requirements =
        (PFN_vkGetImageMemoryRequirements2)device_proc(vk->device, "vkGetImageMemoryRequirements2");
    if (!vk->get_memory_fd || !glr_av_vulkan_has_extension_(dev, VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME)) {
        av_buffer_unref(&vk->pool);
        return glr_av_fail_(log, GLR_ERROR_UNSUPPORTED, "the Vulkan device does not export memory ("
                            VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME "), so GL cannot write its frames");
    }
    return 0;
}

/* Whether the device exports timeline semaphores as opaque fds (FFmpeg makes the frames'
 * exportable only then, from 8.1 on, and only the driver can say). */
static inline int glr_av_vulkan_exports_timelines_(const AVVulkanDeviceContext *dev)
{
    PFN_vkGetPhysicalDeviceExternalSemaphoreProperties properties =
        (PFN_vkGetPhysicalDeviceExternalSemaphoreProperties)dev->get_proc_addr(
            dev->inst, "vkGetPhysicalDeviceExternalSemaphoreProperties");
    VkSemaphoreTypeCreateInfo type;
    VkPhysicalDeviceExternalSemaphoreInfo info;
    VkExternalSemaphoreProperties got;

    if (!properties)
        return 0;
    memset(&type, 0, sizeof(type));
    type.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO;
    type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
    memset(&info, 0, sizeof(info));
    info.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_SEMAPHORE_INFO;
    info.pNext = &type;
    info.handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
    memset(&got, 0, sizeof(got));
    got.sType = VK_STRUCTURE_TYPE_EXTERNAL_SEMAPHORE_PROPERTIES;
    properties(dev->phys_dev, &info, &got);
    return (got.externalSemaphoreFeatures & VK_EXTERNAL_SEMAPHORE_FEATURE_EXPORTABLE_BIT) != 0;
}

/* Whether vk's frames are ordered by their timeline semaphores (GL current): where GL
 * imports them and the device exports them. Says which, and why not, in a line. */
static inline int glr_av_vulkan_semaphores_(struct glr_av_vulkan_frames *vk, glr_log *log)
{
    const AVVulkanDeviceContext *dev = glr_av_vulkan_context_(((AVHWFramesContext *)vk->pool->data)->device_ref);
    int gl = glr_gl_has_timeline_semaphores(vk->params.get_proc_address);
    int exported = vk->get_semaphore_fd && glr_av_vulkan_has_extension_(dev, VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME) &&
                   glr_av_vulkan_exports_timelines_(dev);

    glr_log_message(log, GLR_LOG_INFO, gl && exported
                    ? "hardware frames: GL waits on and signals each frame's timeline semaphore, as FFmpeg does: "
                      "nothing waits on the host"
                    : gl ? "hardware frames: a GL fence marks each frame written (the Vulkan device does not export "
                           "semaphores: no " VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME ")"
                         : "hardware frames: a GL fence marks each frame written (GL imports no timeline semaphores, "
                           "which need GL_EXT_semaphore_fd and GL_NV_timeline_semaphore)");
    return gl && exported;
}

/* Plane p's timeline semaphore of a pooled frame, imported into GL (*semaphore). */
static inline int glr_av_vulkan_import_semaphore_(struct glr_av_vulkan_frames *vk, glr_log *log,
                                                  const AVVkFrame *frame, int p, glr_memory_semaphore **semaphore)
{
    VkSemaphoreGetFdInfoKHR info;
    char message[256];
    VkResult result;
    int fd = -1;

    memset(&info, 0, sizeof(info));
    info.sType = VK_STRUCTURE_TYPE_SEMAPHORE_GET_FD_INFO_KHR;
    info.semaphore = frame->sem[p];
    info.handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
    if ((result = vk->get_semaphore_fd(vk->device, &info, &fd)) != VK_SUCCESS) {
        snprintf(message, sizeof(message), "the Vulkan frame's timeline semaphore is not exportable as an opaque fd "
                 "(vkGetSemaphoreFdKHR: %d)", (int)result);
        return glr_av_fail_(log, GLR_ERROR_UNSUPPORTED, message);
    }
    return (*semaphore = glr_memory_semaphore_import(log, fd, vk->params.get_proc_address)) ? 0
                                                                                           : glr_last_error_code();
}

/* Plane p of a pooled frame as a GL texture (*texture, its name) and, where semaphores order
 * the frames, its semaphore in GL (*semaphore): imported the first time its image is seen. */
static inline int glr_av_vulkan_import_(struct glr_av_vulkan_frames *vk, glr_log *log, const AVVkFrame *frame, int p,
                                        unsigned *texture, glr_memory_semaphore **semaphore)
{
    VkImageMemoryRequirementsInfo2 info;
    VkMemoryDedicatedRequirements dedicated;
    VkMemoryRequirements2 requirements;
    VkMemoryGetFdInfoKHR fd_info;
    struct glr_memory_image m;
    struct glr_av_vulkan_import *grown;
    glr_memory_texture *imported;
    char message[256];
    VkResult result;
    int i, fd = -1, ret;

    *semaphore = NULL;
    for (i = 0; i < vk->nb_imports; i++)
        if (vk->imports[i].image == frame->img[p]) {
            *texture = glr_memory_texture_name(vk->imports[i].texture);
            *semaphore = vk->imports[i].semaphore;
            return 0;
        }
    if (!frame->img[p] || (vk->semaphores && !frame->sem[p]))
        return glr_av_fail_(log, GLR_ERROR_UNSUPPORTED, "the Vulkan frame has no image of its own for each plane, "
                            "which GL needs to import them one by one");
    if (vk->semaphores && (ret = glr_av_vulkan_import_semaphore_(vk, log, frame, p, semaphore)) < 0)
        return ret;
    /* GL is told whether the memory is a dedicated allocation, as FFmpeg decided it: where
     * the driver prefers or requires one. */
    memset(&info, 0, sizeof(info));
    info.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_REQUIREMENTS_INFO_2;
    info.image = frame->img[p];
    memset(&dedicated, 0, sizeof(dedicated));
    dedicated.sType = VK_STRUCTURE_TYPE_MEMORY_DEDICATED_REQUIREMENTS;
    memset(&requirements, 0, sizeof(requirements));
    requirements.sType = VK_STRUCTURE_TYPE_MEMORY_REQUIREMENTS_2;
    requirements.pNext = &dedicated;
    vk->get_requirements(vk->device, &info, &requirements);

    memset(&fd_info, 0, sizeof(fd_info));
    fd_info.sType = VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR;
    fd_info.memory = frame->mem[p];
    fd_info.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    if ((result = vk->get_memory_fd(vk->device, &fd_info, &fd)) != VK_SUCCESS) {
        glr_memory_semaphore_destroy(semaphore);
        snprintf(message, sizeof(message), "the Vulkan frame's memory is not exportable as an opaque fd "
                 "(vkGetMemoryFdKHR: %d): the device cannot share it with GL", (int)result);
        return glr_av_fail_(log, GLR_ERROR_UNSUPPORTED, message);
    }
    memset(&m, 0, sizeof(m));
    m.fd = fd;
    m.memory_size = frame->size[p];
    m.offset = (uint64_t)frame->offset[p];
    m.dedicated = dedicated.prefersDedicatedAllocation || dedicated.requiresDedicatedAllocation;
    m.width = glr_converter_plane_width(vk->converter, p);
    m.height = glr_format_plane_rows(vk->params.format, p, vk->params.height);
    m.internal_format = glr_converter_plane_format(vk->converter, p);
    m.get_proc_address = vk->params.get_proc_address;
    if (!(grown = (struct glr_av_vulkan_import *)av_realloc_array(vk->imports, vk->nb_imports + 1, sizeof(*grown)))) {
        close(fd);
        glr_memory_semaphore_destroy(semaphore);
        return glr_av_fail_(log, -ENOMEM, "out of memory for a Vulkan frame's import");
    }
    vk->imports = grown;
    if (!(imported = glr_memory_texture_import(log, &m))) { /* logged; the fd is closed */
        glr_memory_semaphore_destroy(semaphore);
        return glr_last_error_code();
    }
    vk->imports[vk->nb_imports].image = frame->img[p];
    vk->imports[vk->nb_imports].texture = imported;
    vk->imports[vk->nb_imports++].semaphore = *semaphore;
    *texture = glr_memory_texture_name(imported);
    return 0;
}

/* Locks (or unlocks) frame's properties against FFmpeg's other threads, where the release
 * has the lock (6.1 and later). */
static inline void glr_av_vulkan_lock_(struct glr_av_vulkan_frames *vk, AVVkFrame *frame, int lock)
{
#if GLR_AV_VULKAN_SINCE_6_1_
    AVHWFramesContext *ctx = (AVHWFramesContext *)vk->pool->data;
    AVVulkanFramesContext *frames = (AVVulkanFramesContext *)ctx->hwctx;
    (lock ? frames->lock_frame : frames->unlock_frame)(ctx, frame);
#else
    (void)vk, (void)frame, (void)lock;
#endif
}

/* Orders the conversion of frame's planes (their GL textures and semaphores) with FFmpeg's
 * other work on the frame: GL waits for each plane's semaphore value (`before`), or signals
 * the next, and the frame says so for whoever uses it next: that value, the general layout
 * GL left the image in, no access pending and (from 6.1, where frames record it) GL's
 * release of the image to an external queue family, which FFmpeg's next barrier acquires
 * from, as after its own exports. */
static inline int glr_av_vulkan_order_(AVVkFrame *frame, glr_memory_semaphore *const *semaphores,
                                       const unsigned *textures, int planes, int before)
{
    int p, ret = 0;

    for (p = 0; p < planes && ret >= 0; p++) {
        if (before) {
            ret = glr_memory_semaphore_wait(semaphores[p], frame->sem_value[p], &textures[p], 1);
        } else if ((ret = glr_memory_semaphore_signal(semaphores[p], frame->sem_value[p] + 1, &textures[p], 1)) >=
                   0) {
            frame->sem_value[p]++;
            frame->layout[p] = VK_IMAGE_LAYOUT_GENERAL;
            frame->access[p] = (VkAccessFlagBits)0;
#if GLR_AV_VULKAN_SINCE_6_1_
            frame->queue_family[p] = VK_QUEUE_FAMILY_EXTERNAL;
#endif
        }
    }
    return ret;
}

/* Converts source's frame into a new frame of vk's pool (*frame, the caller's), tagged with
 * the colour as the ring's frames are, and starts the GPU's work without waiting. Where
 * semaphores order the frames, FFmpeg's users wait for it on the GPU and *fence is NULL;
 * else *fence signals once the frame is written, and no one may read it before: either way
 * glr_av_vulkan_wait, then glr_av_vulkan_forget, before the frame is handed on. */
static inline int glr_av_vulkan_convert(struct glr_av_vulkan_frames *vk, glr_log *log, const struct glr_source *source,
                                        AVFrame **frame, glr_gl_fence **fence)
{
    glr_memory_semaphore *semaphores[4] = { NULL };
    unsigned textures[4] = { 0 };
    AVVkFrame *vk_frame;
    int planes = av_pix_fmt_count_planes(glr_av_pix_fmt(vk->params.format)), p, ret, locked = 0;

    *fence = NULL;
    if (vk->semaphores < 0)
        vk->semaphores = glr_av_vulkan_semaphores_(vk, log);
    if ((ret = glr_av_hw_pooled_frame(log, vk->pool, "Vulkan", frame)) < 0)
        return ret;
    vk_frame = (AVVkFrame *)(*frame)->data[0];
    for (p = 0; p < planes && ret >= 0; p++)
        ret = glr_av_vulkan_import_(vk, log, vk_frame, p, &textures[p], &semaphores[p]);
    if (ret >= 0 && vk->semaphores) {
        glr_av_vulkan_lock_(vk, vk_frame, locked = 1);
        ret = glr_av_vulkan_order_(vk_frame, semaphores, textures, planes, 1);
    }
    if (ret >= 0)
        ret = glr_converter_convert(vk->converter, source, textures);
    if (ret >= 0 && vk->semaphores)
        ret = glr_av_vulkan_order_(vk_frame, semaphores, textures, planes, 0);
    else if (ret >= 0 && !(*fence = glr_converter_fence(vk->converter)))
        ret = glr_last_error_code(); /* each failure was logged */
    if (locked)
        glr_av_vulkan_lock_(vk, vk_frame, 0);
    if (ret < 0) {
        av_frame_free(frame);
        return ret;
    }
    glr_av_set_color(*frame, &vk->color);
    return 0;
}

/* 1 once the frame glr_av_vulkan_convert made with fence may be handed on (at once where
 * semaphores order it: fence NULL), 0 where timeout_ns (UINT64_MAX: none) passed first, or a
 * negative glreader code, the reason logged. GL current. */
static inline int glr_av_vulkan_wait(struct glr_av_vulkan_frames *vk, glr_gl_fence *fence, uint64_t timeout_ns)
{
    return fence ? glr_converter_fence_wait(vk->converter, fence, timeout_ns) : 1;
}

/* Frees fence (NULL accepted), waited on or not. GL current. */
static inline void glr_av_vulkan_forget(struct glr_av_vulkan_frames *vk, glr_gl_fence *fence)
{
    glr_converter_fence_delete(vk->converter, fence);
}

/* Deletes the imports (GL's side only; the context current) and the pool reference, and
 * zeroes vk. GL's writes end first: the frames' memory may go with the pool, and FFmpeg
 * waits only for its own work before freeing it. */
static inline void glr_av_vulkan_frames_uninit(struct glr_av_vulkan_frames *vk)
{
    glr_gl_fence *written = vk->nb_imports ? glr_converter_fence(vk->converter) : NULL;
    int i;

    if (written) {
        glr_converter_fence_wait(vk->converter, written, UINT64_MAX);
        glr_converter_fence_delete(vk->converter, written);
    }
    for (i = 0; i < vk->nb_imports; i++) {
        glr_memory_texture_destroy(&vk->imports[i].texture);
        glr_memory_semaphore_destroy(&vk->imports[i].semaphore);
    }
    av_freep(&vk->imports);
    av_buffer_unref(&vk->pool);
    memset(vk, 0, sizeof(*vk));
}

#endif /* GLREADER_UTILS_LIBAV_VULKAN_FRAMES_H */
