// glreader-export, run as a user runs it: a real process, a real file, decoded back.
#include "support/counter_video.hpp"
#include "support/decoder.hpp"
#include "support/gl_test.hpp"
#include "support/process.hpp"

#include <gtest/gtest.h>

#include <signal.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace {

pid_t spawn_export(const std::vector<std::string> &args, const std::string &log)
{
    return glr_test::spawn(GLREADER_EXPORT_PATH, args, log);
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
        std::vector<std::string> args = {"-s", "128x48", "-n", "5", "-c", "libx264", "--shader", shader, "-o", out,
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
    pid_t pid = glr_test::spawn("prlimit", {"--fsize=300000", GLREADER_EXPORT_PATH, "-s", "64x48", "-n", "5000", "-c",
                                  "ffv1", "--shader", shader, "-o", out},
                      log);
    EXPECT_EQ(glr_test::wait_exit(pid), 1) << glr_test::slurp(log);
    EXPECT_NE(glr_test::slurp(log).find("File too large"), std::string::npos) << glr_test::slurp(log);
    // What reached the file before the limit decodes, in order, pixel-exact.
    glr_test::expect_counter_video(out, 64, 48, -1);
    std::remove(out.c_str());
}

TEST(export_test, sigint_leaves_a_finalized_file_with_every_reported_frame)
{
    std::string out = glr_test::scratch_path("interrupted.mkv"), log = glr_test::scratch_path("sigint.txt"), stats = glr_test::scratch_path("stats.json");
    pid_t pid = spawn_export({"-s", "64x48", "-n", "1000000", "-c", "ffv1", "--stats-json", stats, "-o", out}, log);
    // Let it run until the file has real content, then interrupt it mid-stream.
    for (int i = 0; i < 200; i++) {
        std::ifstream f(out, std::ios::ate | std::ios::binary);
        if (f && f.tellg() > 200000)
            break;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    kill(pid, SIGINT);
    ASSERT_EQ(glr_test::wait_exit(pid), 0) << glr_test::slurp(log);
    EXPECT_NE(glr_test::slurp(log).find("interrupted: stopped after"), std::string::npos) << glr_test::slurp(log);

    long long written = json_number(glr_test::slurp(stats), "frames_written");
    ASSERT_GT(written, 0) << glr_test::slurp(stats);
    ASSERT_LT(written, 1000000);
    glr_test::decoded_video v = glr_test::decode_file(out);
    ASSERT_EQ(v.error, "");
    EXPECT_EQ(static_cast<long long>(v.frames.size()), written);
    std::remove(out.c_str());
}

#ifdef GLREADER_VIEWER_PATH
// The GLFW viewer in a real window on a virtual X display: its GL context is GLX (not
// glreader's EGL), the ring gets glfwGetProcAddress and reads the window's back buffer.
TEST(pipe_sample, every_frame_reaches_the_ffmpeg_child_upright_and_pixel_exact)
{
    std::string shader = glr_test::write_counter_shader(), out = glr_test::scratch_path("piped.mkv"), log = glr_test::scratch_path("piped.txt");
    pid_t pid = glr_test::spawn(GLREADER_PIPE_PATH, {"-s", "40x24", "-r", "25", "-n", "30", "--shader", shader, "--format",
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
                args.insert(args.end(), {"--format", format});
            args.insert(args.end(), {"--", "-f", "rawvideo", "-y", out});
            ASSERT_EQ(glr_test::wait_exit(glr_test::spawn(GLREADER_PIPE_PATH, args, log)), 0) << glr_test::slurp(log);
            glr_format f = glr_format_from_name(format);
            EXPECT_EQ(glr_test::compare_raw_yuv(out, f, 40, 24, glr_test::counter_frames_converted(40, 24, frames, f, {})),
                      "");
        }
    // The colour description reaches ffmpeg as the input's flags: the output is tagged.
    std::string mp4 = glr_test::scratch_path("piped.mp4"), probe = glr_test::scratch_path("piped_probe.txt");
    ASSERT_EQ(glr_test::wait_exit(glr_test::spawn(GLREADER_PIPE_PATH,
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
    pid_t pid = glr_test::spawn(GLREADER_PIPE_PATH, {"-s", "64x48", "-n", "3000", "--", "-c:v", "no_such_encoder", "-f", "null", "-"},
                      log);
    EXPECT_EQ(glr_test::wait_exit(pid), 1);
    std::string text = glr_test::slurp(log);
    EXPECT_NE(text.find("glreader-pipe: ffmpeg exited with status 1"), std::string::npos) << text;
    EXPECT_NE(text.find("Unknown encoder 'no_such_encoder'"), std::string::npos) << text;
}

TEST(viewer_test, records_exactly_what_the_window_shows)
{
    std::string shader = glr_test::write_counter_shader(), out = glr_test::scratch_path("viewer.mkv"), log = glr_test::scratch_path("viewer.txt");
    const int w = 40, h = 24, frames = 20;
    pid_t pid = glr_test::spawn("xvfb-run", {"-a", "-s", "-screen 0 320x240x24", GLREADER_VIEWER_PATH, "-s", "40x24",
                                   "-r", "25", "-n", std::to_string(frames), "-c", "ffv1", "--shader", shader,
                                   "-o", out},
                      log);
    ASSERT_EQ(glr_test::wait_exit(pid), 0) << glr_test::slurp(log);
    EXPECT_NE(glr_test::slurp(log).find("recorded 20 frames"), std::string::npos) << glr_test::slurp(log);
    glr_test::expect_counter_video(out, w, h, frames);
    std::remove(out.c_str());
}
#endif

} // namespace
