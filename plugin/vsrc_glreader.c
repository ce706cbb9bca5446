/*
 * glreader video source: renders a Shadertoy-style fragment shader headless with OpenGL
 * and reads each frame back through glreader's ring of persistently mapped PBOs.
 *
 * This file is part of glreader (plugin/vsrc_glreader.c), copied into FFmpeg trees by
 * the patches in ffmpeg-patches/. It uses only glreader's core C ABI (libglreader, no
 * FFmpeg inside), so one process never holds two libavcodec versions.
 *
 * FFmpeg is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Lesser General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

#include <glreader/glreader.h>

#include <errno.h>
#include <stdatomic.h>

#include "libavutil/imgutils.h"
#include "libavutil/internal.h"
#include "libavutil/mem.h"
#include "libavutil/opt.h"
#include "avfilter.h"
#include "glreader_compat.h"

/* The GL side, shared by the filter and every frame it sent downstream without a copy:
 * frames may outlive the filter (a muxer's queue, a graph torn down with frames in
 * flight), and their memory is a mapping of the GL context, so the context, the ring and
 * the scene go when the last of them does. */
typedef struct GLReaderShared {
    glr_log *log;
    glr_context *gl;
    glr_scene *scene;
    glr_ring *ring;
    atomic_int held;                   /* frames downstream still holds */
    _Atomic(AVFilterContext *) filter; /* where messages go; NULL once the filter is gone */
} GLReaderShared;

enum GLReaderReadback {
    READBACK_RING, /* asynchronous, through glreader's ring */
    READBACK_SYNC, /* glReadPixels into memory, then a copy into the frame */
};

typedef struct GLReaderContext {
    const AVClass *class;
    int w, h;
    AVRational frame_rate;
    int64_t duration;
    char *shader;
    int format;
    int depth;
    int require_hw;
    int readback;

    AVBufferRef *shared; /* GLReaderShared */
    int64_t total;       /* frames to emit: duration x rate, or INT64_MAX */
    int64_t rendered;    /* frames drawn and captured */
    int64_t emitted;
    int64_t copied;      /* emitted as copies, downstream holding too many */
    int in_flight;       /* captured, not yet acquired */
    uint8_t *pixels;     /* readback=sync: the frame in client memory, bottom row first */
} GLReaderContext;

/* One leased frame lent downstream as an AVFrame buffer, until downstream lets go. */
typedef struct GLReaderLease {
    struct glr_frame frame;
    AVBufferRef *shared;
} GLReaderLease;

#define OFFSET(x) offsetof(GLReaderContext, x)
#define FLAGS AV_OPT_FLAG_VIDEO_PARAM | AV_OPT_FLAG_FILTERING_PARAM

static const AVOption glreader_options[] = {
    { "size",       "set the frame size", OFFSET(w), AV_OPT_TYPE_IMAGE_SIZE, { .str = "1280x720" }, 0, 0, FLAGS },
    { "s",          "set the frame size", OFFSET(w), AV_OPT_TYPE_IMAGE_SIZE, { .str = "1280x720" }, 0, 0, FLAGS },
    { "rate",       "set the frame rate", OFFSET(frame_rate), AV_OPT_TYPE_VIDEO_RATE, { .str = "30" }, 0, INT_MAX, FLAGS },
    { "r",          "set the frame rate", OFFSET(frame_rate), AV_OPT_TYPE_VIDEO_RATE, { .str = "30" }, 0, INT_MAX, FLAGS },
    { "duration",   "set the duration (default: unlimited)", OFFSET(duration), AV_OPT_TYPE_DURATION, { .i64 = -1 }, -1, INT64_MAX, FLAGS },
    { "d",          "set the duration (default: unlimited)", OFFSET(duration), AV_OPT_TYPE_DURATION, { .i64 = -1 }, -1, INT64_MAX, FLAGS },
    { "shader",     "Shadertoy-style fragment shader file (default: the built-in scene)", OFFSET(shader), AV_OPT_TYPE_STRING, { .str = NULL }, 0, 0, FLAGS },
    { "format",     "pixel format of the frames", OFFSET(format), AV_OPT_TYPE_INT, { .i64 = GLR_FORMAT_RGBA8 }, GLR_FORMAT_RGBA8, GLR_FORMAT_RGB8, FLAGS, "format" },
        { "rgba",   NULL, 0, AV_OPT_TYPE_CONST, { .i64 = GLR_FORMAT_RGBA8 }, 0, 0, FLAGS, "format" },
        { "bgra",   NULL, 0, AV_OPT_TYPE_CONST, { .i64 = GLR_FORMAT_BGRA8 }, 0, 0, FLAGS, "format" },
        { "rgb24",  NULL, 0, AV_OPT_TYPE_CONST, { .i64 = GLR_FORMAT_RGB8 },  0, 0, FLAGS, "format" },
    { "depth",      "frames rendered ahead (ring depth)", OFFSET(depth), AV_OPT_TYPE_INT, { .i64 = 3 }, 1, 16, FLAGS },
    { "require_hw", "fail rather than render on a software rasterizer", OFFSET(require_hw), AV_OPT_TYPE_BOOL, { .i64 = 0 }, 0, 1, FLAGS },
    { "readback",   "how frames are read back", OFFSET(readback), AV_OPT_TYPE_INT, { .i64 = READBACK_RING }, READBACK_RING, READBACK_SYNC, FLAGS, "readback" },
        { "ring",   "asynchronously, through the ring of mapped buffers", 0, AV_OPT_TYPE_CONST, { .i64 = READBACK_RING }, 0, 0, FLAGS, "readback" },
        { "sync",   "glReadPixels into memory, then a copy: the usual design, for comparison", 0, AV_OPT_TYPE_CONST, { .i64 = READBACK_SYNC }, 0, 0, FLAGS, "readback" },
    { NULL }
};

AVFILTER_DEFINE_CLASS(glreader);

static void log_to_av(void *opaque, enum glr_log_level level, const char *message)
{
    GLReaderShared *shared = opaque;
    int av_level = level == GLR_LOG_ERROR ? AV_LOG_ERROR
                 : level == GLR_LOG_WARN  ? AV_LOG_WARNING
                 : level == GLR_LOG_INFO  ? AV_LOG_VERBOSE
                                          : AV_LOG_DEBUG;
    av_log(atomic_load(&shared->filter), av_level, "%s\n", message);
}

/* glreader's codes as FFmpeg's: negated errno values are the same; its own become the
 * nearest AVERROR, the message logged before them naming the cause. */
static int av_error_of(int code)
{
    switch (code) {
    case GLR_ERROR_SHADER:            return AVERROR(EINVAL);
    case GLR_ERROR_EGL:
    case GLR_ERROR_SOFTWARE_RENDERER: return AVERROR(ENODEV);
    default:                          return code > GLR_ERROR_GL ? code : AVERROR_EXTERNAL;
    }
}

static enum AVPixelFormat pix_fmt_of(int format)
{
    return format == GLR_FORMAT_BGRA8 ? AV_PIX_FMT_BGRA
         : format == GLR_FORMAT_RGB8  ? AV_PIX_FMT_RGB24
                                      : AV_PIX_FMT_RGBA;
}

/* Runs when the filter and every frame it lent are gone, on whichever thread that was. */
static void free_shared(void *opaque, uint8_t *data)
{
    GLReaderShared *shared = (GLReaderShared *)data;

    if (shared->gl && glr_context_make_current(shared->gl) == 0) {
        glr_ring_destroy(&shared->ring);
        glr_scene_destroy(&shared->scene);
        glr_context_release_current(shared->gl);
    }
    glr_context_destroy(&shared->gl);
    glr_log_destroy(&shared->log);
    av_free(shared);
}

static GLReaderShared *shared_of(GLReaderContext *s)
{
    return (GLReaderShared *)s->shared->data;
}

static int row_bytes(const GLReaderContext *s)
{
    return s->w * glr_format_bytes_per_pixel(s->format);
}

/* Filter graphs may call from any of their threads: take the context each time. */
static int make_current(GLReaderContext *s)
{
    int ret = glr_context_make_current(shared_of(s)->gl);
    return ret < 0 ? av_error_of(ret) : 0;
}

static av_cold int glreader_init(AVFilterContext *ctx)
{
    GLReaderContext *s = ctx->priv;
    struct glr_context_params context_params = { .require_hw = s->require_hw };
    struct glr_scene_params scene_params = { .width = s->w, .height = s->h, .source_path = s->shader };
    struct glr_ring_params ring_params = { .width = s->w, .height = s->h, .format = s->format,
                                           .depth = s->depth }; /* GLR_FLIP_STRIDE */
    struct glr_log_params log_params = { .callback = log_to_av, .level = GLR_LOG_INFO };
    GLReaderShared *shared;
    int ret;

    if (s->frame_rate.num <= 0 || s->frame_rate.den <= 0) {
        av_log(ctx, AV_LOG_ERROR, "the frame rate must be positive\n");
        return AVERROR(EINVAL);
    }
    s->total = s->duration < 0 ? INT64_MAX
                               : av_rescale_q_rnd(s->duration, AV_TIME_BASE_Q, av_inv_q(s->frame_rate), AV_ROUND_UP);
    if (!(shared = av_mallocz(sizeof(*shared))))
        return AVERROR(ENOMEM);
    atomic_init(&shared->filter, ctx);
    log_params.opaque = shared;
    if (!(shared->log = glr_log_create(&log_params)) ||
        !(s->shared = av_buffer_create((uint8_t *)shared, sizeof(*shared), free_shared, NULL, 0))) {
        glr_log_destroy(&shared->log);
        av_free(shared);
        return AVERROR(ENOMEM);
    }

    /* Each failure below was logged through log_to_av with its cause. */
    if (!(shared->gl = glr_context_create(shared->log, &context_params)))
        return av_error_of(glr_last_error_code());
    if ((ret = make_current(s)) < 0)
        return ret;
    av_log(ctx, AV_LOG_INFO, "OpenGL renderer: %s (EGL %s%s)\n", glr_context_renderer(shared->gl),
           glr_context_platform_name(shared->gl), glr_context_is_software(shared->gl) ? ", software" : "");
    if (!(shared->scene = glr_scene_create(shared->log, &scene_params)))
        ret = av_error_of(glr_last_error_code());
    else if (s->readback == READBACK_SYNC)
        ret = (s->pixels = av_malloc((size_t)row_bytes(s) * s->h)) ? 0 : AVERROR(ENOMEM);
    else
        ret = (shared->ring = glr_ring_create(shared->log, &ring_params)) ? 0 : av_error_of(glr_last_error_code());
    glr_context_release_current(shared->gl);
    return ret;
}

static av_cold void glreader_uninit(AVFilterContext *ctx)
{
    GLReaderContext *s = ctx->priv;

    av_freep(&s->pixels);
    if (!s->shared)
        return;
    if (s->emitted)
        av_log(ctx, AV_LOG_VERBOSE, "%"PRId64" frames, %"PRId64" of them lent without a copy\n",
               s->emitted, s->emitted - s->copied);
    atomic_store(&shared_of(s)->filter, NULL);
    av_buffer_unref(&s->shared); /* the GL side goes with the last frame held downstream */
}

static int glreader_query_formats(AVFilterContext *ctx)
{
    GLReaderContext *s = ctx->priv;
    const int formats[] = { pix_fmt_of(s->format), AV_PIX_FMT_NONE };
    return ff_set_common_formats_from_list(ctx, formats);
}

static int glreader_config_props(AVFilterLink *outlink)
{
    GLReaderContext *s = outlink->src->priv;

    outlink->w = s->w;
    outlink->h = s->h;
    outlink->sample_aspect_ratio = (AVRational){ 1, 1 };
    outlink->time_base = av_inv_q(s->frame_rate);
    GLR_SET_FRAME_RATE(outlink, s->frame_rate);
    return 0;
}

static void release_lease(void *opaque, uint8_t *data)
{
    GLReaderLease *lease = opaque;
    GLReaderShared *shared = (GLReaderShared *)lease->shared->data;

    glr_ring_release(shared->ring, &lease->frame);
    atomic_fetch_sub(&shared->held, 1);
    av_buffer_unref(&lease->shared);
    av_free(lease);
}

/* The leased frame lent as an AVFrame while downstream holds fewer than depth - 1
 * frames, else copied into a pooled frame, so that the ring always has a slot to render
 * into and a graph that keeps frames never deadlocks it. */
static AVFrame *wrap_frame(AVFilterContext *ctx, AVFilterLink *outlink, struct glr_frame *f)
{
    GLReaderContext *s = ctx->priv;
    GLReaderShared *shared = shared_of(s);
    GLReaderLease *lease;
    AVFrame *frame;

    if (atomic_load(&shared->held) + 1 >= s->depth) {
        frame = ff_get_video_buffer(outlink, s->w, s->h);
        if (frame) {
            av_image_copy_plane(frame->data[0], frame->linesize[0], f->data, (int)f->stride, row_bytes(s), s->h);
            s->copied++;
        }
        glr_ring_release(shared->ring, f);
        return frame;
    }
    frame = av_frame_alloc();
    lease = av_mallocz(sizeof(*lease));
    if (!frame || !lease || !(lease->shared = av_buffer_ref(s->shared))) {
        av_frame_free(&frame);
        av_free(lease);
        glr_ring_release(shared->ring, f);
        return NULL;
    }
    lease->frame = *f;
    /* The rows are GL's, bottom first: the frame starts at the top row, the last in
     * memory, with a negative linesize. The buffer spans all of them. */
    frame->buf[0] = av_buffer_create((uint8_t *)f->data + f->stride * (s->h - 1), (size_t)-f->stride * s->h,
                                     release_lease, lease, AV_BUFFER_FLAG_READONLY);
    if (!frame->buf[0]) {
        av_buffer_unref(&lease->shared);
        av_free(lease);
        av_frame_free(&frame);
        glr_ring_release(shared->ring, f);
        return NULL;
    }
    atomic_fetch_add(&shared->held, 1);
    frame->data[0] = (uint8_t *)f->data;
    frame->linesize[0] = (int)f->stride;
    frame->width = s->w;
    frame->height = s->h;
    frame->format = pix_fmt_of(s->format);
    glr_frame_take_link_properties(frame, outlink);
    return frame;
}

/* Draws and captures frames into every slot that is neither in flight nor held
 * downstream, then takes the oldest finished one. */
static int next_frame(AVFilterContext *ctx, struct glr_frame *f)
{
    GLReaderContext *s = ctx->priv;
    GLReaderShared *shared = shared_of(s);
    double seconds_per_frame = av_q2d(av_inv_q(s->frame_rate));
    int ret;

    if ((ret = make_current(s)) < 0)
        return ret;
    while (s->rendered < s->total && s->in_flight + atomic_load(&shared->held) < s->depth) {
        struct glr_source source = glr_scene_source(shared->scene);
        ret = glr_scene_draw(shared->scene, (int)s->rendered, s->rendered * seconds_per_frame, seconds_per_frame);
        if (ret >= 0)
            ret = glr_ring_capture(shared->ring, &source, s->rendered);
        if (ret < 0)
            break;
        s->rendered++;
        s->in_flight++;
    }
    if (ret >= 0) {
        ret = glr_ring_acquire(shared->ring, f, UINT64_MAX);
        if (ret == 0)
            s->in_flight--;
    }
    glr_context_release_current(shared->gl);
    return ret < 0 ? av_error_of(ret) : 0;
}

/* readback=sync: draws, waits for glReadPixels into memory, copies into a pooled frame
 * (turning the rows upright on the way). */
static AVFrame *read_frame_synchronously(AVFilterContext *ctx, AVFilterLink *outlink, int *ret)
{
    GLReaderContext *s = ctx->priv;
    GLReaderShared *shared = shared_of(s);
    double seconds_per_frame = av_q2d(av_inv_q(s->frame_rate));
    AVFrame *frame;

    if ((*ret = make_current(s)) < 0)
        return NULL;
    *ret = glr_scene_draw(shared->scene, (int)s->emitted, s->emitted * seconds_per_frame, seconds_per_frame);
    if (*ret >= 0)
        *ret = glr_scene_read_pixels(shared->scene, s->format, s->pixels, row_bytes(s));
    glr_context_release_current(shared->gl);
    if (*ret < 0) {
        *ret = av_error_of(*ret);
        return NULL;
    }
    if (!(frame = ff_get_video_buffer(outlink, s->w, s->h))) {
        *ret = AVERROR(ENOMEM);
        return NULL;
    }
    av_image_copy_plane(frame->data[0], frame->linesize[0], s->pixels + (ptrdiff_t)row_bytes(s) * (s->h - 1),
                        -row_bytes(s), row_bytes(s), s->h);
    s->copied++;
    return frame;
}

static int glreader_activate(AVFilterContext *ctx)
{
    GLReaderContext *s = ctx->priv;
    AVFilterLink *outlink = ctx->outputs[0];
    struct glr_frame f;
    AVFrame *frame;
    int ret;

    if (!ff_outlink_frame_wanted(outlink))
        return FFERROR_NOT_READY;
    if (s->emitted >= s->total) {
        ff_outlink_set_status(outlink, AVERROR_EOF, s->emitted);
        return 0;
    }
    if (s->readback == READBACK_SYNC) {
        if (!(frame = read_frame_synchronously(ctx, outlink, &ret)))
            return ret;
    } else {
        if ((ret = next_frame(ctx, &f)) < 0)
            return ret;
        if (!(frame = wrap_frame(ctx, outlink, &f)))
            return AVERROR(ENOMEM);
    }
    frame->pts = s->emitted++;
    return ff_filter_frame(outlink, frame);
}

static const AVFilterPad glreader_outputs[] = {
    {
        .name         = "default",
        .type         = AVMEDIA_TYPE_VIDEO,
        .config_props = glreader_config_props,
    },
};

const GLR_FILTER_TYPE ff_vsrc_glreader = {
    GLR_FILTER_PUBLIC(name)        = "glreader",
    GLR_FILTER_PUBLIC(description) = NULL_IF_CONFIG_SMALL("Render a GLSL shader with OpenGL, read back through glreader."),
    GLR_FILTER_PUBLIC(priv_class)  = &glreader_class,
    .priv_size                     = sizeof(GLReaderContext),
    .init                          = glreader_init,
    .uninit                        = glreader_uninit,
    .activate                      = glreader_activate,
    FILTER_OUTPUTS(glreader_outputs),
    FILTER_QUERY_FUNC(glreader_query_formats),
};
