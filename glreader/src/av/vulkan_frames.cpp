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
    : log_(const_cast<glr_log *>(log))
{
    check(glr_av_vulkan_frames_init(&vk_, log_, device, &params, converter));
}

vulkan_frames::~vulkan_frames() { glr_av_vulkan_frames_uninit(&vk_); }

hw_frame_kind::converted vulkan_frames::convert(const glr_source &source)
{
    AVFrame *frame = nullptr;
    glr_gl_fence *fence = nullptr;
    check(glr_av_vulkan_convert(&vk_, log_, &source, &frame, &fence));
    semaphores_.store(vk_.semaphores > 0, std::memory_order_relaxed);
    return {frame, fence};
}

int vulkan_frames::wait(void *mark, uint64_t timeout_ns)
{
    return check(glr_av_vulkan_wait(&vk_, static_cast<glr_gl_fence *>(mark), timeout_ns));
}

void vulkan_frames::forget(void *mark) { glr_av_vulkan_forget(&vk_, static_cast<glr_gl_fence *>(mark)); }

} // namespace glr::av
