#include "av/recorder.hpp"

#include "av/encoder.hpp"
#include "av/encoder_plan.hpp"
#include "av/fault_injection.h"
#include "av/hw_device_spec.hpp"
#include "ring/fence_seam.h"

#include "enum_value.hpp"
#include "error.hpp"
#include "format.hpp"

extern "C" {
#include <libavutil/pixdesc.h>
}

#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>

namespace {

using clock = std::chrono::steady_clock;

constexpr int default_ring_depth = 3, default_progress_ms = 100;

// A process's CPU time so far (user and system, in clock ticks), from /proc; -1 when
// unreadable.
long long cpu_ticks(pid_t pid)
{
    char path[64], text[1024];
    std::snprintf(path, sizeof path, "/proc/%d/stat", static_cast<int>(pid));
    FILE *f = std::fopen(path, "r");
    if (!f)
        return -1;
    size_t n = std::fread(text, 1, sizeof text - 1, f);
    std::fclose(f);
    text[n] = 0;
    // The fields after the command's closing parenthesis: state is the 3rd, utime the 14th.
    const char *rest = std::strrchr(text, ')');
    unsigned long long utime, stime;
    if (!rest || std::sscanf(rest + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &utime, &stime) != 2)
        return -1;
    return static_cast<long long>(utime + stime);
}

// An unset colour (every field 0) is the encoder's.
bool color_unset(const glr_color &c)
{
    return c.matrix == 0 && c.range == 0 && c.primaries == 0 && c.transfer == 0 && c.chroma == 0;
}

// Why frames of ep's format cannot be hardware frames, naming the formats they can be
// (those the GPU converts to: the ring's YUV formats) and the one nearest what was asked.
std::string hw_format_refusal(const glr_encoder_params &ep, const char *encoder)
{
    std::string formats;
    for (int f = GLR_FORMAT_RGBA8; glr_format_get_info(static_cast<glr_format>(f)); f++)
        if (glr_format_get_info(static_cast<glr_format>(f))->yuv)
            formats += std::string(formats.empty() ? "" : ", ") + glr_format_name(static_cast<glr_format>(f));
    const AVPixFmtDescriptor *asked = ep.pix_fmt ? av_pix_fmt_desc_get(av_get_pix_fmt(ep.pix_fmt)) : nullptr;
    if (!asked)
        return glr::format("hardware frames come in %s, which the GPU converts to, and %s encodes %s here: give it "
                           "one of those as its pix_fmt",
                           formats.c_str(), encoder, glr_format_name(ep.format));
    const bool ten_bits = asked->comp[0].depth > 8, full_chroma = asked->log2_chroma_w == 0;
    return glr::format("hardware frames come in %s, which the GPU converts to; pix_fmt %s is none of them (%s would "
                       "make it from BGRA on the CPU): ask for %s",
                       formats.c_str(), asked->name, encoder,
                       ten_bits      ? "p010le for 10 bits"
                       : full_chroma ? "yuv444p for full chroma"
                                     : "yuv420p or nv12");
}

} // namespace

glr_recorder::glr_recorder(glr_log *log, const glr_recorder_params &params) : log_(log), params_(params)
{
    glr_ring_params &rp = params_.ring;
    if (params.frame_sink && params.pipe.args)
        glr::fail(-EINVAL, "glr_recorder_create: a frame sink and a pipe sink both: give one");
    if (glr::enum_value(params.hw_frames) == GLR_HW_FRAMES_ON && (params.frame_sink || params.pipe.args))
        glr::fail(-EINVAL, "glr_recorder_create: hardware frames go to the in-process encoder only, not to a %s sink",
                  params.frame_sink ? "frame" : "pipe");
    if (params.frame_sink) {
        if (rp.width <= 0 || rp.height <= 0)
            glr::fail(-EINVAL, "glr_recorder_create: a recorder with a frame sink needs ring.width and ring.height");
        if (!rp.format)
            rp.format = GLR_FORMAT_RGBA8;
    } else {
        // The video the encoder params describe: the encoder's, or the ffmpeg child's input.
        const glr_encoder_params &ep = params.encoder;
        if (rp.width == 0 && rp.height == 0) {
            rp.width = ep.width;
            rp.height = ep.height;
        }
        if (color_unset(rp.color))
            rp.color = ep.color;
    }
    if (params.pipe.args) {
        if (!rp.format) // ffmpeg reads the ring's format as it is: NV12 is 1.5 bytes a pixel
            rp.format = GLR_FORMAT_NV12;
    } else if (!params.frame_sink) {
        glr_encoder_params ep = params.encoder;
        if (rp.width != ep.width || rp.height != ep.height)
            glr::fail(-EINVAL, "glr_recorder_create: the ring's size %dx%d is not the encoder's, %dx%d", rp.width,
                      rp.height, ep.width, ep.height);
        // The encoder's own YUV, converted on the GPU where the ring makes it; else BGRA,
        // which encoders of RGB take as it is (ffv1, rawvideo, qtrle) and libswscale converts
        // for the others. A format given needs no plan first: the encoder's own is reported
        // (the export job checked its params at its create).
        if (!rp.format) {
            ep.format = GLR_FORMAT_BGRA8;
            rp.format = glr_encoder::check(log, ep).format;
        }
        ep.format = rp.format;
        make_hw_frames(ep);
        try {
            encoder_ = new glr_encoder(log, ep);
        } catch (...) {
            glr_hw_frames_destroy(&hw_);
            glr_log_destroy(&hw_log_);
            throw;
        }
        plan_ = encoder_->plan();
    }
    plan_.format = rp.format;
    if (!rp.depth)
        rp.depth = default_ring_depth;
    if (!rp.capture_timeout_ns)
        rp.capture_timeout_ns = UINT64_MAX; // an output that stalls is waited for
    next_progress_ = clock::now() + std::chrono::milliseconds(params_.progress_interval_ms ? params_.progress_interval_ms
                                                                                         : default_progress_ms);
}

void glr_recorder::make_hw_frames(glr_encoder_params &ep)
{
    constexpr const char *call = "glr_recorder_create";
    int use = glr::enum_value(params_.hw_frames);
    if (use < GLR_HW_FRAMES_AUTO || use > GLR_HW_FRAMES_ON)
        glr::fail(-EINVAL, "%s: unknown hw_frames %d (GLR_HW_FRAMES_AUTO, _OFF or _ON)", call, use);
    if (use == GLR_HW_FRAMES_OFF)
        return;
    // Only the encoder's choice, which opens nothing (the encoder's own create opens it, and
    // says what it chose): auto asks it of every recording.
    const AVCodec *encoder = glr::choose_video_encoder(ep, nullptr);
    // The kind: the one named, else CUDA's for an encoder that takes them (NVENC), else Vulkan's.
    glr::av::hw_device_spec spec{GLR_HW_VULKAN, ""};
    if (params_.hw_device)
        spec = glr::av::parse_hw_device("hw_device", params_.hw_device);
    else if (glr::takes_hardware_frames_of(encoder, AV_PIX_FMT_CUDA))
        spec.kind = GLR_HW_CUDA;
    auto hw_format = static_cast<AVPixelFormat>(glr::av::hw_pix_fmt_of(spec.kind));
    if (use == GLR_HW_FRAMES_AUTO && !glr::takes_hardware_frames_of(encoder, hw_format)) {
        // An encoder on the CPU (or of another kind): the readback is the way in. A device
        // the caller named and nothing uses is said, once.
        if (params_.hw_device)
            glr_log_message(log_, GLR_LOG_WARN,
                            glr::format("the hardware device %s is not used: %s encodes frames in memory, which are "
                                        "read back (hardware frames, asked for with hw_frames on, would only be "
                                        "copied to memory for it)",
                                        params_.hw_device, encoder->name)
                                .c_str());
        return;
    }
    const glr_format_info *f = glr_format_get_info(ep.format);
    std::string why;
    if (!f || !f->yuv)
        why = hw_format_refusal(ep, encoder->name);
    else {
        glr_hw_frames_params hp{};
        hp.kind = spec.kind;
        hp.device = spec.device.c_str();
        hp.frame.width = ep.width;
        hp.frame.height = ep.height;
        hp.frame.format = ep.format;
        hp.frame.color = params_.ring.color;
        hp.frame.get_proc_address = params_.ring.get_proc_address;
        hp.depth = params_.ring.depth;
        // Their log is the recorder's, but for their reason not to start: ours says it once.
        glr_log_params lp{};
        lp.callback = [](void *opaque, glr_log_level level, const char *message) {
            auto *rec = static_cast<glr_recorder *>(opaque);
            if (!rec->hw_starting_)
                glr_log_message(rec->log_, level, message);
        };
        lp.opaque = this;
        lp.level = GLR_LOG_DEBUG; // the recorder's log filters
        if (!(hw_log_ = glr_log_create(&lp)))
            throw std::bad_alloc();
        hw_starting_ = true;
        hw_ = glr_hw_frames_create(hw_log_, &hp);
        hw_starting_ = false;
        if (!hw_) {
            why = glr_last_error();
            glr_log_destroy(&hw_log_);
        }
    }
    if (!why.empty()) {
        if (use == GLR_HW_FRAMES_ON)
            glr::fail(GLR_ERROR_UNSUPPORTED, "%s: hardware frames cannot start: %s", call, why.c_str());
        glr_log_message(log_, GLR_LOG_INFO,
                        glr::format("%s hardware frames for %s cannot start (%s): frames are read back",
                                    glr::av::hw_kind_name(spec.kind), encoder->name, why.c_str())
                            .c_str());
        return;
    }
    ep.hw_frames = glr_hw_frames_context(hw_);
    gl_thread_ = std::this_thread::get_id();
}

int glr_recorder::start_child()
{
    if (!params_.pipe.args)
        return 0;
    const glr_ring_params &rp = params_.ring;
    glr_ffmpeg_child_params cp{};
    cp.ffmpeg = params_.pipe.ffmpeg;
    cp.width = rp.width;
    cp.height = rp.height;
    cp.format = rp.format;
    cp.color = rp.color;
    cp.fps_num = params_.encoder.fps_num;
    cp.fps_den = params_.encoder.fps_den;
    cp.args = params_.pipe.args;
    glr_pipe_params pp{};
    pp.transport = params_.pipe.transport;
    if (!(child_ = glr_ffmpeg_child_spawn(log_, &cp)) || !(pipe_ = glr_pipe_create(log_, &pp)))
        return glr_last_error_code();
    child_stdin_ = glr_ffmpeg_child_stdin(child_);
    // Taken while the child cannot have been reaped: a later signal reaches it or no one.
    child_pidfd_ = static_cast<int>(syscall(SYS_pidfd_open, glr_ffmpeg_child_pid(child_), 0));
    if (child_pidfd_ < 0)
        glr_log_message(log_, GLR_LOG_WARN,
                        glr::format("pidfd_open failed (%s, Linux 5.3 has it): an interrupt cannot abandon this "
                                    "ffmpeg child if it stalls",
                                    std::strerror(errno))
                            .c_str());
    params_.pipe.args = nullptr; // the caller's, read once
    params_.pipe.ffmpeg = nullptr;
    return 0;
}

glr_recorder::~glr_recorder()
{
    cancel_ = true; // a recorder not finished is finished as cancelled
    finish();
    glr_ring *ring;
    glr_encoder *encoder;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        ring = ring_;
        encoder = encoder_;
        ring_ = nullptr;
        encoder_ = nullptr;
    }
    glr_encoder_destroy(&encoder);
    // Like the ring, freed on the capturing thread only (its GL objects); the pool outlives
    // the frames the encoder held.
    if (std::this_thread::get_id() == gl_thread_)
        glr_hw_frames_destroy(&hw_);
    glr_log_destroy(&hw_log_);
    glr_pipe_destroy(&pipe_);
    glr_ffmpeg_child_destroy(&child_);
    if (child_pidfd_ >= 0)
        close(child_pidfd_);
    // Away from the capturing thread the ring's context may be gone: its GL objects are
    // left to that context, which frees them when it goes.
    if (ring && std::this_thread::get_id() == gl_thread_)
        glr_ring_destroy(&ring);
}

int glr_recorder::make_ring()
{
    glr_ring *ring = glr_ring_create(log_, &params_.ring);
    if (!ring)
        return glr_last_error_code(); // logged
#ifdef GLREADER_TEST_SEAMS
    glr_internal_ring_fences_unsignalled(ring, unsignalled_polls_);
#endif
    gl_thread_ = std::this_thread::get_id();
    std::lock_guard<std::mutex> lock(mutex_);
    ring_ = ring;
    return 0;
}

void glr_recorder::keep_error(int code)
{
    std::lock_guard<std::mutex> lock(mutex_);
    if (!error_)
        error_ = code;
}

int glr_recorder::capture(const glr_source &source, int64_t pts)
{
    if (cancel_ || abandoned_)
        return -ECANCELED;
    bool first = hw_ ? captured_ == 0 : !ring_;
#ifdef GLREADER_TEST_SEAMS
    if (first && hw_)
        glr_internal_hw_frames_marks_unsignalled(hw_, unsignalled_polls_);
#endif
    if (first && hw_ && std::this_thread::get_id() != gl_thread_) {
        glr_priv_report_error(log_, -EINVAL,
                              "glr_recorder_capture: called from another thread than glr_recorder_create's, whose GL "
                              "context the hardware frames were made in",
                              1);
        return -EINVAL;
    }
    if (first && !hw_) {
        if (int rc = make_ring(); rc < 0) {
            keep_error(rc);
            return rc;
        }
    } else if (std::this_thread::get_id() != gl_thread_) {
        glr_priv_report_error(log_, -EINVAL,
                              "glr_recorder_capture: called from another thread than the first capture's, whose GL "
                              "context the recorder reads",
                              1);
        return -EINVAL;
    }
    int rc;
    auto start = [&] { return hw_ ? glr_hw_frames_capture(hw_, &source, pts) : glr_ring_capture(ring_, &source, pts); };
    while ((rc = start()) == -EBUSY) {
        // Every slot holds a frame: the oldest goes first.
        if ((rc = hand_over_next(UINT64_MAX)) < 0)
            break;
    }
    if (rc >= 0) {
        std::lock_guard<std::mutex> lock(mutex_);
        captured_++;
    }
    // The first frame reaches the sink before the next renders, its readback waited for:
    // a recorder that opened its output encodes at least that frame, even one left
    // behind later in the driver (Matroska's muxer writes a file with no frame that does
    // not parse).
    if (rc >= 0 && first)
        rc = hand_over_next(UINT64_MAX);
    while (rc >= 0 && (rc = hand_over_next(0)) > 0) {
    }
    if (rc < 0) {
        keep_error(rc);
        return rc;
    }
    report_progress(false);
    return 0;
}

int glr_recorder::hand_over_next(uint64_t timeout_ns)
{
    glr_frame f{};
    AVFrame *hw = nullptr;
    int rc = hw_ ? glr_hw_frames_acquire(hw_, &hw, timeout_ns) : glr_ring_acquire(ring_, &f, timeout_ns);
    if (rc == -EAGAIN || rc == -ENODATA)
        return 0;
    if (rc < 0)
        return rc;
    std::lock_guard<std::mutex> submitting(submit_mutex_);
    if (abandoned_) { // the output was finalized without this frame
        av_frame_free(&hw);
        glr_frame_release(&f);
        return 1;
    }
    if ((rc = hw ? to_sink(hw) : to_sink(f)) < 0)
        return rc;
    std::lock_guard<std::mutex> lock(mutex_);
    delivered_++;
    return 1;
}

int glr_recorder::to_sink(glr_frame &f)
{
    if (params_.frame_sink) {
        params_.frame_sink(params_.frame_sink_opaque, &f);
        return 0;
    }
    // A full queue waits for the output (or for ffmpeg to read).
    if (params_.sink_wait)
        params_.sink_wait(params_.sink_wait_opaque, 1);
    sink_waiting_ = pipe_ ? sink_wait::reading : sink_wait::none;
    int rc = encoder_ ? glr_encoder_submit(encoder_, &f) : glr_pipe_write_frame(pipe_, child_stdin_, &f);
    sink_waiting_ = sink_wait::none;
    if (params_.sink_wait)
        params_.sink_wait(params_.sink_wait_opaque, 0);
    return rc;
}

int glr_recorder::to_sink(AVFrame *&hw)
{
    if (params_.sink_wait)
        params_.sink_wait(params_.sink_wait_opaque, 1);
    int rc = glr_encoder_submit_hw(encoder_, &hw);
    if (params_.sink_wait)
        params_.sink_wait(params_.sink_wait_opaque, 0);
    return rc;
}

int glr_recorder::finalize(bool whole)
{
    if (encoder_)
        return whole ? glr_encoder_finish(encoder_) : glr_encoder_finish_incomplete(encoder_);
    if (!pipe_)
        return 0;
    // Every byte written, then the end of ffmpeg's input: it finalizes its output either
    // way. A child that stopped reading says why itself.
    sink_waiting_ = sink_wait::reading;
    int rc = glr_pipe_close(pipe_, child_stdin_);
    sink_waiting_ = sink_wait::exiting;
    int exited = glr_ffmpeg_child_finish(child_);
    sink_waiting_ = sink_wait::none;
    return exited < 0 ? exited : rc;
}

void glr_recorder::interrupt_sink()
{
    if (child_pidfd_ < 0)
        return;
    bool stalled = false;
    switch (sink_waiting_.load()) {
    case sink_wait::none:
        return;
    case sink_wait::reading: { // it has taken no frame for stalled_ms
        glr_pipe_stats s{};
        glr_pipe_get_stats(pipe_, &s);
        stalled = s.reader_idle_ms >= std::chrono::duration<double, std::milli>(stalled_ms).count();
        break;
    }
    case sink_wait::exiting: { // it has used no CPU for stalled_ms (not yet reaped: its pid is its own)
        long long ticks = cpu_ticks(glr_ffmpeg_child_pid(child_));
        auto now = clock::now();
        if (ticks != exiting_cpu_ticks_ || exiting_progress_ == clock::time_point{}) {
            exiting_cpu_ticks_ = ticks;
            exiting_progress_ = now;
        }
        stalled = now - exiting_progress_ >= stalled_ms;
        break;
    }
    }
    if (stalled)
        syscall(SYS_pidfd_send_signal, child_pidfd_, SIGKILL, nullptr, 0);
}

int glr_recorder::submit_audio(const float *samples, int frames, int64_t pts)
{
    if (!encoder_) {
        glr_priv_report_error(log_, -EINVAL,
                              "glr_recorder_submit_audio: this recorder has no in-process encoder (a frame or pipe sink)",
                              1);
        return -EINVAL;
    }
    std::lock_guard<std::mutex> submitting(submit_mutex_);
    bool finished;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        finished = finished_;
    }
    if (abandoned_ || finished)
        return -ECANCELED;
    return glr_encoder_submit_audio(encoder_, samples, frames, pts);
}

int glr_recorder::abandon()
{
    if (!submit_mutex_.try_lock())
        return -EBUSY;
    abandoned_ = true;
    submit_mutex_.unlock();
    return 0;
}

int glr_recorder::finish()
{
    bool capturing;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (finished_)
            return finish_code_;
        capturing = ring_ || hw_;
    }
    // The frames under way, on the capturing thread, unless it was left behind (an abandon
    // meanwhile makes what is left of this drain drop its frames).
    if (capturing && !abandoned_ && std::this_thread::get_id() == gl_thread_) {
        int rc;
        while ((rc = hand_over_next(UINT64_MAX)) > 0) {
        }
        if (rc < 0)
            keep_error(rc);
    }
    // The encoder is finalized once: by the first of the capturing thread and the thread
    // that abandoned it to get here; the other returns the same code.
    std::lock_guard<std::mutex> submitting(submit_mutex_);
    int failed;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (finished_)
            return finish_code_;
        failed = error_;
    }
    bool whole = !cancel_ && !abandoned_ && !failed;
    int rc = finalize(whole);
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (rc < 0 && !error_)
            error_ = rc;
        finish_code_ = rc;
        finished_ = true;
        stop_ = error_ == -EINTR ? GLR_EXPORT_INTERRUPTED
                : error_         ? GLR_EXPORT_FAILED
                : whole          ? GLR_EXPORT_COMPLETE
                                 : GLR_EXPORT_CANCELLED;
    }
    report_progress(true);
    return rc;
}

glr_recorder_stats glr_recorder::stats() const
{
    glr_recorder_stats s{};
    std::lock_guard<std::mutex> lock(mutex_);
    s.stop = stop_;
    s.cancel_requested = cancel_;
    s.frames_captured = captured_;
    s.frames_delivered = delivered_;
    s.ring_format = params_.ring.format;
    s.plan = plan_;
    if (ring_)
        glr_ring_get_stats(ring_, &s.ring);
    if (hw_)
        glr_hw_frames_get_stats(hw_, &s.ring);
    if (encoder_)
        glr_encoder_get_stats(encoder_, &s.encoder);
    if (pipe_)
        glr_pipe_get_stats(pipe_, &s.pipe);
    s.hardware_frames = hw_ != nullptr;
    s.output_wait_seconds = (encoder_ ? s.encoder.write_in_progress_ms : s.pipe.reader_idle_ms) / 1000;
    return s;
}

void glr_recorder::report_progress(bool now)
{
    if (!params_.progress)
        return;
    auto t = clock::now();
    if (!now && t < next_progress_)
        return;
    int ms = params_.progress_interval_ms ? params_.progress_interval_ms : default_progress_ms;
    next_progress_ = t + std::chrono::milliseconds(ms);
    glr_recorder_stats s = stats();
    params_.progress(params_.progress_opaque, &s);
}
