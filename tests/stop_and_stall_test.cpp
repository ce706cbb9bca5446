// The programs against hostile input, stalled outputs and signals, run as a user runs
// them: shader paths that name no text file, readers that pause, a frame that renders for
// long, a FIFO nobody opens, Ctrl-C to a whole process group.
#include "support/decoder.hpp"
#include "support/gl_test.hpp"
#include "support/process.hpp"

#include <gtest/gtest.h>

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

const std::string export_program = glr_test::built_program(GLREADER_EXPORT_PATH);
const std::string pipe_program = glr_test::built_program(GLREADER_PIPE_PATH);

bool contains(const std::string &text, const std::string &part) { return text.find(part) != std::string::npos; }

// Waits for the child and gives its exit status (128 + a signal) and its peak memory.
// The frames glreader-export says it wrote ("wrote N frames").
long reported_frames(const std::string &log)
{
    size_t at = log.find("wrote ");
    return at == std::string::npos ? -1 : std::atol(log.c_str() + at + 6);
}

std::string write_file(const std::string &name, const std::string &text)
{
    std::string path = glr_test::scratch_path(name);
    std::ofstream(path) << text;
    return path;
}

// --- Bounded input.

TEST(bounded_input, shader_paths_that_are_no_text_files_fail_at_once_in_little_memory)
{
    std::string dir = glr_test::scratch_path("a_directory"), fifo = glr_test::scratch_path("a_fifo.frag");
    ASSERT_EQ(mkdir(dir.c_str(), 0755), 0);
    ASSERT_EQ(mkfifo(fifo.c_str(), 0644), 0);
    std::string large = write_file("large.frag", std::string(5 << 20, ' '));
    std::string project = glr_test::scratch_path("project");
    ASSERT_EQ(mkdir(project.c_str(), 0755), 0);
    ASSERT_EQ(mkdir((project + "/image.glsl").c_str(), 0755), 0); // no file, though the name says so
    struct hostile {
        std::string path, words;
    } cases[] = {{"/dev/zero", "the Image pass's shader /dev/zero is a character device: only regular files are read"},
                 {"/dev/urandom", "/dev/urandom is a character device"},
                 {fifo, fifo + " is a FIFO"},
                 {dir, "the project " + dir + " has no image.glsl"},
                 {project, "the project " + project + " has no image.glsl"},
                 {large, large + " is 5242880 bytes, more than the limit of 4194304 bytes for such a file "
                                 "(glreader-export --max-shader-size"}};
    std::string log = glr_test::scratch_path("hostile.txt"), out = glr_test::scratch_path("hostile.mkv");
    for (const hostile &c : cases) {
        // Within a bound (/dev/zero used to take gigabytes; a render of one frame takes a
        // tenth of it): one that took more would fail to allocate and say so, not the words.
        int status = glr_test::wait_exit(glr_test::spawn(
            "prlimit", glr_test::within_memory(size_t(1) << 30, export_program, {"--shader", c.path, "-n", "1", "-o", out}),
            log));
        EXPECT_EQ(status, 1) << c.path;
        EXPECT_TRUE(contains(glr_test::slurp(log), c.words)) << glr_test::slurp(log);
        EXPECT_NE(access(out.c_str(), F_OK), 0) << c.path;
    }
    // The limit is the user's to raise: a shader behind 5 MB of comment compiles with it.
    std::string commented = write_file("commented.frag", "//" + std::string(5 << 20, 'x') +
                                                             "\nvoid mainImage(out vec4 c, in vec2 f) { c = vec4(1.0); }\n");
    EXPECT_EQ(glr_test::wait_exit(glr_test::spawn(export_program, {"--shader", commented, "-n", "1", "-c", "ffv1",
                                                                   "-s", "32x32", "--max-shader-size", "8M", "-o", out},
                                                  log)),
              0)
        << glr_test::slurp(log);
    EXPECT_EQ(glr_test::decode_file(out).frames.size(), 1u);
    for (const std::string &p : {out, large, commented, fifo})
        std::remove(p.c_str());
    rmdir((project + "/image.glsl").c_str());
    rmdir(project.c_str());
    rmdir(dir.c_str());
}

// --- Stalled outputs: they wait, and every frame arrives.

TEST(stalled_output, an_export_whose_reader_pauses_for_15_s_delivers_every_frame)
{
    const int frames = 120;
    std::string fifo = glr_test::scratch_path("reader.nut"), log = glr_test::scratch_path("paused.txt");
    std::string copy = glr_test::scratch_path("received.nut");
    ASSERT_EQ(mkfifo(fifo.c_str(), 0644), 0);
    pid_t pid = glr_test::spawn(export_program, {"-s", "160x120", "-n", std::to_string(frames), "-c", "ffv1", "-f",
                                                 "nut", "-o", fifo}, log);
    int in = open(fifo.c_str(), O_RDONLY);
    ASSERT_GE(in, 0);
    std::ofstream received(copy, std::ios::binary);
    char buffer[65536];
    ssize_t n = read(in, buffer, 4096); // the header and a little more, then a pause
    ASSERT_GT(n, 0);
    received.write(buffer, n);
    std::this_thread::sleep_for(std::chrono::seconds(15)); // pace: the reader's pause under test
    while ((n = read(in, buffer, sizeof buffer)) > 0)
        received.write(buffer, n);
    close(in);
    received.close();
    std::string text = glr_test::slurp(log);
    ASSERT_EQ(glr_test::wait_exit(pid), 0) << text;
    text = glr_test::slurp(log);
    EXPECT_TRUE(contains(text, "waiting for the output")) << text;
    EXPECT_EQ(glr_test::decode_file(copy).frames.size(), static_cast<size_t>(frames));
    std::remove(fifo.c_str());
    std::remove(copy.c_str());
}

// The ffmpeg child of glreader-pipe once it runs ffmpeg, else 0: the child of whichever of
// its threads spawned it (the job's render thread). Between its spawn and its exec the
// child is still a copy of its parent, whose spawning thread waits for the exec
// (posix_spawn): stopped then, it would hold the parent before any frame was queued, and
// no output would stall.
pid_t ffmpeg_child_of(pid_t parent)
{
    const std::string tasks = "/proc/" + std::to_string(parent) + "/task";
    DIR *dir = opendir(tasks.c_str());
    pid_t found = 0;
    for (dirent *task; dir && !found && (task = readdir(dir));) {
        std::ifstream children(tasks + "/" + task->d_name + "/children");
        for (pid_t child = 0; !found && children >> child;) {
            std::string command;
            std::ifstream("/proc/" + std::to_string(child) + "/comm") >> command;
            if (command == "ffmpeg")
                found = child;
        }
    }
    if (dir)
        closedir(dir);
    return found;
}

TEST(stalled_output, a_pipe_run_whose_ffmpeg_is_stopped_for_15_s_delivers_every_frame)
{
    const int frames = 90;
    std::string out = glr_test::scratch_path("paused_child.mkv"), log = glr_test::scratch_path("paused_child.txt");
    pid_t pid = glr_test::spawn(pipe_program, {"-s", "320x240", "-n", std::to_string(frames), "--ring-format", "rgba", "--",
                                               "-c:v", "ffv1", "-y", out}, log);
    pid_t child = 0;
    ASSERT_TRUE(glr_test::wait_until([&] { return (child = ffmpeg_child_of(pid)) > 0; }, "glreader-pipe's ffmpeg child",
                                     [&] { return glr_test::running(pid); }))
        << glr_test::slurp(log);
    kill(child, SIGSTOP);
    std::this_thread::sleep_for(std::chrono::seconds(15)); // pace: the reader's pause under test
    kill(child, SIGCONT);
    ASSERT_EQ(glr_test::wait_exit(pid), 0) << glr_test::slurp(log);
    EXPECT_TRUE(contains(glr_test::slurp(log), "waiting for ffmpeg to read")) << glr_test::slurp(log);
    EXPECT_EQ(glr_test::decode_file(out).frames.size(), static_cast<size_t>(frames));
    std::remove(out.c_str());
}

// --- Signals where the program cannot look at them itself.

// A shader whose frames from `slow_from` on render for long: minutes on llvmpipe (which
// ends a shader's loops after 65535 turns in all: the work is in the body), and about 2 s
// on a GPU, which runs all 2.25 million turns: past the signal and the program's 500 ms
// grace, yet not holding the GPU after the test (an H200 kept drawing the 36 million turns
// of a frame for half a minute each, past the test's end, and the test after it timed out).
std::string write_slow_shader(int slow_from)
{
    std::ostringstream text;
    text << "void mainImage(out vec4 c, in vec2 f) {\n"
         << "    int n = iFrame < " << slow_from << " ? 0 : 1500;\n"
         << "    float x = f.x, y = f.y;\n"
         << "    for (int i = 0; i < n; i++)\n"
         << "        for (int j = 0; j < n; j++) {\n";
    for (int k = 0; k < 32; k++)
        text << "            x = sin(x * 1." << k << " + y); y = cos(y + x);\n";
    text << "        }\n    c = vec4(fract(x), fract(y), float(iFrame) / 16.0, 1.0);\n}\n";
    return write_file("slow.frag", text.str());
}

TEST(stop_signals, a_frame_that_renders_for_long_ends_on_a_signal_with_the_file_finalized)
{
    std::string shader = write_slow_shader(6), out = glr_test::scratch_path("slow.mkv");
    std::string log = glr_test::scratch_path("slow.txt");
    pid_t pid = glr_test::spawn(export_program, {"--shader", shader, "-s", "64x48", "-n", "12", "-c", "ffv1", "-o", out},
                                log);
    // Until frames 0..5 are rendered: frame 6, minutes long, is then on its way. A GPU
    // queues frames after it too (the count jumps past 6), and frame 6 holds them all.
    bool past_five = glr_test::wait_until(
        [&] {
            static const std::regex rendered(R"(\(rendered ([0-9]+)\))");
            std::string text = glr_test::slurp(log);
            for (std::sregex_iterator m(text.begin(), text.end(), rendered), end; m != end; ++m)
                if (std::stoi((*m)[1]) >= 6)
                    return true;
            return false;
        },
        "a progress line of 6 frames rendered or more in " + log, [&] { return glr_test::running(pid); });
    if (!past_five)
        kill(pid, SIGKILL); // not left to hold a GPU for hours
    ASSERT_TRUE(past_five) << glr_test::slurp(log);
    kill(pid, SIGINT);
    // The run would otherwise take hours: it ended because of the signal.
    ASSERT_EQ(glr_test::wait_exit(pid), 130) << glr_test::slurp(log);
    std::string text = glr_test::slurp(log);
    // Frame 6 or, on a GPU, the last of those queued behind it.
    std::smatch stopped;
    ASSERT_TRUE(std::regex_search(text, stopped, std::regex("stopped while frame ([0-9]+) was rendering"))) << text;
    EXPECT_GE(std::stoi(stopped[1]), 6) << text;
    glr_test::decoded_video v = glr_test::decode_file(out);
    ASSERT_EQ(v.error, "");
    EXPECT_GT(v.frames.size(), 0u);
    EXPECT_EQ(static_cast<long>(v.frames.size()), reported_frames(text)) << text;
    std::remove(out.c_str());
    std::remove(shader.c_str());
}

TEST(stop_signals, a_compile_past_its_time_limit_fails_with_words)
{
    // Three thousand blocks: minutes of LLVM on llvmpipe, and beyond a twentieth of a
    // second anywhere.
    std::ostringstream text;
    text << "void mainImage(out vec4 c, in vec2 f) {\n    float x = f.x * 0.001, s = 0.0;\n";
    for (int i = 0; i < 3000; i++)
        text << "    { float y = sin(x * 1." << i % 997 << " + " << i % 13 << ".0); s += y * cos(s); }\n";
    text << "    c = vec4(s, s, s, 1.0);\n}\n";
    std::string shader = write_file("long_compile.frag", text.str()), log = glr_test::scratch_path("compile.txt");
    std::string out = glr_test::scratch_path("compile.mkv");
    pid_t pid = glr_test::spawn(export_program, {"--shader", shader, "--compile-timeout", "0.05", "-s", "32x32", "-n",
                                                 "1", "-c", "ffv1", "-o", out},
                                log, glr_test::no_shader_disk_cache);
    EXPECT_EQ(glr_test::wait_exit(pid), 1) << glr_test::slurp(log);
    EXPECT_TRUE(contains(glr_test::slurp(log), "for over 0.05 s: giving up (--compile-timeout sets the limit)"))
        << glr_test::slurp(log);
    std::remove(out.c_str());
    std::remove(shader.c_str());
}

TEST(stop_signals, sigint_while_opening_a_fifo_nobody_reads_exits_promptly)
{
    std::string fifo = glr_test::scratch_path("unread.nut"), log = glr_test::scratch_path("unread.txt");
    ASSERT_EQ(mkfifo(fifo.c_str(), 0644), 0);
    pid_t pid = glr_test::spawn(export_program, {"-s", "64x48", "-n", "10", "-c", "ffv1", "-f", "nut", "-o", fifo}, log);
    // It says what it waits for.
    ASSERT_TRUE(glr_test::wait_for_log(pid, log, "waiting for a reader of " + fifo));
    kill(pid, SIGINT);
    // Nobody ever opens the FIFO: the process ended because of the signal, with nothing written.
    EXPECT_EQ(glr_test::wait_exit(pid), 130) << glr_test::slurp(log);
    EXPECT_TRUE(contains(glr_test::slurp(log), "wrote 0 frames")) << glr_test::slurp(log);
    std::remove(fifo.c_str());
}

TEST(stop_signals, ctrl_c_to_the_pipe_sample_s_process_group_is_a_normal_stop)
{
    std::string out = glr_test::scratch_path("group.mkv"), log = glr_test::scratch_path("group.txt");
    // setsid: a process group of its own, as a shell's job is, that Ctrl-C reaches whole.
    pid_t pid = glr_test::spawn("setsid", {pipe_program, "-s", "160x120", "-n", "100000", "--ring-format", "rgba", "--",
                                           "-c:v", "ffv1", "-y", out}, log);
    ASSERT_TRUE(glr_test::wait_until([&] { return glr_test::slurp(out).size() > 100000; }, "frames in " + out,
                                     [&] { return glr_test::running(pid); }))
        << glr_test::slurp(log);
    kill(-pid, SIGINT);
    EXPECT_EQ(glr_test::wait_exit(pid), 130) << glr_test::slurp(log);
    std::string text = glr_test::slurp(log);
    EXPECT_FALSE(contains(text, "EPIPE")) << text;
    glr_test::decoded_video v = glr_test::decode_file(out);
    EXPECT_EQ(v.error, "");
    EXPECT_GT(v.frames.size(), 0u);
    std::remove(out.c_str());
}

} // namespace
