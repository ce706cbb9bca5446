#include "stream_reader.hpp"

#include "pattern_scene.hpp"

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <vector>

namespace glr_test {

stream_reader::stream_reader(int fd, int width, int height, std::function<uint64_t(uint64_t)> sequence_of,
                             reader_pace pace, unsigned seed)
    : fd_(fd), width_(width), frame_bytes_(static_cast<uint64_t>(width) * static_cast<uint64_t>(height) * 4),
      sequence_of_(std::move(sequence_of)), pace_(pace), random_(seed), thread_([this] { run(); })
{
}

stream_reader::~stream_reader() { join(); }

void stream_reader::join()
{
    if (thread_.joinable())
        thread_.join();
}

void stream_reader::run()
{
    std::vector<uint8_t> buffer(static_cast<size_t>(pace_.max_read));
    std::uniform_int_distribution<int> size(1, pace_.max_read), pause(0, pace_.max_pause_us);
    // Until end of file (the writer closed), or an error.
    for (ssize_t n; (n = read(fd_, buffer.data(), static_cast<size_t>(size(random_)))) != 0;) {
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            break;
        check(buffer.data(), static_cast<size_t>(n));
        if (int us = pause(random_))
            std::this_thread::sleep_for(std::chrono::microseconds(us)); // pace: a slow reader
    }
    close(fd_);
}

void stream_reader::check(const uint8_t *data, size_t size)
{
    for (size_t i = 0; i < size && error_.empty(); i++) {
        uint64_t at = bytes_ + i;
        uint64_t frame = at / frame_bytes_, in_frame = at % frame_bytes_;
        uint64_t row_bytes = static_cast<uint64_t>(width_) * 4;
        int y = static_cast<int>(in_frame / row_bytes), x = static_cast<int>(in_frame % row_bytes / 4);
        uint8_t want = pattern(sequence_of_(frame), x, y)[in_frame % 4];
        if (data[i] != want)
            error_ = "stream frame " + std::to_string(frame) + " (pattern " + std::to_string(sequence_of_(frame)) +
                     ") pixel (" + std::to_string(x) + "," + std::to_string(y) + ") byte " +
                     std::to_string(in_frame % 4) + " is " + std::to_string(data[i]) + ", expected " +
                     std::to_string(want);
    }
    bytes_ += size;
}

} // namespace glr_test
