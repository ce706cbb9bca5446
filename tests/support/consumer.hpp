// A consumer thread for ring tests: takes leased frames, holds each for a random time,
// checks its pixels just before releasing it (so a slot overwritten while leased shows),
// then releases it from its own thread.
#pragma once

#include "pattern_scene.hpp"

#include "glreader/glreader.hpp"

#include <condition_variable>
#include <deque>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace glr_test {

class delayed_consumer {
public:
    delayed_consumer(glr_flip flip, int max_delay_us, unsigned seed);
    ~delayed_consumer();

    void push(glr::frame &&frame);
    // Waits until every pushed frame was checked and released; returns what was seen.
    void finish();

    const std::vector<uint64_t> &sequences() const { return sequences_; }
    const std::vector<int64_t> &pts() const { return pts_; }
    const std::vector<std::string> &errors() const { return errors_; }

private:
    void run();

    glr_flip flip_;
    int max_delay_us_;
    std::mt19937 random_;
    std::mutex mutex_;
    std::condition_variable changed_;
    std::deque<glr::frame> queue_;
    bool done_ = false;
    std::vector<uint64_t> sequences_;
    std::vector<int64_t> pts_;
    std::vector<std::string> errors_;
    std::thread thread_;
};

} // namespace glr_test
