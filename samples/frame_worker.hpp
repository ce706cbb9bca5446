// A consumer thread for leased frames: push() hands a frame over, the worker runs a
// callback on it, and the lease is released on the worker's thread when the callback
// returns. The queue needs no bound of its own: the ring's depth bounds it.
#pragma once

#include "glreader/glreader.hpp"

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace sample {

class frame_worker {
public:
    explicit frame_worker(std::function<void(const glr::frame &)> work)
        : work_(std::move(work)), thread_([this] { run(); })
    {
    }
    ~frame_worker() { finish(); }
    frame_worker(const frame_worker &) = delete;
    frame_worker &operator=(const frame_worker &) = delete;

    void push(glr::frame &&frame)
    {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            queue_.push_back(std::move(frame));
        }
        changed_.notify_one();
    }

    // Processes every frame pushed so far, then stops the thread.
    void finish()
    {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            done_ = true;
        }
        changed_.notify_one();
        if (thread_.joinable())
            thread_.join();
    }

private:
    void run()
    {
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
            work_(frame);
        } // frame's destructor gives the slot back, on this thread
    }

    std::function<void(const glr::frame &)> work_;
    std::mutex mutex_;
    std::condition_variable changed_;
    std::deque<glr::frame> queue_;
    bool done_ = false;
    std::thread thread_;
};

} // namespace sample
