#include "av/chunk_tag.hpp"

#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>

namespace glr {

namespace {

// Reads `name` then a decimal number in [low, INT_MAX] at p, and moves p past them.
bool read_number(const char *&p, const char *name, int low, int &out)
{
    size_t length = std::strlen(name);
    if (std::strncmp(p, name, length) != 0 || !std::isdigit(static_cast<unsigned char>(p[length])))
        return false;
    errno = 0;
    char *end = nullptr;
    long long n = std::strtoll(p + length, &end, 10);
    if (errno == ERANGE || n < low || n > INT_MAX)
        return false;
    out = static_cast<int>(n);
    p = end;
    return true;
}

// Reads " color=" then five names between slashes at p into out, and moves p past them.
bool read_color(const char *&p, std::string &out)
{
    const char *start = " color=";
    if (std::strncmp(p, start, std::strlen(start)) != 0)
        return false;
    const char *q = p + std::strlen(start);
    for (int name = 0; name < 5; name++) {
        if (name > 0 && *q++ != '/')
            return false;
        size_t length = 0;
        while (std::islower(static_cast<unsigned char>(q[length])) || std::isdigit(static_cast<unsigned char>(q[length])) ||
               q[length] == '-')
            length++;
        if (length == 0 || length > 32)
            return false;
        q += length;
    }
    out.assign(p + std::strlen(start), q);
    p = q;
    return true;
}

} // namespace

std::string chunk_tag_value(const chunk_range &r)
{
    return "first=" + std::to_string(r.first) + " frames=" + std::to_string(r.frames) +
           " fps=" + std::to_string(r.fps_num) + "/" + std::to_string(r.fps_den) +
           (r.color.empty() ? "" : " color=" + r.color);
}

bool read_chunk_tag(const char *value, chunk_range &r)
{
    chunk_range got;
    const char *p = value;
    if (!read_number(p, "first=", 0, got.first) || !read_number(p, " frames=", 1, got.frames) ||
        !read_number(p, " fps=", 1, got.fps_num) || !read_number(p, "/", 1, got.fps_den) ||
        (*p && !read_color(p, got.color)) || *p || got.first > INT_MAX - got.frames)
        return false;
    r = got;
    return true;
}

} // namespace glr
