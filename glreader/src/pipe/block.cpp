#include "pipe/block.hpp"

#include <algorithm>

namespace glr::pipe_io {

block block::memory(const void *data, size_t size)
{
    block b;
    b.runs[0] = {static_cast<const uint8_t *>(data), static_cast<ptrdiff_t>(size), size, 1};
    b.run_count = 1;
    b.key = data;
    return b;
}

block block::frame(const glr_frame &f)
{
    block b;
    const glr_format_info *info = glr_format_get_info(f.format);
    for (int p = 0; info && p < info->planes; p++) {
        run r{f.planes[p].data, f.planes[p].stride, f.planes[p].row_bytes, static_cast<size_t>(f.planes[p].rows)};
        if (r.stride == static_cast<ptrdiff_t>(r.row_bytes)) { // tightly packed: one run
            r.row_bytes *= r.rows;
            r.rows = 1;
        }
        b.runs[b.run_count++] = r;
    }
    b.key = f.planes[0].data;
    b.lease = f;
    return b;
}

size_t block::size() const
{
    size_t total = 0;
    for (int i = 0; i < run_count; i++)
        total += runs[i].size();
    return total;
}

int block::gather(size_t offset, iovec *iov, int max_iov, size_t max_bytes) const
{
    int count = 0;
    for (int i = 0; i < run_count && count < max_iov && max_bytes > 0; i++) {
        const run &r = runs[i];
        if (offset >= r.size()) {
            offset -= r.size();
            continue;
        }
        size_t row = offset / r.row_bytes, in_row = offset % r.row_bytes;
        offset = 0;
        while (row < r.rows && count < max_iov && max_bytes > 0) {
            size_t take = std::min(r.row_bytes - in_row, max_bytes);
            iov[count].iov_base = const_cast<uint8_t *>(r.first_row + r.stride * static_cast<ptrdiff_t>(row)) + in_row;
            iov[count].iov_len = take;
            count++;
            max_bytes -= take;
            row++;
            in_row = 0;
        }
    }
    return count;
}

} // namespace glr::pipe_io
