#include "av/output_io.hpp"

#include "av/av_error.hpp"
#include "error.hpp"

extern "C" {
#include <libavutil/error.h>
#include <libavutil/mem.h>
}

#include <fcntl.h>
#include <poll.h>
#include <sys/uio.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

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

// The folder an image sequence's first picture goes to ("" for the working folder): the
// muxer opens each picture itself, and fails on a folder that does not exist.
std::string folder_of_first_picture(const std::string &name)
{
    std::string path = name.rfind("file:", 0) == 0 ? name.substr(5) : name;
    std::vector<char> first(path.size() + 32);
    if (av_get_frame_filename2(first.data(), static_cast<int>(first.size()), path.c_str(), 1,
                               AV_FRAME_FILENAME_FLAGS_MULTIPLE) == 0)
        path = first.data();
    size_t slash = path.rfind('/');
    return slash == std::string::npos ? "" : slash == 0 ? "/" : path.substr(0, slash);
}

} // namespace

output_io::output_io(const glr_log *log, const std::string &name, const AVOutputFormat *muxer, size_t chunk_size,
                     unsigned flags, const glr_interrupt &interrupt)
    : log_(log), what_(name), no_overwrite_(flags & GLR_OUTPUT_NO_OVERWRITE), part_(flags & GLR_OUTPUT_PART),
      interrupt_(interrupt)
{
    if (flags & ~unsigned(GLR_OUTPUT_NO_OVERWRITE | GLR_OUTPUT_PART))
        fail(-EINVAL, "glr_encoder_create: unknown output_flags 0x%x", flags);
    auto refuse_part = [&](const char *what) {
        if (part_)
            fail(-EINVAL, "glr_encoder_create: GLR_OUTPUT_PART writes a file and renames it, but %s is %s",
                 name.c_str(), what);
    };
    if (muxer->flags & AVFMT_NOFILE) {
        refuse_part("written by its muxer itself (an image sequence, or nothing)");
        const char *protocol = avio_find_protocol_name(name.c_str());
        if (std::strcmp(muxer->name, "image2") == 0 && (!protocol || std::strcmp(protocol, "file") == 0))
            sequence_folder_ = folder_of_first_picture(name);
        return; // the muxer opens its own files, or writes nothing
    }
    int fd = pipe_fd(name);
    const char *protocol = avio_find_protocol_name(name.c_str());
    if (fd >= 0) {
        refuse_part("a file descriptor");
        struct stat st;
        if (fstat(fd, &st) != 0)
            fail(-errno, "cannot write to %s: %s", name == "-" ? "standard output" : name.c_str(), std::strerror(errno));
        what_ = fd == STDOUT_FILENO ? "standard output" : name;
        fd_ = fd;
        seekable_ = is_regular_seekable(fd);
        waits_for_reader_ = S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode);
    } else if (!protocol || std::strcmp(protocol, "file") == 0) {
        path_ = name.rfind("file:", 0) == 0 ? name.substr(5) : name;
        what_ = part_ ? path_ + ".part" : path_;
        // Something that exists and is not a regular file (a FIFO, a device) cannot seek,
        // and is written as it is; an existing file may be kept (checked early here, and
        // for sure by the exclusive create at commit).
        struct stat st;
        bool exists = stat(path_.c_str(), &st) == 0;
        if (exists && S_ISREG(st.st_mode) && no_overwrite_)
            fail(-EEXIST, "glr_encoder_create: %s already exists, and is kept as it is (GLR_OUTPUT_NO_OVERWRITE)",
                 path_.c_str());
        seekable_ = part_ || !exists || S_ISREG(st.st_mode);
    } else {
        refuse_part("a URL");
        AVIOInterruptCB interrupt_cb{interrupt.callback, interrupt.opaque};
        int rc = avio_open2(&avio_, name.c_str(), AVIO_FLAG_WRITE, &interrupt_cb, nullptr);
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
    if (!sequence_folder_.empty())
        make_sequence_folder();
    if (path_.empty() || fd_ >= 0)
        return;
    if (part_)
        open_part();
    else
        open_file();
    own_fd_ = true;
    std::string pending;
    pending.swap(pending_);
    if (int rc = write_all(reinterpret_cast<const uint8_t *>(pending.data()), pending.size()); rc < 0)
        fail(rc, "writing %s failed: %s", path_.c_str(), std::strerror(-rc));
}

void output_io::make_sequence_folder()
{
    // Each missing folder of the path, outermost first.
    for (size_t end = sequence_folder_.find('/', 1);; end = sequence_folder_.find('/', end + 1)) {
        std::string folder = sequence_folder_.substr(0, end);
        struct stat st;
        if (stat(folder.c_str(), &st) != 0) {
            if (mkdir(folder.c_str(), 0755) != 0 && errno != EEXIST)
                fail(-errno, "cannot make the folder %s for the image sequence %s: %s", folder.c_str(), what_.c_str(),
                     std::strerror(errno));
            glr_log_message(log_, GLR_LOG_INFO,
                            format("made the folder %s for the image sequence %s", folder.c_str(), what_.c_str())
                                .c_str());
        } else if (!S_ISDIR(st.st_mode)) {
            fail(-ENOTDIR, "cannot write the image sequence %s: %s is not a folder", what_.c_str(), folder.c_str());
        }
        if (end == std::string::npos)
            return;
    }
}

void output_io::open_file()
{
    struct stat st;
    if (stat(path_.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
        open_special(); // a FIFO or a device, written as it is
    } else {
        fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | (no_overwrite_ ? O_EXCL : O_TRUNC), 0644);
        if (fd_ < 0 && errno == EEXIST)
            fail(-EEXIST, "glr_encoder_create: %s was created by another writer while this encoder was being set "
                          "up, and is kept as it is (GLR_OUTPUT_NO_OVERWRITE)",
                 path_.c_str());
    }
    if (fd_ < 0)
        fail(-errno, "cannot open %s for writing: %s", path_.c_str(), std::strerror(errno));
    waits_for_reader_ = fstat(fd_, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode));
}

// Opening a FIFO for writing waits for its reader, which is said. With an interrupt, the
// wait is a non-blocking open retried in short steps, so that the interrupt can end it,
// and the descriptor stays non-blocking for write_some.
void output_io::open_special()
{
    fd_ = ::open(path_.c_str(), O_WRONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd_ < 0 && errno == ENXIO) {
        glr_log_message(log_, GLR_LOG_WARN,
                      format("waiting for a reader of %s: nothing has opened that FIFO yet", path_.c_str()).c_str());
        if (!interrupt_.callback)
            fd_ = ::open(path_.c_str(), O_WRONLY | O_CLOEXEC);
        while (interrupt_.callback && (fd_ = ::open(path_.c_str(), O_WRONLY | O_CLOEXEC | O_NONBLOCK)) < 0 &&
               errno == ENXIO) {
            if (interrupted())
                fail(-EINTR, "gave up waiting for a reader of %s: interrupted", path_.c_str());
            poll(nullptr, 0, 100);
        }
    }
    if (fd_ >= 0 && !interrupt_.callback)
        fcntl(fd_, F_SETFL, fcntl(fd_, F_GETFL) & ~O_NONBLOCK);
    nonblocking_ = fd_ >= 0 && interrupt_.callback; // write_some waits for room
}

void output_io::open_part()
{
    // O_NONBLOCK: a FIFO in the .part's place is refused below instead of waiting for a
    // reader (it changes nothing for a regular file).
    int fd = ::open(what_.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | O_NONBLOCK, 0644);
    if (fd < 0)
        fail(-errno, "cannot open %s for writing: %s", what_.c_str(), std::strerror(errno));
    struct stat st;
    int code = 0;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        code = -EINVAL;
    else if (flock(fd, LOCK_EX | LOCK_NB) != 0) // released when the descriptor closes, or its process dies
        code = errno == EWOULDBLOCK ? -EALREADY : -errno;
    else if (ftruncate(fd, 0) != 0) // what a process that died left: written over
        code = -errno;
    if (code == 0) {
        fd_ = fd;
        return;
    }
    ::close(fd);
    if (code == -EINVAL)
        fail(code, "glr_encoder_create: %s is not a regular file: remove it to write %s through it", what_.c_str(),
             path_.c_str());
    if (code == -EALREADY)
        fail(code, "glr_encoder_create: %s is being written by another encoder, which will rename it to %s",
             what_.c_str(), path_.c_str());
    fail(code, "cannot write %s: %s", what_.c_str(), std::strerror(-code));
}

void output_io::publish()
{
    if (!part_ || fd_ < 0)
        return;
    if (avio_)
        avio_flush(avio_);
    if (write_error_)
        fail(write_error_, "writing %s failed: %s", what_.c_str(), std::strerror(-write_error_));
    // On the disk before it takes the name, so that a crash never leaves a name on a file
    // that lacks its end. Filesystems that cannot sync (EINVAL) have nothing to lose.
    if (fdatasync(fd_) != 0 && errno != EINVAL && errno != EROFS) {
        write_error_ = -errno;
        fail(write_error_, "writing %s failed: %s", what_.c_str(), std::strerror(-write_error_));
    }
    int rc = 0;
    if (!no_overwrite_) {
        rc = std::rename(what_.c_str(), path_.c_str()) == 0 ? 0 : -errno;
    } else if (renameat2(AT_FDCWD, what_.c_str(), AT_FDCWD, path_.c_str(), RENAME_NOREPLACE) == 0) {
        rc = 0;
    } else if (errno == EINVAL || errno == ENOSYS) { // a filesystem without RENAME_NOREPLACE
        rc = link(what_.c_str(), path_.c_str()) == 0 ? 0 : -errno; // refuses an existing name too
        if (rc == 0)
            unlink(what_.c_str());
    } else {
        rc = -errno;
    }
    if (rc == -EEXIST)
        fail(rc, "%s appeared while this encoder wrote %s, and is kept as it is (GLR_OUTPUT_NO_OVERWRITE): the "
                 "result stays in %s", path_.c_str(), what_.c_str(), what_.c_str());
    if (rc < 0)
        fail(rc, "cannot rename %s to %s: %s; the result stays in %s", what_.c_str(), path_.c_str(),
             std::strerror(-rc), what_.c_str());
    what_ = path_;
}

// With an interrupt, a write to a reader that pauses must not block out of its reach: it
// writes what fits now (a FIFO we opened is non-blocking; another descriptor is written
// with RWF_NOWAIT, which Linux has for pipes and sockets), and poll() waits for room in
// steps short enough to look at the interrupt. Plain blocking writes otherwise.
ssize_t output_io::write_some(const uint8_t *data, size_t size)
{
    if (!interrupt_.callback || !waits_for_reader_)
        return ::write(fd_, data, size);
    for (;;) {
        if (interrupted()) {
            errno = EINTR;
            return -1;
        }
        iovec piece{const_cast<uint8_t *>(data), size};
        ssize_t n = nonblocking_ ? ::write(fd_, data, size) : pwritev2(fd_, &piece, 1, -1, RWF_NOWAIT);
        if (n >= 0 || (errno != EAGAIN && (nonblocking_ || (errno != EOPNOTSUPP && errno != EINVAL))))
            return n;
        if (errno != EAGAIN) { // a kernel without RWF_NOWAIT for this kind of file
            waits_for_reader_ = false;
            return ::write(fd_, data, size);
        }
        pollfd wait{fd_, POLLOUT, 0};
        poll(&wait, 1, 100);
    }
}

int output_io::write_all(const uint8_t *data, size_t size)
{
    while (size > 0) {
        ssize_t n = write_some(data, size);
        if (n < 0 && errno == EINTR && interrupted())
            return write_error_ = -EINTR;
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
