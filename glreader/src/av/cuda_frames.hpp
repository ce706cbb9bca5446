// Hardware frames for NVIDIA's encoders (*_nvenc), in CUDA memory: FFmpeg's AV_PIX_FMT_CUDA
// frames. The ring's conversion (glr_converter) writes each plane into GL textures
// registered with CUDA once; each frame's planes are then copied GPU to GPU into a pooled
// frame on the CUDA stream glreader sets in the device context, which FFmpeg's encoders
// and transfers use too: stream-ordered, with no host wait. The CUDA side is the
// header-only bridge the FFmpeg filter shares (glreader/utils/libav_cuda_frames.h), which
// loads CUDA at run time through FFmpeg's ffnvcodec loader: no toolkit at build time, and a
// machine without NVIDIA's driver gets a refusal naming it.
//
// Ordering: a frame's mark is a CUDA event after its copies, which glr_hw_frames waits on
// before it hands the frame on. Threads: every call with the GL context current; the frames
// go to any thread.
#pragma once

#include "av/hw_frame_kind.hpp"

#include "glreader/convert.h"
#include "glreader/utils/libav_cuda_frames.h"

#include <string>

namespace glr::av {

// The CUDA device behind the current GL context, or the one spec numbers (as CUDA numbers
// devices under CUDA_VISIBLE_DEVICES: "0"), which must be the GL context's, as an
// AVHWDeviceContext with a stream of glreader's own (glr_av_cuda_device_for_gl). Throws
// glr::failure naming what is missing: no CUDA driver, a GL context on no CUDA device
// (Mesa's), a device that is not GL's (that this FFmpeg has CUDA at all, glr_hw_frames
// checks before). The caller owns the reference (av_buffer_unref).
AVBufferRef *cuda_device_for_gl(const glr_log *log, const std::string &spec);

// Converts GL frames into CUDA frames of a pool it makes on device (cuda_device_for_gl's):
// format's planes (NV12, P010, I420, YUV444), width x height; with converter (made for
// params, outliving this).
class cuda_frames : public hw_frame_kind {
public:
    cuda_frames(const glr_log *log, AVBufferRef *device, const glr_converter_params &params,
                glr_converter *converter);
    ~cuda_frames() override; // the GL context current
    cuda_frames(const cuda_frames &) = delete;
    cuda_frames &operator=(const cuda_frames &) = delete;

    AVBufferRef *frames_context() const override { return cuda_.pool; }
    const char *path() const override { return "cuda-frames+cuda-event"; }
    converted convert(const glr_source &source) override;
    int wait(void *mark, uint64_t timeout_ns) override;
    void forget(void *mark) override;

private:
    glr_log *log_;
    glr_av_cuda_frames cuda_{}; // the pool, the registered textures, the frames' colour tags
};

} // namespace glr::av
