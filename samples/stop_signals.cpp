#include "stop_signals.hpp"

#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdio>

namespace sample {

namespace {

std::atomic<int> first_signal{0};
std::atomic<glr_export *> running_job{nullptr};

void on_stop_signal(int signal)
{
    if (first_signal.exchange(signal) != 0)
        _exit(128 + signal);
    if (glr_export *job = running_job.load())
        glr_export_cancel(job); // async-signal-safe
}

} // namespace

void catch_stop_signals()
{
    std::signal(SIGINT, on_stop_signal);
    std::signal(SIGTERM, on_stop_signal);
}

int run_cancelled_on_stop(glr_export *job)
{
    running_job = job;
    if (first_signal.load())
        glr_export_cancel(job);
    int rc = glr_export_run(job);
    running_job = nullptr;
    return rc;
}

int stop_signal() { return first_signal.load(); }

int stop_status()
{
    int signal = stop_signal();
    return signal ? 128 + signal : 0;
}

int end_after_job(int status, bool render_left_running)
{
    if (render_left_running) {
        std::fflush(stdout);
        std::fflush(stderr);
        _exit(status);
    }
    return status;
}

} // namespace sample
