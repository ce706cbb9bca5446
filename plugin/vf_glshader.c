/*
 * glshader video filter: runs a Shadertoy shader over 1 to 4 video inputs with OpenGL
 * (headless, EGL) and reads the result back through glreader's ring of persistently
 * mapped pixel buffers.
 *
 * Input N's frames reach the shader as iChannelN (uploaded through pixel-unpack buffers,
 * rows in Shadertoy's order: texture(iChannelN, fragCoord / iResolution.xy) shows the
 * frame upright). The first input drives: one output frame per frame of it, at its pts,
 * with iTime its time in seconds. Each other input shows its latest frame at or before
 * that time (its first frame until then); when one ends, eof_action says what happens, as
 * in overlay and the filters built on framesync.
 *
 * Frames are rendered ahead: up to depth - 1 of them are in flight while the graph goes
 * on, and the oldest goes downstream once the GL has finished it, lent without a copy.
 *
 * A Y'CbCr input becomes RGB where that is faster: on the GPU (a compute pass over the
 * uploaded planes) on a hardware renderer; with libswscale before the upload on a software
 * one, whose compute pass costs several times the CPU's conversion (yuv_input). Either way
 * the input link keeps its format, so the graph still gives the output the input's.
 *
 * This file is part of glreader (plugin/vf_glshader.c), copied into FFmpeg trees by
 * ffmpeg-patches/ (beside each line's hooks).
 *
 * FFmpeg is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Lesser General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

#include <errno.h>
#include <time.h>

#include "libavutil/avstring.h"
#include "libavutil/internal.h"
#include "libavutil/mem.h"
#include "libavutil/opt.h"
#include "libswscale/swscale.h"
#include "avfilter.h"
#include "glreader_common.h"
#include "glreader_compat.h"

#define MAX_INPUTS GLR_SCENE_CHANNELS

enum GLShaderEOFAction {
    EOF_REPEAT, /* the ended input's last frame stays in its channel */
    EOF_ENDALL, /* the output ends with it */
    EOF_PASS,   /* its channel goes black */
};

enum GLShaderYUVInput {
    YUV_INPUT_AUTO, /* on the CPU when the renderer is software, else on the GPU */
    YUV_INPUT_GPU,  /* the planes uploaded, converted by a compute pass */
    YUV_INPUT_CPU,  /* converted to RGBA by libswscale, then uploaded */
};

enum GLShaderTransfer {
    TRANSFER_ASYNC, /* through glreader's buffers: the upload ring, the readback ring */
    TRANSFER_SYNC,  /* glTexSubImage2D from memory, glReadPixels into memory, then a copy */
};

typedef struct GLShaderInput {
    AVFrame *next;     /* its first frame after the driving frame's time, held back */
    int64_t next_pts;  /* next's pts in the output time base */
    int shown;         /* a frame of it is in its channel */
    int eof;
    int64_t eof_pts;   /* in the output time base */
    int blanked;       /* eof_action=pass: its channel is black */
    struct SwsContext *sws; /* yuv_input on the CPU: its Y'CbCr frames to rgba */
    AVFrame *rgba;          /* what sws writes, reused frame after frame */
} GLShaderInput;

typedef struct GLShaderContext {
    const AVClass *class;
    int nb_inputs;
    char *shader;
    char *shader_src;
    int w, h;
    int eof_action;
    int shortest;
    int transfer;
    int yuv_input;
    int cpu_yuv;               /* yuv_input as chosen for this renderer: on the CPU */
    GLReaderOutput out;

    AVBufferRef *shared;       /* GLReaderGL */
    int made;                  /* init made (or took) it */
    int configured;            /* its formats were asked: the graph is the real one, not a first making */
    GLShaderInput in[MAX_INPUTS];
    struct glr_shadertoy_clock clock; /* iDate */
    int64_t rendered;          /* iFrame of the next frame */
    double last_time;          /* iTime of the last frame rendered */
    int in_flight;             /* captured, not yet sent */
    int ending;                /* the output ends once what is in flight is sent */
    int64_t end_pts;
    int64_t copied;            /* sent as copies, downstream holding too many */
} GLShaderContext;

#define OFFSET(x) offsetof(GLShaderContext, x)
#define FLAGS AV_OPT_FLAG_VIDEO_PARAM | AV_OPT_FLAG_FILTERING_PARAM

static const AVOption glshader_options[] = {
    { "inputs",     "set the number of video inputs, iChannel0 to iChannel3", OFFSET(nb_inputs), AV_OPT_TYPE_INT, { .i64 = 1 }, 1, MAX_INPUTS, FLAGS },
    { "shader",     "Shadertoy shader: the Image pass's fragment file", OFFSET(shader), AV_OPT_TYPE_STRING, { .str = NULL }, 0, 0, FLAGS },
    { "shader_src", "Shadertoy shader: the Image pass's source itself", OFFSET(shader_src), AV_OPT_TYPE_STRING, { .str = NULL }, 0, 0, FLAGS },
    { "size",       "set the output size (default: the first input's)", OFFSET(w), AV_OPT_TYPE_IMAGE_SIZE, { .str = NULL }, 0, 0, FLAGS },
    { "s",          "set the output size (default: the first input's)", OFFSET(w), AV_OPT_TYPE_IMAGE_SIZE, { .str = NULL }, 0, 0, FLAGS },
    { "eof_action", "what an input other than the first does to the output when it ends", OFFSET(eof_action), AV_OPT_TYPE_INT, { .i64 = EOF_REPEAT }, EOF_REPEAT, EOF_PASS, FLAGS, "eof_action" },
        { "repeat", "its last frame stays in its channel", 0, AV_OPT_TYPE_CONST, { .i64 = EOF_REPEAT }, 0, 0, FLAGS, "eof_action" },
        { "endall", "the output ends there",               0, AV_OPT_TYPE_CONST, { .i64 = EOF_ENDALL }, 0, 0, FLAGS, "eof_action" },
        { "pass",   "its channel goes black",              0, AV_OPT_TYPE_CONST, { .i64 = EOF_PASS },   0, 0, FLAGS, "eof_action" },
    { "shortest",   "end the output with the shortest input (eof_action=endall)", OFFSET(shortest), AV_OPT_TYPE_BOOL, { .i64 = 0 }, 0, 1, FLAGS },
    { "transfer",   "how frames go to the GL and back", OFFSET(transfer), AV_OPT_TYPE_INT, { .i64 = TRANSFER_ASYNC }, TRANSFER_ASYNC, TRANSFER_SYNC, FLAGS, "transfer" },
        { "async",  "through pixel-unpack buffers and the readback ring, rendering ahead", 0, AV_OPT_TYPE_CONST, { .i64 = TRANSFER_ASYNC }, 0, 0, FLAGS, "transfer" },
        { "sync",   "from and into memory, one frame at a time: the usual design, for comparison", 0, AV_OPT_TYPE_CONST, { .i64 = TRANSFER_SYNC }, 0, 0, FLAGS, "transfer" },
    { "yuv_input",  "where Y'CbCr inputs become RGB", OFFSET(yuv_input), AV_OPT_TYPE_INT, { .i64 = YUV_INPUT_AUTO }, YUV_INPUT_AUTO, YUV_INPUT_CPU, FLAGS, "yuv_input" },
        { "auto",   "on the CPU with a software renderer, else on the GPU: the faster of the two", 0, AV_OPT_TYPE_CONST, { .i64 = YUV_INPUT_AUTO }, 0, 0, FLAGS, "yuv_input" },
        { "gpu",    "the planes uploaded and converted by a compute pass", 0, AV_OPT_TYPE_CONST, { .i64 = YUV_INPUT_GPU }, 0, 0, FLAGS, "yuv_input" },
        { "cpu",    "converted to RGBA by libswscale, then uploaded", 0, AV_OPT_TYPE_CONST, { .i64 = YUV_INPUT_CPU }, 0, 0, FLAGS, "yuv_input" },
    GLREADER_OUTPUT_OPTIONS(OFFSET(out), FLAGS),
    { NULL }
};

AVFILTER_DEFINE_CLASS(glshader);

static GLReaderGL *gl_of(GLShaderContext *s)
{
    return (GLReaderGL *)s->shared->data;
}

static void free_gl(void *opaque, uint8_t *data)
{
    ff_glreader_gl_uninit((GLReaderGL *)data);
    av_free(data);
}

static av_cold int glshader_init(AVFilterContext *ctx)
{
    GLShaderContext *s = ctx->priv;
    GLReaderGL *gl;
    int i, ret;

    if (!s->shader == !s->shader_src) {
        av_log(ctx, AV_LOG_ERROR, s->shader ? "shader and shader_src both given: pick one\n"
                                            : "no shader: give shader=FILE or shader_src=SOURCE\n");
        return AVERROR(EINVAL);
    }
    if (s->transfer == TRANSFER_SYNC && s->out.format && glr_format_get_info(s->out.format)->yuv) {
        av_log(ctx, AV_LOG_ERROR, "transfer=sync reads RGB formats only; %s is converted by the ring\n",
               glr_format_name(s->out.format));
        return AVERROR(EINVAL);
    }
    if (s->shortest)
        s->eof_action = EOF_ENDALL;
    for (i = 0; i < s->nb_inputs; i++) {
        AVFilterPad pad = { .type = AVMEDIA_TYPE_VIDEO };
        if (!(pad.name = av_asprintf("input%d", i)))
            return AVERROR(ENOMEM);
        if ((ret = ff_append_inpad_free_name(ctx, &pad)) < 0)
            return ret;
    }
    if ((s->shared = ff_glreader_take_parked(ctx))) { /* made by this graph's first making, with these options */
        gl = gl_of(s);
        ff_glreader_gl_attach(gl, ctx);
    } else {
        if (!(gl = av_mallocz(sizeof(*gl))))
            return AVERROR(ENOMEM);
        if (!(s->shared = av_buffer_create((uint8_t *)gl, sizeof(*gl), free_gl, NULL, 0))) {
            av_free(gl);
            return AVERROR(ENOMEM);
        }
        if ((ret = ff_glreader_gl_init(gl, ctx, s->shared, NULL, NULL)) < 0 ||
            (ret = ff_glreader_gl_open(gl, ctx, s->out.require_hw)) < 0)
            return ret;
        glr_context_release_current(gl->gl);
    }
    /* A software rasterizer runs the compute pass on the CPU, several times slower than
     * libswscale (docs/performance.md); a GPU runs it in a fraction of swscale's time. */
    s->cpu_yuv = s->yuv_input == YUV_INPUT_CPU ||
                 (s->yuv_input == YUV_INPUT_AUTO && glr_context_is_software(gl->gl));
    s->clock.date_start = (long long)time(NULL); /* iDate runs from now, in local time */
    s->clock.date_local = 1;
    s->made = 1;
    return 0;
}

static av_cold void glshader_uninit(AVFilterContext *ctx)
{
    GLShaderContext *s = ctx->priv;
    int i;

    for (i = 0; i < MAX_INPUTS; i++) {
        av_frame_free(&s->in[i].next);
        av_frame_free(&s->in[i].rgba);
        sws_freeContext(s->in[i].sws);
        s->in[i].sws = NULL;
    }
    if (!s->shared)
        return;
    ff_glreader_log_summary(ctx, gl_of(s), &s->out, s->rendered, s->copied);
    /* Frames rendered but never sent go back to the ring with it. */
    ff_glreader_gl_detach(gl_of(s));
    if (s->made && !s->configured) /* this graph's first making, whose second takes it */
        ff_glreader_park(ctx, &s->shared);
    av_buffer_unref(&s->shared); /* the GL side goes with the last frame held downstream */
}

/* Inputs arrive as decoded (Y'CbCr becomes RGB where yuv_input says) and the output offers what the
 * ring makes: with one input and one output, the graph picks the output format nearest
 * the first input's, so a yuv420p video comes out yuv420p and an RGB one RGB. */
static int glshader_query_formats(AVFilterContext *ctx)
{
    GLShaderContext *s = ctx->priv;
    int sync = s->transfer == TRANSFER_SYNC, i, ret;

    s->configured = 1;
    for (i = 0; i < ctx->nb_inputs; i++)
        if ((ret = ff_glreader_set_input_formats(ctx->inputs[i], sync)) < 0)
            return ret;
    return ff_glreader_set_output_formats(ctx->outputs[0], gl_of(s), &s->out, sync, GLREADER_HW_FRAMES_OFF);
}

/* Says where each Y'CbCr input becomes RGB, and why. */
static void log_input_conversion(AVFilterContext *ctx)
{
    GLShaderContext *s = ctx->priv;
    int i;

    for (i = 0; i < ctx->nb_inputs; i++) {
        int format = glr_av_format_of(ctx->inputs[i]->format);
        if (!format || !glr_format_get_info(format)->yuv)
            continue;
        av_log(ctx, AV_LOG_VERBOSE, "input %d: %s, converted to RGB %s\n", i, glr_format_name(format),
               !s->cpu_yuv ? "on the GPU"
               : s->yuv_input == YUV_INPUT_CPU ? "on the CPU (libswscale), as yuv_input says"
                                              : "on the CPU (libswscale): the renderer is a software one, whose "
                                                "GPU pass is slower (yuv_input=gpu takes it)");
    }
}

/* The scene (each input in its channel) and the ring, at the output's size. */
static int create_scene(AVFilterContext *ctx)
{
    GLShaderContext *s = ctx->priv;
    GLReaderGL *gl = gl_of(s);
    AVFilterLink *outlink = ctx->outputs[0];
    struct glr_scene_params params = {
        .width = outlink->w, .height = outlink->h,
        .source = s->shader_src, .source_path = s->shader, .source_name = s->shader_src ? "shader_src" : NULL,
        .upload = s->transfer == TRANSFER_SYNC ? GLR_UPLOAD_DIRECT : GLR_UPLOAD_STAGED,
        .alpha = s->out.alpha,
    };
    int i, ret = 0;

    for (i = 0; i < ctx->nb_inputs; i++)
        params.channels[i] = (struct glr_channel){ .kind = GLR_CHANNEL_TEXTURE, .filter = GLR_FILTER_LINEAR,
                                                   .wrap = GLR_WRAP_CLAMP, .vflip = GLR_VFLIP_ON };
    if ((ret = glr_context_make_current(gl->gl)) < 0)
        return ff_glreader_averror(ret);
    glr_scene_destroy(&gl->scene);
    if (!(gl->scene = glr_scene_create(gl->log, &params)))
        ret = ff_glreader_averror(glr_last_error_code());
    else
        ret = ff_glreader_gl_create_readback(gl, &s->out, outlink, s->transfer == TRANSFER_SYNC);
    glr_context_release_current(gl->gl);
    return ret;
}

static int glshader_config_output(AVFilterLink *outlink)
{
    AVFilterContext *ctx = outlink->src;
    GLShaderContext *s = ctx->priv;
    AVFilterLink *main = ctx->inputs[0];
    AVRational rate = GLR_FRAME_RATE(main);

    outlink->w = s->w ? s->w : main->w;
    outlink->h = s->h ? s->h : main->h;
    outlink->sample_aspect_ratio = s->w ? (AVRational){ 1, 1 } : main->sample_aspect_ratio;
    outlink->time_base = main->time_base;
    GLR_FRAME_RATE(outlink) = rate;
    s->clock.fps_num = rate.num > 0 && rate.den > 0 ? rate.num : 25;
    s->clock.fps_den = rate.num > 0 && rate.den > 0 ? rate.den : 1;
    log_input_conversion(ctx);
    return create_scene(ctx);
}

/* Sends the oldest frame in flight downstream, waiting for the GL when `wait`.
 * Returns 1 when one was sent, 0 when none was ready, or an AVERROR. */
static int send_oldest(AVFilterContext *ctx, int wait)
{
    GLShaderContext *s = ctx->priv;
    GLReaderGL *gl = gl_of(s);
    struct glr_frame f;
    AVFrame *frame;
    int ret;

    if (!s->in_flight)
        return 0;
    if ((ret = glr_ring_acquire(gl->ring, &f, wait ? UINT64_MAX : 0)) == -EAGAIN)
        return 0;
    if (ret < 0)
        return ff_glreader_averror(ret);
    s->in_flight--;
    if (!(frame = ff_glreader_frame_from_lease(gl, ctx->outputs[0], &f, &s->copied)))
        return AVERROR(ENOMEM);
    ret = ff_filter_frame(ctx->outputs[0], frame);
    return ret < 0 ? ret : 1;
}

/* Input i's Y'CbCr frame (read as the GPU pass reads it: image's matrix and range) as
 * RGBA in in->rgba, by libswscale. */
static int convert_on_cpu(GLShaderInput *in, const AVFrame *frame, const struct glr_image *image)
{
    static const int coefficients[] = { [GLR_MATRIX_BT709] = SWS_CS_ITU709, [GLR_MATRIX_BT601] = SWS_CS_ITU601,
                                        [GLR_MATRIX_BT2020_NCL] = SWS_CS_BT2020 };
    int full = image->color.range == GLR_RANGE_FULL, ret;

    if (!in->rgba || in->rgba->width != frame->width || in->rgba->height != frame->height) {
        av_frame_free(&in->rgba);
        if (!(in->rgba = av_frame_alloc()))
            return AVERROR(ENOMEM);
        in->rgba->format = AV_PIX_FMT_RGBA;
        in->rgba->width = frame->width;
        in->rgba->height = frame->height;
        if ((ret = av_frame_get_buffer(in->rgba, 0)) < 0)
            return ret;
    }
    /* Chroma interpolated at full width, as the GPU pass does. */
    in->sws = sws_getCachedContext(in->sws, frame->width, frame->height, frame->format, frame->width, frame->height,
                                   AV_PIX_FMT_RGBA, SWS_BILINEAR | SWS_FULL_CHR_H_INT,
                                   NULL, NULL, NULL);
    if (!in->sws)
        return AVERROR(ENOMEM);
    sws_setColorspaceDetails(in->sws, sws_getCoefficients(coefficients[image->color.matrix]), full,
                             sws_getCoefficients(SWS_CS_DEFAULT), 1, 0, 1 << 16, 1 << 16);
    ret = sws_scale(in->sws, (const uint8_t *const *)frame->data, frame->linesize, 0, frame->height,
                    in->rgba->data, in->rgba->linesize);
    return ret < 0 ? ret : 0;
}

/* Puts frame (rows top first, any linesize sign) into input i's channel, then frees it. */
static int show_frame(AVFilterContext *ctx, int i, AVFrame **frame)
{
    GLShaderContext *s = ctx->priv;
    AVFilterLink *inlink = ctx->inputs[i];
    double time = (*frame)->pts == AV_NOPTS_VALUE ? 0.0 : (*frame)->pts * av_q2d(inlink->time_base);
    struct glr_image image = ff_glreader_image_of(*frame, time);
    int ret = 0;

    if (image.yuv_format && s->cpu_yuv && (ret = convert_on_cpu(&s->in[i], *frame, &image)) >= 0)
        image = ff_glreader_image_of(s->in[i].rgba, time);
    if (ret >= 0)
        ret = glr_scene_set_channel_image(gl_of(s)->scene, GLR_SCENE_IMAGE_PASS, i, &image);
    av_frame_free(frame);
    s->in[i].shown = 1;
    return ret < 0 ? ff_glreader_averror(ret) : 0;
}

/* eof_action=pass: the ended input's channel reads black, at its size. */
static int blank_channel(AVFilterContext *ctx, int i)
{
    GLShaderContext *s = ctx->priv;
    AVFilterLink *inlink = ctx->inputs[i];
    size_t bytes = (size_t)inlink->w * 4 * inlink->h;
    uint8_t *zeros = av_mallocz(bytes);
    struct glr_image image = { .width = inlink->w, .height = inlink->h, .components = 4, .data = zeros,
                               .stride = (ptrdiff_t)inlink->w * 4 };
    int ret;

    if (!zeros)
        return AVERROR(ENOMEM);
    ret = glr_scene_set_channel_image(gl_of(s)->scene, GLR_SCENE_IMAGE_PASS, i, &image);
    av_free(zeros);
    s->in[i].blanked = 1;
    return ret < 0 ? ff_glreader_averror(ret) : 0;
}

/* Brings input i (not the first) up to time t: its latest frame at or before t in its
 * channel, or its first frame while it has none before t. Returns 1 when it is ready, 0
 * when it needs a frame it does not have yet (requested), or an AVERROR. */
static int sync_input(AVFilterContext *ctx, int i, int64_t t)
{
    GLShaderContext *s = ctx->priv;
    GLShaderInput *in = &s->in[i];
    AVFilterLink *inlink = ctx->inputs[i];
    int ret, status;
    int64_t pts;

    while (!in->eof) {
        if (!in->next) {
            if ((ret = ff_inlink_consume_frame(inlink, &in->next)) < 0)
                return ret;
            if (ret) {
                in->next_pts = av_rescale_q(in->next->pts, inlink->time_base, ctx->outputs[0]->time_base);
            } else if (ff_inlink_acknowledge_status(inlink, &status, &pts)) {
                in->eof = 1;
                in->eof_pts = av_rescale_q(pts, inlink->time_base, ctx->outputs[0]->time_base);
                break;
            } else {
                ff_inlink_request_frame(inlink);
                return 0;
            }
        }
        if (in->shown && in->next_pts > t)
            break;
        if ((ret = show_frame(ctx, i, &in->next)) < 0)
            return ret;
    }
    if (in->eof && t >= in->eof_pts) {
        if (s->eof_action == EOF_ENDALL)
            return AVERROR_EOF;
        if (s->eof_action == EOF_PASS && !in->blanked)
            return (ret = blank_channel(ctx, i)) < 0 ? ret : 1;
    }
    return 1;
}

/* Renders the driving frame's picture and starts reading it back (transfer=sync: reads it
 * and sends it at once). */
static int render(AVFilterContext *ctx, int64_t pts)
{
    GLShaderContext *s = ctx->priv;
    GLReaderGL *gl = gl_of(s);
    AVFilterLink *outlink = ctx->outputs[0];
    struct glr_scene_inputs inputs;
    int ret = glr_shadertoy_inputs(&s->clock, (int)s->rendered, &inputs);

    inputs.time = pts * av_q2d(outlink->time_base);
    inputs.time_delta = s->rendered ? inputs.time - s->last_time : 0.0;
    s->last_time = inputs.time;
    if (ret < 0 || (ret = glr_scene_render(gl->scene, &inputs)) < 0)
        return ff_glreader_averror(ret);
    s->rendered++;
    if (s->transfer == TRANSFER_SYNC) {
        AVFrame *frame = NULL;
        if ((ret = ff_glreader_read_frame(gl, outlink, gl->format, &frame)) < 0)
            return ret;
        frame->pts = pts;
        s->copied++;
        return ff_filter_frame(outlink, frame);
    }
    while (1) {
        struct glr_source source = glr_scene_source(gl->scene);
        if ((ret = glr_ring_capture(gl->ring, &source, pts)) != -EBUSY)
            break;
        /* Every slot holds a frame: send the oldest, waiting for it. */
        if ((ret = send_oldest(ctx, 1)) < 0)
            return ret;
    }
    if (ret < 0)
        return ff_glreader_averror(ret);
    s->in_flight++;
    return 0;
}

/* One step of the filter, with the GL context current. */
static int step(AVFilterContext *ctx)
{
    GLShaderContext *s = ctx->priv;
    AVFilterLink *outlink = ctx->outputs[0], *main = ctx->inputs[0];
    AVFrame *frame;
    int64_t pts, t;
    int ret, i, status;

    /* Whatever the GL has finished goes downstream. */
    while ((ret = send_oldest(ctx, s->ending)) > 0)
        ;
    if (ret < 0)
        return ret;
    if (s->ending) {
        ff_outlink_set_status(outlink, AVERROR_EOF, s->end_pts);
        return 0;
    }

    if (!ff_inlink_check_available_frame(main)) {
        if (ff_inlink_acknowledge_status(main, &status, &pts)) {
            s->ending = 1;
            s->end_pts = pts;
            ff_filter_set_ready(ctx, 100);
        } else if (ff_outlink_frame_wanted(outlink)) {
            ff_inlink_request_frame(main);
        }
        return 0;
    }
    /* The driving frame waits in its queue until every other input has caught up. */
    t = ff_inlink_peek_frame(main, 0)->pts;
    for (i = 1; i < ctx->nb_inputs; i++) {
        if ((ret = sync_input(ctx, i, t)) == AVERROR_EOF) {
            s->ending = 1;
            s->end_pts = t;
            ff_filter_set_ready(ctx, 100);
            return 0;
        }
        if (ret <= 0)
            return ret;
    }
    if ((ret = ff_inlink_consume_frame(main, &frame)) <= 0)
        return ret;
    if ((ret = show_frame(ctx, 0, &frame)) < 0 || (ret = render(ctx, t)) < 0)
        return ret;
    /* Still wanted (the frame is in flight): come back to send it or to ask for the next
     * input, which overlaps the GL's work; graphs that only run filters marked ready (the
     * 5.1 line's) would otherwise wait forever. */
    if (ff_inlink_check_available_frame(main) || ff_outlink_frame_wanted(outlink))
        ff_filter_set_ready(ctx, 100);
    return 0;
}

static int glshader_activate(AVFilterContext *ctx)
{
    GLShaderContext *s = ctx->priv;
    GLReaderGL *gl = gl_of(s);
    int ret;

    FF_FILTER_FORWARD_STATUS_BACK_ALL(ctx->outputs[0], ctx);
    /* Filter graphs may call from any of their threads: take the context each time. */
    if ((ret = glr_context_make_current(gl->gl)) < 0)
        return ff_glreader_averror(ret);
    ret = step(ctx);
    glr_context_release_current(gl->gl);
    return ret;
}

static const AVFilterPad glshader_outputs[] = {
    {
        .name         = "default",
        .type         = AVMEDIA_TYPE_VIDEO,
        .config_props = glshader_config_output,
    },
};

const GLR_FILTER_TYPE ff_vf_glshader = {
    GLR_FILTER_PUBLIC(name)        = "glshader",
    GLR_FILTER_PUBLIC(description) = NULL_IF_CONFIG_SMALL("Run a GLSL shader over video inputs with OpenGL, read back through glreader."),
    GLR_FILTER_PUBLIC(priv_class)  = &glshader_class,
    GLR_FILTER_PUBLIC(flags)       = AVFILTER_FLAG_DYNAMIC_INPUTS,
    .priv_size                     = sizeof(GLShaderContext),
    .init                          = glshader_init,
    .uninit                        = glshader_uninit,
    .activate                      = glshader_activate,
    FILTER_OUTPUTS(glshader_outputs),
    FILTER_QUERY_FUNC(glshader_query_formats),
};
