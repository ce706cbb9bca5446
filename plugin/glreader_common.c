/*
 * What glreader's two filters share (see glreader_common.h).
 *
 * This file is part of glreader (plugin/glreader_common.c), copied into FFmpeg trees by
 * ffmpeg-patches/ (beside each line's hooks).
 *
 * FFmpeg is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Lesser General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "libavutil/attributes.h"
#include "libavutil/avstring.h"
#include "libavutil/error.h"
#include "libavutil/imgutils.h"
#include "libavutil/log.h"
#include "libavutil/mem.h"
#include "libavutil/pixdesc.h"
#include "glreader_common.h"
#include "glreader_compat.h"

static void log_to_av(void *opaque, enum glr_log_level level, const char *message)
{
    GLReaderGL *gl = opaque;
    int av_level = level == GLR_LOG_ERROR ? AV_LOG_ERROR
                 : level == GLR_LOG_WARN  ? AV_LOG_WARNING
                 : level == GLR_LOG_INFO  ? AV_LOG_VERBOSE
                                          : AV_LOG_DEBUG;
    av_log((AVFilterContext *)atomic_load(&gl->filter), av_level, "%s\n", message);
}

av_cold int ff_glreader_gl_init(GLReaderGL *gl, AVFilterContext *ctx, AVBufferRef *owner,
                        void (*returned)(void *opaque), void *opaque)
{
    struct glr_log_params log_params = { .callback = log_to_av, .opaque = gl, .level = GLR_LOG_INFO };

    atomic_init(&gl->filter, (uintptr_t)ctx);
    gl->lender.keeps_frames = 1;
    gl->lender.returned = returned;
    gl->lender.opaque = opaque;
    /* A weak use of the reference: the filter's own is the strong one. */
    gl->lender.owner = owner;
    return (gl->log = glr_log_create(&log_params)) ? 0 : AVERROR(ENOMEM);
}

av_cold int ff_glreader_gl_open(GLReaderGL *gl, AVFilterContext *ctx, int require_hw)
{
    struct glr_context_params params = { .require_hw = require_hw };

    if (!(gl->gl = glr_context_create(gl->log, &params)))
        return ff_glreader_averror(glr_last_error_code());
    av_log(ctx, AV_LOG_INFO, "OpenGL renderer: %s (EGL %s%s)\n", glr_context_renderer(gl->gl),
           glr_context_platform_name(gl->gl), glr_context_is_software(gl->gl) ? ", software" : "");
    return 0;
}

/* The format hardware frames hold: the one asked for, else NV12 (what encoders on the GPU
 * take), or YUVA420 where alpha is kept. */
static int hw_frames_format(const GLReaderOutput *out)
{
    return out->format ? out->format : out->alpha ? GLR_FORMAT_YUVA420 : GLR_FORMAT_NV12;
}

/* -init_hw_device's TYPE[=NAME][:DEVICE]: the type, Vulkan or CUDA (AV_HWDEVICE_TYPE_NONE
 * for another, or for options after a comma), and the device part into device ("" for none). */
static enum AVHWDeviceType device_of(const char *spec, char *device, size_t size)
{
    char type[256];
    return glr_av_hw_device_parse(spec, type, sizeof(type), device, size);
}

/* Why hardware frames of out's format cannot be: RGB (why, else empty). */
static void rgb_refused(const GLReaderOutput *out, char *why, size_t size)
{
    if (!glr_format_get_info(hw_frames_format(out))->yuv)
        snprintf(why, size, "format=%s is RGB, and hardware frames hold YUV converted on the GPU "
                 "(format=nv12, yuv420p, p010le, yuv444p)", glr_format_name(out->format));
}

av_cold int ff_glreader_check_hw_frames(AVFilterContext *ctx, const GLReaderOutput *out,
                                        enum GLReaderHWFrames hw_frames, const char *spec)
{
    char why[300] = "", device[256];

    if (spec && *spec && device_of(spec, device, sizeof(device)) == AV_HWDEVICE_TYPE_NONE) {
        av_log(ctx, AV_LOG_ERROR, "hw_device=%s: this source writes Vulkan or CUDA frames, on a device named as "
               "-init_hw_device names it: vulkan, vulkan:N, vulkan=NAME:N, cuda, cuda:N (no options after a comma)\n",
               spec);
        return AVERROR(EINVAL);
    }
    if (hw_frames == GLREADER_HW_FRAMES_ON)
        rgb_refused(out, why, sizeof(why));
    if (*why)
        av_log(ctx, AV_LOG_ERROR, "hw_frames=on: %s\n", why);
    return *why ? AVERROR(EINVAL) : 0;
}

/* "Vulkan" or "CUDA", as the docs name the kinds. */
static const char *kind_name(enum AVHWDeviceType type)
{
    return type == AV_HWDEVICE_TYPE_CUDA ? "CUDA" : "Vulkan";
}

/* What one kind of hardware frames does, through its bridge (glreader/utils/libav_*_frames.h):
 * make the device GL runs on (spec's part after the type; "" for any) or check a given one
 * (1 where it is GL's, its name into name), make the pool (gl->hw_device's, for
 * gl->converter), convert a frame into it with a mark that passes once it is written, wait
 * on and free a mark, free the pool and the GL side. Each returns as its bridge does. */
typedef struct GLReaderHWKind {
    enum AVHWDeviceType type;
    enum AVPixelFormat pix_fmt;
    int (*make_device)(GLReaderGL *gl, const char *spec);
    int (*is_gl)(GLReaderGL *gl, AVBufferRef *device, char *name, size_t size);
    int (*init)(GLReaderGL *gl, const struct glr_converter_params *params, AVBufferRef **pool);
    int (*convert)(GLReaderGL *gl, const struct glr_source *source, AVFrame **frame, void **mark);
    int (*wait)(GLReaderGL *gl, void *mark, uint64_t timeout_ns);
    void (*forget)(GLReaderGL *gl, void *mark);
    void (*uninit)(GLReaderGL *gl);
} GLReaderHWKind;

#if CONFIG_VULKAN
static int vulkan_make_device(GLReaderGL *gl, const char *spec)
{
    return glr_av_vulkan_device_for_gl(gl->log, spec, NULL, &gl->hw_device);
}

static int vulkan_is_gl(GLReaderGL *gl, AVBufferRef *device, char *name, size_t size)
{
    return glr_av_vulkan_device_is_gl(gl->log, device, NULL, name, size);
}

static int vulkan_init(GLReaderGL *gl, const struct glr_converter_params *params, AVBufferRef **pool)
{
    int ret = glr_av_vulkan_frames_init(&gl->vulkan, gl->log, gl->hw_device, params, gl->converter);
    *pool = gl->vulkan.pool;
    return ret;
}

static int vulkan_convert(GLReaderGL *gl, const struct glr_source *source, AVFrame **frame, void **mark)
{
    glr_gl_fence *fence = NULL;
    int ret = glr_av_vulkan_convert(&gl->vulkan, gl->log, source, frame, &fence);
    *mark = fence;
    return ret;
}

static int vulkan_wait(GLReaderGL *gl, void *mark, uint64_t timeout_ns)
{
    return glr_av_vulkan_wait(&gl->vulkan, (glr_gl_fence *)mark, timeout_ns);
}

static void vulkan_forget(GLReaderGL *gl, void *mark)
{
    glr_av_vulkan_forget(&gl->vulkan, (glr_gl_fence *)mark);
}

static void vulkan_uninit(GLReaderGL *gl)
{
    glr_av_vulkan_frames_uninit(&gl->vulkan);
}
#endif

#if CONFIG_CUDA
static int cuda_make_device(GLReaderGL *gl, const char *spec)
{
    return glr_av_cuda_device_for_gl(gl->log, spec, &gl->hw_device);
}

static int cuda_is_gl(GLReaderGL *gl, AVBufferRef *device, char *name, size_t size)
{
    return glr_av_cuda_device_is_gl(gl->log, device, name, size);
}

static int cuda_init(GLReaderGL *gl, const struct glr_converter_params *params, AVBufferRef **pool)
{
    int ret = glr_av_cuda_frames_init(&gl->cuda, gl->log, gl->hw_device, params, gl->converter);
    *pool = gl->cuda.pool;
    return ret;
}

static int cuda_convert(GLReaderGL *gl, const struct glr_source *source, AVFrame **frame, void **mark)
{
    CUevent event = NULL;
    int ret = glr_av_cuda_convert(&gl->cuda, gl->log, source, frame, &event);
    *mark = event;
    return ret;
}

static int cuda_wait(GLReaderGL *gl, void *mark, uint64_t timeout_ns)
{
    return glr_av_cuda_wait(&gl->cuda, gl->log, (CUevent)mark, timeout_ns);
}

static void cuda_forget(GLReaderGL *gl, void *mark)
{
    glr_av_cuda_forget(&gl->cuda, (CUevent)mark);
}

static void cuda_uninit(GLReaderGL *gl)
{
    glr_av_cuda_frames_uninit(&gl->cuda);
}
#endif

/* The kinds this FFmpeg was built with, then an end (type NONE). */
static const GLReaderHWKind hw_kinds[] = {
#if CONFIG_VULKAN
    { AV_HWDEVICE_TYPE_VULKAN, AV_PIX_FMT_VULKAN, vulkan_make_device, vulkan_is_gl, vulkan_init, vulkan_convert,
      vulkan_wait, vulkan_forget, vulkan_uninit },
#endif
#if CONFIG_CUDA
    { AV_HWDEVICE_TYPE_CUDA, AV_PIX_FMT_CUDA, cuda_make_device, cuda_is_gl, cuda_init, cuda_convert, cuda_wait,
      cuda_forget, cuda_uninit },
#endif
    { AV_HWDEVICE_TYPE_NONE },
};

/* The kind of type's frames, or NULL where this FFmpeg was built without it. */
static const GLReaderHWKind *kind_of(enum AVHWDeviceType type)
{
    const GLReaderHWKind *kind;

    for (kind = hw_kinds; kind->type != AV_HWDEVICE_TYPE_NONE; kind++)
        if (kind->type == type)
            return kind;
    return NULL;
}

/* The kind of frames on gl->hw_device (set: always a kind this FFmpeg has). */
static const GLReaderHWKind *hw_kind(const GLReaderGL *gl)
{
    return kind_of(((const AVHWDeviceContext *)gl->hw_device->data)->type);
}

/* The device spec names, made for GL's (gl->hw_device), or why not where this FFmpeg lacks
 * its type. Returns 0 or an AVERROR: a device asked for by name that cannot be is an error. */
static int make_named_device(GLReaderGL *gl, const char *spec, char *why, size_t size)
{
    char device[256];
    enum AVHWDeviceType type = device_of(spec, device, sizeof(device)); /* checked at init */
    const GLReaderHWKind *kind = kind_of(type);
    int ret;

    if (!kind) {
        snprintf(why, size, "this FFmpeg has no %s (built without it)", kind_name(type));
        return 0;
    }
    return (ret = kind->make_device(gl, device)) < 0 ? ff_glreader_averror(ret) : 0;
}

/* The graph's device (ctx->hw_device_ctx) as gl->hw_device where GL writes its memory, or
 * why not. Returns 0 or an AVERROR where GL cannot say. */
static int take_graph_device(GLReaderGL *gl, AVFilterContext *ctx, char *why, size_t size)
{
    const AVHWDeviceContext *given = (const AVHWDeviceContext *)ctx->hw_device_ctx->data;
    const GLReaderHWKind *kind = kind_of(given->type);
    char name[300] = "";
    int is_gl;

    if (!kind) {
        snprintf(why, size, "the graph's device (-filter_hw_device) is %s, not Vulkan or CUDA",
                 av_hwdevice_get_type_name(given->type));
        return 0;
    }
    if ((is_gl = kind->is_gl(gl, ctx->hw_device_ctx, name, sizeof(name))) < 0)
        return ff_glreader_averror(is_gl);
    if (!is_gl) {
        snprintf(why, size, "the graph's %s device (-filter_hw_device) is %s: GL cannot write its memory",
                 kind_name(given->type), name);
        return 0;
    }
    if (!(gl->hw_device = av_buffer_ref(ctx->hw_device_ctx)))
        return AVERROR(ENOMEM);
    av_log(ctx, AV_LOG_VERBOSE, "hardware frames: the graph's %s device, %s, the GL context's\n",
           kind_name(given->type), name);
    return 0;
}

av_cold int ff_glreader_choose_hw_device(GLReaderGL *gl, AVFilterContext *ctx, const GLReaderOutput *out,
                                         enum GLReaderHWFrames hw_frames, const char *spec)
{
    int on = hw_frames == GLREADER_HW_FRAMES_ON, ret = 0;
    char why[400] = "";

    if (gl->hw_device || hw_frames == GLREADER_HW_FRAMES_OFF) /* chosen before the graph was configured again */
        return 0;
    if (!on && !(spec && *spec) && !ctx->hw_device_ctx) /* auto, and no device given: read back, as ever */
        return 0;
    rgb_refused(out, why, sizeof(why));
    if (*why) {
        /* said below */
    } else if (spec && *spec) {
        ret = make_named_device(gl, spec, why, sizeof(why));
        gl->hw_device_named = 1;
    } else if (ctx->hw_device_ctx) {
        ret = take_graph_device(gl, ctx, why, sizeof(why));
    } else { /* on: the GL context's own Vulkan device */
        ret = make_named_device(gl, "vulkan", why, sizeof(why));
    }
    if (ret < 0 || !*why)
        return ret;
    if (on) {
        av_log(ctx, AV_LOG_ERROR, "hw_frames=on: %s\n", why);
        return AVERROR(ENOSYS);
    }
    av_log(ctx, AV_LOG_INFO, "no hardware frames: %s; frames are read back\n", why);
    return 0;
}

enum AVPixelFormat ff_glreader_hw_pix_fmt(const GLReaderGL *gl)
{
    return hw_kind(gl)->pix_fmt;
}

/* Hardware frames of outlink's negotiated size on gl->hw_device: the conversion and the
 * pool, which becomes outlink's frames context. */
static av_cold int create_hw_frames(GLReaderGL *gl, const GLReaderOutput *out, AVFilterLink *outlink)
{
    struct glr_converter_params params = { .width = outlink->w, .height = outlink->h, .format = hw_frames_format(out),
                                           .color = { .matrix = out->matrix, .range = out->range,
                                                      .chroma = out->chroma_loc } }; /* top row first */
    AVBufferRef *pool = NULL;
    int ret;

    gl->format = params.format;
    if (!(gl->converter = glr_converter_create(gl->log, &params)))
        return ff_glreader_averror(glr_last_error_code());
    if ((ret = hw_kind(gl)->init(gl, &params, &pool)) < 0) {
        glr_converter_destroy(&gl->converter); /* no frames: nothing is converted */
        return ff_glreader_averror(ret);
    }
    av_buffer_unref(&GLR_LINK_HW_FRAMES(outlink));
    return (GLR_LINK_HW_FRAMES(outlink) = av_buffer_ref(pool)) ? 0 : AVERROR(ENOMEM);
}

int ff_glreader_hw_capture(GLReaderGL *gl, AVFilterLink *outlink, const struct glr_source *source, AVFrame **frame,
                           void **mark)
{
    int ret = hw_kind(gl)->convert(gl, source, frame, mark);

    if (ret < 0)
        return ff_glreader_averror(ret);
    glr_frame_take_link_properties(*frame, outlink);
    return 0;
}

int ff_glreader_hw_wait(GLReaderGL *gl, void *mark, uint64_t timeout_ns)
{
    int ret = hw_kind(gl)->wait(gl, mark, timeout_ns);
    return ret < 0 ? ff_glreader_averror(ret) : ret;
}

void ff_glreader_hw_forget(GLReaderGL *gl, void *mark)
{
    hw_kind(gl)->forget(gl, mark);
}

av_cold int ff_glreader_gl_create_readback(GLReaderGL *gl, const GLReaderOutput *out, AVFilterLink *outlink, int sync)
{
    int w = outlink->w, h = outlink->h, format = glr_av_format_of(outlink->format);
    struct glr_ring_params params = { .width = w, .height = h, .format = format,
                                      .color = { .matrix = out->matrix, .range = out->range, .chroma = out->chroma_loc },
                                      .depth = out->depth, /* GLR_FLIP_STRIDE */
                                      /* Frames downstream wait while an output stalls (a
                                       * muxer's reader paused): wait with them. */
                                      .capture_timeout_ns = UINT64_MAX };

    if (outlink->format == AV_PIX_FMT_VULKAN || outlink->format == AV_PIX_FMT_CUDA)
        return create_hw_frames(gl, out, outlink);
    if (gl->hw_device) { /* offered, and the graph took frames in memory */
        enum AVHWDeviceType type = ((const AVHWDeviceContext *)gl->hw_device->data)->type;
        av_log(outlink->src, gl->hw_device_named ? AV_LOG_WARNING : AV_LOG_INFO,
               "the hardware device %s is not used: the graph takes frames in memory, which are read back "
               "(hw_frames=on gives it %s frames)\n", av_hwdevice_get_type_name(type), kind_name(type));
    }
    glr_ring_destroy(&gl->ring);
    av_freep(&gl->pixels);
    gl->format = format;
    if (sync)
        return (gl->pixels = av_malloc(glr_format_plane_row_bytes(format, 0, w) * h)) ? 0 : AVERROR(ENOMEM);
    return (gl->ring = glr_ring_create(gl->log, &params)) ? 0 : ff_glreader_averror(glr_last_error_code());
}

int ff_glreader_read_frame(GLReaderGL *gl, AVFilterLink *outlink, int format, AVFrame **frame)
{
    int row = (int)glr_format_plane_row_bytes(format, 0, outlink->w);
    int ret = glr_scene_read_pixels(gl->scene, format, gl->pixels, row);

    if (ret < 0)
        return ff_glreader_averror(ret);
    if (!(*frame = ff_get_video_buffer(outlink, outlink->w, outlink->h)))
        return AVERROR(ENOMEM);
    av_image_copy_plane((*frame)->data[0], (*frame)->linesize[0], gl->pixels + (ptrdiff_t)row * (outlink->h - 1),
                        -row, row, outlink->h);
    return 0;
}

av_cold void ff_glreader_gl_uninit(GLReaderGL *gl)
{
    if (gl->gl && glr_context_make_current(gl->gl) >= 0) {
        glr_ring_destroy(&gl->ring);
        if (gl->hw_device)
            hw_kind(gl)->uninit(gl); /* the frames downstream keep the pool */
        glr_converter_destroy(&gl->converter);
        glr_scene_destroy(&gl->scene);
        glr_context_release_current(gl->gl);
    }
    av_buffer_unref(&gl->hw_device);
    glr_context_destroy(&gl->gl);
    glr_log_destroy(&gl->log);
    av_freep(&gl->pixels);
}

av_cold void ff_glreader_gl_detach(GLReaderGL *gl)
{
    atomic_store(&gl->filter, 0);
}

av_cold void ff_glreader_gl_attach(GLReaderGL *gl, AVFilterContext *ctx)
{
    atomic_store(&gl->filter, (uintptr_t)ctx);
}

/* The GL side parked (ff_glreader_park), and what it was made for: the filter's name and
 * options. */
static pthread_mutex_t parked_mutex = PTHREAD_MUTEX_INITIALIZER;
static AVBufferRef *parked;
static char *parked_for;

/* The filter's name and every option's value, as one string; NULL where they cannot be
 * written (the instance is then neither parked nor given a parked one). */
static char *instance_key(AVFilterContext *ctx)
{
    char *options = NULL, *key;

    if (av_opt_serialize(ctx->priv, 0, 0, &options, '=', ':') < 0)
        return NULL;
    key = av_asprintf("%s|%s", ctx->filter->name, options);
    av_free(options);
    return key;
}

av_cold void ff_glreader_park(AVFilterContext *ctx, AVBufferRef **shared)
{
    char *key = instance_key(ctx);

    if (!key) {
        av_buffer_unref(shared);
        return;
    }
    pthread_mutex_lock(&parked_mutex);
    av_buffer_unref(&parked);
    av_free(parked_for);
    parked = *shared;
    parked_for = key;
    *shared = NULL;
    pthread_mutex_unlock(&parked_mutex);
}

av_cold AVBufferRef *ff_glreader_take_parked(AVFilterContext *ctx)
{
    char *key = instance_key(ctx);
    AVBufferRef *taken = NULL;

    pthread_mutex_lock(&parked_mutex);
    if (key && parked && !strcmp(key, parked_for)) {
        taken = parked;
        parked = NULL;
        av_freep(&parked_for);
    }
    pthread_mutex_unlock(&parked_mutex);
    av_free(key);
    return taken;
}

int ff_glreader_averror(int code)
{
    switch (code) {
    case GLR_ERROR_SHADER:            return AVERROR(EINVAL);
    case GLR_ERROR_EGL:
    case GLR_ERROR_SOFTWARE_RENDERER: return AVERROR(ENODEV);
    default:                          return code <= GLR_ERROR_GL && code > GLR_ERROR_GL - 100 ? AVERROR_EXTERNAL : code;
    }
}

int ff_glreader_set_output_formats(AVFilterLink *outlink, const GLReaderGL *gl, const GLReaderOutput *out,
                                   int rgb_only, enum GLReaderHWFrames hw_frames)
{
    static const int negotiated[] = { GLR_FORMAT_I420, GLR_FORMAT_NV12, GLR_FORMAT_YUV444, GLR_FORMAT_P010,
                                      GLR_FORMAT_RGBA8, GLR_FORMAT_BGRA8 };
    /* With alpha kept, only formats that carry it. */
    static const int with_alpha[] = { GLR_FORMAT_YUVA420, GLR_FORMAT_YUVA444, GLR_FORMAT_YUVA444P10,
                                      GLR_FORMAT_RGBA8, GLR_FORMAT_BGRA8 };
    const int *offered = out->alpha ? with_alpha : negotiated;
    int count = out->alpha ? FF_ARRAY_ELEMS(with_alpha) : FF_ARRAY_ELEMS(negotiated);
    int formats[FF_ARRAY_ELEMS(negotiated) + 2], n = 0, i, ret, any_yuv = 0;
    struct glr_color color;

    if (out->alpha && out->format && glr_format_get_info(out->format)->planes != 4 &&
        out->format != GLR_FORMAT_RGBA8 && out->format != GLR_FORMAT_BGRA8) {
        av_log(outlink->src, AV_LOG_ERROR, "format=%s has no alpha, which alpha= keeps: give one that has (yuva420p, "
               "yuva444p, yuva444p10le, rgba, bgra) or leave format to the graph\n", glr_format_name(out->format));
        return AVERROR(EINVAL);
    }
    /* on: hardware frames alone; auto: offered after the others, so that a consumer that
     * takes frames in memory too (an encoder on the CPU behind -f lavfi -i from 7.1, whose
     * device takes any format) gets those, and one that asks for hardware frames alone
     * (hwdownload, an encoder on the GPU) gets these. */
    if (gl->hw_device && hw_frames == GLREADER_HW_FRAMES_ON) {
        formats[n++] = ff_glreader_hw_pix_fmt(gl);
        any_yuv = 1;
        count = 0;
    }
    for (i = 0; i < count && !out->format; i++) {
        int f = offered[i];
        if (rgb_only && glr_format_get_info(f)->yuv)
            continue;
        formats[n++] = glr_av_pix_fmt(f);
        any_yuv |= glr_format_get_info(f)->yuv;
    }
    if (out->format && count) {
        formats[n++] = glr_av_pix_fmt(out->format);
        any_yuv |= glr_format_get_info(out->format)->yuv;
    }
    if (gl->hw_device && hw_frames != GLREADER_HW_FRAMES_ON) {
        formats[n++] = ff_glreader_hw_pix_fmt(gl);
        any_yuv = 1;
    }
    formats[n] = AV_PIX_FMT_NONE;
    if ((ret = ff_formats_ref(ff_make_format_list(formats), &outlink->incfg.formats)) < 0 || !any_yuv)
        return ret;
    {
        const struct glr_color wanted = { .matrix = out->matrix, .range = out->range, .chroma = out->chroma_loc };
        glr_color_resolve(GLR_FORMAT_I420, &wanted, &color);
    }
    return glr_set_link_color(outlink, color.matrix, color.range);
}

int ff_glreader_set_input_formats(AVFilterLink *inlink, int rgb_only)
{
    static const int formats[] = { AV_PIX_FMT_RGBA, AV_PIX_FMT_YUV420P, AV_PIX_FMT_NV12, AV_PIX_FMT_YUV444P,
                                   AV_PIX_FMT_P010LE, AV_PIX_FMT_NONE };
    static const int rgba[] = { AV_PIX_FMT_RGBA, AV_PIX_FMT_NONE };

    return ff_formats_ref(ff_make_format_list(rgb_only ? rgba : formats), &inlink->outcfg.formats);
}

struct glr_image ff_glreader_image_of(const AVFrame *frame, double time)
{
    struct glr_image image = { .width = frame->width, .height = frame->height, .components = 4,
                               .data = frame->data[0], .stride = frame->linesize[0], .time = time };
    int format = glr_av_format_of(frame->format);

    if (format && glr_format_get_info(format)->yuv) {
        image.yuv_format = format;
        image.chroma[0] = frame->data[1];
        image.chroma_stride[0] = frame->linesize[1];
        image.chroma[1] = frame->data[2];
        image.chroma_stride[1] = frame->linesize[2];
        image.color.matrix = frame->colorspace == AVCOL_SPC_BT709 ? GLR_MATRIX_BT709
                           : frame->colorspace == AVCOL_SPC_BT470BG || frame->colorspace == AVCOL_SPC_SMPTE170M ? GLR_MATRIX_BT601
                           : frame->colorspace == AVCOL_SPC_BT2020_NCL ? GLR_MATRIX_BT2020_NCL
                           : frame->height >= 720 ? GLR_MATRIX_BT709 : GLR_MATRIX_BT601; /* as players guess */
        image.color.range = frame->color_range == AVCOL_RANGE_JPEG ? GLR_RANGE_FULL : GLR_RANGE_LIMITED;
        image.color.chroma = frame->chroma_location == AVCHROMA_LOC_CENTER ? GLR_CHROMA_CENTER : GLR_CHROMA_LEFT;
    }
    return image;
}

void ff_glreader_log_summary(AVFilterContext *ctx, GLReaderGL *gl, const GLReaderOutput *out, int64_t frames,
                             int64_t copied)
{
    struct glr_ring_stats st = { 0 };
    const char *how = "read back synchronously";
    char colour[64] = "", into[80];

    if (!frames)
        return;
    if (gl->ring) {
        glr_ring_get_stats(gl->ring, &st);
        how = strcmp(st.fill, "gpu-convert") ? "read back as rendered" : "converted on the GPU";
    } else if (gl->converter) {
        snprintf(into, sizeof(into), "converted on the GPU into %s frames, nothing read back",
                 kind_name(hw_kind(gl)->type));
        how = into;
    }
    if (glr_format_get_info(gl->format)->yuv) {
        const struct glr_color wanted = { .matrix = out->matrix, .range = out->range, .chroma = out->chroma_loc };
        struct glr_color color = { 0 };
        glr_color_resolve(gl->format, &wanted, &color);
        snprintf(colour, sizeof(colour), ": %s, %s range, %s chroma",
                 av_color_space_name((enum AVColorSpace)color.matrix), av_color_range_name((enum AVColorRange)color.range),
                 av_chroma_location_name((enum AVChromaLocation)color.chroma));
    }
    av_log(ctx, AV_LOG_VERBOSE, "%"PRId64" frames of %s, %s%s; %"PRId64" lent without a copy\n", frames,
           glr_format_name(gl->format), how, colour, frames - copied);
}

static AVFrame *pooled_frame(void *opaque)
{
    AVFilterLink *outlink = opaque;
    return ff_get_video_buffer(outlink, outlink->w, outlink->h);
}

AVFrame *ff_glreader_frame_from_lease(GLReaderGL *gl, AVFilterLink *outlink, struct glr_frame *f,
                                      int64_t *copied)
{
    int lent = 0;
    AVFrame *frame = glr_av_frame_from_lease(f, &gl->lender, pooled_frame, outlink, &lent);

    if (frame) {
        *copied += !lent;
        glr_frame_take_link_properties(frame, outlink);
    }
    return frame;
}
