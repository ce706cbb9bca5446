// The reading end of a pipe for pipe-mode tests: a thread that reads raw frames (RGBA,
// top row first) in random small pieces with random pauses, a deliberately slow reader,
// and checks every byte against the pattern of the frame it should be.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <thread>

namespace glr_test {

struct reader_pace {
    int max_read = 8192;     // bytes per read(), at random from 1
    int max_pause_us = 100;  // pause after a read, at random from 0
};

class stream_reader {
public:
    // Reads fd (and closes it) until end of file. Frame k of the stream must be pattern
    // frame sequence_of(k).
    stream_reader(int fd, int width, int height, std::function<uint64_t(uint64_t)> sequence_of,
                  reader_pace pace = {}, unsigned seed = 1);
    ~stream_reader();
    stream_reader(const stream_reader &) = delete;
    stream_reader &operator=(const stream_reader &) = delete;

    // Waits for end of file. Then: bytes read, whole frames, the first wrong byte ("" if none).
    void join();
    uint64_t bytes() const { return bytes_; }
    uint64_t frames() const { return bytes_ / frame_bytes_; }
    const std::string &error() const { return error_; }

private:
    void run();
    void check(const uint8_t *data, size_t size);

    int fd_;
    int width_;
    uint64_t frame_bytes_;
    std::function<uint64_t(uint64_t)> sequence_of_;
    reader_pace pace_;
    std::mt19937 random_;
    uint64_t bytes_ = 0;
    std::string error_;
    std::thread thread_;
};

} // namespace glr_test
