// glreader-export, run as a user runs it: a real process, a real file, decoded back.
#include "support/audio_files.hpp"
#include "support/counter_video.hpp"
#include "support/decoder.hpp"
#include "support/gl_test.hpp"
#include "support/process.hpp"
#include "support/virtual_display.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

extern "C" {
#include <libavcodec/avcodec.h>
}

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

namespace {

// The samples under test (beside this test in a relocated bundle).
const std::string export_program = glr_test::built_program(GLREADER_EXPORT_PATH);
const std::string pipe_program = glr_test::built_program(GLREADER_PIPE_PATH);
const std::string capture_program = glr_test::built_program(GLREADER_CAPTURE_PATH);

pid_t spawn_export(const std::vector<std::string> &args, const std::string &log)
{
    return glr_test::spawn(export_program, args, log);
}

// The number after "key": in a flat JSON text.
long long json_number(const std::string &json, const std::string &key)
{
    size_t at = json.find("\"" + key + "\":");
    return at == std::string::npos ? -1 : std::atoll(json.c_str() + at + key.size() + 3);
}

TEST(export_test, shader_export_is_upright_complete_and_pixel_exact)
{
    std::string shader = glr_test::write_counter_shader(), out = glr_test::scratch_path("counter.mkv"), log = glr_test::scratch_path("log.txt");
    const int w = 40, h = 24, frames = 30;
    pid_t pid = spawn_export({"-s", "40x24", "-r", "25", "-n", std::to_string(frames), "-c", "ffv1",
                              "--shader", shader, "-o", out},
                             log);
    ASSERT_EQ(glr_test::wait_exit(pid), 0) << glr_test::slurp(log);
    EXPECT_NE(glr_test::slurp(log).find("wrote 30 frames"), std::string::npos) << glr_test::slurp(log);

    glr_test::expect_counter_video(out, w, h, frames);
    std::remove(out.c_str());
}

TEST(export_test, gpu_yuv_exports_hold_exactly_what_the_gpu_converted)
{
    // The counter scene read back as NV12, I420 and P010 and encoded losslessly (ffv1):
    // every frame, in order, byte for byte the ring's conversion of that frame.
    struct yuv_case {
        const char *ring_format, *pix_fmt;
    };
    std::string shader = glr_test::write_counter_shader(), log = glr_test::scratch_path("yuv.txt");
    const int w = 40, h = 24, frames = 20;
    for (const yuv_case &c : {yuv_case{"nv12", "yuv420p"}, yuv_case{"yuv420p", "yuv420p"},
                              yuv_case{"p010le", "yuv420p10le"}}) {
        SCOPED_TRACE(c.ring_format);
        std::string out = glr_test::scratch_path("yuv.mkv");
        pid_t pid = spawn_export({"-s", "40x24", "-n", std::to_string(frames), "-c", "ffv1", "--ring-format",
                                  c.ring_format, "--pix-fmt", c.pix_fmt, "--shader", shader, "-o", out},
                                 log);
        ASSERT_EQ(glr_test::wait_exit(pid), 0) << glr_test::slurp(log);
        EXPECT_NE(glr_test::slurp(log).find(std::string("gpu-convert ") + c.ring_format), std::string::npos)
            << glr_test::slurp(log);
        glr_format format = glr_format_from_name(c.ring_format);
        auto want = glr_test::counter_frames_converted(w, h, frames, format, {});
        EXPECT_EQ(glr_test::compare_yuv_video(out, want), "");
        std::remove(out.c_str());
    }
}

// --require-hw refuses a software rasterizer, with words and no file; on a GPU it renders.
TEST(export_test, require_hw_refuses_a_software_renderer_and_takes_a_gpu)
{
    std::string out = glr_test::scratch_path("hw.mkv"), log = glr_test::scratch_path("hw.txt");
    std::remove(out.c_str());
    ASSERT_EQ(glr_test::wait_exit(spawn_export({"-v", "info", "-s", "16x8", "-n", "1", "-c", "ffv1", "-f", "null", "-o", "-"},
                                               log)),
              0)
        << glr_test::slurp(log);
    std::string probe = glr_test::slurp(log);
    size_t at = probe.find("OpenGL renderer: ");
    ASSERT_NE(at, std::string::npos) << probe;
    std::string renderer = probe.substr(at + 17, probe.find(" (EGL", at) - at - 17);
    int status = glr_test::wait_exit(spawn_export({"--require-hw", "-s", "16x8", "-n", "1", "-c", "ffv1", "-o", out}, log));
    std::string text = glr_test::slurp(log);
    if (renderer.rfind("llvmpipe", 0) == 0 || renderer.find("softpipe") != std::string::npos) {
        EXPECT_EQ(status, 1) << text;
        EXPECT_NE(text.find(renderer), std::string::npos) << "the refused renderer is named: " << text;
        EXPECT_NE(text.find("require"), std::string::npos) << text;
        EXPECT_FALSE(std::ifstream(out).good()) << "nothing written";
    } else {
        EXPECT_EQ(status, 0) << text;
        EXPECT_EQ(glr_test::decode_file(out).frames.size(), 1u);
    }
    std::remove(out.c_str());
}

TEST(export_test, gpu_conversion_is_the_default_and_ffprobe_shows_the_colour_asked_for)
{
    struct tag_case {
        std::vector<std::string> options;
        std::string expected;
    };
    std::string shader = glr_test::write_counter_shader(), out = glr_test::scratch_path("tags.mp4"),
                log = glr_test::scratch_path("tags.txt"), probe = glr_test::scratch_path("probe.txt");
    for (const tag_case &c :
         {tag_case{{}, "yuv420p|tv|bt709|bt709|bt709|left"},
          tag_case{{"--matrix", "bt601", "--range", "pc", "--chroma-loc", "center"},
                   "yuvj420p|pc|smpte170m|smpte170m|smpte170m|center"},
          tag_case{{"--matrix", "bt2020", "--pix-fmt", "nv12"}, "yuv420p|tv|bt2020nc|bt2020-10|bt2020|left"},
          tag_case{{"--convert", "cpu", "--matrix", "bt601"}, "yuv420p|tv|smpte170m|smpte170m|smpte170m|left"}}) {
        std::vector<std::string> args = {"-y", "-s", "128x48", "-n", "5", "-c", "libx264", "--shader", shader, "-o", out,
                                         "--stats-json", probe + ".json"};
        args.insert(args.end(), c.options.begin(), c.options.end());
        ASSERT_EQ(glr_test::wait_exit(spawn_export(args, log)), 0) << glr_test::slurp(log);
        std::string stats = glr_test::slurp(probe + ".json");
        bool cpu = !c.options.empty() && c.options[0] == "--convert";
        EXPECT_NE(stats.find(cpu ? "\"conversion\": \"cpu\"" : "\"conversion\": \"gpu\""), std::string::npos) << stats;
        EXPECT_EQ(json_number(stats, "readback_bytes_per_frame"), cpu ? 128 * 48 * 4 : 128 * 48 * 3 / 2) << stats;
        ASSERT_EQ(glr_test::wait_exit(glr_test::spawn(
                      "ffprobe", {"-v", "error", "-select_streams", "v", "-show_entries",
                                  "stream=pix_fmt,color_range,color_space,color_transfer,color_primaries,chroma_location",
                                  "-of", "csv=p=0:s=|", out},
                      probe)),
                  0)
            << glr_test::slurp(probe);
        std::string shown = glr_test::slurp(probe);
        EXPECT_EQ(shown.substr(0, shown.find('\n')), c.expected);
    }
    std::remove(out.c_str());
}

TEST(export_test, format_option_names_the_container_the_file_name_does_not)
{
    std::string shader = glr_test::write_counter_shader(), out = glr_test::scratch_path("counter.video"),
                log = glr_test::scratch_path("format.txt");
    pid_t pid = spawn_export({"-s", "40x24", "-n", "5", "-c", "ffv1", "--shader", shader, "-f", "nut", "-o", out}, log);
    ASSERT_EQ(glr_test::wait_exit(pid), 0) << glr_test::slurp(log);
    glr_test::expect_counter_video(out, 40, 24, 5);
    std::remove(out.c_str());
}

TEST(export_test, shader_compile_error_names_file_and_line)
{
    std::string shader = glr_test::scratch_path("broken.frag"), log = glr_test::scratch_path("broken.txt");
    std::ofstream(shader) << "void mainImage(out vec4 c, in vec2 p) {\n    c = vec4(nope, 1.0);\n}\n";
    pid_t pid = spawn_export({"-n", "2", "--shader", shader, "-o", glr_test::scratch_path("never.mkv")}, log);
    EXPECT_EQ(glr_test::wait_exit(pid), 1);
    std::string text = glr_test::slurp(log);
    EXPECT_NE(text.find(shader + ":2:"), std::string::npos) << text;
    EXPECT_NE(text.find("nope"), std::string::npos) << text;
}

TEST(export_test, file_that_cannot_grow_fails_with_words_and_keeps_what_was_written)
{
    // prlimit caps the file size: the write that crosses it fails with EFBIG mid-stream.
    std::string shader = glr_test::write_counter_shader(), out = glr_test::scratch_path("limited.mkv"), log = glr_test::scratch_path("limited.txt");
    pid_t pid = glr_test::spawn("prlimit", {"--fsize=300000", export_program, "-s", "64x48", "-n", "5000", "-c",
                                  "ffv1", "--shader", shader, "-o", out},
                      log);
    EXPECT_EQ(glr_test::wait_exit(pid), 1) << glr_test::slurp(log);
    std::string text = glr_test::slurp(log);
    EXPECT_NE(text.find("writing " + out + " failed: File too large"), std::string::npos) << text;
    // The message says what the file holds and whether it plays.
    EXPECT_NE(text.find(" frames were muxed into " + out + " before that, which lacks its end: it plays up to the last "
                        "whole frame it holds"),
              std::string::npos)
        << text;
    // What reached the file before the limit decodes, in order, pixel-exact.
    glr_test::expect_counter_video(out, 64, 48, -1);
    std::remove(out.c_str());
}

TEST(export_test, sigint_leaves_a_finalized_file_with_every_reported_frame)
{
    std::string out = glr_test::scratch_path("interrupted.mkv"), log = glr_test::scratch_path("sigint.txt"), stats = glr_test::scratch_path("stats.json");
    pid_t pid = spawn_export({"-s", "64x48", "-n", "1000000", "-c", "ffv1", "--stats-json", stats, "-o", out}, log);
    // Let it run until the file has real content, then interrupt it mid-stream.
    ASSERT_TRUE(glr_test::wait_until([&] { return glr_test::slurp(out).size() > 200000; }, "200 kB in " + out,
                                     [&] { return glr_test::running(pid); }));
    kill(pid, SIGINT);
    ASSERT_EQ(glr_test::wait_exit(pid), 130) << glr_test::slurp(log); // 128 + SIGINT, as shells say
    EXPECT_NE(glr_test::slurp(log).find("interrupted: stopped after"), std::string::npos) << glr_test::slurp(log);

    long long written = json_number(glr_test::slurp(stats), "frames_written");
    ASSERT_GT(written, 0) << glr_test::slurp(stats);
    ASSERT_LT(written, 1000000);
    glr_test::decoded_video v = glr_test::decode_file(out);
    ASSERT_EQ(v.error, "");
    EXPECT_EQ(static_cast<long long>(v.frames.size()), written);
    std::remove(out.c_str());
}

// --- Outputs and file safety.

// Runs a shell command line (for pipelines), its stderr into log.
int shell(const std::string &command, const std::string &log)
{
    return glr_test::wait_exit(glr_test::spawn("sh", {"-c", command}, log));
}

TEST(export_outputs, an_existing_file_is_never_destroyed)
{
    std::string out = glr_test::scratch_path("precious.mkv"), log = glr_test::scratch_path("precious.txt");
    const std::string precious = "the user's own bytes\n";
    std::ofstream(out) << precious;
    struct refused_case {
        std::vector<std::string> args;
        int status;
        std::string words;
    };
    for (const refused_case &c :
         {refused_case{{"-c", "ffv1"}, 2, out + " already exists: -y overwrites it"},
          refused_case{{"-y", "-c", "no_such_codec"}, 1, "'no_such_codec' is no video encoder or codec"},
          refused_case{{"-y", "-c", "libx264", "-f", "mp4", "--format-options", "no_such_option=1"}, 1,
                       "muxer mp4 has no option 'no_such_option'"},
          refused_case{{"-y", "-c", "ffv1", "-f", "no_such_muxer"}, 1, "'no_such_muxer' is not a muxer"},
          refused_case{{"-y", "-c", "ffv1", "-f", "mp4"}, 1, "the mp4 muxer cannot hold ffv1 video"},
          refused_case{{"-c", "ffv1", "-f", "null"}, 0, "wrote 3 frames"}}) {
        std::vector<std::string> args = {"-s", "32x16", "-n", "3", "-o", out};
        args.insert(args.end(), c.args.begin(), c.args.end());
        EXPECT_EQ(glr_test::wait_exit(spawn_export(args, log)), c.status) << glr_test::slurp(log);
        EXPECT_NE(glr_test::slurp(log).find(c.words), std::string::npos) << glr_test::slurp(log);
        EXPECT_EQ(glr_test::slurp(out), precious) << "after: " << glr_test::slurp(log);
    }
    // -f null writes nothing anywhere, not even the default output name.
    std::string dir = glr_test::scratch_path("null_dir");
    ASSERT_EQ(shell("mkdir -p " + dir + " && cd " + dir + " && " + export_program +
                        " -s 32x16 -n 3 -c ffv1 -f null && test -z \"$(ls -A)\"",
                    log),
              0)
        << glr_test::slurp(log);
    std::remove(out.c_str());
}

// The stats JSON is JSON whatever the output's name holds (quotes, backslashes, a
// newline): a JSON reader takes it and gives the name back.
TEST(export_outputs, the_stats_json_holds_any_output_name)
{
    std::string out = glr_test::scratch_path("we\"ird\\na\nme.mkv"), stats = glr_test::scratch_path("named.json"),
                log = glr_test::scratch_path("named.txt");
    ASSERT_EQ(glr_test::wait_exit(spawn_export({"-y", "-s", "32x16", "-n", "2", "-c", "ffv1", "--stats-json", stats,
                                                "-o", out},
                                               log)),
              0)
        << glr_test::slurp(log);
    nlohmann::json parsed = nlohmann::json::parse(glr_test::slurp(stats), nullptr, false);
    ASSERT_FALSE(parsed.is_discarded()) << glr_test::slurp(stats);
    EXPECT_EQ(parsed.value("output", ""), out);
    EXPECT_EQ(parsed.value("frames_written", 0), 2);
    EXPECT_EQ(parsed["encode"].value("count", 0), 2) << glr_test::slurp(stats);
    for (const std::string &path : {out, stats})
        std::remove(path.c_str());
}

// Two exports started at once on one file, without -y: the file is created exclusively,
// so one writes it and the other is refused with words (early, or at the create).
TEST(export_outputs, of_two_exports_started_at_once_on_one_file_one_writes_it)
{
    std::string out = glr_test::scratch_path("twice.mkv"), logs[2] = {glr_test::scratch_path("twice0.txt"),
                                                                       glr_test::scratch_path("twice1.txt")};
    std::remove(out.c_str());
    const std::vector<std::string> args = {"-s", "32x16", "-n", "5", "-c", "ffv1", "-o", out};
    pid_t pids[2] = {spawn_export(args, logs[0]), spawn_export(args, logs[1])};
    int status[2] = {glr_test::wait_exit(pids[0]), glr_test::wait_exit(pids[1])};
    ASSERT_NE(status[0] == 0, status[1] == 0) << glr_test::slurp(logs[0]) << glr_test::slurp(logs[1]);
    const std::string &refused = glr_test::slurp(logs[status[0] == 0 ? 1 : 0]);
    EXPECT_NE(refused.find(out), std::string::npos) << refused;
    EXPECT_TRUE(refused.find("already exists") != std::string::npos ||
                refused.find("was created by another writer") != std::string::npos)
        << refused;
    glr_test::decoded_video v = glr_test::decode_file(out);
    EXPECT_EQ(v.error, "");
    EXPECT_EQ(v.frames.size(), 5u) << "the refused export touched the file";
    std::remove(out.c_str());
}

// --part: the output takes its name only when the whole export is written; stopped by a
// signal, the frames are finalized in OUTPUT.part and OUTPUT is left alone.
TEST(export_outputs, a_part_export_takes_its_name_only_when_whole)
{
    std::string out = glr_test::scratch_path("atomic.mkv"), part = out + ".part", log = glr_test::scratch_path("atomic.txt");
    std::remove(out.c_str());
    std::remove(part.c_str());
    ASSERT_EQ(glr_test::wait_exit(spawn_export({"-s", "32x16", "-n", "6", "-c", "ffv1", "--part", "-o", out}, log)), 0)
        << glr_test::slurp(log);
    EXPECT_EQ(glr_test::decode_file(out).frames.size(), 6u);
    EXPECT_FALSE(std::ifstream(part).good());

    const std::string older = glr_test::slurp(out);
    pid_t pid = spawn_export({"-y", "-s", "64x48", "-n", "1000000", "-c", "ffv1", "--part", "-o", out}, log);
    ASSERT_TRUE(glr_test::wait_until([&] { return glr_test::slurp(part).size() > 200000; }, "200 kB in " + part,
                                     [&] { return glr_test::running(pid); }));
    EXPECT_EQ(glr_test::slurp(out), older) << "the older file changed while the new one was written";
    kill(pid, SIGINT);
    ASSERT_EQ(glr_test::wait_exit(pid), 130) << glr_test::slurp(log);
    EXPECT_NE(glr_test::slurp(log).find(part + " was finalized"), std::string::npos) << glr_test::slurp(log);
    EXPECT_EQ(glr_test::slurp(out), older) << "a stopped export took the name";
    glr_test::decoded_video v = glr_test::decode_file(part);
    EXPECT_EQ(v.error, "");
    EXPECT_GT(v.frames.size(), 0u);

    // --part writes a file it can rename: standard output is refused with words.
    EXPECT_EQ(glr_test::wait_exit(spawn_export({"-s", "32x16", "-n", "2", "-c", "ffv1", "-f", "nut", "--part", "-o", "-"},
                                               log)),
              1);
    EXPECT_NE(glr_test::slurp(log).find("GLR_OUTPUT_PART writes a file and renames it, but - is a file descriptor"),
              std::string::npos)
        << glr_test::slurp(log);
    std::remove(out.c_str());
    std::remove(part.c_str());
}

// The viewer, the pipe sample and the capture sample keep existing files as the exporter
// does: refused before any work unless -y, which replaces them.
TEST(export_outputs, every_program_refuses_an_existing_file_unless_y)
{
    const std::string dir = glr_test::scratch_path("kept_dir"), log = glr_test::scratch_path("kept.txt"),
                      precious = "the user's own bytes\n";
    ASSERT_EQ(shell("mkdir -p " + dir, log), 0);
    auto refuses = [&](const std::string &program, std::vector<std::string> args, const std::string &file) {
        std::ofstream(dir + "/" + file) << precious;
        std::string command = "cd " + dir + " && " + program;
        for (const std::string &a : args)
            command += " '" + a + "'";
        EXPECT_EQ(shell(command, log), 2) << command << ":\n" << glr_test::slurp(log);
        EXPECT_NE(glr_test::slurp(log).find(file + " already exists: -y overwrites it"), std::string::npos)
            << command << ":\n" << glr_test::slurp(log);
        EXPECT_EQ(glr_test::slurp(dir + "/" + file), precious) << command;
        args.insert(args.begin(), "-y");
        command = "cd " + dir + " && " + program;
        for (const std::string &a : args)
            command += " '" + a + "'";
        return command;
    };
    // The pipe sample's default output.
    std::string with_y = refuses(pipe_program, {"-s", "16x8", "-n", "2"}, "glreader-pipe.mp4");
    EXPECT_EQ(shell(with_y, log), 0) << glr_test::slurp(log);
    EXPECT_EQ(glr_test::decode_file(dir + "/glreader-pipe.mp4").frames.size(), 2u) << glr_test::slurp(log);
    // An output given to ffmpeg is ffmpeg's to refuse; -y reaches it.
    std::ofstream(dir + "/given.mkv") << precious;
    const std::string given = "cd " + dir + " && " + pipe_program + " -s 16x8 -n 2";
    EXPECT_EQ(shell(given + " -- -c:v ffv1 given.mkv", log), 1) << glr_test::slurp(log);
    EXPECT_NE(glr_test::slurp(log).find("already exists"), std::string::npos) << glr_test::slurp(log);
    EXPECT_EQ(glr_test::slurp(dir + "/given.mkv"), precious);
    EXPECT_EQ(shell(given + " -y -- -c:v ffv1 given.mkv", log), 0) << glr_test::slurp(log);
    EXPECT_EQ(glr_test::decode_file(dir + "/given.mkv").frames.size(), 2u) << glr_test::slurp(log);
    with_y = refuses(capture_program, {"-s", "16x8", "-n", "2", "--ppm", "last.ppm"}, "last.ppm");
    EXPECT_EQ(shell(with_y, log), 0) << glr_test::slurp(log);
    EXPECT_EQ(glr_test::decode_file(dir + "/last.ppm").frames.size(), 1u) << glr_test::slurp(log);
#ifdef GLREADER_VIEWER_PATH
    // Refused before a window is opened: no display needed for that.
    refuses(glr_test::built_program(GLREADER_VIEWER_PATH), {"-c", "ffv1", "-o", "viewer.mkv"}, "viewer.mkv");
#endif
    ASSERT_EQ(shell("rm -r " + dir, log), 0);
}

TEST(export_outputs, standard_output_carries_the_media_and_nothing_else)
{
    std::string shader = glr_test::write_counter_shader(), log = glr_test::scratch_path("stdout.txt");
    for (const char *format : {"matroska", "nut", "mpegts", "mp4"}) {
        SCOPED_TRACE(format);
        // ffv1 where the container takes it (lossless: the counter checked byte for byte).
        bool lossless = std::string(format) == "matroska" || std::string(format) == "nut";
        std::string encode = export_program + " -s 40x24 -n 12 --shader " + shader + " -c " +
                             (lossless ? "ffv1" : "libx264") + " -f " + format + " -o -";
        // Into a file: stdout holds the media and nothing else.
        std::string out = glr_test::scratch_path(std::string("stdout.") + format);
        ASSERT_EQ(shell(encode + " > " + out, log), 0) << glr_test::slurp(log);
        if (lossless)
            glr_test::expect_counter_video(out, 40, 24, 12);
        else
            EXPECT_EQ(glr_test::decode_file(out).frames.size(), 12u);
        // Into a pipe, straight to a reader: every frame decodes (MP4 fragmented, said so).
        std::string probe = glr_test::scratch_path("stdout_probe.txt");
        ASSERT_EQ(shell(encode + " | ffprobe -v error -count_frames -show_entries stream=nb_read_frames -of csv=p=0 "
                                 "-i - > " + probe,
                        log),
                  0)
            << glr_test::slurp(log);
        std::string counted = glr_test::slurp(probe); // MPEG-TS lists its program's stream too
        EXPECT_EQ(counted.substr(0, counted.find('\n')), "12");
        if (std::string(format) == "mp4")
            EXPECT_NE(glr_test::slurp(log).find("standard output cannot seek: writing fragmented mp4"),
                      std::string::npos)
                << glr_test::slurp(log);
        std::remove(out.c_str());
    }
}

TEST(export_outputs, a_loopback_receiver_gets_the_whole_stream)
{
    // A TCP listener on 127.0.0.1 (an ffmpeg of the system) receives NUT and keeps it.
    std::string shader = glr_test::write_counter_shader(), out = glr_test::scratch_path("received.nut"),
                log = glr_test::scratch_path("receiver.txt"), export_log = glr_test::scratch_path("sender.txt");
    int port = glr_test::free_loopback_port();
    pid_t receiver = glr_test::spawn("ffmpeg", {"-hide_banner", "-y", "-i", "tcp://127.0.0.1:" + std::to_string(port) +
                                                                          "?listen=1&listen_timeout=120000",
                                                "-c", "copy", out},
                                     log);
    // One export, once the listener is bound.
    ASSERT_TRUE(glr_test::wait_until([&] { return glr_test::loopback_port_bound("tcp", port); },
                                     "ffmpeg listening on 127.0.0.1:" + std::to_string(port),
                                     [&] { return glr_test::running(receiver); }))
        << glr_test::slurp(log);
    EXPECT_EQ(glr_test::wait_exit(spawn_export({"-s", "40x24", "-n", "20", "--shader", shader, "-c", "ffv1", "-f",
                                                "nut", "-o", "tcp://127.0.0.1:" + std::to_string(port)},
                                               export_log)),
              0)
        << glr_test::slurp(export_log);
    ASSERT_EQ(glr_test::wait_exit(receiver), 0) << glr_test::slurp(log);
    glr_test::expect_counter_video(out, 40, 24, 20);
    std::remove(out.c_str());
}

// glreader-export checks the encoder's settings by opening it before the first frame, and
// opens it again to encode: what it says on opening (libvpx's default CRF, x265's warnings,
// which x265 prints itself) reaches the user once.
TEST(export_outputs, an_encoder_s_warnings_on_opening_are_said_once)
{
    std::string log = glr_test::scratch_path("said_once.txt"), out = glr_test::scratch_path("said_once.mkv");
    int tried = 0;
    for (auto [encoder, words] : {std::pair<std::string, std::string>{"libvpx-vp9", "default CRF"},
                                  {"libx265", "x265 [warning]: Source height < 720p"}}) {
        int rc = glr_test::wait_exit(spawn_export({"-y", "-s", "64x36", "-n", "3", "-c", encoder, "-o", out}, log));
        std::string said = glr_test::slurp(log);
        if (rc != 0 && (said.find("'" + encoder + "' is no video encoder") != std::string::npos ||
                        said.find(encoder + " is not in this FFmpeg build") != std::string::npos))
            continue; // not in this FFmpeg (the GPU bundle's has neither)
        tried++;
        ASSERT_EQ(rc, 0) << said;
        size_t first = said.find(words);
        EXPECT_NE(first, std::string::npos) << encoder << " said: " << said;
        EXPECT_EQ(said.find(words, first + 1), std::string::npos) << encoder << " twice: " << said;
    }
    std::remove(out.c_str());
    RecordProperty("encoders_tried", tried);
}

TEST(export_outputs, muxer_options_reach_the_muxer)
{
    std::string out = glr_test::scratch_path("faststart.mp4"), log = glr_test::scratch_path("faststart.txt");
    for (bool faststart : {false, true}) {
        std::string stats = glr_test::scratch_path("faststart.json");
        std::vector<std::string> args = {"-y", "-s", "64x48", "-n", "10", "-c", "libx264", "-o", out, "--stats-json", stats};
        if (faststart)
            args.insert(args.end(), {"--format-options", "movflags=+faststart"});
        ASSERT_EQ(glr_test::wait_exit(spawn_export(args, log)), 0) << glr_test::slurp(log);
        std::string bytes = glr_test::slurp(out);
        size_t moov = bytes.find("moov"), mdat = bytes.find("mdat");
        ASSERT_NE(moov, std::string::npos);
        ASSERT_NE(mdat, std::string::npos);
        EXPECT_EQ(moov < mdat, faststart) << "moov at " << moov << ", mdat at " << mdat;
        // The stats give the final size, the trailer (and faststart's rewrite) included.
        EXPECT_EQ(json_number(glr_test::slurp(stats), "bytes"), static_cast<long long>(bytes.size()));
    }
    std::remove(out.c_str());
}

// An image sequence's folder is its output: made when missing (said at -v info), as the
// help's own example (-o frames/%05d.png) needs in a fresh folder; a file in its place is
// refused by name before any frame.
TEST(export_outputs, image_sequences_write_their_files_and_no_other)
{
    std::string dir = glr_test::scratch_path("sequence"), log = glr_test::scratch_path("sequence.txt");
    ASSERT_EQ(shell("rm -rf " + dir, log), 0);
    std::string shader = glr_test::write_counter_shader(), frames = dir + "/frames";
    ASSERT_EQ(glr_test::wait_exit(spawn_export({"-s", "40x24", "-n", "4", "--shader", shader, "-c", "png", "-v",
                                                "info", "-o", frames + "/f%03d.png"},
                                               log)),
              0)
        << glr_test::slurp(log);
    EXPECT_NE(glr_test::slurp(log).find("made the folder " + dir + " for the image sequence"), std::string::npos)
        << glr_test::slurp(log);
    std::string listing = glr_test::scratch_path("sequence_ls.txt");
    ASSERT_EQ(shell("ls " + frames + " > " + listing, log), 0);
    EXPECT_EQ(glr_test::slurp(listing), "f001.png\nf002.png\nf003.png\nf004.png\n");
    // Each file is its frame, in order, pixel-exact (PNG is lossless).
    glr_test::expect_counter_video(frames + "/f%03d.png", 40, 24, 4);

    std::string in_the_way = dir + "/plain";
    std::ofstream(in_the_way) << "a file, not a folder";
    EXPECT_EQ(glr_test::wait_exit(spawn_export({"-s", "40x24", "-n", "4", "--shader", shader, "-c", "png", "-o",
                                                in_the_way + "/f%03d.png"},
                                               log)),
              1);
    std::string said = glr_test::slurp(log);
    EXPECT_NE(said.find("cannot write the image sequence " + in_the_way + "/f%03d.png: " + in_the_way +
                        " is not a folder"),
              std::string::npos)
        << said;
    EXPECT_EQ(said.find("frames encoded"), std::string::npos) << "refused after rendering began:\n" << said;
    EXPECT_EQ(glr_test::slurp(in_the_way), "a file, not a folder");
}

// The example shaders the help names (samples/shaders/...): the checkout's, or beside the
// tests in the GPU bundle (its repo/samples).
std::string samples_folder()
{
    struct stat st;
    if (stat(GLREADER_SAMPLES_DIR, &st) == 0)
        return GLREADER_SAMPLES_DIR;
    char self[4096] = {};
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    std::string exe(self, n > 0 ? static_cast<size_t>(n) : 0);
    return exe.substr(0, exe.rfind('/')) + "/../repo/samples";
}

// Whether the FFmpeg linked here has an encoder on the CPU by that name, or for that codec
// (a device's, such as hevc_nvenc, opens only where its device is).
bool has_cpu_encoder_for(const std::string &name)
{
    const AVCodecDescriptor *codec = avcodec_descriptor_get_by_name(name.c_str());
    const AVCodec *named = avcodec_find_encoder_by_name(name.c_str());
    void *it = nullptr;
    while (const AVCodec *c = av_codec_iterate(&it))
        if (av_codec_is_encoder(c) && (c == named || (codec && c->id == codec->id)) &&
            !(c->capabilities & (AV_CODEC_CAP_HARDWARE | AV_CODEC_CAP_HYBRID)) && !avcodec_get_hw_config(c, 0))
            return true;
    return false;
}

// Every example of --help runs as written from a fresh folder that holds what the examples
// name (the example shaders, a song.mp3), but smaller (-s 96x54, so the suite stays quick):
// the image sequence's folder too (-o frames/%05d.png). An example whose codec this FFmpeg
// has no encoder for (the GPU bundle's has no libx265) is refused, naming that.
TEST(export_outputs, the_help_s_examples_run_in_a_fresh_folder)
{
    std::string help_log = glr_test::scratch_path("help_examples.txt");
    ASSERT_EQ(glr_test::wait_exit(spawn_export({"--help"}, help_log)), 0);
    std::string help = glr_test::slurp(help_log);
    size_t at = help.find("\nExamples:\n");
    ASSERT_NE(at, std::string::npos) << help;
    std::vector<std::string> examples;
    for (size_t line = help.find('\n', at + 1) + 1; line < help.size() && help.compare(line, 2, "  ") == 0;) {
        size_t end = help.find('\n', line);
        examples.push_back(help.substr(line + 2, end - line - 2));
        line = end + 1;
    }
    ASSERT_GE(examples.size(), 4u) << help;

    std::string dir = glr_test::scratch_path("help_examples"), log = glr_test::scratch_path("help_example.txt");
    ASSERT_EQ(shell("rm -rf " + dir + " && mkdir -p " + dir + " && ln -s " + samples_folder() + " " + dir +
                        "/samples && cp " + glr_test::write_lame_mp3("help_song.mp3") + " " + dir + "/song.mp3",
                    log),
              0)
        << glr_test::slurp(log);
    for (std::string example : examples) {
        SCOPED_TRACE(example);
        const std::string program = "glreader-export ";
        ASSERT_EQ(example.rfind(program, 0), 0u);
        std::string args = example.substr(program.size());
        size_t size = args.find("-s ");
        if (size != std::string::npos)
            args.replace(size + 3, args.find(' ', size + 3) - size - 3, "96x54");
        else
            args = "-s 96x54 " + args;
        size_t codec = args.find("-c ");
        if (codec != std::string::npos &&
            !has_cpu_encoder_for(args.substr(codec + 3, args.find(' ', codec + 3) - codec - 3))) {
            EXPECT_EQ(shell("cd " + dir + " && " + export_program + " " + args, log), 1) << glr_test::slurp(log);
            EXPECT_NE(glr_test::slurp(log).find(" in this FFmpeg build"), std::string::npos) << glr_test::slurp(log);
            continue;
        }
        EXPECT_EQ(shell("cd " + dir + " && " + export_program + " " + args, log), 0) << glr_test::slurp(log);
        std::string output = args.substr(args.rfind("-o ") + 3);
        if (output.find("://") == std::string::npos)
            EXPECT_EQ(glr_test::decode_file(dir + "/" + output).error, "") << output;
    }
}

// Hardware frames said plainly: with --hw-frames on and an encoder on the CPU, the summary
// says the frames were converted into Vulkan frames, then copied to memory for it, and that
// on buys nothing there; with auto, a device named and not used is said in one line.
TEST(export_outputs, hardware_frames_are_said_plainly)
{
    std::string out = glr_test::scratch_path("hw_said.mkv"), log = glr_test::scratch_path("hw_said.txt");
    const std::vector<std::string> common = {"-y", "-s", "64x48", "-n", "3", "-c", "ffv1", "-pix_fmt", "yuv420p",
                                             "-init_hw_device", "vulkan", "-o", out};
    std::vector<std::string> on = common;
    on.insert(on.end(), {"--hw-frames", "on"});
    int rc = glr_test::wait_exit(spawn_export(on, log));
    std::string said = glr_test::slurp(log);
    if (said.find("this FFmpeg has no Vulkan") != std::string::npos) {
        EXPECT_EQ(rc, 1) << said; // the FFmpeg linked lacks Vulkan: refused, with words
        return;
    }
    ASSERT_EQ(rc, 0) << said;
    EXPECT_NE(said.find("  frames converted on the GPU into Vulkan frames (yuv420p, vulkan-frames+"), std::string::npos)
        << said;
    EXPECT_NE(said.find("  3 copied to memory for ffv1, an encoder on the CPU: --hw-frames on buys nothing there"),
              std::string::npos)
        << said;
    EXPECT_EQ(said.find("nothing read back"), std::string::npos) << said;
    EXPECT_EQ(said.find("readback path"), std::string::npos) << said;

    ASSERT_EQ(glr_test::wait_exit(spawn_export(common, log)), 0) << glr_test::slurp(log);
    said = glr_test::slurp(log);
    EXPECT_NE(said.find("glreader: the hardware device vulkan is not used: ffv1 encodes frames in memory"),
              std::string::npos)
        << said;
    EXPECT_NE(said.find("  readback path "), std::string::npos) << said;
    std::remove(out.c_str());
}

TEST(export_outputs, rates_and_lengths_are_read_strictly)
{
    std::string out = glr_test::scratch_path("ntsc.mkv"), log = glr_test::scratch_path("ntsc.txt"),
                probe = glr_test::scratch_path("ntsc_probe.txt");
    ASSERT_EQ(glr_test::wait_exit(spawn_export({"-y", "-s", "32x16", "-r", "29.97", "-n", "3", "-c", "ffv1", "-o", out}, log)), 0)
        << glr_test::slurp(log);
    ASSERT_EQ(glr_test::wait_exit(glr_test::spawn(
                  "ffprobe", {"-v", "error", "-show_entries", "stream=r_frame_rate", "-of", "csv=p=0", out}, probe)),
              0);
    EXPECT_EQ(glr_test::slurp(probe), "30000/1001\n");
    EXPECT_EQ(glr_test::wait_exit(spawn_export({"-t", "1", "-n", "3", "-o", out}, log)), 2);
    EXPECT_NE(glr_test::slurp(log).find("-t, -n and -to (duration, frames and end) each say how long"), std::string::npos) << glr_test::slurp(log);
    std::remove(out.c_str());
}

TEST(export_outputs, sigterm_finalizes_and_a_second_signal_stops_at_once)
{
    std::string out = glr_test::scratch_path("term.mkv"), log = glr_test::scratch_path("term.txt");
    pid_t pid = spawn_export({"-y", "-s", "64x48", "-n", "1000000", "-c", "ffv1", "-o", out}, log);
    ASSERT_TRUE(glr_test::wait_until([&] { return glr_test::slurp(out).size() > 100000; }, "frames in " + out,
                                     [&] { return glr_test::running(pid); }));
    kill(pid, SIGTERM);
    ASSERT_EQ(glr_test::wait_exit(pid), 143) << glr_test::slurp(log);
    EXPECT_NE(glr_test::slurp(log).find("interrupted: stopped after"), std::string::npos) << glr_test::slurp(log);
    EXPECT_GT(glr_test::decode_file(out).frames.size(), 0u);

    // The first Ctrl-C starts the finalization, which waits for an output that takes no data
    // (a FIFO opened and never read: however fast the machine, the trailer cannot be
    // written), and a second one ends the process there, with its status: no summary.
    std::string fifo = glr_test::scratch_path("stalled.fifo");
    std::remove(fifo.c_str());
    ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0) << std::strerror(errno);
    int never_read = open(fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    ASSERT_GE(never_read, 0) << std::strerror(errno);
    pid = spawn_export({"-s", "640x360", "-n", "1000000", "-c", "ffv1", "-f", "nut", "-o", fifo}, log);
    ASSERT_TRUE(glr_test::wait_for_log(pid, log, "(waiting for the output: "));
    kill(pid, SIGINT);
    ASSERT_TRUE(glr_test::wait_for_log(pid, log, "; stopping: a second Ctrl-C exits at once"));
    ASSERT_TRUE(glr_test::running(pid)) << glr_test::slurp(log);
    kill(pid, SIGINT);
    EXPECT_EQ(glr_test::wait_exit(pid), 130) << glr_test::slurp(log);
    std::string text = glr_test::slurp(log);
    EXPECT_EQ(text.find("interrupted: stopped after"), std::string::npos) << "the finalization ended:\n" << text;
    EXPECT_EQ(text.find("wrote "), std::string::npos) << text;
    close(never_read);
    std::remove(fifo.c_str());
    std::remove(out.c_str());
}

// --- Sound.

// A shader white on frames 12, 37, 62... (every second at 25 fps, from 0.48 s), black
// otherwise; and a click track whose clicks fall on those frames' times.
std::string write_flash_shader()
{
    std::string path = glr_test::scratch_path("flash.frag");
    std::ofstream(path) << "void mainImage(out vec4 c, in vec2 p) {\n"
                           "    c = vec4(vec3(iFrame % 25 == 12 ? 1.0 : 0.0), 1.0);\n"
                           "}\n";
    return path;
}

std::string write_click_track(int rate, int channels, double seconds)
{
    std::vector<int16_t> samples(static_cast<size_t>(seconds * rate) * static_cast<size_t>(channels), 0);
    for (double t = 0.48; t < seconds; t += 1.0)
        for (int i = 0; i < rate / 500; i++) // 2 ms at full scale
            for (int c = 0; c < channels; c++)
                samples[(static_cast<size_t>(t * rate) + static_cast<size_t>(i)) * static_cast<size_t>(channels) +
                        static_cast<size_t>(c)] = i % 2 ? 30000 : -30000;
    return glr_test::write_wav("clicks_" + std::to_string(rate) + "_" + std::to_string(channels) + ".wav", rate,
                               channels, samples);
}

// Onsets (seconds) of loud bursts after at least 0.1 s of quiet, in mono samples.
std::vector<double> click_times(const std::vector<int16_t> &mono, int rate)
{
    std::vector<double> out;
    int64_t quiet_since = -rate;
    for (size_t i = 0; i < mono.size(); i++) {
        if (std::abs(mono[i]) > 8000) {
            if (static_cast<int64_t>(i) - quiet_since > rate / 10)
                out.push_back(static_cast<double>(i) / rate);
            quiet_since = static_cast<int64_t>(i);
        }
    }
    return out;
}

TEST(export_audio, clicks_land_on_their_flashes_and_the_track_ends_with_the_video)
{
    std::string shader = write_flash_shader(), clicks = write_click_track(48000, 2, 4.0),
                log = glr_test::scratch_path("music.txt");
    // AAC in MP4; Opus in Matroska where FFmpeg has libopus (else Matroska's own); AC-3 in Matroska,
    // whose priming stays before the first picture where FFmpeg is older than 7.
    for (auto [container, codec] : {std::pair<std::string, std::string>{"mp4", ""}, {"mkv", ""}, {"mkv", "ac3"}}) {
        SCOPED_TRACE(container + " " + codec);
        std::string out = glr_test::scratch_path("music" + codec + "." + container);
        std::vector<std::string> args = {"-y",      "-s",   "32x16", "-r", "25", "-n", "75", "--shader",
                                         shader,    "--audio", clicks, "-o", out};
        if (!codec.empty())
            args.insert(args.end(), {"-c:a", codec});
        ASSERT_EQ(glr_test::wait_exit(spawn_export(args, log)), 0) << glr_test::slurp(log);
        glr_test::decoded_video v = glr_test::decode_file(out);
        ASSERT_EQ(v.frames.size(), 75u);
        std::vector<double> flashes;
        for (size_t n = 0; n < v.frames.size(); n++)
            if (v.frames[n].rgba[0] > 128)
                flashes.push_back(static_cast<double>(n) / 25);
        EXPECT_TRUE(glr_test::in_step_with_the_pictures(glr_test::decode_sound(out, 48000, 1)));
        std::vector<int16_t> mono = glr_test::decode_audio(out, 48000, 1);
        std::vector<double> heard = click_times(mono, 48000);
        ASSERT_EQ(flashes.size(), 3u);
        ASSERT_EQ(heard.size(), 3u) << "the 4-second click track was trimmed to the 3-second video";
        for (size_t k = 0; k < 3; k++)
            EXPECT_NEAR(heard[k], flashes[k], 1.0 / 25) << "click " << k;
        // The track lasts as long as the video, within an audio frame (1024 samples), and
        // the priming an older Matroska muxer cannot mark.
        EXPECT_NEAR(static_cast<double>(mono.size()) / 48000, 3.0 + glr_test::played_priming_seconds(out),
                    1024.0 / 48000);
        std::remove(out.c_str());
    }
}

TEST(export_audio, silent_surround_and_44100_hz_sound_and_offsets)
{
    std::string log = glr_test::scratch_path("inputs.txt");
    struct input_case {
        std::string wav;
        int channels;
        std::vector<std::string> options;
        double duration;
    };
    std::string silent = glr_test::write_wav("silent.wav", 48000, 2, std::vector<int16_t>(48000 * 2 * 2, 0));
    for (const input_case &c : {input_case{silent, 2, {}, 2.0},
                                input_case{write_click_track(48000, 6, 2.0), 6, {}, 2.0},
                                input_case{write_click_track(44100, 1, 2.0), 1, {}, 2.0},
                                input_case{write_click_track(44100, 1, 3.0), 1, {"--audio-keep-longer"}, 3.0},
                                input_case{write_click_track(48000, 2, 2.0), 2, {"--audio-offset", "1.5", "--audio-keep-longer"}, 3.5}})
        for (const char *container : {"mp4", "mkv"}) {
            SCOPED_TRACE(c.wav + " " + container);
            std::string out = glr_test::scratch_path(std::string("inputs.") + container);
            std::vector<std::string> args = {"-y", "-s", "32x16", "-r", "25", "-n", "50", "--audio", c.wav, "-o", out};
            args.insert(args.end(), c.options.begin(), c.options.end());
            ASSERT_EQ(glr_test::wait_exit(spawn_export(args, log)), 0) << glr_test::slurp(log);
            std::vector<int16_t> sound = glr_test::decode_audio(out, 48000, c.channels);
            ASSERT_FALSE(sound.empty()) << "no audio track with " << c.channels << " channels";
            // Within a frame of the container's own codec (AAC's 1024 samples, AC3's 1536,
            // Vorbis's up to 2048, whichever this FFmpeg picks for the container).
            EXPECT_NEAR(static_cast<double>(sound.size()) / c.channels / 48000,
                        c.duration + glr_test::played_priming_seconds(out), 2048.0 / 44100);
            std::remove(out.c_str());
        }
    // With the offset, the first click comes 1.5 s later.
    std::string out = glr_test::scratch_path("offset.mkv");
    ASSERT_EQ(glr_test::wait_exit(spawn_export({"-y", "-s", "32x16", "-r", "25", "-n", "75", "--audio",
                                                write_click_track(48000, 1, 2.0), "--audio-offset", "1.5", "-c",
                                                "ffv1", "--audio-codec", "flac", "-o", out},
                                               log)),
              0)
        << glr_test::slurp(log);
    std::vector<double> heard = click_times(glr_test::decode_audio(out, 48000, 1), 48000);
    ASSERT_EQ(heard.size(), 2u);
    EXPECT_NEAR(heard[0], 1.98, 1.0 / 48000 * 2);
    std::remove(out.c_str());
}

TEST(export_audio, sound_already_in_the_containers_codec_is_copied_as_it_is)
{
    // An AAC click track into MP4: its packets go in as they are, still on their flashes.
    std::string shader = write_flash_shader(), log = glr_test::scratch_path("copy.txt"),
                aac = glr_test::scratch_path("clicks.m4a"), out = glr_test::scratch_path("copy.mp4");
    ASSERT_EQ(glr_test::wait_exit(glr_test::spawn("ffmpeg", {"-v", "error", "-y", "-i", write_click_track(48000, 2, 3.0),
                                                             "-c:a", "aac", aac},
                                                  log)),
              0)
        << glr_test::slurp(log);
    ASSERT_EQ(glr_test::wait_exit(spawn_export({"-y", "-s", "32x16", "-r", "25", "-n", "75", "--shader", shader,
                                                "--audio", aac, "-o", out},
                                               log)),
              0)
        << glr_test::slurp(log);
    EXPECT_NE(glr_test::slurp(log).find("audio: copied as it is"), std::string::npos) << glr_test::slurp(log);
    std::vector<double> heard = click_times(glr_test::decode_audio(out, 48000, 1), 48000);
    ASSERT_EQ(heard.size(), 3u);
    for (size_t k = 0; k < 3; k++)
        EXPECT_NEAR(heard[k], 0.48 + static_cast<double>(k), 1.0 / 25) << "click " << k;
    // Asked to copy what the container cannot hold: said so, before anything is written.
    std::remove(out.c_str());
    EXPECT_EQ(glr_test::wait_exit(spawn_export({"-y", "-n", "3", "--audio", write_click_track(48000, 1, 1.0),
                                                "--audio-codec", "copy", "-o", out},
                                               log)),
              1);
    EXPECT_NE(glr_test::slurp(log).find("cannot hold pcm_s16le audio as it is"), std::string::npos)
        << glr_test::slurp(log);
    std::ifstream never(out);
    EXPECT_FALSE(never.good());
}

// Every LAME-encoded MP3 starts with the encoder's delay, which its decoder skips. Both of
// glreader's decoders (the muxed sound, the sound texture of a sound channel) decode it as
// ffmpeg does, to the same samples, and as quietly: no "Could not update timestamps for
// skipped samples" at -v warning.
TEST(export_audio, an_mp3_gives_ffmpeg_s_samples_and_no_warning)
{
    std::string log = glr_test::scratch_path("mp3.txt"), mp3 = glr_test::write_lame_mp3("song.mp3"),
                out = glr_test::scratch_path("mp3.mkv"), shader = glr_test::scratch_path("hears.frag");
    std::ofstream(shader) << "void mainImage(out vec4 c, in vec2 p) { c = texture(iChannel0, p / iResolution.xy); }\n";
    ASSERT_EQ(glr_test::wait_exit(spawn_export({"-y", "-v", "warning", "-s", "32x16", "-r", "25", "-n", "25", "--shader",
                                                shader, "--channel0", "sound", "--audio", mp3, "-c", "ffv1", "-c:a",
                                                "pcm_s16le", "-o", out},
                                               log)),
              0)
        << glr_test::slurp(log);
    std::string said = glr_test::slurp(log);
    EXPECT_EQ(said.find("Could not update timestamps"), std::string::npos) << said;
    EXPECT_EQ(said.find("[mp3"), std::string::npos) << "ffmpeg -i song.mp3 says nothing at -v warning: " << said;
    std::vector<int16_t> ours = glr_test::decode_audio(out, 22050, 1), ffmpegs = glr_test::decode_audio(mp3, 22050, 1);
    ASSERT_EQ(ours.size(), 22050u) << "one second, the video's length";
    ASSERT_GE(ffmpegs.size(), ours.size());
    EXPECT_TRUE(std::equal(ours.begin(), ours.end(), ffmpegs.begin())) << "the samples ffmpeg decodes, from the first";
    std::remove(out.c_str());
}

TEST(export_audio, sound_it_cannot_use_is_named)
{
    std::string log = glr_test::scratch_path("bad_audio.txt"), out = glr_test::scratch_path("bad_audio.mp4");
    std::string missing = glr_test::scratch_path("no_such_sound.wav");
    EXPECT_EQ(glr_test::wait_exit(spawn_export({"-y", "-n", "3", "--audio", missing, "-o", out}, log)), 1);
    EXPECT_NE(glr_test::slurp(log).find("cannot open the audio input " + missing), std::string::npos) << glr_test::slurp(log);
    EXPECT_EQ(glr_test::slurp(log).rfind("glreader-export: ", 0), 0u)
        << "an error before any progress starts the output, no blank line first: " << glr_test::slurp(log);
    std::string text = glr_test::scratch_path("not_sound.txt");
    std::ofstream(text) << "no sound in here\n";
    EXPECT_EQ(glr_test::wait_exit(spawn_export({"-y", "-n", "3", "--audio", text, "-o", out}, log)), 1);
    EXPECT_NE(glr_test::slurp(log).find(text), std::string::npos) << glr_test::slurp(log);
    EXPECT_EQ(glr_test::wait_exit(spawn_export({"-y", "-n", "3", "--audio", write_click_track(48000, 1, 1.0),
                                                "--audio-codec", "pcm_s16le", "-o", out},
                                               log)),
              1);
    EXPECT_NE(glr_test::slurp(log).find("the mp4 muxer cannot hold pcm_s16le audio"), std::string::npos)
        << glr_test::slurp(log);
    EXPECT_EQ(glr_test::wait_exit(spawn_export({"-n", "3", "--audio-offset", "1", "-o", out}, log)), 2);
    std::ifstream never(out);
    EXPECT_FALSE(never.good()) << "a failed setup created " << out;
}

TEST(pipe_sample, every_frame_reaches_the_ffmpeg_child_upright_and_pixel_exact)
{
    std::string shader = glr_test::write_counter_shader(), out = glr_test::scratch_path("piped.mkv"), log = glr_test::scratch_path("piped.txt");
    pid_t pid = glr_test::spawn(pipe_program, {"-s", "40x24", "-r", "25", "-n", "30", "--shader", shader, "--ring-format",
                                           "rgba", "--", "-c:v", "ffv1", "-y", out},
                      log);
    ASSERT_EQ(glr_test::wait_exit(pid), 0) << glr_test::slurp(log);
    EXPECT_NE(glr_test::slurp(log).find("30 frames 40x24"), std::string::npos) << glr_test::slurp(log);
    glr_test::expect_counter_video(out, 40, 24, 30);
    std::remove(out.c_str());
}

TEST(pipe_sample, yuv_frames_reach_the_ffmpeg_child_exactly_and_tagged)
{
    // The default: NV12 converted on the GPU goes through the pipe (one plane after the
    // other, rows gathered from the ring's memory), and I420's three padded planes too,
    // by vmsplice and by write: ffmpeg's raw output is the GPU's conversion byte for byte.
    std::string shader = glr_test::write_counter_shader(), out = glr_test::scratch_path("piped.raw"),
                log = glr_test::scratch_path("piped_yuv.txt");
    const int frames = 12;
    for (const char *format : {"nv12", "yuv420p"})
        for (const char *transport : {"auto", "write"}) {
            SCOPED_TRACE(std::string(format) + " by " + transport);
            std::vector<std::string> args = {"-s", "40x24", "-n", std::to_string(frames), "--shader", shader,
                                             "--transport", transport};
            if (std::string(format) != "nv12")
                args.insert(args.end(), {"--ring-format", format});
            args.insert(args.end(), {"--", "-f", "rawvideo", "-y", out});
            ASSERT_EQ(glr_test::wait_exit(glr_test::spawn(pipe_program, args, log)), 0) << glr_test::slurp(log);
            glr_format f = glr_format_from_name(format);
            EXPECT_EQ(glr_test::compare_raw_yuv(out, f, 40, 24, glr_test::counter_frames_converted(40, 24, frames, f, {})),
                      "");
        }
    // The colour description reaches ffmpeg as the input's flags: the output is tagged.
    std::string mp4 = glr_test::scratch_path("piped.mp4"), probe = glr_test::scratch_path("piped_probe.txt");
    ASSERT_EQ(glr_test::wait_exit(glr_test::spawn(pipe_program,
                                                  {"-s", "64x48", "-n", "5", "--matrix", "bt601", "--range", "pc",
                                                   "--chroma-loc", "center", "--", "-c:v", "libx264", "-y", mp4},
                                                  log)),
              0)
        << glr_test::slurp(log);
    ASSERT_EQ(glr_test::wait_exit(glr_test::spawn(
                  "ffprobe", {"-v", "error", "-select_streams", "v", "-show_entries",
                              "stream=color_range,color_space,color_transfer,color_primaries,chroma_location", "-of",
                              "csv=p=0:s=|", mp4},
                  probe)),
              0);
    std::string shown = glr_test::slurp(probe);
    EXPECT_EQ(shown.substr(0, shown.find('\n')), "pc|smpte170m|smpte170m|smpte170m|center");
    std::remove(out.c_str());
    std::remove(mp4.c_str());
}

TEST(pipe_sample, an_ffmpeg_that_gives_up_is_quoted)
{
    std::string log = glr_test::scratch_path("pipe_fail.txt");
    pid_t pid = glr_test::spawn(pipe_program, {"-s", "64x48", "-n", "3000", "--", "-c:v", "no_such_encoder", "-f", "null", "-"},
                      log);
    EXPECT_EQ(glr_test::wait_exit(pid), 1);
    std::string text = glr_test::slurp(log);
    EXPECT_NE(text.find("glreader-pipe: ffmpeg exited with status 1"), std::string::npos) << text;
    EXPECT_NE(text.find("Unknown encoder 'no_such_encoder'"), std::string::npos) << text;
    // Said once, and the pipe's writer is stopped before the child's stdin is closed.
    EXPECT_EQ(text.find("EPIPE"), std::string::npos) << text;
    EXPECT_EQ(text.find("Bad file descriptor"), std::string::npos) << text;
}

TEST(capture_sample, its_last_frame_is_the_scene_s_in_every_format_and_row_order)
{
    // glreader-capture reads the built-in scene back through the ring; --ppm writes the
    // last frame. At the same size and rate it is the exporter's frame, byte for byte,
    // whatever the ring's RGB format and row order.
    std::string reference = glr_test::scratch_path("capture_reference.mkv"), log = glr_test::scratch_path("capture.txt");
    ASSERT_EQ(glr_test::wait_exit(spawn_export({"-y", "-s", "40x24", "-r", "30", "-n", "5", "-c", "ffv1", "-o", reference},
                                               log)),
              0)
        << glr_test::slurp(log);
    glr_test::decoded_video exported = glr_test::decode_file(reference);
    ASSERT_EQ(exported.frames.size(), 5u) << exported.error;
    for (const char *format : {"rgba", "bgra", "rgb24"})
        for (const char *flip : {"stride", "gpu", "none"}) {
            SCOPED_TRACE(std::string(format) + ", flip " + flip);
            std::string ppm = glr_test::scratch_path("capture_last.ppm");
            ASSERT_EQ(glr_test::wait_exit(glr_test::spawn(capture_program, {"-s", "40x24", "-r", "30", "-n", "5",
                                                                            "--ring-format", format, "--flip", flip, "--ppm",
                                                                            ppm},
                                                          log)),
                      0)
                << glr_test::slurp(log);
            EXPECT_NE(glr_test::slurp(log).find("frames captured 5, acquired 5, released 5"), std::string::npos)
                << glr_test::slurp(log);
            glr_test::decoded_video last = glr_test::decode_file(ppm);
            ASSERT_EQ(last.frames.size(), 1u) << last.error;
            EXPECT_TRUE(last.frames[0].rgba == exported.frames[4].rgba) << "the PPM differs from the exporter's frame 4";
            std::remove(ppm.c_str());
        }
    // The fallback paths read the same frames, and say that they were taken.
    for (auto [option, path] : {std::pair{"--map-per-frame", "path map-per-frame+fences"},
                                std::pair{"--no-fences", "path persistent-map+glFinish"}}) {
        SCOPED_TRACE(option);
        std::string ppm = glr_test::scratch_path("capture_fallback.ppm");
        ASSERT_EQ(glr_test::wait_exit(glr_test::spawn(
                      capture_program, {"-s", "40x24", "-r", "30", "-n", "5", option, "--ppm", ppm}, log)),
                  0)
            << glr_test::slurp(log);
        EXPECT_NE(glr_test::slurp(log).find(path), std::string::npos) << glr_test::slurp(log);
        glr_test::decoded_video last = glr_test::decode_file(ppm);
        ASSERT_EQ(last.frames.size(), 1u) << last.error;
        EXPECT_TRUE(last.frames[0].rgba == exported.frames[4].rgba) << "the PPM differs from the exporter's frame 4";
        std::remove(ppm.c_str());
    }
    std::remove(reference.c_str());
}

// A project directory whose Image pass shows its iChannel0's first pixel, the picture a
// --channel0 option binds: (200, 30, 10), as a program must show it.
struct channel_project {
    std::string dir = glr_test::scratch_path("channel_project"), picture = dir + "/colour.ppm";
    channel_project()
    {
        mkdir(dir.c_str(), 0755);
        std::ofstream(dir + "/image.glsl") << "void mainImage(out vec4 c, in vec2 p) { c = texelFetch(iChannel0, ivec2(0), 0); }\n";
        std::ofstream ppm(picture, std::ios::binary);
        ppm << "P6\n2 2\n255\n";
        for (int i = 0; i < 4; i++)
            ppm << '\xc8' << '\x1e' << '\x0a';
    }
    ~channel_project()
    {
        std::remove((dir + "/image.glsl").c_str());
        std::remove(picture.c_str());
        rmdir(dir.c_str());
    }
    std::vector<std::string> options() const { return {"--shader", dir, "--channel0", "image:" + picture}; }
    // Every frame of `file` shows the picture's colour (empty), or what differs.
    static std::string shown_in(const std::string &file)
    {
        glr_test::decoded_video v = glr_test::decode_file(file);
        if (v.frames.empty())
            return "no frames in " + file + ": " + v.error;
        for (const glr_test::decoded_frame &f : v.frames)
            if (f.rgba.size() < 4 || f.rgba[0] != 200 || f.rgba[1] != 30 || f.rgba[2] != 10)
                return "a frame of " + file + " does not show the channel's picture";
        return "";
    }
};

std::vector<std::string> joined(std::vector<std::string> a, const std::vector<std::string> &b)
{
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

// Every program that renders a scene plays a project directory with --channelN options.
TEST(programs, the_pipe_sample_capture_and_exporter_play_a_project_with_channel_options)
{
    channel_project project;
    std::string log = glr_test::scratch_path("channel_project.txt");
    std::string piped = glr_test::scratch_path("channel_piped.mkv"), ppm = glr_test::scratch_path("channel_last.ppm"),
                exported = glr_test::scratch_path("channel_exported.mkv");
    ASSERT_EQ(glr_test::wait_exit(glr_test::spawn(
                  pipe_program, joined({"-s", "16x8", "-n", "3", "--ring-format", "rgba"},
                                       joined(project.options(), {"--", "-c:v", "ffv1", "-y", piped})),
                  log)),
              0)
        << glr_test::slurp(log);
    EXPECT_EQ(channel_project::shown_in(piped), "");
    ASSERT_EQ(glr_test::wait_exit(glr_test::spawn(
                  capture_program, joined({"-s", "16x8", "-n", "3", "-y", "--ppm", ppm}, project.options()), log)),
              0)
        << glr_test::slurp(log);
    EXPECT_EQ(channel_project::shown_in(ppm), "");
    ASSERT_EQ(glr_test::wait_exit(spawn_export(joined({"-s", "16x8", "-n", "3", "-c", "ffv1", "--pix-fmt", "bgra", "-o",
                                                        exported},
                                                       project.options()),
                                                log)),
              0)
        << glr_test::slurp(log);
    EXPECT_EQ(channel_project::shown_in(exported), "");
    // A channel whose file is missing is named, once.
    ASSERT_EQ(glr_test::wait_exit(glr_test::spawn(
                  capture_program, {"-s", "16x8", "-n", "1", "--channel0", "image:" + project.dir + "/missing.png"}, log)),
              1);
    std::string text = glr_test::slurp(log), said = "cannot open the image " + project.dir + "/missing.png";
    EXPECT_NE(text.find(said), std::string::npos) << text;
    EXPECT_EQ(text.find(said), text.rfind(said)) << "said twice:\n" << text;
    std::remove(piped.c_str());
    std::remove(ppm.c_str());
    std::remove(exported.c_str());
}

#ifdef GLREADER_VIEWER_PATH
// The GLFW viewer in a real window on a virtual X display: its GL context is GLX (not
// glreader's EGL), the ring gets glfwGetProcAddress and reads the window's back buffer.
// Only these need GLFW (a build without it, as the GPU bundle's, lists every other test).
TEST(viewer_test, records_exactly_what_the_window_shows)
{
    std::string shader = glr_test::write_counter_shader(), out = glr_test::scratch_path("viewer.mkv"), log = glr_test::scratch_path("viewer.txt");
    const int w = 40, h = 24, frames = 20;
    glr_test::virtual_display display;
    pid_t pid = glr_test::spawn(GLREADER_VIEWER_PATH, {"-s", "40x24", "-r", "25", "-n", std::to_string(frames), "-c",
                                                      "ffv1", "--shader", shader, "-o", out},
                                log, display.environment());
    ASSERT_EQ(glr_test::wait_exit(pid), 0) << glr_test::slurp(log);
    EXPECT_NE(glr_test::slurp(log).find("recorded 20 frames"), std::string::npos) << glr_test::slurp(log);
    glr_test::expect_counter_video(out, w, h, frames);
    std::remove(out.c_str());
}

// Killed while recording with no frame limit, the viewer finalizes an MP4 that plays (its
// moov atom written), as the exporter does, and exits 143; SIGINT gives 130.
TEST(viewer_test, a_stop_signal_finalizes_a_playable_file)
{
    glr_test::virtual_display display;
    for (int signal : {SIGTERM, SIGINT}) {
        std::string out = glr_test::scratch_path("viewer_signal.mp4"), log = glr_test::scratch_path("viewer_signal.txt");
        std::remove(out.c_str());
        pid_t viewer = glr_test::spawn(GLREADER_VIEWER_PATH, {"-s", "64x48", "-c", "libx264", "-o", out}, log,
                                       display.environment());
        ASSERT_TRUE(glr_test::wait_for_log(viewer, log, "recording to"));
        // Until encoded frames reach the file (libx264 holds its first ones back).
        ASSERT_TRUE(glr_test::wait_until([&] { return glr_test::slurp(out).size() > 2000; }, "frames in " + out,
                                         [&] { return glr_test::running(viewer); }));
        kill(viewer, signal);
        EXPECT_EQ(glr_test::wait_exit(viewer), 128 + signal) << glr_test::slurp(log);
        EXPECT_GT(glr_test::decode_file(out).frames.size(), 0u) << "signal " << signal << ": " << glr_test::slurp(log);
        std::remove(out.c_str());
    }
}
// The viewer plays a project directory with --channelN options too.
TEST(viewer_test, plays_a_project_with_channel_options)
{
    channel_project project;
    std::string out = glr_test::scratch_path("viewer_channel.mkv"), log = glr_test::scratch_path("viewer_channel.txt");
    glr_test::virtual_display display;
    pid_t pid = glr_test::spawn(GLREADER_VIEWER_PATH,
                                joined({"-s", "16x8", "-n", "3", "-c", "ffv1", "-o", out}, project.options()), log,
                                display.environment());
    ASSERT_EQ(glr_test::wait_exit(pid), 0) << glr_test::slurp(log);
    EXPECT_EQ(channel_project::shown_in(out), "");
    std::remove(out.c_str());
}
#endif

} // namespace
