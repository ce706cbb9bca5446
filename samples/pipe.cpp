// glreader-pipe: the TurboPipe loop in C++. Renders a scene headless, reads each frame
// back through the ring and writes the lease, without copying it, to the stdin of an
// `ffmpeg -f rawvideo -i -` child (vmsplice: the child reads straight from the ring's
// memory). For users who keep an out-of-process ffmpeg; glreader-export does the same
// work in-process.
//
//   glreader-pipe [-s 1280x720] [-r 30] [-t 5 | -n FRAMES] [--depth 3] [--shader FILE|DIR]
//                 [--channel0..3 SPEC] [--ring-format nv12] [--matrix M] [--range R] [--chroma-loc L]
//                 [--transport auto|write] [--ffmpeg PROGRAM] [-v LEVEL] [-- FFMPEG OUTPUT ARGS...]
//
// Frames go through the pipe as --ring-format: by default NV12 converted on the GPU (1.5 bytes
// a pixel instead of 4), with its colour description given to ffmpeg as the input's
// flags so the output is tagged with it; rgba/bgra send the rendered pixels as they are.
//
// The ffmpeg arguments after "--" replace the default output,
// "-c:v libx264 -preset ultrafast -pix_fmt yuv420p glreader-pipe.mp4", which is never
// overwritten: an existing one is refused unless -y, which ffmpeg is given too.
//
// A child that pauses is waited for, as long as it pauses. Ctrl-C in a shell reaches the
// child too: it finalizes its file, and this program counts that as a normal stop (130).
#include "command_line.hpp"
#include "program_log.hpp"
#include "project_scene.hpp"
#include "stop_signals.hpp"

#include "glreader/av/export.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

namespace {

struct settings_deleter {
    void operator()(glr_export_settings *s) const { glr_export_settings_destroy(&s); }
};

struct options {
    // What to render and how to read it back, read by the library's export table
    // (glreader/av/export_options.h), as glreader-export reads them.
    std::unique_ptr<glr_export_settings, settings_deleter> settings{glr_export_settings_create()};
    glr_pipe_transport transport = GLR_PIPE_AUTO;
    std::string ffmpeg;
    std::vector<std::string> ffmpeg_args; // empty: the default output
    sample::verbosity verbosity = sample::verbosity::warning;
};

const char *const default_output = "glreader-pipe.mp4";

// The table's options a pipe takes: what to render, and the readback; the encoder, the sound
// and the output are the ffmpeg child's (its arguments after --), but for -y, which ffmpeg
// is given too.
bool taken_by_the_pipe(const glr_export_option &o)
{
    std::string section = o.section, name = o.name;
    return section == "What to render" || (section == "Colour and readback" && name != "queue") || name == "overwrite";
}

// Why a table option the pipe does not take is refused: where to say it instead.
std::string given_to_ffmpeg(const glr_export_option &o, const std::string &spelled)
{
    std::string section = o.section, name = o.name;
    return spelled + ": " +
           (section == "Sound"  ? "glreader-pipe sends the picture alone; give ffmpeg a sound input of its own after --"
            : name == "queue"   ? "the pipe's own buffer queues the frames ffmpeg has not read yet"
            : name == "chunk"   ? "a chunk is glreader-export's: glr_join reads the tags it writes"
            : name == "hw_frames" || name == "hw_device"
                ? "the pipe sends ffmpeg frames read back to memory; hardware frames go to glreader-export's "
                  "in-process encoder"
                                : "ffmpeg's output arguments after -- choose it (-- -c:v libx264 -crf 20 out.mp4)");
}

sample::program_help help()
{
    using namespace sample;
    std::vector<help_section> sections = exported_sections(taken_by_the_pipe);
    for (help_section &section : sections) {
        for (option_doc &o : section.options)
            if (o.names == "--ring-format")
                o = o.with_default("nv12: 1.5 bytes a pixel, tagged for ffmpeg; with --convert cpu, bgra");
        if (section.title == "Colour and readback")
            section.options.insert(
                section.options.end(),
                {{"--transport", "auto|write", "auto: vmsplice into pipes, write() elsewhere; write: always write()",
                  "auto"},
                 {"--ffmpeg", "PROGRAM", "the ffmpeg to start", "$GLR_FFMPEG, else ffmpeg on the PATH"},
                 {"--", "ARGS...", "ffmpeg's output arguments, replacing the default output",
                  "-c:v libx264 -preset ultrafast -pix_fmt yuv420p glreader-pipe.mp4"}});
    }
    sections.push_back({"Messages", {doc::verbosity.with_default("warning; the child gets the same -loglevel")}});
    return {"glreader-pipe",
            "[OPTIONS] [-- FFMPEG OUTPUT ARGS...]",
            "Renders a Shadertoy shader or project headless, reads each frame back through glreader's ring and "
            "writes it, without a copy (vmsplice), to the stdin of an `ffmpeg -f rawvideo -i -` child, as "
            "TurboPipe does: for those who keep an ffmpeg process of their own. What to render is glreader-export's "
            "options; the arguments after -- are the child's output arguments.",
            sections,
            {"glreader-pipe --shader samples/shaders/plasma.frag -s 1920x1080 -t 10 -- -c:v libx264 -crf 20 plasma.mp4",
             "glreader-pipe -n 300 --ring-format rgba -- -f null -"}};
}

options parse(int argc, char **argv)
{
    options o;
    sample::command_line args(argc, argv, help());
    glr_export_settings *s = o.settings.get();
    while (args.next()) {
        const std::string &option = args.option();
        if (args.is("--")) {
            o.ffmpeg_args = args.rest();
            if (o.ffmpeg_args.empty())
                args.fail("-- needs ffmpeg's output arguments after it");
        } else if (args.verbosity_option(o.verbosity)) {
        } else if (args.is("--ffmpeg")) {
            o.ffmpeg = args.value();
        } else if (args.is("--transport")) {
            std::string v = args.value();
            if (v == "auto") o.transport = GLR_PIPE_AUTO;
            else if (v == "write") o.transport = GLR_PIPE_WRITE;
            else args.fail("--transport takes auto or write, not " + v);
        } else if (const glr_export_option *known = glr_export_option_find(option.c_str())) {
            if (!taken_by_the_pipe(*known))
                args.fail(given_to_ffmpeg(*known, option));
            std::string value = known->kind == GLR_EXPORT_OPTION_SWITCH ? "1" : args.value();
            if (glr_export_settings_set(s, option.c_str(), value.c_str()) < 0)
                args.fail(glr_last_error());
        } else if (glr_export_settings_set(s, option.c_str(), "") == -ENOENT) {
            args.fail(glr_last_error()); // neither glreader's nor an encoder's
        } else {
            args.fail(option + " is an encoder's option: ffmpeg's output arguments after -- take it (-- " + option +
                      " ...)");
        }
    }
    if (glr_export_settings_check(s) < 0)
        args.fail(glr_last_error());
    const char *overwrite = glr_export_settings_get(s, "overwrite");
    bool replace = overwrite && *overwrite == '1';
    if (o.ffmpeg_args.empty()) {
        args.refuse_existing(default_output, replace);
        // -n: ffmpeg refuses a file that appeared since, too.
        o.ffmpeg_args = {"-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", replace ? "-y" : "-n",
                         default_output};
    } else if (replace) { // ffmpeg takes its global options anywhere
        o.ffmpeg_args.insert(o.ffmpeg_args.begin(), "-y");
    }
    // The child logs as much as we do, errors at least: its last lines explain a failure.
    static const char *const child_levels[] = {"error", "error", "warning", "info", "verbose", "debug"};
    o.ffmpeg_args.insert(o.ffmpeg_args.begin(), {"-loglevel", child_levels[static_cast<int>(o.verbosity)]});
    return o;
}

// "120/300 frames, 58.1 fps" on stderr now and then (a terminal's line redrawn), with
// "waiting for ffmpeg to read" while the child takes no data. The job calls it on main's
// thread, also while its render thread waits.
class pipe_progress {
public:
    explicit pipe_progress(bool shown) : tty_(isatty(STDERR_FILENO)), shown_(shown) {}
    void total(int frames) { total_ = frames; }
    int interval_ms() const { return tty_ ? 200 : 2000; }

    void report(const glr_export_stats &s)
    {
        bool ended = s.state == GLR_EXPORT_ENDED;
        if (!shown_ || (ended ? !line_open_ : s.state != GLR_EXPORT_RENDERING && s.state != GLR_EXPORT_FLUSHING))
            return;
        std::string waiting = s.output_wait_seconds >= 1
                                  ? ", waiting for ffmpeg to read: " + std::to_string(std::lround(s.output_wait_seconds)) + " s"
                                  : "";
        if (s.cancel_requested && !ended)
            waiting += "; stopping: a second Ctrl-C exits at once";
        double fps = s.elapsed_seconds > 0 ? s.frames_rendered / s.elapsed_seconds : 0;
        std::fprintf(stderr, tty_ ? "\r%d/%d frames, %.1f fps%s " : "%d/%d frames, %.1f fps%s\n", s.frames_rendered,
                     total_, fps, waiting.c_str());
        line_open_ = tty_ && !ended;
        if (tty_ && ended)
            std::fprintf(stderr, "\n");
    }

    // Whether the terminal's line is the one the cursor is on: a message then starts a new one.
    bool line_open() const { return line_open_; }

private:
    int total_ = 0;
    bool tty_, shown_, line_open_ = false;
};

} // namespace

int main(int argc, char **argv)
{
    options o = parse(argc, argv);
    sample::catch_stop_signals();
    // Errors reach the user once, as the exception's message (and not at all when ffmpeg
    // stopped on the user's own Ctrl-C); warnings still show.
    sample::program_log messages(o.verbosity);
    glr_log *log = messages.get();
    bool render_left_running = false;
    pipe_progress progress(o.verbosity >= sample::verbosity::warning);
    try {
        glr_export_params params{};
        if (glr_export_settings_resolve(o.settings.get(), log, &params) < 0)
            throw glr::error(glr_last_error_code(), glr_last_error());
        // The encoder is ffmpeg's: of its params the frames' colour alone is read.
        glr_color color = params.encoder.color;
        params.encoder = {};
        params.encoder.color = color;
        std::vector<const char *> args;
        for (const std::string &arg : o.ffmpeg_args)
            args.push_back(arg.c_str());
        args.push_back(nullptr);
        params.pipe.args = args.data();
        params.pipe.ffmpeg = o.ffmpeg.empty() ? nullptr : o.ffmpeg.c_str();
        params.pipe.transport = o.transport;
        progress.total(params.frame_count);
        params.progress = [](void *opaque, const glr_export_stats *s) {
            static_cast<pipe_progress *>(opaque)->report(*s);
        };
        params.progress_opaque = &progress;
        params.progress_interval_ms = progress.interval_ms();

        glr::export_job job(params, log);
        int rc = sample::run_cancelled_on_stop(job.get());
        glr_export_stats st = job.stats();
        render_left_running = st.render_running;
        if (rc < 0 && sample::stop_signal() && (rc == GLR_ERROR_CHILD || rc == -EPIPE)) {
            // ffmpeg stopped reading on our own signal: Ctrl-C reached the whole process
            // group, and ffmpeg finalized its file on it too.
            if (o.verbosity >= sample::verbosity::warning)
                std::fprintf(stderr, "%sinterrupted: ffmpeg stopped on the signal too and finalized its output\n",
                             progress.line_open() ? "\n" : "");
        } else if (rc < 0 && st.stop != GLR_EXPORT_INTERRUPTED) {
            throw glr::error(rc, glr_last_error());
        } else {
            const glr_pipe_stats &s = st.pipe;
            double elapsed = st.elapsed_seconds;
            if (st.stop == GLR_EXPORT_CANCELLED && st.render_running)
                std::printf("stopped while frame %d was rendering; ffmpeg finalized its output\n",
                            params.player.first_frame + st.frames_rendered);
            std::printf("%s%d frames %dx%d at %d/%d fps, ring depth %d, in %.2f s: %.1f fps, %.2f GB/s through the "
                        "pipe\n",
                        st.stop == GLR_EXPORT_COMPLETE ? "" : "interrupted: ", st.frames_rendered, params.player.width,
                        params.player.height, params.player.fps_num, params.player.fps_den, params.ring_depth, elapsed,
                        st.frames_rendered / elapsed,
                        static_cast<double>(s.bytes_written) / elapsed / 1e9);
            std::printf("  %llu bytes by vmsplice, %llu by write; %llu syscalls, %llu retried; pipe size %zu KiB\n",
                        static_cast<unsigned long long>(s.vmsplice_bytes),
                        static_cast<unsigned long long>(s.write_bytes), static_cast<unsigned long long>(s.syscalls),
                        static_cast<unsigned long long>(s.retries), s.pipe_size / 1024);
            std::printf("  write to read by ffmpeg: p50 %.2f ms, p99 %.2f ms; render thread blocked on the queue "
                        "p99 %.2f ms\n",
                        s.delivery.p50_ms, s.delivery.p99_ms, s.queue_wait.p99_ms);
        }
    } catch (const std::exception &e) {
        std::fprintf(stderr, "%sglreader-pipe: %s\n", progress.line_open() ? "\n" : "", e.what());
        return sample::end_after_job(1, render_left_running);
    }
    return sample::end_after_job(sample::stop_status(), render_left_running);
}
