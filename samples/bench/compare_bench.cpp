// glreader-bench compare | pipe [--sizes 720p,1080p,2160p] [--outputs null,ultrafast,slow]
//     [--buffers 1,4] [--runs 3] [--frames 600] [--seconds 1] [--no-load-row]
//     [--python PROGRAM] [--python-cell FILE] [--json FILE]
//
// TurboPipe's README table, reproduced on this machine in one run. Every method moves the
// same RGBA frames, read back from the same framebuffer (drawn once: rendering is not
// what is compared, but in the Python rows below), into the same
// `ffmpeg -f rawvideo -i - ARGS` command:
//   standard      glReadPixels into memory, then write() on the render thread
//   threaded      glReadPixels into one of N buffers, a writer thread write()s it
//   turbopipe     the real TurboPipe (PyPI) from a moderngl EGL buffer, N buffers
//   glreader pipe glr_pipe from an N-slot ring (vmsplice, and write for comparison)
//   in-process    glr_encoder, no ffmpeg child at all (the same encoder settings)
//   ... GPU YUV   the same two, frames converted on the GPU and read back as yuv420p
//                 (in-process, lent to the encoder) or NV12 (pipe mode, the child told so)
//   vmsplice loop the same bytes from N buffers, no readback, and no waiting for the
//                 reader before a buffer is spliced again: the transport's ceiling
// and, to compare the transports alone, TurboPipe and glr_pipe fed that same buffer with
// no readback (N buffers, each synced before it is queued again): TurboPipe's own benchmark.
// The Python rows (samples/bench/python_cell.py, in PROGRAM with PYTHONPATH at the build's
// Python package) run the whole path a moderngl program runs: the scene drawn anew every
// frame, read back, handed over, encoded and muxed, by
//   Python: TurboPipe           fbo.read_into(buffer), turbopipe.pipe(buffer, fd), N buffers
//   Python: glreader.turbopipe  the same lines with `import glreader.turbopipe as turbopipe`
//   Python: glreader.Recorder   recorder.write(fbo): GPU yuv420p, in-process, no child
// with where their time went (ms per frame in each step, and the scene's drawing timed
// alone) in a second table; they need a build with -DGLREADER_PYTHON=ON. PROGRAM defaults
// to the checkout's .venv (scripts/bench-setup.sh), FILE to the checkout's python_cell.py
// (the GPU bundle carries both elsewhere, and its packages on PYTHONPATH).
// ARGS: null = "-f null -" (passthrough), ultrafast / slow = libx264 to yuv420p.
// Each cell runs for --seconds or --frames, whichever ends first, `runs` times, methods
// interleaved; min / median / max fps per cell, CPU milliseconds per frame over every
// process (this one with its GL driver's threads, ffmpeg, TurboPipe's Python) and the
// bytes read back per frame. A last row repeats 1080p passthrough with
// 1 buffer while a spinner process keeps one core busy. `pipe` runs glreader's own
// methods only (no Python, no encoder).
#include "common.hpp"
#include "modes.hpp"

#include "scene.hpp"

#include "glreader/av/encoder.hpp"
#include "glreader/pipe.hpp"

extern "C" {
#include <libavutil/log.h>
}

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <deque>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>

extern char **environ;

namespace bench {

namespace {

struct output_spec {
    std::string name;
    std::vector<std::string> ffmpeg_args; // after the input
    std::string codec, codec_options;     // the same work in-process
};

output_spec parse_output(const std::string &name)
{
    if (name == "null")
        return {name, {"-f", "null", "-"}, "wrapped_avframe", ""};
    if (name == "ultrafast" || name == "slow")
        return {name, {"-c:v", "libx264", "-preset", name, "-pix_fmt", "yuv420p", "-f", "null", "-"}, "libx264",
                "preset=" + name};
    throw std::runtime_error("unknown output " + name + " (use null, ultrafast, slow)");
}

enum class method {
    standard,
    threaded,
    turbopipe,
    glreader_vmsplice,
    glreader_write,
    glreader_vmsplice_yuv,
    in_process,
    in_process_yuv,
    vmsplice_loop,
    turbopipe_no_readback,
    glreader_no_readback,
    python_turbopipe,
    python_glreader_turbopipe,
    python_recorder
};

const char *method_name(method m)
{
    switch (m) {
    case method::standard: return "standard (sync read + write)";
    case method::threaded: return "threaded (copy + queue + writer)";
    case method::turbopipe: return "TurboPipe 2.1";
    case method::glreader_vmsplice: return "glreader pipe (vmsplice)";
    case method::glreader_write: return "glreader pipe (write)";
    case method::in_process: return "glreader in-process";
    case method::glreader_vmsplice_yuv: return "glreader pipe (vmsplice), GPU nv12";
    case method::in_process_yuv: return "glreader in-process, GPU yuv420p";
    case method::vmsplice_loop: return "vmsplice loop, no readback (ceiling)";
    case method::turbopipe_no_readback: return "TurboPipe 2.1, no readback";
    case method::glreader_no_readback: return "glreader pipe (vmsplice), no readback";
    case method::python_turbopipe: return "Python: TurboPipe 2.1, whole path";
    case method::python_glreader_turbopipe: return "Python: glreader.turbopipe, whole path";
    case method::python_recorder: return "Python: glreader.Recorder, GPU yuv420p, whole path";
    }
    return "?";
}

const char *method_key(method m)
{
    switch (m) {
    case method::standard: return "standard";
    case method::threaded: return "threaded";
    case method::turbopipe: return "turbopipe";
    case method::glreader_vmsplice: return "glreader_pipe_vmsplice";
    case method::glreader_write: return "glreader_pipe_write";
    case method::in_process: return "glreader_in_process";
    case method::glreader_vmsplice_yuv: return "glreader_pipe_vmsplice_gpu_nv12";
    case method::in_process_yuv: return "glreader_in_process_gpu_yuv420p";
    case method::vmsplice_loop: return "vmsplice_loop";
    case method::turbopipe_no_readback: return "turbopipe_no_readback";
    case method::glreader_no_readback: return "glreader_pipe_no_readback";
    case method::python_turbopipe: return "python_turbopipe";
    case method::python_glreader_turbopipe: return "python_glreader_turbopipe";
    case method::python_recorder: return "python_glreader_recorder_gpu_yuv420p";
    }
    return "?";
}

struct cell_spec {
    size_spec size;
    output_spec output;
    int buffers;
    bool loaded; // run while the spinner keeps a core busy
};

struct limits {
    int frames;
    double seconds;
    std::string python, python_cell;
};

// How python_cell.py runs a method (its --engine and flags), or null for a method run here.
struct python_run {
    const char *engine;
    bool render, readback;
};

const python_run *python_method(method m)
{
    static const python_run turbopipe{"turbopipe", false, true}, fixed_bytes{"turbopipe", false, false},
        whole{"turbopipe", true, true}, drop_in{"glreader.turbopipe", true, true},
        recorder{"glreader.Recorder", true, true};
    switch (m) {
    case method::turbopipe: return &turbopipe;
    case method::turbopipe_no_readback: return &fixed_bytes;
    case method::python_turbopipe: return &whole;
    case method::python_glreader_turbopipe: return &drop_in;
    case method::python_recorder: return &recorder;
    default: return nullptr;
    }
}

// A run's cost, and for a Python run the ms per frame of each step of its loop.
struct cell_cost {
    run_cost cost;
    std::vector<std::pair<std::string, double>> stages;
};

// Frames of one run: stops at `frames` or once `seconds` have passed (after 5 frames).
struct frame_budget {
    const limits &l;
    clock_type::time_point start = clock_type::now();
    int done = 0;
    bool more() const { return done < l.frames && (done < 5 || ms_since(start) < l.seconds * 1000); }
};

std::pair<int, double> moved(const frame_budget &b) { return {b.done, ms_since(b.start) / 1000}; }

// What each method reads back per frame (0: nothing, the bytes are ready).
glr_format readback_format(method m)
{
    switch (m) {
    case method::glreader_vmsplice_yuv: return GLR_FORMAT_NV12;
    case method::in_process_yuv:
    case method::python_recorder: return GLR_FORMAT_I420;
    case method::vmsplice_loop:
    case method::turbopipe_no_readback:
    case method::glreader_no_readback: return static_cast<glr_format>(0);
    default: return GLR_FORMAT_RGBA8;
    }
}

class cell_runner {
public:
    cell_runner(sample::scene &scene, const cell_spec &c, const limits &l) : scene_(scene), c_(c), l_(l) {}

    cell_cost run(method m)
    {
        if (const python_run *p = python_method(m))
            return python(*p); // measured by the script itself
        return {measure([&] { return run_here(m); }), {}};
    }

private:
    std::pair<int, double> run_here(method m)
    {
        switch (m) {
        case method::standard: return standard();
        case method::threaded: return threaded();
        case method::glreader_no_readback: return glreader_pipe_blocks();
        case method::glreader_vmsplice: return glreader_pipe(GLR_PIPE_AUTO, GLR_FORMAT_RGBA8);
        case method::glreader_write: return glreader_pipe(GLR_PIPE_WRITE, GLR_FORMAT_RGBA8);
        case method::glreader_vmsplice_yuv: return glreader_pipe(GLR_PIPE_AUTO, GLR_FORMAT_NV12);
        case method::in_process: return in_process(GLR_FORMAT_BGRA8);
        case method::in_process_yuv: return in_process(GLR_FORMAT_I420);
        case method::vmsplice_loop: return vmsplice_loop();
        default: throw std::logic_error("not a method run here");
        }
    }

    size_t frame_bytes() const { return static_cast<size_t>(c_.size.width) * static_cast<size_t>(c_.size.height) * 4; }

    glr::ffmpeg_child child(glr_format format = GLR_FORMAT_RGBA8) const
    {
        std::vector<std::string> args = {"-loglevel", "error"};
        args.insert(args.end(), c_.output.ffmpeg_args.begin(), c_.output.ffmpeg_args.end());
        return glr::ffmpeg_child(child_params(c_.size, format), args);
    }

    void read_pixels(uint8_t *into)
    {
        const GladGLContext &gl = scene_.gl();
        gl.BindFramebuffer(GL_READ_FRAMEBUFFER, scene_.fbo());
        gl.PixelStorei(GL_PACK_ALIGNMENT, 4);
        gl.ReadPixels(0, 0, c_.size.width, c_.size.height, GL_RGBA, GL_UNSIGNED_BYTE, into);
    }

    std::pair<int, double> standard()
    {
        std::vector<uint8_t> frame(frame_bytes());
        glr::ffmpeg_child ffmpeg = child();
        frame_budget b{l_};
        for (; b.more(); b.done++) {
            read_pixels(frame.data());
            write_all(ffmpeg.stdin_fd(), frame.data(), frame.size());
        }
        ffmpeg.finish();
        return moved(b);
    }

    std::pair<int, double> threaded()
    {
        std::vector<std::vector<uint8_t>> buffers(static_cast<size_t>(c_.buffers), std::vector<uint8_t>(frame_bytes()));
        std::mutex mutex;
        std::condition_variable changed;
        std::deque<size_t> full;
        std::vector<bool> busy(buffers.size(), false);
        bool end = false;
        glr::ffmpeg_child ffmpeg = child();
        int fd = ffmpeg.stdin_fd();
        std::thread writer([&] {
            for (;;) {
                std::unique_lock<std::mutex> lock(mutex);
                changed.wait(lock, [&] { return end || !full.empty(); });
                if (full.empty())
                    return;
                size_t i = full.front();
                full.pop_front();
                lock.unlock();
                write_all(fd, buffers[i].data(), buffers[i].size());
                lock.lock();
                busy[i] = false;
                changed.notify_all();
            }
        });
        frame_budget b{l_};
        for (; b.more(); b.done++) {
            size_t i = static_cast<size_t>(b.done) % buffers.size();
            {
                std::unique_lock<std::mutex> lock(mutex);
                changed.wait(lock, [&] { return !busy[i]; });
                busy[i] = true;
            }
            read_pixels(buffers[i].data());
            std::lock_guard<std::mutex> lock(mutex);
            full.push_back(i);
            changed.notify_all();
        }
        {
            std::lock_guard<std::mutex> lock(mutex);
            end = true;
        }
        changed.notify_all();
        writer.join();
        ffmpeg.finish();
        return moved(b);
    }

    std::pair<int, double> glreader_pipe(glr_pipe_transport transport, glr_format format)
    {
        glr::ring ring = make_ring(c_.size.width, c_.size.height, format, GLR_FLIP_STRIDE, c_.buffers);
        glr_pipe_params pp{};
        pp.transport = transport;
        glr::pipe pipe(pp);
        glr::ffmpeg_child ffmpeg = child(format);
        int fd = ffmpeg.stdin_fd();
        auto to_ffmpeg = [&](glr::frame &&f) { pipe.write(fd, std::move(f)); };
        glr_source source = glr::framebuffer_source(scene_.fbo());
        frame_budget b{l_};
        for (; b.more(); b.done++)
            ring.capture(source, b.done, to_ffmpeg);
        ring.drain(to_ffmpeg);
        pipe.close(fd);
        ffmpeg.finish();
        return moved(b);
    }

    std::pair<int, double> in_process(glr_format format)
    {
        glr::ring ring = make_ring(c_.size.width, c_.size.height, format, GLR_FLIP_STRIDE, c_.buffers);
        glr_encoder_params ep{};
        ep.width = c_.size.width;
        ep.height = c_.size.height;
        ep.format = format;
        ep.fps_num = 60;
        ep.fps_den = 1;
        ep.codec = c_.output.codec.c_str();
        ep.codec_options = c_.output.codec_options.empty() ? nullptr : c_.output.codec_options.c_str();
        ep.pix_fmt = c_.output.codec == "libx264" ? "yuv420p" : nullptr;
        ep.container = "null";
        ep.output = "/dev/null";
        frame_budget b{l_};
        glr::encoder enc(ep);
        auto submit = [&](glr::frame &&f) { enc.submit(std::move(f)); };
        glr_source source = glr::framebuffer_source(scene_.fbo());
        for (; b.more(); b.done++)
            ring.capture(source, b.done, submit);
        ring.drain(submit);
        enc.finish();
        return moved(b);
    }

    std::pair<int, double> vmsplice_loop()
    {
        std::vector<uint8_t> frame(frame_bytes());
        read_pixels(frame.data());
        // N copies, as the other methods cycle through N buffers (and the caches see as much).
        std::vector<std::vector<uint8_t>> buffers(static_cast<size_t>(c_.buffers), frame);
        glr::ffmpeg_child ffmpeg = child();
        int fd = ffmpeg.stdin_fd();
        fcntl(fd, F_SETPIPE_SZ, 1 << 20);
        frame_budget b{l_};
        for (; b.more(); b.done++) {
            // The bytes never change, so pages may be spliced again before they were read.
            std::vector<uint8_t> &buffer = buffers[static_cast<size_t>(b.done) % buffers.size()];
            iovec iov{buffer.data(), buffer.size()};
            while (iov.iov_len > 0) {
                ssize_t n = vmsplice(fd, &iov, 1, 0);
                if (n < 0 && errno == EINTR)
                    continue;
                if (n <= 0)
                    throw std::runtime_error(std::string("vmsplice failed: ") + std::strerror(errno));
                iov.iov_base = static_cast<uint8_t *>(iov.iov_base) + n;
                iov.iov_len -= static_cast<size_t>(n);
            }
        }
        ffmpeg.finish();
        return moved(b);
    }

    std::pair<int, double> glreader_pipe_blocks()
    {
        std::vector<uint8_t> frame(frame_bytes());
        read_pixels(frame.data());
        // The bytes never change; the sync pattern is TurboPipe's.
        std::vector<std::vector<uint8_t>> buffers(static_cast<size_t>(c_.buffers), frame);
        glr::pipe pipe;
        glr::ffmpeg_child ffmpeg = child();
        int fd = ffmpeg.stdin_fd();
        frame_budget b{l_};
        for (; b.more(); b.done++) {
            const std::vector<uint8_t> &buffer = buffers[static_cast<size_t>(b.done) % buffers.size()];
            pipe.sync(buffer.data());
            pipe.write(fd, buffer.data(), buffer.size());
        }
        pipe.close(fd);
        ffmpeg.finish();
        return moved(b);
    }

    cell_cost python(const python_run &p)
    {
        std::string command = "'" + l_.python + "' '" + l_.python_cell + "' --engine " + p.engine + " --width " +
                              std::to_string(c_.size.width) + " --height " + std::to_string(c_.size.height) +
                              " --buffers " + std::to_string(c_.buffers) + " --frames " + std::to_string(l_.frames) +
                              " --seconds " + std::to_string(l_.seconds) + (p.render ? " --render" : "") +
                              (p.readback ? "" : " --no-readback") + " --codec '" + c_.output.codec +
                              "' --codec-options '" + c_.output.codec_options + "' --";
        for (const std::string &a : c_.output.ffmpeg_args)
            command += " '" + a + "'";
        FILE *out = popen(command.c_str(), "r");
        if (!out)
            throw std::runtime_error("cannot run " + l_.python);
        char line[512] = {}, stage[64] = {};
        double fps = 0, cpu = 0, ms = 0;
        int frames = 0;
        cell_cost result;
        while (std::fgets(line, sizeof line, out)) {
            std::sscanf(line, "fps %lf", &fps);
            std::sscanf(line, "frames %d", &frames);
            std::sscanf(line, "cpu_seconds %lf", &cpu);
            if (std::sscanf(line, "stage %63s %lf", stage, &ms) == 2)
                result.stages.emplace_back(stage, ms);
        }
        int status = pclose(out);
        if (status != 0 || fps <= 0 || frames <= 0)
            throw std::runtime_error(std::string("the Python run (") + p.engine + ") failed: " + command);
        result.cost = {fps, cpu * 1000 / frames};
        return result;
    }

    sample::scene &scene_;
    const cell_spec &c_;
    const limits &l_;
};

// A process that keeps one core busy until stopped: the competing load.
class spinner {
public:
    spinner()
    {
        char sh[] = "sh", dash_c[] = "-c", loop[] = "while :; do :; done";
        char *argv[] = {sh, dash_c, loop, nullptr};
        if (posix_spawnp(&pid_, "sh", nullptr, nullptr, argv, environ) != 0)
            throw std::runtime_error("cannot start the spinner");
    }
    ~spinner()
    {
        kill(pid_, SIGKILL);
        waitpid(pid_, nullptr, 0);
    }
    spinner(const spinner &) = delete;
    spinner &operator=(const spinner &) = delete;

private:
    pid_t pid_ = -1;
};

struct cell_result {
    cell_spec spec;
    std::vector<method> methods;
    std::vector<std::vector<double>> fps, cpu_ms; // per method, per run
    std::vector<std::map<std::string, std::vector<double>>> stages; // per method: ms per frame, per run
    std::vector<double> load;
};

// The Python rows' steps, in the order of their loops (python_cell.py's names and ours).
const std::pair<const char *, const char *> python_stages[] = {
    {"render_alone", "scene drawn alone"}, {"draw", "draw calls"}, {"sync", "sync"}, {"read_back", "read_into"},
    {"pipe", "pipe"}, {"write", "write"}, {"finish", "finish"}};

// The where-the-time-went table of the Python rows: ms per frame, the median of the runs.
void print_python_stages(const std::vector<cell_result> &cells)
{
    std::printf("\nPython rows, ms per frame in each step of the loop (median of the runs): the scene drawn alone "
                "(glFinish after each frame, before the run: the rasterizer's own cost), the draw calls, "
                "sync(buffer), fbo.read_into(buffer) (which waits for the drawing), pipe(buffer, fd), "
                "recorder.write(fbo), and the finish (the last writes, ffmpeg's or the encoder's end) spread "
                "over the frames\n\n| size | ffmpeg | buffers | method |");
    for (const auto &[key, title] : python_stages)
        std::printf(" %s |", title);
    std::printf("\n|---|---|---|---|");
    for (size_t i = 0; i < std::size(python_stages); i++)
        std::printf("---|");
    std::printf("\n");
    for (const cell_result &c : cells)
        for (size_t m = 0; m < c.methods.size(); m++) {
            if (c.stages[m].empty() || !python_method(c.methods[m])->render)
                continue;
            std::printf("| %s | %s%s | %d | %s |", c.spec.size.name.c_str(), c.spec.output.name.c_str(),
                        c.spec.loaded ? " + one core busy" : "", c.spec.buffers, method_name(c.methods[m]));
            for (const auto &[key, title] : python_stages) {
                auto it = c.stages[m].find(key);
                if (it == c.stages[m].end())
                    std::printf(" - |");
                else
                    std::printf(" %.2f |", summarize(it->second).median);
            }
            std::printf("\n");
        }
}

int compare(int argc, char **argv, bool everything)
{
    std::string outputs = everything ? "null,ultrafast,slow" : "null", buffers = "1,4";
    std::string python = GLREADER_SOURCE_DIR "/.venv/bin/python";
    limits l{600, 1.0, python, GLREADER_SOURCE_DIR "/samples/bench/python_cell.py"};
    bool load_row = true;
    options o = parse_options(argc, argv, {"720p,1080p,2160p", "", 3, 600}, [&](sample::command_line &args) {
        if (args.is("--outputs")) {
            outputs = args.value();
        } else if (args.is("--buffers")) {
            buffers = args.value();
            for (const std::string &b : split(buffers)) {
                long long n = 0;
                if (!sample::parse_integer(b, n) || n < 1 || n > 64)
                    args.fail("--buffers needs whole numbers from 1 to 64, like 1,4, not '" + buffers + "'");
            }
        } else if (args.is("--seconds")) {
            l.seconds = args.decimal(0.1, 3600);
        } else if (args.is("--python")) {
            l.python = args.value();
        } else if (args.is("--python-cell")) {
            l.python_cell = args.value();
        } else if (args.is("--no-load-row")) {
            load_row = false;
        } else {
            return false;
        }
        return true;
    });
    l.frames = o.frames;
    std::vector<method> methods = {method::standard, method::threaded, method::glreader_vmsplice,
                                   method::glreader_write, method::vmsplice_loop};
    if (everything) {
        if (access(l.python.c_str(), X_OK) != 0)
            throw std::runtime_error("TurboPipe's Python environment is missing (" + l.python +
                                     "): run scripts/bench-setup.sh, or pass --python");
        if (access(l.python_cell.c_str(), R_OK) != 0)
            throw std::runtime_error("the Python rows' script is missing (" + l.python_cell + "): pass --python-cell");
        methods.insert(methods.begin() + 2, method::turbopipe);
        methods.insert(methods.begin() + 5, method::glreader_vmsplice_yuv);
        methods.push_back(method::in_process);
        methods.push_back(method::in_process_yuv);
        methods.push_back(method::turbopipe_no_readback);
        methods.push_back(method::python_turbopipe);
        if (const char *package = python_package_path()) {
            if (*package) { // the package as this build made it, ahead of any other
                const char *path = std::getenv("PYTHONPATH");
                std::string python_path = package + (path && *path ? ":" + std::string(path) : "");
                setenv("PYTHONPATH", python_path.c_str(), 1);
            }
            methods.push_back(method::python_glreader_turbopipe);
            methods.push_back(method::python_recorder);
        } else {
            std::fprintf(stderr, "glreader-bench compare: no glreader.turbopipe and glreader.Recorder rows: this "
                                 "build has no Python package (configure with -DGLREADER_PYTHON=ON)\n");
        }
    }
    methods.push_back(method::glreader_no_readback);

    av_log_set_level(AV_LOG_ERROR); // libx264's summaries would bury the progress lines
    glr::context ctx;
    std::vector<cell_result> cells;
    for (const size_spec &s : parse_sizes(o.sizes))
        for (const std::string &out : split(outputs))
            for (const std::string &b : split(buffers))
                cells.push_back({{s, parse_output(out), std::stoi(b), false}, methods, {}, {}});
    if (load_row)
        cells.push_back({{{"1080p", 1920, 1080}, parse_output("null"), 1, true}, methods, {}, {}});
    for (cell_result &c : cells) {
        c.fps.resize(methods.size());
        c.cpu_ms.resize(methods.size());
        c.stages.resize(methods.size());
    }
    std::fprintf(stderr, "glreader-bench %s on %s, %u CPUs: %zu cells x %zu methods x %d runs, interleaved\n",
                 everything ? "compare" : "pipe", ctx.renderer().c_str(), std::thread::hardware_concurrency(),
                 cells.size(), methods.size(), o.runs);

    {
        // Untimed warm-up: the first readback, spawn and shader compile cost more.
        limits warm = l;
        warm.frames = 10;
        sample::scene scene(cells[0].spec.size.width, cells[0].spec.size.height, {cheap_scene_source, "", "bench scene"});
        scene.draw(0, 0, 1 / 60.0);
        cell_runner runner(scene, cells[0].spec, warm);
        for (method m : methods)
            runner.run(m);
    }
    load_meter load;
    for (int run = 0; run < o.runs; run++) {
        for (cell_result &c : cells) {
            sample::scene scene(c.spec.size.width, c.spec.size.height, {cheap_scene_source, "", "bench scene"});
            scene.draw(0, 0, 1 / 60.0);
            std::unique_ptr<spinner> busy = c.spec.loaded ? std::make_unique<spinner>() : nullptr;
            cell_runner runner(scene, c.spec, l);
            load.other_cpu_seconds();
            for (size_t m = 0; m < methods.size(); m++) {
                cell_cost cost = runner.run(methods[m]);
                c.fps[m].push_back(cost.cost.fps);
                c.cpu_ms[m].push_back(cost.cost.cpu_ms_per_frame);
                for (const auto &[stage, ms] : cost.stages)
                    c.stages[m][stage].push_back(ms);
            }
            c.load.push_back(load.other_cpu_seconds());
        }
        std::fprintf(stderr, "  run %d/%d done\n", run + 1, o.runs);
    }

    std::printf("\nglreader-bench %s: rendered frames into `ffmpeg -f rawvideo -i - ...` (RGBA unless said), %s, "
                "%u CPUs, %d runs; fps as min / median / max, GB/s of frames moved at the median, CPU ms per frame "
                "over every process (median), bytes read back per frame; other CPU s = CPU time of other "
                "processes during the cell (max of the runs)\n\n",
                everything ? "compare" : "pipe", ctx.renderer().c_str(), std::thread::hardware_concurrency(), o.runs);
    std::printf("| size | ffmpeg | buffers | method | fps | GB/s | CPU ms/frame | read back/frame | other CPU s |\n"
                "|---|---|---|---|---|---|---|---|---|\n");
    for (const cell_result &c : cells) {
        for (size_t m = 0; m < methods.size(); m++) {
            summary s = summarize(c.fps[m]);
            glr_format f = readback_format(methods[m]);
            double bytes = static_cast<double>(glr_format_frame_bytes(f ? f : GLR_FORMAT_RGBA8, c.spec.size.width, c.spec.size.height));
            std::printf("| %s | %s%s | %d | %s | %.0f / %.0f / %.0f | %.2f | %.1f | %s | %.2f |\n",
                        c.spec.size.name.c_str(), c.spec.output.name.c_str(), c.spec.loaded ? " + one core busy" : "",
                        c.spec.buffers, method_name(methods[m]), s.min, s.median, s.max, s.median * bytes / 1e9,
                        summarize(c.cpu_ms[m]).median,
                        f ? (std::to_string(glr_format_frame_bytes(f, c.spec.size.width, c.spec.size.height) / 1024) + " KiB").c_str() : "-",
                        summarize(c.load).max);
        }
    }
    if (everything)
        print_python_stages(cells);
    std::string method_names;
    for (size_t m = 0; m < methods.size(); m++)
        method_names += std::string(m ? ", " : "") + "\"" + method_key(methods[m]) + "\": \"" + method_name(methods[m]) + "\"";
    std::vector<std::string> items;
    for (const cell_result &c : cells) {
        std::string item = "{\"size\": \"" + c.spec.size.name + "\", \"width\": " + std::to_string(c.spec.size.width) +
                           ", \"height\": " + std::to_string(c.spec.size.height) + ", \"output\": \"" +
                           c.spec.output.name + "\", \"buffers\": " + std::to_string(c.spec.buffers) +
                           ", \"competing_load\": " + (c.spec.loaded ? "true" : "false") +
                           ",\n     \"other_cpu_seconds\": " + json_summary(c.load);
        for (size_t m = 0; m < methods.size(); m++) {
            glr_format f = readback_format(methods[m]);
            item += ",\n     \"" + std::string(method_key(methods[m])) + "\": " + json_summary(c.fps[m]) +
                    ",\n     \"" + std::string(method_key(methods[m])) + "_cpu_ms_per_frame\": " +
                    json_summary(c.cpu_ms[m]) + ",\n     \"" + std::string(method_key(methods[m])) +
                    "_readback_bytes_per_frame\": " + std::to_string(f ? glr_format_frame_bytes(f, c.spec.size.width, c.spec.size.height) : 0);
            for (const auto &[stage, ms] : c.stages[m])
                item += ",\n     \"" + std::string(method_key(methods[m])) + "_" + stage + "_ms_per_frame\": " +
                        json_summary(ms);
        }
        items.push_back(item + "}");
    }
    write_json(o.json, everything ? "compare" : "pipe", ctx, o.runs,
               "\"unit\": \"fps\", \"methods\": {" + method_names + "}", items);
    return 0;
}

} // namespace

int bench_compare(int argc, char **argv) { return compare(argc, argv, true); }

int bench_pipe(int argc, char **argv) { return compare(argc, argv, false); }

} // namespace bench
