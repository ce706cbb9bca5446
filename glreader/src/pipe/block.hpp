// One queued write: rows of bytes in the caller's memory or the planes of a leased frame,
// gathered into iovecs at write time, never copied.
#pragma once

#include "glreader/ring.h"

#include <sys/uio.h>

#include <cstddef>
#include <cstdint>

namespace glr::pipe_io {

struct block {
    // A run of rows: a plane of a frame, or the caller's memory as one row.
    struct run {
        const uint8_t *first_row = nullptr;
        ptrdiff_t stride = 0; // bytes from one row to the next, any sign
        size_t row_bytes = 0;
        size_t rows = 0;
        size_t size() const { return row_bytes * rows; }
    };
    run runs[4];
    int run_count = 0;
    const void *key = nullptr; // what glr_pipe_sync waits on: the address the caller gave
    glr_frame lease{};         // a frame to release once out (lease.ring_ set), or none
    uint64_t queued_ns = 0;
    uint64_t end_offset = 0; // bytes pushed into the fd up to this block's end
    bool spliced = false;    // some of its bytes went by vmsplice

    static block memory(const void *data, size_t size);
    static block frame(const glr_frame &f);

    size_t size() const;
    bool has_lease() const { return lease.ring_ != nullptr; }
    void release_lease() { glr_frame_release(&lease); }

    // Fills iov with the bytes from offset on, at most max_bytes of them in at most
    // max_iov entries. Returns the number of entries (0 only when nothing is left).
    int gather(size_t offset, iovec *iov, int max_iov, size_t max_bytes) const;
};

} // namespace glr::pipe_io
