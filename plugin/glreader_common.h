/*
 * What glreader's two filters share: the GL side (a headless context, a scene, a ring of
 * mapped pixel buffers) kept alive by every frame lent downstream, the options and
 * negotiation of the frames they output, and glreader's errors as AVERRORs.
 *
 * This file is part of glreader (plugin/glreader_common.h), copied into FFmpeg trees by
 * ffmpeg-patches/ (beside each line's hooks).
 *
 * FFmpeg is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Lesser General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

#ifndef AVFILTER_GLREADER_COMMON_H
#define AVFILTER_GLREADER_COMMON_H

#include <glreader/glreader.h>
#include <glreader/utils/libav.h>
#include <glreader/utils/libav_hw_frames.h>

#include <stdatomic.h>

#include "config.h"
#include "libavutil/buffer.h"
#include "libavutil/opt.h"
#include "avfilter.h"
#if CONFIG_VULKAN
#include <glreader/utils/libav_vulkan_frames.h>
#endif
#if CONFIG_CUDA
#include <glreader/utils/libav_cuda_frames.h>
#endif

/* The frames a filter outputs: format (0: negotiated with the graph), the Image pass's
 * alpha (enum glr_alpha), YUV colour, ring depth, hardware. */
typedef struct GLReaderOutput {
    int format;
    int alpha;
    int matrix, range, chroma_loc;
    int depth;
    int require_hw;
} GLReaderOutput;

/* The options behind a GLReaderOutput, at offset `base` of a filter's context. */
#define GLREADER_OUTPUT_OPTIONS(base, flags) \
    { "format",     "pixel format of the frames (YUV formats are converted on the GPU)", (base) + offsetof(GLReaderOutput, format), AV_OPT_TYPE_INT, { .i64 = 0 }, 0, GLR_FORMAT_YUVA444P10, flags, "format" }, \
        { "auto",    "what the graph takes: yuv420p, nv12, yuv444p, p010le (converted on the GPU), rgba or bgra; with alpha: yuva420p, yuva444p, yuva444p10le, rgba or bgra", 0, AV_OPT_TYPE_CONST, { .i64 = 0 }, 0, 0, flags, "format" }, \
        { "rgba",    NULL, 0, AV_OPT_TYPE_CONST, { .i64 = GLR_FORMAT_RGBA8 },  0, 0, flags, "format" }, \
        { "bgra",    NULL, 0, AV_OPT_TYPE_CONST, { .i64 = GLR_FORMAT_BGRA8 },  0, 0, flags, "format" }, \
        { "rgb24",   NULL, 0, AV_OPT_TYPE_CONST, { .i64 = GLR_FORMAT_RGB8 },   0, 0, flags, "format" }, \
        { "nv12",    NULL, 0, AV_OPT_TYPE_CONST, { .i64 = GLR_FORMAT_NV12 },   0, 0, flags, "format" }, \
        { "yuv420p", NULL, 0, AV_OPT_TYPE_CONST, { .i64 = GLR_FORMAT_I420 },   0, 0, flags, "format" }, \
        { "p010le",  NULL, 0, AV_OPT_TYPE_CONST, { .i64 = GLR_FORMAT_P010 },   0, 0, flags, "format" }, \
        { "yuv444p", NULL, 0, AV_OPT_TYPE_CONST, { .i64 = GLR_FORMAT_YUV444 }, 0, 0, flags, "format" }, \
        { "yuva420p", NULL, 0, AV_OPT_TYPE_CONST, { .i64 = GLR_FORMAT_YUVA420 }, 0, 0, flags, "format" }, \
        { "yuva444p", NULL, 0, AV_OPT_TYPE_CONST, { .i64 = GLR_FORMAT_YUVA444 }, 0, 0, flags, "format" }, \
        { "yuva444p10le", NULL, 0, AV_OPT_TYPE_CONST, { .i64 = GLR_FORMAT_YUVA444P10 }, 0, 0, flags, "format" }, \
    { "alpha",      "the shader's alpha: opaque (1, as on Shadertoy), or kept as transparency, straight or premultiplied", (base) + offsetof(GLReaderOutput, alpha), AV_OPT_TYPE_INT, { .i64 = GLR_ALPHA_OPAQUE }, GLR_ALPHA_OPAQUE, GLR_ALPHA_PREMULTIPLIED, flags, "alpha" }, \
        { "opaque",        NULL, 0, AV_OPT_TYPE_CONST, { .i64 = GLR_ALPHA_OPAQUE },        0, 0, flags, "alpha" }, \
        { "straight",      NULL, 0, AV_OPT_TYPE_CONST, { .i64 = GLR_ALPHA_STRAIGHT },      0, 0, flags, "alpha" }, \
        { "premultiplied", NULL, 0, AV_OPT_TYPE_CONST, { .i64 = GLR_ALPHA_PREMULTIPLIED }, 0, 0, flags, "alpha" }, \
    { "matrix",     "YUV formats: the conversion matrix", (base) + offsetof(GLReaderOutput, matrix), AV_OPT_TYPE_INT, { .i64 = GLR_MATRIX_BT709 }, GLR_MATRIX_BT709, GLR_MATRIX_BT2020_NCL, flags, "matrix" }, \
        { "bt709",   NULL, 0, AV_OPT_TYPE_CONST, { .i64 = GLR_MATRIX_BT709 },      0, 0, flags, "matrix" }, \
        { "bt601",   NULL, 0, AV_OPT_TYPE_CONST, { .i64 = GLR_MATRIX_BT601 },      0, 0, flags, "matrix" }, \
        { "bt2020",  NULL, 0, AV_OPT_TYPE_CONST, { .i64 = GLR_MATRIX_BT2020_NCL }, 0, 0, flags, "matrix" }, \
    { "range",      "YUV formats: the range of the values", (base) + offsetof(GLReaderOutput, range), AV_OPT_TYPE_INT, { .i64 = GLR_RANGE_LIMITED }, GLR_RANGE_LIMITED, GLR_RANGE_FULL, flags, "range" }, \
        { "tv",      "limited: 16..235", 0, AV_OPT_TYPE_CONST, { .i64 = GLR_RANGE_LIMITED }, 0, 0, flags, "range" }, \
        { "pc",      "full: 0..255",     0, AV_OPT_TYPE_CONST, { .i64 = GLR_RANGE_FULL },    0, 0, flags, "range" }, \
    { "chroma_loc", "4:2:0 formats: where chroma samples sit", (base) + offsetof(GLReaderOutput, chroma_loc), AV_OPT_TYPE_INT, { .i64 = GLR_CHROMA_LEFT }, GLR_CHROMA_LEFT, GLR_CHROMA_CENTER, flags, "chroma_loc" }, \
        { "left",    "the H.264/HEVC default", 0, AV_OPT_TYPE_CONST, { .i64 = GLR_CHROMA_LEFT },   0, 0, flags, "chroma_loc" }, \
        { "center",  NULL,                     0, AV_OPT_TYPE_CONST, { .i64 = GLR_CHROMA_CENTER }, 0, 0, flags, "chroma_loc" }, \
    { "depth",      "frames in flight (ring depth)", (base) + offsetof(GLReaderOutput, depth), AV_OPT_TYPE_INT, { .i64 = 3 }, 1, 64, flags }, \
    { "require_hw", "fail rather than render on a software rasterizer", (base) + offsetof(GLReaderOutput, require_hw), AV_OPT_TYPE_BOOL, { .i64 = 0 }, 0, 1, flags }

/* The GL side of a filter, in an AVBuffer (GLReaderGL.owner) that every frame lent
 * downstream references: their memory is a mapping of the GL context, and frames may
 * outlive the filter (a muxer's queue, a graph torn down with frames in flight), so the
 * context, the ring and the scene go when the last of them does. */
typedef struct GLReaderGL {
    glr_log *log;
    int format;         /* of the frames read back (a glr_format), once negotiated */
    glr_context *gl;
    glr_scene *scene;
    glr_ring *ring;     /* frames read back asynchronously, or */
    uint8_t *pixels;    /* a frame read synchronously, bottom row first, or */
    glr_converter *converter; /* frames converted into hardware frames: nothing read back */
    AVBufferRef *hw_device;   /* the device (Vulkan, CUDA) hardware frames are offered on, once chosen */
    int hw_device_named;      /* it is the one hw_device= names (else the graph's, or GL's own) */
#if CONFIG_VULKAN
    struct glr_av_vulkan_frames vulkan; /* their pool, and its planes imported into GL */
#endif
#if CONFIG_CUDA
    struct glr_av_cuda_frames cuda; /* their pool, and the GL textures copied into them */
#endif
    struct glr_av_lender lender; /* frames lent downstream (lender.kept, atomic) */
    atomic_uintptr_t filter; /* the AVFilterContext messages go to; 0 once the filter is gone */
} GLReaderGL;

/* Sets up gl (zeroed, inside `owner`'s data) for filter ctx: glreader's messages go to
 * ctx's log, frames lent keep `owner`; `returned` (may be NULL) runs when one comes back.
 * Returns 0 or AVERROR(ENOMEM). */
int ff_glreader_gl_init(GLReaderGL *gl, AVFilterContext *ctx, AVBufferRef *owner,
                        void (*returned)(void *opaque), void *opaque);

/* Creates the headless GL context (logging the renderer), left current on this thread.
 * Returns 0 or an AVERROR, the cause logged. */
int ff_glreader_gl_open(GLReaderGL *gl, AVFilterContext *ctx, int require_hw);

/* Whether the source offers hardware frames (hw_frames=): where a device is given and the
 * graph asks for them (a consumer that takes frames in memory too gets those), always (or
 * an error), never. */
enum GLReaderHWFrames {
    GLREADER_HW_FRAMES_AUTO,
    GLREADER_HW_FRAMES_ON,
    GLREADER_HW_FRAMES_OFF,
};

/* Checks the hardware frames' options (at init, before anything is made): spec in
 * -init_hw_device's spelling for Vulkan or CUDA, and with hw_frames=on a YUV format. Returns
 * 0 or AVERROR(EINVAL), the cause logged. */
int ff_glreader_check_hw_frames(AVFilterContext *ctx, const GLReaderOutput *out, enum GLReaderHWFrames hw_frames,
                                const char *spec);

/* Chooses the device hardware frames go to (in query_formats, where the graph's device is
 * known), Vulkan (AV_PIX_FMT_VULKAN frames) or CUDA (AV_PIX_FMT_CUDA, for NVENC): the one
 * `spec` names (-init_hw_device's spelling: vulkan, vulkan:1, cuda, cuda:0), else the
 * graph's (-filter_hw_device, or the one -init_hw_device made), else with
 * GLREADER_HW_FRAMES_ON the GL context's own Vulkan device. It must be the device behind
 * the GL context.
 * Sets gl->hw_device, or leaves it NULL where none is offered: off, and auto without a
 * device or with one it cannot use (said in a line). The context must be current. Returns
 * 0 or an AVERROR, the cause logged (hw_frames=on with nothing to use, a bad spec). */
int ff_glreader_choose_hw_device(GLReaderGL *gl, AVFilterContext *ctx, const GLReaderOutput *out,
                                 enum GLReaderHWFrames hw_frames, const char *spec);

/* Prepares the frames of outlink (its size and negotiated format): hardware frames of a
 * pool made on gl->hw_device (outlink's frames context) where it negotiated them, else the
 * ring reading them back (a device offered and not taken said in a line), in the current
 * context, or with `sync` the memory glReadPixels fills (RGB formats only). Returns 0 or an
 * AVERROR, the cause logged. */
int ff_glreader_gl_create_readback(GLReaderGL *gl, const GLReaderOutput *out, AVFilterLink *outlink, int sync);

/* The pixel format of the hardware frames on gl->hw_device (set): AV_PIX_FMT_VULKAN or
 * AV_PIX_FMT_CUDA. */
enum AVPixelFormat ff_glreader_hw_pix_fmt(const GLReaderGL *gl);

/* Hardware frames: converts source's frame into a frame of the pool, tagged with outlink's
 * properties, and starts the GPU's work: *mark passes once it is written
 * (ff_glreader_hw_wait, then ff_glreader_hw_forget). The context must be current. Returns
 * 0 or an AVERROR, the cause logged. */
int ff_glreader_hw_capture(GLReaderGL *gl, AVFilterLink *outlink, const struct glr_source *source, AVFrame **frame,
                           void **mark);

/* 1 once the work behind mark (ff_glreader_hw_capture's) is done, 0 where timeout_ns
 * (UINT64_MAX: none) passed first, or an AVERROR, the cause logged. The context current. */
int ff_glreader_hw_wait(GLReaderGL *gl, void *mark, uint64_t timeout_ns);

/* Frees mark, done or not. The context current. */
void ff_glreader_hw_forget(GLReaderGL *gl, void *mark);

/* Reads the scene synchronously (glReadPixels into gl->pixels, waiting for the GL), then
 * copies it into a pooled frame of outlink, rows turned upright: the usual design, for
 * comparison. The context must be current. Returns 0 with *frame set, or an AVERROR. */
int ff_glreader_read_frame(GLReaderGL *gl, AVFilterLink *outlink, int format, AVFrame **frame);

/* Frees what ff_glreader_gl_init and ff_glreader_gl_open made (from the owner's free
 * function). */
void ff_glreader_gl_uninit(GLReaderGL *gl);

/* Messages stop once the filter is gone (frames may still be lent). */
void ff_glreader_gl_detach(GLReaderGL *gl);

/* ffmpeg makes a filter graph twice: once to learn its pads (never configured), then for
 * real. An instance that was never configured parks its GL side (*shared, whose GLReaderGL
 * is detached) at uninit, and the next instance of the same filter with the same options
 * takes it instead of opening GL, and compiling, again: one context, one renderer line.
 * Park takes *shared (NULL after); take returns the parked reference (NULL: none fits),
 * whose GLReaderGL the caller attaches to its ctx. One is kept at a time. */
void ff_glreader_park(AVFilterContext *ctx, AVBufferRef **shared);
AVBufferRef *ff_glreader_take_parked(AVFilterContext *ctx);

/* Sends gl's messages to ctx's log (ff_glreader_gl_init did, for the ctx it was made in). */
void ff_glreader_gl_attach(GLReaderGL *gl, AVFilterContext *ctx);

/* glreader's own codes (-1001 and on) as the nearest AVERROR, the message logged before
 * them naming the cause; negated errno values and FFmpeg's AVERRORs pass as they are. */
int ff_glreader_averror(int code);

/* What outlink offers the graph: the format asked for, or every one the ring makes, yuv420p
 * first (the format most encoders take, converted on the GPU: libx264 gets 4:2:0 tagged
 * BT.709, not RGB it would encode as 4:4:4), then nv12, yuv444p and p010le, then rgba and
 * bgra read back as rendered; only RGB with `rgb_only` (the synchronous readback). Where
 * gl->hw_device is set, its hardware frames come first (and alone with hw_frames=on): the graph
 * takes them where it can. YUV carries the colour the ring converts with (where the
 * release negotiates colour on links). */
int ff_glreader_set_output_formats(AVFilterLink *outlink, const GLReaderGL *gl, const GLReaderOutput *out,
                                   int rgb_only, enum GLReaderHWFrames hw_frames);

/* Logs, at verbose level, what the filter sent: frames, their format and how they were
 * made (converted on the GPU, with its colour, or read back as rendered), and how many
 * were lent without a copy. */
void ff_glreader_log_summary(AVFilterContext *ctx, GLReaderGL *gl, const GLReaderOutput *out, int64_t frames,
                             int64_t copied);

/* A frame of one of the formats ff_glreader_input_formats lists, as a channel's picture:
 * RGBA as it is, Y'CbCr planes for the GPU to convert, read with the frame's matrix, range
 * and siting (unspecified: BT.709 from 720 rows up, else BT.601; limited; left). */
struct glr_image ff_glreader_image_of(const AVFrame *frame, double time);

/* The formats an input takes (glshader's): RGBA, and the Y'CbCr formats the GPU converts
 * (yuv420p, nv12, yuv444p, p010le), so a decoded video arrives as it is; RGBA alone with
 * `rgb_only`. */
int ff_glreader_set_input_formats(AVFilterLink *inlink, int rgb_only);

/* The leased frame as an AVFrame for outlink: lent without a copy while downstream holds
 * fewer than depth - 1 frames, else copied into a pooled frame (glreader/utils/libav.h), so
 * the ring always has a slot to render into. RGB rows stay in GL's order (the frame
 * starts at the top row, the last in memory, with a negative linesize); YUV frames were
 * converted top row first. *copied is raised for a copy. NULL when out of memory. */
AVFrame *ff_glreader_frame_from_lease(GLReaderGL *gl, AVFilterLink *outlink, struct glr_frame *f,
                                      int64_t *copied);

#endif /* AVFILTER_GLREADER_COMMON_H */
