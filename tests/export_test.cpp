// glreader-export, run as a user runs it: a real process, a real file, decoded back.
#include "support/decoder.hpp"
#include "support/gl_test.hpp"
#include "support/pattern_scene.hpp"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

extern char **environ;

namespace {

// The tests' frame-counter pattern as a Shadertoy shader: iFrame in red and green, the
// pixel's position (counted from the top row) in blue.
const char *counter_shader = R"(void mainImage(out vec4 c, in vec2 fragCoord) {
    uint x = uint(fragCoord.x);
    uint y = uint(int(iResolution.y) - 1 - int(fragCoord.y));
    uint n = uint(iFrame);
    c = vec4(uvec4(n & 255u, (n >> 8) & 255u, (x * 3u + y * 7u + n) & 255u, 255u)) / 255.0;
}
)";

std::string write_shader()
{
    std::string path = glr_test::scratch_path("counter.frag");
    std::ofstream(path) << counter_shader;
    return path;
}

// Runs program with args, stdout and stderr into log.
pid_t spawn(std::string program, const std::vector<std::string> &args, const std::string &log)
{
    std::vector<char *> argv;
    argv.push_back(program.data());
    std::vector<std::string> copy = args;
    for (std::string &a : copy)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    // Under AddressSanitizer the exporter checks everything but leaks: when its context is
    // destroyed at exit, Mesa unloads its driver and loses two small blocks that no glreader
    // code owns (the in-process suites check glreader's own memory with LeakSanitizer).
    std::vector<std::string> env_storage;
    for (char **e = environ; *e; e++)
        if (std::strncmp(*e, "ASAN_OPTIONS=", 13) != 0)
            env_storage.push_back(*e);
    const char *asan = std::getenv("ASAN_OPTIONS");
    env_storage.push_back(std::string("ASAN_OPTIONS=") + (asan ? asan : "") + ":detect_leaks=0");
    std::vector<char *> env;
    for (std::string &e : env_storage)
        env.push_back(e.data());
    env.push_back(nullptr);
    pid_t pid = -1;
    EXPECT_EQ(posix_spawnp(&pid, program.c_str(), &actions, nullptr, argv.data(), env.data()), 0);
    posix_spawn_file_actions_destroy(&actions);
    return pid;
}

pid_t spawn_export(const std::vector<std::string> &args, const std::string &log)
{
    return spawn(GLREADER_EXPORT_PATH, args, log);
}

int wait_exit(pid_t pid)
{
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::string slurp(const std::string &path)
{
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

// The number after "key": in a flat JSON text.
long long json_number(const std::string &json, const std::string &key)
{
    size_t at = json.find("\"" + key + "\":");
    return at == std::string::npos ? -1 : std::atoll(json.c_str() + at + key.size() + 3);
}

// The file holds frames 0..frames-1 of the counter shader, upright and pixel-exact
// (frames < 0: however many there are, at least one).
void expect_counter_video(const std::string &path, int w, int h, int frames)
{
    glr_test::decoded_video v = glr_test::decode_file(path);
    ASSERT_EQ(v.error, "");
    if (frames < 0)
        ASSERT_GT(v.frames.size(), 0u);
    else
        ASSERT_EQ(v.frames.size(), static_cast<size_t>(frames));
    for (int n = 0; n < static_cast<int>(v.frames.size()); n++) {
        const auto &rgba = v.frames[static_cast<size_t>(n)].rgba;
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                auto want = glr_test::pattern(static_cast<uint64_t>(n), x, y);
                const uint8_t *got = &rgba[static_cast<size_t>((y * w + x) * 4)];
                ASSERT_TRUE(got[0] == want[0] && got[1] == want[1] && got[2] == want[2] && got[3] == 255)
                    << "frame " << n << " pixel (" << x << "," << y << ")";
            }
    }
}

TEST(export_test, shader_export_is_upright_complete_and_pixel_exact)
{
    std::string shader = write_shader(), out = glr_test::scratch_path("counter.mkv"), log = glr_test::scratch_path("log.txt");
    const int w = 40, h = 24, frames = 30;
    pid_t pid = spawn_export({"-s", "40x24", "-r", "25", "-n", std::to_string(frames), "-c", "ffv1",
                              "--shader", shader, "-o", out},
                             log);
    ASSERT_EQ(wait_exit(pid), 0) << slurp(log);
    EXPECT_NE(slurp(log).find("wrote 30 frames"), std::string::npos) << slurp(log);

    expect_counter_video(out, w, h, frames);
    std::remove(out.c_str());
}

TEST(export_test, shader_compile_error_names_file_and_line)
{
    std::string shader = glr_test::scratch_path("broken.frag"), log = glr_test::scratch_path("broken.txt");
    std::ofstream(shader) << "void mainImage(out vec4 c, in vec2 p) {\n    c = vec4(nope, 1.0);\n}\n";
    pid_t pid = spawn_export({"-n", "2", "--shader", shader, "-o", glr_test::scratch_path("never.mkv")}, log);
    EXPECT_EQ(wait_exit(pid), 1);
    std::string text = slurp(log);
    EXPECT_NE(text.find(shader + ":2:"), std::string::npos) << text;
    EXPECT_NE(text.find("nope"), std::string::npos) << text;
}

TEST(export_test, file_that_cannot_grow_fails_with_words_and_keeps_what_was_written)
{
    // prlimit caps the file size: the write that crosses it fails with EFBIG mid-stream.
    std::string shader = write_shader(), out = glr_test::scratch_path("limited.mkv"), log = glr_test::scratch_path("limited.txt");
    pid_t pid = spawn("prlimit", {"--fsize=300000", GLREADER_EXPORT_PATH, "-s", "64x48", "-n", "5000", "-c",
                                  "ffv1", "--shader", shader, "-o", out},
                      log);
    EXPECT_EQ(wait_exit(pid), 1) << slurp(log);
    EXPECT_NE(slurp(log).find("File too large"), std::string::npos) << slurp(log);
    // What reached the file before the limit decodes, in order, pixel-exact.
    expect_counter_video(out, 64, 48, -1);
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
    ASSERT_EQ(wait_exit(pid), 0) << slurp(log);
    EXPECT_NE(slurp(log).find("interrupted: stopped after"), std::string::npos) << slurp(log);

    long long written = json_number(slurp(stats), "frames_written");
    ASSERT_GT(written, 0) << slurp(stats);
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
    std::string shader = write_shader(), out = glr_test::scratch_path("piped.mkv"), log = glr_test::scratch_path("piped.txt");
    pid_t pid = spawn(GLREADER_PIPE_PATH, {"-s", "40x24", "-r", "25", "-n", "30", "--shader", shader, "--", "-c:v",
                                           "ffv1", "-y", out},
                      log);
    ASSERT_EQ(wait_exit(pid), 0) << slurp(log);
    EXPECT_NE(slurp(log).find("30 frames 40x24"), std::string::npos) << slurp(log);
    expect_counter_video(out, 40, 24, 30);
    std::remove(out.c_str());
}

TEST(pipe_sample, an_ffmpeg_that_gives_up_is_quoted)
{
    std::string log = glr_test::scratch_path("pipe_fail.txt");
    pid_t pid = spawn(GLREADER_PIPE_PATH, {"-s", "64x48", "-n", "3000", "--", "-c:v", "no_such_encoder", "-f", "null", "-"},
                      log);
    EXPECT_EQ(wait_exit(pid), 1);
    std::string text = slurp(log);
    EXPECT_NE(text.find("glreader-pipe: ffmpeg exited with status 1"), std::string::npos) << text;
    EXPECT_NE(text.find("Unknown encoder 'no_such_encoder'"), std::string::npos) << text;
}

TEST(viewer_test, records_exactly_what_the_window_shows)
{
    std::string shader = write_shader(), out = glr_test::scratch_path("viewer.mkv"), log = glr_test::scratch_path("viewer.txt");
    const int w = 40, h = 24, frames = 20;
    pid_t pid = spawn("xvfb-run", {"-a", "-s", "-screen 0 320x240x24", GLREADER_VIEWER_PATH, "-s", "40x24",
                                   "-r", "25", "-n", std::to_string(frames), "-c", "ffv1", "--shader", shader,
                                   "-o", out},
                      log);
    ASSERT_EQ(wait_exit(pid), 0) << slurp(log);
    EXPECT_NE(slurp(log).find("recorded 20 frames"), std::string::npos) << slurp(log);
    expect_counter_video(out, w, h, frames);
    std::remove(out.c_str());
}
#endif

} // namespace
