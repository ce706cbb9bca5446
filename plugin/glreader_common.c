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

#include "libavutil/attributes.h"
#include "libavutil/error.h"
#include "libavutil/imgutils.h"
#include "libavutil/log.h"
#include "libavutil/mem.h"
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

av_cold int ff_glreader_gl_create_readback(GLReaderGL *gl, const GLReaderOutput *out, int w, int h, int sync)
{
    struct glr_ring_params params = { .width = w, .height = h, .format = out->format,
                                      .color = { .matrix = out->matrix, .range = out->range, .chroma = out->chroma_loc },
                                      .depth = out->depth, /* GLR_FLIP_STRIDE */
                                      /* Frames downstream wait while an output stalls (a
                                       * muxer's reader paused): wait with them. */
                                      .capture_timeout_ns = UINT64_MAX };

    glr_ring_destroy(&gl->ring);
    av_freep(&gl->pixels);
    if (sync)
        return (gl->pixels = av_malloc(glr_format_plane_row_bytes(out->format, 0, w) * h)) ? 0 : AVERROR(ENOMEM);
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
        glr_scene_destroy(&gl->scene);
        glr_context_release_current(gl->gl);
    }
    glr_context_destroy(&gl->gl);
    glr_log_destroy(&gl->log);
    av_freep(&gl->pixels);
}

av_cold void ff_glreader_gl_detach(GLReaderGL *gl)
{
    atomic_store(&gl->filter, 0);
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

int ff_glreader_set_output_formats(AVFilterLink *outlink, const GLReaderOutput *out)
{
    const int formats[] = { glr_av_pix_fmt(out->format), AV_PIX_FMT_NONE };
    int ret = ff_formats_ref(ff_make_format_list(formats), &outlink->incfg.formats);
    struct glr_color color;

    if (ret >= 0 && glr_format_get_info(out->format)->yuv) {
        const struct glr_color wanted = { .matrix = out->matrix, .range = out->range, .chroma = out->chroma_loc };
        glr_color_resolve(out->format, &wanted, &color);
        ret = glr_set_link_color(outlink, color.matrix, color.range);
    }
    return ret;
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
