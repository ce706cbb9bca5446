// Reusable AVFrames of one size and pixel format. Buffers come back to the pool when
// libavcodec drops its last reference, so steady-state encoding allocates nothing (fresh
// memory costs page faults on every frame).
#pragma once

extern "C" {
#include <libavutil/buffer.h>
#include <libavutil/frame.h>
#include <libavutil/pixfmt.h>
}

namespace glr {

class frame_pool {
public:
    frame_pool(int width, int height, AVPixelFormat format);
    ~frame_pool();
    frame_pool(const frame_pool &) = delete;
    frame_pool &operator=(const frame_pool &) = delete;

    // A frame with its planes laid out in one pooled buffer; throws glr::failure when out
    // of memory. The caller owns the AVFrame (av_frame_free).
    AVFrame *get();

private:
    int width_, height_;
    AVPixelFormat format_;
    AVBufferPool *pool_ = nullptr;
};

} // namespace glr
