// Hardware frames for encoders on the GPU, in Vulkan memory that GL writes: FFmpeg's
// AV_PIX_FMT_VULKAN frames, each plane's image imported into GL once (glr_memory_texture,
// GL_EXT_memory_object_fd) and the ring's conversion (glr_converter) writing the frame's
// planes into it. Nothing is read back: the encoder reads the frame where GL wrote it.
//
// Ordering: the conversion is a GL command; the frame's mark is a GL fence after it, which
// glr_hw_frames waits on before it hands the frame on. Threads: every call with the GL
// context current; the frames themselves go to any thread.
#pragma once

#include "av/hw_frame_kind.hpp"

#include "glreader/convert.h"
#include "glreader/interop.h"
#include "glreader/ring.h"

extern "C" {
#include <libavutil/frame.h>
#include <libavutil/hwcontext.h>
}

#include <vulkan/vulkan.h>

#include <cstdint>
#include <string>
#include <vector>

namespace glr::av {

// A Vulkan device (AVHWDeviceContext) whose memory the current GL context can import: the
// device named by spec (FFmpeg's -init_hw_device vulkan spelling: an index or a name; empty:
// each in turn) with GL's device and driver UUIDs. Throws glr::failure naming what is
// missing: no device, GL without GL_EXT_memory_object_fd, no device GL shares memory with
// (that this FFmpeg has Vulkan at all, glr_hw_frames checks before). The caller owns the
// reference (av_buffer_unref).
AVBufferRef *vulkan_device_for_gl(const glr_log *log, const std::string &spec, glr_get_proc_address_fn loader);

// Converts GL frames into Vulkan frames of a pool it makes on device: format's planes
// (NV12, P010, I420, YUV444 ...), width x height, optimally tiled, exportable memory, with
// converter (made for params, outliving this).
class vulkan_frames : public hw_frame_kind {
public:
    vulkan_frames(const glr_log *log, AVBufferRef *device, const glr_converter_params &params,
                  glr_converter *converter);
    ~vulkan_frames() override; // the GL context current
    vulkan_frames(const vulkan_frames &) = delete;
    vulkan_frames &operator=(const vulkan_frames &) = delete;

    AVBufferRef *frames_context() const override { return frames_; }
    const char *path() const override { return "vulkan-frames+gl-fence"; }
    // The mark is a flushed GL fence: the frame may be freed (its memory given to the next
    // frame of the pool) only once it signalled.
    converted convert(const glr_source &source) override;
    int wait(void *mark, uint64_t timeout_ns) override;
    void forget(void *mark) override;

private:
    struct plane_image {
        VkImage image;
        glr_memory_texture *texture;
    };
    const plane_image &imported(VkImage image, VkDeviceMemory memory, size_t size, ptrdiff_t offset, int plane);

    const glr_log *log_;
    glr_converter_params params_;
    glr_color color_{}; // resolved: the frames' tags, as the readback path's
    AVBufferRef *frames_ = nullptr;
    glr_converter *converter_;
    PFN_vkGetMemoryFdKHR get_memory_fd_ = nullptr;
    PFN_vkGetImageMemoryRequirements2 get_requirements_ = nullptr;
    VkDevice device_ = VK_NULL_HANDLE;
    // A pool's frames come round again: each image is imported once.
    std::vector<plane_image> images_;
};

} // namespace glr::av
