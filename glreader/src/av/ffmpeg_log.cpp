// glr_ffmpeg_log_route: av_log's callback, forwarding whole lines to a glreader log; and
// ffmpeg_log_hold, which keeps a thread's lines back while it lives.
#include "glreader/av/ffmpeg_log.h"

#include "av/ffmpeg_log_hold.hpp"
#include "priv.h"

extern "C" {
#include <libavutil/log.h>
}

#include <atomic>
#include <cstdio>
#include <string>

namespace {

std::atomic<const glr_log *> routed{nullptr};
thread_local glr::ffmpeg_log_hold *holding = nullptr; // this thread's lines go there while set

glr_log_level glr_level_of(int av_level)
{
    if (av_level <= AV_LOG_ERROR)
        return GLR_LOG_ERROR;
    if (av_level <= AV_LOG_WARNING)
        return GLR_LOG_WARN;
    if (av_level <= AV_LOG_INFO)
        return GLR_LOG_INFO;
    if (av_level <= AV_LOG_VERBOSE)
        return GLR_LOG_VERBOSE;
    return GLR_LOG_DEBUG;
}

int av_level_of(glr_log_level level)
{
    switch (level) {
    case GLR_LOG_ERROR: return AV_LOG_ERROR;
    case GLR_LOG_WARN: return AV_LOG_WARNING;
    case GLR_LOG_INFO: return AV_LOG_INFO;
    case GLR_LOG_VERBOSE: return AV_LOG_VERBOSE;
    case GLR_LOG_DEBUG: return AV_LOG_DEBUG;
    default: return AV_LOG_QUIET;
    }
}

// A line in the making, per thread: FFmpeg may log one line in several calls.
struct pending_line {
    std::string text;
    int level = AV_LOG_QUIET; // the most severe of its pieces
    int print_prefix = 1;     // av_log_format_line2's state: the next piece starts a line
};

void forward(void *component, int level, const char *fmt, va_list args)
{
    const glr_log *log = routed.load();
    if (!log || level > av_log_get_level())
        return;
    thread_local pending_line line;
    char piece[1024];
    av_log_format_line2(component, level, fmt, args, piece, sizeof piece, &line.print_prefix);
    line.level = line.text.empty() || level < line.level ? level : line.level;
    line.text += piece;
    for (size_t end; (end = line.text.find('\n')) != std::string::npos;) {
        std::string whole = line.text.substr(0, end);
        line.text.erase(0, end + 1);
        if (whole.empty())
            continue;
        if (whole[0] != '[')
            whole = "[ffmpeg] " + whole; // a line without a component: still FFmpeg's
        if (holding)
            holding->keep(glr_level_of(line.level), std::move(whole));
        else
            glr_log_message(log, glr_level_of(line.level), whole.c_str());
    }
}

} // namespace

namespace glr {

ffmpeg_log_hold::ffmpeg_log_hold() : outer_(holding) { holding = this; }

bool ffmpeg_log_hold::holds() { return routed.load() != nullptr; }

ffmpeg_log_hold::~ffmpeg_log_hold() { holding = outer_; }

void ffmpeg_log_hold::forward()
{
    const glr_log *log = routed.load();
    for (const auto &[level, text] : held_)
        if (outer_)
            outer_->keep(level, text);
        else if (log)
            glr_log_message(log, level, text.c_str());
    held_.clear();
}

} // namespace glr

extern "C" void glr_ffmpeg_log_route(glr_log *log)
{
    routed.store(log);
    if (!log) {
        av_log_set_callback(av_log_default_callback);
        av_log_set_level(AV_LOG_INFO);
        return;
    }
    av_log_set_level(av_level_of(glr_log_get_level(log)));
    av_log_set_callback(forward);
}
