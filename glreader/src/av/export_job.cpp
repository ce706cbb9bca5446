// glr_export's lifecycle (av/export_job.hpp): create, run or start and wait, cancel, stats,
// destroy; and the supervisor, the thread that runs it, which reports progress, polls the
// interrupt and the compile limit, and finalizes without a render thread held in the
// driver. Its params are checked in export_params.cpp, its render thread is
// export_render.cpp, and what they share is av/export_shared.hpp.
#include "av/export_job.hpp"

#include "av/export_shared.hpp"
#include "av/recorder.hpp"
#include "error.hpp"
#include "guarded.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace glr {

namespace {

// How long a render thread may take to look at a cancel (or an interrupt) itself, between
// frames, before the supervisor finalizes without it.
constexpr auto cancel_grace = std::chrono::milliseconds(500);
// How often the supervisor looks at the cancel, the interrupt and the limits.
constexpr auto tick = std::chrono::milliseconds(20);
constexpr int default_progress_ms = 100;

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

} // namespace

} // namespace glr

using glr::export_shared;

glr_export::glr_export(glr_log *log, const glr_export_params &params) : shared_(std::make_shared<export_shared>(log))
{
    glr::prepare_export(*shared_, log, params);
}

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

// A render thread left in the driver that has since ended is joined, for the reason run()
// joins one (its last steps, EGL's thread clean-up among them, must not overlap exit());
// one still in the driver is let go: it ends on its own, holding the shared state.
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
    std::thread render = glr::start_render_thread(shared_);
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
        if (s.interrupted && s.recorder) // an ffmpeg child the render thread waits for: given up
            s.recorder->interrupt_sink();
        bool over_limit = s.compiling && p.compile_timeout > 0 &&
                          std::chrono::duration<double>(now - s.busy_since).count() > p.compile_timeout;
        // An interrupt is a cancel too: a render thread busy in a frame or a readback is not
        // yet held, and one given up too soon would still be freeing its GL context while
        // the program exits.
        bool cancel_unanswered = s.cancel && now - std::max(cancel_seen, s.busy_since) >= glr::cancel_grace;
        if (s.busy && !s.abandoned && (over_limit || cancel_unanswered) &&
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

int glr_export::render_threads() { return glr::live_render_threads_now(); }

bool glr_export::wait_render_threads(int at_most, double seconds)
{
    return glr::wait_live_render_threads(at_most, seconds);
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
