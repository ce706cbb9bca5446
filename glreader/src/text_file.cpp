#include "text_file.hpp"

#include "error.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace glr {

namespace {

std::string file_type(mode_t mode)
{
    return S_ISCHR(mode) ? "a character device" : S_ISBLK(mode) ? "a block device" : S_ISFIFO(mode) ? "a FIFO"
                                                  : S_ISSOCK(mode) ? "a socket" : "not a regular file";
}

class fd_guard {
public:
    explicit fd_guard(int fd) : fd_(fd) {}
    ~fd_guard() { close(fd_); }
    fd_guard(const fd_guard &) = delete;
    fd_guard &operator=(const fd_guard &) = delete;

private:
    int fd_;
};

} // namespace

bool is_regular_file(const std::string &path)
{
    struct stat st;
    return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string read_text_file(const std::string &path, const std::string &what, size_t limit, const char *raise_with)
{
    const char *p = path.c_str(), *w = what.c_str();
    auto unreadable = [&] {
        int err = errno;
        fail(-err, "cannot read the %s %s: %s", w, p, std::strerror(err));
    };
    // O_NONBLOCK: opening a FIFO must not wait for a writer before it can be refused.
    int fd = open(p, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        unreadable();
    fd_guard guard(fd);
    struct stat st;
    if (fstat(fd, &st) != 0)
        unreadable();
    if (S_ISDIR(st.st_mode))
        fail(-EISDIR, "the %s %s is a directory, not a file", w, p);
    if (!S_ISREG(st.st_mode))
        fail(-EINVAL, "the %s %s is %s: only regular files are read", w, p,
             file_type(st.st_mode).c_str());
    auto too_large = [&](const char *size) {
        fail(-EFBIG, "the %s %s is %s bytes, more than the limit of %zu bytes for such a file%s%s%s", w, p, size,
             limit, raise_with ? " (" : "", raise_with ? raise_with : "", raise_with ? " raise it)" : "");
    };
    if (static_cast<unsigned long long>(st.st_size) > limit)
        too_large(std::to_string(st.st_size).c_str());
    // The file may grow while read: never take more than the limit.
    std::string text(static_cast<size_t>(st.st_size) + 1, '\0');
    size_t used = 0;
    for (;;) {
        if (used == text.size()) {
            if (used > limit)
                too_large(("over " + std::to_string(limit)).c_str());
            text.resize(std::min(limit + 1, used * 2 + 4096));
        }
        ssize_t n = read(fd, &text[used], text.size() - used);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            unreadable();
        if (n == 0)
            break;
        used += static_cast<size_t>(n);
    }
    text.resize(used); // at most limit: a buffer filled to limit + 1 was refused above
    size_t nul = text.find('\0');
    if (nul != std::string::npos)
        fail(-EINVAL, "the %s %s is not text: it has a NUL byte at offset %zu", w, p, nul);
    return text;
}

} // namespace glr
