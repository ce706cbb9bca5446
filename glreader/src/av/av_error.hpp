// FFmpeg error codes in glreader's terms.
#pragma once

#include "error.hpp"

#include "glreader/utils/libav.h"

extern "C" {
#include <libavutil/error.h>
}

#include <string>

namespace glr {

inline std::string av_error_text(int error)
{
    char text[AV_ERROR_MAX_STRING_SIZE] = "";
    av_strerror(error, text, sizeof text);
    return text;
}

// AVERROR(errno) values stay errno codes (-ENOSPC stays -ENOSPC); FFmpeg's own codes
// become GLR_ERROR_CODEC.
inline int code_of_av_error(int error) { return glr_av_code_of(error); }

} // namespace glr
