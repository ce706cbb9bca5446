/*
 * glreader: a header-only bridge from GL's converted frames to FFmpeg's hardware frames, for
 * every user of glreader beside libavutil (glreader-av's glr_hw_frames, the FFmpeg source
 * filter): whether this FFmpeg has a device type, a pool of a converter's frames, a frame of
 * it. The Vulkan kind's own part is glreader/utils/libav_vulkan_frames.h.
 *
 * All functions are static inline, compiled against the FFmpeg they are built with. Those
 * that can fail return 0 or a negative glreader code (glreader/common.h) with the reason
 * logged and kept as the thread's last error (glr_last_error()), as glreader's own calls do.
 */
#ifndef GLREADER_UTILS_LIBAV_HW_FRAMES_H
#define GLREADER_UTILS_LIBAV_HW_FRAMES_H

#include "glreader/convert.h"
#include "glreader/utils/libav.h"

#ifdef __cplusplus
extern "C" {
#endif
#include <libavutil/error.h>
#include <libavutil/hwcontext.h>
#ifdef __cplusplus
}
#endif

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* Logs message as an error and keeps it as the thread's last error; returns code. */
static inline int glr_av_fail_(glr_log *log, int code, const char *message)
{
    glr_set_last_error(code, message);
    glr_log_message(log, GLR_LOG_ERROR, message);
    return code;
}

/* Whether this FFmpeg was built with the device type (a Vulkan or CUDA device). */
static inline int glr_av_has_device_type(enum AVHWDeviceType type)
{
    enum AVHWDeviceType t;

    for (t = av_hwdevice_iterate_types(AV_HWDEVICE_TYPE_NONE); t != AV_HWDEVICE_TYPE_NONE;
         t = av_hwdevice_iterate_types(t))
        if (t == type)
            return 1;
    return 0;
}

/* Reads ffmpeg's -init_hw_device spelling, TYPE[=NAME][:DEVICE], as hardware frames take it:
 * the type's name (up to '=' or ':') into type, and DEVICE into device ("" for none), each
 * of its size in bytes. Returns the type, AV_HWDEVICE_TYPE_VULKAN or AV_HWDEVICE_TYPE_CUDA, or
 * AV_HWDEVICE_TYPE_NONE for any other and for options after a comma (",key=value", which are
 * not taken). Nothing is logged: the caller names its option. */
static inline enum AVHWDeviceType glr_av_hw_device_parse(const char *spec, char *type, size_t type_size, char *device,
                                                         size_t device_size)
{
    size_t type_length = strcspn(spec, "=:");
    const char *colon = strchr(spec, ':');

    snprintf(type, type_size, "%.*s", (int)type_length, spec);
    snprintf(device, device_size, "%s", colon ? colon + 1 : "");
    if (strchr(spec, ','))
        return AV_HWDEVICE_TYPE_NONE;
    return !strcmp(type, "vulkan") ? AV_HWDEVICE_TYPE_VULKAN
         : !strcmp(type, "cuda")   ? AV_HWDEVICE_TYPE_CUDA
                                   : AV_HWDEVICE_TYPE_NONE;
}

/* Makes in *pool a frames context (AVHWFramesContext) of hw frames (AV_PIX_FMT_VULKAN,
 * AV_PIX_FMT_CUDA) on device, holding params' format at its size; configure (may be NULL)
 * sets the kind's own fields before FFmpeg initialises it, and kind ("Vulkan") names it in a
 * refusal. The caller owns *pool. */
static inline int glr_av_hw_frames_pool(glr_log *log, AVBufferRef *device, enum AVPixelFormat hw, const char *kind,
                                        const struct glr_converter_params *params,
                                        void (*configure)(AVHWFramesContext *ctx), AVBufferRef **pool)
{
    enum AVPixelFormat sw_format = glr_av_pix_fmt(params->format);
    AVHWFramesContext *ctx;
    char message[256], why[AV_ERROR_MAX_STRING_SIZE];
    int err;

    if (!(*pool = av_hwframe_ctx_alloc(device))) {
        snprintf(message, sizeof(message), "out of memory for a %s frames context", kind);
        return glr_av_fail_(log, -ENOMEM, message);
    }
    ctx = (AVHWFramesContext *)(*pool)->data;
    ctx->format = hw;
    ctx->sw_format = sw_format;
    ctx->width = params->width;
    ctx->height = params->height;
    if (configure)
        configure(ctx);
    if ((err = av_hwframe_ctx_init(*pool)) < 0) {
        av_buffer_unref(pool);
        av_strerror(err, why, sizeof(why));
        snprintf(message, sizeof(message), "FFmpeg cannot make %dx%d %s frames of %s: %s", params->width,
                 params->height, kind, av_get_pix_fmt_name(sw_format), why);
        return glr_av_fail_(log, glr_av_code_of(err), message);
    }
    return 0;
}

/* A frame of pool, in *frame (the caller's); kind names the pool in a refusal. */
static inline int glr_av_hw_pooled_frame(glr_log *log, AVBufferRef *pool, const char *kind, AVFrame **frame)
{
    char message[256], why[AV_ERROR_MAX_STRING_SIZE];
    int err;

    if (!(*frame = av_frame_alloc()))
        return glr_av_fail_(log, -ENOMEM, "out of memory for a frame");
    if ((err = av_hwframe_get_buffer(pool, *frame, 0)) < 0) {
        av_frame_free(frame);
        av_strerror(err, why, sizeof(why));
        snprintf(message, sizeof(message), "no %s frame from the pool: %s", kind, why);
        return glr_av_fail_(log, glr_av_code_of(err), message);
    }
    return 0;
}

#endif /* GLREADER_UTILS_LIBAV_HW_FRAMES_H */
