// One kind of hardware frames behind glr_hw_frames (Vulkan's, CUDA's): its pool, a GL frame
// converted into a pooled frame, and a mark behind that work which tells when it is done,
// so that no frame reaches an encoder before its memory holds the whole picture.
#pragma once

#include "glreader/convert.h"
#include "glreader/ring.h"

extern "C" {
#include <libavutil/buffer.h>
#include <libavutil/frame.h>
#include <libavutil/hwcontext.h>
}

#include <cstdint>

namespace glr::av {

class hw_frame_kind {
public:
    virtual ~hw_frame_kind() = default;

    // The pool, for an encoder's hw_frames_ctx (a new reference is the caller's).
    virtual AVBufferRef *frames_context() const = 0;
    // How frames reach the pool and are waited for, for the statistics ("vulkan-frames+gl-fence").
    virtual const char *path() const = 0;

    struct converted {
        AVFrame *frame; // the caller's (av_frame_free), pts unset, tagged with the colour
        void *mark;     // for wait and forget
    };
    // Converts source's frame into a frame of the pool; returns without waiting for the GPU.
    // Throws glr::failure with the reason logged.
    virtual converted convert(const glr_source &source) = 0;
    // 1 once the work behind mark is done, 0 when timeout_ns passed first. Throws.
    virtual int wait(void *mark, uint64_t timeout_ns) = 0;
    // Frees mark (done or not).
    virtual void forget(void *mark) = 0;
};

} // namespace glr::av
