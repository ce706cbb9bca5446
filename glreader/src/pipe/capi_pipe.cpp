// The extern "C" entry points of pipe mode (glr_pipe, glr_ffmpeg_child): validate, call,
// catch, return a code.
#include "glreader/ffmpeg_child.h"
#include "glreader/pipe.h"

#include "guarded.hpp"
#include "pipe/ffmpeg_child.hpp"
#include "pipe/pipe.hpp"

namespace {

int invalid(const glr_log *log, const char *message)
{
    glr_priv_report_error(log, -EINVAL, message, 1);
    return -EINVAL;
}

} // namespace

extern "C" {

glr_pipe *glr_pipe_create(glr_log *log, const struct glr_pipe_params *params)
{
    glr_pipe *pipe = nullptr;
    glr::guarded(log, [&] {
        pipe = new glr_pipe(log, params ? *params : glr_pipe_params{});
        return 0;
    });
    return pipe;
}

int glr_pipe_write(glr_pipe *pipe, int fd, const void *data, size_t size)
{
    if (!pipe)
        return invalid(nullptr, "glr_pipe_write: pipe is NULL");
    if (fd < 0)
        return invalid(pipe->log(), glr::format("glr_pipe_write: fd %d is negative", fd).c_str());
    if (!data || size == 0)
        return invalid(pipe->log(), "glr_pipe_write: no bytes to write (data is NULL or size is 0)");
    return glr::guarded(pipe->log(), [&] { return pipe->write(fd, glr::pipe_io::block::memory(data, size)); });
}

int glr_pipe_write_frame(glr_pipe *pipe, int fd, struct glr_frame *frame)
{
    if (!pipe || !frame || !frame->ring_ || fd < 0) {
        if (frame && frame->ring_)
            glr_frame_release(frame); // the lease is never lost
        return invalid(pipe ? pipe->log() : nullptr,
                       "glr_pipe_write_frame: NULL pipe or frame, a frame that holds no lease, or a negative fd");
    }
    glr::pipe_io::block b = glr::pipe_io::block::frame(*frame);
    *frame = glr_frame{};
    return glr::guarded(pipe->log(), [&] { return pipe->write(fd, std::move(b)); });
}

int glr_pipe_sync(glr_pipe *pipe, const void *data)
{
    if (!pipe)
        return invalid(nullptr, "glr_pipe_sync: pipe is NULL");
    return glr::guarded(pipe->log(), [&] { return pipe->sync(data); });
}

int glr_pipe_sync_all(glr_pipe *pipe)
{
    if (!pipe)
        return invalid(nullptr, "glr_pipe_sync_all: pipe is NULL");
    return glr::guarded(pipe->log(), [&] { return pipe->sync_all(); });
}

int glr_pipe_close(glr_pipe *pipe, int fd)
{
    if (!pipe)
        return invalid(nullptr, "glr_pipe_close: pipe is NULL");
    return glr::guarded(pipe->log(), [&] { return pipe->close(fd); });
}

void glr_pipe_destroy(glr_pipe **pipe)
{
    if (!pipe || !*pipe)
        return;
    delete *pipe;
    *pipe = nullptr;
}

void glr_pipe_get_stats(glr_pipe *pipe, struct glr_pipe_stats *stats)
{
    if (pipe && stats)
        *stats = pipe->stats();
}

glr_ffmpeg_child *glr_ffmpeg_child_spawn(glr_log *log, const struct glr_ffmpeg_child_params *params)
{
    glr_ffmpeg_child *child = nullptr;
    glr::guarded(log, [&] {
        if (!params)
            glr::fail(-EINVAL, "glr_ffmpeg_child_spawn: params is NULL");
        child = new glr_ffmpeg_child(log, *params);
        return 0;
    });
    return child;
}

int glr_ffmpeg_child_stdin(glr_ffmpeg_child *child) { return child ? child->stdin_fd() : -1; }

int glr_ffmpeg_child_pid(glr_ffmpeg_child *child) { return child ? static_cast<int>(child->pid()) : -1; }

int glr_ffmpeg_child_finish(glr_ffmpeg_child *child)
{
    if (!child)
        return invalid(nullptr, "glr_ffmpeg_child_finish: child is NULL");
    return glr::guarded(child->log(), [&] { return child->finish(); });
}

const char *glr_ffmpeg_child_stderr(glr_ffmpeg_child *child) { return child ? child->stderr_tail().c_str() : ""; }

void glr_ffmpeg_child_destroy(glr_ffmpeg_child **child)
{
    if (!child || !*child)
        return;
    delete *child;
    *child = nullptr;
}

} // extern "C"
