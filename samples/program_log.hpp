// The programs' log: glreader's messages and FFmpeg's own lines (glreader/av/ffmpeg_log.h) on
// stderr, at the level -v / -loglevel chose. glreader's warnings and notes read
// "glreader: ..."; FFmpeg's keep their "[component @ ...]" as ffmpeg prints them.
// glreader's errors are left out: each reaches the user once, as the message of the
// failure it becomes, which the program prints.
#pragma once

#include "command_line.hpp"

#include "glreader/common.h"

namespace sample {

class program_log {
public:
    // Throws std::bad_alloc when no log can be made.
    explicit program_log(verbosity level);
    ~program_log();
    program_log(const program_log &) = delete;
    program_log &operator=(const program_log &) = delete;

    glr_log *get() const { return log_; }
    // Progress lines and the summary show at the default level and above.
    bool shows_progress() const { return level_ >= verbosity::warning; }
    bool shows(verbosity at) const { return level_ >= at; }

private:
    glr_log *log_;
    verbosity level_;
};

} // namespace sample
