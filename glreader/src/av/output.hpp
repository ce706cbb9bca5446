// One output of glr_encoder: the muxer and where its bytes go (output_io), holding any
// number of streams. Tracks add their streams to context() first; start() then writes the
// header, and only then may an existing file be replaced; write() muxes the packets of
// every stream, interleaved by libavformat; finish() writes the trailer.
#pragma once

#include "av/output_io.hpp"

#include "glreader/common.h"

extern "C" {
#include <libavformat/avformat.h>
}

#include <memory>
#include <string>

namespace glr {

class output {
public:
    // The muxer writing name with its options and metadata ("key=value" strings,
    // NULL-terminated, or NULL), and the I/O, created as `flags` (GLR_OUTPUT_*) say, written
    // in chunk_size blocks (0: 1 MiB); `interrupt` abandons writes that block. Throws with words: unreadable options, an
    // output that cannot be opened or is kept.
    output(const glr_log *log, const char *name, const AVOutputFormat *muxer, const char *format_options,
           const char *const *metadata, size_t chunk_size, unsigned flags, const glr_interrupt &interrupt);
    ~output();
    output(const output &) = delete;
    output &operator=(const output &) = delete;

    AVFormatContext *context() const { return context_; }
    const AVOutputFormat *muxer() const { return context_->oformat; }
    const std::string &what() const { return what_; }

    // Writes the header, streams all added; `video_codec` names the encoder in messages.
    // Throws when the muxer refuses them or an option it was given.
    void start(const char *video_codec);
    bool started() const { return started_; }
    // Muxes a packet (its reference is taken). Throws on a write error, naming the output.
    void write(AVPacket *packet);
    // The trailer; throws on a write error.
    void finish();
    // Whether a file whose writing failed plays what it holds, in words that follow "which"
    // in the error ("is finalized: it plays them", or why it does not): trailer_written
    // says whether finish() succeeded.
    std::string kept_after_failure(bool trailer_written) const;
    // After finish(), for a whole result: a GLR_OUTPUT_PART file takes its name (see
    // output_io::publish). Throws on failure.
    void publish() { io_->publish(); }
    // Flushes and closes the I/O; returns its first error, or 0. Call once, at the end.
    int close();
    // The output's size so far; after close, its final size.
    uint64_t bytes_written() const { return io_ ? io_->bytes_written() : final_bytes_; }

private:
    int io_error(int av_error) const;

    const glr_log *log_;
    AVFormatContext *context_ = nullptr;
    std::unique_ptr<output_io> io_;
    std::string what_; // the output in words, also once io_ is closed
    AVDictionary *options_ = nullptr;
    bool started_ = false;
    uint64_t final_bytes_ = 0;
};

} // namespace glr
