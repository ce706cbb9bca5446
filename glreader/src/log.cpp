#include "log.hpp"

#include <cstdio>

void glr_log::write(glr_log_level at, const std::string &message) const
{
    if (at == GLR_LOG_NONE || at > level)
        return;
    if (callback) {
        callback(opaque, at, message.c_str());
        return;
    }
    static const char *const names[] = {"", "error", "warning", "info", "verbose", "debug"};
    // One fprintf per line so that lines from several threads do not interleave.
    std::fprintf(stderr, "glreader: %s: %s\n", names[at], message.c_str());
}

const glr_log *glr_log::fallback()
{
    static const glr_log log;
    return &log;
}
