#include "av/output_io.hpp"

#include "av/av_error.hpp"
#include "error.hpp"

extern "C" {
#include <libavutil/error.h>
#include <libavutil/mem.h>
}

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace glr {

namespace {

// "pipe:3" -> 3, "pipe:" -> 1 (as libavformat reads it); -1 when name is no pipe.
int pipe_fd(const std::string &name)
{
    if (name == "-")
        return STDOUT_FILENO;
    if (name.rfind("pipe:", 0) != 0)
        return -1;
    std::string number = name.substr(5);
    if (number.empty())
        return STDOUT_FILENO;
    char *end = nullptr;
    long fd = std::strtol(number.c_str(), &end, 10);
    if (*end || fd < 0 || fd > 1 << 20)
        fail(-EINVAL, "'%s' names no file descriptor (pipe:N, N a number)", name.c_str());
    return static_cast<int>(fd);
}

bool is_regular_seekable(int fd)
{
    struct stat st;
    return fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && lseek(fd, 0, SEEK_CUR) >= 0;
}

} // namespace

output_io::output_io(const std::string &name, const AVOutputFormat *muxer, size_t chunk_size) : what_(name)
{
    if (muxer->flags & AVFMT_NOFILE)
        return; // the muxer opens its own files, or writes nothing
    int fd = pipe_fd(name);
    const char *protocol = avio_find_protocol_name(name.c_str());
    if (fd >= 0) {
        struct stat st;
        if (fstat(fd, &st) != 0)
            fail(-errno, "cannot write to %s: %s", name == "-" ? "standard output" : name.c_str(), std::strerror(errno));
        what_ = fd == STDOUT_FILENO ? "standard output" : name;
        fd_ = fd;
        seekable_ = is_regular_seekable(fd);
    } else if (!protocol || std::strcmp(protocol, "file") == 0) {
        path_ = name.rfind("file:", 0) == 0 ? name.substr(5) : name;
        what_ = path_;
        // Something that exists and is not a regular file (a FIFO, a device) cannot seek.
        struct stat st;
        seekable_ = stat(path_.c_str(), &st) != 0 || S_ISREG(st.st_mode);
    } else {
        int rc = avio_open2(&avio_, name.c_str(), AVIO_FLAG_WRITE, nullptr, nullptr);
        if (rc < 0)
            fail(code_of_av_error(rc), "cannot open %s for writing: %s", name.c_str(), av_error_text(rc).c_str());
        protocol_ = true;
        seekable_ = avio_->seekable & AVIO_SEEKABLE_NORMAL;
        return;
    }
    make_avio(chunk_size);
}

void output_io::make_avio(size_t chunk_size)
{
    // av_malloc aligns the buffer; AVIO hands it to write_packet a chunk at a time.
    auto *buffer = static_cast<unsigned char *>(av_malloc(chunk_size));
    if (buffer)
        avio_ = avio_alloc_context(buffer, static_cast<int>(chunk_size), 1, this, nullptr, write_packet,
                                   seekable_ ? seek : nullptr);
    if (!avio_) {
        av_free(buffer);
        fail(-ENOMEM, "out of memory for a %zu-byte output buffer", chunk_size);
    }
    if (!seekable_)
        avio_->seekable = 0; // muxers then write what needs no going back
}

output_io::~output_io() { close(); }

void output_io::commit()
{
    if (path_.empty() || fd_ >= 0)
        return;
    fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd_ < 0)
        fail(-errno, "cannot open %s for writing: %s", path_.c_str(), std::strerror(errno));
    own_fd_ = true;
    std::string pending;
    pending.swap(pending_);
    if (int rc = write_all(reinterpret_cast<const uint8_t *>(pending.data()), pending.size()); rc < 0)
        fail(rc, "writing %s failed: %s", path_.c_str(), std::strerror(-rc));
}

int output_io::write_all(const uint8_t *data, size_t size)
{
    while (size > 0) {
        ssize_t n = ::write(fd_, data, size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return write_error_ = n < 0 ? -errno : -EIO;
        data += n;
        size -= static_cast<size_t>(n);
        position_ += static_cast<uint64_t>(n);
        end_ = std::max(end_, position_);
    }
    return 0;
}

#if LIBAVFORMAT_VERSION_MAJOR < 61
int output_io::write_packet(void *opaque, uint8_t *data, int size)
#else
int output_io::write_packet(void *opaque, const uint8_t *data, int size)
#endif
{
    auto *self = static_cast<output_io *>(opaque);
    if (self->write_error_)
        return AVERROR(-self->write_error_);
    if (self->fd_ < 0) { // before commit: kept until the file may be created
        self->pending_.append(reinterpret_cast<const char *>(data), static_cast<size_t>(size));
        return size;
    }
    int rc = self->write_all(data, static_cast<size_t>(size));
    return rc < 0 ? AVERROR(-rc) : size;
}

int64_t output_io::seek(void *opaque, int64_t offset, int whence)
{
    auto *self = static_cast<output_io *>(opaque);
    if (self->fd_ < 0)
        return AVERROR(ENOSYS); // nothing to seek in before the file exists
    if (whence & AVSEEK_SIZE) {
        struct stat st;
        return fstat(self->fd_, &st) == 0 ? st.st_size : AVERROR(errno);
    }
    off_t at = lseek(self->fd_, static_cast<off_t>(offset), whence & ~AVSEEK_FORCE);
    if (at < 0)
        return AVERROR(errno);
    self->position_ = static_cast<uint64_t>(at);
    return at;
}

int output_io::write_error() const
{
    if (write_error_ == 0 && protocol_ && avio_ && avio_->error < 0)
        return code_of_av_error(avio_->error);
    return write_error_;
}

uint64_t output_io::bytes_written() const
{
    if (protocol_ && avio_)
        return static_cast<uint64_t>(std::max<int64_t>(0, avio_tell(avio_)));
    return end_;
}

int output_io::close()
{
    if (protocol_) {
        if (avio_) {
            end_ = bytes_written();
            avio_flush(avio_);
            if (avio_->error < 0 && write_error_ == 0)
                write_error_ = code_of_av_error(avio_->error);
            avio_closep(&avio_);
        }
        return write_error_;
    }
    if (avio_) {
        avio_flush(avio_);
        av_freep(&avio_->buffer);
        avio_context_free(&avio_);
    }
    if (fd_ >= 0 && own_fd_ && ::close(fd_) != 0 && write_error_ == 0)
        write_error_ = -errno;
    fd_ = -1;
    return write_error_;
}

} // namespace glr
