// glreader pipe mode: C++ layer over glreader/pipe.h and glreader/ffmpeg_child.h.
#pragma once

#include "glreader/glreader.hpp"

#include <string>
#include <vector>

namespace glr {

// Ordered writes of frames and memory blocks to file descriptors (see glreader/pipe.h).
// Thread-safety: any thread. Lifetime: rings whose frames were written must outlive
// sync_all(), close() of their fd, or this object.
class pipe {
public:
    explicit pipe(const glr_pipe_params &params = {}, glr_log *log = nullptr)
        : pipe_(glr_pipe_create(log, &params))
    {
        if (!pipe_.get())
            detail::throw_create_failure("glr_pipe_create");
    }

    // Takes the lease; it goes back to its ring once the bytes are out. Throws glr::error
    // (e.g. -EPIPE once the reader is gone).
    void write(int fd, frame &&f)
    {
        glr_frame c = f.detach();
        detail::check(glr_pipe_write_frame(pipe_.get(), fd, &c), "glr_pipe_write_frame");
    }
    // The memory must stay unchanged until sync(data) returns.
    void write(int fd, const void *data, size_t size)
    {
        detail::check(glr_pipe_write(pipe_.get(), fd, data, size), "glr_pipe_write");
    }
    void sync(const void *data) { detail::check(glr_pipe_sync(pipe_.get(), data), "glr_pipe_sync"); }
    void sync_all() { detail::check(glr_pipe_sync_all(pipe_.get()), "glr_pipe_sync_all"); }
    // Flushes fd and stops its writer; fd stays open.
    void close(int fd) { detail::check(glr_pipe_close(pipe_.get(), fd), "glr_pipe_close"); }

    glr_pipe_stats stats() const
    {
        glr_pipe_stats s{};
        glr_pipe_get_stats(pipe_.get(), &s);
        return s;
    }
    glr_pipe *get() const { return pipe_.get(); }

private:
    detail::handle<glr_pipe, glr_pipe_destroy> pipe_;
};

// An `ffmpeg -f rawvideo -i -` child (see glreader/ffmpeg_child.h).
class ffmpeg_child {
public:
    // args: what follows the input, e.g. {"-c:v", "libx264", "-y", "out.mp4"}.
    ffmpeg_child(glr_ffmpeg_child_params params, const std::vector<std::string> &args, glr_log *log = nullptr)
    {
        std::vector<const char *> c_args;
        for (const std::string &a : args)
            c_args.push_back(a.c_str());
        c_args.push_back(nullptr);
        params.args = c_args.data();
        child_ = detail::handle<glr_ffmpeg_child, glr_ffmpeg_child_destroy>(glr_ffmpeg_child_spawn(log, &params));
        if (!child_.get())
            detail::throw_create_failure("glr_ffmpeg_child_spawn");
    }

    int stdin_fd() const { return glr_ffmpeg_child_stdin(child_.get()); }
    int pid() const { return glr_ffmpeg_child_pid(child_.get()); }
    // Ends ffmpeg's input and waits; throws glr::error ending with ffmpeg's stderr when it
    // failed. Close the stdin fd in every glr::pipe first.
    void finish() { detail::check(glr_ffmpeg_child_finish(child_.get()), "glr_ffmpeg_child_finish"); }
    std::string stderr_tail() const { return glr_ffmpeg_child_stderr(child_.get()); }
    glr_ffmpeg_child *get() const { return child_.get(); }

private:
    detail::handle<glr_ffmpeg_child, glr_ffmpeg_child_destroy> child_;
};

} // namespace glr
