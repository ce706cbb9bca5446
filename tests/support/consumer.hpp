// A consumer for ring tests: a worker thread that holds each leased frame for a random
// time, checks its pixels just before releasing it (so a slot overwritten while leased
// shows), and releases it from its own thread.
#pragma once

#include "frame_worker.hpp"
#include "pattern_scene.hpp"

#include <random>
#include <string>
#include <vector>

namespace glr_test {

class delayed_consumer {
public:
    delayed_consumer(glr_flip flip, int max_delay_us, unsigned seed);

    void push(glr::frame &&frame) { worker_.push(std::move(frame)); }
    // Waits until every pushed frame was checked and released.
    void finish() { worker_.finish(); }

    // Valid after finish().
    const std::vector<uint64_t> &sequences() const { return sequences_; }
    const std::vector<int64_t> &pts() const { return pts_; }
    const std::vector<std::string> &errors() const { return errors_; }

private:
    void check(const glr::frame &frame);

    glr_flip flip_;
    std::mt19937 random_;
    std::uniform_int_distribution<int> delay_us_;
    std::vector<uint64_t> sequences_;
    std::vector<int64_t> pts_;
    std::vector<std::string> errors_;
    sample::frame_worker worker_; // last: its thread uses the members above
};

} // namespace glr_test
