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

#include "glreader/export.hpp"
#include "glreader/frame_range.h"

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

struct options {
    int width = 1280, height = 720;
    sample::frame_rate fps{30, 1};
    glr_range_request range{}; // -t, -n as given, read by the library's rule (glreader/frame_range.h)
    int frames = 0;            // the count read; without -t or -n, 5 s
    int depth = 3;
    glr_pipe_transport transport = GLR_PIPE_AUTO;
    glr_format format = GLR_FORMAT_NV12;
    glr_color color{};
    std::string ffmpeg;
    sample::project_options project; // --shader, --channelN
    bool overwrite = false, require_hw = false;
    std::vector<std::string> ffmpeg_args; // empty: the default output
    sample::verbosity verbosity = sample::verbosity::warning;
};

const char *const default_output = "glreader-pipe.mp4";

sample::program_help help()
{
    using namespace sample;
    return {"glreader-pipe",
            "[OPTIONS] [-- FFMPEG OUTPUT ARGS...]",
            "Renders a scene headless, reads each frame back through glreader's ring and writes it, without a "
            "copy (vmsplice), to the stdin of an `ffmpeg -f rawvideo -i -` child, as TurboPipe does: for those who "
            "keep an ffmpeg process of their own. The arguments after -- are the child's output arguments.",
            {{"What to render",
              {doc::shader, doc::media, doc::channels, doc::size, doc::rate, doc::seconds, doc::frames, doc::require_hw}},
             {"Through the pipe",
              {doc::ring_format.with_default("nv12: 1.5 bytes a pixel, tagged for ffmpeg"), doc::matrix, doc::range,
               doc::chroma_loc, doc::depth,
               {"--transport", "auto|write", "auto: vmsplice into pipes, write() elsewhere; write: always write()",
                "auto"},
               {"--ffmpeg", "PROGRAM", "the ffmpeg to start", "$GLR_FFMPEG, else ffmpeg on the PATH"},
               {"--", "ARGS...", "ffmpeg's output arguments, replacing the default output",
                "-c:v libx264 -preset ultrafast -pix_fmt yuv420p glreader-pipe.mp4"},
               doc::overwrite}},
             {"Messages", {doc::verbosity.with_default("warning; the child gets the same -loglevel")}}},
            {"glreader-pipe --shader samples/shaders/plasma.frag -s 1920x1080 -t 10 -- -c:v libx264 -crf 20 plasma.mp4",
             "glreader-pipe -n 300 --ring-format rgba -- -f null -"}};
}

options parse(int argc, char **argv)
{
    options o;
    sample::command_line args(argc, argv, help());
    while (args.next()) {
        if (args.is("--")) {
            o.ffmpeg_args = args.rest();
            if (o.ffmpeg_args.empty())
                args.fail("-- needs ffmpeg's output arguments after it");
        } else if (args.is("-s")) {
            args.size(o.width, o.height);
        } else if (args.is("-r")) {
            o.fps = args.rate();
        } else if (args.is("-t")) {
            o.range.duration_us = args.time_us(0.001, sample::max_seconds);
        } else if (args.is("-n") || args.is("-frames:v")) {
            o.range.frames = args.count(1, INT_MAX);
        } else if (args.is("--depth")) {
            o.depth = args.count(1, 64);
        } else if (o.project.read(args)) {
        } else if (args.is("--ring-format")) {
            o.format = args.format();
        } else if (args.color_option(o.color)) {
        } else if (args.verbosity_option(o.verbosity)) {
        } else if (args.is("--require-hw")) {
            o.require_hw = true;
        } else if (args.is("--ffmpeg")) {
            o.ffmpeg = args.value();
        } else if (args.is("-y")) {
            o.overwrite = true;
        } else if (args.is("--transport")) {
            std::string v = args.value();
            if (v == "auto") o.transport = GLR_PIPE_AUTO;
            else if (v == "write") o.transport = GLR_PIPE_WRITE;
            else args.fail("--transport takes auto or write, not " + v);
        } else {
            args.fail("unknown option " + args.option());
        }
    }
    if (!o.range.frames && !o.range.duration_us)
        o.range.duration_us = 5000000;
    o.range.fps_num = o.fps.num;
    o.range.fps_den = o.fps.den;
    int first = 0;
    if (glr_frame_range(&o.range, &first, &o.frames) < 0)
        args.fail(glr_last_error());
    if (o.ffmpeg_args.empty()) {
        args.refuse_existing(default_output, o.overwrite);
        // -n: ffmpeg refuses a file that appeared since, too.
        o.ffmpeg_args = {"-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p",
                         o.overwrite ? "-y" : "-n", default_output};
    } else if (o.overwrite) { // ffmpeg takes its global options anywhere
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
    pipe_progress(int total, bool shown) : total_(total), tty_(isatty(STDERR_FILENO)), shown_(shown) {}
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
    int total_;
    bool tty_, shown_, line_open_ = false;
};

} // namespace

int main(int argc, char **argv)
{
    options o = parse(argc, argv);
    sample::catch_stop_signals();
    // Errors reach the user once, as the exception's message (and not at all when ffmpeg
    // stopped on the user's own Ctrl-C); warnings still show. Never freed: a render thread
    // left in the driver keeps using it until the process exits.
    glr_log *log = sample::program_log(o.verbosity).release();
    bool render_left_running = false;
    pipe_progress progress(o.frames, o.verbosity >= sample::verbosity::warning);
    try {
        glr::project project = o.project.load(log);
        glr_export_params params{};
        glr_player_params &pl = params.player;
        pl.width = o.width;
        pl.height = o.height;
        pl.fps_num = o.fps.num;
        pl.fps_den = o.fps.den;
        pl.project = project.get();
        params.frame_count = o.frames;
        std::vector<const char *> args;
        for (const std::string &arg : o.ffmpeg_args)
            args.push_back(arg.c_str());
        args.push_back(nullptr);
        params.pipe.args = args.data();
        params.pipe.ffmpeg = o.ffmpeg.empty() ? nullptr : o.ffmpeg.c_str();
        params.pipe.transport = o.transport;
        params.ring_format = o.format;
        params.ring_depth = o.depth;
        params.encoder.color = o.color;
        params.context.require_hw = o.require_hw;
        params.progress = [](void *opaque, const glr_export_stats *s) {
            static_cast<pipe_progress *>(opaque)->report(*s);
        };
        params.progress_opaque = &progress;
        params.progress_interval_ms = progress.interval_ms();

        glr::export_job job(params, log);
        sample::cancel_on_stop(job.get());
        int rc = job.run();
        sample::cancel_on_stop(nullptr);
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
                            pl.first_frame + st.frames_rendered);
            std::printf("%s%d frames %dx%d at %d/%d fps, ring depth %d, in %.2f s: %.1f fps, %.2f GB/s through the "
                        "pipe\n",
                        st.stop == GLR_EXPORT_COMPLETE ? "" : "interrupted: ", st.frames_rendered, o.width, o.height,
                        o.fps.num, o.fps.den, o.depth, elapsed, st.frames_rendered / elapsed,
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
        if (render_left_running)
            _exit(1); // a thread is still in the driver: no exit handlers under its feet
        glr_log_destroy(&log);
        return 1;
    }
    std::fflush(stdout);
    if (render_left_running)
        _exit(sample::stop_status()); // a thread is still in the driver, and holds the log
    glr_log_destroy(&log); // after every object that used it
    return sample::stop_status();
}
