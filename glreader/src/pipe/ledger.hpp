// What a glr_pipe keeps across its fds: which blocks are still out per address (for
// glr_pipe_sync), the first error since the last sync, and the statistics. Writer threads
// report to it; it releases the leases of finished blocks.
#pragma once

#include "glreader/pipe.h"
#include "latency.hpp"
#include "pipe/block.hpp"

#include <condition_variable>
#include <mutex>
#include <string>
#include <unordered_map>

namespace glr::pipe_io {

struct failure_note {
    int code = 0;
    std::string message;
};

class ledger {
public:
    // A block enters a writer's queue.
    void queued(const block &b);
    // A block is out (error 0) or dropped (error != 0): its lease goes back to its ring,
    // and whoever syncs on its address learns it.
    void finished(block &b, int error, const std::string &message, bool spliced);

    // Waits until no block with this address is queued; returns the first failure of one
    // since the last sync of it.
    failure_note sync(const void *key);
    // The first failure since the last call, which clears it.
    failure_note take_first_failure();

    void count_syscall(bool retry);
    void count_queue_wait(uint64_t ns);
    void saw_pipe_size(size_t bytes);
    glr_pipe_stats stats() const;

private:
    struct pending {
        int count = 0;
        failure_note failure;
    };
    mutable std::mutex mutex_;
    std::condition_variable changed_;
    std::unordered_map<const void *, pending> by_key_;
    failure_note first_failure_;
    glr_pipe_stats counters_{};
    latency_histogram queue_wait_, delivery_;
};

} // namespace glr::pipe_io
