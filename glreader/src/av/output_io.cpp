#include "av/output_file.hpp"

#include "error.hpp"

extern "C" {
#include <libavutil/error.h>
#include <libavutil/mem.h>
}

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace glr {

output_file::output_file(const std::string &path, size_t chunk_size)
{
    fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd_ < 0)
        fail(-errno, "cannot open %s for writing: %s", path.c_str(), std::strerror(errno));
    // av_malloc aligns the buffer; AVIO hands it to write_packet a chunk at a time.
    auto *buffer = static_cast<unsigned char *>(av_malloc(chunk_size));
    if (buffer)
        avio_ = avio_alloc_context(buffer, static_cast<int>(chunk_size), 1, this, nullptr,
                                   write_packet, seek);
    if (!avio_) {
        av_free(buffer);
        ::close(fd_);
        fail(-ENOMEM, "out of memory for a %zu-byte output buffer", chunk_size);
    }
}

output_file::~output_file() { close(); }

#if LIBAVFORMAT_VERSION_MAJOR < 61
int output_file::write_packet(void *opaque, uint8_t *data, int size)
#else
int output_file::write_packet(void *opaque, const uint8_t *data, int size)
#endif
{
    auto *self = static_cast<output_file *>(opaque);
    if (self->write_error_)
        return AVERROR(-self->write_error_);
    int left = size;
    while (left > 0) {
        ssize_t n = ::write(self->fd_, data, static_cast<size_t>(left));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            self->write_error_ = n < 0 ? -errno : -EIO;
            return AVERROR(-self->write_error_);
        }
        data += n;
        left -= static_cast<int>(n);
        self->bytes_written_ += static_cast<uint64_t>(n);
    }
    return size;
}

int64_t output_file::seek(void *opaque, int64_t offset, int whence)
{
    auto *self = static_cast<output_file *>(opaque);
    if (whence & AVSEEK_SIZE) {
        struct stat st;
        return fstat(self->fd_, &st) == 0 ? st.st_size : AVERROR(errno);
    }
    off_t at = lseek(self->fd_, static_cast<off_t>(offset), whence & ~AVSEEK_FORCE);
    return at < 0 ? AVERROR(errno) : at;
}

int output_file::close()
{
    if (avio_) {
        avio_flush(avio_);
        av_freep(&avio_->buffer);
        avio_context_free(&avio_);
    }
    if (fd_ >= 0) {
        if (::close(fd_) != 0 && write_error_ == 0)
            write_error_ = -errno;
        fd_ = -1;
    }
    return write_error_;
}

} // namespace glr
