// Holding back FFmpeg's lines: what a trial (an encoder opened only to check its settings)
// logs, the real open logs again; shown twice, a user reads two warnings where there is one.
#pragma once

#include "glreader/common.h"

#include <string>
#include <utility>
#include <vector>

namespace glr {

// While one lives, the lines FFmpeg logs on this thread through glr_ffmpeg_log_route are
// kept here instead of reaching the log; forward() passes them on (when the trial failed,
// they say why), and the destructor drops what was not. Nests. Lines of other threads, and
// FFmpeg's own printing when no log is routed, are not held.
// Thread-safety: one thread, the one that made it. Lifetime: a scope on that thread.
class ffmpeg_log_hold {
public:
    ffmpeg_log_hold();
    ~ffmpeg_log_hold();
    ffmpeg_log_hold(const ffmpeg_log_hold &) = delete;
    ffmpeg_log_hold &operator=(const ffmpeg_log_hold &) = delete;
    void forward();
    // Whether FFmpeg's lines reach glreader (glr_ffmpeg_log_route), where they are held;
    // else FFmpeg prints them itself.
    static bool holds();
    void keep(glr_log_level level, std::string line) { held_.emplace_back(level, std::move(line)); }

private:
    ffmpeg_log_hold *outer_;
    std::vector<std::pair<glr_log_level, std::string>> held_;
};

} // namespace glr
