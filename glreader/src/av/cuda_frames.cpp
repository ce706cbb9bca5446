#include "av/cuda_frames.hpp"

#include "av/logged_failure.hpp"

namespace glr::av {

AVBufferRef *cuda_device_for_gl(const glr_log *log, const std::string &spec)
{
    AVBufferRef *device = nullptr;
    check(glr_av_cuda_device_for_gl(const_cast<glr_log *>(log), spec.c_str(), &device));
    return device;
}

cuda_frames::cuda_frames(const glr_log *log, AVBufferRef *device, const glr_converter_params &params,
                         glr_converter *converter)
    : log_(const_cast<glr_log *>(log))
{
    check(glr_av_cuda_frames_init(&cuda_, log_, device, &params, converter));
}

cuda_frames::~cuda_frames() { glr_av_cuda_frames_uninit(&cuda_); }

hw_frame_kind::converted cuda_frames::convert(const glr_source &source)
{
    AVFrame *frame = nullptr;
    CUevent event = nullptr;
    check(glr_av_cuda_convert(&cuda_, log_, &source, &frame, &event));
    return {frame, event};
}

int cuda_frames::wait(void *mark, uint64_t timeout_ns)
{
    return check(glr_av_cuda_wait(&cuda_, log_, static_cast<CUevent>(mark), timeout_ns));
}

void cuda_frames::forget(void *mark) { glr_av_cuda_forget(&cuda_, static_cast<CUevent>(mark)); }

} // namespace glr::av
