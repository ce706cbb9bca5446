// glr_hw_frames (glreader/av/hw_frames.h): the device and the kind's frames behind the C API.
#include "glreader/av/hw_frames.h"

#include "av/logged_failure.hpp"
#include "av/vulkan_frames.hpp"
#include "enum_value.hpp"
#include "error.hpp"
#include "guarded.hpp"

#include <memory>
#include <string>

struct glr_hw_frames {
    const glr_log *log;
    AVBufferRef *device = nullptr;
    std::unique_ptr<glr::av::vulkan_frames> vulkan;

    glr_hw_frames(const glr_log *l, const glr_hw_frames_params &p) : log(l)
    {
        int kind = glr::enum_value(p.kind);
        if (kind != GLR_HW_VULKAN)
            glr::fail(-EINVAL, "glr_hw_frames_create: unknown kind %d of hardware frames (GLR_HW_VULKAN is %d)", kind,
                      static_cast<int>(GLR_HW_VULKAN));
        device = glr::av::vulkan_device_for_gl(log, p.device ? p.device : "", p.frame.get_proc_address);
        try {
            vulkan = std::make_unique<glr::av::vulkan_frames>(log, device, p.frame);
        } catch (...) {
            av_buffer_unref(&device);
            throw;
        }
    }
    ~glr_hw_frames()
    {
        vulkan.reset();
        av_buffer_unref(&device);
    }
};

extern "C" {

glr_hw_frames *glr_hw_frames_create(glr_log *log, const struct glr_hw_frames_params *params)
{
    glr_hw_frames *frames = nullptr;
    glr::guarded(log, [&] {
        if (!params)
            glr::fail(-EINVAL, "glr_hw_frames_create: params is NULL");
        try {
            frames = new glr_hw_frames(log, *params);
        } catch (const glr::logged_failure &e) {
            return e.code();
        }
        return 0;
    });
    return frames;
}

AVBufferRef *glr_hw_frames_context(const glr_hw_frames *frames)
{
    return frames ? frames->vulkan->frames_context() : nullptr;
}

int glr_hw_frames_convert(glr_hw_frames *frames, const struct glr_source *source, AVFrame **frame)
{
    return glr::guarded(frames ? frames->log : nullptr, [&] {
        if (!frames || !source || !frame)
            glr::fail(-EINVAL, "glr_hw_frames_convert: %s is NULL", !frames ? "frames" : !source ? "source" : "frame");
        try {
            *frame = frames->vulkan->convert(*source);
        } catch (const glr::logged_failure &e) {
            return e.code();
        }
        return 0;
    });
}

void glr_hw_frames_destroy(glr_hw_frames **frames)
{
    if (!frames || !*frames)
        return;
    glr_hw_frames *f = *frames;
    *frames = nullptr;
    glr::guarded(f->log, [&] {
        delete f;
        return 0;
    });
}

} // extern "C"
