#include "av/video_track.hpp"

#include "av/av_dictionary.hpp"
#include "av/av_error.hpp"
#include "av/codec_choice.hpp"
#include "av/ffmpeg_log_hold.hpp"
#include "enum_value.hpp"
#include "error.hpp"
#include "latency.hpp"

extern "C" {
#include <libavutil/hwcontext.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
}

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

namespace glr {

namespace {

// The colour of the encoded frames and the stream: the ring's conversion when it made YUV,
// else the colour description asked for, which the CPU conversion then follows.
glr_color output_color(const glr_encoder_params &p, AVPixelFormat out_fmt)
{
    if (out_fmt == hardware_format(p)) // hardware frames: their memory's format says it
        out_fmt = glr_av_pix_fmt(frames_format(p));
    const AVPixFmtDescriptor *desc = av_pix_fmt_desc_get(out_fmt);
    glr_format out_format = glr_av_format_of(out_fmt);
    bool out_rgb = desc->flags & AV_PIX_FMT_FLAG_RGB;
    glr_format tags_format = out_rgb ? GLR_FORMAT_RGBA8 : out_format ? out_format : GLR_FORMAT_I420;
    glr_color color{};
    if (glr_color_resolve(tags_format, &p.color, &color) < 0)
        fail(-EINVAL, "%s", glr_last_error());
    if (!out_rgb && desc->log2_chroma_w == 0)
        color.chroma = GLR_CHROMA_AUTO;
    return color;
}

// x265 prints on its own, not through av_log: the x265-params that make it as talkative as
// av_log's level, and a trial (whose warnings the real open repeats) no more than its errors.
// After the caller's own x265-params, so that x265 keeps this log-level.
std::string x265_log_params(const char *callers, bool trial)
{
    int level = trial ? std::min(av_log_get_level(), AV_LOG_ERROR) : av_log_get_level();
    const char *x265 = level < AV_LOG_ERROR     ? "none"
                       : level < AV_LOG_WARNING ? "error"
                       : level < AV_LOG_INFO    ? "warning"
                       : level < AV_LOG_DEBUG   ? "info"
                                                : "debug";
    return callers ? format("%s:log-level=%s", callers, x265) : format("log-level=%s", x265);
}

// Allocates and opens the plan's video encoder for the params' frames, tagged `color`.
// Throws with words; nothing is left allocated then. trial: only to check the settings
// (the encoder is opened again for real), so x265 keeps its warnings to itself.
AVCodecContext *open_video_encoder(const glr_encoder_params &p, const encoder_plan &plan, const glr_color &color,
                                   bool trial)
{
    const AVCodec *codec = plan.video;
    const AVPixFmtDescriptor *desc = av_pix_fmt_desc_get(plan.pix_fmt);
    int step_w = 1 << desc->log2_chroma_w, step_h = 1 << desc->log2_chroma_h;
    if (p.width % step_w || p.height % step_h)
        fail(-EINVAL,
             "glr_encoder_create: %dx%d cannot be encoded as %s, whose chroma planes need a width "
             "that is a multiple of %d and a height that is a multiple of %d",
             p.width, p.height, desc->name, step_w, step_h);

    AVCodecContext *context = avcodec_alloc_context3(codec);
    if (!context)
        fail(-ENOMEM, "out of memory");
    AVRational fps = p.fps_num ? AVRational{p.fps_num, p.fps_den} : AVRational{30, 1};
    context->width = p.width;
    context->height = p.height;
    context->pix_fmt = plan.pix_fmt;
    context->time_base = av_inv_q(fps);
    context->framerate = fps;
    context->thread_count = 0; // one per core, as the ffmpeg command line does
    context->colorspace = static_cast<AVColorSpace>(color.matrix);
    context->color_range = static_cast<AVColorRange>(color.range);
    context->color_primaries = static_cast<AVColorPrimaries>(color.primaries);
    context->color_trc = static_cast<AVColorTransferCharacteristic>(color.transfer);
    context->chroma_sample_location = static_cast<AVChromaLocation>(color.chroma);
    if (plan.pix_fmt == hardware_format(p))
        context->hw_frames_ctx = av_buffer_ref(p.hw_frames); // freed with the context
    if (plan.muxer->flags & AVFMT_GLOBALHEADER)
        context->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    // A trial's lines are held where FFmpeg's log is routed; where FFmpeg prints them itself,
    // each one level less severe: its info lines (x264's settings) then fall under FFmpeg's
    // default level, and the real open says them once.
    if (trial && !ffmpeg_log_hold::holds())
        context->log_level_offset = AV_LOG_VERBOSE - AV_LOG_INFO;
    av_dictionary options("glr_encoder_create: cannot read codec options", p.codec_options);
    // libx265's wrapper before FFmpeg 8 leaves x265 printing to stderr at its own level,
    // whatever av_log's is: give it av_log's (unless the caller tuned x265 himself); a
    // trial, on every FFmpeg, its errors only.
    bool own_level = LIBAVCODEC_VERSION_MAJOR < 62;
    if (std::strcmp(codec->name, "libx265") == 0 && (trial || own_level)) {
        const AVDictionaryEntry *callers = av_dict_get(*options.address(), "x265-params", nullptr, 0);
        if (trial || !callers)
            av_dict_set(options.address(), "x265-params",
                        x265_log_params(callers ? callers->value : nullptr, trial).c_str(), 0);
    }
    int rc = avcodec_open2(context, codec, options.address());
    std::string unknown = options.first_key();
    if (rc < 0 || !unknown.empty())
        avcodec_free_context(&context);
    if (rc < 0 && is_hardware_encoder(codec))
        fail(code_of_av_error(rc),
             "glr_encoder_create: %s is a hardware encoder and could not open its device (%s): no GPU or "
             "driver for it is reachable from this process; software encoders of %s here: %s",
             codec->name, av_error_text(rc).c_str(), avcodec_get_name(codec->id),
             software_encoders_of(codec->id).c_str());
    if (rc < 0)
        fail(code_of_av_error(rc),
             "glr_encoder_create: encoder %s refuses these settings (%s); its own words say which (FFmpeg's "
             "log at error level)",
             codec->name, av_error_text(rc).c_str());
    if (!unknown.empty())
        fail(-EINVAL, "glr_encoder_create: encoder %s has no option '%s' (ffmpeg -h encoder=%s lists them)",
             codec->name, unknown.c_str(), codec->name);
    return context;
}

} // namespace

color_tags video_track::trial_open(const glr_encoder_params &params, const encoder_plan &plan)
{
    // What the encoder says on opening (libvpx's default CRF...), the real open says again;
    // unless it refused, when its words say why.
    ffmpeg_log_hold hold;
    AVCodecContext *context;
    try {
        context = open_video_encoder(params, plan, output_color(params, plan.pix_fmt), true);
    } catch (...) {
        hold.forward();
        throw;
    }
    color_tags tagged{context->color_range, context->color_primaries, context->color_trc, context->colorspace,
                      context->chroma_sample_location};
    avcodec_free_context(&context);
    return tagged;
}

video_track::video_track(const glr_encoder_params &p, const encoder_plan &plan, output &out)
    : format_(frames_format(p)), input_pix_fmt_(glr_av_pix_fmt(format_)), width_(p.width), height_(p.height),
      codec_(plan.video), hardware_(plan.pix_fmt == hardware_format(p))
{
    if (glr_color_resolve(format_, &p.color, &color_) < 0)
        fail(-EINVAL, "%s", glr_last_error());
    try {
        out_color_ = output_color(p, plan.pix_fmt);
        if (!hardware_) {
            if (plan.pix_fmt != input_pix_fmt_)
                open_scaler(plan.pix_fmt);
            pool_ = std::make_unique<frame_pool>(width_, height_, plan.pix_fmt);
            if (p.hw_frames && sws_)
                transfer_pool_ = std::make_unique<frame_pool>(width_, height_, input_pix_fmt_);
        }
        context_ = open_video_encoder(p, plan, out_color_, false);
        stream_ = avformat_new_stream(out.context(), nullptr);
        packet_ = av_packet_alloc();
        if (!stream_ || !packet_)
            fail(-ENOMEM, "out of memory");
        avcodec_parameters_from_context(stream_->codecpar, context_);
        stream_->time_base = context_->time_base;
        stream_->avg_frame_rate = context_->framerate;
        // Matroska and WebM say a stream has alpha (its AlphaMode); other muxers ignore it.
        if (p.alpha && has_alpha(plan.pix_fmt) && av_dict_set(&stream_->metadata, "alpha_mode", "1", 0) < 0)
            fail(-ENOMEM, "out of memory");
    } catch (...) {
        release();
        throw;
    }
    // Encoders with delay or frame threads may keep input frames after returning packets.
    lender_.keeps_frames = (codec_->capabilities & AV_CODEC_CAP_DELAY) || context_->active_thread_type == FF_THREAD_FRAME;
}

video_track::~video_track() { release(); }

void video_track::release()
{
    sws_freeContext(sws_);
    sws_ = nullptr;
    av_packet_free(&packet_);
    avcodec_free_context(&context_);
    pool_.reset(); // after the codec: its pooled frames are all back
    transfer_pool_.reset();
}

void video_track::open_scaler(AVPixelFormat to)
{
    sws_ = sws_alloc_context();
    if (!sws_)
        fail(-ENOMEM, "out of memory");
    av_opt_set_int(sws_, "srcw", width_, 0);
    av_opt_set_int(sws_, "srch", height_, 0);
    av_opt_set_int(sws_, "src_format", input_pix_fmt_, 0);
    av_opt_set_int(sws_, "dstw", width_, 0);
    av_opt_set_int(sws_, "dsth", height_, 0);
    av_opt_set_int(sws_, "dst_format", to, 0);
    av_opt_set_int(sws_, "sws_flags", SWS_BICUBIC, 0);
    av_opt_set_int(sws_, "threads", 0, 0); // 0: one per core, used by sws_scale_frame
    // Chroma siting in 1/256 of a luma sample: left is co-sited across, between rows
    // down. Stated for both sides, so that a repack (nv12 -> yuv420p) moves no sample.
    auto set_siting = [&](const char *h, const char *v, glr_chroma_siting siting) {
        if (siting != GLR_CHROMA_AUTO) {
            av_opt_set_int(sws_, h, siting == GLR_CHROMA_LEFT ? 0 : 128, 0);
            av_opt_set_int(sws_, v, 128, 0);
        }
    };
    set_siting("src_h_chr_pos", "src_v_chr_pos", color_.chroma);
    set_siting("dst_h_chr_pos", "dst_v_chr_pos", out_color_.chroma);
    bool in_yuv = color_.matrix != GLR_MATRIX_AUTO;
    bool out_rgb = av_pix_fmt_desc_get(to)->flags & AV_PIX_FMT_FLAG_RGB;
    int rc = sws_init_context(sws_, nullptr, nullptr);
    // After init, which sets the default (BT.601) tables.
    if (rc >= 0)
        rc = sws_setColorspaceDetails(sws_, sws_getCoefficients(in_yuv ? color_.matrix : SWS_CS_DEFAULT),
                                      in_yuv ? color_.range == GLR_RANGE_FULL : 1,
                                      sws_getCoefficients(out_rgb ? SWS_CS_DEFAULT : out_color_.matrix),
                                      out_rgb ? 1 : out_color_.range == GLR_RANGE_FULL, 0, 1 << 16, 1 << 16);
    if (rc < 0)
        fail(GLR_ERROR_CODEC, "glr_encoder_create: libswscale cannot convert %s to %s: %s",
             av_get_pix_fmt_name(input_pix_fmt_), av_get_pix_fmt_name(to), av_error_text(rc).c_str());
}

video_track::prepared video_track::prepare(glr_frame &lease, int64_t pts)
{
    prepared out{nullptr, route::lent, 0, 0};
    if (sws_) {
        out.how = route::converted;
        AVFrame *view = av_frame_alloc();
        if (!view) {
            glr_frame_release(&lease);
            fail(-ENOMEM, "out of memory");
        }
        glr_av_frame_view(view, &lease);
        uint64_t start = now_ns();
        try {
            out.frame = scale(view);
        } catch (...) {
            av_frame_free(&view);
            glr_frame_release(&lease);
            throw;
        }
        av_frame_free(&view);
        glr_frame_release(&lease); // converted: the slot is free again
        out.convert_ns = now_ns() - start;
    } else {
        // Lent to libavcodec without a copy, or copied when it holds too many leases.
        int lent = 0;
        out.frame = glr_av_frame_from_lease(
            &lease, &lender_, [](void *pool) { return static_cast<frame_pool *>(pool)->get(); }, pool_.get(), &lent);
        if (!out.frame)
            fail(-ENOMEM, "out of memory");
        out.how = lent ? route::lent : route::copied;
    }
    out.held = __atomic_load_n(&lender_.kept, __ATOMIC_ACQUIRE);
    glr_av_set_color(out.frame, &out_color_);
    out.frame->pts = pts;
    return out;
}

video_track::prepared video_track::prepare(AVFrame *&hw, int64_t pts)
{
    AVFrame *in = hw;
    hw = nullptr;
    prepared out{in, route::hardware, 0, 0};
    if (!hardware_) {
        // An encoder on the CPU: the frame copied to memory, then converted if need be.
        out.how = route::transferred;
        uint64_t start = now_ns();
        AVFrame *memory = (sws_ ? transfer_pool_ : pool_)->get();
        int rc = av_hwframe_transfer_data(memory, in, 0);
        av_frame_free(&in);
        if (rc < 0) {
            av_frame_free(&memory);
            fail(code_of_av_error(rc), "copying a hardware frame to memory failed: %s", av_error_text(rc).c_str());
        }
        if (sws_) {
            try {
                out.frame = scale(memory);
            } catch (...) {
                av_frame_free(&memory);
                throw;
            }
            av_frame_free(&memory);
        } else {
            out.frame = memory;
        }
        out.convert_ns = now_ns() - start;
    }
    glr_av_set_color(out.frame, &out_color_);
    out.frame->pts = pts;
    return out;
}

AVFrame *video_track::scale(const AVFrame *in)
{
    AVFrame *out = pool_->get();
    int rc = sws_scale_frame(sws_, out, in);
    if (rc < 0) {
        av_frame_free(&out);
        fail(GLR_ERROR_CODEC, "converting a frame with libswscale failed: %s", av_error_text(rc).c_str());
    }
    return out;
}

void video_track::encode(const AVFrame *frame, const packet_sink &write)
{
    bool injected = false;
#ifdef GLREADER_TEST_SEAMS
    int64_t fail_after = fail_after_.load();
    injected = frame && fail_after >= 0 && frames_sent_ >= fail_after;
#endif
    int rc = injected ? AVERROR_EXTERNAL : avcodec_send_frame(context_, frame);
    if (rc < 0)
        fail(code_of_av_error(rc), "encoder %s failed: %s", codec_->name, av_error_text(rc).c_str());
    if (frame)
        frames_sent_++;
    for (;;) {
        rc = avcodec_receive_packet(context_, packet_);
        if (rc == AVERROR(EAGAIN) || rc == AVERROR_EOF)
            break;
        if (rc < 0)
            fail(code_of_av_error(rc), "encoder %s failed: %s", codec_->name, av_error_text(rc).c_str());
        av_packet_rescale_ts(packet_, context_->time_base, stream_->time_base);
        packet_->stream_index = stream_->index;
        write(packet_);
    }
}

} // namespace glr
