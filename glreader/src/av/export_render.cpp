// The export job's render thread (av/export_shared.hpp): in a GL context of its own it
// plays the project, captures each frame through the recorder into the encoder or the
// pipe, submits the Sound pass's samples with it, and frees what it made, even after the
// supervisor left it behind in the driver.
#include "av/export_shared.hpp"

#include "glreader/utils/libav_media.h"
#include "av/chunk_tag.hpp"
#include "av/logged_failure.hpp"
#include "error.hpp"

#include <cerrno>
#include <utility>

namespace glr {

namespace {

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
    // range's start (a chunk's from the timeline's: its track starts at its first frame).
    void submit_sound(int i)
    {
        const int first = s_->params.player.first_frame;
        long long range_first = s_->params.chunk ? 0 : glr_player_sound_sample(player_, first);
        long long from = glr_player_sound_sample(player_, first + i), to = glr_player_sound_sample(player_, first + i + 1);
        stereo_.resize(static_cast<size_t>(to - from) * 2);
        s_->enter_busy(false);
        check(glr_player_render_sound(player_, from, static_cast<int>(to - from), stereo_.data()));
        s_->leave_busy();
        samples_.resize(stereo_.size());
        for (size_t k = 0; k < samples_.size(); k++)
            samples_[k] = sound_sample_value(stereo_[k]);
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
        ep.use_frame_pts = p.chunk; // frames and sound are stamped with their place on the timeline
        ep.first_pts = p.chunk ? p.player.first_frame : 0;
        ep.interrupt = {output_interrupt, s_.get()};
        rp.pipe = p.pipe;
        rp.ring.format = s_->ring_format;
        rp.ring.depth = p.ring_depth;
        rp.hw_frames = p.hw_frames;
        rp.hw_device = p.hw_device;
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

} // namespace

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

std::thread start_render_thread(std::shared_ptr<export_shared> s)
{
    render_threads_alive(+1);
    return std::thread([s = std::move(s)] {
        {
            render_work work(s);
            work();
        }
        s->hold_point_reached(GLR_INTERNAL_HOLD_END);
        render_threads_alive(-1);
    });
}

#ifdef GLREADER_TEST_SEAMS
int live_render_threads_now()
{
    std::lock_guard<std::mutex> lock(live_mutex);
    return live_render_threads;
}

bool wait_live_render_threads(int at_most, double seconds)
{
    std::unique_lock<std::mutex> lock(live_mutex);
    return live_changed.wait_for(lock, std::chrono::duration<double>(seconds),
                                 [&] { return live_render_threads <= at_most; });
}
#endif

} // namespace glr
