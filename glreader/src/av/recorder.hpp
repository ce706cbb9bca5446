// The recorder behind glr_recorder (see glreader/av/recorder.h for the contract): a ring
// made at the first capture in the caller's context, and a sink (the encoder, or the
// caller's callback) that each frame read back goes to. Two threads may meet in it: the
// capturing thread, and one that leaves it behind (abandon) and finalizes the encoder.
#pragma once

#include "glreader/av/recorder.h"
#include "glreader/ffmpeg_child.h"

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

struct glr_recorder {
public:
    // Checks the params and opens the encoder; throws glr::failure with words.
    glr_recorder(glr_log *log, const glr_recorder_params &params);
    // Starts the pipe sink's ffmpeg child; its calls' error code, logged by them.
    int start_child();
    ~glr_recorder();
    glr_recorder(const glr_recorder &) = delete;
    glr_recorder &operator=(const glr_recorder &) = delete;

    // The C calls' bodies: codes returned, errors logged where they happened.
    int capture(const glr_source &source, int64_t pts);
    int submit_audio(const float *samples, int frames, int64_t pts);
    void cancel() noexcept { cancel_ = true; }
    int abandon();
    // Gives up on a pipe sink's ffmpeg that stalls: one that has taken no frame for
    // stalled_ms while a write (or the drain before its end) waits for it, or that has used
    // no CPU for stalled_ms while its exit is waited for (it finalizes into an output that
    // takes nothing), is killed, so that wait ends at once. One thread at a time. One that
    // reads, or finalizes with work to do, is left to finish its output as for a cancel.
    void interrupt_sink();
    // Long enough that a busy machine's ffmpeg, starved of the CPU, is not taken for one
    // that stalls.
    static constexpr auto stalled_ms = std::chrono::milliseconds(2000);
    int finish();
    glr_recorder_stats stats() const;
    glr_log *log() const { return log_; }
#ifdef GLREADER_TEST_SEAMS
    // Applied to the ring when made, to the hardware frames at the first capture.
    void fences_unsignalled(int polls) { unsignalled_polls_ = polls; }
#endif

private:
    int make_ring(); // in the current context; the ring's error code, logged
    // The encoder's hardware frames where params ask for them and the encoder takes them
    // (see glr_hw_frames_use), made in the current context; throws with words.
    void make_hw_frames(glr_encoder_params &ep);
    int hand_over_next(uint64_t timeout_ns); // 1: one handed over, 0: none ready, < 0: error
    int to_sink(glr_frame &f);               // under submit_mutex_
    int to_sink(AVFrame *&hw);               // a hardware frame to the encoder; under submit_mutex_
    int finalize(bool whole);                // the encoder's or the child's end; under submit_mutex_
    void keep_error(int code);
    void report_progress(bool now);

    glr_log *log_;
    glr_recorder_params params_; // the callbacks and the ring's params; the encoder's strings are not kept
    glr_encoder_plan plan_{};
    glr_encoder *encoder_ = nullptr;
    glr_ffmpeg_child *child_ = nullptr; // the pipe sink's, with its pipe and the child's stdin
    glr_pipe *pipe_ = nullptr;
    int child_stdin_ = -1;
    int child_pidfd_ = -1;                // signals the child and never another process; -1: none
    // What a pipe sink's wait, if any, waits for: ffmpeg to read (a write, or the drain
    // before its end) or to exit.
    enum class sink_wait { none, reading, exiting };
    std::atomic<sink_wait> sink_waiting_{sink_wait::none};
    // interrupt_sink's view of an exiting child: its CPU time, and when that last grew.
    long long exiting_cpu_ticks_ = -1;
    std::chrono::steady_clock::time_point exiting_progress_{};
    glr_ring *ring_ = nullptr;
    glr_hw_frames *hw_ = nullptr; // instead of the ring: the encoder's hardware frames
    glr_log *hw_log_ = nullptr;   // theirs: the recorder's, quiet while they try to start
    bool hw_starting_ = false;
    std::thread::id gl_thread_;
#ifdef GLREADER_TEST_SEAMS
    int unsignalled_polls_ = 0;
#endif

    std::atomic<bool> cancel_{false};
    std::atomic<bool> abandoned_{false}; // set under submit_mutex_
    std::mutex submit_mutex_;            // held while a frame goes to the sink, and by finish

    mutable std::mutex mutex_; // guards what follows (and ring_ and encoder_ going away)
    int64_t captured_ = 0, delivered_ = 0;
    int error_ = 0; // the first error
    bool finished_ = false;
    int finish_code_ = 0;
    glr_export_stop stop_ = GLR_EXPORT_NOT_STOPPED;
    std::chrono::steady_clock::time_point next_progress_{};
};
