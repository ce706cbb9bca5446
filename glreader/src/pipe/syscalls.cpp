#include "pipe/syscalls.hpp"

#include <fcntl.h>
#include <sys/uio.h>

#include <atomic>

namespace {

ssize_t real_writev(int fd, const iovec *iov, int count) { return ::writev(fd, iov, count); }

ssize_t real_vmsplice(int fd, const iovec *iov, unsigned long count, unsigned int flags)
{
    return ::vmsplice(fd, iov, count, flags);
}

const glr_internal_pipe_syscalls real_calls{real_writev, real_vmsplice};

} // namespace

#ifndef GLREADER_TEST_SEAMS

namespace glr::pipe_io {

const glr_internal_pipe_syscalls &syscalls() { return real_calls; }

} // namespace glr::pipe_io

#else // the test build: the calls can be replaced

namespace {
std::atomic<const glr_internal_pipe_syscalls *> installed{&real_calls};
} // namespace

namespace glr::pipe_io {

const glr_internal_pipe_syscalls &syscalls() { return *installed.load(std::memory_order_acquire); }

} // namespace glr::pipe_io

extern "C" {

void glr_internal_pipe_set_syscalls(const glr_internal_pipe_syscalls *calls)
{
    installed.store(calls ? calls : &real_calls, std::memory_order_release);
}

const glr_internal_pipe_syscalls *glr_internal_pipe_real_syscalls(void) { return &real_calls; }

} // extern "C"

#endif // GLREADER_TEST_SEAMS
