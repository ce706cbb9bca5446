#include "av/frame_pool.hpp"

#include "error.hpp"

extern "C" {
#include <libavutil/imgutils.h>
#include <libavutil/pixdesc.h>
}

#include <cerrno>
#include <climits>

namespace glr {

namespace {
constexpr int plane_alignment = 64; // what libav's SIMD code is happiest with
}

frame_pool::frame_pool(int width, int height, AVPixelFormat format)
    : width_(width), height_(height), format_(format)
{
    const char *name = av_get_pix_fmt_name(format);
    name = name ? name : "an unknown pixel format";
    // FFmpeg's own bound on a picture (av_image_check_size): (width + 128) x (height + 128)
    // below INT_MAX / 8, about 268 million.
    if (av_image_check_size(static_cast<unsigned>(width), static_cast<unsigned>(height), 0, nullptr) < 0)
        fail(GLR_ERROR_CODEC, "cannot make %dx%d frames of %s: FFmpeg takes pictures of fewer than about %d "
             "million pixels (av_image_check_size); make the frame smaller", width, height, name,
             INT_MAX / 8 / 1000000);
    int size = av_image_get_buffer_size(format, width, height, plane_alignment);
    if (size < 0)
        fail(GLR_ERROR_CODEC, "cannot make %dx%d frames of %s: their size overflows FFmpeg's int", width, height,
             name);
    pool_ = av_buffer_pool_init(static_cast<size_t>(size), nullptr);
    if (!pool_)
        fail(-ENOMEM, "out of memory for a frame pool");
}

frame_pool::~frame_pool() { av_buffer_pool_uninit(&pool_); }

AVFrame *frame_pool::get()
{
    AVFrame *frame = av_frame_alloc();
    if (frame)
        frame->buf[0] = av_buffer_pool_get(pool_);
    if (!frame || !frame->buf[0]) {
        av_frame_free(&frame);
        fail(-ENOMEM, "out of memory for a frame");
    }
    frame->width = width_;
    frame->height = height_;
    frame->format = format_;
    av_image_fill_arrays(frame->data, frame->linesize, frame->buf[0]->data, format_, width_,
                         height_, plane_alignment);
    return frame;
}

} // namespace glr
