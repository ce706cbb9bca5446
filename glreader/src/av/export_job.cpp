#include "av/export_job.hpp"

#include "av/chunk_tag.hpp"
#include "av/codec_choice.hpp"
#include "av/encoder.hpp"
#include "av/fault_injection.h"
#include "glreader/av/recorder.h"

extern "C" {
#include <libavformat/avformat.h>
#include <libavutil/mathematics.h>
}

#include "glreader/shadertoy_media.h"
#include "enum_value.hpp"
#include "error.hpp"
#include "guarded.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace glr {

namespace {

using clock = std::chrono::steady_clock;

// How long a render thread may take to look at a cancel itself, between frames, before
// the supervisor finalizes without it.
constexpr auto cancel_grace = std::chrono::milliseconds(500);
// How often the supervisor looks at the cancel, the interrupt and the limits.
constexpr auto tick = std::chrono::milliseconds(20);
constexpr int default_progress_ms = 100;

// A failure a glreader C call already logged (and kept as the render thread's last error):
// the supervisor only hands it on.
class logged_failure : public failure {
public:
    explicit logged_failure(int code) : failure(code, glr_last_error()) {}
};

int check(int code)
{
    if (code < 0)
        throw logged_failure(code);
    return code;
}

#ifdef GLREADER_TEST_SEAMS
// glr_internal_export_render_threads and its wait.
std::mutex live_mutex;
std::condition_variable live_changed;
int live_render_threads = 0; // under live_mutex
#endif
// Counts the jobs' render threads for the tests (test builds); nothing elsewhere.
void render_threads_alive([[maybe_unused]] int change)
{
#ifdef GLREADER_TEST_SEAMS
    std::lock_guard<std::mutex> lock(live_mutex);
    live_render_threads += change;
    live_changed.notify_all();
#endif
}

template <typename T>
T *check(T *created)
{
    if (!created)
        throw logged_failure(glr_last_error_code() ? glr_last_error_code() : GLR_ERROR_INTERNAL);
    return created;
}

std::string copy_of(const char *s) { return s ? s : ""; }
const char *pointer_to(const std::string &s, const char *original) { return original ? s.c_str() : nullptr; }

// The first sample of frame `frame` on a track at `rate` (frame 0 starts at sample 0).
long long sample_at(int frame, int rate, int fps_num, int fps_den)
{
    return av_rescale_rnd(frame, static_cast<int64_t>(rate) * fps_den, fps_num, AV_ROUND_DOWN);
}

// Whether the output's container holds a sound track it chooses the codec of (an image
// sequence and a GIF hold none); one that cannot be told is left to the encoder's check.
bool holds_sound(const glr_encoder_params &e)
{
    try {
        return default_codec(AVMEDIA_TYPE_AUDIO, choose_muxer(e.container, e.output), e.output) != AV_CODEC_ID_NONE;
    } catch (const failure &) {
        return true;
    }
}

// Into a fixed-size field, cut to fit.
void copy_text(char *to, size_t size, const char *from) { std::snprintf(to, size, "%s", from); }

} // namespace

// The params with every string they point to copied, and what both threads see.
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
        audio_input, audio_codec;
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

    // What the encoder is opened with: a chunk has no sound track (its encoder.audio.input
    // still feeds the sound channels).
    glr_encoder_params encoder_params() const
    {
        glr_encoder_params ep = params.encoder;
        if (params.chunk)
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

namespace {

#ifdef GLREADER_TEST_SEAMS
// Jobs destroyed while a test held their render thread: glr_internal_export_release_destroyed
// lets those threads go on.
std::mutex destroyed_holds_mutex;
std::vector<std::weak_ptr<export_shared>> destroyed_holds;
void held_after_destroy(const std::shared_ptr<export_shared> &s)
{
    std::lock_guard<std::mutex> lock(destroyed_holds_mutex);
    destroyed_holds.push_back(s);
}
#endif

// The encoder's interrupt: the caller's, and a cancel while the output is being opened
// (a FIFO waiting for its reader), which nothing has been written to yet.
int output_interrupt(void *opaque)
{
    auto *s = static_cast<export_shared *>(opaque);
    return s->interrupted || (s->cancel && s->opening_output);
}

// The render thread: plays, captures and encodes the range, and frees what it made, even
// when the supervisor left it behind.
class render_work {
public:
    explicit render_work(std::shared_ptr<export_shared> s) : s_(std::move(s)) {}
    render_work(const render_work &) = delete;
    render_work &operator=(const render_work &) = delete;

    void operator()()
    {
        try {
            play();
        } catch (const logged_failure &e) {
            fail(e.code(), e.what(), false);
        } catch (const failure &e) {
            fail(e.code(), e.what(), true);
        } catch (const std::bad_alloc &) {
            fail(-ENOMEM, "glr_export_run: out of memory", true);
        } catch (const std::exception &e) {
            fail(GLR_ERROR_INTERNAL, e.what(), true);
        }
        clean_up();
    }

private:
    void fail(int code, std::string message, bool log_it)
    {
        // A failed encode is finalized all the same, and its finish tells the whole story:
        // what the output keeps and whether it plays.
        if (recorder_ && !s_->abandoned) {
            glr_recorder_cancel(recorder_); // finalized as a stop
            if (glr_recorder_finish(recorder_) < 0) {
                code = glr_last_error_code();
                message = glr_last_error();
                log_it = false;
            }
        }
        if (log_it)
            glr_priv_report_error(s_->log, code, message.c_str(), 1);
        std::lock_guard<std::mutex> lock(s_->mutex);
        s_->record_error(code, message);
    }

    void play()
    {
        const glr_export_params &p = s_->params;
        context_ = check(glr_context_create(s_->log, &p.context));
        {
            std::lock_guard<std::mutex> lock(s_->mutex);
            copy_text(s_->renderer, sizeof s_->renderer, glr_context_renderer(context_));
            copy_text(s_->platform, sizeof s_->platform, glr_context_platform_name(context_));
        }
        glr_player_params pp = p.player;
        pp.get_proc_address = nullptr;
        pp.sound_rate = s_->sound_rate;
        glr_channel_feeder feeder{};
        if (!pp.feeder) {
            media_ = check(glr_media_channels_create(s_->log, pp.project, p.encoder.audio.input));
            feeder = glr_media_channels_feeder(media_);
            pp.feeder = &feeder;
        }

        // The compile limit covers the shaders' compile and, where no pre-roll comes with it,
        // the first frame (drivers compile at the first draw).
        s_->enter_busy(true);
        s_->hold_point_reached(GLR_INTERNAL_HOLD_COMPILE);
        player_ = check(glr_player_create(s_->log, &pp));
        int preroll = glr_player_preroll(player_);
        {
            std::lock_guard<std::mutex> lock(s_->mutex);
            s_->preroll = preroll;
            if (preroll > 0) {
                s_->state = GLR_EXPORT_PREROLLING;
                s_->compiling = false;
            }
        }
        if (s_->stopping())
            return;
        auto preroll_began = glr::clock::now();
        render_next();
        if (preroll > 0) {
            std::lock_guard<std::mutex> lock(s_->mutex);
            s_->preroll_seconds = std::chrono::duration<double>(glr::clock::now() - preroll_began).count();
        }
        s_->leave_busy();

        // Not busy now, so not abandoned meanwhile: the output opens only for a job that
        // still runs.
        if (s_->stopping() || !open_recorder())
            return;
        {
            std::lock_guard<std::mutex> lock(s_->mutex);
            s_->state = GLR_EXPORT_RENDERING;
            s_->recorder = recorder_;
        }
        glr_source source = glr_player_source(player_);
        for (int i = 0; i < p.frame_count; i++) {
            if (i > 0) {
                if (s_->stopping())
                    break;
                s_->enter_busy(false);
                s_->hold_point_reached(i);
                render_next();
            }
            // The recorder hands the first frame to the encoder before the next renders: a job
            // that opened its output encodes at least that frame, even one cancelled while the
            // driver holds a later frame and finalized without this thread.
            s_->enter_busy(false);
            int rc = glr_recorder_capture(recorder_, &source, p.chunk ? pp.first_frame + i : i);
            if (rc == -ECANCELED) // abandoned meanwhile
                break;
            check(rc);
            s_->leave_busy();
            if (s_->mux_sound)
                submit_sound(i);
            std::lock_guard<std::mutex> lock(s_->mutex);
            s_->frames_rendered = i + 1;
        }
        if (glr_player_sound_rate(player_)) {
            glr_player_stats ps{};
            glr_player_get_stats(player_, &ps);
            glr_log_message(s_->log, GLR_LOG_INFO,
                               format("the Sound pass: %.2f s of sound at %d Hz, rendered in %.2f s",
                                      static_cast<double>(ps.sound_samples) / glr_player_sound_rate(player_),
                                      glr_player_sound_rate(player_), ps.sound_seconds)
                                   .c_str());
        }
        finish();
    }

    // Hands the encoder the Sound pass's samples of the range's frame i, stamped from the
    // range's start.
    void submit_sound(int i)
    {
        const int first = s_->params.player.first_frame;
        long long range_first = glr_player_sound_sample(player_, first);
        long long from = glr_player_sound_sample(player_, first + i), to = glr_player_sound_sample(player_, first + i + 1);
        stereo_.resize(static_cast<size_t>(to - from) * 2);
        s_->enter_busy(false);
        check(glr_player_render_sound(player_, from, static_cast<int>(to - from), stereo_.data()));
        s_->leave_busy();
        samples_.resize(stereo_.size());
        for (size_t k = 0; k < samples_.size(); k++)
            samples_[k] = stereo_[k] / 32768.0f;
        int rc = glr_recorder_submit_audio(recorder_, samples_.data(), static_cast<int>(to - from), from - range_first);
        if (rc != -ECANCELED) // abandoned: the output was finalized without it
            check(rc);
    }

    void render_next()
    {
        check(glr_player_render_next(player_));
        glr_player_stats ps{};
        glr_player_get_stats(player_, &ps);
        std::lock_guard<std::mutex> lock(s_->mutex);
        s_->player_stats = ps;
    }

    // Opens the output once the first frame has rendered: a job stopped before leaves no
    // file, and one that opened it encodes at least that frame. false: cancelled while the
    // output was being opened (a FIFO waiting for its reader), so nothing was written.
    bool open_recorder()
    {
        const glr_export_params &p = s_->params;
        glr_recorder_params rp{};
        glr_encoder_params &ep = rp.encoder;
        ep = s_->encoder_params();
        ep.width = p.player.width;
        ep.height = p.player.height;
        ep.fps_num = p.player.fps_num;
        ep.fps_den = p.player.fps_den;
        // The sound file starts where the picture does (the Sound pass's samples are
        // submitted from the range's start).
        if (ep.audio.input)
            ep.audio.offset -= p.player.first_frame * static_cast<double>(ep.fps_den) / ep.fps_num;
        ep.use_frame_pts = p.chunk; // frames are stamped with their place on the timeline
        ep.interrupt = {output_interrupt, s_.get()};
        rp.pipe = p.pipe;
        rp.ring.format = s_->ring_format;
        rp.ring.depth = p.ring_depth;
        rp.sink_wait = waiting_for_output;
        rp.sink_wait_opaque = this;
        s_->opening_output = true;
        recorder_ = glr_recorder_create(s_->log, &rp);
        s_->opening_output = false;
        if (!recorder_ && s_->cancel && !s_->interrupted)
            return false;
        check(recorder_);
        s_->apply_fence_seam(recorder_);
        return true;
    }

    // The recorder's wait for the encoder's full queue: a wait for the output, which the
    // supervisor lets finish (a cancel does not leave this thread behind in it).
    static void waiting_for_output(void *opaque, int waiting)
    {
        auto *w = static_cast<render_work *>(opaque);
        std::lock_guard<std::mutex> lock(w->s_->mutex);
        if (waiting)
            w->busy_before_wait_ = std::exchange(w->s_->busy, false);
        else
            w->s_->busy = w->busy_before_wait_;
    }

    // The frames under way and the output finalized (as a stop after a cancel), unless the
    // supervisor did so without this thread.
    void finish()
    {
        if (s_->abandoned)
            return;
        bool whole = !s_->cancel;
        if (!whole)
            glr_recorder_cancel(recorder_);
        s_->set_state(GLR_EXPORT_FLUSHING);
        s_->enter_busy(false); // the readbacks' waits: a driver may hold this thread there
        int rc = glr_recorder_finish(recorder_);
        s_->leave_busy();
        if (s_->abandoned)
            return;
        std::lock_guard<std::mutex> state(s_->mutex);
        s_->complete = whole && rc == 0;
        check(rc);
    }

    // Frees, in order, what play() made; the recorder once a supervisor that finalized it
    // without this thread is done with it.
    void clean_up()
    {
        {
            std::unique_lock<std::mutex> lock(s_->mutex);
            s_->changed.wait(lock, [&] { return !s_->abandoned || s_->finisher_done; });
            if (recorder_)
                glr_recorder_get_stats(recorder_, &s_->recorder_stats);
            s_->recorder = nullptr;
        }
        glr_recorder_destroy(&recorder_);
        glr_player_destroy(&player_);
        glr_media_channels_destroy(&media_);
        glr_context_destroy(&context_);
        if (s_->abandoned) // the job may be gone: its own log takes this (and drops it then)
            glr_log_message(s_->log, GLR_LOG_VERBOSE,
                            "the render thread the driver held has ended, and freed its GL context");
        std::lock_guard<std::mutex> lock(s_->mutex);
        s_->render_running = false;
        s_->render_done = true;
        s_->changed.notify_all();
    }

    std::shared_ptr<export_shared> s_;
    glr_context *context_ = nullptr;
    glr_media_channels *media_ = nullptr;
    glr_player *player_ = nullptr;
    glr_recorder *recorder_ = nullptr;
    bool busy_before_wait_ = false; // waiting_for_output's, under the shared mutex
    // One frame's Sound pass, as the player renders it and as the encoder takes it.
    std::vector<int16_t> stereo_;
    std::vector<float> samples_;
};

// Finalizes an encoder the render thread was left behind by, on a thread of its own so
// that the supervisor goes on reporting while the output takes the trailer.
void finish_without_render(std::shared_ptr<export_shared> s)
{
    glr_recorder *rec = nullptr;
    {
        std::lock_guard<std::mutex> lock(s->mutex);
        rec = s->recorder; // kept until this is done (clean_up waits)
    }
    int rc = rec ? glr_recorder_finish(rec) : 0;
    std::string message = rc < 0 ? glr_last_error() : "";
    std::lock_guard<std::mutex> lock(s->mutex);
    if (rc < 0)
        s->record_error(rc, message);
    s->finisher_done = true;
    s->changed.notify_all();
}

} // namespace

} // namespace glr

using glr::export_shared;

namespace {

// A chunk joins by stream copy only when every chunk starts on a keyframe with the same
// headers: x264 is told so (stitchable; its GOPs are closed unless asked otherwise), x265
// to close its GOPs. Its range travels in the container's tags, which Matroska and NUT
// keep, with the timeline's timestamps as they are: a muxer that keeps decode times from
// going negative would shift a first chunk with B-frames (NUT does, by x264's two frames).
void make_joinable(export_shared &s)
{
    const glr_encoder_plan &plan = s.plan;
    if (std::strcmp(plan.container, "matroska") != 0 && std::strcmp(plan.container, "nut") != 0)
        glr::fail(-EINVAL, "%s: a chunk is written as Matroska (.mkv) or NUT (.nut), whose tags carry its frame range, "
                  "not %s", s.output.c_str(), plan.container);
    const char *unshifted = "avoid_negative_ts=disabled";
    s.format_options = s.format_options.empty() ? unshifted : s.format_options + ":" + unshifted;
    s.params.encoder.format_options = s.format_options.c_str();
    const char *joinable = std::strcmp(plan.video_encoder, "libx264") == 0   ? "x264-params=stitchable=1"
                           : std::strcmp(plan.video_encoder, "libx265") == 0 ? "x265-params=open-gop=0"
                                                                              : nullptr;
    if (!joinable)
        return;
    std::string key(joinable, std::strchr(joinable, '='));
    if (s.codec_options.find(key) != std::string::npos)
        glr::fail(-EINVAL, "a chunk sets %s itself, to make chunks joinable: give %s's other settings as codec "
                  "options of their own (preset=, crf=, g=)", joinable, plan.video_encoder);
    s.codec_options = s.codec_options.empty() ? joinable : s.codec_options + ":" + joinable;
    s.params.encoder.codec_options = s.codec_options.c_str();
}

} // namespace

glr_export::glr_export(glr_log *log, const glr_export_params &params) : shared_(std::make_shared<export_shared>(log))
{
    export_shared &s = *shared_;
    s.params = params;
    glr_export_params &p = s.params;
    const glr_player_params &pl = params.player;
    if (pl.width <= 0 || pl.height <= 0)
        glr::fail(-EINVAL, "glr_export_create: the size %dx%d is not a frame size", pl.width, pl.height);
    if (!pl.project)
        glr::fail(-EINVAL, "glr_export_create: player.project is NULL (glr_project_load gives one)");
    if (params.frame_count <= 0 || pl.first_frame < 0 || pl.first_frame > INT_MAX - params.frame_count)
        glr::fail(-EINVAL, "glr_export_create: frames %d + %d are no range of frame numbers", pl.first_frame,
                  params.frame_count);
    const bool piped = params.pipe.args != nullptr;
    if (!piped && !params.encoder.output)
        glr::fail(-EINVAL, "glr_export_create: encoder.output is NULL");
    if (piped && params.chunk)
        glr::fail(-EINVAL, "glr_export_create: a chunk is written by the in-process encoder (glr_join reads its tags), "
                           "not through a pipe");
    if (piped && params.encoder.audio.input)
        glr::fail(-EINVAL, "glr_export_create: the pipe carries the picture alone: give the sound file to ffmpeg's "
                           "own arguments (-i FILE), not encoder.audio.input");
    if (std::isnan(params.compile_timeout) || params.progress_interval_ms < 0 || params.ring_depth < 0)
        glr::fail(-EINVAL, "glr_export_create: compile_timeout is a number, progress_interval_ms and ring_depth >= 0");
    // From here on: the limit in seconds, 0 for none.
    p.compile_timeout = params.compile_timeout == 0 ? GLR_EXPORT_DEFAULT_COMPILE_TIMEOUT
                                                    : std::max(params.compile_timeout, 0.0);
    if (params.conversion != GLR_EXPORT_CONVERT_GPU && params.conversion != GLR_EXPORT_CONVERT_CPU)
        glr::fail(-EINVAL, "glr_export_create: unknown conversion %d", params.conversion);
    if (!p.player.fps_num || !p.player.fps_den)
        p.player.fps_num = 30, p.player.fps_den = 1;

    s.date = glr::copy_of(pl.date);
    s.source = glr::copy_of(pl.source);
    s.source_name = glr::copy_of(pl.source_name);
    p.player.date = glr::pointer_to(s.date, pl.date);
    p.player.source = glr::pointer_to(s.source, pl.source);
    p.player.source_name = glr::pointer_to(s.source_name, pl.source_name);
    const glr_encoder_params &e = params.encoder;
    s.codec = glr::copy_of(e.codec);
    s.pix_fmt = glr::copy_of(e.pix_fmt);
    s.codec_options = glr::copy_of(e.codec_options);
    s.output = glr::copy_of(e.output);
    s.container = glr::copy_of(e.container);
    s.format_options = glr::copy_of(e.format_options);
    s.audio_input = glr::copy_of(e.audio.input);
    s.audio_codec = glr::copy_of(e.audio.codec);
    p.encoder.codec = glr::pointer_to(s.codec, e.codec);
    p.encoder.pix_fmt = glr::pointer_to(s.pix_fmt, e.pix_fmt);
    p.encoder.codec_options = glr::pointer_to(s.codec_options, e.codec_options);
    p.encoder.output = glr::pointer_to(s.output, e.output);
    p.encoder.container = glr::pointer_to(s.container, e.container);
    p.encoder.format_options = glr::pointer_to(s.format_options, e.format_options);
    p.encoder.audio.input = glr::pointer_to(s.audio_input, e.audio.input);
    p.encoder.audio.codec = glr::pointer_to(s.audio_codec, e.audio.codec);
    for (const char *const *entry = e.metadata; entry && *entry; entry++)
        s.metadata.emplace_back(*entry);
    for (const char *const *arg = params.pipe.args; arg && *arg; arg++)
        s.pipe_args.emplace_back(*arg);
    for (const std::string &arg : s.pipe_args)
        s.pipe_arg_entries.push_back(arg.c_str());
    s.pipe_arg_entries.push_back(nullptr);
    s.pipe_ffmpeg = glr::copy_of(params.pipe.ffmpeg);
    p.pipe.args = piped ? s.pipe_arg_entries.data() : nullptr;
    p.pipe.ffmpeg = glr::pointer_to(s.pipe_ffmpeg, params.pipe.ffmpeg);
    if (params.chunk) // what glr_join reads back: the chunk's place on the timeline
        s.metadata.push_back(std::string(GLR_EXPORT_CHUNK_TAG) + "=" +
                             glr::chunk_tag_value({pl.first_frame, params.frame_count, p.player.fps_num,
                                                   p.player.fps_den}));
    for (const std::string &entry : s.metadata)
        s.metadata_entries.push_back(entry.c_str());
    s.metadata_entries.push_back(nullptr);
    // The Image pass's alpha kept is the picture's transparency, which the encoder keeps.
    if (!p.encoder.alpha)
        p.encoder.alpha = glr::enum_value(p.player.alpha);
    p.encoder.metadata = s.metadata.empty() ? nullptr : s.metadata_entries.data();
    if (pl.feeder) { // the caller's struct may go; its opaque stays
        s.feeder = *pl.feeder;
        p.player.feeder = &s.feeder;
    }

    glr_audio_params &audio = p.encoder.audio;
    bool sound_pass = !audio.input && !params.no_sound_pass && glr_project_has_sound_pass(pl.project);
    if (!audio.input && audio.sample_rate && !sound_pass)
        glr::fail(-EINVAL, "glr_export_create: encoder.audio.sample_rate without audio.input is the Sound pass's "
                           "rate, and %s",
                  params.no_sound_pass ? "no_sound_pass is set" : "the project has no Sound pass");
    // An output that holds no sound (an image sequence, a GIF) gets none, nor does a chunk
    // (the join writes the sound once); the player still plays the Sound pass for the
    // sound channels that hear it.
    s.mux_sound = sound_pass && !params.chunk && !piped && (audio.codec || glr::holds_sound(p.encoder));
    if (sound_pass && !s.mux_sound)
        glr_log_message(log, GLR_LOG_INFO,
                           glr::format("%s holds no sound: the Sound pass is only heard by the sound channels "
                                       "without a file",
                                       piped ? "the pipe to ffmpeg" : p.encoder.output)
                               .c_str());
    if (sound_pass) {
        int &rate = s.sound_rate;
        rate = audio.sample_rate;
        if (!rate && s.feeder.sample_rate)
            rate = static_cast<int>(std::lround(s.feeder.sample_rate(s.feeder.opaque)));
        if (!rate)
            rate = GLR_SOUND_RATE_DEFAULT;
        if (rate < GLR_SOUND_RATE_MIN || rate > GLR_SOUND_RATE_MAX)
            glr::fail(-EINVAL, "glr_export_create: the Sound pass's sample rate %d Hz is outside %d..%d", rate,
                      GLR_SOUND_RATE_MIN, GLR_SOUND_RATE_MAX);
        long long end = glr::sample_at(pl.first_frame + params.frame_count, rate, p.player.fps_num, p.player.fps_den);
        if (s.mux_sound && end > INT32_MAX)
            glr::fail(-EINVAL, "glr_export_create: the Sound pass renders up to sample 2^31 - 1 (%.0f s at %d Hz); the "
                               "range ends at sample %lld: render it without the Sound pass, or in parts",
                      INT32_MAX / static_cast<double>(rate), rate, end);
        if (s.mux_sound) {
            audio.sample_rate = rate;
            audio.channels = 2;
        }
    }
    if (!s.mux_sound && !audio.input)
        audio.sample_rate = 0; // no sound track

    // What the encoder will be, checked now, before any GL (an unknown codec or option, a
    // container that cannot hold the codec): for RGB frames, then the ring format is the
    // encoder's own YUV made on the GPU, or BGRA for libswscale (also what ffv1 and
    // rawvideo take as it is).
    if (piped) { // ffmpeg reads the ring's frames as they are: NV12, or BGRA it converts
        s.ring_format = params.ring_format                                  ? params.ring_format
                        : params.conversion == GLR_EXPORT_CONVERT_GPU ? GLR_FORMAT_NV12
                                                                      : GLR_FORMAT_BGRA8;
        s.plan.format = s.ring_format;
        return;
    }
    glr_encoder_params ep = s.encoder_params();
    ep.width = pl.width;
    ep.height = pl.height;
    ep.fps_num = p.player.fps_num;
    ep.fps_den = p.player.fps_den;
    ep.format = GLR_FORMAT_BGRA8;
    s.plan = glr_encoder::check(log, ep);
    if (params.chunk) {
        make_joinable(s);
        ep.codec_options = p.encoder.codec_options;
        ep.format_options = p.encoder.format_options;
        s.plan = glr_encoder::check(log, ep); // the options added, tried
    }
    bool updates_one_file = p.encoder.format_options && std::strstr(p.encoder.format_options, "update=1");
    if (std::strcmp(s.plan.container, "image2") == 0 && params.frame_count > 1 &&
        !av_filename_number_test(p.encoder.output) && !updates_one_file)
        glr::fail(-EINVAL,
                  "%s names one picture, and %d frames were asked for: name a numbered sequence (frames/%%05d.png), "
                  "render one frame, or write a video file (.mp4, .mkv)",
                  p.encoder.output, params.frame_count);
    s.ring_format = params.ring_format                                  ? params.ring_format
                    : params.conversion == GLR_EXPORT_CONVERT_GPU ? s.plan.format
                                                                  : GLR_FORMAT_BGRA8;
}

// A render thread left in the driver that has since ended is joined, for the reason run()
// joins one (its last steps, EGL's thread clean-up among them, must not overlap exit());
// one still in the driver is let go: it ends on its own, holding the shared state.
int glr_export::start()
{
    {
        std::lock_guard<std::mutex> lock(shared_->mutex);
        if (shared_->state != GLR_EXPORT_READY || supervisor_.joinable())
            glr::fail(-EINVAL, "glr_export_start: a job runs once");
    }
    supervisor_ = std::thread([this] {
        int rc = glr::guarded(shared_->log, [&] { return run(); });
        std::lock_guard<std::mutex> lock(shared_->mutex);
        run_code_ = rc;
        ran_ = true;
        shared_->changed.notify_all();
    });
    return 0;
}

int glr_export::wait(uint64_t timeout_ns)
{
    std::unique_lock<std::mutex> lock(shared_->mutex);
    if (!supervisor_.joinable() && !ran_)
        glr::fail(-EINVAL, "glr_export_wait: the job was not started (glr_export_start)");
    auto ended = [&] { return ran_; };
    if (timeout_ns == UINT64_MAX)
        shared_->changed.wait(lock, ended);
    else if (!shared_->changed.wait_for(lock, std::chrono::nanoseconds(timeout_ns), ended))
        return -EAGAIN;
    int rc = run_code_;
    std::string message = shared_->error_message;
    lock.unlock();
    if (supervisor_.joinable())
        supervisor_.join();
    if (rc < 0) // logged on the job's thread: this thread's last error only
        glr_priv_report_error(nullptr, rc, message.c_str(), 0);
    return rc;
}

glr_export::~glr_export()
{
    if (supervisor_.joinable()) { // started, and not waited for: stopped, as a cancel does
        cancel();
        supervisor_.join();
    }
    shared_->stop_relaying(); // the caller's log may go with the job
    if (!left_in_driver_.joinable())
        return;
    bool ended;
    {
        std::lock_guard<std::mutex> lock(shared_->mutex);
        ended = shared_->render_done;
    }
    if (ended) {
#ifdef GLREADER_TEST_SEAMS
        shared_->release_hold(); // a thread a test holds at its end (GLR_INTERNAL_HOLD_END) goes on
#endif
        left_in_driver_.join();
    } else {
#ifdef GLREADER_TEST_SEAMS
        glr::held_after_destroy(shared_);
#endif
        left_in_driver_.detach();
    }
}

glr_log *glr_export::log() const { return shared_->log; }

void glr_export::cancel() noexcept { shared_->cancel = true; }

glr_export_stats glr_export::stats() const
{
    std::lock_guard<std::mutex> lock(shared_->mutex);
    return shared_->snapshot();
}

int glr_export::run()
{
    export_shared &s = *shared_;
    const glr_export_params &p = s.params;
    std::unique_lock<std::mutex> lock(s.mutex);
    if (s.state != GLR_EXPORT_READY)
        glr::fail(-EINVAL, "glr_export_run: a job runs once");
    s.state = GLR_EXPORT_STARTING;
    s.started = glr::clock::now();
    s.render_running = true;
    glr::render_threads_alive(+1);
    std::thread render([shared = shared_] {
        {
            glr::render_work work(shared);
            work();
        }
        shared->hold_point_reached(GLR_INTERNAL_HOLD_END);
        glr::render_threads_alive(-1);
    });
    std::thread finisher;
    glr::clock::time_point cancel_seen{};
    const auto interval = std::chrono::milliseconds(p.progress_interval_ms ? p.progress_interval_ms
                                                                           : glr::default_progress_ms);
    auto next_report = s.started;
    glr_export_state reported = s.state;
    auto report = [&] {
        reported = s.state;
        glr_export_stats stats = s.snapshot();
        lock.unlock();
        p.progress(p.progress_opaque, &stats);
        lock.lock();
    };
    while (!s.render_done && !(s.abandoned && s.finisher_done)) {
        s.changed.wait_for(lock, glr::tick);
        auto now = glr::clock::now();
        if (p.interrupt.callback && !s.interrupted) {
            lock.unlock();
            bool stop_now = p.interrupt.callback(p.interrupt.opaque) != 0;
            lock.lock();
            if (stop_now) {
                s.interrupted = true;
                s.cancel = true;
            }
        }
        if (s.cancel && cancel_seen == glr::clock::time_point{})
            cancel_seen = now;
        bool over_limit = s.compiling && p.compile_timeout > 0 &&
                          std::chrono::duration<double>(now - s.busy_since).count() > p.compile_timeout;
        bool cancel_unanswered = s.cancel && now - std::max(cancel_seen, s.busy_since) >= glr::cancel_grace;
        if (s.busy && !s.abandoned && (over_limit || s.interrupted || cancel_unanswered) &&
            (!s.recorder || glr_recorder_abandon(s.recorder) == 0)) {
            // The render thread is held in the driver: finalize without it.
            s.abandoned = true;
            if (over_limit) {
                s.stop = GLR_EXPORT_COMPILE_TIMEOUT;
                s.record_error(-ETIMEDOUT, glr::format("the shader has compiled (or rendered its first frame) for "
                                                       "over %g s: giving up",
                                                       p.compile_timeout));
                glr_log_message(s.log, GLR_LOG_ERROR, s.error_message.c_str());
            }
            finisher = std::thread(glr::finish_without_render, shared_);
        }
        if (p.progress && (now >= next_report || s.state != reported)) {
            next_report = now + interval;
            report();
        }
    }
    // A render thread that ended is joined: its thread-local clean-up (EGL's, the driver's)
    // must not overlap what the caller does next, exit() included. One held in the driver
    // is kept for the destructor: it frees what it made (it holds the shared state) when
    // the driver lets it go.
    bool render_ended = s.render_done;
    lock.unlock();
    if (render_ended)
        render.join();
    else
        left_in_driver_ = std::move(render);
    if (finisher.joinable())
        finisher.join();
    lock.lock();
    s.ended = glr::clock::now();
    s.state = GLR_EXPORT_ENDED;
    int rc = 0;
    if (s.stop == GLR_EXPORT_COMPILE_TIMEOUT) {
        rc = -ETIMEDOUT;
    } else if (s.interrupted) {
        s.stop = GLR_EXPORT_INTERRUPTED;
        rc = -EINTR;
        s.error = 0;
        s.record_error(rc, "glr_export_run: interrupted: the output keeps what was written");
    } else if (s.error) {
        s.stop = GLR_EXPORT_FAILED;
        rc = s.error;
    } else {
        s.stop = s.complete ? GLR_EXPORT_COMPLETE : GLR_EXPORT_CANCELLED;
    }
    if (rc < 0) // logged where it happened: this thread's last error only
        glr_priv_report_error(s.log, rc, s.error_message.c_str(), rc == -EINTR);
    if (p.progress)
        report();
    return rc;
}

#ifdef GLREADER_TEST_SEAMS
void glr_export::hold_at(int point)
{
    std::lock_guard<std::mutex> lock(shared_->mutex);
    if (point == GLR_INTERNAL_HOLD_END)
        shared_->hold_at_end = true;
    else
        shared_->hold_point = point;
}

bool glr_export::wait_held(double seconds)
{
    std::unique_lock<std::mutex> lock(shared_->mutex);
    return shared_->changed.wait_for(lock, std::chrono::duration<double>(seconds), [&] { return shared_->held; });
}

int glr_export::render_threads()
{
    std::lock_guard<std::mutex> lock(glr::live_mutex);
    return glr::live_render_threads;
}

bool glr_export::wait_render_threads(int at_most, double seconds)
{
    std::unique_lock<std::mutex> lock(glr::live_mutex);
    return glr::live_changed.wait_for(lock, std::chrono::duration<double>(seconds),
                                      [&] { return glr::live_render_threads <= at_most; });
}

void glr_export::fences_unsignalled(int polls) { shared_->unsignalled_polls = polls; }

void glr_export::release_hold() { shared_->release_hold(); }

void glr_export::release_destroyed()
{
    std::vector<std::weak_ptr<export_shared>> held;
    {
        std::lock_guard<std::mutex> lock(glr::destroyed_holds_mutex);
        held.swap(glr::destroyed_holds);
    }
    for (const std::weak_ptr<export_shared> &w : held)
        if (std::shared_ptr<export_shared> s = w.lock())
            s->release_hold();
}
#endif
