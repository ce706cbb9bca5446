#include "pipe/fd_writer.hpp"

#include "error.hpp"
#include "latency.hpp"
#include "pipe/syscalls.hpp"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstring>
#include <fstream>

namespace glr::pipe_io {

namespace {

constexpr int max_iov = 256;
constexpr size_t default_pipe_max = 1 << 20;

size_t system_pipe_max()
{
    std::ifstream in("/proc/sys/fs/pipe-max-size");
    size_t size = 0;
    return in >> size && size > 0 ? size : default_pipe_max;
}

// Raises the pipe's size towards `wanted` (0: the system limit); an unprivileged user
// over the per-user pipe budget is refused, so smaller sizes are tried. Returns the size.
size_t raise_pipe_size(int fd, size_t wanted)
{
    int current = fcntl(fd, F_GETPIPE_SZ);
    if (current < 0)
        return 0;
    size_t target = std::min<size_t>(wanted ? wanted : system_pipe_max(), INT_MAX);
    for (size_t size = target; size > static_cast<size_t>(current); size /= 2)
        if (fcntl(fd, F_SETPIPE_SZ, static_cast<int>(size)) >= 0)
            break;
    int now = fcntl(fd, F_GETPIPE_SZ);
    return static_cast<size_t>(now > 0 ? now : current);
}

// A reader that went away must not kill the process: SIGPIPE is blocked on the writer
// thread (where the kernel directs it) and EPIPE comes back as an error instead.
void block_sigpipe_on_this_thread()
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

std::string errno_words(int err)
{
    const char *name = strerrorname_np(err);
    return format("%s (%s)", std::strerror(err), name ? name : "?");
}

} // namespace

fd_writer::fd_writer(const glr_log *log, int fd, const glr_pipe_params &params, ledger &book)
    : log_(log), fd_(fd), queue_depth_(params.queue_depth > 0 ? params.queue_depth : 4),
      chunk_size_(params.chunk_size > 0 ? params.chunk_size : size_t{1} << 20), book_(book)
{
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0)
        glr::fail(-EBADF, "fd %d is not an open file descriptor", fd);
    if ((flags & O_ACCMODE) == O_RDONLY)
        glr::fail(-EBADF, "fd %d is open for reading only", fd);
    struct stat st {};
    if (fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode)) {
        pipe_size_ = raise_pipe_size(fd, params.pipe_size);
        book_.saw_pipe_size(pipe_size_);
        if (params.transport == GLR_PIPE_AUTO && pipe_size_ > 0)
            transport_ = transport::vmsplice;
    }
    progress_ns_ = now_ns();
    thread_ = std::thread([this] { run(); });
}

fd_writer::~fd_writer() { finish(); }

double fd_writer::reader_idle_ms() const
{
    std::lock_guard<std::mutex> lock(mutex_);
    return unfinished_ ? static_cast<double>(now_ns() - progress_ns_) / 1e6 : 0;
}

void fd_writer::describe_holder(void *opaque, char *buf, size_t size)
{
    const fd_writer &w = *static_cast<const fd_writer *>(opaque);
    uint64_t progress = w.progress_ns_;
    double idle = progress ? static_cast<double>(now_ns() - progress) / 1e9 : 0;
    if (idle >= 0.1)
        std::snprintf(buf, size, "glr_pipe's writer for fd %d, whose reader has taken no byte for %.1f s (a "
                      "reader that stopped reading, a disk that stalled)", w.fd_, idle);
    else
        std::snprintf(buf, size, "glr_pipe's writer for fd %d, in its queue", w.fd_);
}

failure_note fd_writer::enqueue(block b)
{
    uint64_t start = now_ns();
    std::unique_lock<std::mutex> lock(mutex_);
    space_.wait(lock, [&] {
        return queue_.size() < static_cast<size_t>(queue_depth_) || error_.code != 0 || stopping_;
    });
    book_.count_queue_wait(now_ns() - start);
    book_.queued(b);
    if (error_.code != 0 || stopping_) {
        // A write racing glr_pipe_close on another thread must not be left in a queue
        // that nobody drains any more.
        failure_note failure = error_.code != 0
                                   ? error_
                                   : failure_note{-EBADF, format("glr_pipe: fd %d was closed (glr_pipe_close) "
                                                                 "while this write was being queued", fd_)};
        lock.unlock();
        book_.finished(b, failure.code, failure.message, false);
        return failure;
    }
    b.queued_ns = now_ns();
    if (b.lease.ring_)
        glr_frame_set_holder(&b.lease, describe_holder, this);
    queue_.push_back(std::move(b));
    unfinished_++;
    work_.notify_one();
    return {};
}

failure_note fd_writer::flush()
{
    std::unique_lock<std::mutex> lock(mutex_);
    idle_.wait(lock, [&] { return unfinished_ == 0; });
    return error_;
}

failure_note fd_writer::finish()
{
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stopping_ = true;
    }
    work_.notify_all();
    space_.notify_all();
    if (thread_.joinable())
        thread_.join();
    std::lock_guard<std::mutex> lock(mutex_);
    return error_;
}

void fd_writer::run()
{
    block_sigpipe_on_this_thread();
    prctl(PR_SET_TIMERSLACK, 1000UL); // the drain waits are tens of microseconds: keep them so
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
        if (error_.code != 0 && (!queue_.empty() || !in_pipe_.empty())) {
            std::deque<block> dropped = std::move(in_pipe_);
            in_pipe_.clear();
            std::move(queue_.begin(), queue_.end(), std::back_inserter(dropped));
            queue_.clear();
            space_.notify_all();
            failure_note failure = error_;
            lock.unlock();
            for (block &b : dropped)
                finish_block(b, failure);
            lock.lock();
            continue;
        }
        if (!queue_.empty()) {
            block &b = queue_.front(); // stays valid: the queue only grows at its back meanwhile
            lock.unlock();
            int rc = push(b);
            lock.lock();
            if (rc != 0)
                continue; // failed: dropped with the rest above
            block done = std::move(queue_.front());
            queue_.pop_front();
            space_.notify_all();
            lock.unlock();
            if (transport_ == transport::vmsplice) {
                done.end_offset = pushed_;
                in_pipe_.push_back(std::move(done));
                reap_consumed();
            } else {
                finish_block(done, {});
            }
            lock.lock();
            continue;
        }
        if (!in_pipe_.empty()) {
            // Nothing to push: sleep about as long as the reader needs for the oldest
            // block's last byte (a new block wakes us sooner).
            lock.unlock();
            bool reader_alive = reap_consumed();
            lock.lock();
            if (reader_alive && !in_pipe_.empty() && queue_.empty())
                work_.wait_for(lock, expected_drain_time());
            continue;
        }
        if (stopping_)
            return;
        work_.wait(lock);
    }
}

int fd_writer::push(block &b)
{
    iovec iov[max_iov];
    size_t offset = 0, total = b.size();
    while (offset < total) {
        bool splice = transport_ == transport::vmsplice;
        int count = b.gather(offset, iov, max_iov, splice ? pipe_size_ : chunk_size_);
        size_t asked = 0;
        for (int i = 0; i < count; i++)
            asked += iov[i].iov_len;
        const glr_internal_pipe_syscalls &calls = syscalls();
        ssize_t n = splice ? calls.vmsplice(fd_, iov, static_cast<unsigned long>(count), 0)
                           : calls.writev(fd_, iov, count);
        int err = n < 0 ? errno : 0;
        book_.count_syscall(n < 0 ? err == EINTR || err == EAGAIN : static_cast<size_t>(n) < asked);
        if (n > 0) {
            offset += static_cast<size_t>(n);
            pushed_ += static_cast<uint64_t>(n);
            progress_ns_ = now_ns();
            b.spliced = b.spliced || splice;
            if (splice)
                reap_consumed(); // earlier blocks may be read by now
        } else if (err == EINTR) {
            continue;
        } else if (err == EAGAIN || n == 0) {
            wait_writable();
        } else if (splice && (err == EFAULT || err == EINVAL)) {
            glr_log_message(log_, GLR_LOG_INFO,
                             format("glr_pipe: fd %d: vmsplice cannot take this memory (%s); writing "
                                    "with write(2) from now on", fd_, errno_words(err).c_str()).c_str());
            transport_ = transport::write;
        } else if (err == EPIPE) {
            fail(-EPIPE, format("the reader closed its end of the pipe (EPIPE) after %llu bytes",
                                static_cast<unsigned long long>(pushed_)));
            return -EPIPE;
        } else {
            fail(-err, format("writing failed after %llu bytes: %s",
                              static_cast<unsigned long long>(pushed_), errno_words(err).c_str()));
            return -err;
        }
    }
    return 0;
}

void fd_writer::wait_writable()
{
    // Whatever poll says (writable, an error, a timeout), the caller's next try decides.
    pollfd p{fd_, POLLOUT, 0};
    poll(&p, 1, 1000);
}

bool fd_writer::reap_consumed()
{
    if (in_pipe_.empty())
        return true;
    int unread = 0;
    if (ioctl(fd_, FIONREAD, &unread) != 0) {
        int err = errno;
        fail(-err, format("cannot tell how much the reader has read: FIONREAD: %s", errno_words(err).c_str()));
        return false;
    }
    uint64_t consumed = pushed_ - std::min<uint64_t>(pushed_, static_cast<uint64_t>(unread));
    uint64_t now = now_ns();
    if (consumed > consumed_ && consumed_at_ns_ != 0) {
        double pace = static_cast<double>(consumed - consumed_) / static_cast<double>(now - consumed_at_ns_ + 1);
        read_bytes_per_ns_ = read_bytes_per_ns_ > 0 ? (read_bytes_per_ns_ + pace) / 2 : pace;
    }
    if (consumed > consumed_ || consumed_at_ns_ == 0) {
        consumed_ = consumed;
        consumed_at_ns_ = now;
        progress_ns_ = now;
    }
    while (!in_pipe_.empty() && in_pipe_.front().end_offset <= consumed) {
        finish_block(in_pipe_.front(), {});
        in_pipe_.pop_front();
    }
    if (in_pipe_.empty())
        return true;
    pollfd p{fd_, 0, 0}; // POLLERR on a pipe's write end: no reader is left
    if (poll(&p, 1, 0) == 1 && (p.revents & POLLERR)) {
        fail(-EPIPE, format("the reader closed its end of the pipe (EPIPE) with %d bytes unread", unread));
        return false;
    }
    return true;
}

std::chrono::nanoseconds fd_writer::expected_drain_time() const
{
    using namespace std::chrono_literals;
    uint64_t left = in_pipe_.front().end_offset - std::min(consumed_, in_pipe_.front().end_offset);
    double ns = read_bytes_per_ns_ > 0 ? static_cast<double>(left) / read_bytes_per_ns_ : 50e3;
    // A reader that has stopped for a while (an encoder busy on a frame) is polled less.
    ns = std::max(ns, static_cast<double>(now_ns() - consumed_at_ns_) / 2);
    return std::clamp(std::chrono::nanoseconds(static_cast<int64_t>(ns)), std::chrono::nanoseconds(5us),
                      std::chrono::nanoseconds(2ms));
}

void fd_writer::fail(int code, const std::string &what)
{
    std::string message = format("glr_pipe: fd %d: %s", fd_, what.c_str());
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (error_.code != 0)
            return;
        error_ = {code, message};
    }
    glr_log_message(log_, GLR_LOG_ERROR, message.c_str());
}

void fd_writer::finish_block(block &b, const failure_note &failure)
{
    book_.finished(b, failure.code, failure.message, b.spliced);
    std::lock_guard<std::mutex> lock(mutex_);
    if (--unfinished_ == 0)
        idle_.notify_all();
}

} // namespace glr::pipe_io
