// glreader-capture: renders a scene (the animated built-in one, or --shader) headless and reads every frame back
// through the ring, handing each leased frame to a consumer thread (which checksums it, as
// an encoder would read it), then prints the ring's statistics.
//
//   glreader-capture [-s 1280x720] [-n 600] [-r 60] [--depth 3] [--ring-format F]
//                    [--shader FILE|DIR] [--channel0..3 SPEC]
//                    [--flip stride|gpu|none] [--map-per-frame] [--no-fences]
//                    [--ppm last.ppm] [-y] [--require-hw] [-v LEVEL]
//
// --ppm never overwrites an existing file unless -y (it is created exclusively). The
// results go to stdout; progress and messages to stderr.
#include "command_line.hpp"
#include "frame_worker.hpp"
#include "program_log.hpp"
#include "project_scene.hpp"
#include "stop_signals.hpp"

#include "glreader/av/recorder.h"
#include "glreader/glreader.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

namespace {

struct options {
    int width = 1280, height = 720;
    sample::length_options length; // -n, -t, -to (600 frames, a measure's default)
    int frames = 0;                // ...counted once the rate is known
    sample::frame_rate fps{60, 1};
    int depth = 3;
    glr_format format = GLR_FORMAT_RGBA8;
    glr_color color{};
    glr_flip flip = GLR_FLIP_STRIDE;
    unsigned flags = 0;
    bool require_hw = false, overwrite = false;
    std::string ppm;
    sample::project_options project; // --shader, --channelN
    sample::verbosity verbosity = sample::verbosity::warning;
};

// glreader-export's options a measure of the readback has no use for, and why.
std::vector<sample::left_out> capture_leaves_out()
{
    const std::string from_zero = "a measure of the readback plays the scene from frame 0";
    const std::string live = "a measure of the readback plays iMouse released and iDate as now, Shadertoy's defaults";
    const std::string nothing_encoded = "glreader-capture encodes nothing: a consumer thread reads every byte of "
                                        "each frame, as an encoder would";
    const std::string no_sound = "glreader-capture measures the picture's readback: no sound";
    const std::string no_output = "glreader-capture writes nothing but --ppm's last frame";
    return {{"start", from_zero},
            {"first_frame", from_zero},
            {"mouse", live},
            {"date", live},
            {"max_shader_size", "it reads shaders of up to 4M, glreader-export's default"},
            {"compile_timeout", "its own thread compiles, and nothing else could give up on it"},
            {"Encoding", nothing_encoded},
            {"Sound", no_sound},
            {"output", no_output},
            {"container", no_output},
            {"format_options", no_output},
            {"metadata", no_output},
            {"part", no_output},
            {"chunk", no_output},
            {"convert", "the ring converts on the GPU: --ring-format picks what it reads back (rgba reads RGB)"},
            {"queue", "the consumer takes each frame as it is read back"}};
}

sample::program_help help()
{
    using namespace sample;
    return {"glreader-capture",
            "[OPTIONS]",
            "Renders a scene headless and reads every frame back through glreader's ring, handing each leased "
            "frame to a consumer thread that reads it all (as an encoder would), then prints the ring's "
            "statistics on stdout: a check of the readback paths and a measure of their cost.",
            {{"What to render",
              {doc::shader, doc::media, doc::channels, doc::size,
               doc::rate.with_default("60, a measure's (glreader-export's 30)"),
               exported("duration").with_default("from -n"),
               doc::frames.with_default("600, a measure's (glreader-export's 5 s)"),
               exported("end").with_default("from -n"), doc::require_hw}},
             {"Readback",
              {doc::ring_format.with_default("rgba"), doc::matrix, doc::range, doc::chroma_loc, doc::depth,
               {"--flip", "stride|gpu|none",
                "row order: a view from the top row with a negative stride, an upside-down blit, or GL's bottom "
                "row first",
                "stride"},
               {"--map-per-frame", "", "map each slot at acquire instead of once (the fallback path)", "off"},
               {"--no-fences", "", "wait with glFinish instead of fences (the fallback path)", "off"}}},
             {"Output",
              {{"--ppm", "FILE", "write the last frame as a PPM picture (RGB formats)", "none"}, doc::overwrite}},
             {"Messages", {doc::verbosity}}},
            {"glreader-capture -s 1920x1080 -n 300 --ring-format nv12",
             "glreader-capture --shader samples/shaders/plasma.frag -n 60 --ppm last.ppm"},
            capture_leaves_out()};
}

options parse(int argc, char **argv)
{
    options o;
    sample::command_line args(argc, argv, help());
    while (args.next()) {
        if (args.is("-s")) {
            args.size(o.width, o.height);
        } else if (o.project.read(args)) {
        } else if (o.length.read(args)) {
        } else if (args.is("-r")) {
            o.fps = args.rate();
        } else if (args.is("--depth")) {
            o.depth = args.count(1, 64);
        } else if (args.is("--ring-format")) {
            o.format = args.format();
        } else if (args.color_option(o.color)) {
        } else if (args.verbosity_option(o.verbosity)) {
        } else if (args.is("--flip")) {
            std::string v = args.value();
            if (v == "stride") o.flip = GLR_FLIP_STRIDE;
            else if (v == "gpu") o.flip = GLR_FLIP_GPU;
            else if (v == "none") o.flip = GLR_FLIP_NONE;
            else args.fail("--flip takes stride, gpu or none, not " + v);
        } else if (args.is("--map-per-frame")) {
            o.flags |= GLR_RING_NO_PERSISTENT_MAP;
        } else if (args.is("--no-fences")) {
            o.flags |= GLR_RING_NO_FENCES;
        } else if (args.is("--ppm")) {
            o.ppm = args.value();
        } else if (args.is("-y")) {
            o.overwrite = true;
        } else if (args.is("--require-hw")) {
            o.require_hw = true;
        } else {
            args.unknown();
        }
    }
    o.frames = o.length.frames_at(o.fps, 600, args);
    if (!o.ppm.empty() && glr_format_get_info(o.format)->yuv)
        args.fail("--ppm writes RGB frames only");
    if (!o.ppm.empty())
        args.refuse_existing(o.ppm, o.overwrite);
    return o;
}

// Writes a frame as a binary PPM, the top row first: GLR_FLIP_NONE's rows come bottom first.
// The file is created exclusively unless overwrite. False, said on stderr, when it fails.
bool write_ppm(const glr::frame &f, glr_flip flip, const std::string &path, bool overwrite)
{
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | (overwrite ? O_TRUNC : O_EXCL), 0644);
    FILE *out = fd >= 0 ? fdopen(fd, "wb") : nullptr;
    if (!out) {
        std::fprintf(stderr, "glreader-capture: cannot write %s: %s%s\n", path.c_str(), std::strerror(errno),
                     errno == EEXIST ? " (-y overwrites it)" : "");
        if (fd >= 0)
            ::close(fd);
        return false;
    }
    std::fprintf(out, "P6\n%d %d\n255\n", f.width(), f.height());
    int bpp = glr_format_get_info(f.format())->samples_per_pixel[0];
    bool bgr = f.format() == GLR_FORMAT_BGRA8;
    for (int y = 0; y < f.height(); y++) {
        const uint8_t *p = f.row(flip == GLR_FLIP_NONE ? f.height() - 1 - y : y);
        for (int x = 0; x < f.width(); x++, p += bpp) {
            uint8_t rgb[3] = {p[bgr ? 2 : 0], p[1], p[bgr ? 0 : 2]};
            std::fwrite(rgb, 1, 3, out);
        }
    }
    bool written = !std::ferror(out);
    if (std::fclose(out) != 0 || !written) {
        std::fprintf(stderr, "glreader-capture: writing %s failed: %s\n", path.c_str(), std::strerror(errno));
        return false;
    }
    std::printf("wrote the last frame to %s\n", path.c_str());
    return true;
}

void print_latency(const char *name, const glr_latency &l)
{
    if (l.count == 0)
        return;
    std::printf("  %-10s %8.3f %8.3f %8.3f %8.3f %8.3f\n", name, l.mean_ms, l.p50_ms, l.p95_ms,
                l.p99_ms, l.max_ms);
}

} // namespace

int main(int argc, char **argv)
{
    options o = parse(argc, argv);
    sample::catch_stop_signals();
    bool tty = isatty(STDERR_FILENO);
    try {
        glr_context_params context_params{};
        context_params.require_hw = o.require_hw;
        sample::program_log log(o.verbosity); // errors reach the user once
        glr::context ctx(context_params, log.get());
        std::printf("OpenGL renderer: %s (EGL %s)%s\n", ctx.renderer().c_str(),
                    ctx.platform().c_str(), ctx.is_software() ? ", software" : "");

        sample::project_scene scene(o.project, o.width, o.height, o.fps, nullptr, "", log.get());
        // The consumer reads every byte of each frame on its own thread, as an encoder
        // would, and releases the lease there.
        uint64_t checksum = 0;
        bool ppm_failed = false; // the consumer's, read after it finished
        sample::frame_worker consumer([&](const glr::frame &f) {
            for (int p = 0; p < glr_format_get_info(f.format())->planes; p++) {
                size_t row_bytes = f.row_bytes(p);
                for (int y = 0; y < f.rows(p); y++) {
                    const uint8_t *row = f.row(y, p);
                    for (size_t x = 0; x < row_bytes; x += 8)
                        checksum = checksum * 31 + row[x];
                }
            }
            if (!o.ppm.empty() && static_cast<int>(f.sequence()) == o.frames - 1)
                ppm_failed = !write_ppm(f, o.flip, o.ppm, o.overwrite);
        });
        struct progress_line {
            std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
            int frames;
            bool tty, shown = false;
        } line{std::chrono::steady_clock::now(), o.frames, tty};

        glr_recorder_params params{};
        glr_ring_params &rp = params.ring;
        rp.width = o.width;
        rp.height = o.height;
        rp.format = o.format;
        rp.color = o.color;
        rp.flip = o.flip;
        rp.depth = o.depth;
        rp.flags = o.flags;
        params.frame_sink = [](void *opaque, glr_frame *f) {
            static_cast<sample::frame_worker *>(opaque)->push(glr::frame(*f));
        };
        params.frame_sink_opaque = &consumer;
        if (log.shows_progress()) {
            params.progress = [](void *opaque, const glr_recorder_stats *s) {
                auto *l = static_cast<progress_line *>(opaque);
                double elapsed =
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - l->start).count();
                if (s->stop != GLR_EXPORT_NOT_STOPPED || elapsed <= 0)
                    return; // the summary on stdout says the rest
                std::fprintf(stderr, l->tty ? "\r%lld/%d frames, %.1f fps " : "%lld/%d frames, %.1f fps\n",
                             static_cast<long long>(s->frames_captured), l->frames, s->frames_captured / elapsed);
                l->shown = true;
            };
            params.progress_opaque = &line;
            params.progress_interval_ms = tty ? 200 : 2000;
        }
        std::unique_ptr<glr_recorder, void (*)(glr_recorder *)> rec(glr_recorder_create(log.get(), &params),
                                                                     [](glr_recorder *r) { glr_recorder_destroy(&r); });
        if (!rec)
            throw glr::error(glr_last_error_code(), glr_last_error());
        glr_source source = scene.source();

        auto start = std::chrono::steady_clock::now();
        int rendered = 0;
        for (; rendered < o.frames && !sample::stop_signal(); rendered++) {
            scene.render_next();
            if (glr_recorder_capture(rec.get(), &source, rendered) < 0)
                throw glr::error(glr_last_error_code(), glr_last_error());
        }
        if (glr_recorder_finish(rec.get()) < 0)
            throw glr::error(glr_last_error_code(), glr_last_error());
        consumer.finish();
        double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (tty && line.shown)
            std::fprintf(stderr, "\n");

        glr_recorder_stats recorded{};
        glr_recorder_get_stats(rec.get(), &recorded);
        const glr_ring_stats &s = recorded.ring;
        std::printf("%s%d frames %dx%d %s at %d/%d fps in %.2f s: %.1f fps (render + readback), depth %d, "
                    "path %s, checksum %016llx\n",
                    sample::stop_signal() ? "interrupted: " : "", rendered, o.width, o.height,
                    glr_format_name(o.format), o.fps.num, o.fps.den, elapsed, rendered / elapsed, s.depth, s.path,
                    static_cast<unsigned long long>(checksum));
        std::printf("  %-10s %8s %8s %8s %8s %8s   (ms per frame)\n", "stage", "mean", "p50",
                    "p95", "p99", "max");
        print_latency("stall", s.stall);
        print_latency("slot wait", s.slot_wait);
        print_latency("readback", s.readback);
        print_latency("fence", s.fence_wait);
        print_latency("map", s.map);
        print_latency("hold", s.hold);
        std::printf("frames captured %llu, acquired %llu, released %llu\n",
                    static_cast<unsigned long long>(s.frames_captured),
                    static_cast<unsigned long long>(s.frames_acquired),
                    static_cast<unsigned long long>(s.frames_released));
        return s.frames_released == static_cast<uint64_t>(rendered) && !ppm_failed ? sample::stop_status() : 1;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "glreader-capture: %s\n", e.what());
        return 1;
    }
}
