#include "process.hpp"

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <fstream>
#include <map>
#include <mutex>
#include <regex>
#include <sstream>
#include <string_view>
#include <thread>

extern char **environ;

#ifdef GLR_TEST_KEEP_LIBRARIES_LOADED
extern "C" void __asan_init();
#endif

namespace glr_test {

namespace {

using clock_type = std::chrono::steady_clock;

std::string seconds_text(std::chrono::milliseconds limit) { return std::to_string(limit.count() / 1000) + " s"; }

// Each spawned child's log, until it is waited for and its log read for sanitizer reports
// and for library names; debug: the child was asked for a debug log, which names them.
struct child_log {
    std::string path;
    bool debug = false;
};
std::mutex logs_mutex;
std::map<pid_t, child_log> logs_of_children;

// The first line of text in which a glreader function's name opens what the user is told
// (at the start of the line, or after a program's or FFmpeg's prefix): "" when none. Those
// names are the library's, for its debug log; users never typed them.
std::string line_opened_by_library_name(const std::string &text)
{
    static const std::regex named(R"((^|: |\] )glr_[a-z0-9_]+: )");
    size_t start = 0;
    while (start < text.size()) {
        size_t end = text.find('\n', start);
        std::string line = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
        if (std::regex_search(line, named))
            return line;
        if (end == std::string::npos)
            break;
        start = end + 1;
    }
    return "";
}

// tests/sanitizer_words.txt: the first lines of sanitizer reports ("report"),
// LeakSanitizer's words when its stop-the-world scan itself fails ("scan-failed": threads
// that come and go at exit), and what a test says then ("child-scan-failed"): no leak was
// found or ruled out.
struct sanitizer_word {
    const char *kind, *text;
};
constexpr sanitizer_word sanitizer_words[] = {
#include "sanitizer_words.inc"
};

const char *sanitizer_word_of(std::string_view kind)
{
    for (const sanitizer_word &w : sanitizer_words)
        if (kind == w.kind)
            return w.text;
    throw std::logic_error("tests/sanitizer_words.txt has no " + std::string(kind));
}

// The first line of a sanitizer's report in text and the lines after it, or "".
std::string sanitizer_report(const std::string &text)
{
    for (const sanitizer_word &w : sanitizer_words) {
        if (std::string_view(w.kind) != "report")
            continue;
        size_t at = text.find(w.text);
        if (at != std::string::npos) {
            size_t line = text.rfind('\n', at);
            return text.substr(line == std::string::npos ? 0 : line + 1, 3000);
        }
    }
    return "";
}

#ifdef GLR_TEST_KEEP_LIBRARIES_LOADED
// The path of the AddressSanitizer runtime this program runs with (the one an instrumented
// child loads too, by its soname).
std::string sanitizer_runtime()
{
    Dl_info info{};
    if (!dladdr(reinterpret_cast<void *>(&__asan_init), &info) || !info.dli_fname)
        throw std::runtime_error("AddressSanitizer's runtime is not found");
    return info.dli_fname;
}
#endif

} // namespace

std::chrono::milliseconds wait_limit(std::chrono::seconds base)
{
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    return 3 * base;
#else
    return base;
#endif
}

pid_t spawn(const std::string &program, const std::vector<std::string> &args, const std::string &log,
            const std::vector<std::string> &extra_env)
{
    std::vector<std::string> argv_storage{program};
    argv_storage.insert(argv_storage.end(), args.begin(), args.end());
    std::vector<char *> argv;
    for (std::string &a : argv_storage)
        argv.push_back(a.data());
    argv.push_back(nullptr);

    // An extra variable replaces the inherited one of its name (getenv takes the first of
    // two, so appending would leave the caller's in force).
    auto overridden = [&](const char *entry) {
        for (const char *ours : {"ASAN_OPTIONS=", "UBSAN_OPTIONS=", "LSAN_OPTIONS=", "LD_PRELOAD="})
            if (std::strncmp(entry, ours, std::strlen(ours)) == 0)
                return true;
        for (const std::string &extra : extra_env)
            if (size_t eq = extra.find('='); eq != std::string::npos && std::strncmp(entry, extra.c_str(), eq + 1) == 0)
                return true;
        return false;
    };
    std::vector<std::string> env_storage;
    for (char **e = environ; *e; e++)
        if (!overridden(*e))
            env_storage.push_back(*e);
    const char *asan = std::getenv("ASAN_OPTIONS"), *ubsan = std::getenv("UBSAN_OPTIONS");
    const std::string exit_code = ":exitcode=" + std::to_string(sanitizer_exit_code);
#ifdef GLR_TEST_KEEP_LIBRARIES_LOADED
    // Leaks checked, with the GL driver kept loaded to the end (keep_libraries_loaded.c).
    // A preload the caller asked for (into an instrumented child: the filters' ffmpeg) comes
    // after AddressSanitizer's runtime, as in a program it instruments, and before that one:
    // where the caller's wraps dlsym (unsignalled_fences.c), the runtime's lookups of the
    // functions it wraps (dlsym(RTLD_NEXT)) go through it and find what follows it, as they
    // would from the runtime itself (keep_libraries_loaded.c's dlclose included).
    env_storage.push_back(std::string("ASAN_OPTIONS=") + (asan ? asan : "") +
                          ":detect_leaks=1:verify_asan_link_order=0" + exit_code);
    std::string preload = "LD_PRELOAD=";
    for (const std::string &extra : extra_env)
        if (extra.rfind("LD_PRELOAD=", 0) == 0)
            preload += sanitizer_runtime() + ":" + extra.substr(std::strlen("LD_PRELOAD=")) + ":";
    env_storage.push_back(preload + GLR_TEST_KEEP_LIBRARIES_LOADED);
    env_storage.push_back("LSAN_OPTIONS=print_suppressions=0:suppressions=" GLR_TEST_CHILD_LSAN_SUPPRESSIONS);
#else
    env_storage.push_back(std::string("ASAN_OPTIONS=") + (asan ? asan : "") + exit_code);
#endif
    env_storage.push_back(std::string("UBSAN_OPTIONS=") + (ubsan ? ubsan : "") + exit_code);
    for (const std::string &extra : extra_env)
#ifdef GLR_TEST_KEEP_LIBRARIES_LOADED
        if (extra.rfind("LD_PRELOAD=", 0) != 0) // joined with the one above
#endif
            env_storage.push_back(extra);
    std::vector<char *> env;
    for (std::string &e : env_storage)
        env.push_back(e.data());
    env.push_back(nullptr);

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    pid_t pid = -1;
    int rc = posix_spawnp(&pid, program.c_str(), &actions, nullptr, argv.data(), env.data());
    posix_spawn_file_actions_destroy(&actions);
    // Thrown, so that the test stops here (GoogleTest fails it): a pid of -1 must never
    // reach kill(), which would signal every process of the user.
    if (rc != 0 || pid <= 0)
        throw std::runtime_error("cannot start " + program + ": " + std::strerror(rc ? rc : ECHILD));
    bool debug = false;
    for (const std::string &arg : args)
        debug = debug || arg == "debug" || arg == "trace";
    std::lock_guard<std::mutex> lock(logs_mutex);
    logs_of_children[pid] = {log, debug};
    return pid;
}

child_end wait_end(pid_t pid, std::chrono::milliseconds limit)
{
    // No child (spawn failed, and said so): never kill(-1), which signals every process.
    if (pid <= 0) {
        ADD_FAILURE() << "no process to wait for (pid " << pid << ")";
        return child_end{true, SIGKILL};
    }
    // A pidfd becomes readable when the child ends: poll it with the deadline.
    int pidfd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
    int ready = 0;
    if (pidfd < 0) {
        ADD_FAILURE() << "pidfd_open(" << pid << "): " << std::strerror(errno) << ": killed";
    } else {
        auto deadline = clock_type::now() + limit;
        pollfd p{pidfd, POLLIN, 0};
        do {
            auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock_type::now());
            ready = poll(&p, 1, static_cast<int>(std::max<long long>(left.count(), 0)));
        } while (ready < 0 && errno == EINTR);
        close(pidfd);
    }
    if (ready <= 0) {
        ADD_FAILURE() << "process " << pid << " did not end within " << seconds_text(limit) << ": killed";
        kill(pid, SIGKILL);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    child_end end = WIFEXITED(status) ? child_end{false, WEXITSTATUS(status)} : child_end{true, WTERMSIG(status)};
    std::string log;
    bool debug = false;
    {
        std::lock_guard<std::mutex> lock(logs_mutex);
        if (auto it = logs_of_children.find(pid); it != logs_of_children.end()) {
            log = it->second.path;
            debug = it->second.debug;
            logs_of_children.erase(it);
        }
    }
    if (!log.empty()) {
        std::string text = slurp(log), report = sanitizer_report(text);
        if (!report.empty())
            ADD_FAILURE() << "a sanitizer reported in the child whose log is " << log << " (exit "
                          << (end.signaled ? 128 + end.code : end.code) << "):\n" << report;
        else if (text.find(sanitizer_word_of("scan-failed")) != std::string::npos)
            // The tool's own failure, not a report: scripts/test.sh runs such a test once more
            // (tests/lsan_scan_failures.py), as it does for LeakSanitizer in the tests.
            ADD_FAILURE() << sanitizer_word_of("child-scan-failed") << " (" << log << ")";
        else if (!end.signaled && end.code == sanitizer_exit_code)
            ADD_FAILURE() << "the child whose log is " << log << " exited with the sanitizers' status "
                          << sanitizer_exit_code << " and no report:\n" << text.substr(0, 3000);
        if (std::string named = debug ? "" : line_opened_by_library_name(text); !named.empty())
            ADD_FAILURE() << "the child whose log is " << log << " tells its user a library function's name:\n"
                          << named;
    }
    return end;
}

std::vector<std::string> fences_in_flight(long polls)
{
    return {"LD_PRELOAD=" GLR_TEST_UNSIGNALLED_FENCES, "GLR_TEST_UNSIGNALLED_POLLS=" + std::to_string(polls)};
}

long polls_answered(const std::string &log_text)
{
    const std::string said = "unsignalled_fences: ";
    size_t at = log_text.rfind(said);
    return at == std::string::npos ? -1 : std::atol(log_text.c_str() + at + said.size());
}

std::vector<std::string> within_memory(size_t bytes, const std::string &program, const std::vector<std::string> &args)
{
#if defined(__SANITIZE_ADDRESS__)
    (void)bytes;
    std::vector<std::string> all{"--", program};
#else
    std::vector<std::string> all{"--data=" + std::to_string(bytes), "--", program};
#endif
    all.insert(all.end(), args.begin(), args.end());
    return all;
}

int wait_exit(pid_t pid, std::chrono::milliseconds limit)
{
    child_end end = wait_end(pid, limit);
    return end.signaled ? 128 + end.code : end.code;
}

bool running(pid_t pid)
{
    siginfo_t info{};
    // WNOWAIT: look without reaping, so that wait_end still gives the status.
    return waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == 0;
}

bool wait_until(const std::function<bool()> &happened, const std::string &what,
                const std::function<bool()> &still_possible, std::chrono::milliseconds limit)
{
    auto deadline = clock_type::now() + limit;
    while (!happened()) {
        if (still_possible && !still_possible()) {
            if (happened()) // it happened just before it became impossible
                return true;
            ADD_FAILURE() << "gave up waiting for " << what << ": it can no longer happen";
            return false;
        }
        if (clock_type::now() > deadline) {
            ADD_FAILURE() << what << " did not happen within " << seconds_text(limit);
            return false;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5)); // pace: a poll's interval
    }
    return true;
}

bool wait_for_log(pid_t pid, const std::string &log, const std::string &text, std::chrono::milliseconds limit)
{
    bool seen = wait_until([&] { return slurp(log).find(text) != std::string::npos; },
                           "the line '" + text + "' in " + log, [&] { return running(pid); }, limit);
    if (!seen)
        ADD_FAILURE() << "the log so far:\n" << slurp(log);
    return seen;
}

bool loopback_port_bound(const char *protocol, int port)
{
    // Lines: "sl local_address rem_address st ...", addresses as HEX_IP:HEX_PORT, the
    // IPv4 address in the kernel's byte order; state 0A is TCP_LISTEN.
    std::ifstream table(std::string("/proc/net/") + protocol);
    std::string line;
    std::getline(table, line);
    char wanted[32];
    std::snprintf(wanted, sizeof wanted, "%08X:%04X", htonl(INADDR_LOOPBACK), static_cast<unsigned>(port));
    while (std::getline(table, line)) {
        std::istringstream fields(line);
        std::string slot, local, remote, state;
        fields >> slot >> local >> remote >> state;
        if (local == wanted && (std::string(protocol) != "tcp" || state == "0A"))
            return true;
    }
    return false;
}

int free_loopback_port()
{
    int s = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t size = sizeof address;
    int port = -1;
    if (s >= 0 && bind(s, reinterpret_cast<sockaddr *>(&address), sizeof address) == 0 &&
        getsockname(s, reinterpret_cast<sockaddr *>(&address), &size) == 0)
        port = ntohs(address.sin_port);
    if (s >= 0)
        close(s);
    EXPECT_GT(port, 0) << "no free port on 127.0.0.1: " << std::strerror(errno);
    return port;
}

std::string built_program(const std::string &built_path)
{
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return built_path;
    std::string own(self, static_cast<size_t>(n));
    std::string beside = own.substr(0, own.rfind('/') + 1) + built_path.substr(built_path.rfind('/') + 1);
    return access(beside.c_str(), X_OK) == 0 ? beside : built_path;
}

std::string slurp(const std::string &path)
{
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

int run_logged(const std::string &program, const std::vector<std::string> &args, const std::string &log,
               std::string &output)
{
    int rc = wait_exit(spawn(program, args, log));
    output = slurp(log);
    return rc;
}

} // namespace glr_test
