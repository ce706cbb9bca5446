#include "periodic_report.hpp"

namespace sample {

periodic_report::periodic_report(std::chrono::milliseconds interval, std::function<void()> report)
    : interval_(interval), report_(std::move(report)), thread_([this] { run(); })
{
}

bool periodic_report::stop()
{
    if (stopped_.exchange(true))
        return false;
    thread_.join();
    report_();
    return true;
}

void periodic_report::run()
{
    // Short sleeps, so that stop() never waits for a whole interval.
    auto next = std::chrono::steady_clock::now() + interval_;
    while (!stopped_) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        if (std::chrono::steady_clock::now() < next)
            continue;
        next += interval_;
        report_();
    }
}

} // namespace sample
