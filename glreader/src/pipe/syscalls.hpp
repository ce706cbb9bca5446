// The syscalls the pipe writers move bytes with, behind a seam that tests can replace
// (syscall_seam.h).
#pragma once

#include "pipe/syscall_seam.h"

namespace glr::pipe_io {

// The table in use now: the real calls unless a test installed others.
const glr_internal_pipe_syscalls &syscalls();

} // namespace glr::pipe_io
