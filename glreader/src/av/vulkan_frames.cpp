#include "av/vulkan_frames.hpp"

#include "av/logged_failure.hpp"

namespace glr::av {

AVBufferRef *vulkan_device_for_gl(const glr_log *log, const std::string &spec, glr_get_proc_address_fn loader)
{
    AVBufferRef *device = nullptr;
    check(glr_av_vulkan_device_for_gl(const_cast<glr_log *>(log), spec.c_str(), loader, &device));
    return device;
}

vulkan_frames::vulkan_frames(const glr_log *log, AVBufferRef *device, const glr_converter_params &params,
                             glr_converter *converter)
    : log_(const_cast<glr_log *>(log)), converter_(converter)
{
    glr_color_resolve(params.format, &params.color, &color_); // the converter took it
    check(glr_av_vulkan_frames_init(&vk_, log_, device, &params));
}

vulkan_frames::~vulkan_frames() { glr_av_vulkan_frames_uninit(&vk_); }

hw_frame_kind::converted vulkan_frames::convert(const glr_source &source)
{
    AVFrame *frame = nullptr;
    check(glr_av_hw_pooled_frame(log_, vk_.pool, "Vulkan", &frame));
    try {
        unsigned textures[4];
        check(glr_av_vulkan_frame_textures(&vk_, log_, converter_, frame, textures));
        check(glr_converter_convert(converter_, &source, textures));
        glr_av_set_color(frame, &color_);
        return {frame, check(glr_converter_fence(converter_))};
    } catch (...) {
        av_frame_free(&frame);
        throw;
    }
}

int vulkan_frames::wait(void *mark, uint64_t timeout_ns)
{
    return check(glr_converter_fence_wait(converter_, static_cast<glr_gl_fence *>(mark), timeout_ns));
}

void vulkan_frames::forget(void *mark) { glr_converter_fence_delete(converter_, static_cast<glr_gl_fence *>(mark)); }

} // namespace glr::av
