// glr_hw_frames (glreader/av/hw_frames.h): the conversion, the kind's frames and the
// frames in flight, each waiting for its mark (a GL fence, a CUDA event), behind the C API.
#include "glreader/av/hw_frames.h"

#include "av/cuda_frames.hpp"
#include "av/fault_injection.h"
#include "av/hw_device_spec.hpp"
#include "av/logged_failure.hpp"
#include "av/vulkan_frames.hpp"
#include "enum_value.hpp"
#include "glreader/utils/libav_hw_frames.h"
#include "error.hpp"
#include "guarded.hpp"
#include "latency.hpp"

#include <cerrno>
#include <deque>
#include <memory>
#include <mutex>
#include <string>

namespace {

constexpr int default_depth = 3, max_depth = 64;

} // namespace

struct glr_hw_frames {
public:
    glr_hw_frames(const glr_log *log, const glr_hw_frames_params &p) : log_(log)
    {
        constexpr const char *call = "glr_hw_frames_create";
        int kind = glr::enum_value(p.kind);
        if (kind != GLR_HW_VULKAN && kind != GLR_HW_CUDA)
            glr::fail(-EINVAL, "%s: unknown kind %d of hardware frames (GLR_HW_VULKAN %d, GLR_HW_CUDA %d)", call, kind,
                      static_cast<int>(GLR_HW_VULKAN), static_cast<int>(GLR_HW_CUDA));
        if (p.depth < 0 || p.depth > max_depth)
            glr::fail(-EINVAL, "%s: depth %d is not 1..%d (0: %d)", call, p.depth, max_depth, default_depth);
        depth_ = p.depth ? static_cast<size_t>(p.depth) : default_depth;
        auto type = kind == GLR_HW_CUDA ? AV_HWDEVICE_TYPE_CUDA : AV_HWDEVICE_TYPE_VULKAN;
        if (!glr_av_has_device_type(type)) {
            const char *name = glr::av::hw_kind_name(static_cast<glr_hw_kind>(kind));
            glr::fail(GLR_ERROR_UNSUPPORTED, "this FFmpeg has no %s (built without it): %s frames need one that has",
                      name, name);
        }
        converter_ = glr::check(glr_converter_create(const_cast<glr_log *>(log), &p.frame));
        try {
            std::string device = p.device ? p.device : "";
            if (kind == GLR_HW_CUDA) {
                device_ = glr::av::cuda_device_for_gl(log, device);
                kind_ = std::make_unique<glr::av::cuda_frames>(log, device_, p.frame, converter_);
            } else {
                device_ = glr::av::vulkan_device_for_gl(log, device, p.frame.get_proc_address);
                kind_ = std::make_unique<glr::av::vulkan_frames>(log, device_, p.frame, converter_);
            }
        } catch (...) {
            release();
            throw;
        }
    }
    ~glr_hw_frames() { release(); }
    glr_hw_frames(const glr_hw_frames &) = delete;
    glr_hw_frames &operator=(const glr_hw_frames &) = delete;

    const glr_log *log() const { return log_; }
    AVBufferRef *frames_context() const { return kind_->frames_context(); }

    int capture(const glr_source &source, int64_t pts)
    {
        if (in_flight_.size() >= depth_)
            return -EBUSY;
        uint64_t start = glr::now_ns();
        glr::av::hw_frame_kind::converted c = kind_->convert(source);
        c.frame->pts = pts;
        in_flight_.push_back({c.frame, c.mark});
        std::lock_guard<std::mutex> lock(stats_mutex_);
        captured_++;
        stall_.record_ns(glr::now_ns() - start);
        return 0;
    }

    int acquire(AVFrame **out, uint64_t timeout_ns)
    {
        if (in_flight_.empty())
            return -ENODATA;
        uint64_t start = glr::now_ns();
        if (!mark_passed(in_flight_.front().mark, timeout_ns))
            return -EAGAIN;
        uint64_t waited = glr::now_ns() - start;
        kind_->forget(in_flight_.front().mark);
        *out = in_flight_.front().frame;
        in_flight_.pop_front();
        std::lock_guard<std::mutex> lock(stats_mutex_);
        acquired_++;
        fence_wait_.record_ns(waited);
        return 0;
    }

    void marks_unsignalled(int polls) { unsignalled_polls_ = polls; }

    glr_ring_stats stats() const
    {
        glr_ring_stats s{};
        s.depth = static_cast<int>(depth_);
        s.fences = 1;
        s.path = kind_->path();
        s.fill = "hardware-frames";
        std::lock_guard<std::mutex> lock(stats_mutex_);
        s.frames_captured = captured_;
        s.frames_acquired = acquired_;
        s.stall = stall_.summary();
        s.fence_wait = fence_wait_.summary();
        return s;
    }

private:
    // Whether a frame's mark passed within timeout_ns (the kind's wait).
    bool mark_passed(void *mark, uint64_t timeout_ns)
    {
#ifdef GLREADER_TEST_SEAMS
        // A GPU's conversion still under way when polled (fault_injection.h); a wait as long
        // as it takes waits on the mark itself.
        if (timeout_ns != UINT64_MAX && unsignalled_polls_ > 0) {
            unsignalled_polls_--;
            return false;
        }
#endif
        return kind_->wait(mark, timeout_ns);
    }

    void release()
    {
        for (in_flight &f : in_flight_) {
            kind_->forget(f.mark);
            av_frame_free(&f.frame);
        }
        in_flight_.clear();
        kind_.reset();
        av_buffer_unref(&device_);
        glr_converter_destroy(&converter_);
    }

    struct in_flight {
        AVFrame *frame;
        void *mark; // the kind's: done once it passed
    };
    const glr_log *log_;
    size_t depth_ = default_depth;
    glr_converter *converter_ = nullptr;
    AVBufferRef *device_ = nullptr;
    std::unique_ptr<glr::av::hw_frame_kind> kind_;
    std::deque<in_flight> in_flight_; // captured, oldest first
    mutable std::mutex stats_mutex_;   // the figures below: read from any thread
    uint64_t captured_ = 0, acquired_ = 0;
    glr::latency_histogram stall_, fence_wait_;
    int unsignalled_polls_ = 0; // the test seam's, on the capturing thread
};

namespace {

// Runs body at the C boundary: a failure a glreader call already logged is handed on as
// it is, any other logged once.
template <typename Body>
int boundary(const glr_log *log, Body &&body)
{
    return glr::guarded(log, [&] {
        try {
            return body();
        } catch (const glr::logged_failure &e) {
            return e.code();
        }
    });
}

} // namespace

extern "C" {

glr_hw_frames *glr_hw_frames_create(glr_log *log, const struct glr_hw_frames_params *params)
{
    glr_hw_frames *frames = nullptr;
    boundary(log, [&] {
        if (!params)
            glr::fail(-EINVAL, "glr_hw_frames_create: params is NULL");
        frames = new glr_hw_frames(log, *params);
        return 0;
    });
    return frames;
}

AVBufferRef *glr_hw_frames_context(const glr_hw_frames *frames) { return frames ? frames->frames_context() : nullptr; }

int glr_hw_frames_capture(glr_hw_frames *frames, const struct glr_source *source, int64_t pts)
{
    return boundary(frames ? frames->log() : nullptr, [&] {
        if (!frames || !source)
            glr::fail(-EINVAL, "glr_hw_frames_capture: %s is NULL", !frames ? "frames" : "source");
        return frames->capture(*source, pts);
    });
}

int glr_hw_frames_acquire(glr_hw_frames *frames, AVFrame **frame, uint64_t timeout_ns)
{
    return boundary(frames ? frames->log() : nullptr, [&] {
        if (!frames || !frame)
            glr::fail(-EINVAL, "glr_hw_frames_acquire: %s is NULL", !frames ? "frames" : "frame");
        return frames->acquire(frame, timeout_ns);
    });
}

void glr_hw_frames_get_stats(const glr_hw_frames *frames, struct glr_ring_stats *stats)
{
    if (stats)
        *stats = frames ? frames->stats() : glr_ring_stats{};
}

void glr_hw_frames_destroy(glr_hw_frames **frames)
{
    if (!frames || !*frames)
        return;
    glr_hw_frames *f = *frames;
    *frames = nullptr;
    boundary(f->log(), [&] {
        delete f;
        return 0;
    });
}

} // extern "C"

#ifdef GLREADER_TEST_SEAMS
extern "C" void glr_internal_hw_frames_marks_unsignalled(glr_hw_frames *frames, int polls)
{
    if (frames)
        frames->marks_unsignalled(polls);
}
#endif
