#include "consumer.hpp"

#include <chrono>

namespace glr_test {

delayed_consumer::delayed_consumer(glr_flip flip, int max_delay_us, unsigned seed)
    : flip_(flip), max_delay_us_(max_delay_us), random_(seed), thread_([this] { run(); })
{
}

delayed_consumer::~delayed_consumer() { finish(); }

void delayed_consumer::push(glr::frame &&frame)
{
    {
        std::lock_guard<std::mutex> lock(mutex_);
        queue_.push_back(std::move(frame));
    }
    changed_.notify_all();
}

void delayed_consumer::finish()
{
    {
        std::lock_guard<std::mutex> lock(mutex_);
        done_ = true;
    }
    changed_.notify_all();
    if (thread_.joinable())
        thread_.join();
}

void delayed_consumer::run()
{
    std::uniform_int_distribution<int> delay(0, max_delay_us_);
    for (;;) {
        glr::frame frame;
        {
            std::unique_lock<std::mutex> lock(mutex_);
            changed_.wait(lock, [&] { return done_ || !queue_.empty(); });
            if (queue_.empty())
                return;
            frame = std::move(queue_.front());
            queue_.pop_front();
        }
        // Hold the lease a while: capture meanwhile must not write into this slot.
        int us = max_delay_us_ > 0 ? delay(random_) : 0;
        if (us > 0)
            std::this_thread::sleep_for(std::chrono::microseconds(us));
        std::string error = check_frame(frame.c_frame(), static_cast<uint64_t>(frame.pts()), flip_);
        sequences_.push_back(frame.sequence());
        pts_.push_back(frame.pts());
        if (!error.empty() && errors_.size() < 5)
            errors_.push_back(error);
        frame.reset(); // released on this thread
    }
}

} // namespace glr_test
