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
#include "glreader/ring.h"
#include "glreader/utils/libav_vulkan_frames.h"

#include <atomic>
#include <cstdint>
#include <string>

namespace glr::av {

// A Vulkan device (AVHWDeviceContext) whose memory the current GL context can import: the
// device named by spec (FFmpeg's -init_hw_device vulkan spelling: an index or a name; empty:
// each in turn) with GL's device and driver UUIDs (glr_av_vulkan_device_for_gl). Throws
// glr::failure naming what is missing: no device, GL without GL_EXT_memory_object_fd, no
// device GL shares memory with (that this FFmpeg has Vulkan at all, glr_hw_frames checks
// before). The caller owns the reference (av_buffer_unref).
AVBufferRef *vulkan_device_for_gl(const glr_log *log, const std::string &spec, glr_get_proc_address_fn loader);

// Converts GL frames into Vulkan frames of a pool it makes on device: format's planes
// (NV12, P010, I420, YUV444 ...), width x height, optimally tiled, exportable memory, with
// converter (made for params, outliving this). The FFmpeg side is the header-only bridge
// the FFmpeg filter shares (glreader/utils/libav_vulkan_frames.h).
class vulkan_frames : public hw_frame_kind {
public:
    vulkan_frames(const glr_log *log, AVBufferRef *device, const glr_converter_params &params,
                  glr_converter *converter);
    ~vulkan_frames() override; // the GL context current
    vulkan_frames(const vulkan_frames &) = delete;
    vulkan_frames &operator=(const vulkan_frames &) = delete;

    AVBufferRef *frames_context() const override { return vk_.pool; }
    // Known from the first frame on (read from any thread).
    const char *path() const override
    {
        return semaphores_.load(std::memory_order_relaxed) ? "vulkan-frames+timeline-semaphores"
                                                           : "vulkan-frames+gl-fence";
    }
    // The mark is a flushed GL fence: the frame may be freed (its memory given to the next
    // frame of the pool) only once it signalled; none (NULL, passed at once) where the
    // frames' timeline semaphores order them on the GPU.
    converted convert(const glr_source &source) override;
    int wait(void *mark, uint64_t timeout_ns) override;
    void forget(void *mark) override;

private:
    glr_log *log_;
    glr_av_vulkan_frames vk_{}; // with the converter, and the frames' colour tags
    std::atomic<bool> semaphores_{false}; // vk_ ordered by the frames' semaphores
};

} // namespace glr::av
