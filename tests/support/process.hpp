// Programs run as a user runs them, for the end-to-end tests: a real process, its
// stdout and stderr captured in a log file.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace glr_test {

// Starts program (looked up in PATH) with args, stdout and stderr into the file log.
// extra_env: "NAME=value" entries added to this process's environment for the child.
// Under AddressSanitizer the child does not check for leaks: when a GL context is
// destroyed at exit, Mesa unloads its driver and loses small blocks no glreader code owns
// (the in-process suites check glreader's own memory with LeakSanitizer).
pid_t spawn(const std::string &program, const std::vector<std::string> &args, const std::string &log,
            const std::vector<std::string> &extra_env = {});

// How a child ended: its exit status, or the signal that killed it.
struct child_end {
    bool signaled;
    int code; // exit status, or signal number
};
child_end wait_end(pid_t pid);

// Waits for the child: its exit status, or 128 + the signal that ended it.
int wait_exit(pid_t pid);

// A program of this build that a test runs: the one of that name beside the test's own
// executable when there is one (scripts/gpu-bundle.sh puts programs and tests in one
// folder, which may be moved anywhere), else built_path, where the build tree put it.
std::string built_program(const std::string &built_path);

// The whole content of a text file ("" if unreadable).
std::string slurp(const std::string &path);

} // namespace glr_test
