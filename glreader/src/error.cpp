#include "error.hpp"

#include "glreader/common.h"

#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstring>

namespace glr {

namespace {

std::string vformat(const char *fmt, va_list args)
{
    va_list copy;
    va_copy(copy, args);
    int n = std::vsnprintf(nullptr, 0, fmt, copy);
    va_end(copy);
    if (n <= 0)
        return {};
    std::string out(static_cast<size_t>(n), '\0');
    std::vsnprintf(out.data(), out.size() + 1, fmt, args);
    return out;
}

} // namespace

std::string format(const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    std::string out = vformat(fmt, args);
    va_end(args);
    return out;
}

void fail(int code, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    std::string message = vformat(fmt, args);
    va_end(args);
    throw failure(code, std::move(message));
}

std::string_view user_words(std::string_view message)
{
    // "glr_" and a lower-case C name, then ": ", as often as it comes (a message that
    // quotes another's).
    for (;;) {
        if (message.substr(0, 4) != "glr_")
            return message;
        size_t end = 4;
        while (end < message.size() &&
               ((message[end] >= 'a' && message[end] <= 'z') || (message[end] >= '0' && message[end] <= '9') ||
                message[end] == '_'))
            end++;
        if (end == 4 || message.substr(end, 2) != ": ")
            return message;
        message.remove_prefix(end + 2);
    }
}

bool is_control_flow(int code) { return code == -EAGAIN || code == -EBUSY || code == -ENODATA; }

const char *describe(int code)
{
    switch (code) {
    case 0: return "success";
    case GLR_ERROR_GL: return "OpenGL error";
    case GLR_ERROR_NO_CONTEXT: return "no OpenGL context is current on this thread";
    case GLR_ERROR_UNSUPPORTED: return "not supported by this OpenGL driver";
    case GLR_ERROR_EGL: return "EGL could not provide a headless context";
    case GLR_ERROR_SOFTWARE_RENDERER: return "only a software renderer is available";
    case GLR_ERROR_INTERNAL: return "internal error in glreader";
    case GLR_ERROR_CODEC: return "FFmpeg encoder or muxer error";
    case GLR_ERROR_CHILD: return "the child process failed";
    case GLR_ERROR_SHADER: return "the shader does not compile";
    case -EAGAIN: return "not ready yet";
    case -EBUSY: return "ring full of frames not acquired yet";
    case -ENODATA: return "no frame in flight";
    default: break;
    }
    if (code < 0 && code > -4096)
        return std::strerror(-code); // glibc: thread-safe for valid errno values
    return "unknown error";
}

} // namespace glr
