#include "av/encoder.hpp"

#include "error.hpp"

#include "glreader/utils/libav.h"

extern "C" {
#include <libavutil/hwcontext.h>
#include <libavutil/pixdesc.h>
}

#include <algorithm>
#include <cerrno>
#include <cstdio>

using glr::fail;
using glr::format;

namespace {

constexpr int default_queue_depth = 2;
constexpr int max_queue_depth = 64;

} // namespace

glr_format glr_encoder::preferred_format(const glr_encoder_params &p)
{
    return glr::preferred_format(p, glr::plan_encoder(p, nullptr));
}

glr_encoder_plan glr_encoder::check(const glr_log *log, const glr_encoder_params &p, glr::color_tags *tags)
{
    check_params(p);
    glr::encoder_plan plan = glr::plan_encoder(p, log);
    glr::color_tags tagged = glr::check_plan(p, plan, log);
    if (tags)
        *tags = tagged;
    return glr::public_plan(p, plan);
}

void glr_encoder::check_params(const glr_encoder_params &p)
{
    if (p.width <= 0 || p.height <= 0)
        fail(-EINVAL, "glr_encoder_create: invalid size %dx%d", p.width, p.height);
    if (p.fps_num < 0 || p.fps_den < 0 || (p.fps_num == 0) != (p.fps_den == 0))
        fail(-EINVAL, "glr_encoder_create: invalid frame rate %d/%d", p.fps_num, p.fps_den);
    if (!p.output || !*p.output)
        fail(-EINVAL, "glr_encoder_create: no output file given");
    if (p.queue_depth < 0 || p.queue_depth > max_queue_depth)
        fail(-EINVAL, "glr_encoder_create: queue depth %d is out of range 1..%d", p.queue_depth,
             max_queue_depth);
    if (p.hw_frames) {
        const auto *hw = reinterpret_cast<const AVHWFramesContext *>(p.hw_frames->data);
        AVPixelFormat format = glr_av_pix_fmt(glr::frames_format(p));
        if (hw->sw_format != format || hw->width != p.width || hw->height != p.height)
            fail(-EINVAL,
                 "glr_encoder_create: the hardware frames are %dx%d %s, the params say %dx%d %s: give the frames' "
                 "size and format",
                 hw->width, hw->height, av_get_pix_fmt_name(hw->sw_format), p.width, p.height,
                 av_get_pix_fmt_name(format));
    }
    if (p.first_pts < 0 || (p.first_pts && !p.use_frame_pts))
        fail(-EINVAL, "glr_encoder_create: first_pts %lld is %s: it is the first frame's pts (0 or more) when "
                      "use_frame_pts stamps the frames",
             static_cast<long long>(p.first_pts), p.first_pts < 0 ? "negative" : "set without use_frame_pts");
}

glr_encoder::glr_encoder(const glr_log *log, const glr_encoder_params &p)
    : log_(log), output_name_(p.output ? p.output : "the output"), width_(p.width), height_(p.height),
      hw_frames_(p.hw_frames ? p.hw_frames->data : nullptr)
{
    check_params(p);
    queue_depth_ = static_cast<size_t>(p.queue_depth ? p.queue_depth : default_queue_depth);
    use_frame_pts_ = p.use_frame_pts != 0;
    first_pts_ = use_frame_pts_ ? p.first_pts : 0;

    // The output first (its muxer decides the codecs' global headers), then its streams,
    // then the header: nothing is written before every stream is there.
    glr::encoder_plan plan = glr::plan_encoder(p, log);
    plan_ = glr::public_plan(p, plan);
    output_ = std::make_unique<glr::output>(log, p.output, plan.muxer, p.format_options, p.metadata, p.chunk_size,
                                            p.output_flags, p.interrupt);
    try {
        video_ = std::make_unique<glr::video_track>(p, plan, *output_);
        if (p.audio.input || p.audio.sample_rate)
            audio_ = std::make_unique<glr::audio_track>(p.audio, plan, output_->context(), first_pts_,
                                                        p.fps_num ? AVRational{p.fps_num, p.fps_den}
                                                                  : AVRational{30, 1}); // as the video's

        output_->start(video_->codec_name());
    } catch (...) {
        close_output(false);
        throw;
    }
    thread_ = std::thread([this] { run(); });
}

glr_encoder::~glr_encoder()
{
    if (!finished_)
        finish(false); // abandoned: not known to be whole
    close_output(false);
}

void glr_encoder::close_output(bool publish)
{
    if (output_) {
        if (publish && first_error() == 0) {
            try {
                output_->publish();
            } catch (const glr::failure &e) {
                set_error(e.code(), e.what());
            }
        }
        int rc = output_->close();
        if (rc < 0)
            set_error(rc, format("writing %s failed: %s", output_->what().c_str(), glr::describe(rc)));
        std::lock_guard<std::mutex> lock(mutex_);
        counters_.bytes_written = output_->bytes_written(); // the final size, trailer included
    }
    video_.reset();
    audio_.reset();
    output_.reset(); // after the tracks: they added their streams to its context
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
    glr_log_message(log_, GLR_LOG_ERROR, message.c_str());
}

int glr_encoder::first_error() const
{
    std::lock_guard<std::mutex> lock(mutex_);
    return error_;
}

int glr_encoder::submit(glr_frame &frame)
{
    // The lease is the encoder's now, whatever happens below.
    queued_frame item{frame, 0, nullptr};
    frame = glr_frame{};
    if (item.frame.ring_)
        glr_frame_set_holder(&item.frame, describe_holder, this);
    uint64_t start = glr::now_ns();

    const glr_color &c = item.frame.color, &color = video_->color();
    std::string refusal;
    if (hw_frames_)
        refusal = "glr_encoder_submit: this encoder was opened for hardware frames (hw_frames): submit them with "
                  "glr_encoder_submit_hw";
    else if (item.frame.width != width_ || item.frame.height != height_ || item.frame.format != video_->format())
        refusal = format("glr_encoder_submit: the frame is %dx%d %s, the encoder was opened for %dx%d %s",
                         item.frame.width, item.frame.height, glr_format_name(item.frame.format), width_, height_,
                         glr_format_name(video_->format()));
    else if (c.matrix != color.matrix || c.range != color.range || c.chroma != color.chroma ||
             c.primaries != color.primaries || c.transfer != color.transfer)
        refusal = format(
            "glr_encoder_submit: the frame's colour (matrix %d, range %d, chroma %d, primaries %d, transfer %d) "
            "is not the one the stream was tagged with (%d, %d, %d, %d, %d): give the encoder the ring's color",
            c.matrix, c.range, c.chroma, c.primaries, c.transfer, color.matrix, color.range, color.chroma,
            color.primaries, color.transfer);
    if (!refusal.empty()) {
        release(item);
        throw glr::failure(-EINVAL, refusal);
    }
    return enqueue(item, item.frame.pts, start);
}

int glr_encoder::submit_hw(AVFrame *&frame)
{
    queued_frame item{glr_frame{}, 0, frame};
    frame = nullptr;
    uint64_t start = glr::now_ns();
    if (!hw_frames_ || !item.hw->hw_frames_ctx || item.hw->hw_frames_ctx->data != hw_frames_) {
        release(item);
        fail(-EINVAL, "glr_encoder_submit_hw: %s",
             hw_frames_ ? "the frame is not one of the encoder's hardware frames (params.hw_frames)"
                        : "this encoder was opened without hardware frames (params.hw_frames)");
    }
    return enqueue(item, item.hw->pts, start);
}

void glr_encoder::release(queued_frame &item)
{
    av_frame_free(&item.hw);
    if (item.frame.ring_)
        glr_frame_release(&item.frame);
}

int glr_encoder::enqueue(queued_frame &item, int64_t stamp, uint64_t start)
{
    std::unique_lock<std::mutex> lock(mutex_);
    std::string refusal;
    if (finished_ || closing_)
        refusal = "the encoder is already finished";
    else if (use_frame_pts_ && stamp < first_pts_)
        refusal = format("pts %lld is before first_pts %lld", static_cast<long long>(stamp),
                         static_cast<long long>(first_pts_));
    else if (use_frame_pts_ && stamp <= last_pts_)
        refusal = format("pts %lld does not increase (the last was %lld)", static_cast<long long>(stamp),
                         static_cast<long long>(last_pts_));
    if (!refusal.empty()) {
        lock.unlock();
        std::string call = item.hw ? "glr_encoder_submit_hw: " : "glr_encoder_submit: ";
        release(item);
        throw glr::failure(-EINVAL, call + refusal);
    }
    item.pts = use_frame_pts_ ? (last_pts_ = stamp) : next_pts_++;
    // Back-pressure: wait while the queue is full, never drop.
    changed_.wait(lock, [&] { return queue_.size() < queue_depth_ || error_ != 0; });
    if (error_ != 0) {
        int code = error_;
        std::string message = error_message_;
        lock.unlock();
        release(item);
        return sticky(code, message);
    }
    queue_.push_back(item);
    counters_.max_frames_queued = std::max(counters_.max_frames_queued, static_cast<uint64_t>(queue_.size()));
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

void glr_encoder::write_packet(AVPacket *packet)
{
    uint64_t start = glr::now_ns();
    bool video = packet->stream_index == video_->stream_index();
    write_started_ns_ = start;
    try {
        output_->write(packet); // takes the packet
    } catch (...) {
        write_started_ns_ = 0;
        output_failed_ = true;
        throw;
    }
    write_started_ns_ = 0;
    video_packets_written_ += video;
    uint64_t write_ns = glr::now_ns() - start;
    writing_ns_ += write_ns;
    std::lock_guard<std::mutex> lock(mutex_);
    write_.record_ns(write_ns);
    counters_.packets_written++;
    counters_.bytes_written = output_->bytes_written();
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
    counters_.audio_copied = audio_->copied();
}

void glr_encoder::encode_video(queued_frame &item)
{
    glr::video_track::prepared p = item.hw ? video_->prepare(item.hw, item.pts) : video_->prepare(item.frame, item.pts);
    {
        std::lock_guard<std::mutex> lock(mutex_);
        using route = glr::video_track::route;
        if (p.how == route::hardware) {
            counters_.hardware_frames++;
        } else if (p.how == route::converted || p.how == route::transferred) {
            convert_.record_ns(p.convert_ns);
            (p.how == route::converted ? counters_.converted_frames : counters_.transferred_frames)++;
        } else {
            (p.how == route::lent ? counters_.zero_copy_frames : counters_.copied_frames)++;
            counters_.max_frames_held = std::max(counters_.max_frames_held, static_cast<uint64_t>(p.held));
        }
    }
    uint64_t start = glr::now_ns();
    writing_ns_ = 0;
    encode_started_ns_ = start;
    try {
        video_->encode(p.frame, [&](AVPacket *packet) { write_packet(packet); });
    } catch (...) {
        encode_started_ns_ = 0;
        av_frame_free(&p.frame);
        throw;
    }
    encode_started_ns_ = 0;
    av_frame_free(&p.frame);
    std::lock_guard<std::mutex> lock(mutex_);
    encode_.record_ns(glr::now_ns() - start - writing_ns_);
    counters_.frames_encoded++;
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
            release(item); // after an error: drain, never leak
            continue;
        }
        try {
            encode_video(item);
            video_end_pts_ = item.pts + 1;
            pump_audio(video_->seconds_at(video_end_pts_), false); // the sound under this frame
        } catch (const glr::failure &e) {
            release(item); // prepare failed before passing the frame on
            set_error(e.code(), e.what());
        }
    }
    // End of stream: flush what the encoders hold (unless one failed), then finalize the
    // output in every case, so what was written stays playable.
    try {
        if (first_error() == 0) {
            video_->encode(nullptr, [&](AVPacket *packet) { write_packet(packet); });
            pump_audio(video_->seconds_at(video_end_pts_), true); // to the video's end, and the flush
        }
    } catch (const glr::failure &e) {
        set_error(e.code(), e.what());
    }
    bool trailer_written = true;
    try {
        output_->finish();
    } catch (const glr::failure &e) {
        trailer_written = false;
        output_failed_ = true;
        set_error(e.code(), e.what());
    }
    // A full disk, a file size limit: say what the file holds and whether it plays.
    if (output_failed_) {
        std::lock_guard<std::mutex> lock(mutex_);
        error_message_ += format("; %llu frames were muxed into %s before that, which %s",
                                 static_cast<unsigned long long>(video_packets_written_), output_->what().c_str(),
                                 output_->kept_after_failure(trailer_written).c_str());
    }
}

int glr_encoder::finish(bool complete)
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
    close_output(complete);
    std::lock_guard<std::mutex> lock(mutex_);
    finished_ = true;
    return sticky(error_, error_message_);
}

int glr_encoder::sticky(int code, const std::string &message)
{
    // Logged on the thread where it happened; the caller's thread gets it as its last error.
    if (code != 0)
        glr_priv_report_error(nullptr, code, message.c_str(), 0);
    return code;
}

void glr_encoder::describe_holder(void *opaque, char *buf, size_t size)
{
    const glr_encoder &enc = *static_cast<const glr_encoder *>(opaque);
    uint64_t now = glr::now_ns(), writing = enc.write_started_ns_, encoding = enc.encode_started_ns_;
    if (writing)
        std::snprintf(buf, size, "glr_encoder, whose thread has been writing to %s for %.1f s: the output takes no "
                      "data (a reader, disk or network that stalled)", enc.output_name_.c_str(),
                      static_cast<double>(now - writing) / 1e9);
    else if (encoding)
        std::snprintf(buf, size, "glr_encoder, whose thread has been encoding one frame for %.1f s",
                      static_cast<double>(now - encoding) / 1e9);
    else
        std::snprintf(buf, size, "glr_encoder's queue (its thread is between frames)");
}

glr_encoder_stats glr_encoder::stats() const
{
    std::lock_guard<std::mutex> lock(mutex_);
    glr_encoder_stats out = counters_;
    uint64_t writing = write_started_ns_;
    out.write_in_progress_ms = writing ? static_cast<double>(glr::now_ns() - writing) / 1e6 : 0;
    out.submit_wait = submit_wait_.summary();
    out.convert = convert_.summary();
    out.encode = encode_.summary();
    out.write = write_.summary();
    return out;
}
