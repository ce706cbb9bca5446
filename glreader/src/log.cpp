#include "log.hpp"

#include "error.hpp"

#include <cstdio>

void glr_log::write(glr_log_level at, const std::string &message) const
{
    if (at == GLR_LOG_NONE || at > level)
        return;
    // The entry point a message names stays for a log at debug level, for a bug report.
    const std::string words = level == GLR_LOG_DEBUG ? message : std::string(glr::user_words(message));
    if (callback) {
        callback(opaque, at, words.c_str());
        return;
    }
    static const char *const names[] = {"", "error", "warning", "info", "verbose", "debug"};
    // One fprintf per line so that lines from several threads do not interleave.
    std::fprintf(stderr, "glreader: %s: %s\n", names[at], words.c_str());
}

const glr_log *glr_log::fallback()
{
    static const glr_log log;
    return &log;
}
