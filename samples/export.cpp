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
// frame renders (the export job finalizes without it: glreader/export.h); a second one
// exits at once. Shader files are read only if regular, below --max-shader-size. Messages
// go to stderr, only media to stdout. All the work is the library's export job; this
// program reads options, turns signals into its cancel, and prints.
#include "command_line.hpp"
#include "export_join.hpp"
#include "program_log.hpp"
#include "project_scene.hpp"
#include "stop_signals.hpp"

#include "glreader/export.hpp"
#include "glreader/frame_range.h"
#include "glreader/glreader.hpp"

#include <nlohmann/json.hpp>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavutil/log.h>
}

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <csignal>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

namespace {

struct options {
    int width = 1280, height = 720;
    int fps_num = 30, fps_den = 1;
    // -ss, --start-frame, -t, -to, -n as given, read into a range by the library's one rule
    // (glreader/frame_range.h); without a length, 5 s.
    glr_range_request range{};
    int start_frame = 0, frames = 0; // the range read
    std::string codec, pix_fmt, codec_options, stats_json, container, output;
    std::vector<std::pair<std::string, std::string>> encoder_settings; // -preset, -b:v...: codec options
    std::vector<std::string> metadata;                                 // -metadata key=value
    sample::project_options project; // --shader, --channelN
    int depth = 3, queue = 2;
    bool gpu_convert = true, overwrite = false, part = false, require_hw = false;
    std::string format_options;
    glr_audio_params audio{};
    std::string audio_input, audio_codec;
    bool no_audio = false; // -an: no sound track, not even the Sound pass's
    glr_format ring_format{}; // 0: chosen from the encoder and gpu_convert
    glr_color color{};
    float mouse[4] = {0, 0, 0, 0}; // iMouse
    std::string date;              // iDate at frame 0, UTC; empty: now, local time
    std::string to_project;        // --to-project: write the project there, render nothing
    glr_alpha alpha = GLR_ALPHA_OPAQUE; // --alpha, --premultiply
    int chunk_end = -1;            // --frames A-B: B (and range.start_frame A); < 0: not a chunk
    size_t max_shader_bytes = GLR_SCENE_DEFAULT_MAX_SOURCE;
    double compile_timeout = GLR_EXPORT_DEFAULT_COMPILE_TIMEOUT; // 0: never
    sample::verbosity verbosity = sample::verbosity::warning;
};

// Bounds of the numeric options (times and audio bit rates: sample::max_seconds and
// the like): the ring's and the encoder queue's own.
using sample::max_audio_bit_rate;
using sample::max_seconds;
using sample::min_audio_bit_rate;
static_assert(GLR_EXPORT_DEFAULT_COMPILE_TIMEOUT == 120.0, "--compile-timeout's help says 120");
constexpr int max_ring_depth = 64, max_queue = 64;

constexpr int min_sound_rate = 8000, max_sound_rate = 192000;
constexpr long long max_shader_size = 1ll << 30;

// Encoder settings in ffmpeg's spellings (and ours where we had one), each the codec
// option it sets; the library checks it against what the encoder has.
struct encoder_setting {
    const char *ours, *ffmpeg, *value, *option, *text;
};
constexpr encoder_setting encoder_settings[] = {
    {"--preset", "-preset", "P", "preset", "the encoder's speed/quality preset: ultrafast ... veryslow for libx264"},
    {"--crf", "-crf", "N", "crf", "constant quality, lower is better: 23 is libx264's middle, 0 lossless"},
    {nullptr, "-b:v", "RATE", "b", "video bit rate: 5M, 2500k"},
    {nullptr, "-maxrate", "RATE", "maxrate", "the most the bit rate may reach (with -bufsize)"},
    {nullptr, "-bufsize", "SIZE", "bufsize", "the rate control's buffer, in bits: 10M"},
    {nullptr, "-g", "FRAMES", "g", "a keyframe at least every FRAMES frames"},
    {nullptr, "-profile:v", "P", "profile", "the codec profile: baseline, main, high for H.264"},
    {nullptr, "-tune", "T", "tune", "tune the encoder for the content: animation, film, grain... for libx264"},
};

sample::program_help help()
{
    using namespace sample;
    std::vector<option_doc> encoding = {
        doc::codec,
        {"--pix-fmt, -pix_fmt", "F", "the pixel format to encode: yuv420p, yuv444p, nv12, p010le, rgb24...",
         "the encoder's: yuv420p where it takes it"},
        {"--alpha", "",
         "keep the shader's alpha as transparency (straight): the container's codec with alpha (ProRes 4444 for "
         ".mov, VP9 for .webm, FFV1 for .mkv, PNG) and its format with alpha",
         "off: alpha 1, as on Shadertoy"},
        {"--premultiply", "", "--alpha with the colour multiplied by the alpha (premultiplied)", "off"}};
    for (const encoder_setting &e : encoder_settings)
        encoding.push_back({e.ours ? std::string(e.ours) + ", " + e.ffmpeg : e.ffmpeg, e.value, e.text, "the encoder's"});
    encoding.push_back({"--codec-options", "K=V:K=V", "any other encoder options (ffmpeg -h encoder=NAME lists them)",
                        "none"});
    return {
        "glreader-export",
        "[OPTIONS]",
        "Renders a Shadertoy shader or project headless and encodes it in-process with FFmpeg's libraries, "
        "frames going from the GPU through glreader's readback ring straight into the encoder: into a file, "
        "a pipe, a URL or an image sequence, with sound, tagged colour and exact frame ranges.",
        {{"What to render",
          {doc::shader,
           doc::media,
           doc::channels,
           doc::size,
           doc::rate,
           doc::seconds,
           doc::frames,
           {"-ss", "TIME", "start at this time: frame TIME x FPS, rendered exactly as a run from 0 renders it",
            "0"},
           {"-to", "TIME", "stop at this time, instead of -t", "from -t"},
           {"--to-project", "DIR",
            "render nothing: write the --shader (a Shadertoy JSON, say) as a project folder to edit, DIR new or "
            "empty",
            "off"},
           {"--start-frame", "N", "start at frame N (as -ss, in frames)", "0"},
           {"--frames", "A-B",
            "render frames A to B-1 of the whole timeline (B excluded) as one chunk of a longer render, exactly as "
            "a single pass renders them, to join with the others by `glreader-export join`: timestamps on the "
            "whole timeline, joinable encoder settings, no sound track (the join writes it once), into .mkv or .nut",
            "off"},
           {"--mouse", "X,Y[,CX,CY]", "iMouse: held down at X,Y, pixels from the bottom left", "not pressed"},
           {"--date", "YYYY-MM-DD[THH:MM:SS]", "iDate at the first frame, UTC, so that reruns match",
            "the render's start, local time"},
           {"--max-shader-size", "BYTES", "refuse shader files larger than this: 16M", "4M"},
           {"--compile-timeout", "SECONDS", "give up on a shader that compiles for longer; 0: never", "120"}, // the library's
           doc::require_hw}},
         {"Encoding (each option checked against the encoder's own before a frame renders)", encoding},
         {"Sound",
          {{"--audio", "FILE", "a sound file or URL to mux, in step with the frames (a sound channel plays it too)",
            "none: the project's Sound pass (mainSound), rendered on the GPU, when it has one"},
           {"--audio-rate, -ar", "HZ", "the Sound pass's sample rate (iSampleRate), 8000 to 192000",
            "44100, Shadertoy's"},
           {"--no-audio, -an", "", "no sound track, not even the Sound pass's", "off"},
           doc::audio_codec,
           doc::audio_bitrate,
           doc::audio_offset,
           doc::audio_keep_longer}},
         {"Output",
          {doc::output.with_default("glreader-export.mp4"),
           {"-f", "FORMAT", "the container, when the output's name does not say it (mp4, matroska, mpegts, nut, "
                            "null: encode and write nothing)",
            "from the output's name"},
           doc::format_options,
           doc::metadata,
           doc::overwrite,
           doc::part,
           {"--stats-json", "FILE", "write the run's settings, counts and stage times as JSON", "none"}}},
         {"Colour and readback",
          {{"--convert", "gpu|cpu",
            "convert to the encoder's YUV on the GPU before readback, or with libswscale after", "gpu"},
           doc::ring_format.with_default("chosen from the encoder and --convert"),
           doc::matrix,
           doc::range,
           doc::chroma_loc,
           doc::depth,
           {"--queue", "N", "frames waiting for the encoder thread, 1 to 64", "2"}}},
         {"Messages", {doc::verbosity}}},
        {"glreader-export --shader samples/shaders/plasma.frag -s 1920x1080 -r 60 -t 10 -o plasma.mp4",
         "glreader-export --shader samples/shaders/visualizer --audio song.mp3 -t 3:00 -metadata title=Song -o video.mp4",
         "glreader-export --shader samples/shaders/plasma.frag -n 120 -o frames/%05d.png",
         "glreader-export --shader samples/shaders/plasma.frag -c hevc -crf 24 -tune animation -o plasma.mkv",
         "glreader-export --shader samples/shaders/plasma.frag -ss 20 -to 30 -f mpegts -o udp://127.0.0.1:9000"}};
}

options parse(int argc, char **argv)
{
    options o;
    sample::command_line args(argc, argv, help());
    auto setting = [&](const char *option) { o.encoder_settings.emplace_back(option, args.value()); };
    while (args.next()) {
        const encoder_setting *named = nullptr;
        for (const encoder_setting &e : encoder_settings)
            if ((e.ours && args.is(e.ours)) || args.is(e.ffmpeg))
                named = &e;
        if (named) {
            setting(named->option);
        } else if (args.is("-s")) {
            args.size(o.width, o.height);
        } else if (args.is("-r")) {
            sample::frame_rate rate = args.rate();
            o.fps_num = rate.num;
            o.fps_den = rate.den;
        } else if (args.is("-t")) {
            o.range.duration_us = args.time_us(0.001, max_seconds);
        } else if (args.is("-n") || args.is("-frames:v")) {
            o.range.frames = args.count(1, INT_MAX);
        } else if (args.is("-ss")) {
            o.range.start_us = args.time_us(0, max_seconds);
        } else if (args.is("-to")) {
            o.range.end_us = args.time_us(0.001, max_seconds);
        } else if (args.is("-c") || args.is("-c:v")) {
            o.codec = args.value();
        } else if (args.is("--alpha")) {
            o.alpha = std::max(o.alpha, GLR_ALPHA_STRAIGHT);
        } else if (args.is("--premultiply")) {
            o.alpha = GLR_ALPHA_PREMULTIPLIED;
        } else if (args.is("--pix-fmt") || args.is("-pix_fmt")) {
            o.pix_fmt = args.value();
        } else if (args.is("--codec-options")) {
            o.codec_options = args.value();
        } else if (args.is("-metadata")) {
            std::string entry = args.value();
            if (entry.find('=') == std::string::npos || entry[0] == '=')
                args.fail("-metadata takes KEY=VALUE, like title=My video, not '" + entry + "'");
            o.metadata.push_back(entry);
        } else if (args.is("--convert")) {
            std::string v = args.value();
            if (v != "gpu" && v != "cpu")
                args.fail("--convert takes gpu or cpu, not " + v);
            o.gpu_convert = v == "gpu";
        } else if (args.is("--ring-format")) {
            o.ring_format = args.format();
        } else if (args.color_option(o.color)) {
        } else if (args.verbosity_option(o.verbosity)) {
        } else if (args.is("--depth")) {
            o.depth = args.count(1, max_ring_depth);
        } else if (args.is("--queue")) {
            o.queue = args.count(1, max_queue);
        } else if (o.project.read(args)) {
        } else if (args.is("--mouse")) {
            if (glr_shadertoy_parse_mouse(args.value().c_str(), o.mouse) < 0)
                args.fail(std::string("--mouse: ") + glr_last_error());
        } else if (args.is("--date")) {
            o.date = args.value();
            long long seconds = 0;
            if (glr_shadertoy_parse_date(o.date.c_str(), &seconds) < 0)
                args.fail(std::string("--date: ") + glr_last_error());
        } else if (args.is("--start-frame")) {
            if (o.chunk_end >= 0)
                args.fail("--frames A-B gives the start: --start-frame says it again");
            o.range.start_frame = args.count(0, INT_MAX - 1);
        } else if (args.is("--frames")) {
            if (o.range.start_frame > 0)
                args.fail("--frames A-B gives the start: --start-frame says it again");
            std::string range = args.value();
            long long first = -1, end = -1;
            size_t dash = range.find('-');
            if (dash == std::string::npos || !sample::parse_integer(range.substr(0, dash), first) ||
                !sample::parse_integer(range.substr(dash + 1), end) || first < 0 || end <= first || end > INT_MAX)
                args.fail("--frames takes A-B, frame numbers with B after A (B excluded), like 0-120, not '" + range +
                          "'");
            o.range.start_frame = static_cast<int>(first);
            o.chunk_end = static_cast<int>(end);
        } else if (args.is("--max-shader-size")) {
            o.max_shader_bytes = static_cast<size_t>(args.bytes(1, max_shader_size));
        } else if (args.is("--compile-timeout")) {
            o.compile_timeout = args.decimal(0, max_seconds);
        } else if (args.is("--require-hw")) {
            o.require_hw = true;
        } else if (args.is("--stats-json")) {
            o.stats_json = args.value();
        } else if (args.is("-f")) {
            o.container = args.value();
        } else if (args.is("-o")) {
            o.output = args.value();
        } else if (args.is("--to-project")) {
            o.to_project = args.value();
        } else if (args.is("--format-options")) {
            o.format_options = args.value();
        } else if (args.is("--audio")) {
            o.audio_input = args.value();
        } else if (args.is("--audio-rate") || args.is("-ar")) {
            o.audio.sample_rate = args.count(min_sound_rate, max_sound_rate);
        } else if (args.is("--no-audio") || args.is("-an")) {
            o.no_audio = true;
        } else if (args.is("--audio-codec") || args.is("-c:a")) {
            o.audio_codec = args.value();
        } else if (args.is("--audio-bitrate") || args.is("-b:a")) {
            o.audio.bit_rate = args.bit_rate(min_audio_bit_rate, max_audio_bit_rate);
        } else if (args.is("--audio-offset")) {
            o.audio.offset = args.decimal(-max_seconds, max_seconds);
        } else if (args.is("--audio-keep-longer")) {
            o.audio.keep_longer = 1;
        } else if (args.is("-y")) {
            o.overwrite = true;
        } else if (args.is("--part")) {
            o.part = true;
        } else {
            args.fail("unknown option " + args.option());
        }
    }
    if (o.audio_input.empty() && (o.audio.offset || o.audio.keep_longer))
        args.fail("--audio-offset and --audio-keep-longer place the sound of --audio FILE, which is missing");
    if (!o.audio_input.empty() && o.audio.sample_rate)
        args.fail("--audio-rate is the Sound pass's rate; --audio FILE keeps its own");
    if (o.no_audio && (!o.audio_input.empty() || !o.audio_codec.empty() || o.audio.bit_rate || o.audio.sample_rate))
        args.fail("--no-audio asks for no sound track, and another option shapes one");
    glr_range_request &r = o.range;
    if (o.chunk_end >= 0) {
        if (r.frames || r.duration_us || r.end_us || r.start_us)
            args.fail("--frames A-B gives the range: -ss, -t, -n and -to say it again");
        r.frames = o.chunk_end - r.start_frame;
    } else if (!r.frames && !r.duration_us && !r.end_us) {
        r.duration_us = 5000000;
    }
    r.fps_num = o.fps_num;
    r.fps_den = o.fps_den;
    if (glr_frame_range(&r, &o.start_frame, &o.frames) < 0)
        args.fail(glr_last_error());
    // A time between two frames falls on the later one: said, as it may surprise.
    auto say_frame = [&](int64_t us, const char *option, int64_t frame) {
        int64_t start = glr_frames_before(us, o.fps_num, o.fps_den);
        if (us && glr_frames_before(us + 1, o.fps_num, o.fps_den) == start && o.verbosity >= sample::verbosity::warning)
            std::fprintf(stderr, "glreader-export: %s %g s is not a whole frame at %d/%d fps: frame %lld\n", option,
                         static_cast<double>(us) / 1e6, o.fps_num, o.fps_den, static_cast<long long>(frame));
    };
    say_frame(r.start_us, "-ss", o.start_frame);
    say_frame(r.end_us, "-to", o.start_frame + o.frames);
    if (!o.to_project.empty())
        return o; // it writes a project folder, no output: none to name or to refuse
    if (o.output.empty() && o.container == "null")
        o.output = "nowhere"; // the null muxer writes nothing, whatever the name
    else if (o.output.empty())
        o.output = "glreader-export.mp4";
    if (o.container != "null")
        args.refuse_existing(o.output, o.overwrite);
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
    // What holds the frames of an export stopped short: --part keeps the .part name.
    const std::string stopped_file = o.part ? o.output + ".part" : "the file";
    const glr_encoder_stats &es = st.encoder;
    if (st.stop == GLR_EXPORT_CANCELLED && st.render_running)
        std::fprintf(stderr, "stopped while frame %d was rendering: wrote %llu frames; %s was finalized\n",
                     o.start_frame + st.frames_rendered, static_cast<unsigned long long>(es.frames_encoded),
                     stopped_file.c_str());
    else if (!whole)
        std::fprintf(stderr, "interrupted: stopped after %d of %d frames; %s was finalized\n", st.frames_rendered,
                     o.frames, stopped_file.c_str());
    const std::string written = !whole && o.part ? o.output + ".part" : o.output;
    char *absolute = realpath(written.c_str(), nullptr);
    double elapsed = st.elapsed_seconds;
    std::fprintf(stderr, "wrote %llu frames (%dx%d, %d/%d fps, %s %s) to %s: %s in %.2f s, %.1f fps\n",
                 static_cast<unsigned long long>(es.frames_encoded), o.width, o.height, o.fps_num, o.fps_den,
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
    const char *conversion = glr_format_get_info(st.ring_format)->yuv ? "gpu" : es.converted_frames ? "cpu" : "none";
    std::fprintf(stderr, "  readback path %s, %s %s frames of %zu bytes; colour conversion: %s\n",
                 rs.path ? rs.path : "none", rs.fill ? rs.fill : "none", glr_format_name(st.ring_format),
                 rs.frame_bytes, conversion);
    if (*st.plan.audio_encoder)
        std::fprintf(stderr, "  audio: %s%s, %llu samples per channel\n",
                     o.audio_input.empty() ? "the Sound pass's, " : "", es.audio_copied ? "copied as it is" : "encoded",
                     static_cast<unsigned long long>(es.audio_samples_encoded));
    std::fprintf(stderr, "  %llu frames zero-copy, %llu converted, %llu copied\n",
                 static_cast<unsigned long long>(es.zero_copy_frames),
                 static_cast<unsigned long long>(es.converted_frames), static_cast<unsigned long long>(es.copied_frames));
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
    const char *conversion = glr_format_get_info(st.ring_format)->yuv ? "gpu" : es.converted_frames ? "cpu" : "none";
    // A JSON library writes it: names and paths are escaped whatever they hold.
    nlohmann::ordered_json stats = {
        {"output", o.output}, {"container", st.plan.container}, {"codec", st.plan.video_encoder},
        {"pix_fmt", st.plan.pix_fmt}, {"audio_codec", st.plan.audio_encoder}, {"width", o.width}, {"height", o.height},
        {"start_frame", o.start_frame}, {"preroll_frames", ps.preroll_frames},
        {"preroll_seconds", st.preroll_seconds},
        {"ring_depth", params.ring_depth}, {"encoder_queue", o.queue}, {"audio_bit_rate", o.audio.bit_rate},
        {"audio_offset", o.audio.offset}, {"frames_written", es.frames_encoded}, {"interrupted", !whole},
        {"seconds", st.elapsed_seconds}, {"bytes", es.bytes_written}, {"readback_path", rs.path ? rs.path : ""},
        {"ring_format", glr_format_name(st.ring_format)}, {"conversion", conversion},
        {"readback_bytes_per_frame", rs.frame_bytes}, {"zero_copy_frames", es.zero_copy_frames},
        {"converted_frames", es.converted_frames}, {"copied_frames", es.copied_frames},
        {"channels", json_stage(ps.channels)}, {"render", json_stage(ps.render)},
        {"readback", json_stage(rs.readback)}, {"stall", json_stage(rs.stall)},
        {"submit_wait", json_stage(es.submit_wait)}, {"convert", json_stage(es.convert)},
        {"encode", json_stage(es.encode)}, {"write", json_stage(es.write)}};
    std::ofstream out(o.stats_json);
    out << stats.dump(2) << "\n";
    if (!out)
        throw std::runtime_error("cannot write " + o.stats_json);
}

// The job a stop signal cancels (async-signal-safe).
std::atomic<glr_export *> running_job{nullptr};

void cancel_running_job()
{
    if (glr_export *job = running_job.load())
        glr_export_cancel(job);
}

} // namespace

int main(int argc, char **argv)
{
    if (argc > 1 && std::strcmp(argv[1], "join") == 0)
        return export_join(argc - 1, argv + 1);
    options o = parse(argc, argv);
    sample::catch_stop_signals(cancel_running_job);
    // A file that hits the size limit (ulimit -f) is an error to report, not a crash.
    std::signal(SIGXFSZ, SIG_IGN);
    // glreader's and FFmpeg's messages at -v's level; errors reach the user once, as the
    // exception's message. Never freed: a render thread left in the driver keeps using it
    // until the process exits.
    glr_log *log = sample::program_log(o.verbosity).release();
    bool render_left_running = false;
    progress bar(o.frames, o.verbosity);
    try {
        glr::project project = o.project.load(log);
        if (o.audio_input.empty() && !o.no_audio && !project.has_sound_pass() &&
            (!o.audio_codec.empty() || o.audio.bit_rate || o.audio.sample_rate))
            throw std::runtime_error("--audio-codec, --audio-bitrate and --audio-rate shape the sound track, and there "
                                     "is none: no --audio FILE, and the project has no Sound pass");
        if (!o.to_project.empty()) {
            project.write(o.to_project.c_str());
            if (o.verbosity >= sample::verbosity::warning)
                std::fprintf(stderr, "glreader-export: wrote the project into %s (--shader %s/ renders it)\n",
                             o.to_project.c_str(), o.to_project.c_str());
            return 0;
        }

        // ffmpeg's spellings (-preset, -b:v...) are codec options after --codec-options' own.
        std::string codec_options = o.codec_options;
        for (const auto &[key, value] : o.encoder_settings)
            codec_options += (codec_options.empty() ? "" : ":") + key + "=" + value;
        std::vector<const char *> metadata;
        for (const std::string &entry : o.metadata)
            metadata.push_back(entry.c_str());
        metadata.push_back(nullptr);
        glr_export_params params{};
        glr_player_params &pp = params.player;
        pp.width = o.width;
        pp.height = o.height;
        pp.fps_num = o.fps_num;
        pp.fps_den = o.fps_den;
        pp.project = project.get();
        pp.first_frame = o.start_frame;
        std::copy(std::begin(o.mouse), std::end(o.mouse), pp.mouse);
        pp.date = o.date.empty() ? nullptr : o.date.c_str();
        pp.max_source_bytes = o.max_shader_bytes;
        pp.alpha = o.alpha;
        params.frame_count = o.frames;
        glr_encoder_params &ep = params.encoder;
        ep.codec = o.codec.empty() ? nullptr : o.codec.c_str();
        ep.pix_fmt = o.pix_fmt.empty() ? nullptr : o.pix_fmt.c_str();
        ep.codec_options = codec_options.empty() ? nullptr : codec_options.c_str();
        ep.container = o.container.empty() ? nullptr : o.container.c_str();
        ep.output = o.output.c_str();
        ep.format_options = o.format_options.empty() ? nullptr : o.format_options.c_str();
        ep.audio = o.audio;
        ep.audio.input = o.audio_input.empty() ? nullptr : o.audio_input.c_str();
        ep.audio.codec = o.audio_codec.empty() ? nullptr : o.audio_codec.c_str();
        ep.queue_depth = o.queue;
        ep.color = o.color;
        ep.metadata = metadata.data();
        // Exclusive: of two exports started at once on one file, one writes it.
        ep.output_flags = (o.overwrite ? 0 : GLR_OUTPUT_NO_OVERWRITE) | (o.part ? GLR_OUTPUT_PART : 0);
        params.conversion = o.gpu_convert ? GLR_EXPORT_CONVERT_GPU : GLR_EXPORT_CONVERT_CPU;
        params.ring_format = o.ring_format;
        params.ring_depth = o.depth;
        params.compile_timeout = o.compile_timeout > 0 ? o.compile_timeout : -1; // the library's -1: never
        params.no_sound_pass = o.no_audio;
        params.chunk = o.chunk_end >= 0;
        params.context.require_hw = o.require_hw;
        params.progress = [](void *opaque, const glr_export_stats *s) { static_cast<progress *>(opaque)->report(*s); };
        params.progress_opaque = &bar;
        params.progress_interval_ms = bar.interval_ms();

        glr::export_job job(params, log);
        running_job = job.get();
        if (sample::stop_signal()) // a signal before the job existed
            job.cancel();
        int rc = job.run();
        running_job = nullptr;
        glr_export_stats st = job.stats();
        render_left_running = st.render_running;
        if (st.stop == GLR_EXPORT_COMPILE_TIMEOUT)
            throw std::runtime_error(std::string(glr_last_error()) + " (--compile-timeout sets the limit)");
        if (rc < 0 && !(st.stop == GLR_EXPORT_INTERRUPTED))
            throw glr::error(rc, glr_last_error());
        report(o, st, params);
    } catch (const std::exception &e) {
        std::fprintf(stderr, "%sglreader-export: %s\n", bar.line_open() ? "\n" : "", e.what());
        if (render_left_running)
            _exit(1); // a thread is still in the driver: no exit handlers under its feet
        glr_log_destroy(&log);
        return 1;
    }
    // Stopped by a signal, the file finalized: the shell's status for that signal.
    if (render_left_running) {
        std::fflush(stderr);
        _exit(sample::stop_status()); // a thread is still in the driver, and holds the log
    }
    glr_log_destroy(&log); // after every object that used it
    return sample::stop_status();
}
