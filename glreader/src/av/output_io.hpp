// The muxer's output: an AVIOContext whose buffer is one write chunk, so the file is
// written in large, aligned blocks, with write errors (ENOSPC, EIO) kept for the caller.
#pragma once

extern "C" {
#include <libavformat/avio.h>
}

#include <cstdint>
#include <string>

namespace glr {

class output_file {
public:
    // Opens (creates, truncates) path; throws glr::failure naming it when it cannot.
    output_file(const std::string &path, size_t chunk_size);
    ~output_file();
    output_file(const output_file &) = delete;
    output_file &operator=(const output_file &) = delete;

    AVIOContext *avio() const { return avio_; }
    uint64_t bytes_written() const { return bytes_written_; }
    // First write error as a negative errno, or 0.
    int write_error() const { return write_error_; }
    // Flushes what is buffered and closes the file; returns the first error, or 0.
    int close();

private:
#if LIBAVFORMAT_VERSION_MAJOR < 61
    static int write_packet(void *opaque, uint8_t *data, int size);
#else
    static int write_packet(void *opaque, const uint8_t *data, int size);
#endif
    static int64_t seek(void *opaque, int64_t offset, int whence);

    int fd_ = -1;
    AVIOContext *avio_ = nullptr;
    uint64_t bytes_written_ = 0;
    int write_error_ = 0;
};

} // namespace glr
