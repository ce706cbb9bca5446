#include "program_log.hpp"

#include "glreader/av/ffmpeg_log.h"

#include <cstdio>
#include <new>

namespace sample {

namespace {

glr_log_level log_level(verbosity v)
{
    switch (v) {
    case verbosity::quiet:
    case verbosity::error: return GLR_LOG_ERROR;
    case verbosity::warning: return GLR_LOG_WARN;
    case verbosity::info: return GLR_LOG_INFO;
    case verbosity::verbose: return GLR_LOG_VERBOSE;
    case verbosity::debug: return GLR_LOG_DEBUG;
    }
    return GLR_LOG_WARN;
}

void print(void *, glr_log_level level, const char *message)
{
    if (message[0] == '[') // FFmpeg's, as ffmpeg prints it
        std::fprintf(stderr, "%s\n", message);
    else if (level != GLR_LOG_ERROR)
        std::fprintf(stderr, "glreader: %s\n", message);
}

void print_nothing(void *, glr_log_level, const char *) {}

} // namespace

program_log::program_log(verbosity level) : level_(level)
{
    glr_log_params params{};
    params.callback = level == verbosity::quiet ? print_nothing : print;
    params.level = log_level(level);
    log_ = glr_log_create(&params);
    if (!log_)
        throw std::bad_alloc();
    glr_ffmpeg_log_route(log_);
}

program_log::~program_log()
{
    if (!log_)
        return;
    glr_ffmpeg_log_route(nullptr);
    glr_log_destroy(&log_);
}

} // namespace sample
