/*
 * glreader video source: renders a Shadertoy shader or project (buffers, channels from
 * pictures, videos and sound) headless with OpenGL and reads each frame back through
 * glreader's ring of persistently mapped PBOs.
 *
 * A render thread of its own owns the GL context: it draws and captures frame after frame
 * into the ring's free slots and queues each finished one, while the graph's threads take
 * them from the queue in activate. Rendering thus overlaps whatever runs downstream, on
 * any FFmpeg release, and the context never moves between threads.
 *
 * This file is part of glreader (plugin/vsrc_glreader.c), copied into FFmpeg trees by
 * the patches in ffmpeg-patches/. It uses glreader's core C ABI (libglreader, no FFmpeg
 * inside), so one process never holds two libavcodec versions; channel media are decoded
 * by glreader/shadertoy_media.h with this FFmpeg's own libraries, and a project plays
 * through the same calls as in glreader-export, so both render the same frames.
 *
 * FFmpeg is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Lesser General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

#include <glreader/glreader.h>
#include <glreader/libav.h>
#include <glreader/shadertoy_media.h>

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "libavutil/imgutils.h"
#include "libavutil/internal.h"
#include "libavutil/mem.h"
#include "libavutil/opt.h"
#include "avfilter.h"
#include "glreader_compat.h"

#define MAX_DEPTH 16

/* The GL side and the render thread, shared by the filter and every frame it lent
 * downstream: frames may outlive the filter (a muxer's queue, a graph torn down with
 * frames in flight), and their memory is a mapping of the GL context, so the context, the
 * ring and the scene go when the last of them does. The fields below the mutex are
 * guarded by it. */
typedef struct GLReaderShared {
    glr_log *log;
    glr_context *gl;
    glr_scene *scene;
    glr_ring *ring;
    glr_project *project;
    struct glr_media_channels *media; /* decoded on the thread that renders */
    struct glr_shadertoy_clock clock;
    _Atomic(AVFilterContext *) filter; /* where messages go; NULL once the filter is gone */

    pthread_mutex_t mutex;
    pthread_cond_t cond;     /* any change below */
    struct glr_frame ready[MAX_DEPTH]; /* finished frames in order, for activate */
    int ready_start, ready_count;
    int in_flight;           /* captured, not yet acquired */
    struct glr_av_lender lender; /* frames lent downstream (lender.kept, atomic) */
    int error;               /* the render thread's first error (AVERROR), 0 if none */
    int stop;
    int ended;               /* the render thread rendered all it was asked to */
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
    char *channels[GLR_SCENE_CHANNELS];
    char *audio;
    char *mouse;
    char *date;
    int format;
    int matrix, range, chroma_loc;
    int depth;
    int require_hw;
    int readback;

    AVBufferRef *shared;  /* GLReaderShared */
    pthread_t thread;
    int thread_started;
    int64_t total;        /* frames to emit: duration x rate, or INT64_MAX */
    int64_t emitted;
    int64_t copied;       /* emitted as copies, downstream holding too many */
    uint8_t *pixels;      /* readback=sync: the frame in client memory, bottom row first */
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
    { "shader",     "Shadertoy shader: a fragment file or a project directory (default: the built-in scene)", OFFSET(shader), AV_OPT_TYPE_STRING, { .str = NULL }, 0, 0, FLAGS },
    { "channel0",   "the Image pass's iChannel0: KIND[:SOURCE][,filter=..][,wrap=..][,vflip=..][,loop=..]", OFFSET(channels[0]), AV_OPT_TYPE_STRING, { .str = NULL }, 0, 0, FLAGS },
    { "channel1",   "the Image pass's iChannel1 (as channel0)", OFFSET(channels[1]), AV_OPT_TYPE_STRING, { .str = NULL }, 0, 0, FLAGS },
    { "channel2",   "the Image pass's iChannel2 (as channel0)", OFFSET(channels[2]), AV_OPT_TYPE_STRING, { .str = NULL }, 0, 0, FLAGS },
    { "channel3",   "the Image pass's iChannel3 (as channel0)", OFFSET(channels[3]), AV_OPT_TYPE_STRING, { .str = NULL }, 0, 0, FLAGS },
    { "audio",      "the file a sound channel without one analyses", OFFSET(audio), AV_OPT_TYPE_STRING, { .str = NULL }, 0, 0, FLAGS },
    { "mouse",      "iMouse: X,Y held down, or X,Y,CX,CY, pixels from the bottom left", OFFSET(mouse), AV_OPT_TYPE_STRING, { .str = NULL }, 0, 0, FLAGS },
    { "date",       "iDate at the first frame, YYYY-MM-DD[THH:MM:SS] UTC (default: now, local time)", OFFSET(date), AV_OPT_TYPE_STRING, { .str = NULL }, 0, 0, FLAGS },
    { "format",     "pixel format of the frames (YUV formats are converted on the GPU)", OFFSET(format), AV_OPT_TYPE_INT, { .i64 = GLR_FORMAT_RGBA8 }, GLR_FORMAT_RGBA8, GLR_FORMAT_YUV444, FLAGS, "format" },
        { "rgba",    NULL, 0, AV_OPT_TYPE_CONST, { .i64 = GLR_FORMAT_RGBA8 },  0, 0, FLAGS, "format" },
        { "bgra",    NULL, 0, AV_OPT_TYPE_CONST, { .i64 = GLR_FORMAT_BGRA8 },  0, 0, FLAGS, "format" },
        { "rgb24",   NULL, 0, AV_OPT_TYPE_CONST, { .i64 = GLR_FORMAT_RGB8 },   0, 0, FLAGS, "format" },
        { "nv12",    NULL, 0, AV_OPT_TYPE_CONST, { .i64 = GLR_FORMAT_NV12 },   0, 0, FLAGS, "format" },
        { "yuv420p", NULL, 0, AV_OPT_TYPE_CONST, { .i64 = GLR_FORMAT_I420 },   0, 0, FLAGS, "format" },
        { "p010le",  NULL, 0, AV_OPT_TYPE_CONST, { .i64 = GLR_FORMAT_P010 },   0, 0, FLAGS, "format" },
        { "yuv444p", NULL, 0, AV_OPT_TYPE_CONST, { .i64 = GLR_FORMAT_YUV444 }, 0, 0, FLAGS, "format" },
    { "matrix",     "YUV formats: the conversion matrix", OFFSET(matrix), AV_OPT_TYPE_INT, { .i64 = GLR_MATRIX_BT709 }, GLR_MATRIX_BT709, GLR_MATRIX_BT2020_NCL, FLAGS, "matrix" },
        { "bt709",   NULL, 0, AV_OPT_TYPE_CONST, { .i64 = GLR_MATRIX_BT709 },      0, 0, FLAGS, "matrix" },
        { "bt601",   NULL, 0, AV_OPT_TYPE_CONST, { .i64 = GLR_MATRIX_BT601 },      0, 0, FLAGS, "matrix" },
        { "bt2020",  NULL, 0, AV_OPT_TYPE_CONST, { .i64 = GLR_MATRIX_BT2020_NCL }, 0, 0, FLAGS, "matrix" },
    { "range",      "YUV formats: the range of the values", OFFSET(range), AV_OPT_TYPE_INT, { .i64 = GLR_RANGE_LIMITED }, GLR_RANGE_LIMITED, GLR_RANGE_FULL, FLAGS, "range" },
        { "tv",      "limited: 16..235", 0, AV_OPT_TYPE_CONST, { .i64 = GLR_RANGE_LIMITED }, 0, 0, FLAGS, "range" },
        { "pc",      "full: 0..255",     0, AV_OPT_TYPE_CONST, { .i64 = GLR_RANGE_FULL },    0, 0, FLAGS, "range" },
    { "chroma_loc", "4:2:0 formats: where chroma samples sit", OFFSET(chroma_loc), AV_OPT_TYPE_INT, { .i64 = GLR_CHROMA_LEFT }, GLR_CHROMA_LEFT, GLR_CHROMA_CENTER, FLAGS, "chroma_loc" },
        { "left",    "the H.264/HEVC default", 0, AV_OPT_TYPE_CONST, { .i64 = GLR_CHROMA_LEFT },   0, 0, FLAGS, "chroma_loc" },
        { "center",  NULL,                     0, AV_OPT_TYPE_CONST, { .i64 = GLR_CHROMA_CENTER }, 0, 0, FLAGS, "chroma_loc" },
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

/* glreader's own codes (-1001 and on) as the nearest AVERROR, the message logged before
 * them naming the cause; negated errno values and the channel decoders' AVERRORs pass as
 * they are. */
static int av_error_of(int code)
{
    switch (code) {
    case GLR_ERROR_SHADER:            return AVERROR(EINVAL);
    case GLR_ERROR_EGL:
    case GLR_ERROR_SOFTWARE_RENDERER: return AVERROR(ENODEV);
    default:                          return code <= GLR_ERROR_GL && code > GLR_ERROR_GL - 100 ? AVERROR_EXTERNAL : code;
    }
}

static GLReaderShared *shared_of(GLReaderContext *s)
{
    return (GLReaderShared *)s->shared->data;
}

/* readback=sync: bytes in a row of the RGB frame. */
static int row_bytes(const GLReaderContext *s)
{
    return (int)glr_format_plane_row_bytes(s->format, 0, s->w);
}

static int lent(GLReaderShared *shared)
{
    return __atomic_load_n(&shared->lender.kept, __ATOMIC_ACQUIRE);
}

/* A lent frame came back (its slot is free again, on any thread): wake the render thread. */
static void lent_frame_returned(void *opaque)
{
    GLReaderShared *shared = opaque;

    pthread_mutex_lock(&shared->mutex);
    pthread_cond_broadcast(&shared->cond);
    pthread_mutex_unlock(&shared->mutex);
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
    if (shared->media)
        glr_media_channels_close(shared->media);
    av_freep(&shared->media);
    glr_project_destroy(&shared->project);
    glr_log_destroy(&shared->log);
    pthread_cond_destroy(&shared->cond);
    pthread_mutex_destroy(&shared->mutex);
    av_free(shared);
}

/* Renders frame n: its channels' media decoded and uploaded, then every pass, with the
 * inputs glreader-export gives the same frame. Returns 0 or an AVERROR, the cause logged. */
static int render_frame(GLReaderShared *shared, int64_t n)
{
    struct glr_scene_inputs inputs;
    char err[1024];
    int ret = glr_shadertoy_inputs(&shared->clock, (int)n, &inputs);

    if (ret >= 0 && (ret = glr_media_channels_update(shared->media, shared->scene, inputs.time, err, sizeof(err))) < 0) {
        av_log(atomic_load(&shared->filter), AV_LOG_ERROR, "%s\n", err);
        return av_error_of(ret);
    }
    if (ret >= 0)
        ret = glr_scene_render(shared->scene, &inputs);
    return ret < 0 ? av_error_of(ret) : 0;
}

/* The render thread: keeps every slot busy, drawing frame after frame while one is free
 * (neither in flight, queued nor lent) and moving finished frames to the queue. */
static void *render_thread(void *opaque)
{
    GLReaderContext *s = opaque;
    GLReaderShared *shared = shared_of(s);
    int64_t rendered = 0;
    int ret = glr_context_make_current(shared->gl);

    pthread_mutex_lock(&shared->mutex);
    while (ret >= 0 && !shared->stop && (rendered < s->total || shared->in_flight)) {
        struct glr_frame f;
        if (rendered < s->total &&
            shared->in_flight + shared->ready_count + lent(shared) < s->depth) {
            struct glr_source source = glr_scene_source(shared->scene);
            pthread_mutex_unlock(&shared->mutex);
            ret = render_frame(shared, rendered);
            if (ret >= 0 && (ret = glr_ring_capture(shared->ring, &source, rendered)) < 0)
                ret = av_error_of(ret);
            pthread_mutex_lock(&shared->mutex);
            if (ret < 0)
                break;
            rendered++;
            shared->in_flight++;
        } else if (!shared->in_flight) {
            /* Every slot is queued or lent: wait for activate or a release. */
            pthread_cond_wait(&shared->cond, &shared->mutex);
            continue;
        }
        /* Queue what has finished; wait for the oldest only when nothing can be drawn. */
        for (;;) {
            int blocking = rendered >= s->total ||
                           shared->in_flight + shared->ready_count + lent(shared) >= s->depth;
            pthread_mutex_unlock(&shared->mutex);
            ret = glr_ring_acquire(shared->ring, &f, blocking ? UINT64_MAX : 0);
            pthread_mutex_lock(&shared->mutex);
            if (ret < 0)
                break;
            shared->ready[(shared->ready_start + shared->ready_count++) % MAX_DEPTH] = f;
            shared->in_flight--;
            pthread_cond_broadcast(&shared->cond);
            if (!shared->in_flight)
                break;
        }
        if (ret == -EAGAIN)
            ret = 0;
    }
    if (ret < 0 && !shared->error)
        shared->error = av_error_of(ret);
    shared->ended = 1;
    pthread_cond_broadcast(&shared->cond);
    pthread_mutex_unlock(&shared->mutex);
    glr_context_release_current(shared->gl); /* so that the last frame's owner can take it */
    return NULL;
}

/* The project, its channels' media and the clock its frames follow. Errors are logged. */
static av_cold int open_project(AVFilterContext *ctx, GLReaderShared *shared)
{
    GLReaderContext *s = ctx->priv;
    char err[1024], where[16];
    int i, ret;

    if (!(shared->project = glr_project_load(shared->log, s->shader)))
        return av_error_of(glr_last_error_code());
    for (i = 0; i < GLR_SCENE_CHANNELS; i++) {
        snprintf(where, sizeof(where), "channel%d", i);
        if (s->channels[i] && glr_project_bind(shared->project, GLR_SCENE_IMAGE_PASS, i, s->channels[i], where) < 0) {
            av_log(ctx, AV_LOG_ERROR, "%s\n", glr_last_error());
            return AVERROR(EINVAL);
        }
    }
    shared->clock.fps_num = s->frame_rate.num;
    shared->clock.fps_den = s->frame_rate.den;
    if (s->mouse && glr_shadertoy_parse_mouse(s->mouse, shared->clock.mouse) < 0) {
        av_log(ctx, AV_LOG_ERROR, "mouse: %s\n", glr_last_error());
        return AVERROR(EINVAL);
    }
    if (s->date && glr_shadertoy_parse_date(s->date, &shared->clock.date_start) < 0) {
        av_log(ctx, AV_LOG_ERROR, "date: %s\n", glr_last_error());
        return AVERROR(EINVAL);
    }
    if (!s->date) { /* iDate runs from now, in local time */
        shared->clock.date_start = (long long)time(NULL);
        shared->clock.date_local = 1;
    }
    if (!(shared->media = av_mallocz(sizeof(*shared->media))))
        return AVERROR(ENOMEM);
    if ((ret = glr_media_channels_open(shared->media, shared->project, s->audio, err, sizeof(err))) < 0) {
        av_log(ctx, AV_LOG_ERROR, "%s\n", err);
        return ret;
    }
    shared->clock.sample_rate = glr_media_channels_sample_rate(shared->media);
    return 0;
}

static av_cold int glreader_init(AVFilterContext *ctx)
{
    GLReaderContext *s = ctx->priv;
    struct glr_context_params context_params = { .require_hw = s->require_hw };
    struct glr_scene_params scene_params = { .width = s->w, .height = s->h };
    struct glr_ring_params ring_params = { .width = s->w, .height = s->h, .format = s->format,
                                           .color = { .matrix = s->matrix, .range = s->range, .chroma = s->chroma_loc },
                                           .depth = s->depth }; /* GLR_FLIP_STRIDE */
    struct glr_log_params log_params = { .callback = log_to_av, .level = GLR_LOG_INFO };
    GLReaderShared *shared;
    int ret;

    if (s->frame_rate.num <= 0 || s->frame_rate.den <= 0) {
        av_log(ctx, AV_LOG_ERROR, "the frame rate must be positive\n");
        return AVERROR(EINVAL);
    }
    if (s->readback == READBACK_SYNC && glr_format_get_info(s->format)->yuv) {
        av_log(ctx, AV_LOG_ERROR, "readback=sync reads RGB formats only; %s is converted by the ring\n",
               glr_format_name(s->format));
        return AVERROR(EINVAL);
    }
    s->total = s->duration < 0 ? INT64_MAX
                               : av_rescale_q_rnd(s->duration, AV_TIME_BASE_Q, av_inv_q(s->frame_rate), AV_ROUND_UP);
    if (!(shared = av_mallocz(sizeof(*shared))))
        return AVERROR(ENOMEM);
    pthread_mutex_init(&shared->mutex, NULL);
    pthread_cond_init(&shared->cond, NULL);
    atomic_init(&shared->filter, ctx);
    shared->lender.keeps_frames = 1;
    shared->lender.returned = lent_frame_returned;
    shared->lender.opaque = shared;
    log_params.opaque = shared;
    if (!(shared->log = glr_log_create(&log_params)) ||
        !(s->shared = av_buffer_create((uint8_t *)shared, sizeof(*shared), free_shared, NULL, 0))) {
        free_shared(NULL, (uint8_t *)shared);
        return AVERROR(ENOMEM);
    }
    /* Every frame lent downstream keeps the GL side alive (a weak use of the reference:
     * the filter's own s->shared is the strong one). */
    shared->lender.owner = s->shared;

    /* Each failure below was logged through log_to_av with its cause. */
    if ((ret = open_project(ctx, shared)) < 0)
        return ret;
    glr_project_scene_params(shared->project, &scene_params);
    if (!(shared->gl = glr_context_create(shared->log, &context_params)))
        return av_error_of(glr_last_error_code());
    av_log(ctx, AV_LOG_INFO, "OpenGL renderer: %s (EGL %s%s)\n", glr_context_renderer(shared->gl),
           glr_context_platform_name(shared->gl), glr_context_is_software(shared->gl) ? ", software" : "");
    if (!(shared->scene = glr_scene_create(shared->log, &scene_params)))
        ret = av_error_of(glr_last_error_code());
    else if (s->readback == READBACK_SYNC)
        ret = (s->pixels = av_malloc((size_t)row_bytes(s) * s->h)) ? 0 : AVERROR(ENOMEM);
    else
        ret = (shared->ring = glr_ring_create(shared->log, &ring_params)) ? 0 : av_error_of(glr_last_error_code());
    glr_context_release_current(shared->gl);
    if (ret >= 0 && s->readback == READBACK_RING) {
        if ((ret = pthread_create(&s->thread, NULL, render_thread, s)))
            return AVERROR(ret);
        s->thread_started = 1;
    }
    return ret;
}

static av_cold void glreader_uninit(AVFilterContext *ctx)
{
    GLReaderContext *s = ctx->priv;
    GLReaderShared *shared;

    av_freep(&s->pixels);
    if (!s->shared)
        return;
    shared = shared_of(s);
    if (s->thread_started) {
        pthread_mutex_lock(&shared->mutex);
        shared->stop = 1;
        pthread_cond_broadcast(&shared->cond);
        pthread_mutex_unlock(&shared->mutex);
        pthread_join(s->thread, NULL);
    }
    /* Frames rendered but never taken go back to the ring. */
    for (; shared->ready_count; shared->ready_count--)
        glr_frame_release(&shared->ready[shared->ready_start++ % MAX_DEPTH]);
    if (s->emitted)
        av_log(ctx, AV_LOG_VERBOSE, "%"PRId64" frames, %"PRId64" of them lent without a copy\n",
               s->emitted, s->emitted - s->copied);
    atomic_store(&shared->filter, NULL);
    av_buffer_unref(&s->shared); /* the GL side goes with the last frame held downstream */
}

static int glreader_query_formats(AVFilterContext *ctx)
{
    GLReaderContext *s = ctx->priv;
    const int formats[] = { glr_av_pix_fmt(s->format), AV_PIX_FMT_NONE };
    int ret = ff_set_common_formats_from_list(ctx, formats);
    struct glr_color color;

    /* The link carries the colour the ring converts with, where the release negotiates it. */
    if (ret >= 0 && glr_format_get_info(s->format)->yuv) {
        const struct glr_color wanted = { .matrix = s->matrix, .range = s->range, .chroma = s->chroma_loc };
        glr_color_resolve(s->format, &wanted, &color);
        ret = glr_set_common_color(ctx, color.matrix, color.range);
    }
    return ret;
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

static AVFrame *pooled_frame(void *opaque)
{
    AVFilterLink *outlink = opaque;
    return ff_get_video_buffer(outlink, outlink->w, outlink->h);
}

/* The leased frame lent as an AVFrame while downstream holds fewer than depth - 1
 * frames, else copied into a pooled frame (glreader/libav.h), so that the ring always has
 * a slot to render into and a graph that keeps frames never deadlocks it. RGB rows stay in
 * GL's order: the frame starts at the top row, the last in memory, with a negative
 * linesize; YUV frames were converted top row first. */
static AVFrame *wrap_frame(AVFilterContext *ctx, AVFilterLink *outlink, struct glr_frame *f)
{
    GLReaderContext *s = ctx->priv;
    int lent_now = 0;
    AVFrame *frame = glr_av_frame_from_lease(f, &shared_of(s)->lender, pooled_frame, outlink, &lent_now);

    if (frame) {
        s->copied += !lent_now;
        glr_frame_take_link_properties(frame, outlink);
    }
    return frame;
}

/* Takes the oldest finished frame from the render thread, waiting for it if need be. */
static int next_frame(GLReaderContext *s, struct glr_frame *f)
{
    GLReaderShared *shared = shared_of(s);
    int ret = 0;

    pthread_mutex_lock(&shared->mutex);
    while (!shared->ready_count && !shared->ended)
        pthread_cond_wait(&shared->cond, &shared->mutex);
    if (shared->ready_count) {
        *f = shared->ready[shared->ready_start];
        shared->ready_start = (shared->ready_start + 1) % MAX_DEPTH;
        shared->ready_count--;
        pthread_cond_broadcast(&shared->cond);
    } else {
        ret = shared->error ? shared->error : AVERROR_BUG; /* ended early without a cause */
    }
    pthread_mutex_unlock(&shared->mutex);
    return ret;
}

/* readback=sync: draws, waits for glReadPixels into memory, copies into a pooled frame
 * (turning the rows upright on the way), all on the calling thread. */
static AVFrame *read_frame_synchronously(AVFilterContext *ctx, AVFilterLink *outlink, int *ret)
{
    GLReaderContext *s = ctx->priv;
    GLReaderShared *shared = shared_of(s);
    AVFrame *frame;

    /* Filter graphs may call from any of their threads: take the context each time. */
    if ((*ret = glr_context_make_current(shared->gl)) >= 0) {
        if ((*ret = render_frame(shared, s->emitted)) >= 0 &&
            (*ret = glr_scene_read_pixels(shared->scene, s->format, s->pixels, row_bytes(s))) < 0)
            *ret = av_error_of(*ret);
        glr_context_release_current(shared->gl);
    } else {
        *ret = av_error_of(*ret);
    }
    if (*ret < 0)
        return NULL;
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
        if ((ret = next_frame(s, &f)) < 0)
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
