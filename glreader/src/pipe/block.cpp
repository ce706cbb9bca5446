#include "pipe/block.hpp"

#include <algorithm>

namespace glr::pipe_io {

block block::memory(const void *data, size_t size)
{
    block b;
    b.first_row = static_cast<const uint8_t *>(data);
    b.stride = static_cast<ptrdiff_t>(size);
    b.row_bytes = size;
    b.rows = 1;
    b.key = data;
    return b;
}

block block::frame(glr_ring *ring, const glr_frame &f)
{
    block b;
    b.first_row = f.data;
    b.stride = f.stride;
    b.row_bytes = static_cast<size_t>(f.width) * static_cast<size_t>(glr_format_bytes_per_pixel(f.format));
    b.rows = static_cast<size_t>(f.height);
    if (b.stride == static_cast<ptrdiff_t>(b.row_bytes)) { // tightly packed: one run
        b.row_bytes *= b.rows;
        b.rows = 1;
    }
    b.key = f.data;
    b.ring = ring;
    b.lease = f;
    return b;
}

int block::gather(size_t offset, iovec *iov, int max_iov, size_t max_bytes) const
{
    int count = 0;
    size_t row = offset / row_bytes, in_row = offset % row_bytes;
    while (row < rows && count < max_iov && max_bytes > 0) {
        size_t take = std::min(row_bytes - in_row, max_bytes);
        iov[count].iov_base = const_cast<uint8_t *>(first_row + stride * static_cast<ptrdiff_t>(row)) + in_row;
        iov[count].iov_len = take;
        count++;
        max_bytes -= take;
        row++;
        in_row = 0;
    }
    return count;
}

} // namespace glr::pipe_io
