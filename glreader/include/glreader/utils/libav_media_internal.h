/*
 * The implementation of glreader/utils/libav_media.h (include that one): the decoders of a
 * project's media channels, static inline. glreader-av compiles it into its exported
 * functions; the FFmpeg filter, which links no glreader-av, compiles it in place
 * (GLR_MEDIA_STATIC) with its own FFmpeg. Not an API: it may change in any release.
 *
 * Every function returns 0 or a negative AVERROR and, on failure, keeps a sentence naming
 * the file as the thread's last error (glr_last_error()), without logging it.
 */
#ifndef GLREADER_UTILS_LIBAV_MEDIA_INTERNAL_H
#define GLREADER_UTILS_LIBAV_MEDIA_INTERNAL_H

#if !defined(GLR_MEDIA_STATIC) && !defined(GLR_MEDIA_IMPLEMENTATION)
#error "glreader/utils/libav_media_internal.h is the implementation of glreader/utils/libav_media.h: include that"
#endif

#ifdef __cplusplus
extern "C" {
#endif
#include <string.h>

#include <libavcodec/avcodec.h>
#include <libavcodec/codec_desc.h>
#include <libavformat/avformat.h>
#include <libavutil/avstring.h>
#include <libavutil/channel_layout.h>
#include <libavutil/error.h>
#include <libavutil/frame.h>
#include <libavutil/mem.h>
#include <libavutil/opt.h>
#include <libavutil/tx.h>
#include <libswresample/swresample.h>
#include <libswscale/swscale.h>

#include "glreader/player.h"
#include "glreader/shadertoy_project.h"
#ifdef __cplusplus
}
#endif

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define GLR_SOUND_TEXTURE_WIDTH 512
#define GLR_SOUND_FFT_SIZE 2048

/* A code the player hands on as glreader's: an errno value, or FFmpeg's AVERROR as
 * GLR_ERROR_CODEC (the code glr_media_fail keeps with the message). */
static inline int glr_media_code(int ret)
{
    return ret > -4096 ? ret : GLR_ERROR_CODEC;
}

/* Keeps "what: FFmpeg's reason" as the thread's last error and returns code. */
static inline int glr_media_fail(int code, const char *format, ...)
{
    char reason[AV_ERROR_MAX_STRING_SIZE] = "";
    char said[512], message[600];
    va_list args;
    va_start(args, format);
    vsnprintf(said, sizeof said, format, args);
    va_end(args);
    av_strerror(code, reason, sizeof reason);
    snprintf(message, sizeof message, "%s%s%s", said, reason[0] ? ": " : "", reason);
    /* An AVERROR that is an errno stays one; FFmpeg's own (invalid data...) is a codec error. */
    glr_set_last_error(glr_media_code(code), message);
    return code;
}

/* What reading a file of a common extension takes, to name what a build of FFmpeg lacks. */
struct glr_media_reader {
    const char *extension, *demuxer, *decoder; /* decoder: a codec's name, or NULL for any */
};

/* Words for a file this FFmpeg could not read, when its name says what it is and this build
 * lacks the demuxer or decoder for it (a lean build without MP3): "it has no mp3 demuxer
 * nor mp3 decoder"; "" when nothing is missing. */
static inline void glr_media_missing(const char *path, char *words, size_t size)
{
    static const struct glr_media_reader readers[] = {
        {"mp3", "mp3", "mp3"},      {"wav", "wav", NULL},      {"flac", "flac", "flac"},  {"ogg", "ogg", NULL},
        {"oga", "ogg", NULL},       {"opus", "ogg", "opus"},   {"m4a", "mov", "aac"},     {"aac", "aac", "aac"},
        {"mp4", "mov", NULL},       {"mov", "mov", NULL},      {"mkv", "matroska", NULL}, {"mka", "matroska", NULL},
        {"webm", "matroska", NULL}, {"png", "image2", "png"},  {"jpg", "image2", "mjpeg"},
        {"jpeg", "image2", "mjpeg"}, {"gif", "gif", "gif"},    {"webp", "image2", "webp"}};
    const char *dot = strrchr(path, '.');
    size_t i;
    words[0] = '\0';
    for (i = 0; dot && i < sizeof readers / sizeof readers[0]; i++) {
        const struct glr_media_reader *r = &readers[i];
        const AVCodecDescriptor *codec = r->decoder ? avcodec_descriptor_get_by_name(r->decoder) : NULL;
        int no_demuxer = !av_find_input_format(r->demuxer), no_decoder = codec && !avcodec_find_decoder(codec->id);
        if (av_strcasecmp(dot + 1, r->extension) || (!no_demuxer && !no_decoder))
            continue;
        snprintf(words, size, "this FFmpeg has no %s%s%s%s%s (a lean build? ffmpeg-patches/build.sh without --lean "
                 "builds a complete one)", no_demuxer ? r->demuxer : "", no_demuxer ? " demuxer" : "",
                 no_demuxer && no_decoder ? " and no " : "", no_decoder ? r->decoder : "",
                 no_decoder ? " decoder" : "");
        return;
    }
}

/* A file's best stream of one media type and its open decoder. */
struct glr_media_decoder {
    AVFormatContext *format;
    AVCodecContext *codec;
    AVPacket *packet;
    AVFrame *frame;
    int stream;
    int input_done; /* the demuxer is at its end and the decoder has been drained into */
};

static inline void glr_media_decoder_close(struct glr_media_decoder *d)
{
    avcodec_free_context(&d->codec);
    avformat_close_input(&d->format);
    av_packet_free(&d->packet);
    av_frame_free(&d->frame);
    memset(d, 0, sizeof *d);
}

static inline int glr_media_decoder_open(struct glr_media_decoder *d, const char *path, enum AVMediaType type,
                                         const char *what)
{
    const AVCodec *decoder = NULL;
    int ret;
    char missing[256];
    memset(d, 0, sizeof *d);
    if ((ret = avformat_open_input(&d->format, path, NULL, NULL)) < 0) {
        glr_media_missing(path, missing, sizeof missing);
        if (missing[0] && ret != AVERROR(ENOENT) && ret != AVERROR(EACCES))
            return glr_media_fail(AVERROR_DEMUXER_NOT_FOUND, "cannot open the %s %s: %s", what, path, missing);
        return glr_media_fail(ret, "cannot open the %s %s", what, path);
    }
    if ((ret = avformat_find_stream_info(d->format, NULL)) < 0) {
        glr_media_decoder_close(d);
        return glr_media_fail(ret, "cannot read the %s %s", what, path);
    }
    ret = av_find_best_stream(d->format, type, -1, -1, &decoder, 0);
    if (ret == AVERROR_DECODER_NOT_FOUND) {
        unsigned i;
        const char *codec = "its";
        for (i = 0; i < d->format->nb_streams; i++)
            if (d->format->streams[i]->codecpar->codec_type == type)
                codec = avcodec_get_name(d->format->streams[i]->codecpar->codec_id);
        glr_media_decoder_close(d);
        return glr_media_fail(ret, "cannot decode the %s %s: this FFmpeg has no %s decoder", what, path, codec);
    }
    if (ret < 0) {
        glr_media_decoder_close(d);
        return glr_media_fail(ret, "the %s %s has no %s stream FFmpeg can decode", what, path,
                              av_get_media_type_string(type));
    }
    d->stream = ret;
    d->codec = avcodec_alloc_context3(decoder);
    d->packet = av_packet_alloc();
    d->frame = av_frame_alloc();
    if (!d->codec || !d->packet || !d->frame) {
        glr_media_decoder_close(d);
        return glr_media_fail(AVERROR(ENOMEM), "cannot decode the %s %s", what, path);
    }
    /* The packets' time base: a decoder that skips samples (an MP3's encoder delay) moves
     * its frames' timestamps in it, and warns without it. */
    d->codec->pkt_timebase = d->format->streams[d->stream]->time_base;
    if ((ret = avcodec_parameters_to_context(d->codec, d->format->streams[d->stream]->codecpar)) < 0 ||
        (ret = avcodec_open2(d->codec, decoder, NULL)) < 0) {
        glr_media_decoder_close(d);
        return glr_media_fail(ret, "cannot open the %s decoder for the %s %s", decoder->name, what,
                              path);
    }
    return 0;
}

/* The next decoded frame into d->frame; AVERROR_EOF after the last. */
static inline int glr_media_decoder_next(struct glr_media_decoder *d)
{
    for (;;) {
        int ret = avcodec_receive_frame(d->codec, d->frame);
        if (ret != AVERROR(EAGAIN))
            return ret;
        if (d->input_done)
            return AVERROR_EOF;
        ret = av_read_frame(d->format, d->packet);
        if (ret == AVERROR_EOF) {
            d->input_done = 1;
            avcodec_send_packet(d->codec, NULL);
            continue;
        }
        if (ret < 0)
            return ret;
        if (d->packet->stream_index == d->stream)
            ret = avcodec_send_packet(d->codec, d->packet);
        av_packet_unref(d->packet);
        if (ret < 0 && ret != AVERROR(EAGAIN))
            return ret;
    }
}

/* Back to the first frame. */
static inline int glr_media_decoder_rewind(struct glr_media_decoder *d)
{
    int ret = av_seek_frame(d->format, d->stream, d->format->streams[d->stream]->start_time == AV_NOPTS_VALUE
                                                      ? 0 : d->format->streams[d->stream]->start_time,
                            AVSEEK_FLAG_BACKWARD);
    if (ret < 0)
        ret = avformat_seek_file(d->format, -1, INT64_MIN, 0, 0, 0);
    avcodec_flush_buffers(d->codec);
    d->input_done = 0;
    return ret;
}

/* Converts d->frame to RGBA into *rgba (allocated or reused), through *sws. */
static inline int glr_media_to_rgba(struct glr_media_decoder *d, struct SwsContext **sws, AVFrame **rgba)
{
    AVFrame *in = d->frame;
    int ret;
    if (!*rgba || (*rgba)->width != in->width || (*rgba)->height != in->height) {
        av_frame_free(rgba);
        if (!(*rgba = av_frame_alloc()))
            return AVERROR(ENOMEM);
        (*rgba)->format = AV_PIX_FMT_RGBA;
        (*rgba)->width = in->width;
        (*rgba)->height = in->height;
        if ((ret = av_frame_get_buffer(*rgba, 0)) < 0)
            return ret;
    }
    *sws = sws_getCachedContext(*sws, in->width, in->height, (enum AVPixelFormat)in->format, in->width, in->height,
                                AV_PIX_FMT_RGBA, SWS_BICUBIC, NULL, NULL, NULL);
    if (!*sws)
        return AVERROR(EINVAL);
    sws_scale(*sws, (const uint8_t *const *)in->data, in->linesize, 0, in->height, (*rgba)->data, (*rgba)->linesize);
    return 0;
}

/* A picture's first frame as RGBA, into *rgba (free it with av_frame_free). */
static inline int glr_media_load_image(const char *path, AVFrame **rgba)
{
    struct glr_media_decoder d;
    struct SwsContext *sws = NULL;
    int ret = glr_media_decoder_open(&d, path, AVMEDIA_TYPE_VIDEO, "image");
    if (ret < 0)
        return ret;
    *rgba = NULL;
    ret = glr_media_decoder_next(&d);
    if (ret >= 0)
        ret = glr_media_to_rgba(&d, &sws, rgba);
    sws_freeContext(sws);
    glr_media_decoder_close(&d);
    if (ret < 0) {
        av_frame_free(rgba);
        return glr_media_fail(ret == AVERROR_EOF ? AVERROR_INVALIDDATA : ret,
                              "cannot decode the image %s", path);
    }
    return 0;
}

/* A video channel. */
struct glr_media_video {
    struct glr_media_decoder d;
    struct SwsContext *sws;
    AVFrame *rgba;      /* the frame shown */
    int loop;           /* 1: loop past the end; 0: hold the last frame */
    int pending;        /* d.frame holds a decoded frame not shown yet */
    int shown;          /* rgba holds a frame */
    double shown_time;  /* its time, seconds from the stream's start */
    double duration;    /* the end of the last frame; 0 until known */
    double frame_time;  /* one frame's duration, from the stream's rate */
    char path[256];
};

static inline void glr_media_video_close(struct glr_media_video *v)
{
    glr_media_decoder_close(&v->d);
    sws_freeContext(v->sws);
    av_frame_free(&v->rgba);
    memset(v, 0, sizeof *v);
}

static inline int glr_media_video_open(struct glr_media_video *v, const char *path, int loop)
{
    AVStream *st;
    AVRational rate;
    int ret;
    memset(v, 0, sizeof *v);
    if ((ret = glr_media_decoder_open(&v->d, path, AVMEDIA_TYPE_VIDEO, "video")) < 0)
        return ret;
    st = v->d.format->streams[v->d.stream];
    rate = st->avg_frame_rate.num > 0 ? st->avg_frame_rate : st->r_frame_rate;
    v->frame_time = rate.num > 0 ? av_q2d(av_inv_q(rate)) : 0.0;
    v->loop = loop;
    snprintf(v->path, sizeof v->path, "%s", path);
    return 0;
}

static inline double glr_media_video_frame_seconds(const struct glr_media_video *v, const AVFrame *f)
{
    const AVStream *st = v->d.format->streams[v->d.stream];
    int64_t start = st->start_time == AV_NOPTS_VALUE ? 0 : st->start_time;
    int64_t pts = f->best_effort_timestamp == AV_NOPTS_VALUE ? start : f->best_effort_timestamp;
    return (double)(pts - start) * av_q2d(st->time_base);
}

/* Makes v->rgba the frame shown at `seconds`; *channel_time: the video's own time then. */
static inline int glr_media_video_show(struct glr_media_video *v, double seconds, double *channel_time)
{
    double t = seconds < 0 ? 0 : seconds;
    int attempts;
    for (attempts = 0; attempts < 3; attempts++) {
        int ret;
        if (v->loop && v->duration > 0)
            t = fmod(seconds < 0 ? 0 : seconds, v->duration);
        if (v->shown && t < v->shown_time) { /* looped round: start again */
            if ((ret = glr_media_decoder_rewind(&v->d)) < 0)
                return glr_media_fail(ret, "cannot rewind the video %s", v->path);
            v->shown = v->pending = 0;
        }
        for (;;) {
            if (!v->pending) {
                ret = glr_media_decoder_next(&v->d);
                if (ret == AVERROR_EOF)
                    break;
                if (ret < 0)
                    return glr_media_fail(ret, "cannot decode the video %s", v->path);
                v->pending = 1;
            }
            if (v->shown && glr_media_video_frame_seconds(v, v->d.frame) > t)
                break; /* not its time yet */
            if ((ret = glr_media_to_rgba(&v->d, &v->sws, &v->rgba)) < 0)
                return glr_media_fail(ret, "cannot convert the video %s to RGBA", v->path);
            v->shown_time = glr_media_video_frame_seconds(v, v->d.frame);
            v->shown = 1;
            v->pending = 0;
        }
        if (!v->shown)
            return glr_media_fail(AVERROR_INVALIDDATA, "the video %s has no frames", v->path);
        if (v->pending || !v->loop) { /* the frame after is later than t, or we hold the last */
            if (channel_time)
                *channel_time = t;
            return 0;
        }
        /* At the end: the loop's length is known now. */
        if (v->duration <= 0)
            v->duration = v->shown_time + (v->frame_time > 0 ? v->frame_time : 0.04);
        if (t < v->duration) {
            if (channel_time)
                *channel_time = t;
            return 0;
        }
    }
    return glr_media_fail(AVERROR_INVALIDDATA, "cannot loop the video %s", v->path);
}

/* A sound channel: the whole file as mono float samples, or the project's Sound pass asked
 * of the player as it goes (from_pass), analysed frame by frame. */
struct glr_media_sound {
    float *samples;
    size_t count;
    int sample_rate;           /* from_pass: the player's, known at the first analysis */
    int from_pass;
    char unplayed[160];        /* from_pass: the error where the player plays no Sound pass */
    float mono[GLR_SOUND_FFT_SIZE]; /* the samples that end at the analysed frame's time */
    AVTXContext *fft;
    av_tx_fn fft_fn;
    AVComplexFloat *fft_in, *fft_out; /* av_malloc'd: the FFT's SIMD wants them aligned */
    float window[GLR_SOUND_FFT_SIZE];
    float smoothed[GLR_SOUND_TEXTURE_WIDTH];
    uint8_t texture[2 * GLR_SOUND_TEXTURE_WIDTH]; /* row 0 spectrum, row 1 waveform */
};

static inline void glr_media_sound_close(struct glr_media_sound *s)
{
    av_freep(&s->samples);
    av_freep(&s->fft_in);
    av_freep(&s->fft_out);
    av_tx_uninit(&s->fft);
    memset(s, 0, sizeof *s);
}

/* Sets up the analysis (the FFT, its window) of a sound whose samples are in; closes it on
 * failure. */
static inline int glr_media_sound_prepare(struct glr_media_sound *s, const char *name)
{
    float scale = 1.0f;
    int ret, i;
    s->fft_in = (AVComplexFloat *)av_malloc(GLR_SOUND_FFT_SIZE * sizeof(AVComplexFloat));
    s->fft_out = (AVComplexFloat *)av_malloc(GLR_SOUND_FFT_SIZE * sizeof(AVComplexFloat));
    if (!s->fft_in || !s->fft_out)
        ret = AVERROR(ENOMEM);
    else
        ret = av_tx_init(&s->fft, &s->fft_fn, AV_TX_FLOAT_FFT, 0, GLR_SOUND_FFT_SIZE, &scale, 0);
    if (ret < 0) {
        glr_media_sound_close(s);
        return glr_media_fail(ret, "cannot set up the FFT for the sound %s", name);
    }
    for (i = 0; i < GLR_SOUND_FFT_SIZE; i++) { /* Blackman, as Web Audio's analyser */
        double x = 2.0 * M_PI * i / GLR_SOUND_FFT_SIZE;
        s->window[i] = (float)(0.42 - 0.5 * cos(x) + 0.08 * cos(2.0 * x));
    }
    return 0;
}

static inline int glr_media_sound_open(struct glr_media_sound *s, const char *path)
{
    struct glr_media_decoder d;
    SwrContext *swr = NULL;
    size_t capacity = 0;
    int ret;
    memset(s, 0, sizeof *s);
    if ((ret = glr_media_decoder_open(&d, path, AVMEDIA_TYPE_AUDIO, "sound")) < 0)
        return ret;
    s->sample_rate = d.codec->sample_rate;
    while ((ret = glr_media_decoder_next(&d)) >= 0) {
        int out_count;
        uint8_t *out;
        if (!swr) {
            AVChannelLayout mono = AV_CHANNEL_LAYOUT_MONO;
            if ((ret = swr_alloc_set_opts2(&swr, &mono, AV_SAMPLE_FMT_FLT, s->sample_rate, &d.frame->ch_layout,
                                           (enum AVSampleFormat)d.frame->format, d.frame->sample_rate, 0, NULL)) < 0 ||
                (ret = swr_init(swr)) < 0)
                break;
        }
        out_count = swr_get_out_samples(swr, d.frame->nb_samples);
        if (s->count + (size_t)out_count > capacity) {
            size_t grown = (s->count + (size_t)out_count) * 2;
            float *more = (float *)av_realloc(s->samples, grown * sizeof(float));
            if (!more) {
                ret = AVERROR(ENOMEM);
                break;
            }
            s->samples = more;
            capacity = grown;
        }
        out = (uint8_t *)(s->samples + s->count);
        ret = swr_convert(swr, &out, out_count, (const uint8_t **)d.frame->extended_data, d.frame->nb_samples);
        if (ret < 0)
            break;
        s->count += (size_t)ret;
    }
    swr_free(&swr);
    glr_media_decoder_close(&d);
    if (ret != AVERROR_EOF) {
        glr_media_sound_close(s);
        return glr_media_fail(ret, "cannot decode the sound %s", path);
    }
    return glr_media_sound_prepare(s, path);
}

/* A sound channel hearing the project's Sound pass, which the player renders (`heard_by`
 * names the channel for the error where the player plays none). */
static inline int glr_media_sound_of_pass(struct glr_media_sound *s, const char *heard_by)
{
    memset(s, 0, sizeof *s);
    s->from_pass = 1;
    snprintf(s->unplayed, sizeof s->unplayed,
             "%s is a sound without a file, and no audio was given to take (the project's Sound pass is not played)",
             heard_by);
    return glr_media_sound_prepare(s, "the Sound pass");
}

/* Fills s->mono with the samples that end before sample `end`, silence outside the file;
 * the Sound pass's mixed down to mono as a file's are. */
static inline int glr_media_sound_window(struct glr_media_sound *s, glr_player *player, long long end)
{
    const long long first = end - GLR_SOUND_FFT_SIZE;
    int16_t stereo[2 * GLR_SOUND_FFT_SIZE];
    int i, ret;
    if (!s->from_pass) {
        for (i = 0; i < GLR_SOUND_FFT_SIZE; i++)
            s->mono[i] = first + i >= 0 && (size_t)(first + i) < s->count ? s->samples[first + i] : 0.0f;
        return 0;
    }
    if ((ret = glr_player_render_sound(player, first, GLR_SOUND_FFT_SIZE, stereo)) < 0)
        return ret;
    for (i = 0; i < GLR_SOUND_FFT_SIZE; i++)
        s->mono[i] = (float)(stereo[2 * i] + stereo[2 * i + 1]) / 65536.0f;
    return 0;
}

/* Updates s->texture for a frame at `seconds`. Smoothing carries from the previous call,
 * so call it for every frame in order (frames before a start frame too: it is cheap). */
static inline int glr_media_sound_analyse(struct glr_media_sound *s, glr_player *player, double seconds)
{
    AVComplexFloat *in = s->fft_in, *out = s->fft_out;
    long long end;
    int i, ret;
    if (s->from_pass && !(s->sample_rate = glr_player_sound_rate(player)))
        return glr_media_fail(AVERROR(EINVAL), "%s", s->unplayed);
    end = (long long)floor(seconds * s->sample_rate + 0.5);
    if ((ret = glr_media_sound_window(s, player, end)) < 0)
        return ret;
    for (i = 0; i < GLR_SOUND_FFT_SIZE; i++) {
        in[i].re = s->mono[i] * s->window[i];
        in[i].im = 0.0f;
    }
    s->fft_fn(s->fft, out, in, sizeof(AVComplexFloat));
    for (i = 0; i < GLR_SOUND_TEXTURE_WIDTH; i++) {
        double magnitude = hypot(out[i].re, out[i].im) / GLR_SOUND_FFT_SIZE;
        double db, level;
        s->smoothed[i] = (float)(0.8 * s->smoothed[i] + 0.2 * magnitude);
        db = s->smoothed[i] > 0 ? 20.0 * log10(s->smoothed[i]) : -1000.0;
        level = floor(255.0 * (db + 100.0) / 70.0);
        s->texture[i] = (uint8_t)(level < 0 ? 0 : level > 255 ? 255 : level);
        level = floor(128.0 * (1.0 + s->mono[GLR_SOUND_FFT_SIZE - GLR_SOUND_TEXTURE_WIDTH + i]));
        s->texture[GLR_SOUND_TEXTURE_WIDTH + i] = (uint8_t)(level < 0 ? 0 : level > 255 ? 255 : level);
    }
    return 0;
}

/* Every channel of a project that a file feeds (glreader/shadertoy_project.h), decoded
 * and uploaded into a scene in step with the render's time. A file bound to several
 * channels is decoded once. */
#define GLR_MEDIA_MAX_BINDINGS ((GLR_SCENE_BUFFERS + 1) * GLR_SCENE_CHANNELS)

struct glr_media_source {
    enum glr_media_kind kind;
    char *path;                /* av_strdup'd; cube maps: the pattern */
    int loop;
    AVFrame *picture;          /* image */
    AVFrame *faces[6];         /* cube map: +X, -X, +Y, -Y, +Z, -Z */
    struct glr_media_video video;
    struct glr_media_sound sound;
    int from_pass;             /* sound: hears the Sound pass, which `path` names */
    double time;               /* the media time of what was decoded last */
    double analysed;           /* sound: the time of the last analysis; -1 before */
};

struct glr_media_channels {
    struct glr_media_source *sources[GLR_MEDIA_MAX_BINDINGS];
    int source_count;
    struct {
        int pass, channel;
        struct glr_media_source *source;
    } bindings[GLR_MEDIA_MAX_BINDINGS];
    int binding_count;
    int uploaded; /* pictures and cube maps are in the scene */
};

static inline void glr_media_channels_close(struct glr_media_channels *m)
{
    int i, f;
    for (i = 0; i < m->source_count; i++) {
        struct glr_media_source *src = m->sources[i];
        av_frame_free(&src->picture);
        for (f = 0; f < 6; f++)
            av_frame_free(&src->faces[f]);
        glr_media_video_close(&src->video);
        glr_media_sound_close(&src->sound);
        av_free(src->path);
        av_free(src);
    }
    memset(m, 0, sizeof *m);
}

/* The source decoding `path` as `kind` (a sound: the Sound pass, which `path` names, where
 * heard_by, the channel, is not NULL), opened now unless another channel opened it. */
static inline int glr_media_channels_source(struct glr_media_channels *m, enum glr_media_kind kind,
                                            const char *path, const char *heard_by, int loop,
                                            struct glr_media_source **out)
{
    /* {} in a cube map's pattern: glreader's face names; {_}: Shadertoy's. */
    static const char *const faces[6] = {"px", "nx", "py", "ny", "pz", "nz"};
    static const char *const shadertoy_faces[6] = {"", "_1", "_2", "_3", "_4", "_5"};
    struct glr_media_source *src;
    int i, ret = 0;
    for (i = 0; i < m->source_count; i++) {
        src = m->sources[i];
        if (src->kind == kind && src->loop == loop && src->from_pass == (heard_by != NULL) && !strcmp(src->path, path)) {
            *out = src;
            return 0;
        }
    }
    if (!(src = (struct glr_media_source *)av_mallocz(sizeof *src)) || !(src->path = av_strdup(path))) {
        av_free(src);
        return glr_media_fail(AVERROR(ENOMEM), "no memory for the channel %s", path);
    }
    m->sources[m->source_count++] = src; /* closed with the rest, whatever happens next */
    src->kind = kind;
    src->loop = loop;
    src->from_pass = heard_by != NULL;
    src->analysed = -1;
    switch (kind) {
    case GLR_MEDIA_IMAGE: ret = glr_media_load_image(path, &src->picture); break;
    case GLR_MEDIA_VIDEO: ret = glr_media_video_open(&src->video, path, loop); break;
    case GLR_MEDIA_SOUND:
        ret = heard_by ? glr_media_sound_of_pass(&src->sound, heard_by) : glr_media_sound_open(&src->sound, path);
        break;
    case GLR_MEDIA_CUBEMAP:
        if (!strstr(path, "{}") && !strstr(path, "{_}"))
            return glr_media_fail(AVERROR(EINVAL), "the cube map %s has no {} (or {_}) for its faces", path);
        for (i = 0; i < 6 && ret >= 0; i++) {
            const char *at = strstr(path, "{}");
            const char *face = faces[i];
            size_t skip = 2;
            if (!at) {
                at = strstr(path, "{_}");
                face = shadertoy_faces[i];
                skip = 3;
            }
            char *file = av_asprintf("%.*s%s%s", (int)(at - path), path, face, at + skip);
            ret = file ? glr_media_load_image(file, &src->faces[i])
                       : glr_media_fail(AVERROR(ENOMEM), "no memory for the cube map %s", path);
            av_free(file);
        }
        break;
    case GLR_MEDIA_NONE: break;
    }
    *out = src;
    return ret;
}

/* Opens the file of every channel of `project` that has one; a sound channel without a
 * file plays `audio_path`, else the project's Sound pass where it has one (else it is an
 * error naming the channel). Returns 0 or an AVERROR, the last error naming the file; m is
 * closed on failure. */
static inline int glr_media_channels_open(struct glr_media_channels *m, const glr_project *project,
                                          const char *audio_path)
{
    static const char *const pass_names[GLR_SCENE_BUFFERS + 1] = {"Buffer A", "Buffer B", "Buffer C", "Buffer D",
                                                                 "Image"};
    int pass, channel, ret;
    memset(m, 0, sizeof *m);
    for (pass = 0; pass <= GLR_SCENE_IMAGE_PASS; pass++)
        for (channel = 0; channel < GLR_SCENE_CHANNELS; channel++) {
            const struct glr_channel_binding *b = glr_project_binding(project, pass, channel);
            const char *path = b->path;
            struct glr_media_source *src = NULL;
            char heard_by[64] = "";
            if (b->media == GLR_MEDIA_NONE)
                continue;
            if (!path && !(path = audio_path) && glr_project_has_sound_pass(project)) {
                path = "the Sound pass";
                snprintf(heard_by, sizeof heard_by, "the %s pass's iChannel%d", pass_names[pass], channel);
            }
            if (!path) {
                glr_media_channels_close(m);
                return glr_media_fail(AVERROR(EINVAL),
                                      "the %s pass's iChannel%d is a sound without a file, and no audio was "
                                      "given to take (sound:FILE names one)",
                                      pass_names[pass], channel);
            }
            if ((ret = glr_media_channels_source(m, b->media, path, *heard_by ? heard_by : NULL, b->loop, &src)) < 0) {
                glr_media_channels_close(m);
                return ret;
            }
            m->bindings[m->binding_count].pass = pass;
            m->bindings[m->binding_count].channel = channel;
            m->bindings[m->binding_count++].source = src;
        }
    return 0;
}

static inline struct glr_image glr_media_image_of(const AVFrame *f, double time)
{
    struct glr_image image;
    memset(&image, 0, sizeof image);
    image.width = f->width;
    image.height = f->height;
    image.components = 4;
    image.data = f->data[0];
    image.stride = f->linesize[0];
    image.time = time;
    return image;
}

/* The sound analysis of the frame at `seconds` (once per time). glr_media_channels_update
 * does it for each rendered frame; call it alone for frames before a start frame, so that
 * frame N's sound texture is the same whether a render starts at 0 or at N. */
static inline int glr_media_channels_analyse(struct glr_media_channels *m, glr_player *player, double seconds)
{
    int i, ret;
    for (i = 0; i < m->source_count; i++) {
        struct glr_media_source *src = m->sources[i];
        if (src->kind == GLR_MEDIA_SOUND && src->analysed != seconds) {
            if ((ret = glr_media_sound_analyse(&src->sound, player, seconds)) < 0)
                return ret;
            src->analysed = src->time = seconds;
        }
    }
    return 0;
}

/* Decodes what the frame at `seconds` shows and uploads it into the scene's channels
 * (pictures and cube maps on the first call only). Call it for consecutive frames: the
 * sound's smoothing carries. Returns 0 or an error (AVERROR, or glreader's code), the
 * last error naming the file. */
static inline int glr_media_channels_update(struct glr_media_channels *m, glr_player *player, double seconds)
{
    glr_scene *scene = glr_player_scene(player);
    int i, f, ret;
    if ((ret = glr_media_channels_analyse(m, player, seconds)) < 0)
        return ret;
    for (i = 0; i < m->source_count; i++) {
        struct glr_media_source *src = m->sources[i];
        if (src->kind == GLR_MEDIA_VIDEO && (ret = glr_media_video_show(&src->video, seconds, &src->time)) < 0)
            return ret;
    }
    for (i = 0; i < m->binding_count && ret >= 0; i++) {
        struct glr_media_source *src = m->bindings[i].source;
        int pass = m->bindings[i].pass, channel = m->bindings[i].channel;
        struct glr_image image, faces[6];
        switch (src->kind) {
        case GLR_MEDIA_IMAGE:
            if (!m->uploaded) {
                image = glr_media_image_of(src->picture, 0);
                ret = glr_scene_set_channel_image(scene, pass, channel, &image);
            }
            break;
        case GLR_MEDIA_CUBEMAP:
            if (!m->uploaded) {
                for (f = 0; f < 6; f++)
                    faces[f] = glr_media_image_of(src->faces[f], 0);
                ret = glr_scene_set_channel_cubemap(scene, pass, channel, faces);
            }
            break;
        case GLR_MEDIA_VIDEO:
            image = glr_media_image_of(src->video.rgba, src->time);
            ret = glr_scene_set_channel_image(scene, pass, channel, &image);
            break;
        case GLR_MEDIA_SOUND:
            memset(&image, 0, sizeof image);
            image.width = GLR_SOUND_TEXTURE_WIDTH;
            image.height = 2;
            image.components = 1;
            image.data = src->sound.texture;
            image.stride = GLR_SOUND_TEXTURE_WIDTH;
            image.time = src->time;
            ret = glr_scene_set_channel_image(scene, pass, channel, &image);
            break;
        case GLR_MEDIA_NONE: break;
        }
        if (ret < 0) {
            char said[600];
            snprintf(said, sizeof said, "%s (%s)", glr_last_error(), src->path);
            glr_set_last_error(ret, said);
        }
    }
    m->uploaded = ret >= 0;
    return ret;
}

static inline int glr_media_channels_feed(void *opaque, glr_player *player, double seconds)
{
    return glr_media_code(glr_media_channels_update((struct glr_media_channels *)opaque, player, seconds));
}

static inline int glr_media_channels_skip(void *opaque, glr_player *player, double seconds)
{
    return glr_media_code(glr_media_channels_analyse((struct glr_media_channels *)opaque, player, seconds));
}

static inline float glr_media_channels_feeder_rate(void *opaque)
{
    return glr_media_channels_sample_rate((const struct glr_media_channels *)opaque);
}

/* A create function's failure: logged as an error and kept as the thread's last error. */
static inline void glr_media_report(const glr_log *log, int code, const char *message)
{
    glr_log_message(log, GLR_LOG_ERROR, message);
    glr_set_last_error(code, message);
}

/* The functions of glreader/utils/libav_media.h. */

GLR_MEDIA_API glr_media_channels *glr_media_channels_create(glr_log *log, const glr_project *project,
                                                           const char *audio)
{
    struct glr_media_channels *m;
    char said[700];
    if (!project) {
        glr_media_report(log, -EINVAL, "glr_media_channels_create: project is NULL");
        return NULL;
    }
    if (!(m = (struct glr_media_channels *)av_mallocz(sizeof *m))) {
        glr_media_report(log, -ENOMEM, "glr_media_channels_create: out of memory");
        return NULL;
    }
    if (glr_media_channels_open(m, project, audio) < 0) {
        snprintf(said, sizeof said, "%s", glr_last_error());
        glr_media_report(log, glr_last_error_code(), said);
        av_free(m);
        return NULL;
    }
    return m;
}


GLR_MEDIA_API void glr_media_channels_destroy(glr_media_channels **media)
{
    if (!media || !*media)
        return;
    glr_media_channels_close(*media);
    av_freep(media);
}

GLR_MEDIA_API float glr_media_channels_sample_rate(const glr_media_channels *media)
{
    int i;
    for (i = 0; i < media->source_count; i++)
        if (media->sources[i]->kind == GLR_MEDIA_SOUND && !media->sources[i]->sound.from_pass)
            return (float)media->sources[i]->sound.sample_rate;
    return 0.0f;
}

GLR_MEDIA_API struct glr_channel_feeder glr_media_channels_feeder(glr_media_channels *media)
{
    struct glr_channel_feeder feeder;
    feeder.opaque = media;
    feeder.update = glr_media_channels_feed;
    feeder.skip = glr_media_channels_skip;
    feeder.sample_rate = glr_media_channels_feeder_rate;
    return feeder;
}

#endif /* GLREADER_UTILS_LIBAV_MEDIA_INTERNAL_H */
