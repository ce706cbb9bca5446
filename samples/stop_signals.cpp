#include "stop_signals.hpp"

#include <unistd.h>

#include <atomic>
#include <csignal>

namespace sample {

namespace {

std::atomic<int> first_signal{0};

void on_stop_signal(int signal)
{
    if (first_signal.exchange(signal) != 0)
        _exit(128 + signal);
}

} // namespace

void catch_stop_signals()
{
    std::signal(SIGINT, on_stop_signal);
    std::signal(SIGTERM, on_stop_signal);
}

int stop_signal() { return first_signal.load(); }

int stop_status()
{
    int signal = stop_signal();
    return signal ? 128 + signal : 0;
}

} // namespace sample
