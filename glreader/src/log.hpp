// The object behind glr_log: a callback and a level.
#pragma once

#include "glreader/common.h"

#include <string>

struct glr_log {
    glr_log_fn callback = nullptr;
    void *opaque = nullptr;
    glr_log_level level = GLR_LOG_WARN;

    void write(glr_log_level at, const std::string &message) const;

    // The log used by objects created without one: warnings and errors to stderr.
    static const glr_log *fallback();
};
