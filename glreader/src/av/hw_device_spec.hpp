// ffmpeg's -init_hw_device TYPE[=NAME][:DEVICE] as hardware frames read it: which kind of
// frames, and which device of that kind. One reader for the option table's check and the
// recorder's choice.
#pragma once

#include "glreader/av/hw_frames.h"

#include <string>

namespace glr::av {

struct hw_device_spec {
    glr_hw_kind kind;
    std::string device; // "": the device behind the GL context
};

// Throws glr::failure (-EINVAL), naming key and spec, for a type other than vulkan or cuda
// and for device options after a comma (",key=value").
hw_device_spec parse_hw_device(const std::string &key, const std::string &spec);

// The kind's hardware pixel format (AV_PIX_FMT_VULKAN, AV_PIX_FMT_CUDA), as an int: this
// header needs none of FFmpeg's.
int hw_pix_fmt_of(glr_hw_kind kind);

// "Vulkan", "CUDA".
const char *hw_kind_name(glr_hw_kind kind);

} // namespace glr::av
