/*
 * A syscall seam for glreader's own tests, compiled only into the test builds of the libraries (GLREADER_TEST_SEAMS, the
 * glreader-testing libraries), never into what is installed: EINTR, short
 * writes and EAGAIN cannot be produced on demand by a real pipe at a chosen moment.
 * Not for applications.
 */
#ifndef GLREADER_PIPE_SYSCALL_SEAM_H
#define GLREADER_PIPE_SYSCALL_SEAM_H

#include "glreader/common.h"

#include <sys/types.h>
#include <sys/uio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The calls the pipe writers make to move bytes, with the kernel's contract: return the
 * bytes taken, or -1 with errno set. */
struct glr_internal_pipe_syscalls {
    ssize_t (*writev)(int fd, const struct iovec *iov, int count);
    ssize_t (*vmsplice)(int fd, const struct iovec *iov, unsigned long count, unsigned int flags);
};

/* Makes every pipe writer use these calls from its next call on; NULL restores the real
 * ones. The table must outlive its use. */
GLR_API void glr_internal_pipe_set_syscalls(const struct glr_internal_pipe_syscalls *calls);

/* The real calls, for a test's wrapper to forward to. */
GLR_API const struct glr_internal_pipe_syscalls *glr_internal_pipe_real_syscalls(void);

#ifdef __cplusplus
}
#endif

#endif /* GLREADER_PIPE_SYSCALL_SEAM_H */
