#include "av/hw_frame_kind.hpp"

#include "av/av_error.hpp"
#include "error.hpp"

#include "glreader/utils/libav.h"

extern "C" {
#include <libavutil/pixdesc.h>
}

#include <cerrno>

namespace glr::av {

AVBufferRef *make_frames_pool(AVBufferRef *device, AVPixelFormat hw, const char *kind,
                              const glr_converter_params &params,
                              const std::function<void(AVHWFramesContext &)> &configure)
{
    AVPixelFormat sw_format = glr_av_pix_fmt(params.format);
    AVBufferRef *pool = av_hwframe_ctx_alloc(device);
    if (!pool)
        fail(-ENOMEM, "out of memory for a %s frames context", kind);
    auto *ctx = reinterpret_cast<AVHWFramesContext *>(pool->data);
    ctx->format = hw;
    ctx->sw_format = sw_format;
    ctx->width = params.width;
    ctx->height = params.height;
    if (configure)
        configure(*ctx);
    int err = av_hwframe_ctx_init(pool);
    if (err < 0) {
        av_buffer_unref(&pool);
        fail(code_of_av_error(err), "FFmpeg cannot make %dx%d %s frames of %s: %s", params.width, params.height, kind,
             av_get_pix_fmt_name(sw_format), av_error_text(err).c_str());
    }
    return pool;
}

bool ffmpeg_has(AVHWDeviceType type)
{
    for (AVHWDeviceType t = av_hwdevice_iterate_types(AV_HWDEVICE_TYPE_NONE); t != AV_HWDEVICE_TYPE_NONE;
         t = av_hwdevice_iterate_types(t))
        if (t == type)
            return true;
    return false;
}

AVFrame *pooled_frame(AVBufferRef *pool, const char *kind)
{
    AVFrame *frame = av_frame_alloc();
    if (!frame)
        fail(-ENOMEM, "out of memory for a frame");
    int err = av_hwframe_get_buffer(pool, frame, 0);
    if (err < 0) {
        av_frame_free(&frame);
        fail(code_of_av_error(err), "no %s frame from the pool: %s", kind, av_error_text(err).c_str());
    }
    return frame;
}

} // namespace glr::av
