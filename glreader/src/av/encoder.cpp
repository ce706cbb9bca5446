#include "av/encoder.hpp"

#include "av/audio_track.hpp"
#include "av/av_dictionary.hpp"
#include "av/av_error.hpp"
#include "enum_value.hpp"
#include "error.hpp"

#include "glreader/libav.h"

extern "C" {
#include <libavutil/imgutils.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
}

#include <algorithm>
#include <cerrno>
#include <cstring>

using glr::fail;
using glr::format;

namespace {

constexpr size_t default_chunk_size = 1 << 20;
constexpr int default_queue_depth = 2;
constexpr int max_queue_depth = 64;

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

std::string video_muxer_names()
{
    std::string out;
    void *it = nullptr;
    while (const AVOutputFormat *f = av_muxer_iterate(&it))
        if (f->video_codec != AV_CODEC_ID_NONE)
            out += (out.empty() ? "" : ", ") + std::string(f->name);
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

// The MP4 family: to an output that cannot seek, these write fragmented files.
bool is_mov_family(const AVOutputFormat *muxer)
{
    for (const char *name : {"mp4", "mov", "ipod", "ismv", "3gp", "3g2", "psp", "f4v"})
        if (std::strcmp(muxer->name, name) == 0)
            return true;
    return false;
}

// Muxers whose files are unplayable unless they can go back and rewrite (AVI's index and
// header sizes).
bool needs_seekable_output(const AVOutputFormat *muxer) { return std::strcmp(muxer->name, "avi") == 0; }

} // namespace

AVPixelFormat glr_encoder::output_pix_fmt(const AVCodec *codec, const char *asked, AVPixelFormat input)
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

const AVCodec *glr_encoder::find_codec(const char *name)
{
    if (!name)
        name = avcodec_find_encoder_by_name("libx264") ? "libx264" : "ffv1";
    const AVCodec *codec = avcodec_find_encoder_by_name(name);
    if (!codec || codec->type != AVMEDIA_TYPE_VIDEO)
        fail(-EINVAL, "glr_encoder_create: '%s' is not a video encoder in this FFmpeg build; it has: %s", name,
             video_encoder_names().c_str());
    return codec;
}

glr_format glr_encoder::preferred_format(const glr_encoder_params &p)
{
    int f = glr::enum_value(p.format);
    glr_format rgb = f == 0 ? GLR_FORMAT_RGBA8 : p.format;
    AVPixelFormat out = output_pix_fmt(find_codec(p.codec), p.pix_fmt, glr_av_pix_fmt(rgb));
    glr_format yuv = glr_av_format_of(out);
    const glr_format_info *info = glr_format_get_info(yuv);
    return info && info->yuv ? yuv : rgb;
}

glr_encoder::glr_encoder(const glr_log *log, const glr_encoder_params &p)
    : log_(log), width_(p.width), height_(p.height)
{
    if (p.width <= 0 || p.height <= 0)
        fail(-EINVAL, "glr_encoder_create: invalid size %dx%d", p.width, p.height);
    int f = glr::enum_value(p.format);
    format_ = f == 0 ? GLR_FORMAT_RGBA8 : p.format;
    if (glr_color_resolve(format_, &p.color, &color_) < 0)
        fail(-EINVAL, "%s", glr_last_error());
    input_pix_fmt_ = glr_av_pix_fmt(format_);
    if (p.fps_num < 0 || p.fps_den < 0 || (p.fps_num == 0) != (p.fps_den == 0))
        fail(-EINVAL, "glr_encoder_create: invalid frame rate %d/%d", p.fps_num, p.fps_den);
    if (!p.output || !*p.output)
        fail(-EINVAL, "glr_encoder_create: no output file given");
    if (p.queue_depth < 0 || p.queue_depth > max_queue_depth)
        fail(-EINVAL, "glr_encoder_create: queue depth %d is out of range 1..%d", p.queue_depth,
             max_queue_depth);
    queue_depth_ = static_cast<size_t>(p.queue_depth ? p.queue_depth : default_queue_depth);
    use_frame_pts_ = p.use_frame_pts != 0;

    try {
        open_codec(p);
        open_muxer(p);
        packet_ = av_packet_alloc();
        if (!packet_)
            fail(-ENOMEM, "out of memory");
    } catch (...) {
        close_output();
        throw;
    }
    thread_ = std::thread([this] { run(); });
}

void glr_encoder::open_codec(const glr_encoder_params &p)
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

    codec_ctx_ = avcodec_alloc_context3(codec_);
    if (!codec_ctx_)
        fail(-ENOMEM, "out of memory");
    AVRational fps = p.fps_num ? AVRational{p.fps_num, p.fps_den} : AVRational{30, 1};
    codec_ctx_->width = width_;
    codec_ctx_->height = height_;
    codec_ctx_->pix_fmt = out_fmt;
    codec_ctx_->time_base = av_inv_q(fps);
    codec_ctx_->framerate = fps;
    codec_ctx_->thread_count = 0; // one per core, as the ffmpeg command line does
    // The stream is tagged with what its frames are: the ring's conversion when it made
    // YUV, else the colour description asked for, which the CPU conversion then follows.
    glr_format out_format = glr_av_format_of(out_fmt);
    bool out_rgb = desc->flags & AV_PIX_FMT_FLAG_RGB;
    glr_format tags_format = out_rgb ? GLR_FORMAT_RGBA8 : out_format ? out_format : GLR_FORMAT_I420;
    if (glr_color_resolve(tags_format, &p.color, &out_color_) < 0)
        fail(-EINVAL, "%s", glr_last_error());
    if (!out_rgb && desc->log2_chroma_w == 0)
        out_color_.chroma = GLR_CHROMA_AUTO;
    codec_ctx_->colorspace = static_cast<AVColorSpace>(out_color_.matrix);
    codec_ctx_->color_range = static_cast<AVColorRange>(out_color_.range);
    codec_ctx_->color_primaries = static_cast<AVColorPrimaries>(out_color_.primaries);
    codec_ctx_->color_trc = static_cast<AVColorTransferCharacteristic>(out_color_.transfer);
    codec_ctx_->chroma_sample_location = static_cast<AVChromaLocation>(out_color_.chroma);
    if (out_fmt != input_pix_fmt_) {
        sws_ = sws_alloc_context();
        if (!sws_)
            fail(-ENOMEM, "out of memory");
        av_opt_set_int(sws_, "srcw", width_, 0);
        av_opt_set_int(sws_, "srch", height_, 0);
        av_opt_set_int(sws_, "src_format", input_pix_fmt_, 0);
        av_opt_set_int(sws_, "dstw", width_, 0);
        av_opt_set_int(sws_, "dsth", height_, 0);
        av_opt_set_int(sws_, "dst_format", out_fmt, 0);
        av_opt_set_int(sws_, "sws_flags", SWS_BICUBIC, 0);
        av_opt_set_int(sws_, "threads", 0, 0); // 0: one per core, used by sws_scale_frame
        int rc = 0;
        if (rc < 0)
            fail(GLR_ERROR_CODEC, "glr_encoder_create: libswscale cannot convert %s to %s: %s",
                 av_get_pix_fmt_name(input_pix_fmt_), desc->name, glr::av_error_text(rc).c_str());
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
        rc = sws_init_context(sws_, nullptr, nullptr);
        // After init, which sets the default (BT.601) tables.
        if (rc >= 0)
            rc = sws_setColorspaceDetails(sws_, sws_getCoefficients(in_yuv ? color_.matrix : SWS_CS_DEFAULT),
                                          in_yuv ? color_.range == GLR_RANGE_FULL : 1,
                                          sws_getCoefficients(out_rgb ? SWS_CS_DEFAULT : out_color_.matrix),
                                          out_rgb ? 1 : out_color_.range == GLR_RANGE_FULL, 0, 1 << 16, 1 << 16);
    }
    pool_ = std::make_unique<glr::frame_pool>(width_, height_, out_fmt);
}

void glr_encoder::open_muxer(const glr_encoder_params &p)
{
    const AVOutputFormat *muxer = av_guess_format(p.container, p.container ? nullptr : p.output, nullptr);
    if (!muxer && p.container)
        fail(-EINVAL, "glr_encoder_create: '%s' is not a muxer in this FFmpeg build; muxers for video: %s",
             p.container, video_muxer_names().c_str());
    if (!muxer)
        fail(-EINVAL,
             "glr_encoder_create: cannot tell the container from the name '%s'; give a known "
             "extension (.mkv, .mp4, .nut, ...) or a container name",
             p.output);
    if (muxer->flags & AVFMT_GLOBALHEADER)
        codec_ctx_->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;

    glr::av_dictionary options("glr_encoder_create: cannot read codec options", p.codec_options);
    int rc = avcodec_open2(codec_ctx_, codec_, options.address());
    std::string unknown_key = options.first_key();
    if (rc < 0 && is_hardware_encoder(codec_))
        fail(glr::code_of_av_error(rc),
             "glr_encoder_create: %s is a hardware encoder and could not open its device (%s): no GPU or "
             "driver for it is reachable from this process; software encoders of %s here: %s",
             codec_->name, glr::av_error_text(rc).c_str(), avcodec_get_name(codec_->id),
             software_encoders_of(codec_->id).c_str());
    if (rc < 0)
        fail(glr::code_of_av_error(rc), "glr_encoder_create: cannot open encoder %s: %s", codec_->name,
             glr::av_error_text(rc).c_str());
    if (!unknown_key.empty())
        fail(-EINVAL, "glr_encoder_create: encoder %s has no option '%s' (ffmpeg -h encoder=%s lists them)",
             codec_->name, unknown_key.c_str(), codec_->name);

    rc = avformat_alloc_output_context2(&format_ctx_, muxer, nullptr, p.output);
    if (rc < 0)
        fail(glr::code_of_av_error(rc), "glr_encoder_create: %s", glr::av_error_text(rc).c_str());
    stream_ = avformat_new_stream(format_ctx_, nullptr);
    if (!stream_)
        fail(-ENOMEM, "out of memory");
    avcodec_parameters_from_context(stream_->codecpar, codec_ctx_);
    stream_->time_base = codec_ctx_->time_base;
    stream_->avg_frame_rate = codec_ctx_->framerate;

    glr::av_dictionary muxer_options("glr_encoder_create: cannot read format options", p.format_options);
    if (p.audio.input || p.audio.sample_rate)
        audio_ = std::make_unique<glr::audio_track>(p.audio, format_ctx_);
    output_ = std::make_unique<glr::output_io>(p.output, muxer, p.chunk_size ? p.chunk_size : default_chunk_size);
    if (output_->avio() && !output_->seekable()) {
        // A pipe or a socket: nothing can be rewritten later, so the muxer must stream.
        if (is_mov_family(muxer)) {
            av_dict_set(muxer_options.address(), "movflags", "+frag_keyframe+empty_moov+default_base_moof",
                        AV_DICT_APPEND);
            glr_log_write(log_, GLR_LOG_WARN,
                          format("%s cannot seek: writing fragmented %s (movflags +frag_keyframe+empty_moov)",
                                 output_->what().c_str(), muxer->name)
                              .c_str());
        } else if (needs_seekable_output(muxer)) {
            fail(-EINVAL,
                 "glr_encoder_create: the %s muxer cannot write to %s, which cannot seek (it rewrites its "
                 "header at the end); use matroska, nut, mpegts or mp4, which stream",
                 muxer->name, output_->what().c_str());
        }
    }
    format_ctx_->pb = output_->avio();
    if (output_->custom())
        format_ctx_->flags |= AVFMT_FLAG_CUSTOM_IO;
    rc = avformat_write_header(format_ctx_, muxer_options.address());
    if (rc < 0)
        fail(output_->write_error() ? output_->write_error() : glr::code_of_av_error(rc),
             "glr_encoder_create: %s cannot start a %s file with %s: %s", output_->what().c_str(), muxer->name,
             codec_->name, glr::av_error_text(rc).c_str());
    header_written_ = true;
    if (std::string unknown = muxer_options.first_key(); !unknown.empty())
        fail(-EINVAL, "glr_encoder_create: muxer %s has no option '%s' (ffmpeg -h muxer=%s lists them)",
             muxer->name, unknown.c_str(), muxer->name);
    output_->commit(); // only now may an existing file be replaced

    // Encoders with delay or frame threads may keep input frames after returning packets.
    lender_.keeps_frames = (codec_->capabilities & AV_CODEC_CAP_DELAY) ||
                           codec_ctx_->active_thread_type == FF_THREAD_FRAME;
}

glr_encoder::~glr_encoder()
{
    if (!finished_)
        finish();
    close_output();
}

void glr_encoder::close_output()
{
    if (output_) {
        int rc = output_->close();
        if (rc < 0)
            set_error(rc, format("writing %s failed: %s", output_->what().c_str(), glr::describe(rc)));
        std::lock_guard<std::mutex> lock(mutex_);
        counters_.bytes_written = output_->bytes_written(); // the final size, trailer included
        output_.reset();
    }
    sws_freeContext(sws_);
    sws_ = nullptr;
    av_packet_free(&packet_);
    avcodec_free_context(&codec_ctx_);
    audio_.reset();
    avformat_free_context(format_ctx_);
    format_ctx_ = nullptr;
    pool_.reset(); // after the codec: its pooled frames are all back
}

void glr_encoder::set_error(int code, const std::string &message)
{
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (error_ != 0)
            return;
        error_ = code;
        error_message_ = message;
    }
    changed_.notify_all();
    glr_log_write(log_, GLR_LOG_ERROR, message.c_str());
}

int glr_encoder::first_error() const
{
    std::lock_guard<std::mutex> lock(mutex_);
    return error_;
}

int glr_encoder::submit(glr_frame &frame)
{
    // The lease is the encoder's now, whatever happens below.
    queued_frame item{frame, 0};
    frame = glr_frame{};
    auto give_back = [&] { glr_frame_release(&item.frame); };

    const glr_color &c = item.frame.color;
    if (item.frame.width != width_ || item.frame.height != height_ || item.frame.format != format_) {
        std::string message = format(
            "glr_encoder_submit: the frame is %dx%d %s, the encoder was opened for %dx%d %s",
            item.frame.width, item.frame.height, glr_format_name(item.frame.format), width_, height_,
            glr_format_name(format_));
        give_back();
        throw glr::failure(-EINVAL, message);
    }
    if (c.matrix != color_.matrix || c.range != color_.range || c.chroma != color_.chroma ||
        c.primaries != color_.primaries || c.transfer != color_.transfer) {
        std::string message = format(
            "glr_encoder_submit: the frame's colour (matrix %d, range %d, chroma %d, primaries %d, transfer %d) "
            "is not the one the stream was tagged with (%d, %d, %d, %d, %d): give the encoder the ring's color",
            c.matrix, c.range, c.chroma, c.primaries, c.transfer, color_.matrix, color_.range, color_.chroma,
            color_.primaries, color_.transfer);
        give_back();
        throw glr::failure(-EINVAL, message);
    }
    uint64_t start = glr::now_ns();
    std::unique_lock<std::mutex> lock(mutex_);
    if (finished_ || closing_) {
        lock.unlock();
        give_back();
        fail(-EINVAL, "glr_encoder_submit: the encoder is already finished");
    }
    if (use_frame_pts_) {
        if (item.frame.pts <= last_pts_) {
            std::string message = format("glr_encoder_submit: pts %lld does not increase (the last was %lld)",
                                         static_cast<long long>(item.frame.pts),
                                         static_cast<long long>(last_pts_));
            lock.unlock();
            give_back();
            throw glr::failure(-EINVAL, message);
        }
        item.pts = last_pts_ = item.frame.pts;
    } else {
        item.pts = next_pts_++;
    }
    // Back-pressure: wait while the queue is full, never drop.
    changed_.wait(lock, [&] { return queue_.size() < queue_depth_ || error_ != 0; });
    if (error_ != 0) {
        int code = error_;
        std::string message = error_message_;
        lock.unlock();
        give_back();
        return sticky(code, message);
    }
    queue_.push_back(item);
    counters_.frames_submitted++;
    submit_wait_.record_ns(glr::now_ns() - start);
    lock.unlock();
    changed_.notify_all();
    return 0;
}

void glr_encoder::submit_audio(const float *samples, int frames, int64_t pts)
{
    if (!audio_)
        glr::fail(-EINVAL, "glr_encoder_submit_audio: this encoder has no audio track (audio.sample_rate)");
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (error_ != 0)
            throw glr::failure(error_, error_message_);
    }
    audio_->submit(samples, frames, pts);
}

AVFrame *glr_encoder::prepare(queued_frame &item)
{
    AVFrame *out;
    if (sws_) {
        out = pool_->get();
        AVFrame *view = av_frame_alloc();
        if (!view) {
            av_frame_free(&out);
            fail(-ENOMEM, "out of memory");
        }
        glr_av_frame_view(view, &item.frame);
        uint64_t start = glr::now_ns();
        int rc = sws_scale_frame(sws_, out, view);
        av_frame_free(&view);
        glr_frame_release(&item.frame); // converted: the slot is free again
        if (rc < 0) {
            av_frame_free(&out);
            fail(GLR_ERROR_CODEC, "converting a frame with libswscale failed: %s", glr::av_error_text(rc).c_str());
        }
        std::lock_guard<std::mutex> lock(mutex_);
        convert_.record_ns(glr::now_ns() - start);
        counters_.converted_frames++;
    } else {
        // Lent to libavcodec without a copy, or copied when it holds too many leases.
        int lent = 0;
        out = glr_av_frame_from_lease(
            &item.frame, &lender_, [](void *pool) { return static_cast<glr::frame_pool *>(pool)->get(); },
            pool_.get(), &lent);
        if (!out)
            fail(-ENOMEM, "out of memory");
        uint64_t held = static_cast<uint64_t>(__atomic_load_n(&lender_.kept, __ATOMIC_ACQUIRE));
        std::lock_guard<std::mutex> lock(mutex_);
        (lent ? counters_.zero_copy_frames : counters_.copied_frames)++;
        counters_.max_frames_held = std::max(counters_.max_frames_held, held);
    }
    glr_av_set_color(out, &out_color_);
    out->pts = item.pts;
    return out;
}

void glr_encoder::encode(const AVFrame *frame)
{
    uint64_t start = glr::now_ns(), writing = 0;
    bool injected = false;
#ifdef GLREADER_TEST_SEAMS
    int64_t fail_after = fail_after_.load();
    if (frame && fail_after >= 0) {
        std::lock_guard<std::mutex> lock(mutex_);
        injected = static_cast<int64_t>(counters_.frames_encoded) >= fail_after;
    }
#endif
    int rc = injected ? AVERROR_EXTERNAL : avcodec_send_frame(codec_ctx_, frame);
    if (rc < 0)
        fail(glr::code_of_av_error(rc), "encoder %s failed: %s", codec_->name, glr::av_error_text(rc).c_str());
    for (;;) {
        rc = avcodec_receive_packet(codec_ctx_, packet_);
        if (rc == AVERROR(EAGAIN) || rc == AVERROR_EOF)
            break;
        if (rc < 0)
            fail(glr::code_of_av_error(rc), "encoder %s failed: %s", codec_->name, glr::av_error_text(rc).c_str());
        av_packet_rescale_ts(packet_, codec_ctx_->time_base, stream_->time_base);
        packet_->stream_index = stream_->index;
        writing += write_packet(packet_);
    }
    std::lock_guard<std::mutex> lock(mutex_);
    encode_.record_ns(glr::now_ns() - start - writing);
    if (frame)
        counters_.frames_encoded++;
}

uint64_t glr_encoder::write_packet(AVPacket *packet)
{
    uint64_t start = glr::now_ns();
    int rc = av_interleaved_write_frame(format_ctx_, packet); // takes the packet's reference
    uint64_t write_ns = glr::now_ns() - start;
    if (rc < 0 || output_->write_error()) {
        int code = output_->write_error() ? output_->write_error() : glr::code_of_av_error(rc);
        fail(code, "writing %s failed: %s", output_->what().c_str(), glr::describe(code));
    }
    std::lock_guard<std::mutex> lock(mutex_);
    write_.record_ns(write_ns);
    counters_.packets_written++;
    counters_.bytes_written = output_->bytes_written();
    return write_ns;
}

double glr_encoder::seconds_at(int64_t pts) const
{
    return static_cast<double>(pts) * codec_ctx_->time_base.num / codec_ctx_->time_base.den;
}

void glr_encoder::pump_audio(double seconds, bool last)
{
    if (!audio_)
        return;
    auto write = [&](AVPacket *packet) { write_packet(packet); };
    if (last)
        audio_->finish(seconds, write);
    else
        audio_->pump(seconds, write);
    std::lock_guard<std::mutex> lock(mutex_);
    counters_.audio_samples_encoded = static_cast<uint64_t>(audio_->samples_encoded());
}

void glr_encoder::run()
{
    for (;;) {
        queued_frame item;
        {
            std::unique_lock<std::mutex> lock(mutex_);
            changed_.wait(lock, [&] { return closing_ || !queue_.empty(); });
            if (queue_.empty())
                break;
            item = queue_.front();
            queue_.pop_front();
        }
        changed_.notify_all();
        if (first_error() != 0) {
            glr_frame_release(&item.frame); // after an error: drain, never leak
            continue;
        }
        try {
            AVFrame *frame = prepare(item);
            try {
                encode(frame);
            } catch (...) {
                av_frame_free(&frame);
                throw;
            }
            av_frame_free(&frame);
            video_end_pts_ = item.pts + 1;
            pump_audio(seconds_at(video_end_pts_), false); // the sound under this frame
        } catch (const glr::failure &e) {
            if (item.frame.ring_) // prepare failed before passing the lease on
                glr_frame_release(&item.frame);
            set_error(e.code(), e.what());
        }
    }
    // End of stream: flush what the encoder holds (unless it failed), then finalize the
    // file in every case, so what was written stays playable.
    try {
        if (first_error() == 0) {
            encode(nullptr);
            pump_audio(seconds_at(video_end_pts_), true); // to the video's end, and the flush
        }
    } catch (const glr::failure &e) {
        set_error(e.code(), e.what());
    }
    if (header_written_) {
        int rc = av_write_trailer(format_ctx_);
        if (rc < 0 || output_->write_error()) {
            int code = output_->write_error() ? output_->write_error() : glr::code_of_av_error(rc);
            set_error(code, format("finishing %s failed: %s", output_->what().c_str(), glr::describe(code)));
        }
    }
}

int glr_encoder::finish()
{
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (finished_)
            return sticky(error_, error_message_);
        closing_ = true;
    }
    changed_.notify_all();
    if (thread_.joinable())
        thread_.join();
    close_output();
    std::lock_guard<std::mutex> lock(mutex_);
    finished_ = true;
    return sticky(error_, error_message_);
}

int glr_encoder::sticky(int code, const std::string &message)
{
    // Logged on the thread where it happened; the caller's thread gets it as its last error.
    if (code != 0)
        glr_report_error(nullptr, code, message.c_str(), 0);
    return code;
}

glr_encoder_stats glr_encoder::stats() const
{
    std::lock_guard<std::mutex> lock(mutex_);
    glr_encoder_stats out = counters_;
    out.submit_wait = submit_wait_.summary();
    out.convert = convert_.summary();
    out.encode = encode_.summary();
    out.write = write_.summary();
    return out;
}
