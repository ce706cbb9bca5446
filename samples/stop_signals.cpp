#include "stop_signals.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <mutex>
#include <thread>

namespace sample {

namespace {

using clock = std::chrono::steady_clock;

// Long enough for work that checks the signal between frames to answer it itself.
constexpr auto grace = std::chrono::milliseconds(500);
constexpr auto poll_interval = std::chrono::milliseconds(50);

std::atomic<int> first_signal{0};
void (*stop_action)() = nullptr;

void on_stop_signal(int signal)
{
    if (first_signal.exchange(signal) != 0)
        _exit(128 + signal);
    if (stop_action)
        stop_action();
}

// The watchdog's view of the program's thread, under `watch`.
struct watch_state {
    std::mutex mutex;
    bool busy = false;
    clock::time_point since;
    double limit_seconds = 0;
    std::string limit_message;
    std::function<void()> abandon;
};

watch_state &watch()
{
    static watch_state state;
    return state;
}

[[noreturn]] void watchdog()
{
    watch_state &w = watch();
    clock::time_point signal_seen{};
    for (;;) {
        std::this_thread::sleep_for(poll_interval);
        std::lock_guard<std::mutex> lock(w.mutex);
        int signal = first_signal.load();
        clock::time_point now = clock::now();
        if (signal && signal_seen == clock::time_point{})
            signal_seen = now;
        if (!w.busy)
            continue;
        if (signal && now - std::max(signal_seen, w.since) >= grace) {
            // The lock stays held: the program's thread waits at its section's end.
            if (w.abandon)
                w.abandon();
            _exit(128 + signal);
        }
        if (w.limit_seconds > 0 && std::chrono::duration<double>(now - w.since).count() > w.limit_seconds) {
            std::fprintf(stderr, "\n%s\n", w.limit_message.c_str());
            if (w.abandon)
                w.abandon();
            _exit(1);
        }
    }
}

void enter(double limit_seconds, std::string limit_message)
{
    static std::once_flag started;
    std::call_once(started, [] { std::thread(watchdog).detach(); });
    watch_state &w = watch();
    std::lock_guard<std::mutex> lock(w.mutex);
    w.busy = true;
    w.since = clock::now();
    w.limit_seconds = limit_seconds;
    w.limit_message = std::move(limit_message);
}

void leave()
{
    watch_state &w = watch();
    std::lock_guard<std::mutex> lock(w.mutex);
    w.busy = false;
}

} // namespace

void catch_stop_signals(void (*on_stop)())
{
    stop_action = on_stop;
    std::signal(SIGINT, on_stop_signal);
    std::signal(SIGTERM, on_stop_signal);
}

int stop_signal() { return first_signal.load(); }

int stop_status()
{
    int signal = stop_signal();
    return signal ? 128 + signal : 0;
}

busy_section::busy_section(double limit_seconds, std::string limit_message)
{
    enter(limit_seconds, std::move(limit_message));
}

busy_section::~busy_section() { leave(); }

outside_section::outside_section() { leave(); }

outside_section::~outside_section() { enter(0, {}); }

void on_abandon(std::function<void()> action)
{
    watch_state &w = watch();
    std::lock_guard<std::mutex> lock(w.mutex);
    w.abandon = std::move(action);
}

} // namespace sample
