// Hardware frames for NVIDIA's encoders (*_nvenc), in CUDA memory: FFmpeg's AV_PIX_FMT_CUDA
// frames. The ring's conversion (glr_converter) writes each plane into GL textures of our
// own, registered with CUDA once (cuGraphicsGLRegisterImage); each frame's planes are then
// copied GPU to GPU into a pooled frame on the CUDA stream glreader sets in the device
// context, which FFmpeg's encoders and transfers use too: stream-ordered, with no host wait.
// CUDA is loaded at run time through FFmpeg's ffnvcodec loader: no toolkit at build time,
// and a machine without NVIDIA's driver gets a refusal naming it.
//
// Ordering: mapping the textures on the stream orders the copies after the GL conversion
// issued before it; unmapping orders GL's next writes after the copies; a frame's mark is a
// CUDA event after its copies, which glr_hw_frames waits on before it hands the frame on.
// Threads: every call with the GL context current; the frames go to any thread.
#pragma once

#include "av/hw_frame_kind.hpp"

#include "glreader/convert.h"

#include <memory>
#include <string>

namespace glr::av {

struct cuda_driver; // the CUDA functions, loaded once for a device

// The CUDA device behind the current GL context, or the one spec numbers (as CUDA numbers
// devices under CUDA_VISIBLE_DEVICES: "0"), which must be the GL context's, as an
// AVHWDeviceContext with a stream of glreader's own. Throws glr::failure naming what is
// missing: no CUDA driver, a GL context on no CUDA device (Mesa's),
// a device that is not GL's (that this FFmpeg has CUDA at all, glr_hw_frames checks before).
// The caller owns the reference (av_buffer_unref).
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

    AVBufferRef *frames_context() const override { return frames_; }
    const char *path() const override { return "cuda-frames+cuda-event"; }
    converted convert(const glr_source &source) override;
    int wait(void *mark, uint64_t timeout_ns) override;
    void forget(void *mark) override;

private:
    // The textures the conversion writes, registered with CUDA. Two sets: GL converts the
    // next frame into one while the copies read the other.
    struct texture_set {
        unsigned textures[4] = {};
        void *resources[4] = {}; // CUgraphicsResource
    };
    void release();

    glr_log *log_;
    glr_converter_params params_;
    glr_color color_{};
    glr_converter *converter_;
    AVBufferRef *frames_ = nullptr;
    std::shared_ptr<cuda_driver> cuda_;
    int planes_ = 0;
    texture_set sets_[2];
    int next_set_ = 0;
};

} // namespace glr::av
