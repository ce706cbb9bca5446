// Reading the small text files a scene is made of (shader sources, a project's channels
// file) without trusting what the path names: only a regular file is read, never a
// directory, a device (/dev/zero never ends) or a FIFO (opening one waits for a writer),
// and never more than a limit, so a wrong path fails at once and in little memory.
#pragma once

#include <cstddef>
#include <string>

namespace glr {

// The whole file at path, of at most limit bytes. Throws glr::failure naming `what` and
// the path: -EISDIR for a directory, -EINVAL for anything but a regular file or a file
// with a NUL byte (not text), -EFBIG past the limit (naming `raise_with`, what raises the
// limit, unless it is NULL), the errno of open or read otherwise.
std::string read_text_file(const std::string &path, const std::string &what, size_t limit,
                           const char *raise_with);

// Whether path names a regular file (following links), without opening it.
bool is_regular_file(const std::string &path);

} // namespace glr
