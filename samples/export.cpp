// glreader-export: renders a scene headless and encodes it in-process, frames going from
// the GPU through the readback ring straight into libavcodec: no pipe, no ffmpeg child.
//
//   glreader-export [-s 1280x720] [-r 30] [-t 5 | -n FRAMES] [-c libx264] [--preset P]
//                   [--crf N] [--pix-fmt F] [--codec-options k=v:k=v] [--convert gpu|cpu]
//                   [--ring-format F] [--matrix M] [--range R] [--chroma-loc L] [--depth 3]
//                   [--queue 2] [--shader FILE] [--stats-json FILE] [-f FORMAT] [-o FILE]
//
// Colour: when the encoder's pixel format is one the ring makes (nv12, yuv420p, p010le,
// yuv444p), frames are converted on the GPU and read back as YUV (--convert gpu, the
// default); --convert cpu reads back BGRA and converts with libswscale. Either way the
// conversion and the file's tags follow --matrix (bt709), --range (tv) and --chroma-loc
// (left).
//
// --shader takes a Shadertoy shader: a .frag file with mainImage(out vec4, in vec2) and
// Shadertoy's inputs, or a project directory with its buffers and channels
// (glreader/shadertoy_project.h); --channel0..3 feed the Image pass images, videos, sound, cube
// maps and buffers. iDate counts from the render's start, or from --date; --start-frame N
// renders from frame N, exactly as a run from 0 renders it (a project with feedback
// buffers is pre-rolled: glreader/player.h). The output is a file (never overwritten
// without -y, and not touched until the encoder and muxer are ready; with --part it is
// written as OUTPUT.part, renamed once whole), "-" for standard
// output, or any URL libavformat has a protocol for; -f names the container when the name
// does not (-f null encodes and writes nothing). An output that stalls is waited for, as
// long as it stalls. A first SIGINT or SIGTERM stops rendering, encodes what was rendered
// and finalizes the file, then exits with 130 or 143, even while the driver compiles or a
// frame renders (the export job finalizes without it: glreader/av/export.h); a second one
// exits at once. Shader files are read only if regular, below --max-shader-size. Messages
// go to stderr, only media to stdout. All the work is the library's export job; this
// program reads options, turns signals into its cancel, and prints.
#include "command_line.hpp"
#include "export_join.hpp"
#include "program_log.hpp"
#include "project_scene.hpp"
#include "stop_signals.hpp"

#include "glreader/av/export_options.h"
#include "glreader/av/export.hpp"
#include "glreader/glreader.hpp"

#include <nlohmann/json.hpp>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavutil/log.h>
}

#include <unistd.h>

#include <algorithm>
#include <climits>
#include <csignal>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <optional>
#include <string>

namespace {

struct settings_deleter {
    void operator()(glr_export_settings *s) const { glr_export_settings_destroy(&s); }
};

struct options {
    // The export's options, read by the library's table (glreader/av/export_options.h).
    std::unique_ptr<glr_export_settings, settings_deleter> settings{glr_export_settings_create()};
    std::string stats_json;
    std::string to_project; // --to-project: write the project there, render nothing
    sample::verbosity verbosity = sample::verbosity::warning;
};

// What the exporter reads itself; every other option is the library table's.
const sample::option_doc chunk_range{
    "--frames", "A-B",
    "render frames A to B-1 of the whole timeline (B excluded) as one chunk of a longer render, exactly as a single "
    "pass renders them, to join with the others by `glreader-export join`: --start-frame A -n B-A --chunk",
    "off"};
const sample::option_doc to_project{
    "--to-project", "DIR",
    "render nothing: write the --shader (a Shadertoy JSON, say) as a project folder to edit, DIR new or empty", "off"};
const sample::option_doc stats_json{"--stats-json", "FILE", "write the run's settings, counts and stage times as JSON",
                                    "none"};

sample::program_help help()
{
    using namespace sample;
    // The table's sections in its order, each option as the table documents it; the
    // Image pass's four channels as one line.
    std::vector<help_section> sections = exported_sections();
    for (help_section &section : sections) {
        if (section.title == "What to render")
            section.options.insert(section.options.end(), {chunk_range, to_project});
        else if (section.title == "Output")
            section.options.push_back(stats_json);
    }
    sections.push_back({"Messages", {doc::verbosity}});
    return {
        "glreader-export",
        "[OPTIONS]",
        "Renders a Shadertoy shader or project headless and encodes it in-process with FFmpeg's libraries, "
        "frames going from the GPU through glreader's readback ring straight into the encoder: into a file, "
        "a pipe, a URL or an image sequence, with sound, tagged colour and exact frame ranges. Any option of "
        "the video encoder is an option too (-preset, -crf, -b:v, -tune...), checked against the encoder before "
        "a frame renders.",
        sections,
        {"glreader-export --shader samples/shaders/plasma.frag -s 1920x1080 -r 60 -t 10 -o plasma.mp4",
         "glreader-export --shader samples/shaders/visualizer --audio song.mp3 -t 3:00 -metadata title=Song -o video.mp4",
         "glreader-export --shader samples/shaders/plasma.frag -n 120 -o frames/%05d.png",
         "glreader-export --shader samples/shaders/plasma.frag -c hevc -crf 24 -tune animation -o plasma.mkv",
         "glreader-export --shader samples/shaders/plasma.frag -ss 20 -to 30 -f mpegts -o udp://127.0.0.1:9000"}};
}

// Sets one of the table's options (or an encoder's), failing as a usage error.
void set(sample::command_line &args, glr_export_settings *settings, const std::string &key, const std::string &value)
{
    if (glr_export_settings_set(settings, key.c_str(), value.c_str()) < 0)
        args.fail(glr_last_error());
}

options parse(int argc, char **argv)
{
    options o;
    sample::command_line args(argc, argv, help());
    glr_export_settings *s = o.settings.get();
    long long chunk_first = -1, chunk_end = -1; // --frames A-B
    while (args.next()) {
        const std::string &option = args.option();
        if (args.verbosity_option(o.verbosity)) {
        } else if (args.is("--stats-json")) {
            o.stats_json = args.value();
        } else if (args.is("--to-project")) {
            o.to_project = args.value();
        } else if (args.is("--frames")) {
            std::string range = args.value();
            size_t dash = range.find('-');
            if (dash == std::string::npos || !sample::parse_integer(range.substr(0, dash), chunk_first) ||
                !sample::parse_integer(range.substr(dash + 1), chunk_end) || chunk_first < 0 ||
                chunk_end <= chunk_first || chunk_end > INT_MAX)
                args.fail("--frames takes A-B, frame numbers with B after A (B excluded), like 0-120, not '" + range +
                          "'");
        } else if (option.size() < 2 || option[0] != '-') {
            args.fail("unknown option " + option + ": options begin with -");
        } else if (const glr_export_option *known = glr_export_option_find(option.c_str())) {
            set(args, s, option, known->kind == GLR_EXPORT_OPTION_SWITCH ? "1" : args.value());
        } else if (!args.has_value() && glr_export_settings_set(s, option.c_str(), "") == -ENOENT) {
            args.fail(glr_last_error()); // unknown, and nothing follows it
        } else {
            set(args, s, option, args.value()); // an encoder's option, or unknown
        }
    }
    if (chunk_first >= 0) {
        for (const char *range : {"start", "first_frame", "duration", "end", "frames"})
            if (glr_export_settings_has(s, range))
                args.fail("--frames A-B gives the range: -ss, --start-frame, -t, -n and -to say it again");
        set(args, s, "--start-frame", std::to_string(chunk_first));
        set(args, s, "-n", std::to_string(chunk_end - chunk_first));
        set(args, s, "--chunk", "1");
    }
    if (glr_export_settings_check(s) < 0)
        args.fail(glr_last_error());
    if (!o.to_project.empty())
        return o; // it writes a project folder, no output: none to name or to refuse
    const char *container = glr_export_settings_get(s, "container"), *output = glr_export_settings_get(s, "output");
    if (!container || std::strcmp(container, "null") != 0)
        args.refuse_existing(output ? output : "glreader-export.mp4",
                             glr_export_settings_get(s, "overwrite") && *glr_export_settings_get(s, "overwrite") == '1');
    return o;
}

// "[#####.....]  45%  270/600 frames encoded (rendered 274)  87.3 fps  ETA 3.8 s" on a
// terminal, plain lines every two seconds otherwise; the fps and the bar count frames
// encoded. The words in brackets say what the run is doing: rendering, flushing the
// encoder, or waiting for an output that takes no data (a paused reader, a busy disk).
// The job calls it on main's thread, which it holds, also while its render thread waits.
class progress {
public:
    progress(int total, sample::verbosity level) : total_(total), tty_(isatty(STDERR_FILENO)), level_(level) {}
    int interval_ms() const { return tty_ ? 100 : 2000; }

    void report(const glr_export_stats &s)
    {
        if (level_ < sample::verbosity::warning)
            return;
        if (!renderer_told_ && s.renderer[0] && level_ >= sample::verbosity::info) {
            renderer_told_ = true;
            std::fprintf(stderr, "OpenGL renderer: %s (EGL %s); encoding %s (%s, %s) into %s\n", s.renderer,
                         s.platform, s.plan.video_codec, s.plan.video_encoder, s.plan.pix_fmt, s.plan.container);
        }
        if (!preroll_told_ && s.preroll_frames > 0) {
            preroll_told_ = true;
            std::fprintf(stderr, "pre-rolling %d frames: the project's buffers carry pixels from frame to frame\n",
                         s.preroll_frames);
        }
        // What a range (a chunk) this far in pays before its first frame.
        if (!preroll_timed_ && s.preroll_seconds > 0) {
            preroll_timed_ = true;
            std::fprintf(stderr, "pre-rolled %d frames in %.2f s\n", s.preroll_frames, s.preroll_seconds);
        }
        // Reports begin with the rendering; the end gives a last one, when there were some.
        bool ended = s.state == GLR_EXPORT_ENDED;
        if (ended ? !shown_ : s.state != GLR_EXPORT_RENDERING && s.state != GLR_EXPORT_FLUSHING)
            return;
        shown_ = true;
        int encoded = static_cast<int>(s.encoder.frames_encoded);
        double fps = s.elapsed_seconds > 0 ? encoded / s.elapsed_seconds : 0;
        double eta = fps > 0 ? (total_ - encoded) / fps : 0;
        std::string state = ended ? "done"
                            : s.output_wait_seconds >= 1
                                ? "waiting for the output: " + std::to_string(std::lround(s.output_wait_seconds)) + " s"
                            : s.state == GLR_EXPORT_FLUSHING ? "flushing the encoder"
                                                             : "rendered " + std::to_string(s.frames_rendered);
        if (s.cancel_requested && !ended)
            state += "; stopping: a second Ctrl-C exits at once";
        if (tty_) {
            int filled = total_ ? 30 * encoded / total_ : 30;
            std::fprintf(stderr, "\r[%s%s] %3d%% %d/%d frames encoded (%s) %6.1f fps  ETA %.1f s ",
                         std::string(static_cast<size_t>(filled), '#').c_str(),
                         std::string(static_cast<size_t>(30 - filled), '.').c_str(),
                         total_ ? 100 * encoded / total_ : 100, encoded, total_, state.c_str(), fps, eta);
            line_open_ = !ended;
            if (ended)
                std::fprintf(stderr, "\n");
        } else {
            std::fprintf(stderr, "%d/%d frames encoded (%s), %.1f fps, ETA %.1f s\n", encoded, total_, state.c_str(),
                         fps, eta);
        }
    }

    // Whether the terminal's bar is the line the cursor is on: a message then starts a new one.
    bool line_open() const { return line_open_; }

private:
    int total_;
    bool tty_;
    sample::verbosity level_;
    bool renderer_told_ = false, preroll_told_ = false, preroll_timed_ = false, shown_ = false, line_open_ = false;
};

void print_stage(const char *name, const glr_latency &l)
{
    std::fprintf(stderr, "  %-26s %9.3f %9.3f %9.3f %9.3f %9llu\n", name, l.p50_ms, l.p95_ms, l.p99_ms,
                l.mean_ms, static_cast<unsigned long long>(l.count));
}

nlohmann::ordered_json json_stage(const glr_latency &l)
{
    return {{"count", l.count}, {"mean_ms", l.mean_ms}, {"p50_ms", l.p50_ms}, {"p95_ms", l.p95_ms},
            {"p99_ms", l.p99_ms}, {"max_ms", l.max_ms}};
}


void write_stats_json(const options &o, const glr_export_stats &st, const glr_export_params &params);

// The summary on stderr (at the default level and above), and the statistics as JSON with
// --stats-json.
void report(const options &o, const glr_export_stats &st, const glr_export_params &params)
{
    if (o.verbosity < sample::verbosity::warning)
        return write_stats_json(o, st, params);
    const bool whole = st.stop == GLR_EXPORT_COMPLETE;
    const glr_player_params &pl = params.player;
    const std::string output = params.encoder.output;
    // What holds the frames of an export stopped short: --part keeps the .part name.
    const bool part = params.encoder.output_flags & GLR_OUTPUT_PART;
    const std::string stopped_file = part ? output + ".part" : "the file";
    const glr_encoder_stats &es = st.encoder;
    if (st.stop == GLR_EXPORT_CANCELLED && st.render_running)
        std::fprintf(stderr, "stopped while frame %d was rendering: wrote %llu frames; %s was finalized\n",
                     pl.first_frame + st.frames_rendered, static_cast<unsigned long long>(es.frames_encoded),
                     stopped_file.c_str());
    else if (!whole)
        std::fprintf(stderr, "interrupted: stopped after %d of %d frames; %s was finalized\n", st.frames_rendered,
                     params.frame_count, stopped_file.c_str());
    const std::string written = !whole && part ? output + ".part" : output;
    char *absolute = realpath(written.c_str(), nullptr);
    double elapsed = st.elapsed_seconds;
    std::fprintf(stderr, "wrote %llu frames (%dx%d, %d/%d fps, %s %s) to %s: %s in %.2f s, %.1f fps\n",
                 static_cast<unsigned long long>(es.frames_encoded), pl.width, pl.height, pl.fps_num, pl.fps_den,
                 st.plan.video_encoder, st.plan.pix_fmt, absolute ? absolute : written.c_str(),
                 sample::byte_size(es.bytes_written).c_str(), elapsed, es.frames_encoded / elapsed);
    std::free(absolute);
    const glr_ring_stats &rs = st.ring;
    const glr_player_stats &ps = st.player; // pre-roll included
    std::fprintf(stderr, "  %-26s %9s %9s %9s %9s %9s\n", "stage (ms per frame)", "p50", "p95", "p99", "mean", "count");
    print_stage("channels (decode, upload)", ps.channels);
    print_stage("render (draw calls)", ps.render);
    print_stage("readback (in capture)", rs.readback);
    print_stage("render-thread stall", rs.stall);
    print_stage("wait for encoder queue", es.submit_wait);
    print_stage("convert (swscale, CPU)", es.convert);
    print_stage("encode", es.encode);
    print_stage("write (mux + file)", es.write);
    const auto count = [](uint64_t n) { return static_cast<unsigned long long>(n); };
    if (es.hardware_frames || es.transferred_frames) {
        // What happened, in order: converted into the frames of a GPU API, then taken as they
        // are by an encoder on the GPU, or copied to memory for one on the CPU.
        const char *kind = rs.path && std::strncmp(rs.path, "cuda", 4) == 0 ? "CUDA" : "Vulkan";
        std::fprintf(stderr, "  frames converted on the GPU into %s frames (%s, %s)\n", kind,
                     glr_format_name(st.ring_format), rs.path ? rs.path : "none");
        if (es.hardware_frames)
            std::fprintf(stderr, "  %llu taken by %s as they are, nothing read back\n", count(es.hardware_frames),
                         st.plan.video_encoder);
        if (es.transferred_frames)
            std::fprintf(stderr, "  %llu copied to memory for %s, an encoder on the CPU: --hw-frames on buys nothing "
                                 "there (auto reads frames back for it)\n",
                         count(es.transferred_frames), st.plan.video_encoder);
    } else {
        const char *conversion = glr_format_get_info(st.ring_format)->yuv ? "gpu" : es.converted_frames ? "cpu" : "none";
        std::fprintf(stderr, "  readback path %s, %s %s frames of %zu bytes; colour conversion: %s\n",
                     rs.path ? rs.path : "none", rs.fill ? rs.fill : "none", glr_format_name(st.ring_format),
                     rs.frame_bytes, conversion);
        std::fprintf(stderr, "  %llu frames zero-copy, %llu converted, %llu copied\n", count(es.zero_copy_frames),
                     count(es.converted_frames), count(es.copied_frames));
    }
    if (*st.plan.audio_encoder)
        std::fprintf(stderr, "  audio: %s%s, %llu samples per channel\n",
                     params.encoder.audio.input ? "" : "the Sound pass's, ", es.audio_copied ? "copied as it is" : "encoded",
                     count(es.audio_samples_encoded));
    std::fprintf(stderr, "  OpenGL renderer: %s (EGL %s)\n", st.renderer, st.platform);
    write_stats_json(o, st, params);
}

// The statistics as JSON, with --stats-json.
void write_stats_json(const options &o, const glr_export_stats &st, const glr_export_params &params)
{
    if (o.stats_json.empty())
        return;
    const bool whole = st.stop == GLR_EXPORT_COMPLETE;
    const glr_encoder_stats &es = st.encoder;
    const glr_ring_stats &rs = st.ring;
    const glr_player_stats &ps = st.player;
    const glr_player_params &pl = params.player;
    const char *conversion = glr_format_get_info(st.ring_format)->yuv ? "gpu" : es.converted_frames ? "cpu" : "none";
    // A JSON library writes it: names and paths are escaped whatever they hold.
    nlohmann::ordered_json stats = {
        {"output", params.encoder.output}, {"container", st.plan.container}, {"codec", st.plan.video_encoder},
        {"pix_fmt", st.plan.pix_fmt}, {"audio_codec", st.plan.audio_encoder}, {"width", pl.width},
        {"height", pl.height}, {"start_frame", pl.first_frame}, {"preroll_frames", ps.preroll_frames},
        {"preroll_seconds", st.preroll_seconds},
        {"ring_depth", params.ring_depth}, {"encoder_queue", params.encoder.queue_depth},
        {"audio_bit_rate", params.encoder.audio.bit_rate}, {"audio_offset", params.encoder.audio.offset}, {"frames_written", es.frames_encoded}, {"interrupted", !whole},
        {"seconds", st.elapsed_seconds}, {"bytes", es.bytes_written}, {"readback_path", rs.path ? rs.path : ""},
        {"ring_format", glr_format_name(st.ring_format)}, {"conversion", conversion},
        {"readback_bytes_per_frame", rs.frame_bytes}, {"zero_copy_frames", es.zero_copy_frames},
        {"converted_frames", es.converted_frames}, {"copied_frames", es.copied_frames},
        {"hardware_frames", es.hardware_frames}, {"transferred_frames", es.transferred_frames},
        {"channels", json_stage(ps.channels)}, {"render", json_stage(ps.render)},
        {"readback", json_stage(rs.readback)}, {"stall", json_stage(rs.stall)},
        {"submit_wait", json_stage(es.submit_wait)}, {"convert", json_stage(es.convert)},
        {"encode", json_stage(es.encode)}, {"write", json_stage(es.write)}};
    std::ofstream out(o.stats_json);
    out << stats.dump(2) << "\n";
    if (!out)
        throw std::runtime_error("cannot write " + o.stats_json);
}

} // namespace

int main(int argc, char **argv)
{
    if (argc > 1 && std::strcmp(argv[1], "join") == 0)
        return export_join(argc - 1, argv + 1);
    options o = parse(argc, argv);
    sample::catch_stop_signals();
    // A file that hits the size limit (ulimit -f) is an error to report, not a crash.
    std::signal(SIGXFSZ, SIG_IGN);
    // glreader's and FFmpeg's messages at -v's level; errors reach the user once, as the
    // exception's message.
    sample::program_log messages(o.verbosity);
    glr_log *log = messages.get();
    bool render_left_running = false;
    std::optional<progress> bar;
    try {
        glr_export_settings *settings = o.settings.get();
        if (!o.to_project.empty()) {
            glr_project *project = glr_export_settings_project(settings, log);
            if (!project || glr_project_write(project, o.to_project.c_str()) < 0)
                throw glr::error(glr_last_error_code(), glr_last_error());
            if (o.verbosity >= sample::verbosity::warning)
                std::fprintf(stderr, "glreader-export: wrote the project into %s (--shader %s/ renders it)\n",
                             o.to_project.c_str(), o.to_project.c_str());
            return 0;
        }
        glr_export_params params{};
        if (glr_export_settings_resolve(settings, log, &params) < 0)
            throw glr::error(glr_last_error_code(), glr_last_error());
        bar.emplace(params.frame_count, o.verbosity);
        params.progress = [](void *opaque, const glr_export_stats *s) { static_cast<progress *>(opaque)->report(*s); };
        params.progress_opaque = &*bar;
        params.progress_interval_ms = bar->interval_ms();

        glr::export_job job(params, log);
        int rc = sample::run_cancelled_on_stop(job.get());
        glr_export_stats st = job.stats();
        render_left_running = st.render_running;
        if (st.stop == GLR_EXPORT_COMPILE_TIMEOUT)
            throw std::runtime_error(std::string(glr_last_error()) + " (--compile-timeout sets the limit)");
        if (rc < 0 && !(st.stop == GLR_EXPORT_INTERRUPTED))
            throw glr::error(rc, glr_last_error());
        report(o, st, params);
    } catch (const std::exception &e) {
        std::fprintf(stderr, "%sglreader-export: %s\n", bar && bar->line_open() ? "\n" : "", e.what());
        return sample::end_after_job(1, render_left_running);
    }
    // Stopped by a signal, the file finalized: the shell's status for that signal.
    return sample::end_after_job(sample::stop_status(), render_left_running);
}
