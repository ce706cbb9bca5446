// glreader-bench filter [--ffmpeg PATH] [--sizes 720p,1080p] [--codecs rawvideo,ffv1]
//                       [--depth 3] [--shader FILE] [--runs 3] [--frames 300] [--json FILE]
//
// The lavfi source in a patched ffmpeg (ffmpeg-patches/build.sh) against glreader-export
// on the same shader, size, frames, encoder settings and null muxer, and against the same
// filter reading back synchronously (readback=sync: glReadPixels into memory, then a copy
// into the frame), interleaved. Then the glshader filter: an identity shader over a video
// against FFmpeg's own null filter on the same decoded frames (what uploading, rendering
// and reading back add), and against glshader with transfer=sync; and over a yuv420p video,
// its input converted to RGB on the GPU and on the CPU (yuv_input), against the default's
// choice for this renderer. Each is a whole
// process, timed from start to exit, with its CPU time. The default ffmpeg is the 5.1
// line's: the libavcodec glreader-export links (Debian 12's) is 5.1 too, so both run the
// same encoder code.
#include "common.hpp"
#include "modes.hpp"

#include <fcntl.h>
#include <glob.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <vector>

extern char **environ;

namespace bench {

namespace {

struct filter_case {
    size_spec size;
    std::string codec;
    std::vector<double> export_fps, ring_fps, sync_fps, zero_copy_share, load;
};

// The glshader filter over a video of one size: fps and CPU ms per frame of each way.
struct shader_case {
    size_spec size;
    std::string input;
    std::vector<double> null_fps, async_fps, sync_fps, null_cpu, async_cpu, sync_cpu;
};

// glshader over a yuv420p video of one size: where the input becomes RGB.
struct yuv_input_case {
    size_spec size;
    std::string input;
    std::vector<double> null_fps, default_fps, gpu_fps, cpu_fps, null_cpu, default_cpu, gpu_cpu, cpu_cpu;
    std::string default_choice; // "cpu" or "gpu", as the filter said
};

// The patched ffmpeg (complete or lean) of the 5.1 line that build.sh left in a cache: $GLREADER_FFMPEG_CACHE,
// else scripts/test.sh's (~/.cache/glreader-ffmpeg), else this checkout's build-ffmpeg/.
std::string find_patched_ffmpeg()
{
    std::vector<std::string> caches;
    if (const char *cache = std::getenv("GLREADER_FFMPEG_CACHE"); cache && *cache) {
        caches.push_back(cache);
    } else {
        const char *xdg = std::getenv("XDG_CACHE_HOME"), *home = std::getenv("HOME");
        if (xdg && *xdg)
            caches.push_back(std::string(xdg) + "/glreader-ffmpeg");
        else if (home && *home)
            caches.push_back(std::string(home) + "/.cache/glreader-ffmpeg");
        caches.push_back(GLREADER_SOURCE_DIR "/build-ffmpeg");
    }
    for (const std::string &cache : caches)
        for (const char *flavour : {"full", "lean"}) { // the complete build, else the lean one
            glob_t found{};
            std::string path;
            if (glob((cache + "/5.1-" + flavour + "-*/build/ffmpeg").c_str(), 0, nullptr, &found) == 0)
                path = found.gl_pathv[0];
            globfree(&found);
            if (!path.empty())
                return path;
        }
    std::string searched;
    for (const std::string &cache : caches)
        searched += (searched.empty() ? "" : " or ") + cache;
    throw std::runtime_error("no patched ffmpeg in " + searched + ": build one with ffmpeg-patches/build.sh 5.1, "
                             "or pass --ffmpeg PATH");
}

// glreader-export, next to this program.
std::string export_path()
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        throw std::runtime_error("cannot find this program's directory");
    std::string dir(self, static_cast<size_t>(n));
    return dir.substr(0, dir.rfind('/')) + "/glreader-export";
}

// Runs program to the end with stdout and stderr in log; returns the seconds it took, and
// the CPU seconds it used in *cpu_seconds when given. Throws with the log's end when it fails.
double time_process(const std::vector<std::string> &args, const std::string &log, double *cpu_seconds = nullptr)
{
    std::vector<std::string> storage = args;
    std::vector<char *> argv;
    for (std::string &a : storage)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    auto start = clock_type::now();
    pid_t pid = -1;
    int rc = posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0)
        throw std::runtime_error("cannot run " + args[0] + ": " + std::strerror(rc));
    int status = 0;
    struct rusage usage {};
    wait4(pid, &status, 0, &usage);
    double seconds = ms_since(start) / 1000;
    if (cpu_seconds)
        *cpu_seconds = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                       static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        std::ifstream in(log);
        std::stringstream text;
        text << in.rdbuf();
        std::string tail = text.str();
        tail = tail.substr(tail.size() > 2000 ? tail.size() - 2000 : 0);
        throw std::runtime_error(args[0] + " failed:\n" + tail);
    }
    return seconds;
}

// From the filter's "N frames, M of them lent without a copy" (verbose log): M / N.
double zero_copy_share(const std::string &log)
{
    std::ifstream in(log);
    std::string line;
    double share = 0;
    // The filter's summary: "[Parsed_glreader_0 @ ...] 300 frames of bgra, ...; 290 lent without a copy".
    while (std::getline(in, line)) {
        long long frames = 0, lent = 0;
        size_t at = line.find("] "), semicolon = line.rfind("; ");
        if (at != std::string::npos && semicolon != std::string::npos &&
            std::sscanf(line.c_str() + at + 2, "%lld frames of", &frames) == 1 &&
            std::sscanf(line.c_str() + semicolon + 2, "%lld lent without a copy", &lent) == 1 && frames > 0)
            share = static_cast<double>(lent) / static_cast<double>(frames);
    }
    return share;
}

// Whether a line of the log holds `words`.
bool log_says(const std::string &log, const std::string &words)
{
    std::ifstream in(log);
    std::string line;
    while (std::getline(in, line))
        if (line.find(words) != std::string::npos)
            return true;
    return false;
}

// A short lossless video for glshader to read, rawvideo in NUT (decoding is a copy) of
// pix_fmt (rgba, yuv420p), looped by ffmpeg for as many frames as a run takes.
std::string write_shader_input(const std::string &ffmpeg, const std::string &shader, const size_spec &s,
                               const std::string &pix_fmt, const std::string &scratch, const std::string &log)
{
    std::string path = scratch + "-" + s.name + "-" + pix_fmt + ".nut",
                size = std::to_string(s.width) + "x" + std::to_string(s.height);
    time_process({ffmpeg, "-hide_banner", "-nostdin", "-y", "-f", "lavfi", "-i",
                  "glreader=s=" + size + ":r=60:format=" + pix_fmt + ":shader=" + shader, "-frames:v", "30", "-c:v",
                  "rawvideo", path},
                 log);
    return path;
}

// The glshader rows: fps (min / median / max), CPU ms per frame (median), the ms per
// frame each way adds to the null filter's, and async / sync.
void print_shader_table(const std::vector<shader_case> &cases, int frames)
{
    std::printf("\nglshader, identity shader over a rawvideo RGBA input looped (decoding is a copy), %d frames per "
                "run, null muxer: fps as min / median / max, CPU ms per frame (median), overhead = ms per frame "
                "beyond the null filter's (medians)\n\n", frames);
    std::printf("| size | null filter | glshader | glshader transfer=sync | CPU ms/frame null / async / sync | "
                "overhead async / sync | async / sync |\n|---|---|---|---|---|---|---|\n");
    for (const shader_case &c : cases) {
        summary n = summarize(c.null_fps), a = summarize(c.async_fps), s = summarize(c.sync_fps);
        std::printf("| %s | %s | %s | %s | %.1f / %.1f / %.1f | %.1f / %.1f ms | %.2fx |\n", c.size.name.c_str(),
                    min_median_max(n).c_str(), min_median_max(a).c_str(), min_median_max(s).c_str(),
                    summarize(c.null_cpu).median, summarize(c.async_cpu).median, summarize(c.sync_cpu).median,
                    1000 / a.median - 1000 / n.median, 1000 / s.median - 1000 / n.median, a.median / s.median);
    }
}

// The yuv420p rows: fps of each way (min / median / max), CPU ms per frame (medians), and
// the CPU's conversion against the GPU's.
void print_yuv_input_table(const std::vector<yuv_input_case> &cases, int frames)
{
    std::printf("\nglshader, identity shader over a rawvideo yuv420p input looped, %d frames per run, null muxer "
                "(the output yuv420p, converted on the GPU): where the input becomes RGB. fps as min / median / max; "
                "default = what yuv_input=auto chose for this renderer\n\n", frames);
    std::printf("| size | null filter | glshader (default) | yuv_input=gpu | yuv_input=cpu | "
                "CPU ms/frame null / default / gpu / cpu | cpu / gpu |\n|---|---|---|---|---|---|---|\n");
    for (const yuv_input_case &c : cases) {
        summary g = summarize(c.gpu_fps), p = summarize(c.cpu_fps);
        std::printf("| %s | %s | %s (%s) | %s | %s | %.1f / %.1f / %.1f / %.1f | %.2fx |\n", c.size.name.c_str(),
                    min_median_max(summarize(c.null_fps)).c_str(), min_median_max(summarize(c.default_fps)).c_str(),
                    c.default_choice.c_str(), min_median_max(g).c_str(), min_median_max(p).c_str(),
                    summarize(c.null_cpu).median, summarize(c.default_cpu).median, summarize(c.gpu_cpu).median,
                    summarize(c.cpu_cpu).median, p.median / g.median);
    }
}

} // namespace

int bench_filter(int argc, char **argv)
{
    std::string ffmpeg, codecs = "rawvideo,ffv1", shader;
    int depth = 3;
    options o = parse_options(argc, argv, {"720p,1080p", "", 3, 300}, [&](sample::command_line &args) {
        if (args.is("--ffmpeg"))
            ffmpeg = args.value();
        else if (args.is("--codecs"))
            codecs = args.value();
        else if (args.is("--shader"))
            shader = args.value();
        else if (args.is("--depth"))
            depth = args.count(1, 16);
        else
            return false;
        return true;
    });
    if (ffmpeg.empty())
        ffmpeg = find_patched_ffmpeg();
    std::string exporter = export_path(), scratch = "/tmp/glreader-bench-filter-" + std::to_string(getpid());
    if (shader.empty()) {
        shader = scratch + ".frag";
        std::ofstream(shader) << cheap_scene_source;
    }
    std::string log = scratch + ".log";

    std::vector<filter_case> cases;
    std::vector<shader_case> shader_cases;
    std::vector<yuv_input_case> yuv_cases;
    for (const size_spec &s : parse_sizes(o.sizes)) {
        for (const std::string &c : split(codecs))
            cases.push_back({s, c, {}, {}, {}, {}, {}});
        shader_cases.push_back({s, write_shader_input(ffmpeg, shader, s, "rgba", scratch, log), {}, {}, {}, {}, {}, {}});
        yuv_cases.push_back({s, write_shader_input(ffmpeg, shader, s, "yuv420p", scratch, log), {}, {}, {}, {}, {}, {},
                             {}, {}, ""});
    }
    const std::string identity = "void mainImage(out vec4 c, in vec2 p) { c = texture(iChannel0, p / iResolution.xy); }";
    glr::context ctx;
    std::string renderer = ctx.renderer();
    std::fprintf(stderr, "glreader-bench filter on %s: %s against %s, %d runs x %d frames, interleaved\n",
                 renderer.c_str(), ffmpeg.c_str(), exporter.c_str(), o.runs, o.frames);

    load_meter load;
    for (int run = 0; run < o.runs; run++) {
        for (filter_case &c : cases) {
            std::string size = std::to_string(c.size.width) + "x" + std::to_string(c.size.height);
            auto filter = [&](const std::string &readback) {
                return std::vector<std::string>{
                    ffmpeg, "-hide_banner", "-nostdin", "-v", "verbose", "-f", "lavfi", "-i",
                    "glreader=s=" + size + ":r=60:format=bgra:depth=" + std::to_string(depth) + ":readback=" +
                        readback + ":shader=" + shader,
                    "-frames:v", std::to_string(o.frames), "-c:v", c.codec, "-threads", "auto", "-f", "null", "-"};
            };
            load.other_cpu_seconds();
            c.export_fps.push_back(o.frames / time_process({exporter, "-s", size, "-r", "60", "-n",
                                                            std::to_string(o.frames), "-c", c.codec,
                                                            "--codec-options", "threads=auto", "--depth",
                                                            std::to_string(depth), "--shader", shader, "-f", "null",
                                                            "-o", "/dev/null"},
                                                           log));
            c.ring_fps.push_back(o.frames / time_process(filter("ring"), log));
            c.zero_copy_share.push_back(zero_copy_share(log));
            c.sync_fps.push_back(o.frames / time_process(filter("sync"), log));
            c.load.push_back(load.other_cpu_seconds());
        }
        // A filter graph over a looped input: its fps, its CPU ms per frame.
        auto over_input = [&](const std::string &input, const std::string &filter, std::vector<double> &fps,
                              std::vector<double> &cpu) {
            double seconds = 0;
            fps.push_back(o.frames / time_process({ffmpeg, "-hide_banner", "-nostdin", "-v", "verbose", "-stream_loop",
                                                   "-1", "-i", input, "-vf", filter, "-frames:v",
                                                   std::to_string(o.frames), "-f", "null", "-"},
                                                  log, &seconds));
            cpu.push_back(1000 * seconds / o.frames);
        };
        std::string glshader = "glshader=depth=" + std::to_string(depth) + ":shader_src='" + identity + "'";
        for (shader_case &c : shader_cases) {
            over_input(c.input, "format=rgba,null", c.null_fps, c.null_cpu);
            over_input(c.input, glshader, c.async_fps, c.async_cpu);
            over_input(c.input, glshader + ":transfer=sync", c.sync_fps, c.sync_cpu);
        }
        for (yuv_input_case &c : yuv_cases) {
            over_input(c.input, "format=yuv420p,null", c.null_fps, c.null_cpu);
            over_input(c.input, glshader, c.default_fps, c.default_cpu);
            c.default_choice = log_says(log, "converted to RGB on the CPU") ? "cpu" : "gpu";
            over_input(c.input, glshader + ":yuv_input=gpu", c.gpu_fps, c.gpu_cpu);
            over_input(c.input, glshader + ":yuv_input=cpu", c.cpu_fps, c.cpu_cpu);
        }
        std::fprintf(stderr, "  run %d/%d done\n", run + 1, o.runs);
    }
    std::remove(log.c_str());
    std::remove((scratch + ".frag").c_str());
    for (const shader_case &c : shader_cases)
        std::remove(c.input.c_str());
    for (const yuv_input_case &c : yuv_cases)
        std::remove(c.input.c_str());

    std::printf("\nglreader-bench filter: %d frames per run, BGRA, depth %d, encoder threads auto, null muxer, %s, "
                "%d runs\n", o.frames, depth, renderer.c_str(), o.runs);
    std::printf("fps as min / median / max of the runs, each a whole process from start to exit; ratios of "
                "medians; zero-copy = share of the filter's frames lent without a copy; other CPU s = CPU time "
                "of other processes during the case\n\n");
    std::printf("| size | codec | glreader-export | filter, ring | filter, readback=sync | filter / export | "
                "ring / sync | zero-copy | other CPU s (max) |\n|---|---|---|---|---|---|---|---|---|\n");
    for (const filter_case &c : cases) {
        summary e = summarize(c.export_fps), r = summarize(c.ring_fps), s = summarize(c.sync_fps),
                z = summarize(c.zero_copy_share), l = summarize(c.load);
        std::printf("| %s | %s | %s | %s | %s | %.2fx | %.2fx | %.0f%% | %.2f |\n", c.size.name.c_str(),
                    c.codec.c_str(), min_median_max(e).c_str(), min_median_max(r).c_str(), min_median_max(s).c_str(),
                    r.median / e.median, r.median / s.median, 100 * z.median, l.max);
    }
    print_shader_table(shader_cases, o.frames);
    print_yuv_input_table(yuv_cases, o.frames);
    std::vector<std::string> items;
    for (const yuv_input_case &c : yuv_cases)
        items.push_back("{\"size\": \"" + c.size.name + "\", \"filter\": \"glshader\", \"input\": \"yuv420p\", " +
                        "\"default_choice\": \"" + c.default_choice + "\",\n     \"null_fps\": " +
                        json_summary(c.null_fps) + ",\n     \"default_fps\": " + json_summary(c.default_fps) +
                        ",\n     \"yuv_input_gpu_fps\": " + json_summary(c.gpu_fps) +
                        ",\n     \"yuv_input_cpu_fps\": " + json_summary(c.cpu_fps) +
                        ",\n     \"cpu_ms_per_frame\": {\"null\": " + json_summary(c.null_cpu) +
                        ", \"default\": " + json_summary(c.default_cpu) + ", \"gpu\": " + json_summary(c.gpu_cpu) +
                        ", \"cpu\": " + json_summary(c.cpu_cpu) + "}}");
    for (const shader_case &c : shader_cases)
        items.push_back("{\"size\": \"" + c.size.name + "\", \"filter\": \"glshader\",\n     \"null_fps\": " +
                        json_summary(c.null_fps) + ",\n     \"glshader_fps\": " + json_summary(c.async_fps) +
                        ",\n     \"glshader_sync_fps\": " + json_summary(c.sync_fps) +
                        ",\n     \"cpu_ms_per_frame\": {\"null\": " + json_summary(c.null_cpu) +
                        ", \"glshader\": " + json_summary(c.async_cpu) +
                        ", \"glshader_sync\": " + json_summary(c.sync_cpu) + "}}");
    for (const filter_case &c : cases)
        items.push_back("{\"size\": \"" + c.size.name + "\", \"codec\": \"" + c.codec +
                        "\",\n     \"glreader_export\": " + json_summary(c.export_fps) +
                        ",\n     \"filter_ring\": " + json_summary(c.ring_fps) +
                        ",\n     \"filter_sync\": " + json_summary(c.sync_fps) +
                        ",\n     \"zero_copy_share\": " + json_summary(c.zero_copy_share) +
                        ",\n     \"other_cpu_seconds\": " + json_summary(c.load) + "}");
    write_json(o.json, "filter", ctx, o.runs,
               "\"frames_per_run\": " + std::to_string(o.frames) + ", \"depth\": " + std::to_string(depth) +
                   ", \"ffmpeg\": \"" + ffmpeg + "\", \"unit\": \"fps\"",
               items);
    return 0;
}

} // namespace bench
