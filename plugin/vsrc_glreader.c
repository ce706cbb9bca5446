/*
 * glreader video source: renders a Shadertoy shader or project (buffers, channels from
 * pictures, videos and sound) headless with OpenGL and reads each frame back through
 * glreader's ring of persistently mapped PBOs, or, where the graph takes hardware frames
 * (hw_frames), converts it on the GPU into Vulkan or CUDA frames with nothing read back; with
 * sound=1, a second output carries the project's Sound pass, as glreader-export's sound
 * track has it.
 *
 * A render thread of its own owns the GL context: it draws and captures frame after frame
 * into the ring's free slots and queues each finished one, while the graph's threads take
 * them from the queue in activate. Rendering thus overlaps whatever runs downstream, on
 * any FFmpeg release, and the context never moves between threads.
 *
 * This file is part of glreader (plugin/vsrc_glreader.c), copied into FFmpeg trees by
 * ffmpeg-patches/ (beside each line's hooks). It uses glreader's core C ABI (libglreader,
 * no FFmpeg inside), so one process never holds two libavcodec versions; channel media are
 * decoded by glreader/utils/libav_media.h with this FFmpeg's own libraries, and a project
 * plays through the same calls as in glreader-export, so both render the same frames.
 *
 * FFmpeg is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Lesser General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The channel decoders compiled here, with this FFmpeg: the filter links no glreader-av. */
#define GLR_MEDIA_STATIC
#include <glreader/frame_range.h>
#include <glreader/utils/libav_media.h>

#include <errno.h>
#include <pthread.h>

#include "libavutil/channel_layout.h"
#include "libavutil/fifo.h"
#include "libavutil/timestamp.h"
#include "libavutil/internal.h"
#include "libavutil/mem.h"
#include "libavutil/opt.h"
#include "avfilter.h"
#include "glreader_common.h"
#include "glreader_compat.h"

#define MAX_DEPTH 64 /* the depth option's highest */
#define MAX_MICROSECONDS 1000000000000LL

/* A finished frame: a lease of the ring's, or a hardware frame (hw set). */
typedef struct GLReaderReady {
    struct glr_frame lease;
    AVFrame *hw;
} GLReaderReady;

/* The GL side and the render thread, shared by the filter and every frame it lent
 * downstream (see GLReaderGL). The fields below the mutex are guarded by it. */
typedef struct GLReaderShared {
    GLReaderGL gl;
    AVFilterLink *outlink;   /* hardware frames take its properties */
    /* Hardware frames converted, oldest first, each with the mark after its conversion (a GL
     * fence, a CUDA event): the render thread's alone. */
    AVFrame *converting[MAX_DEPTH];
    void *marks[MAX_DEPTH];
    int converting_start;
    glr_project *project;
    glr_media_channels *media; /* decoded on the thread that renders */
    glr_player *player;      /* plays the project: clock, channels, exact start; its scene is gl.scene */
    int first_frame;         /* the player's */

    pthread_mutex_t mutex;
    pthread_cond_t cond;     /* any change below */
    GLReaderReady ready[MAX_DEPTH]; /* finished frames in order, for activate */
    int ready_start, ready_count;
    int in_flight;           /* captured, not yet acquired */
    int error;               /* the render thread's first error (AVERROR), 0 if none */
    int stop;
    int ended;               /* the render thread rendered all it was asked to */
    /* sound=1: each rendered frame's Sound pass samples (AVFrame *), queued before the
     * frame is captured, so that a picture taken brings its sound. */
    AVFifo *sounds;
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
    int64_t start;
    char *shader;
    char *shader_src;
    char *media;
    char *channels[GLR_SCENE_CHANNELS];
    char *audio;
    char *mouse;
    char *date;
    int sound;
    int audio_rate;
    GLReaderOutput out;
    int readback;
    int hw_frames;        /* enum GLReaderHWFrames */
    char *hw_device;

    AVBufferRef *shared;  /* GLReaderShared */
    int made;             /* init made (or took) all of it */
    int configured;       /* its formats were asked: the graph is the real one, not a first making */
    pthread_t thread;
    int thread_started;
    int64_t total;        /* frames to emit: duration x rate, or INT64_MAX */
    int64_t emitted;
    int64_t copied;       /* emitted as copies, downstream holding too many */
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
    /* glreader-export's bounds (its option table's): rates from 1/1000 to 1000 a second,
     * times up to a million seconds. */
    { "rate",       "set the frame rate", OFFSET(frame_rate), AV_OPT_TYPE_VIDEO_RATE, { .str = "30" }, 0.001, 1000, FLAGS },
    { "r",          "set the frame rate", OFFSET(frame_rate), AV_OPT_TYPE_VIDEO_RATE, { .str = "30" }, 0.001, 1000, FLAGS },
    { "duration",   "set the duration, 0 for unlimited", OFFSET(duration), AV_OPT_TYPE_DURATION, { .i64 = 0 }, 0, MAX_MICROSECONDS, FLAGS },
    { "d",          "set the duration, 0 for unlimited", OFFSET(duration), AV_OPT_TYPE_DURATION, { .i64 = 0 }, 0, MAX_MICROSECONDS, FLAGS },
    { "start",      "set the time to start at: the first frame at or after it, as glreader-export -ss starts", OFFSET(start), AV_OPT_TYPE_DURATION, { .i64 = 0 }, 0, MAX_MICROSECONDS, FLAGS },
    { "shader",     "Shadertoy shader: a fragment file, a project directory or Shadertoy's JSON, FILE.json[#ID] (default: the built-in scene)", OFFSET(shader), AV_OPT_TYPE_STRING, { .str = NULL }, 0, 0, FLAGS },
    { "media",      "where a Shadertoy JSON's media (/media/a/NAME) are, as DIR/NAME or DIR/media/a/NAME (default: beside the JSON)", OFFSET(media), AV_OPT_TYPE_STRING, { .str = NULL }, 0, 0, FLAGS },
    { "shader_src", "Shadertoy shader: the Image pass's source itself", OFFSET(shader_src), AV_OPT_TYPE_STRING, { .str = NULL }, 0, 0, FLAGS },
    { "channel0",   "the Image pass's iChannel0: KIND[:SOURCE][,filter=..][,wrap=..][,vflip=..][,loop=..]", OFFSET(channels[0]), AV_OPT_TYPE_STRING, { .str = NULL }, 0, 0, FLAGS },
    { "channel1",   "the Image pass's iChannel1 (as channel0)", OFFSET(channels[1]), AV_OPT_TYPE_STRING, { .str = NULL }, 0, 0, FLAGS },
    { "channel2",   "the Image pass's iChannel2 (as channel0)", OFFSET(channels[2]), AV_OPT_TYPE_STRING, { .str = NULL }, 0, 0, FLAGS },
    { "channel3",   "the Image pass's iChannel3 (as channel0)", OFFSET(channels[3]), AV_OPT_TYPE_STRING, { .str = NULL }, 0, 0, FLAGS },
    { "audio",      "the file a sound channel without one analyses", OFFSET(audio), AV_OPT_TYPE_STRING, { .str = NULL }, 0, 0, FLAGS },
    { "mouse",      "iMouse: X,Y held down, or X,Y,CX,CY, pixels from the bottom left", OFFSET(mouse), AV_OPT_TYPE_STRING, { .str = NULL }, 0, 0, FLAGS },
    { "date",       "iDate at the first frame, YYYY-MM-DD[THH:MM:SS] UTC (default: now, local time)", OFFSET(date), AV_OPT_TYPE_STRING, { .str = NULL }, 0, 0, FLAGS },
    { "sound",      "a second output: the project's Sound pass (mainSound), stereo, 16 bits", OFFSET(sound), AV_OPT_TYPE_BOOL, { .i64 = 0 }, 0, 1, FLAGS },
    { "audio_rate", "the Sound pass's sample rate (iSampleRate)", OFFSET(audio_rate), AV_OPT_TYPE_INT, { .i64 = GLR_SOUND_RATE_DEFAULT }, GLR_SOUND_RATE_MIN, GLR_SOUND_RATE_MAX, FLAGS },
    GLREADER_OUTPUT_OPTIONS(OFFSET(out), FLAGS),
    { "readback",   "how frames are read back", OFFSET(readback), AV_OPT_TYPE_INT, { .i64 = READBACK_RING }, READBACK_RING, READBACK_SYNC, FLAGS, "readback" },
        { "ring",   "asynchronously, through the ring of mapped buffers", 0, AV_OPT_TYPE_CONST, { .i64 = READBACK_RING }, 0, 0, FLAGS, "readback" },
        { "sync",   "glReadPixels into memory, then a copy: the usual design, for comparison", 0, AV_OPT_TYPE_CONST, { .i64 = READBACK_SYNC }, 0, 0, FLAGS, "readback" },
    { "hw_frames",  "Vulkan or CUDA frames converted on the GPU, nothing read back: auto (where a device is given and the graph takes them), on (or an error), off", OFFSET(hw_frames), AV_OPT_TYPE_INT, { .i64 = GLREADER_HW_FRAMES_AUTO }, GLREADER_HW_FRAMES_AUTO, GLREADER_HW_FRAMES_OFF, FLAGS, "hw_frames" },
        { "auto",   "where the graph has a Vulkan or CUDA device (-filter_hw_device, or hw_device) and takes the frames", 0, AV_OPT_TYPE_CONST, { .i64 = GLREADER_HW_FRAMES_AUTO }, 0, 0, FLAGS, "hw_frames" },
        { "on",     "always, on the graph's device, hw_device's, or the GL context's own Vulkan device", 0, AV_OPT_TYPE_CONST, { .i64 = GLREADER_HW_FRAMES_ON }, 0, 0, FLAGS, "hw_frames" },
        { "off",    "read back", 0, AV_OPT_TYPE_CONST, { .i64 = GLREADER_HW_FRAMES_OFF }, 0, 0, FLAGS, "hw_frames" },
    { "hw_device",  "the device of the hardware frames, as -init_hw_device names it: vulkan, vulkan:N, vulkan=NAME:N, cuda, cuda:N (default: the graph's)", OFFSET(hw_device), AV_OPT_TYPE_STRING, { .str = NULL }, 0, 0, FLAGS },
    { NULL }
};

AVFILTER_DEFINE_CLASS(glreader);

static GLReaderShared *shared_of(GLReaderContext *s)
{
    return (GLReaderShared *)s->shared->data;
}

/* A slot came back (a lent frame let go of, on any thread, or a copied one): wake the
 * render thread, which draws while the ring has a free slot. */
static void slot_returned(void *opaque)
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

    if (shared->player && glr_context_make_current(shared->gl.gl) >= 0) {
        glr_player_destroy(&shared->player);
        glr_context_release_current(shared->gl.gl);
    }
    shared->gl.scene = NULL; /* the player's */
    ff_glreader_gl_uninit(&shared->gl);
    if (shared->sounds) {
        AVFrame *sound;
        while (av_fifo_read(shared->sounds, &sound, 1) >= 0)
            av_frame_free(&sound);
        av_fifo_freep2(&shared->sounds);
    }
    glr_media_channels_destroy(&shared->media);
    glr_project_destroy(&shared->project);
    pthread_cond_destroy(&shared->cond);
    pthread_mutex_destroy(&shared->mutex);
    av_free(shared);
}

/* Queues the Sound pass's samples of the frame rendered last (from its first sample to the
 * next frame's, stamped from the first frame's), as glreader-export submits them. */
static int queue_sound(GLReaderShared *shared)
{
    static const AVChannelLayout stereo = AV_CHANNEL_LAYOUT_STEREO;
    int frame = glr_player_frame(shared->player);
    long long start = glr_player_sound_sample(shared->player, shared->first_frame);
    long long from = glr_player_sound_sample(shared->player, frame);
    long long to = glr_player_sound_sample(shared->player, frame + 1);
    AVFrame *sound;
    int ret;

    if (to == from) /* a frame shorter than a sample */
        return 0;
    if (!(sound = av_frame_alloc()))
        return AVERROR(ENOMEM);
    sound->format = AV_SAMPLE_FMT_S16;
    sound->nb_samples = (int)(to - from);
    sound->sample_rate = glr_player_sound_rate(shared->player);
    sound->pts = from - start;
    if ((ret = av_channel_layout_copy(&sound->ch_layout, &stereo)) >= 0 && (ret = av_frame_get_buffer(sound, 0)) >= 0 &&
        (ret = glr_player_render_sound(shared->player, from, sound->nb_samples, (int16_t *)sound->data[0])) < 0)
        ret = ff_glreader_averror(ret);
    if (ret >= 0) {
        pthread_mutex_lock(&shared->mutex);
        ret = av_fifo_write(shared->sounds, &sound, 1);
        pthread_mutex_unlock(&shared->mutex);
    }
    if (ret < 0)
        av_frame_free(&sound);
    return ret;
}

/* Renders the next frame as glreader-export does (the same player): its channels' media
 * decoded and uploaded, then every pass; and its sound, for a sound output. Returns 0 or
 * an AVERROR, the cause logged. */
static int render_frame(GLReaderShared *shared)
{
    int ret = glr_player_render_next(shared->player);
    if (ret < 0)
        return ff_glreader_averror(ret);
    return shared->sounds ? queue_sound(shared) : 0;
}

/* Whether a frame can be drawn and captured now (the mutex held): the ring has a free slot
 * (neither in flight, queued nor lent), or fewer hardware frames than the depth are being
 * converted or queued (those lent downstream hold their own memory from the pool). */
static int can_capture(const GLReaderContext *s, const GLReaderShared *shared)
{
    return shared->gl.converter ? shared->in_flight + shared->ready_count < s->out.depth
                                : glr_ring_free_slots(shared->gl.ring) > 0;
}

/* Captures the frame drawn last, number n: into the ring, or converted into a hardware
 * frame whose mark goes behind the others'. Returns 0 or an AVERROR, the cause logged. */
static int capture(GLReaderShared *shared, int64_t n)
{
    struct glr_source source = glr_scene_source(shared->gl.scene);
    int slot = (shared->converting_start + shared->in_flight) % MAX_DEPTH, ret;

    if (!shared->gl.converter)
        return (ret = glr_ring_capture(shared->gl.ring, &source, n)) < 0 ? ff_glreader_averror(ret) : 0;
    return ff_glreader_hw_capture(&shared->gl, shared->outlink, &source, &shared->converting[slot],
                                  &shared->marks[slot]);
}

/* The oldest captured frame into *ready once the GPU wrote it, waiting for it when
 * `blocking`: 0, -EAGAIN (not yet), or another negative code. */
static int acquire(GLReaderShared *shared, GLReaderReady *ready, int blocking)
{
    int ret, slot = shared->converting_start;

    ready->hw = NULL;
    if (!shared->gl.converter)
        return glr_ring_acquire(shared->gl.ring, &ready->lease, blocking ? UINT64_MAX : 0);
    if ((ret = ff_glreader_hw_wait(&shared->gl, shared->marks[slot], blocking ? UINT64_MAX : 0)) <= 0)
        return ret < 0 ? ret : -EAGAIN;
    ff_glreader_hw_forget(&shared->gl, shared->marks[slot]);
    ready->hw = shared->converting[slot];
    shared->converting_start = (slot + 1) % MAX_DEPTH;
    return 0;
}

/* Frees the hardware frames still being converted when the render thread stops early. */
static void drop_converting(GLReaderShared *shared)
{
    for (; shared->gl.converter && shared->in_flight; shared->in_flight--) {
        int slot = shared->converting_start;
        ff_glreader_hw_forget(&shared->gl, shared->marks[slot]);
        av_frame_free(&shared->converting[slot]);
        shared->converting_start = (slot + 1) % MAX_DEPTH;
    }
}

/* The render thread: keeps every slot busy, drawing frame after frame while one is free
 * (can_capture) and moving finished frames to the queue. */
static void *render_thread(void *opaque)
{
    GLReaderContext *s = opaque;
    GLReaderShared *shared = shared_of(s);
    int64_t rendered = 0;
    int ret = glr_context_make_current(shared->gl.gl);

    pthread_mutex_lock(&shared->mutex);
    while (ret >= 0 && !shared->stop && (rendered < s->total || shared->in_flight)) {
        GLReaderReady f;
        if (rendered < s->total && can_capture(s, shared)) {
            pthread_mutex_unlock(&shared->mutex);
            if ((ret = render_frame(shared)) >= 0)
                ret = capture(shared, rendered);
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
        while (1) {
            int blocking = rendered >= s->total || !can_capture(s, shared);
            pthread_mutex_unlock(&shared->mutex);
            ret = acquire(shared, &f, blocking);
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
        shared->error = ff_glreader_averror(ret);
    drop_converting(shared);
    shared->ended = 1;
    pthread_cond_broadcast(&shared->cond);
    pthread_mutex_unlock(&shared->mutex);
    glr_context_release_current(shared->gl.gl); /* so that the last frame's owner can take it */
    return NULL;
}

/* The frame `start` falls on, by glreader's one rule for every front-end
 * (glreader/frame_range.h): the first that starts at or after it, said when it is not on it. */
static int start_frame(AVFilterContext *ctx)
{
    GLReaderContext *s = ctx->priv;
    int64_t n = glr_frames_before(s->start, s->frame_rate.num, s->frame_rate.den);

    if (av_rescale_q(n, av_inv_q(s->frame_rate), AV_TIME_BASE_Q) != s->start)
        av_log(ctx, AV_LOG_WARNING, "start %s s is not a whole frame at %d/%d fps: starting at frame %"PRId64"\n",
               av_ts2timestr(s->start, &AV_TIME_BASE_Q), s->frame_rate.num, s->frame_rate.den, n);
    return n > INT_MAX / 2 ? -1 : (int)n;
}

/* The project and its channels' media, where its frames start, and the player's
 * parameters. Errors are logged. */
static av_cold int open_project(AVFilterContext *ctx, GLReaderShared *shared, struct glr_player_params *params)
{
    GLReaderContext *s = ctx->priv;
    struct glr_project_params project = { .path = s->shader, .media_dir = s->media };
    char where[16];
    long long date;
    int i;

    if (s->shader && s->shader_src) {
        av_log(ctx, AV_LOG_ERROR, "shader and shader_src both given: pick one\n");
        return AVERROR(EINVAL);
    }
    if (!(shared->project = glr_project_open(shared->gl.log, &project)))
        return ff_glreader_averror(glr_last_error_code());
    if (s->sound && !glr_project_has_sound_pass(shared->project)) {
        av_log(ctx, AV_LOG_ERROR, "sound=1: %s has no Sound pass (mainSound) to play\n",
               s->shader ? s->shader : "the shader");
        return AVERROR(EINVAL);
    }
    if (!s->sound && glr_project_has_sound_pass(shared->project))
        av_log(ctx, AV_LOG_INFO, "%s has a Sound pass (mainSound): sound=1 gives it as a second output "
               "(-f lavfi -i \"glreader=...:sound=1 [out0][out1]\")\n", s->shader);
    for (i = 0; i < GLR_SCENE_CHANNELS; i++) {
        snprintf(where, sizeof(where), "channel%d", i);
        if (s->channels[i] && glr_project_bind(shared->project, GLR_SCENE_IMAGE_PASS, i, s->channels[i], where) < 0) {
            av_log(ctx, AV_LOG_ERROR, "%s\n", glr_last_error());
            return AVERROR(EINVAL);
        }
    }
    if ((params->first_frame = start_frame(ctx)) < 0) {
        av_log(ctx, AV_LOG_ERROR, "start %s s is too far: past frame %d\n",
               av_ts2timestr(s->start, &AV_TIME_BASE_Q), INT_MAX / 2);
        return AVERROR(EINVAL);
    }
    if (s->mouse && glr_shadertoy_parse_mouse(s->mouse, params->mouse) < 0) {
        av_log(ctx, AV_LOG_ERROR, "mouse: %s\n", glr_last_error());
        return AVERROR(EINVAL);
    }
    if (s->date && glr_shadertoy_parse_date(s->date, &date) < 0) {
        av_log(ctx, AV_LOG_ERROR, "date: %s\n", glr_last_error());
        return AVERROR(EINVAL);
    }
    if (!(shared->media = glr_media_channels_create(shared->gl.log, shared->project, s->audio)))
        return ff_glreader_averror(glr_last_error_code());
    params->width = s->w;
    params->height = s->h;
    params->fps_num = s->frame_rate.num;
    params->fps_den = s->frame_rate.den;
    params->project = shared->project;
    params->date = s->date; /* NULL: now, in local time, as Shadertoy counts */
    params->alpha = s->out.alpha;
    /* As in glreader-export: a sound file given for the channels is what they hear, in
     * place of the Sound pass, unless the pass is played as the sound output. */
    params->sound_rate = s->audio && !s->sound ? -1 : s->audio_rate;
    shared->first_frame = params->first_frame;
    if (s->shader_src) {
        params->source = s->shader_src;
        params->source_name = "shader_src";
    }
    return 0;
}

/* The sound output: the Sound pass's samples, stamped by their number from the first frame's. */
static int glreader_sound_config_props(AVFilterLink *outlink)
{
    GLReaderContext *s = outlink->src->priv;
    outlink->time_base = (AVRational){ 1, s->audio_rate };
    return 0;
}

static av_cold int glreader_init(AVFilterContext *ctx)
{
    GLReaderContext *s = ctx->priv;
    struct glr_player_params player_params = { 0 };
    struct glr_channel_feeder feeder;
    GLReaderShared *shared;
    int ret;

    if (s->frame_rate.num <= 0 || s->frame_rate.den <= 0) {
        av_log(ctx, AV_LOG_ERROR, "the frame rate must be positive\n");
        return AVERROR(EINVAL);
    }
    if (s->readback == READBACK_SYNC && s->hw_frames == GLREADER_HW_FRAMES_ON) {
        av_log(ctx, AV_LOG_ERROR, "readback=sync reads frames back, hw_frames=on reads nothing back: pick one\n");
        return AVERROR(EINVAL);
    }
    if ((ret = ff_glreader_check_hw_frames(ctx, &s->out, s->hw_frames, s->hw_device)) < 0)
        return ret;
    if (s->readback == READBACK_SYNC && s->out.format && glr_format_get_info(s->out.format)->yuv) {
        av_log(ctx, AV_LOG_ERROR, "readback=sync reads RGB formats only; %s is converted by the ring\n",
               glr_format_name(s->out.format));
        return AVERROR(EINVAL);
    }
    /* The frames that start before the duration's end, as testsrc's d counts them. */
    s->total = !s->duration ? INT64_MAX : glr_frames_before(s->duration, s->frame_rate.num, s->frame_rate.den);
    if (s->sound) {
        AVFilterPad pad = { .name = "sound", .type = AVMEDIA_TYPE_AUDIO, .config_props = glreader_sound_config_props };
        if ((ret = ff_append_outpad(ctx, &pad)) < 0)
            return ret;
    }
    if ((s->shared = ff_glreader_take_parked(ctx))) { /* made by this graph's first making, with these options */
        ff_glreader_gl_attach(&shared_of(s)->gl, ctx);
        s->made = 1;
        return 0;
    }
    if (!(shared = av_mallocz(sizeof(*shared))))
        return AVERROR(ENOMEM);
    pthread_mutex_init(&shared->mutex, NULL);
    pthread_cond_init(&shared->cond, NULL);
    if (!(s->shared = av_buffer_create((uint8_t *)shared, sizeof(*shared), free_shared, NULL, 0))) {
        free_shared(NULL, (uint8_t *)shared);
        return AVERROR(ENOMEM);
    }
    if ((ret = ff_glreader_gl_init(&shared->gl, ctx, s->shared, slot_returned, shared)) < 0)
        return ret;
    if (s->sound && !(shared->sounds = av_fifo_alloc2(MAX_DEPTH, sizeof(AVFrame *), AV_FIFO_FLAG_AUTO_GROW)))
        return AVERROR(ENOMEM);

    /* Each failure below was logged with its cause. */
    if ((ret = open_project(ctx, shared, &player_params)) < 0)
        return ret;
    feeder = glr_media_channels_feeder(shared->media);
    player_params.feeder = &feeder;
    if ((ret = ff_glreader_gl_open(&shared->gl, ctx, s->out.require_hw)) < 0)
        return ret;
    if (!(shared->player = glr_player_create(shared->gl.log, &player_params))) {
        ret = ff_glreader_averror(glr_last_error_code());
    } else {
        shared->gl.scene = glr_player_scene(shared->player);
        if (glr_player_preroll(shared->player))
            av_log(ctx, AV_LOG_INFO, "pre-rolling %d frames: the project's buffers carry pixels from frame to frame\n",
                   glr_player_preroll(shared->player));
        ret = 0;
    }
    glr_context_release_current(shared->gl.gl);
    s->made = ret >= 0;
    return ret;
}

static av_cold void glreader_uninit(AVFilterContext *ctx)
{
    GLReaderContext *s = ctx->priv;
    GLReaderShared *shared;

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
    /* Frames rendered but never taken go back to the ring (or the pool). */
    for (; shared->ready_count; shared->ready_count--) {
        GLReaderReady *f = &shared->ready[shared->ready_start++ % MAX_DEPTH];
        if (f->hw)
            av_frame_free(&f->hw);
        else
            glr_frame_release(&f->lease);
    }
    ff_glreader_log_summary(ctx, &shared->gl, &s->out, s->emitted, s->copied);
    ff_glreader_gl_detach(&shared->gl);
    if (s->made && !s->configured) /* this graph's first making, whose second takes it */
        ff_glreader_park(ctx, &s->shared);
    av_buffer_unref(&s->shared); /* the GL side goes with the last frame held downstream */
}

static int glreader_query_formats(AVFilterContext *ctx)
{
    GLReaderContext *s = ctx->priv;
    static const int sample_formats[] = { AV_SAMPLE_FMT_S16, -1 };
    static const AVChannelLayout layouts[] = { AV_CHANNEL_LAYOUT_STEREO, { 0 } };
    const int rates[] = { s->audio_rate, -1 };
    GLReaderShared *shared = shared_of(s);
    AVFilterLink *sound;
    int ret;

    s->configured = 1;
    if (s->hw_frames != GLREADER_HW_FRAMES_OFF && s->readback == READBACK_RING) {
        /* The graph's device is known here (-filter_hw_device), and whether GL shares its memory. */
        if ((ret = glr_context_make_current(shared->gl.gl)) < 0)
            return ff_glreader_averror(ret);
        ret = ff_glreader_choose_hw_device(&shared->gl, ctx, &s->out, s->hw_frames, s->hw_device);
        glr_context_release_current(shared->gl.gl);
        if (ret < 0)
            return ret;
    }
    if ((ret = ff_glreader_set_output_formats(ctx->outputs[0], &shared->gl, &s->out, s->readback == READBACK_SYNC,
                                              s->hw_frames)) < 0 || !s->sound)
        return ret;
    sound = ctx->outputs[1];
    if ((ret = ff_formats_ref(ff_make_format_list(sample_formats), &sound->incfg.formats)) < 0 ||
        (ret = ff_formats_ref(ff_make_format_list(rates), &sound->incfg.samplerates)) < 0)
        return ret;
    return ff_channel_layouts_ref(ff_make_channel_layout_list(layouts), &sound->incfg.channel_layouts);
}

/* The format is negotiated: the ring reads it back, and the render thread starts. */
static int glreader_config_props(AVFilterLink *outlink)
{
    GLReaderContext *s = outlink->src->priv;
    GLReaderShared *shared = shared_of(s);
    int ret;

    outlink->w = s->w;
    outlink->h = s->h;
    outlink->sample_aspect_ratio = (AVRational){ 1, 1 };
    outlink->time_base = av_inv_q(s->frame_rate);
    GLR_FRAME_RATE(outlink) = s->frame_rate;
    if (s->thread_started) /* a graph configured again: the ring (or pool) already makes this link's frames */
        return outlink->format == (shared->gl.converter ? ff_glreader_hw_pix_fmt(&shared->gl)
                                                        : glr_av_pix_fmt(shared->gl.format))
                   ? 0 : AVERROR(ENOSYS);
    shared->outlink = outlink;
    if ((ret = glr_context_make_current(shared->gl.gl)) < 0)
        return ff_glreader_averror(ret);
    ret = ff_glreader_gl_create_readback(&shared->gl, &s->out, outlink, s->readback == READBACK_SYNC);
    glr_context_release_current(shared->gl.gl);
    if (ret >= 0 && s->readback == READBACK_RING) {
        if ((ret = pthread_create(&s->thread, NULL, render_thread, s)))
            return AVERROR(ret);
        s->thread_started = 1;
    }
    return ret;
}

/* Takes the oldest queued sound; NULL when none is. */
static AVFrame *next_sound(GLReaderShared *shared)
{
    AVFrame *sound = NULL;

    pthread_mutex_lock(&shared->mutex);
    if (av_fifo_read(shared->sounds, &sound, 1) < 0)
        sound = NULL;
    pthread_mutex_unlock(&shared->mutex);
    return sound;
}

/* Takes the oldest finished frame from the render thread, waiting for it if need be. */
static int next_frame(GLReaderContext *s, GLReaderReady *f)
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

/* readback=sync: draws and reads the frame back synchronously, on the calling thread. */
static AVFrame *read_frame_synchronously(AVFilterContext *ctx, AVFilterLink *outlink, int *ret)
{
    GLReaderContext *s = ctx->priv;
    GLReaderShared *shared = shared_of(s);
    AVFrame *frame = NULL;

    /* Filter graphs may call from any of their threads: take the context each time. */
    if ((*ret = glr_context_make_current(shared->gl.gl)) < 0) {
        *ret = ff_glreader_averror(*ret);
        return NULL;
    }
    if ((*ret = render_frame(shared)) >= 0)
        *ret = ff_glreader_read_frame(&shared->gl, outlink, shared->gl.format, &frame);
    glr_context_release_current(shared->gl.gl);
    s->copied += !!frame;
    return frame;
}

/* A sound output gets what is queued; when nothing is, the next picture brings its sound
 * (the picture goes to its own output, wanted or not), so neither output waits for the
 * other. */
static int glreader_activate(AVFilterContext *ctx)
{
    GLReaderContext *s = ctx->priv;
    GLReaderShared *shared = shared_of(s);
    AVFilterLink *outlink = ctx->outputs[0];
    AVFilterLink *soundlink = s->sound ? ctx->outputs[1] : NULL;
    int sound_wanted = soundlink && ff_outlink_frame_wanted(soundlink);
    GLReaderReady f;
    AVFrame *frame;
    int ret;

    if (sound_wanted) {
        if ((frame = next_sound(shared))) {
            if (ff_outlink_frame_wanted(outlink)) /* the picture's turn next, without a new request */
                ff_filter_set_ready(ctx, 100);
            return ff_filter_frame(soundlink, frame);
        }
        if (s->emitted >= s->total) {
            ff_outlink_set_status(soundlink, AVERROR_EOF,
                                  glr_player_sound_sample(shared->player, shared->first_frame + s->total) -
                                      glr_player_sound_sample(shared->player, shared->first_frame));
            return 0;
        }
    }
    if (!ff_outlink_frame_wanted(outlink) && !sound_wanted)
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
        if (!(frame = f.hw ? f.hw : ff_glreader_frame_from_lease(&shared_of(s)->gl, outlink, &f.lease, &s->copied)))
            return AVERROR(ENOMEM);
    }
    frame->pts = s->emitted++;
    if (sound_wanted) /* its sound is queued now */
        ff_filter_set_ready(ctx, 100);
    if (ff_outlink_get_status(outlink)) { /* closed downstream: only the sound is wanted */
        av_frame_free(&frame);
        return 0;
    }
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
    /* sound=1 adds the sound's output; hardware frames on the graph's device. */
    GLR_FILTER_PUBLIC(flags)       = AVFILTER_FLAG_DYNAMIC_OUTPUTS | GLR_FLAG_HWDEVICE,
    FILTER_OUTPUTS(glreader_outputs),
    FILTER_QUERY_FUNC(glreader_query_formats),
};
