#include "av/hw_device_spec.hpp"

#include "error.hpp"

#include "glreader/utils/libav_hw_frames.h"

extern "C" {
#include <libavutil/pixfmt.h>
}

#include <cerrno>
#include <vector>

namespace glr::av {

hw_device_spec parse_hw_device(const std::string &key, const std::string &spec)
{
    std::vector<char> type(spec.size() + 1), device(spec.size() + 1);
    AVHWDeviceType parsed = glr_av_hw_device_parse(spec.c_str(), type.data(), type.size(), device.data(), device.size());
    if (spec.find(',') != std::string::npos)
        fail(-EINVAL, "%s %s: device options (,KEY=VALUE) are not taken; name the device alone", key.c_str(),
             spec.c_str());
    if (parsed == AV_HWDEVICE_TYPE_NONE)
        fail(-EINVAL, "%s %s: hardware frames are Vulkan's or CUDA's here (vulkan, vulkan:DEVICE, cuda, cuda:N), not %s's",
             key.c_str(), spec.c_str(), type.data());
    return {parsed == AV_HWDEVICE_TYPE_CUDA ? GLR_HW_CUDA : GLR_HW_VULKAN, device.data()};
}

int hw_pix_fmt_of(glr_hw_kind kind) { return kind == GLR_HW_CUDA ? AV_PIX_FMT_CUDA : AV_PIX_FMT_VULKAN; }

const char *hw_kind_name(glr_hw_kind kind) { return kind == GLR_HW_CUDA ? "CUDA" : "Vulkan"; }

} // namespace glr::av
