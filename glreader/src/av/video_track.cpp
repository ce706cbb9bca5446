#include "av/video_track.hpp"

#include "av/av_dictionary.hpp"
#include "av/av_error.hpp"
#include "enum_value.hpp"
#include "error.hpp"
#include "latency.hpp"

extern "C" {
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
}

#include <cerrno>
#include <cstring>

namespace glr {

namespace {

// The pixel formats an encoder takes (NULL: any), across the API change of FFmpeg 7.1.
const AVPixelFormat *supported_pix_fmts(const AVCodec *codec)
{
#if LIBAVCODEC_VERSION_INT >= AV_VERSION_INT(61, 13, 100)
    const void *list = nullptr;
    int count = 0;
    if (avcodec_get_supported_config(nullptr, codec, AV_CODEC_CONFIG_PIX_FORMAT, 0, &list, &count) < 0)
        return nullptr;
    return static_cast<const AVPixelFormat *>(list);
#else
    return codec->pix_fmts;
#endif
}

std::string pix_fmt_list(const AVPixelFormat *fmts)
{
    std::string out;
    for (; fmts && *fmts != AV_PIX_FMT_NONE; fmts++)
        out += (out.empty() ? "" : ", ") + std::string(av_get_pix_fmt_name(*fmts));
    return out;
}

bool contains(const AVPixelFormat *fmts, AVPixelFormat f)
{
    for (; fmts && *fmts != AV_PIX_FMT_NONE; fmts++)
        if (*fmts == f)
            return true;
    return false;
}

std::string video_encoder_names()
{
    std::string out;
    void *it = nullptr;
    while (const AVCodec *c = av_codec_iterate(&it))
        if (av_codec_is_encoder(c) && c->type == AVMEDIA_TYPE_VIDEO)
            out += (out.empty() ? "" : ", ") + std::string(c->name);
    return out;
}

// Whether an encoder runs on some device rather than the CPU: flagged so, configured
// for hardware frames, or one of the device wrappers that say neither.
bool is_hardware_encoder(const AVCodec *c)
{
    if ((c->capabilities & (AV_CODEC_CAP_HARDWARE | AV_CODEC_CAP_HYBRID)) || avcodec_get_hw_config(c, 0))
        return true;
    for (const char *device : {"_omx", "_v4l2m2m", "_mediacodec", "_mf", "_amf", "_videotoolbox"})
        if (std::strstr(c->name, device))
            return true;
    return false;
}

// Encoders of a codec that run on the CPU, for messages about hardware ones.
std::string software_encoders_of(AVCodecID id)
{
    std::string out;
    void *it = nullptr;
    while (const AVCodec *c = av_codec_iterate(&it))
        if (av_codec_is_encoder(c) && c->id == id && !is_hardware_encoder(c))
            out += (out.empty() ? "" : ", ") + std::string(c->name);
    return out.empty() ? "none" : out;
}

// Encoders such as hevc_vaapi take frames in GPU memory only (hw_frames_ctx).
bool takes_only_hardware_frames(const AVCodec *codec)
{
    const AVPixelFormat *fmts = supported_pix_fmts(codec);
    if (!fmts || *fmts == AV_PIX_FMT_NONE)
        return false;
    for (; *fmts != AV_PIX_FMT_NONE; fmts++)
        if (!(av_pix_fmt_desc_get(*fmts)->flags & AV_PIX_FMT_FLAG_HWACCEL))
            return false;
    return true;
}

const AVCodec *find_codec(const char *name)
{
    if (!name)
        name = avcodec_find_encoder_by_name("libx264") ? "libx264" : "ffv1";
    const AVCodec *codec = avcodec_find_encoder_by_name(name);
    if (!codec || codec->type != AVMEDIA_TYPE_VIDEO)
        fail(-EINVAL, "glr_encoder_create: '%s' is not a video encoder in this FFmpeg build; it has: %s", name,
             video_encoder_names().c_str());
    return codec;
}

// What the encoder encodes: the pixel format asked for, else the frames' own where the
// codec takes it, else yuv420p, else the codec's closest.
AVPixelFormat output_pix_fmt(const AVCodec *codec, const char *asked, AVPixelFormat input)
{
    const AVPixelFormat *fmts = supported_pix_fmts(codec);
    if (asked) {
        AVPixelFormat out = av_get_pix_fmt(asked);
        if (out == AV_PIX_FMT_NONE)
            fail(-EINVAL, "glr_encoder_create: unknown pixel format '%s'", asked);
        if (fmts && !contains(fmts, out))
            fail(-EINVAL, "glr_encoder_create: %s cannot encode %s; it takes: %s", codec->name, asked,
                 pix_fmt_list(fmts).c_str());
        return out;
    }
    if (!fmts || contains(fmts, input))
        return input;
    if (contains(fmts, AV_PIX_FMT_YUV420P))
        return AV_PIX_FMT_YUV420P;
    return avcodec_find_best_pix_fmt_of_list(fmts, input, 0, nullptr);
}

glr_format frame_format(const glr_encoder_params &p)
{
    int f = enum_value(p.format);
    return f == 0 ? GLR_FORMAT_RGBA8 : p.format;
}

} // namespace

glr_format video_track::preferred_format(const glr_encoder_params &p)
{
    glr_format rgb = frame_format(p);
    AVPixelFormat out = output_pix_fmt(find_codec(p.codec), p.pix_fmt, glr_av_pix_fmt(rgb));
    glr_format yuv = glr_av_format_of(out);
    const glr_format_info *info = glr_format_get_info(yuv);
    return info && info->yuv ? yuv : rgb;
}

video_track::video_track(const glr_encoder_params &p, output &out)
    : format_(frame_format(p)), input_pix_fmt_(glr_av_pix_fmt(format_)), width_(p.width), height_(p.height)
{
    if (glr_color_resolve(format_, &p.color, &color_) < 0)
        fail(-EINVAL, "%s", glr_last_error());
    try {
        open_codec(p, out.muxer());
        stream_ = avformat_new_stream(out.context(), nullptr);
        packet_ = av_packet_alloc();
        if (!stream_ || !packet_)
            fail(-ENOMEM, "out of memory");
        avcodec_parameters_from_context(stream_->codecpar, context_);
        stream_->time_base = context_->time_base;
        stream_->avg_frame_rate = context_->framerate;
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
}

void video_track::open_codec(const glr_encoder_params &p, const AVOutputFormat *muxer)
{
    codec_ = find_codec(p.codec);
    if (takes_only_hardware_frames(codec_))
        fail(-ENOSYS,
             "glr_encoder_create: %s takes only hardware frames (%s), which glreader-av does not upload; "
             "software encoders of %s here: %s",
             codec_->name, pix_fmt_list(supported_pix_fmts(codec_)).c_str(), avcodec_get_name(codec_->id),
             software_encoders_of(codec_->id).c_str());
    AVPixelFormat out_fmt = output_pix_fmt(codec_, p.pix_fmt, input_pix_fmt_);
    const AVPixFmtDescriptor *desc = av_pix_fmt_desc_get(out_fmt);
    int step_w = 1 << desc->log2_chroma_w, step_h = 1 << desc->log2_chroma_h;
    if (width_ % step_w || height_ % step_h)
        fail(-EINVAL,
             "glr_encoder_create: %dx%d cannot be encoded as %s, whose chroma planes need a width "
             "that is a multiple of %d and a height that is a multiple of %d",
             width_, height_, desc->name, step_w, step_h);

    context_ = avcodec_alloc_context3(codec_);
    if (!context_)
        fail(-ENOMEM, "out of memory");
    AVRational fps = p.fps_num ? AVRational{p.fps_num, p.fps_den} : AVRational{30, 1};
    context_->width = width_;
    context_->height = height_;
    context_->pix_fmt = out_fmt;
    context_->time_base = av_inv_q(fps);
    context_->framerate = fps;
    context_->thread_count = 0; // one per core, as the ffmpeg command line does
    // The stream is tagged with what its frames are: the ring's conversion when it made
    // YUV, else the colour description asked for, which the CPU conversion then follows.
    glr_format out_format = glr_av_format_of(out_fmt);
    bool out_rgb = desc->flags & AV_PIX_FMT_FLAG_RGB;
    glr_format tags_format = out_rgb ? GLR_FORMAT_RGBA8 : out_format ? out_format : GLR_FORMAT_I420;
    if (glr_color_resolve(tags_format, &p.color, &out_color_) < 0)
        fail(-EINVAL, "%s", glr_last_error());
    if (!out_rgb && desc->log2_chroma_w == 0)
        out_color_.chroma = GLR_CHROMA_AUTO;
    context_->colorspace = static_cast<AVColorSpace>(out_color_.matrix);
    context_->color_range = static_cast<AVColorRange>(out_color_.range);
    context_->color_primaries = static_cast<AVColorPrimaries>(out_color_.primaries);
    context_->color_trc = static_cast<AVColorTransferCharacteristic>(out_color_.transfer);
    context_->chroma_sample_location = static_cast<AVChromaLocation>(out_color_.chroma);
    if (out_fmt != input_pix_fmt_)
        open_scaler(out_fmt);
    pool_ = std::make_unique<frame_pool>(width_, height_, out_fmt);

    if (muxer->flags & AVFMT_GLOBALHEADER)
        context_->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    av_dictionary options("glr_encoder_create: cannot read codec options", p.codec_options);
    int rc = avcodec_open2(context_, codec_, options.address());
    if (rc < 0 && is_hardware_encoder(codec_))
        fail(code_of_av_error(rc),
             "glr_encoder_create: %s is a hardware encoder and could not open its device (%s): no GPU or "
             "driver for it is reachable from this process; software encoders of %s here: %s",
             codec_->name, av_error_text(rc).c_str(), avcodec_get_name(codec_->id),
             software_encoders_of(codec_->id).c_str());
    if (rc < 0)
        fail(code_of_av_error(rc), "glr_encoder_create: cannot open encoder %s: %s", codec_->name,
             av_error_text(rc).c_str());
    if (std::string unknown = options.first_key(); !unknown.empty())
        fail(-EINVAL, "glr_encoder_create: encoder %s has no option '%s' (ffmpeg -h encoder=%s lists them)",
             codec_->name, unknown.c_str(), codec_->name);
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
        out.frame = pool_->get();
        AVFrame *view = av_frame_alloc();
        if (!view) {
            av_frame_free(&out.frame);
            glr_frame_release(&lease);
            fail(-ENOMEM, "out of memory");
        }
        glr_av_frame_view(view, &lease);
        uint64_t start = now_ns();
        int rc = sws_scale_frame(sws_, out.frame, view);
        av_frame_free(&view);
        glr_frame_release(&lease); // converted: the slot is free again
        if (rc < 0) {
            av_frame_free(&out.frame);
            fail(GLR_ERROR_CODEC, "converting a frame with libswscale failed: %s", av_error_text(rc).c_str());
        }
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
