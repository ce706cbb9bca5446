// Progress that goes on while the program's own thread waits (on a frame that renders for
// long, on an output that stalls): a thread that calls `report` every `interval`, and once
// more when stopped.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <thread>

namespace sample {

class periodic_report {
public:
    periodic_report(std::chrono::milliseconds interval, std::function<void()> report);
    ~periodic_report() { stop(); }
    periodic_report(const periodic_report &) = delete;
    periodic_report &operator=(const periodic_report &) = delete;

    // Ends the reports after a last one; false when they had already ended. Any thread.
    bool stop();

private:
    void run();

    std::chrono::milliseconds interval_;
    std::function<void()> report_;
    std::atomic<bool> stopped_{false};
    std::thread thread_; // last: it starts once the rest is ready
};

} // namespace sample
