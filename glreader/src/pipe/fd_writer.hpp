// The writer thread of one file descriptor: takes blocks in order from a bounded queue
// and moves their bytes with vmsplice (pipes) or write (everything else). For vmsplice a
// block is finished only once the reader has read it (see glreader/pipe.h).
#pragma once

#include "glreader/pipe.h"
#include "pipe/block.hpp"
#include "pipe/ledger.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <string>
#include <thread>

namespace glr::pipe_io {

class fd_writer {
public:
    // Checks that fd is open for writing and raises a pipe's size, on the calling thread
    // (throws glr::failure naming the problem), then starts the thread.
    fd_writer(const glr_log *log, int fd, const glr_pipe_params &params, ledger &book);
    ~fd_writer(); // finish()
    fd_writer(const fd_writer &) = delete;
    fd_writer &operator=(const fd_writer &) = delete;

    // Queues b, waiting while the queue is full. On the fd's sticky error the block is
    // finished as failed at once and the error returned.
    failure_note enqueue(block b);
    // Waits until every queued block is finished; returns the sticky error.
    failure_note flush();
    // flush(), then stops and joins the thread. Idempotent.
    failure_note finish();
    // Milliseconds since the fd last took bytes (or, for vmsplice, its reader read some)
    // while blocks wait for it; 0 when none waits. Any thread.
    double reader_idle_ms() const;

private:
    enum class transport { vmsplice, write };

    void run();
    // Moves every byte of b into the fd; returns 0 or a negated errno with message_ set.
    int push(block &b);
    void wait_writable();
    // vmsplice only: finishes the blocks the reader has read. Returns false when the
    // reader is gone (POLLERR) with blocks still unread.
    bool reap_consumed();
    // How long the reader should take to read the oldest block's last byte, from its pace.
    std::chrono::nanoseconds expected_drain_time() const;
    void fail(int code, const std::string &what);
    void finish_block(block &b, const failure_note &failure);
    // glr_frame_set_holder's describe for the leases queued here (atomics only).
    static void describe_holder(void *opaque, char *buf, size_t size);

    const glr_log *log_;
    const int fd_;
    const int queue_depth_;
    const size_t chunk_size_;
    ledger &book_;
    size_t pipe_size_ = 0;

    // Writer thread only (set before it starts).
    transport transport_ = transport::write;
    uint64_t pushed_ = 0;      // bytes moved into the fd so far
    uint64_t consumed_ = 0;    // vmsplice: bytes the reader has read so far
    uint64_t consumed_at_ns_ = 0;
    double read_bytes_per_ns_ = 0; // the reader's recent pace
    std::deque<block> in_pipe_; // vmsplice: pushed, not yet read
    std::atomic<uint64_t> progress_ns_{0}; // when the fd last took or gave back bytes (any thread reads)

    mutable std::mutex mutex_;
    std::condition_variable work_, space_, idle_;
    std::deque<block> queue_; // front is the block being pushed
    size_t unfinished_ = 0;   // queued or in the pipe
    failure_note error_;
    bool stopping_ = false;
    std::thread thread_;
};

} // namespace glr::pipe_io
