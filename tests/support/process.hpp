// Programs run as a user runs them, for the end-to-end tests: a real process, its
// stdout and stderr captured in a log file. Every wait here has a deadline, so a hung
// program fails its test (and is killed) instead of stalling the suite; the deadlines are
// generous bounds against hangs, never claims about speed.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace glr_test {

// The bound on one wait for an event or a child: `base`, three times longer in sanitizer
// builds (which run everything several times slower). Below the shortest ctest TIMEOUT
// (300 s), so that a wait that runs out says what it waited for.
std::chrono::milliseconds wait_limit(std::chrono::seconds base = std::chrono::seconds(240));

// Environment for a child whose shaders must compile afresh: Mesa's and NVIDIA's disk
// caches of compiled shaders off.
inline const std::vector<std::string> no_shader_disk_cache = {"MESA_SHADER_CACHE_DISABLE=true",
                                                               "__GL_SHADER_DISK_CACHE=0"};

// What a child built with a sanitizer exits with when the sanitizer reports: none of the
// programs' own statuses (they refuse with 1 or 2), so a report never passes for a refusal.
constexpr int sanitizer_exit_code = 66;

// Starts program (looked up in PATH) with args, stdout and stderr into the file log; throws
// (failing the test) when it cannot start.
// extra_env: "NAME=value" entries added to this process's environment for the child.
// Under AddressSanitizer the child checks for leaks, with dlclose made a no-op by a
// preload: when the last GL context goes at exit, Mesa unloads its driver and would lose
// small blocks no glreader code owns.
// A sanitizer's report ends the child with sanitizer_exit_code, and once the child is
// waited for (wait_end, wait_exit, run_logged), a report in its log fails the test that
// ran it, whatever the test then checks; so does a line that opens what it tells its user
// with a glreader function's name (unless an argument asked for a debug log).
pid_t spawn(const std::string &program, const std::vector<std::string> &args, const std::string &log,
            const std::vector<std::string> &extra_env = {});

// How a child ended: its exit status, or the signal that killed it.
struct child_end {
    bool signaled;
    int code; // exit status, or signal number
};
// The arguments that run program with args under prlimit (util-linux), its data (the heap
// and private writable mappings) held to `bytes`: a child that would take more fails to
// allocate, and says something else than a test expects. (A child's peak memory cannot be
// read once it ended: a spawned child's maxrss counts the memory of its parent, which it
// shared until its exec.) Not under AddressSanitizer, whose shadow memory no such bound
// holds: there the arguments run program as it is.
std::vector<std::string> within_memory(size_t bytes, const std::string &program, const std::vector<std::string> &args);

// The environment (for spawn's extra_env) under which a child that links the installed
// glreader (the filters' ffmpeg, where no test seam is) finds the first `polls` polls of
// its GL fences not signalled, as a GPU still copying or converting would
// (support/unsignalled_fences.c, preloaded); it says at its exit how many it answered,
// which polls_answered reads from its log (-1 when it did not say).
std::vector<std::string> fences_in_flight(long polls);
long polls_answered(const std::string &log_text);

// Waits for the child to end. Past `limit` the test fails, naming the child, and the
// child is killed (SIGKILL) and reaped.
child_end wait_end(pid_t pid, std::chrono::milliseconds limit = wait_limit());

// Waits for the child (as wait_end): its exit status, or 128 + the signal that ended it.
int wait_exit(pid_t pid, std::chrono::milliseconds limit = wait_limit());

// Whether the child has not ended yet (it is not reaped: wait_end still gives its end).
bool running(pid_t pid);

// Polls `happened` every few milliseconds until it holds (true), or until `limit` has
// passed or `still_possible` says it never will (false, with a test failure naming `what`).
bool wait_until(const std::function<bool()> &happened, const std::string &what,
                const std::function<bool()> &still_possible = {}, std::chrono::milliseconds limit = wait_limit());

// Waits until the child's log holds `text` (true); fails the test, naming the text and
// quoting the log, when the child ends first or the limit passes.
bool wait_for_log(pid_t pid, const std::string &log, const std::string &text,
                  std::chrono::milliseconds limit = wait_limit());

// Whether a socket of this machine is bound to 127.0.0.1:port: listening, for "tcp", or
// bound at all, for "udp" (from /proc/net/tcp and /proc/net/udp).
bool loopback_port_bound(const char *protocol, int port);

// A TCP port on 127.0.0.1 that nothing was bound to a moment ago (the kernel's choice).
int free_loopback_port();

// A program of this build that a test runs: the one of that name beside the test's own
// executable when there is one (scripts/gpu-bundle.sh puts programs and tests in one
// folder, which may be moved anywhere), else built_path, where the build tree put it.
std::string built_program(const std::string &built_path);

// The whole content of a text file ("" if unreadable).
std::string slurp(const std::string &path);

// Runs program with args to its end, its output into the file log; output gets what it
// wrote there. Returns its exit status, as wait_exit does.
int run_logged(const std::string &program, const std::vector<std::string> &args, const std::string &log,
               std::string &output);

} // namespace glr_test
