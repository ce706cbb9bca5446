#include "pipe/ledger.hpp"

#include <algorithm>
#include <utility>

namespace glr::pipe_io {

void ledger::queued(const block &b)
{
    std::lock_guard<std::mutex> lock(mutex_);
    by_key_[b.key].count++;
}

void ledger::finished(block &b, int error, const std::string &message, bool spliced)
{
    if (b.has_lease())
        b.release_lease();
    {
        std::lock_guard<std::mutex> lock(mutex_);
        pending &p = by_key_[b.key];
        p.count--;
        if (error != 0) {
            if (p.failure.code == 0)
                p.failure = {error, message};
            if (first_failure_.code == 0)
                first_failure_ = {error, message};
            counters_.blocks_failed++;
        } else {
            counters_.blocks_written++;
            counters_.bytes_written += b.size();
            (spliced ? counters_.vmsplice_bytes : counters_.write_bytes) += b.size();
            delivery_.record_ns(now_ns() - b.queued_ns);
        }
        if (p.count == 0 && p.failure.code == 0)
            by_key_.erase(b.key); // failures stay until synced
    }
    changed_.notify_all();
}

failure_note ledger::sync(const void *key)
{
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] {
        auto it = by_key_.find(key);
        return it == by_key_.end() || it->second.count == 0;
    });
    auto it = by_key_.find(key);
    if (it == by_key_.end())
        return {};
    failure_note note = std::move(it->second.failure);
    by_key_.erase(it);
    return note;
}

failure_note ledger::take_first_failure()
{
    std::lock_guard<std::mutex> lock(mutex_);
    return std::exchange(first_failure_, {});
}

void ledger::count_syscall(bool retry)
{
    std::lock_guard<std::mutex> lock(mutex_);
    counters_.syscalls++;
    counters_.retries += retry ? 1 : 0;
}

void ledger::count_queue_wait(uint64_t ns)
{
    std::lock_guard<std::mutex> lock(mutex_);
    queue_wait_.record_ns(ns);
}

void ledger::saw_pipe_size(size_t bytes)
{
    std::lock_guard<std::mutex> lock(mutex_);
    counters_.pipe_size = std::max(counters_.pipe_size, bytes);
}

glr_pipe_stats ledger::stats() const
{
    std::lock_guard<std::mutex> lock(mutex_);
    glr_pipe_stats s = counters_;
    s.queue_wait = queue_wait_.summary();
    s.delivery = delivery_.summary();
    return s;
}

} // namespace glr::pipe_io
