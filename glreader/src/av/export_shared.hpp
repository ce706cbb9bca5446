// What an export job's threads share (glr_export, av/export_job.hpp): the params with
// every string they point to copied, the job's own log, its state and statistics; and the
// calls between the job's parts: the params' checks (export_params.cpp), the render thread
// (export_render.cpp) and the supervisor (export_job.cpp).
#pragma once

#include "av/encoder.hpp"
#include "av/fault_injection.h"
#include "glreader/av/recorder.h"
#include "glreader/av/export.h"

#include <atomic>
#include <chrono>
#include <climits>
#include <condition_variable>
#include <cstdio>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <thread>
#include <vector>

namespace glr {

using clock = std::chrono::steady_clock;

// Into a fixed-size field, cut to fit.
inline void copy_text(char *to, size_t size, const char *from) { std::snprintf(to, size, "%s", from); }

// The params with every string they point to copied, and what the job's threads see.
struct export_shared {
    // The job's own log (everything the job makes logs there), which relays to the
    // caller's until the job is destroyed: a render thread left in the driver ends after
    // the job, and may log on its way out when the caller's log is gone.
    glr_log *log = nullptr;
    glr_log *caller_log = nullptr; // NULL: the built-in one
    std::mutex relay_mutex;
    bool relaying = true; // under relay_mutex

    export_shared(const export_shared &) = delete;
    export_shared &operator=(const export_shared &) = delete;
    explicit export_shared(glr_log *caller) : caller_log(caller)
    {
        glr_log_params lp{relay, this, glr_log_get_level(caller)};
        if (!(log = glr_log_create(&lp)))
            throw std::bad_alloc();
    }
    ~export_shared() { glr_log_destroy(&log); }
    static void relay(void *opaque, glr_log_level level, const char *message)
    {
        auto *s = static_cast<export_shared *>(opaque);
        std::lock_guard<std::mutex> lock(s->relay_mutex);
        if (s->relaying)
            glr_log_message(s->caller_log, level, message);
    }
    void stop_relaying()
    {
        std::lock_guard<std::mutex> lock(relay_mutex);
        relaying = false;
    }
    glr_export_params params{};
    std::string date, source, source_name, codec, pix_fmt, codec_options, output, container, format_options,
        audio_input, audio_codec, hw_device;
    std::vector<std::string> metadata;
    std::vector<const char *> metadata_entries; // into metadata, NULL-terminated
    std::string pipe_ffmpeg;                     // the pipe sink's, copied
    std::vector<std::string> pipe_args;
    std::vector<const char *> pipe_arg_entries; // into pipe_args, NULL-terminated
    glr_channel_feeder feeder{};
    glr_format ring_format{};
    glr_encoder_plan plan{};
    int sound_rate = -1;    // the player plays the Sound pass at this rate; -1: it does not
    bool mux_sound = false; // ...and it is the output's sound track

    // What the encoder is opened with: a chunk carries no sound file (its encoder.audio.input
    // still feeds the sound channels; the join encodes it once), only a Sound pass.
    glr_encoder_params encoder_params() const
    {
        glr_encoder_params ep = params.encoder;
        if (params.chunk && ep.audio.input)
            ep.audio = {};
        return ep;
    }

    // Written by cancel() (a signal handler may call it) and by the supervisor; read by
    // the render thread between frames and by the encoder's interrupt.
    std::atomic<bool> cancel{false}, interrupted{false}, opening_output{false};
    // Set by the supervisor under mutex, while the render thread is busy: the recorder
    // (when there is one) is the supervisor's to finalize; frames are dropped.
    std::atomic<bool> abandoned{false};

    mutable std::mutex mutex; // guards what follows
    std::condition_variable changed;
    glr_export_state state = GLR_EXPORT_READY;
    glr_export_stop stop = GLR_EXPORT_NOT_STOPPED;
    int frames_rendered = 0, preroll = 0;
    double preroll_seconds = 0;
    bool render_running = false, render_done = false, finisher_done = false, complete = false;
    bool busy = false;      // in GL work the render thread may be left in
    bool compiling = false; // ...under the compile limit
    clock::time_point busy_since, started, ended;
    glr_recorder *recorder = nullptr; // live, for statistics and for the supervisor to finalize
    glr_player_stats player_stats{};
    glr_recorder_stats recorder_stats{}; // the last, once the recorder is gone
    char renderer[128] = "", platform[16] = "";
    int error = 0; // the first, with its message
    std::string error_message;

    bool stopping() const { return cancel || abandoned; }

#ifdef GLREADER_TEST_SEAMS
    // glr_internal_export_hold_at: the render thread stops at one point, inside the busy
    // mark a driver's compile or draw would be under, and at its end if asked, each time
    // until the test releases it.
    static constexpr int no_hold = INT_MIN;
    int hold_point = no_hold; // under mutex, as the three below
    bool hold_at_end = false, held = false, hold_released = false;
    int unsignalled_polls = 0; // glr_internal_export_fences_unsignalled, set before run
#endif
    // Where a test may hold the render thread (test builds); nothing elsewhere.
    void hold_point_reached([[maybe_unused]] int point)
    {
#ifdef GLREADER_TEST_SEAMS
        std::unique_lock<std::mutex> lock(mutex);
        if (point != hold_point && !(point == GLR_INTERNAL_HOLD_END && hold_at_end))
            return;
        held = true;
        changed.notify_all();
        changed.wait(lock, [&] { return hold_released; });
        hold_released = false;
#endif
    }
#ifdef GLREADER_TEST_SEAMS
    void release_hold()
    {
        std::lock_guard<std::mutex> lock(mutex);
        held = false; // a wait_held from now on waits for the next hold
        hold_released = true;
        changed.notify_all();
    }
#endif

    // The fences of the job's ring, as a test said (test builds); nothing elsewhere.
    void apply_fence_seam([[maybe_unused]] glr_recorder *made) const
    {
#ifdef GLREADER_TEST_SEAMS
        glr_internal_recorder_fences_unsignalled(made, unsignalled_polls);
#endif
    }

    void set_state(glr_export_state s)
    {
        std::lock_guard<std::mutex> lock(mutex);
        state = s;
    }

    // Marks GL work that the supervisor may give up waiting for.
    void enter_busy(bool under_compile_limit)
    {
        std::lock_guard<std::mutex> lock(mutex);
        busy = true;
        compiling = under_compile_limit;
        busy_since = clock::now();
    }
    void leave_busy()
    {
        std::lock_guard<std::mutex> lock(mutex);
        busy = compiling = false;
    }

    void record_error(int code, const std::string &message) // under mutex
    {
        if (!error) {
            error = code;
            error_message = message;
        }
    }

    glr_export_stats snapshot() const // under mutex
    {
        glr_export_stats s{};
        s.state = state;
        s.stop = stop;
        s.first_frame = params.player.first_frame;
        s.frame_count = params.frame_count;
        s.frames_rendered = frames_rendered;
        s.preroll_frames = preroll;
        s.preroll_seconds = preroll_seconds;
        if (state != GLR_EXPORT_READY)
            s.elapsed_seconds =
                std::chrono::duration<double>((state == GLR_EXPORT_ENDED ? ended : clock::now()) - started).count();
        s.cancel_requested = cancel;
        s.render_running = render_running;
        s.ring_format = ring_format;
        s.plan = plan;
        copy_text(s.renderer, sizeof s.renderer, renderer);
        copy_text(s.platform, sizeof s.platform, platform);
        s.player = player_stats;
        glr_recorder_stats rs = recorder_stats;
        if (recorder)
            glr_recorder_get_stats(recorder, &rs);
        s.ring = rs.ring;
        s.encoder = rs.encoder;
        s.pipe = rs.pipe;
        s.output_wait_seconds = rs.output_wait_seconds;
        return s;
    }
};

// Checks the params and copies them, with every string, into s; chooses the encoder's
// plan, the ring's format and the Sound pass's rate. Throws glr::failure with words.
void prepare_export(export_shared &s, glr_log *log, const glr_export_params &params);

// Starts the job's render thread, which plays, captures and encodes the range and frees
// what it made, even when the supervisor left it behind (it holds the shared state).
std::thread start_render_thread(std::shared_ptr<export_shared> s);

// Finalizes the encoder the render thread was left behind by (the supervisor runs it on a
// thread of its own, so that it goes on reporting while the output takes the trailer).
void finish_without_render(std::shared_ptr<export_shared> s);

#ifdef GLREADER_TEST_SEAMS
// How many render threads have not ended, and the wait for at most `at_most` of them.
int live_render_threads_now();
bool wait_live_render_threads(int at_most, double seconds);
#endif

} // namespace glr
