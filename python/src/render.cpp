// glreader.render's engine: the library's export job (glr_export, what glreader-export
// runs) with the caller's options, run on a thread of its own while the caller's thread,
// holding the GIL only between waits, reports progress, passes glreader's messages to
// logging and turns Ctrl-C into a cancel that still finalizes the output.
#include "render.hpp"

#include "errors.hpp"
#include "messages.hpp"
#include "options.hpp"

#include "glreader/export.h"

#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>

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

struct project_deleter {
    void operator()(glr_project *p) const { glr_project_destroy(&p); }
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

nb::dict run_export(const nb::dict &o, const nb::object &progress, double interval)
{
    glr_log *log = messages_log();
    std::string project_path = nb::cast<std::string>(o["project"]);
    std::optional<std::string> media = text(o, "media");
    glr_project_params pp{};
    pp.path = project_path.c_str();
    pp.media_dir = c_str(media);
    std::unique_ptr<glr_project, project_deleter> project(glr_project_open(log, &pp));
    if (!project)
        fail_with_last_error();
    for (nb::handle item : get<nb::list>(o, "channels", nb::list())) {
        auto [channel, spec] = nb::cast<std::pair<int, std::string>>(item);
        std::string where = "channels[" + std::to_string(channel) + "]";
        if (glr_project_bind(project.get(), GLR_SCENE_IMAGE_PASS, channel, spec.c_str(), where.c_str()) < 0)
            fail_with_last_error();
    }

    std::optional<std::string> date = text(o, "date");
    glr_export_params p{};
    glr_player_params &pl = p.player;
    pl.width = get<int>(o, "width", 0);
    pl.height = get<int>(o, "height", 0);
    pl.fps_num = get<int>(o, "fps_num", 30);
    pl.fps_den = get<int>(o, "fps_den", 1);
    pl.project = project.get();
    pl.first_frame = get<int>(o, "first_frame", 0);
    pl.date = c_str(date);
    pl.alpha = static_cast<glr_alpha>(get<int>(o, "alpha", 0));
    if (std::optional<std::string> mouse = text(o, "mouse"); mouse && glr_shadertoy_parse_mouse(mouse->c_str(), pl.mouse) < 0)
        fail_with_last_error();
    p.frame_count = get<int>(o, "frames", 0);
    encoder_options encoder(o);
    p.encoder = encoder.params;
    p.no_sound_pass = get<bool>(o, "no_audio", false);
    p.chunk = get<bool>(o, "chunk", false);
    p.compile_timeout = get<double>(o, "compile_timeout", 0);

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
