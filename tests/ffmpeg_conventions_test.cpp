// The programs behave as an FFmpeg user expects: the container chooses the codecs, codec
// names pick this build's best encoder, an impossible pair is refused before any frame;
// ffmpeg's own spellings reach the encoder and the muxer; -v sets how much is said, as
// -loglevel does; every program's --help documents every option it reads, and an option
// several programs take reads the same in each.
#include "support/audio_files.hpp"
#include "support/decoder.hpp"
#include "support/gl_test.hpp"
#include "support/process.hpp"

#include <gtest/gtest.h>

extern "C" {
#include <libavcodec/avcodec.h>
}

#include <sys/stat.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace {

const std::string export_program = glr_test::built_program(GLREADER_EXPORT_PATH);

bool contains(const std::string &text, const std::string &part) { return text.find(part) != std::string::npos; }
bool has_encoder(const char *name) { return avcodec_find_encoder_by_name(name) != nullptr; }
bool exists(const std::string &path)
{
    struct stat st;
    return stat(path.c_str(), &st) == 0;
}

struct exported {
    int status;
    std::string log;
};

exported export_with(const std::vector<std::string> &args, const std::string &name)
{
    std::string log = glr_test::scratch_path(name + ".log");
    int status = glr_test::wait_exit(glr_test::spawn(export_program, args, log));
    return {status, glr_test::slurp(log)};
}

// ffprobe's answer for one stream (v or a) or the format, as "a|b|c".
std::string probe(const std::string &file, const std::string &select, const std::string &entries)
{
    std::string out = glr_test::scratch_path("probe.txt");
    std::vector<std::string> args = {"-v", "error"};
    if (!select.empty())
        args.insert(args.end(), {"-select_streams", select});
    args.insert(args.end(), {"-show_entries", entries, "-of", "csv=p=0:s=|", file});
    EXPECT_EQ(glr_test::wait_exit(glr_test::spawn("ffprobe", args, out)), 0) << glr_test::slurp(out);
    std::string text = glr_test::slurp(out);
    return text.substr(0, text.find('\n'));
}

TEST(ffmpeg_conventions, the_container_chooses_the_codec_as_ffmpeg_does)
{
    std::string dir = glr_test::scratch_path("pictures");
    mkdir(dir.c_str(), 0755);
    exported e = export_with({"-y", "-s", "32x16", "-n", "5", "-o", dir + "/%05d.png"}, "pictures");
    ASSERT_EQ(e.status, 0) << e.log;
    for (int n = 1; n <= 5; n++) { // image2 numbers pictures from 1, as ffmpeg does
        char name[32];
        std::snprintf(name, sizeof name, "/%05d.png", n);
        glr_test::decoded_video v = glr_test::decode_file(dir + name);
        ASSERT_EQ(v.error, "") << name;
        EXPECT_EQ(v.codec, "png") << name;
        ASSERT_EQ(v.frames.size(), 1u) << name;
    }
    EXPECT_FALSE(exists(dir + "/00006.png"));

    struct container_case {
        std::string file, codec; // what ffmpeg would pick, as this build has it ("": no encoder at all)
    };
    // WebM's: VP9, else VP8 (an FFmpeg without libvpx has neither, nor an AV1 encoder of its own).
    std::string webm = has_encoder("libvpx-vp9") ? "vp9"
                       : has_encoder("libvpx")   ? "vp8"
                       : has_encoder("libsvtav1") || has_encoder("libaom-av1") ? "av1"
                                                                               : "";
    std::vector<container_case> cases = {{"x.gif", "gif"},
                                         {"x.webm", webm},
                                         {"x.mp4", has_encoder("libx264") ? "h264" : "mpeg4"},
                                         {"x.mkv", has_encoder("libx264") ? "h264" : "mpeg4"},
                                         {"x.nut", "mpeg4"}};
    for (const container_case &c : cases) {
        SCOPED_TRACE(c.file);
        std::string out = glr_test::scratch_path(c.file);
        e = export_with({"-y", "-s", "32x16", "-n", "5", "-o", out}, "container");
        if (c.codec.empty()) { // said so, with what the container would take
            EXPECT_EQ(e.status, 1) << e.log;
            EXPECT_TRUE(contains(e.log, "this FFmpeg build has no encoder for vp8 (webm's usual video) nor for any "
                                        "other video codec it holds"))
                << e.log;
            continue;
        }
        ASSERT_EQ(e.status, 0) << e.log;
        glr_test::decoded_video v = glr_test::decode_file(out);
        ASSERT_EQ(v.error, "");
        EXPECT_EQ(v.codec, c.codec);
        EXPECT_EQ(v.frames.size(), 5u);
        std::remove(out.c_str());
    }
}

TEST(ffmpeg_conventions, codec_names_pick_the_best_encoder_and_impossible_pairs_are_refused_first)
{
    for (const auto &[asked, encoder] : std::vector<std::pair<std::string, std::string>>{
             {"h264", "libx264"}, {"hevc", "libx265"}, {"h265", "libx265"}, {"vp9", "libvpx-vp9"}}) {
        if (!has_encoder(encoder.c_str()))
            continue; // an FFmpeg built without it: another encoder of the codec, or a refusal below
        SCOPED_TRACE(asked);
        std::string out = glr_test::scratch_path("named.mkv"), stats = glr_test::scratch_path("named.json");
        exported e = export_with({"-y", "-s", "32x16", "-n", "3", "-c", asked, "--stats-json", stats, "-o", out}, "named");
        ASSERT_EQ(e.status, 0) << e.log;
        EXPECT_TRUE(contains(glr_test::slurp(stats), "\"codec\": \"" + encoder + "\"")) << glr_test::slurp(stats);
        EXPECT_TRUE(contains(e.log, "(32x16, 30/1 fps, " + encoder + " yuv420p)")) << e.log;
        std::remove(out.c_str());
    }

    // Refused with words before anything renders (the shader does not even compile, and
    // that is not what is said) and before anything is written.
    std::string broken = glr_test::scratch_path("broken.frag");
    std::ofstream(broken) << "void mainImage(out vec4 c, in vec2 p) { c = nope; }\n";
    struct refusal {
        std::vector<std::string> args;
        std::string file, words;
    };
    std::vector<refusal> refusals = {
        {{"-c", "libx264"}, "x.webm", "the webm muxer cannot hold h264 video (libx264); video encoders for it here: "},
        {{"-c", "ffv1"}, "x.mp4", "the mp4 muxer cannot hold ffv1 video (ffv1)"},
        {{"-c", "libx264"}, "x.gif", "the gif muxer cannot hold h264 video (libx264); video encoders for it here: gif"},
        {{"-c", "libx264"}, "frames/%05d.png", "frames/%05d.png names png pictures, not h264"},
        {{"-c", "libx246"}, "x.mp4", "'libx246' is no video encoder or codec this FFmpeg knows (did you mean libx264"},
        {{"-c", "aac"}, "x.mp4", "aac is an audio encoder, not a video one"},
        {{"-c", "libfdk_aac_video"}, "x.mkv", "is no video encoder or codec"},
        {{"-c", "hevc_nvenc_nope"}, "x.mkv", "is no video encoder or codec"},
        {{"-n", "3", "-o"}, "one.png", "one.png names one picture, and 3 frames were asked for"},
        {{"--audio", glr_test::write_wav("pcm.wav", 48000, 1, std::vector<int16_t>(4800, 100)), "-c:a", "pcm_s16le"},
         "x.mp4", "the mp4 muxer cannot hold pcm_s16le audio"}};
    if (!has_encoder("libx265"))
        refusals.push_back({{"-c", "libx265"}, "x.mkv", "libx265 is not in this FFmpeg build"});
    for (const refusal &r : refusals) {
        SCOPED_TRACE(r.words);
        std::string out = glr_test::scratch_path(r.file);
        std::vector<std::string> args = {"-y", "-s", "32x16", "--shader", broken};
        args.insert(args.end(), r.args.begin(), r.args.end());
        if (args.back() != "-o")
            args.push_back("-o");
        args.push_back(out);
        exported e = export_with(args, "refused");
        EXPECT_EQ(e.status, 1) << e.log;
        EXPECT_TRUE(contains(e.log, r.words)) << e.log;
        EXPECT_FALSE(contains(e.log, "does not compile")) << "rendering began:\n" << e.log;
        EXPECT_FALSE(exists(out)) << out << " was written";
        EXPECT_FALSE(contains(e.log, "a64multi")) << "the whole list of encoders:\n" << e.log;
    }

    // The sound: the container's own codec (ffmpeg's pick), a name takes the best encoder.
    std::string wav = glr_test::write_wav("conventions.wav", 48000, 2, std::vector<int16_t>(48000 * 2, 500));
    struct sound_case {
        std::string file;
        std::vector<std::string> args;
        std::string codec;
    };
    std::vector<sound_case> sounds = {{"s.mp4", {}, "aac"}, {"s.ts", {}, "mp2"}, {"s.mkv", {"-c:a", "flac"}, "flac"}};
    if (has_encoder("libopus"))
        sounds.push_back({"s.webm", {}, "opus"});
    if (has_encoder("libvorbis"))
        sounds.push_back({"s.mkv", {}, "vorbis"});
    for (const sound_case &c : sounds) {
        SCOPED_TRACE(c.file + " " + c.codec);
        std::string out = glr_test::scratch_path(c.file);
        std::vector<std::string> args = {"-y", "-s", "32x16", "-n", "6", "--audio", wav, "-o", out};
        args.insert(args.end(), c.args.begin(), c.args.end());
        exported e = export_with(args, "sound");
        ASSERT_EQ(e.status, 0) << e.log;
        EXPECT_EQ(probe(out, "a", "stream=codec_name"), c.codec);
        std::remove(out.c_str());
    }
}

// x264 writes the settings it ran with into the stream (an SEI message): the place to see
// that ffmpeg's spellings reached it.
std::string x264_settings(const std::string &file)
{
    std::string bytes = glr_test::slurp(file);
    size_t at = bytes.find("options: ");
    return at == std::string::npos ? "" : bytes.substr(at, bytes.find('\0', at) - at);
}

TEST(ffmpeg_conventions, ffmpeg_spellings_reach_the_encoder_and_the_muxer)
{
    ASSERT_TRUE(has_encoder("libx264")) << "the suite's FFmpeg (Debian's) has libx264, whose stream shows its settings";
    std::string out = glr_test::scratch_path("spelled.mp4");
    exported e = export_with({"-y", "-s", "64x32", "-n", "12", "-c:v", "libx264", "-g", "10", "-b:v", "400k",
                              "-maxrate", "500k", "-bufsize", "1M", "-profile:v", "main", "-tune", "animation",
                              "-preset", "fast", "-metadata", "title=A title: with a colon", "-metadata",
                              "artist=Somebody", "-o", out},
                             "spelled");
    ASSERT_EQ(e.status, 0) << e.log;
    std::string settings = x264_settings(out);
    for (const char *setting : {"keyint=10", "bitrate=400", "vbv_maxrate=500", "vbv_bufsize=1000",
                                "deblock=1:1:1" /* -tune animation */, "subme=6" /* -preset fast */})
        EXPECT_TRUE(contains(settings, setting)) << setting << " not in: " << settings;
    EXPECT_EQ(probe(out, "v", "stream=profile"), "Main");
    EXPECT_EQ(probe(out, "", "format_tags=title"), "A title: with a colon");
    EXPECT_EQ(probe(out, "", "format_tags=artist"), "Somebody");
    std::remove(out.c_str());

    // Each checked against what the encoder or muxer has, with words, before a frame.
    struct refusal {
        std::vector<std::string> args;
        std::string words;
        int status;
    };
    for (const refusal &r :
         {refusal{{"-c", "ffv1", "-tune", "film"}, "encoder ffv1 has no option 'tune'", 1},
          refusal{{"-c", "ffv1", "-profile:v", "high"}, "encoder ffv1 takes no 'high' for its option profile", 1},
          refusal{{"-c", "libx264", "-g", "ten"}, "encoder libx264 takes no 'ten' for its option g", 1},
          refusal{{"-c", "libx264", "-crf", "-5"}, "encoder libx264 takes no '-5' for its option crf", 1},
          refusal{{"-c", "libx264", "-tune", "nope"}, "encoder libx264 refuses these settings", 1},
          refusal{{"-metadata", "no_equals"}, "-metadata takes KEY=VALUE", 2},
          refusal{{"--format-options", "nope=1"}, "muxer matroska has no option 'nope'", 1}}) {
        SCOPED_TRACE(r.words);
        std::string bad = glr_test::scratch_path("refused.mkv");
        std::vector<std::string> args = {"-y", "-s", "32x16", "-n", "2", "-o", bad};
        args.insert(args.end(), r.args.begin(), r.args.end());
        e = export_with(args, "spelled_refused");
        EXPECT_EQ(e.status, r.status) << e.log;
        EXPECT_TRUE(contains(e.log, r.words)) << e.log;
        EXPECT_FALSE(exists(bad));
    }
}

// Lines of text, the empty ones left out.
std::vector<std::string> lines_of(const std::string &text)
{
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
        if (line.find_first_not_of(" \r") != std::string::npos)
            lines.push_back(line);
    return lines;
}

size_t count(const std::string &text, const std::string &part)
{
    size_t n = 0;
    for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1))
        n++;
    return n;
}

TEST(ffmpeg_conventions, v_says_as_much_as_ffmpegs_loglevel)
{
    std::string out = glr_test::scratch_path("levels.mp4");
    const std::vector<std::string> base = {"-y", "-s", "32x16", "-n", "3", "-c", "libx264", "-o", out};
    auto with = [&](std::vector<std::string> extra) {
        std::vector<std::string> args = base;
        args.insert(args.end(), extra.begin(), extra.end());
        return export_with(args, "levels");
    };
    exported quiet = with({"-v", "quiet"});
    EXPECT_EQ(quiet.status, 0);
    EXPECT_EQ(quiet.log, "") << "-v quiet printed something";
    if (has_encoder("libx265")) { // x265 prints itself, at the level it is given
        exported hevc = with({"-v", "quiet", "-c", "hevc"});
        EXPECT_EQ(hevc.status, 0);
        EXPECT_EQ(hevc.log, "") << "-v quiet with libx265 printed something";
    }
    exported errors_only = with({"-loglevel", "error"});
    EXPECT_EQ(errors_only.status, 0);
    EXPECT_EQ(errors_only.log, "");

    exported by_default = with({});
    EXPECT_EQ(by_default.status, 0) << by_default.log;
    EXPECT_TRUE(contains(by_default.log, "3/3 frames encoded")) << "progress:\n" << by_default.log;
    EXPECT_TRUE(contains(by_default.log, "wrote 3 frames (32x16")) << "the summary:\n" << by_default.log;
    EXPECT_FALSE(contains(by_default.log, "[libx264 @")) << "FFmpeg's notes at the default level:\n" << by_default.log;
    EXPECT_FALSE(contains(by_default.log, "glreader: ")) << "glreader's notes at the default level:\n"
                                                         << by_default.log;

    exported info = with({"-v", "info"});
    EXPECT_TRUE(contains(info.log, "[libx264 @")) << info.log; // x264's own summary
    EXPECT_TRUE(contains(info.log, "OpenGL renderer: ")) << info.log;
    exported debug = with({"-v", "debug"});
    EXPECT_TRUE(contains(debug.log, "[libx264 @")) << debug.log;
    EXPECT_TRUE(contains(debug.log, "glreader: ring 32x16 yuv420p depth 3")) << debug.log;
    EXPECT_GT(lines_of(debug.log).size(), lines_of(info.log).size());

    // A fatal error is said once, and at -v quiet it is all that is said.
    for (const char *level : {"quiet", "warning", "debug"}) {
        SCOPED_TRACE(level);
        exported failed = with({"-c", "libx246", "-v", level});
        EXPECT_EQ(failed.status, 1);
        EXPECT_EQ(count(failed.log, "'libx246' is no video encoder"), 1u) << failed.log;
        if (std::string(level) == "quiet")
            EXPECT_EQ(lines_of(failed.log).size(), 1u) << failed.log;
    }
    exported bad_level = with({"-v", "loud"});
    EXPECT_EQ(bad_level.status, 2);
    EXPECT_TRUE(contains(bad_level.log, "-v takes quiet, error, warning, info, verbose or debug")) << bad_level.log;
    std::remove(out.c_str());
}

// Each option line of a help text: "  -s WxH   frame size ... (default: 1280x720)", by its
// spellings and value, with what it says it does; the lines of the export table's options
// a program leaves out, which follow, are reasons, not options.
std::map<std::string, std::string> option_lines(const std::string &help)
{
    std::map<std::string, std::string> options;
    std::string current, words;
    auto flush = [&] {
        if (!current.empty())
            options[current] = words;
        current.clear();
        words.clear();
    };
    for (const std::string &line : lines_of(help)) {
        if (line.rfind("glreader-export's options that ", 0) == 0)
            break;
        if (line.rfind("  -", 0) == 0) {
            flush();
            size_t gap = line.find("  ", 2);
            current = line.substr(2, gap == std::string::npos ? std::string::npos : gap - 2);
            if (gap != std::string::npos)
                words = line.substr(line.find_first_not_of(' ', gap));
        } else if (!current.empty() && line.rfind("      ", 0) == 0) {
            words += " " + line.substr(line.find_first_not_of(' '));
        } else {
            flush();
        }
    }
    flush();
    return options;
}

TEST(ffmpeg_conventions, every_program_documents_every_option_alike)
{
    std::vector<std::string> programs = {export_program, glr_test::built_program(GLREADER_PIPE_PATH),
                                         glr_test::built_program(GLREADER_CAPTURE_PATH),
                                         glr_test::built_program(GLREADER_BENCH_PATH)};
#ifdef GLREADER_VIEWER_PATH
    programs.push_back(glr_test::built_program(GLREADER_VIEWER_PATH));
#endif
    std::map<std::string, std::pair<std::string, std::string>> seen; // option -> (what it does, program)
    for (const std::string &program : programs) {
        std::string name = program.substr(program.rfind('/') + 1), log = glr_test::scratch_path("help.txt");
        SCOPED_TRACE(name);
        ASSERT_EQ(glr_test::wait_exit(glr_test::spawn(program, {"--help"}, log)), 0);
        std::string help = glr_test::slurp(log);
        EXPECT_EQ(help.rfind("usage: " + name + " ", 0), 0u) << help;
        EXPECT_TRUE(contains(help, "\nExamples:\n  " + name + " ") ||
                    contains(help, "\nExamples:\n  xvfb-run -a " + name + " "))
            << help;
        std::map<std::string, std::string> options = option_lines(help);
        EXPECT_GE(options.size(), 4u) << help;
        EXPECT_TRUE(options.count("-v, -loglevel LEVEL") || name == "glreader-bench") << help;
        for (const auto &[option, words] : options) {
            size_t fallback = words.rfind(" (default: ");
            EXPECT_NE(fallback, std::string::npos) << option << " has no default in: " << words;
            EXPECT_GT(fallback, 10u) << option << " says too little: " << words;
            // The same option reads the same in every program (its default may differ).
            std::string what = words.substr(0, fallback);
            auto [it, first] = seen.emplace(option, std::make_pair(what, name));
            EXPECT_TRUE(first || it->second.first == what)
                << option << " reads differently in " << it->second.second << " and " << name << ":\n  "
                << it->second.first << "\n  " << what;
        }
        // An option the program reads but does not document stops it with 70 (a bug); an
        // unknown one is a usage error. Trying an unknown one makes it look at every option
        // (every mode's, for the benchmark).
        std::vector<std::vector<std::string>> tries = {{"--no-such-option"}};
        if (name == "glreader-bench")
            tries = {{"ring", "--no-such-option"},    {"encode", "--no-such-option"}, {"pipe", "--no-such-option"},
                     {"compare", "--no-such-option"}, {"filter", "--no-such-option"}};
        for (const auto &args : tries) {
            EXPECT_EQ(glr_test::wait_exit(glr_test::spawn(program, args, log)), 2) << glr_test::slurp(log);
            EXPECT_TRUE(contains(glr_test::slurp(log), "unknown option --no-such-option")) << glr_test::slurp(log);
        }
        // Every spelling the help shows is one the program takes (in one of its modes): given
        // with a value, then something unknown, so that nothing runs.
        std::vector<std::string> modes = {""};
        if (name == "glreader-bench")
            modes = {"info", "ring", "encode", "pipe", "compare", "filter"};
        for (const auto &[option, words] : options)
            for (size_t from = 0; from < option.size();) {
                size_t end = option.find_first_of(", ", from);
                std::string spelling = option.substr(from, end - from);
                from = end == std::string::npos ? option.size() : option.find_first_not_of(", ", end);
                if (spelling == "--" || spelling[0] != '-')
                    break; // the value's placeholder
                if (spelling.find("0..") != std::string::npos)
                    spelling.replace(spelling.find("0.."), 4, "3");
                bool taken = false;
                for (const std::string &mode : modes) {
                    std::vector<std::string> args = {spelling, "x", "--no-such-option"};
                    if (!mode.empty())
                        args.insert(args.begin(), mode);
                    EXPECT_EQ(glr_test::wait_exit(glr_test::spawn(program, args, log)), 2) << glr_test::slurp(log);
                    taken |= !contains(glr_test::slurp(log), "unknown option " + spelling + "\n");
                }
                EXPECT_TRUE(taken) << spelling << " is documented but not taken";
            }
    }
}

} // namespace
