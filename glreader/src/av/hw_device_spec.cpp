#include "av/hw_device_spec.hpp"

#include "error.hpp"

extern "C" {
#include <libavutil/pixfmt.h>
}

#include <cerrno>

namespace glr::av {

hw_device_spec parse_hw_device(const std::string &key, const std::string &spec)
{
    size_t type_end = spec.find_first_of("=:");
    std::string type = spec.substr(0, type_end);
    hw_device_spec out{GLR_HW_VULKAN, ""};
    if (type == "cuda")
        out.kind = GLR_HW_CUDA;
    else if (type != "vulkan")
        fail(-EINVAL, "%s %s: hardware frames are Vulkan's or CUDA's here (vulkan, vulkan:DEVICE, cuda, cuda:N), not %s's",
             key.c_str(), spec.c_str(), type.c_str());
    size_t colon = spec.find(':');
    out.device = colon == std::string::npos ? "" : spec.substr(colon + 1);
    if (out.device.find(',') != std::string::npos)
        fail(-EINVAL, "%s %s: device options (,KEY=VALUE) are not taken; name the device alone", key.c_str(),
             spec.c_str());
    return out;
}

int hw_pix_fmt_of(glr_hw_kind kind) { return kind == GLR_HW_CUDA ? AV_PIX_FMT_CUDA : AV_PIX_FMT_VULKAN; }

const char *hw_kind_name(glr_hw_kind kind) { return kind == GLR_HW_CUDA ? "CUDA" : "Vulkan"; }

} // namespace glr::av
