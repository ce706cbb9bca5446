// Where a muxer's bytes go, chosen from the output's name:
//  - a file path (or file:PATH): written by our own AVIO in large chunks, and created only
//    at commit(), once the header could be written: a setup that fails leaves an existing
//    file as it was. GLR_OUTPUT_NO_OVERWRITE creates it exclusively; GLR_OUTPUT_PART
//    writes PATH.part, locked while written, and publish() renames it to PATH;
//  - "-" (stdout) or pipe:N: the same writer on that file descriptor;
//  - a URL the linked libavformat has a protocol for (udp://, tcp://, srt://, ...): its
//    own AVIO, opened at once;
//  - nothing, for muxers that open their own files (image sequences) or none (null); an
//    image sequence's folder is its output, and is made at commit() when it is missing.
// Whether the output can seek is known before the header, so that muxers that need to
// seek can be switched to a streaming mode (fragmented MP4) or refused.
#pragma once

#include "glreader/av/encoder.h"

extern "C" {
#include <libavformat/avformat.h>
}

#include <cstdint>
#include <string>

namespace glr {

class output_io {
public:
    // Throws glr::failure naming the output when it cannot be opened, or when `flags`
    // (GLR_OUTPUT_*) refuse it: an existing file (-EEXIST), a .part for no file (-EINVAL).
    // `interrupt` (glreader/av/encoder.h) abandons a write to a pipe or socket that waits.
    output_io(const glr_log *log, const std::string &name, const AVOutputFormat *muxer, size_t chunk_size,
              unsigned flags, const glr_interrupt &interrupt);
    ~output_io();
    output_io(const output_io &) = delete;
    output_io &operator=(const output_io &) = delete;

    // The muxer's AVIO; NULL when the muxer needs none (AVFMT_NOFILE).
    AVIOContext *avio() const { return avio_; }
    // True when our own writer serves it (AVFMT_FLAG_CUSTOM_IO), false for a protocol's.
    bool custom() const { return fd_ >= 0 || !path_.empty(); }
    bool seekable() const { return seekable_; }
    // In words, for messages: the path, "standard output", "pipe:3", the URL.
    const std::string &what() const { return what_; }

    // The header was written: creates the file and writes what the header left buffered.
    // Throws naming the file when it cannot be created, or is taken (see the flags).
    void commit();
    // A GLR_OUTPUT_PART output is whole: flushes it to the disk and renames PATH.part to
    // PATH while it is still open and locked. Throws naming both on failure (the result
    // then stays in PATH.part). Nothing for other outputs.
    void publish();
    // The output's size so far: the end of what was written (a muxer that goes back and
    // rewrites, as MP4's faststart does, is not counted twice).
    uint64_t bytes_written() const;
    // First write error as a negative errno (or GLR_ERROR_CODEC from a protocol), or 0.
    int write_error() const;
    // Flushes and closes (a file descriptor we did not open stays open); returns the first
    // error, or 0.
    int close();

private:
#if LIBAVFORMAT_VERSION_MAJOR < 61
    static int write_packet(void *opaque, uint8_t *data, int size);
#else
    static int write_packet(void *opaque, const uint8_t *data, int size);
#endif
    static int64_t seek(void *opaque, int64_t offset, int whence);
    int write_all(const uint8_t *data, size_t size);
    ssize_t write_some(const uint8_t *data, size_t size);
    bool interrupted() const { return interrupt_.callback && interrupt_.callback(interrupt_.opaque); }
    void make_avio(size_t chunk_size);
    void open_file();
    void open_special();
    void open_part();
    void make_sequence_folder();

    const glr_log *log_;
    std::string what_;
    std::string path_;        // a file created at commit (with part_: its final name)
    std::string sequence_folder_; // an image sequence's, made at commit when missing
    bool no_overwrite_ = false;
    bool part_ = false;       // written as path_ + ".part", renamed by publish()
    std::string pending_;     // what the muxer wrote before commit
    int fd_ = -1;             // our writer's descriptor, once open
    bool own_fd_ = false;
    bool seekable_ = false;
    bool waits_for_reader_ = false; // a pipe, FIFO or socket: writes may wait for the reader
    bool nonblocking_ = false;      // our own descriptor, opened O_NONBLOCK
    glr_interrupt interrupt_;
    AVIOContext *avio_ = nullptr;
    bool protocol_ = false;   // avio_ is libavformat's (avio_open2)
    uint64_t position_ = 0; // where the next write lands
    uint64_t end_ = 0;      // the furthest byte written
    int write_error_ = 0;
};

} // namespace glr
