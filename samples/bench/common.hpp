// What every glreader-bench mode shares: timing, the machine-load meter, sizes, min /
// median / max summaries, JSON fragments and the common options.
#pragma once

#include "command_line.hpp"

#include "glreader/glreader.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace bench {

using clock_type = std::chrono::steady_clock;

double ms_since(clock_type::time_point start);

// CPU time used by every process but this one (and its children) since the last call, in
// seconds: the benchmark's measure of how loaded the machine was while it ran.
class load_meter {
public:
    load_meter() { sample(); }
    double other_cpu_seconds();

private:
    void sample();
    double total_ = 0, self_ = 0;
};

// CPU seconds used so far by this process (every thread: the GL driver's included) and by
// the children it has waited for (ffmpeg children, the TurboPipe script and its ffmpeg).
double own_cpu_seconds();

// What one timed run of a method gives: frames per second and the CPU it cost, in
// milliseconds per frame, over every process involved.
struct run_cost {
    double fps;
    double cpu_ms_per_frame;
};

// Runs body (which returns the frames it moved and the seconds they took) and measures it.
run_cost measure(const std::function<std::pair<int, double>()> &body);

struct size_spec {
    std::string name;
    int width, height;
};

// "720p,1080p,2160p" or "WxH" items; throws on anything else.
// The folder compare's Python rows import glreader from ("": PYTHONPATH's), or NULL where
// this build has no Python package (python_rows.cpp).
const char *python_package_path();

std::vector<size_spec> parse_sizes(const std::string &list);
std::vector<std::string> split(const std::string &list, char separator = ',');

struct summary {
    double min, median, max;
};
summary summarize(std::vector<double> v);
// "min / median / max" with one decimal, for a table cell.
std::string min_median_max(const summary &x);

std::string json_array(const std::vector<double> &v);
// {"min": .., "median": .., "max": .., "runs": [..]}
std::string json_summary(const std::vector<double> &v);

// Writes {"bench": MODE, "renderer": .., "platform": .., "software": .., "cpus": .., "runs": ..,
// FIELDS, "results": [ITEMS]} to path (the GL facts from ctx; fields: `"key": value` pairs,
// comma-separated; items: JSON objects) and says so; nothing when path is empty. Throws
// when it cannot be written.
void write_json(const std::string &path, const std::string &mode, const glr::context &ctx, int runs,
                const std::string &fields, const std::vector<std::string> &items);

// write() until all of it is out (EINTR retried); throws naming the error.
void write_all(int fd, const uint8_t *data, size_t size);

// Options every mode takes. `extra` sees the others (name, value) and returns false for
// one it does not know either.
struct options {
    std::string sizes, json;
    int runs, frames;
};
// Reads a mode's options (argv: the mode's arguments only) with the samples' strict
// readers: --sizes, --runs, --frames and --json, and through extra the mode's own (extra
// looks at args.option(), reads its value with args' readers and returns false for an
// option it does not know either). A bad option prints why and the usage, and exits 2.
options parse_options(int argc, char **argv, options defaults,
                      const std::function<bool(sample::command_line &args)> &extra = {});

// The usage of every mode, for -h and option errors.
// What --help prints: every mode's options.
sample::program_help help();

// A ring as the modes read frames back.
glr::ring make_ring(int width, int height, glr_format format, glr_flip flip = GLR_FLIP_STRIDE, int depth = 3);

// An ffmpeg child reading frames of this size and format at 60 fps from stdin.
glr_ffmpeg_child_params child_params(const size_spec &size, glr_format format);

// A cheap scene, so that rendering (the same for every method) weighs little.
extern const char *const cheap_scene_source;

} // namespace bench
