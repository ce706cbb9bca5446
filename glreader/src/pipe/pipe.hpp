// The object behind glr_pipe: one fd_writer per file descriptor, created on first use,
// and the ledger they share.
#pragma once

#include "glreader/pipe.h"
#include "pipe/fd_writer.hpp"
#include "pipe/ledger.hpp"

#include <map>
#include <memory>
#include <mutex>
#include <vector>

struct glr_pipe {
public:
    glr_pipe(const glr_log *log, const glr_pipe_params &params);
    ~glr_pipe(); // closes every fd (flushing it)

    // Each returns 0 or an error code whose message is the calling thread's last error.
    int write(int fd, glr::pipe_io::block b);
    int sync(const void *key);
    int sync_all();
    int close(int fd);
    glr_pipe_stats stats() const;
    const glr_log *log() const { return log_; }

private:
    std::shared_ptr<glr::pipe_io::fd_writer> writer_for(int fd);

    const glr_log *log_;
    const glr_pipe_params params_;
    glr::pipe_io::ledger book_;
    mutable std::mutex mutex_;
    std::map<int, std::shared_ptr<glr::pipe_io::fd_writer>> writers_;
    // Writers that close() is draining: still counted in stats (their reader may stall).
    std::vector<std::shared_ptr<glr::pipe_io::fd_writer>> closing_;
};
