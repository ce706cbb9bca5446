// glreader.render's engine: the library's export job (glr_export, what glreader-export
// runs) with the caller's options, started on a thread of its own (glr_export_start) while
// the caller's thread, holding the GIL only between waits (glr_export_wait), reports
// progress, passes glreader's messages to logging and turns Ctrl-C into a cancel that still
// finalizes the output.
#include "render.hpp"

#include "errors.hpp"
#include "messages.hpp"
#include "options.hpp"

#include "glreader/av/export_options.h"
#include "glreader/av/export.h"

#include <sys/stat.h>

#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cerrno>
#include <memory>
#include <optional>
#include <string>
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
    d["hardware_frames"] = s.encoder.hardware_frames;
    d["transferred_frames"] = s.encoder.transferred_frames;
    d["renderer"] = s.renderer;
    d["platform"] = s.platform;
    d["container"] = s.plan.container;
    d["video_encoder"] = s.plan.video_encoder;
    d["pix_fmt"] = s.plan.pix_fmt;
    d["audio_encoder"] = s.plan.audio_encoder;
    return d;
}

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

    glr_export *running = job.get();
    if (glr_export_start(running) < 0)
        fail_with_last_error();
    // Whatever leaves this scope (a Python error, a C++ one), the job is cancelled and
    // waited for first: the output is finalized, and no thread outlives the call.
    struct waiter {
        glr_export *job;
        bool waited = false;
        ~waiter()
        {
            if (waited)
                return;
            glr_export_cancel(job);
            nb::gil_scoped_release unlocked;
            glr_export_wait(job, UINT64_MAX);
        }
    } wait_on_exit{running};
    // Between waits: progress, messages, and Python's signals (Ctrl-C cancels: the job
    // finalizes what it rendered, then KeyboardInterrupt goes on up).
    std::optional<nb::python_error> raised;
    const auto tick = static_cast<uint64_t>((interval > 0 ? interval : 0.1) * 1e9);
    int code;
    std::string message;
    for (;;) {
        {
            nb::gil_scoped_release unlocked;
            code = glr_export_wait(running, tick);
            if (code < 0 && code != -EAGAIN)
                message = glr_last_error(); // this thread's: the job's words
        }
        bool done = code != -EAGAIN;
        flush_messages();
        if (done)
            break;
        if (raised)
            continue;
        try {
            if (PyErr_CheckSignals() != 0)
                throw nb::python_error();
            if (!progress.is_none()) { // the end is reported once, below
                glr_export_stats s{};
                glr_export_get_stats(running, &s);
                progress(stats_dict(s));
            }
        } catch (nb::python_error &error) {
            glr_export_cancel(running);
            raised.emplace(std::move(error));
        }
    }
    wait_on_exit.waited = true;
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
    if (code < 0)
        throw failure{code, message};
    return stats;
}

} // namespace glr_python
