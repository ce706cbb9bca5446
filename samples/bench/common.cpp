#include "common.hpp"

#include <sys/resource.h>

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace bench {

double ms_since(clock_type::time_point start)
{
    return std::chrono::duration<double, std::milli>(clock_type::now() - start).count();
}

double own_cpu_seconds()
{
    auto seconds = [](const rusage &u) {
        return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
               static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
    };
    rusage self{}, children{};
    getrusage(RUSAGE_SELF, &self);
    getrusage(RUSAGE_CHILDREN, &children);
    return seconds(self) + seconds(children);
}

run_cost measure(const std::function<std::pair<int, double>()> &body)
{
    double cpu = own_cpu_seconds();
    auto [frames, seconds] = body();
    cpu = own_cpu_seconds() - cpu;
    if (frames <= 0 || seconds <= 0)
        throw std::runtime_error("a benchmark run moved no frame");
    return {frames / seconds, cpu * 1000 / frames};
}

double load_meter::other_cpu_seconds()
{
    double total = total_, self = self_;
    sample();
    return std::max(0.0, (total_ - total) - (self_ - self));
}

void load_meter::sample()
{
    double ticks = static_cast<double>(sysconf(_SC_CLK_TCK));
    std::ifstream stat("/proc/stat");
    std::string cpu;
    unsigned long long user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0,
                       steal = 0;
    stat >> cpu >> user >> nice >> system >> idle >> iowait >> irq >> softirq >> steal;
    total_ = static_cast<double>(user + nice + system + irq + softirq + steal) / ticks;
    std::ifstream self_stat("/proc/self/stat");
    std::string line;
    std::getline(self_stat, line);
    // Fields after the command name (which may contain spaces) start after ')'.
    std::istringstream fields(line.substr(line.rfind(')') + 2));
    std::string skip;
    for (int i = 3; i < 14; i++)
        fields >> skip;
    // Our own time and that of children we waited for (the ffmpeg child of the pipe runs).
    unsigned long long utime = 0, stime = 0, cutime = 0, cstime = 0;
    fields >> utime >> stime >> cutime >> cstime;
    self_ = static_cast<double>(utime + stime + cutime + cstime) / ticks;
}

std::vector<size_spec> parse_sizes(const std::string &list)
{
    std::vector<size_spec> out;
    std::stringstream in(list);
    std::string item;
    while (std::getline(in, item, ',')) {
        if (item == "720p") out.push_back({item, 1280, 720});
        else if (item == "1080p") out.push_back({item, 1920, 1080});
        else if (item == "2160p") out.push_back({item, 3840, 2160});
        else {
            int w = 0, h = 0;
            if (!sample::parse_size(item, w, h) || w > sample::max_dimension || h > sample::max_dimension)
                throw std::runtime_error("unknown size '" + item + "' (use 720p, 1080p, 2160p or WxH, each from 1 to " +
                                         std::to_string(sample::max_dimension) + ")");
            out.push_back({item, w, h});
        }
    }
    return out;
}

std::vector<std::string> split(const std::string &list, char separator)
{
    std::vector<std::string> out;
    std::stringstream in(list);
    std::string item;
    while (std::getline(in, item, separator))
        out.push_back(item);
    return out;
}

summary summarize(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return {v.front(), v[v.size() / 2], v.back()};
}

std::string min_median_max(const summary &x)
{
    char text[64];
    std::snprintf(text, sizeof text, "%.1f / %.1f / %.1f", x.min, x.median, x.max);
    return text;
}

std::string json_array(const std::vector<double> &v)
{
    std::string out = "[";
    for (size_t i = 0; i < v.size(); i++)
        out += (i ? ", " : "") + std::to_string(v[i]);
    return out + "]";
}

std::string json_summary(const std::vector<double> &v)
{
    summary s = summarize(v);
    char text[256];
    std::snprintf(text, sizeof text, "{\"min\": %.4f, \"median\": %.4f, \"max\": %.4f, \"runs\": %s}",
                  s.min, s.median, s.max, json_array(v).c_str());
    return text;
}

void write_json(const std::string &path, const std::string &mode, const glr::context &ctx, int runs,
                const std::string &fields, const std::vector<std::string> &items)
{
    if (path.empty())
        return;
    std::ofstream out(path);
    out << "{\n  \"bench\": \"" << mode << "\",\n  \"renderer\": \"" << ctx.renderer() << "\",\n  \"platform\": \""
        << ctx.platform() << "\",\n  \"software\": " << (ctx.is_software() ? "true" : "false")
        << ",\n  \"cpus\": " << std::thread::hardware_concurrency() << ",\n  \"runs\": " << runs << ",\n  " << fields
        << ",\n  \"results\": [\n";
    for (size_t i = 0; i < items.size(); i++)
        out << "    " << items[i] << (i + 1 < items.size() ? ",\n" : "\n");
    out << "  ]\n}\n";
    if (!out)
        throw std::runtime_error("cannot write " + path);
    std::printf("\nwrote %s\n", path.c_str());
}

void write_all(int fd, const uint8_t *data, size_t size)
{
    while (size > 0) {
        ssize_t n = write(fd, data, size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            throw std::runtime_error(std::string("write to ffmpeg failed: ") + std::strerror(errno));
        data += n;
        size -= static_cast<size_t>(n);
    }
}

sample::program_help help()
{
    using namespace sample;
    return {"glreader-bench",
            "MODE [OPTIONS]",
            "Side-by-side measurements, interleaved in one run so that every ratio compares numbers taken under "
            "the same conditions; each cell gives min / median / max fps and CPU ms per frame. MODE is one of: "
            "info (what the GL is), ring (readback against glReadPixels, stalls per stage), encode (BGRA with CPU "
            "conversion, GPU YUV, pipe mode and real outputs), pipe (glreader's pipe rows), compare (pipe mode "
            "against TurboPipe, which needs scripts/bench-setup.sh), filter (the FFmpeg filters against "
            "glreader-export, which needs a patched ffmpeg: ffmpeg-patches/build.sh 5.1).",
            {{"Every mode",
              {{"--sizes", "LIST", "frame sizes: 720p, 1080p, 2160p or WxH, comma-separated",
                "ring, pipe, compare: 720p,1080p,2160p; encode, filter: 720p,1080p"},
               {"--runs", "N", "runs of each cell, 1 to 1000", "ring: 5; others: 3"},
               {"--frames", "N", "frames per run, 1 to 1000000",
                "ring, encode: 60; filter: 300; pipe, compare: 600"},
               {"--json", "FILE", "write every run as JSON", "none"}}},
             {"ring",
              {{"--stall-captures", "N", "captures timed per run for the stall's percentiles, 100 to 1000000",
                "1000"}}},
             {"encode",
              {{"--presets", "LIST", "libx264 presets to run, comma-separated", "ultrafast,slow"}}},
             {"pipe and compare",
              {{"--outputs", "LIST", "ffmpeg outputs: null, ultrafast, slow", "pipe: null; compare: null,ultrafast,slow"},
               {"--buffers", "LIST", "buffers (ring depth) per row, each 1 to 64", "1,4"},
               {"--seconds", "S", "at most this long per cell, 0.1 to 3600", "1"},
               {"--python", "PROGRAM", "the Python with TurboPipe and moderngl (compare's Python rows)",
                ".venv/bin/python of the checkout"},
               {"--python-cell", "FILE", "the script that runs one Python row",
                "samples/bench/python_cell.py of the checkout"},
               {"--no-load-row", "", "leave out the row run with one core kept busy", "off"}}},
             {"filter",
              {{"--ffmpeg", "PATH", "the patched ffmpeg", "the 5.1 line's from ffmpeg-patches/build.sh"},
               {"--codecs", "LIST", "encoders to run, comma-separated", "rawvideo,ffv1"},
               doc::shader.with_default("a cheap built-in shader"),
               doc::depth}}},
            {"glreader-bench ring --sizes 1080p --runs 3", "glreader-bench encode --presets ultrafast --json encode.json",
             "glreader-bench filter --ffmpeg \"$(ffmpeg-patches/build.sh 9.0 | tail -n 1)\""}};
}

options parse_options(int argc, char **argv, options o, const std::function<bool(sample::command_line &)> &extra)
{
    // command_line reads from argv[1]: the program's name goes first.
    std::vector<char *> all{const_cast<char *>("glreader-bench")};
    all.insert(all.end(), argv, argv + argc);
    sample::command_line args(static_cast<int>(all.size()), all.data(), help());
    while (args.next()) {
        if (args.is("--sizes")) {
            o.sizes = args.value();
            try {
                parse_sizes(o.sizes);
            } catch (const std::exception &e) {
                args.fail(std::string("--sizes: ") + e.what());
            }
        } else if (args.is("--runs")) {
            o.runs = args.count(1, 1000);
        } else if (args.is("--frames")) {
            o.frames = args.count(1, 1000000);
        } else if (args.is("--json")) {
            o.json = args.value();
        } else if (!extra || !extra(args)) {
            args.fail("unknown option " + args.option());
        }
    }
    return o;
}

glr::ring make_ring(int width, int height, glr_format format, glr_flip flip, int depth)
{
    glr_ring_params rp{};
    rp.width = width;
    rp.height = height;
    rp.format = format;
    rp.flip = flip;
    rp.depth = depth;
    return glr::ring(rp);
}

glr_ffmpeg_child_params child_params(const size_spec &size, glr_format format)
{
    glr_ffmpeg_child_params p{};
    p.width = size.width;
    p.height = size.height;
    p.format = format;
    p.fps_num = 60;
    p.fps_den = 1;
    return p;
}

const char *const cheap_scene_source = R"(void mainImage(out vec4 c, in vec2 p) {
    vec2 uv = p / iResolution.xy;
    c = vec4(uv, 0.5 + 0.5 * sin(iTime * 3.0 + uv.x * 10.0), 1.0);
}
)";

} // namespace bench
