#include "av/cuda_frames.hpp"

#include "av/av_error.hpp"
#include "av/logged_failure.hpp"
#include "error.hpp"

#include "glreader/utils/libav_hw_frames.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <new>
#include <thread>

// The loader's words go into the buffer it is given as its log context (quoted in our
// refusal), not to stderr.
#define FFNV_LOG_FUNC(logctx, msg, ...) std::snprintf(static_cast<char *>(logctx), 256, (msg), __VA_ARGS__)
#define FFNV_DEBUG_LOG_FUNC(logctx, msg, ...)
#include <ffnvcodec/dynlink_loader.h>

extern "C" {
#include <libavutil/hwcontext.h>
#include <libavutil/hwcontext_cuda.h> // after ffnvcodec's, which declares CUDA's types
#include <libavutil/imgutils.h>
#include <libavutil/pixdesc.h>
}

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace glr::av {

struct cuda_driver {
    CudaFunctions *cu = nullptr;
    CUdevice device = 0;
    CUcontext context = nullptr; // the device's primary context, retained
    CUstream stream = nullptr;   // glreader's, set in the device context
    cuda_driver() = default;
    cuda_driver(const cuda_driver &) = delete;
    cuda_driver &operator=(const cuda_driver &) = delete;
    ~cuda_driver()
    {
        if (!cu)
            return;
        if (stream && cu->cuCtxPushCurrent(context) == CUDA_SUCCESS) {
            cu->cuStreamDestroy(stream);
            CUcontext popped;
            cu->cuCtxPopCurrent(&popped);
        }
        if (context)
            cu->cuDevicePrimaryCtxRelease(device);
        cuda_free_functions(&cu);
    }
};

namespace {

constexpr GLenum gl_texture_2d = 0x0DE1;
constexpr unsigned max_gl_devices = 16;

std::string error_name(const CudaFunctions &cu, CUresult result)
{
    const char *name = nullptr;
    if (cu.cuGetErrorName(result, &name) != CUDA_SUCCESS || !name)
        return "CUDA error " + std::to_string(static_cast<int>(result));
    return name;
}

void cuda_check(const CudaFunctions &cu, CUresult result, const char *what)
{
    if (result != CUDA_SUCCESS)
        fail(GLR_ERROR_UNSUPPORTED, "%s: %s", what, error_name(cu, result).c_str());
}

// The driver's context current on this thread while it lives (CUDA's calls need one).
// Throwing: for work; or, for freeing, made() says whether it could be pushed.
class current_context {
public:
    explicit current_context(const cuda_driver &d) : current_context(d, std::nothrow)
    {
        cuda_check(cu_, pushed_, "cuCtxPushCurrent");
    }
    current_context(const cuda_driver &d, std::nothrow_t) : cu_(*d.cu), pushed_(cu_.cuCtxPushCurrent(d.context)) {}
    ~current_context()
    {
        CUcontext popped;
        if (made())
            cu_.cuCtxPopCurrent(&popped);
    }
    bool made() const { return pushed_ == CUDA_SUCCESS; }
    current_context(const current_context &) = delete;
    current_context &operator=(const current_context &) = delete;

private:
    const CudaFunctions &cu_;
    CUresult pushed_;
};

// The loader's last words, without their line end.
std::string said(const char *text)
{
    std::string s = text;
    while (!s.empty() && (s.back() == '\n' || s.back() == ' '))
        s.pop_back();
    return s;
}

std::shared_ptr<cuda_driver> &driver_of(AVBufferRef *device)
{
    return *static_cast<std::shared_ptr<cuda_driver> *>(reinterpret_cast<AVHWDeviceContext *>(device->data)->user_opaque);
}

} // namespace

AVBufferRef *cuda_device_for_gl(const glr_log *log, const std::string &spec)
{
    AVBufferRef *device = av_hwdevice_ctx_alloc(AV_HWDEVICE_TYPE_CUDA);
    if (!device)
        fail(-ENOMEM, "out of memory for a CUDA device context");
    try {
        auto driver = std::make_shared<cuda_driver>();
        auto *ctx = reinterpret_cast<AVHWDeviceContext *>(device->data);
        // Kept as long as the device context (the encoder's frames hold it): FFmpeg leaves a
        // context and a stream it was given to the caller to free.
        ctx->user_opaque = new std::shared_ptr<cuda_driver>(driver);
        ctx->free = [](AVHWDeviceContext *c) { delete static_cast<std::shared_ptr<cuda_driver> *>(c->user_opaque); };
        char words[256] = "";
        if (cuda_load_functions(&driver->cu, words) < 0)
            fail(GLR_ERROR_UNSUPPORTED, "no CUDA driver: %s (NVIDIA's driver is not installed here, or not visible)",
                 said(words).c_str());
        const CudaFunctions &cu = *driver->cu;
        cuda_check(cu, cu.cuInit(0), "CUDA does not start (cuInit)");
        unsigned count = 0;
        CUdevice gl_devices[max_gl_devices];
        CUresult found = cu.cuGLGetDevices(&count, gl_devices, max_gl_devices, CU_GL_DEVICE_LIST_ALL);
        if (found != CUDA_SUCCESS || count == 0)
            fail(GLR_ERROR_UNSUPPORTED,
                 "the GL context runs on no CUDA device (cuGLGetDevices: %s): CUDA frames need NVIDIA's GL (an EGL "
                 "device of NVIDIA's, GLR_EGL_DEVICE=cuda:N)",
                 found == CUDA_SUCCESS ? "none" : error_name(cu, found).c_str());
        CUdevice chosen = gl_devices[0];
        if (!spec.empty()) {
            char *end = nullptr;
            long ordinal = std::strtol(spec.c_str(), &end, 10);
            if (end == spec.c_str() || *end || ordinal < 0 || cu.cuDeviceGet(&chosen, static_cast<int>(ordinal)) != CUDA_SUCCESS)
                fail(-ENODEV, "no CUDA device %s (FFmpeg's -init_hw_device cuda:%s; CUDA numbers them from 0)",
                     spec.c_str(), spec.c_str());
            if (std::find(gl_devices, gl_devices + count, chosen) == gl_devices + count)
                fail(GLR_ERROR_UNSUPPORTED,
                     "CUDA device %s is not the one the GL context runs on: GL writes the frames, so CUDA frames live "
                     "on GL's device (leave the device out, or render on it: GLR_EGL_DEVICE=cuda:%s)",
                     spec.c_str(), spec.c_str());
        }
        driver->device = chosen;
        cuda_check(cu, cu.cuDevicePrimaryCtxRetain(&driver->context, chosen), "cuDevicePrimaryCtxRetain");
        {
            current_context scope(*driver);
            cuda_check(cu, cu.cuStreamCreate(&driver->stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
        }
        auto *hw = static_cast<AVCUDADeviceContext *>(ctx->hwctx);
        hw->cuda_ctx = driver->context;
        hw->stream = driver->stream;
        int err = av_hwdevice_ctx_init(device);
        if (err < 0)
            fail(code_of_av_error(err), "FFmpeg cannot use the CUDA device: %s", av_error_text(err).c_str());
        char name[128] = "";
        cu.cuDeviceGetName(name, sizeof name, chosen);
        glr_log_message(log, GLR_LOG_INFO,
                        ("hardware frames: CUDA device " + std::to_string(static_cast<int>(chosen)) + " (" + name +
                         "), the GL context's")
                            .c_str());
        return device;
    } catch (...) {
        av_buffer_unref(&device);
        throw;
    }
}

cuda_frames::cuda_frames(const glr_log *log, AVBufferRef *device, const glr_converter_params &params,
                         glr_converter *converter)
    : log_(const_cast<glr_log *>(log)), params_(params), converter_(converter), cuda_(driver_of(device))
{
    glr_color_resolve(params.format, &params.color, &color_); // the converter took it
    try {
        check(glr_av_hw_frames_pool(log_, device, AV_PIX_FMT_CUDA, "CUDA", &params, nullptr, &frames_));
        planes_ = av_pix_fmt_count_planes(glr_av_pix_fmt(params.format));
        const CudaFunctions &cu = *cuda_->cu;
        for (texture_set &set : sets_) {
            check(glr_converter_make_textures(converter_, set.textures));
            current_context scope(*cuda_);
            for (int p = 0; p < planes_; p++) {
                CUgraphicsResource resource = nullptr;
                CUresult r = cu.cuGraphicsGLRegisterImage(&resource, set.textures[p], gl_texture_2d,
                                                          CU_GRAPHICS_REGISTER_FLAGS_READ_ONLY);
                if (r != CUDA_SUCCESS)
                    fail(GLR_ERROR_UNSUPPORTED, "CUDA cannot read GL's texture of plane %d (internal format 0x%x): %s", p,
                         glr_converter_plane_format(converter_, p), error_name(cu, r).c_str());
                set.resources[p] = resource;
            }
        }
    } catch (...) {
        release();
        throw;
    }
}

cuda_frames::~cuda_frames() { release(); }

void cuda_frames::release()
{
    {
        current_context scope(*cuda_, std::nothrow);
        // The copies still reading the textures end before CUDA lets go of them.
        if (scope.made())
            cuda_->cu->cuStreamSynchronize(cuda_->stream);
        for (texture_set &set : sets_)
            for (void *&resource : set.resources) {
                if (resource && scope.made())
                    cuda_->cu->cuGraphicsUnregisterResource(static_cast<CUgraphicsResource>(resource));
                resource = nullptr;
            }
    }
    for (texture_set &set : sets_)
        glr_converter_delete_textures(converter_, set.textures);
    av_buffer_unref(&frames_);
}

hw_frame_kind::converted cuda_frames::convert(const glr_source &source)
{
    const CudaFunctions &cu = *cuda_->cu;
    AVFrame *frame = nullptr;
    check(glr_av_hw_pooled_frame(log_, frames_, "CUDA", &frame));
    try {
        texture_set &set = sets_[next_set_];
        next_set_ ^= 1;
        check(glr_converter_convert(converter_, &source, set.textures));
        glr_av_set_color(frame, &color_);

        current_context scope(*cuda_);
        CUstream stream = cuda_->stream;
        auto *resources = reinterpret_cast<CUgraphicsResource *>(set.resources);
        // Ordered after the GL conversion issued above, on the stream: no host wait.
        cuda_check(cu, cu.cuGraphicsMapResources(static_cast<unsigned>(planes_), resources, stream),
                   "mapping GL's planes for CUDA (cuGraphicsMapResources)");
        CUresult copied = CUDA_SUCCESS;
        auto sw_format = static_cast<AVPixelFormat>(reinterpret_cast<AVHWFramesContext *>(frames_->data)->sw_format);
        for (int p = 0; p < planes_ && copied == CUDA_SUCCESS; p++) {
            CUarray array = nullptr;
            copied = cu.cuGraphicsSubResourceGetMappedArray(&array, resources[p], 0, 0);
            if (copied != CUDA_SUCCESS)
                break;
            CUDA_MEMCPY2D m{};
            m.srcMemoryType = CU_MEMORYTYPE_ARRAY;
            m.srcArray = array;
            m.dstMemoryType = CU_MEMORYTYPE_DEVICE;
            m.dstDevice = reinterpret_cast<CUdeviceptr>(frame->data[p]);
            m.dstPitch = static_cast<size_t>(frame->linesize[p]);
            m.WidthInBytes = static_cast<size_t>(av_image_get_linesize(sw_format, params_.width, p));
            m.Height = static_cast<size_t>(glr_format_plane_rows(params_.format, p, params_.height));
            copied = cu.cuMemcpy2DAsync(&m, stream);
        }
        // Unmapped in every case; GL's next writes into these textures wait for the copies.
        CUresult unmapped = cu.cuGraphicsUnmapResources(static_cast<unsigned>(planes_), resources, stream);
        cuda_check(cu, copied, "copying GL's planes into the CUDA frame");
        cuda_check(cu, unmapped, "cuGraphicsUnmapResources");
        CUevent event = nullptr;
        cuda_check(cu, cu.cuEventCreate(&event, CU_EVENT_DISABLE_TIMING), "cuEventCreate");
        CUresult recorded = cu.cuEventRecord(event, stream);
        if (recorded != CUDA_SUCCESS) {
            cu.cuEventDestroy(event);
            cuda_check(cu, recorded, "cuEventRecord");
        }
        return {frame, event};
    } catch (...) {
        av_frame_free(&frame);
        throw;
    }
}

int cuda_frames::wait(void *mark, uint64_t timeout_ns)
{
    const CudaFunctions &cu = *cuda_->cu;
    auto event = static_cast<CUevent>(mark);
    current_context scope(*cuda_);
    if (timeout_ns == UINT64_MAX) {
        cuda_check(cu, cu.cuEventSynchronize(event), "waiting for a CUDA frame's copies (cuEventSynchronize)");
        return 1;
    }
    // CUDA has no wait with a timeout: the event is looked at until it passes.
    auto deadline = std::chrono::steady_clock::now() + std::chrono::nanoseconds(timeout_ns);
    for (;;) {
        CUresult r = cu.cuEventQuery(event);
        if (r == CUDA_SUCCESS)
            return 1;
        if (r != CUDA_ERROR_NOT_READY)
            cuda_check(cu, r, "a CUDA frame's copies (cuEventQuery)");
        if (std::chrono::steady_clock::now() >= deadline)
            return 0;
        std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
}

void cuda_frames::forget(void *mark)
{
    current_context scope(*cuda_, std::nothrow);
    if (scope.made())
        cuda_->cu->cuEventDestroy(static_cast<CUevent>(mark));
}

} // namespace glr::av
