#include "pipe/ffmpeg_child.hpp"

#include "enum_value.hpp"
#include "format.hpp"
#include "error.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <utility>
#include <vector>

extern char **environ;

namespace {

struct pipe_fds {
    int read = -1, write = -1;
    pipe_fds()
    {
        int fds[2];
        if (pipe2(fds, O_CLOEXEC) != 0)
            glr::fail(-errno, "glr_ffmpeg_child_spawn: pipe2: %s", std::strerror(errno));
        read = fds[0];
        write = fds[1];
    }
    ~pipe_fds()
    {
        if (read >= 0)
            close(read);
        if (write >= 0)
            close(write);
    }
};

// Removes bytes from the front of s so that at most limit remain, at a line start if one
// is near.
void keep_tail(std::string &s, size_t limit)
{
    if (s.size() <= limit)
        return;
    size_t cut = s.size() - limit;
    size_t line = s.find('\n', cut);
    s.erase(0, line != std::string::npos && line - cut < 256 ? line + 1 : cut);
}

} // namespace

glr_ffmpeg_child::glr_ffmpeg_child(const glr_log *log, const glr_ffmpeg_child_params &p)
    : log_(log), tail_limit_(p.stderr_tail ? p.stderr_tail : 8192)
{
    int format = glr::enum_value(p.format);
    const glr_format_info &info = glr::format_info(format ? format : GLR_FORMAT_RGBA8, "glr_ffmpeg_child_spawn");
    glr_color color = glr::resolved_color(info, p.color, "glr_ffmpeg_child_spawn");
    if (p.width <= 0 || p.height <= 0)
        glr::fail(-EINVAL, "glr_ffmpeg_child_spawn: size %dx%d is not positive", p.width, p.height);
    if (p.fps_num < 0 || p.fps_den < 0)
        glr::fail(-EINVAL, "glr_ffmpeg_child_spawn: frame rate %d/%d is negative", p.fps_num, p.fps_den);
    const char *env = std::getenv("GLR_FFMPEG");
    program_ = p.ffmpeg ? p.ffmpeg : env && *env ? env : "ffmpeg";

    std::vector<std::string> argv = {program_, "-hide_banner", "-nostats", "-f", "rawvideo", "-pix_fmt",
                                     info.name, "-video_size", glr::format("%dx%d", p.width, p.height),
                                     "-framerate", glr::format("%d/%d", p.fps_num ? p.fps_num : 60,
                                                               p.fps_den ? p.fps_den : 1)};
    if (info.yuv) {
        // The frames' colour description, as the rawvideo decoder's options (H.273 numbers,
        // which FFmpeg's option tables take as they are): the encoder then tags its output.
        for (auto [option, value] : {std::pair<const char *, int>{"-colorspace", color.matrix},
                                     {"-color_range", color.range},
                                     {"-color_primaries", color.primaries},
                                     {"-color_trc", color.transfer},
                                     {"-chroma_sample_location", color.chroma}})
            if (value != 0)
                argv.insert(argv.end(), {option, std::to_string(value)});
    }
    argv.insert(argv.end(), {"-i", "-"});
    for (const char *const *a = p.args; a && *a; a++)
        argv.emplace_back(*a);
    std::vector<char *> c_argv;
    for (std::string &a : argv)
        c_argv.push_back(a.data());
    c_argv.push_back(nullptr);

    pipe_fds in, err;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in.read, STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&actions, err.write, STDERR_FILENO);
    int rc = posix_spawnp(&pid_, program_.c_str(), &actions, nullptr, c_argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0)
        glr::fail(GLR_ERROR_CHILD, "cannot start '%s': %s%s", program_.c_str(), std::strerror(rc),
                  rc == ENOENT ? " (is FFmpeg installed? GLR_FFMPEG names another program)" : "");
    stdin_fd_ = std::exchange(in.write, -1);
    int stderr_fd = std::exchange(err.read, -1);
    stderr_reader_ = std::thread([this, stderr_fd] { drain_stderr(stderr_fd); });
}

glr_ffmpeg_child::~glr_ffmpeg_child() { finish(); }

void glr_ffmpeg_child::drain_stderr(int fd)
{
    char buffer[4096];
    for (;;) {
        ssize_t n = read(fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        std::lock_guard<std::mutex> lock(tail_mutex_);
        tail_.append(buffer, static_cast<size_t>(n));
        keep_tail(tail_, tail_limit_);
    }
    close(fd);
}

const std::string &glr_ffmpeg_child::stderr_tail()
{
    std::lock_guard<std::mutex> lock(tail_mutex_);
    tail_snapshot_ = tail_;
    return tail_snapshot_;
}

int glr_ffmpeg_child::finish()
{
    if (finished_) {
        if (result_ != 0)
            glr_priv_report_error(nullptr, result_, result_message_.c_str(), 0);
        return result_;
    }
    finished_ = true;
    close(std::exchange(stdin_fd_, -1));
    int status = 0;
    while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    stderr_reader_.join(); // ffmpeg is gone: its stderr is at end of file
    while (!tail_.empty() && (tail_.back() == '\n' || tail_.back() == '\r'))
        tail_.pop_back();
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return 0;
    std::string how = WIFSIGNALED(status) ? glr::format("was killed by signal %d (%s)", WTERMSIG(status),
                                                        strsignal(WTERMSIG(status)))
                                          : glr::format("exited with status %d", WEXITSTATUS(status));
    result_ = GLR_ERROR_CHILD;
    result_message_ = glr::format("%s %s; its last words:\n%s", program_.c_str(), how.c_str(),
                                  tail_.empty() ? "(nothing on stderr)" : tail_.c_str());
    glr_priv_report_error(log_, result_, result_message_.c_str(), 1);
    return result_;
}
