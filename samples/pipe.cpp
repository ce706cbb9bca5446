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
#include "periodic_report.hpp"
#include "program_log.hpp"
#include "project_scene.hpp"
#include "stop_signals.hpp"

#include "glreader/frame_range.h"
#include "glreader/pipe.hpp"

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

// "120/300 frames, 58.1 fps" now and then on stderr, from a thread of its own, and
// "waiting for ffmpeg to read" while the child takes no data.
class pipe_progress {
public:
    // shown: progress is printed at all (-v warning and above).
    pipe_progress(int total, const std::atomic<int> &rendered, const glr::pipe &pipe, bool tty, bool shown)
        : total_(total), rendered_(rendered), pipe_(pipe), tty_(tty), shown_(shown),
          start_(std::chrono::steady_clock::now()),
          reports_(std::chrono::milliseconds(tty ? 200 : 2000), [this] { report(); })
    {
    }
    void done()
    {
        if (reports_.stop() && tty_ && shown_)
            std::fprintf(stderr, "\n");
    }

private:
    void report()
    {
        if (!shown_)
            return;
        double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
        double idle = pipe_.stats().reader_idle_ms;
        std::string waiting = idle >= 1000 ? ", waiting for ffmpeg to read: " + std::to_string(std::lround(idle / 1000)) + " s" : "";
        if (sample::stop_signal())
            waiting += "; stopping: a second Ctrl-C exits at once";
        std::fprintf(stderr, tty_ ? "\r%d/%d frames, %.1f fps%s " : "%d/%d frames, %.1f fps%s\n", rendered_.load(),
                     total_, rendered_ / elapsed, waiting.c_str());
    }

    int total_;
    const std::atomic<int> &rendered_;
    const glr::pipe &pipe_;
    bool tty_, shown_;
    std::chrono::steady_clock::time_point start_;
    sample::periodic_report reports_; // last: its thread reports from the start
};

} // namespace

int main(int argc, char **argv)
{
    options o = parse(argc, argv);
    sample::catch_stop_signals();
    bool tty = isatty(STDERR_FILENO);
    // Errors reach the user once, as the exception's message (and not at all when ffmpeg
    // stopped on the user's own Ctrl-C); warnings still show.
    sample::program_log log(o.verbosity);
    try {
        glr_context_params context_params{};
        context_params.require_hw = o.require_hw;
        glr::context ctx(context_params, log.get());
        if (log.shows(sample::verbosity::info))
            std::fprintf(stderr, "OpenGL renderer: %s\n", ctx.renderer().c_str());
        auto scene = [&] {
            sample::busy_section compiling; // a signal ends a long compile at once
            return std::make_unique<sample::project_scene>(o.project, o.width, o.height, o.fps, nullptr, "",
                                                           log.get());
        }();

        glr_ring_params rp{};
        rp.width = o.width;
        rp.height = o.height;
        rp.format = o.format;
        rp.color = o.color;
        rp.depth = o.depth;
        rp.capture_timeout_ns = UINT64_MAX; // ffmpeg may pause: wait for it, as long as it takes
        glr::ring ring(rp, log.get());
        glr_ffmpeg_child_params cp{};
        cp.ffmpeg = o.ffmpeg.empty() ? nullptr : o.ffmpeg.c_str();
        cp.width = o.width;
        cp.height = o.height;
        cp.format = rp.format;
        cp.color = rp.color;
        cp.fps_num = o.fps.num;
        cp.fps_den = o.fps.den;
        glr::ffmpeg_child child(cp, o.ffmpeg_args, log.get());
        const int fd = child.stdin_fd();
        // Made after the child, so that on any error its writers stop before the child's
        // stdin is closed.
        glr_pipe_params pp{};
        pp.transport = o.transport;
        glr::pipe pipe(pp, log.get());

        std::atomic<int> rendered{0};
        auto start = std::chrono::steady_clock::now();
        pipe_progress progress(o.frames, rendered, pipe, tty, log.shows_progress());
        // A frame that renders for long is answered by the watchdog: the frames written
        // so far go out, and ffmpeg finalizes its file.
        sample::on_abandon([&] {
            progress.done();
            glr_pipe_close(pipe.get(), fd);
            glr_ffmpeg_child_finish(child.get());
            if (log.shows_progress())
                std::fprintf(stderr, "stopped while frame %d was rendering; ffmpeg finalized its output\n",
                             rendered.load());
        });
        // The whole TurboPipe loop: render, capture, hand each finished frame to the pipe.
        auto to_ffmpeg = [&](glr::frame &&f) {
            sample::outside_section handing_over;
            pipe.write(fd, std::move(f));
        };
        try {
            for (; rendered < o.frames && !sample::stop_signal(); rendered++) {
                sample::busy_section rendering;
                scene->render_next();
                ring.capture(scene->source(), rendered, to_ffmpeg);
            }
            {
                sample::busy_section rendering;
                ring.drain(to_ffmpeg);
            }
            sample::on_abandon({});
            pipe.close(fd); // every byte is in ffmpeg's hands
        } catch (const glr::error &e) {
            if (e.code() != -EPIPE)
                throw;
            // ffmpeg stopped reading. After our own signal, that is Ctrl-C reaching the
            // whole process group: ffmpeg stopped on it too and finalized its file.
            sample::on_abandon({});
            ring.drain([](glr::frame &&) {});
            glr_pipe_close(pipe.get(), fd);
            if (sample::stop_signal()) {
                glr_ffmpeg_child_finish(child.get());
                progress.done();
                if (log.shows_progress())
                    std::fprintf(stderr, "interrupted: ffmpeg stopped on the signal too and finalized its output\n");
                return sample::stop_status();
            }
            child.finish(); // its own words say why
            throw;
        }
        child.finish();
        progress.done();
        double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        glr_pipe_stats s = pipe.stats();
        std::printf("%s%d frames %dx%d at %d/%d fps, ring depth %d, in %.2f s: %.1f fps, %.2f GB/s through the pipe\n",
                    sample::stop_signal() ? "interrupted: " : "", rendered.load(), o.width, o.height, o.fps.num,
                    o.fps.den, o.depth, elapsed, rendered / elapsed,
                    static_cast<double>(s.bytes_written) / elapsed / 1e9);
        std::printf("  %llu bytes by vmsplice, %llu by write; %llu syscalls, %llu retried; pipe size %zu KiB\n",
                    static_cast<unsigned long long>(s.vmsplice_bytes), static_cast<unsigned long long>(s.write_bytes),
                    static_cast<unsigned long long>(s.syscalls), static_cast<unsigned long long>(s.retries),
                    s.pipe_size / 1024);
        std::printf("  write to read by ffmpeg: p50 %.2f ms, p99 %.2f ms; render thread blocked on the queue "
                    "p99 %.2f ms\n",
                    s.delivery.p50_ms, s.delivery.p99_ms, s.queue_wait.p99_ms);
        return sample::stop_status();
    } catch (const std::exception &e) {
        std::fprintf(stderr, "glreader-pipe: %s\n", e.what());
        return 1;
    }
}
