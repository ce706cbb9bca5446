// The object behind glr_ffmpeg_child: a spawned ffmpeg reading raw frames on stdin, and
// a thread that drains its stderr and keeps the tail.
#pragma once

#include "glreader/ffmpeg_child.h"

#include <sys/types.h>

#include <mutex>
#include <string>
#include <thread>

struct glr_ffmpeg_child {
public:
    glr_ffmpeg_child(const glr_log *log, const glr_ffmpeg_child_params &params);
    ~glr_ffmpeg_child(); // finish()

    int stdin_fd() const { return stdin_fd_; }
    pid_t pid() const { return pid_; }
    // 0, or GLR_ERROR_CHILD whose message (the calling thread's last error) ends with the
    // stderr tail.
    int finish();
    // A snapshot of the tail kept so far (ffmpeg may still be writing): valid until the
    // next call.
    const std::string &stderr_tail();
    const glr_log *log() const { return log_; }

private:
    void drain_stderr(int fd);

    const glr_log *log_;
    const size_t tail_limit_;
    std::string program_;
    pid_t pid_ = -1;
    int stdin_fd_ = -1;
    std::thread stderr_reader_;
    std::mutex tail_mutex_;
    std::string tail_, tail_snapshot_;
    bool finished_ = false;
    int result_ = 0;
    std::string result_message_;
};
