// glreader.render's engine: the library's export job (glr_export, what glreader-export
// runs) with the caller's options, run on a thread of its own while the caller's thread,
// holding the GIL only between waits, reports progress, passes glreader's messages to
// logging and turns Ctrl-C into a cancel that still finalizes the output.
#include "render.hpp"

#include "errors.hpp"
#include "messages.hpp"
#include "options.hpp"

#include "glreader/av/export_options.h"
#include "glreader/export.h"

#include <sys/stat.h>

#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace nb = nanobind;

namespace glr_python {

namespace {

struct settings_deleter {
    void operator()(glr_export_settings *s) const { glr_export_settings_destroy(&s); }
};
struct job_deleter {
    void operator()(glr_export *j) const { glr_export_destroy(&j); }
};

const char *state_name(glr_export_state s)
{
    switch (s) {
    case GLR_EXPORT_READY: return "ready";
    case GLR_EXPORT_STARTING: return "starting";
    case GLR_EXPORT_PREROLLING: return "prerolling";
    case GLR_EXPORT_RENDERING: return "rendering";
    case GLR_EXPORT_FLUSHING: return "flushing";
    case GLR_EXPORT_ENDED: return "ended";
    }
    return "unknown";
}

const char *stop_name(glr_export_stop s)
{
    switch (s) {
    case GLR_EXPORT_NOT_STOPPED: return "";
    case GLR_EXPORT_COMPLETE: return "complete";
    case GLR_EXPORT_CANCELLED: return "cancelled";
    case GLR_EXPORT_INTERRUPTED: return "interrupted";
    case GLR_EXPORT_COMPILE_TIMEOUT: return "compile timeout";
    case GLR_EXPORT_FAILED: return "failed";
    }
    return "unknown";
}

nb::dict stats_dict(const glr_export_stats &s)
{
    nb::dict d;
    d["state"] = state_name(s.state);
    d["stop"] = stop_name(s.stop);
    d["first_frame"] = s.first_frame;
    d["frame_count"] = s.frame_count;
    d["frames_rendered"] = s.frames_rendered;
    d["frames_encoded"] = s.encoder.frames_encoded;
    d["preroll_frames"] = s.preroll_frames;
    d["preroll_seconds"] = s.preroll_seconds;
    d["elapsed_seconds"] = s.elapsed_seconds;
    d["output_wait_seconds"] = s.output_wait_seconds;
    d["bytes_written"] = s.encoder.bytes_written;
    d["audio_samples_encoded"] = s.encoder.audio_samples_encoded;
    d["renderer"] = s.renderer;
    d["platform"] = s.platform;
    d["container"] = s.plan.container;
    d["video_encoder"] = s.plan.video_encoder;
    d["pix_fmt"] = s.plan.pix_fmt;
    d["audio_encoder"] = s.plan.audio_encoder;
    return d;
}

// What the job's thread leaves for the caller's.
struct outcome {
    std::mutex mutex;
    std::condition_variable ended;
    bool done = false;
    int code = 0;
    std::string message;
};

} // namespace

nb::dict run_export(const std::vector<std::pair<std::string, std::string>> &options, const nb::object &progress,
                    double interval)
{
    glr_log *log = messages_log();
    // The library's option table reads each (glreader/av/export_options.h): an unknown key
    // or a bad value is a ValueError naming it, as render's keyword.
    std::unique_ptr<glr_export_settings, settings_deleter> settings(glr_export_settings_create());
    if (!settings)
        throw std::bad_alloc();
    for (const auto &[key, value] : options)
        if (glr_export_settings_set(settings.get(), key.c_str(), value.c_str()) < 0)
            throw failure{-EINVAL, glr_last_error()};
    if (glr_export_settings_check(settings.get()) < 0)
        throw failure{-EINVAL, glr_last_error()};
    glr_export_params p{};
    if (glr_export_settings_resolve(settings.get(), log, &p) < 0)
        fail_with_last_error();
    // Said in Python's words before anything starts; the library's exclusive create still
    // guards against a file that appears later.
    struct stat st;
    if ((p.encoder.output_flags & GLR_OUTPUT_NO_OVERWRITE) && stat(p.encoder.output, &st) == 0 && S_ISREG(st.st_mode))
        throw failure{-EEXIST, std::string(p.encoder.output) + " already exists: overwrite=True replaces it"};

    // FFmpeg's lines (x264's summary, a muxer's warnings) go to logging while it runs.
    std::optional<ffmpeg_messages> route(std::in_place);
    std::unique_ptr<glr_export, job_deleter> job(glr_export_create(log, &p));
    if (!job)
        fail_with_last_error();

    auto result = std::make_shared<outcome>();
    glr_export *running = job.get();
    // Whatever leaves this scope (a Python error, a C++ one), the job is cancelled and its
    // thread joined first: the output is finalized, and no thread outlives the call.
    std::thread worker;
    struct joiner {
        std::thread &thread;
        glr_export *job;
        ~joiner()
        {
            if (!thread.joinable())
                return;
            glr_export_cancel(job);
            nb::gil_scoped_release unlocked;
            thread.join();
        }
    } join_on_exit{worker, running};
    worker = std::thread([running, result] {
        int rc = glr_export_run(running);
        std::lock_guard<std::mutex> lock(result->mutex);
        result->code = rc;
        if (rc < 0)
            result->message = glr_last_error();
        result->done = true;
        result->ended.notify_all();
    });
    // Between waits: progress, messages, and Python's signals (Ctrl-C cancels: the job
    // finalizes what it rendered, then KeyboardInterrupt goes on up).
    std::optional<nb::python_error> raised;
    const auto tick = std::chrono::duration<double>(interval > 0 ? interval : 0.1);
    for (bool done = false; !done;) {
        {
            nb::gil_scoped_release unlocked;
            std::unique_lock<std::mutex> lock(result->mutex);
            result->ended.wait_for(lock, tick, [&] { return result->done; });
            done = result->done;
        }
        flush_messages();
        if (raised)
            continue;
        try {
            if (PyErr_CheckSignals() != 0)
                throw nb::python_error();
            if (!progress.is_none() && !done) { // the end is reported once, below
                glr_export_stats s{};
                glr_export_get_stats(running, &s);
                progress(stats_dict(s));
            }
        } catch (nb::python_error &error) {
            glr_export_cancel(running);
            raised.emplace(std::move(error));
        }
    }
    {
        nb::gil_scoped_release unlocked;
        worker.join();
    }
    route.reset();
    flush_messages();
    glr_export_stats s{};
    glr_export_get_stats(running, &s);
    nb::dict stats = stats_dict(s);
    if (!progress.is_none() && !raised)
        progress(stats);
    job.reset();
    if (raised)
        throw std::move(*raised);
    if (result->code < 0)
        throw failure{result->code, result->message};
    return stats;
}

} // namespace glr_python
