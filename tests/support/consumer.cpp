#include "consumer.hpp"

#include <chrono>
#include <thread>

namespace glr_test {

delayed_consumer::delayed_consumer(glr_flip flip, int max_delay_us, unsigned seed)
    : flip_(flip), random_(seed), delay_us_(0, max_delay_us),
      worker_([this](const glr::frame &frame) { check(frame); })
{
}

void delayed_consumer::check(const glr::frame &frame)
{
    // Hold the lease a while: capture meanwhile must not write into this slot.
    int us = delay_us_(random_);
    if (us > 0)
        std::this_thread::sleep_for(std::chrono::microseconds(us)); // pace: a slow consumer
    std::string error = check_frame(frame.c_frame(), static_cast<uint64_t>(frame.pts()), flip_);
    sequences_.push_back(frame.sequence());
    pts_.push_back(frame.pts());
    if (!error.empty() && errors_.size() < 5)
        errors_.push_back(error);
}

} // namespace glr_test
