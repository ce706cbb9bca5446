/*
 * glreader: a header-only bridge from GL to FFmpeg's CUDA frames (AV_PIX_FMT_CUDA), for
 * NVIDIA's encoders (*_nvenc), used by glreader-av's hardware frames and the FFmpeg source
 * filter alike: the CUDA device behind the current GL context, with a stream of glreader's
 * own, or a device FFmpeg made (-init_hw_device cuda) checked to be GL's; a pool of frames;
 * the converter's planes written into GL textures of the bridge's own, registered with CUDA
 * once (cuGraphicsGLRegisterImage), and copied GPU to GPU into each pooled frame on the
 * device's stream, which FFmpeg's encoders and transfers use too: stream-ordered, with no
 * host wait. CUDA is loaded at run time through FFmpeg's ffnvcodec loader: no toolkit at
 * build time, and a machine without NVIDIA's driver gets a refusal naming it.
 *
 *   AVBufferRef *device;
 *   struct glr_av_cuda_frames cf;
 *   glr_av_cuda_device_for_gl(log, "", &device);            (-init_hw_device cuda)
 *   glr_av_cuda_frames_init(&cf, log, device, &converter_params, converter);
 *   glr_av_cuda_convert(&cf, log, &source, &frame, &event);  glr_av_cuda_wait on the event,
 *                                                            glr_av_cuda_forget it, hand the
 *                                                            frame on
 *   glr_av_cuda_frames_uninit(&cf);
 *
 * Ordering: mapping the textures on the stream orders the copies after the GL conversion
 * issued before it; unmapping orders GL's next writes after the copies (two sets of
 * textures: GL converts the next frame into one while the copies read the other); a frame's
 * event follows its copies.
 *
 * Static inline, compiled against the FFmpeg it is built with (its hwcontext_cuda.h) and
 * ffnvcodec's headers; include it before ffnvcodec's dynlink_loader.h, whose log function it
 * sets (the loader's words are quoted in the refusal). Where that FFmpeg was built without
 * CUDA, making the device fails: ask glr_av_has_device_type(AV_HWDEVICE_TYPE_CUDA) first to
 * say so. Those that can fail return 0 or a negative glreader code with the reason logged and
 * kept as the thread's last error (glr_last_error()). Threads: with the GL context current.
 */
#ifndef GLREADER_UTILS_LIBAV_CUDA_FRAMES_H
#define GLREADER_UTILS_LIBAV_CUDA_FRAMES_H

#include "glreader/utils/libav_hw_frames.h"

#ifdef FFNV_LOG_FUNC
#error "include glreader/utils/libav_cuda_frames.h before ffnvcodec/dynlink_loader.h"
#endif
/* The loader's words go into the buffer it is given as its log context, not to stderr. */
#define FFNV_LOG_FUNC(logctx, msg, ...) snprintf((char *)(logctx), 256, (msg), __VA_ARGS__)
#define FFNV_DEBUG_LOG_FUNC(logctx, msg, ...)
#include <ffnvcodec/dynlink_loader.h>

#ifdef __cplusplus
extern "C" {
#endif
#include <libavutil/hwcontext_cuda.h> /* after ffnvcodec's, which declares CUDA's types */
#include <libavutil/imgutils.h>
#include <libavutil/mem.h>
#include <libavutil/pixdesc.h>
#include <libavutil/time.h>
#ifdef __cplusplus
}
#endif

#include <stdint.h>
#include <stdlib.h>

/* The textures the conversion writes, and their registrations with CUDA. */
struct glr_av_cuda_texture_set {
    unsigned textures[4];
    CUgraphicsResource resources[4];
};

/* A pool of CUDA frames, and the GL textures copied into them. Zeroed before
 * glr_av_cuda_frames_init. */
struct glr_av_cuda_frames {
    AVBufferRef *pool; /* the frames context (AVHWFramesContext): the caller's to reference */
    struct glr_converter_params params;
    glr_converter *converter; /* the caller's, made for params */
    struct glr_color color;   /* params' resolved: the frames' tags, as the ring's */
    CudaFunctions *cu;        /* loaded for these frames */
    CUcontext context;        /* the device's */
    CUstream stream;          /* the device's, which FFmpeg uses too */
    int planes;
    struct glr_av_cuda_texture_set sets[2];
    int next_set;
};

/* The CUDA side of a device the bridge made: freed with its device context. */
struct glr_av_cuda_device_ {
    CudaFunctions *cu;
    CUdevice device;
    CUcontext context; /* the device's primary context, retained */
    CUstream stream;   /* glreader's, set in the device context */
};

/* CUDA's name for result, in name (size bytes). */
static inline const char *glr_av_cuda_error_(CudaFunctions *cu, CUresult result, char *name, size_t size)
{
    const char *text = NULL;

    if (cu->cuGetErrorName(result, &text) != CUDA_SUCCESS || !text)
        snprintf(name, size, "CUDA error %d", (int)result);
    else
        snprintf(name, size, "%s", text);
    return name;
}

/* Fails with "what: CUDA's name for result" unless it succeeded. */
static inline int glr_av_cuda_check_(glr_log *log, CudaFunctions *cu, CUresult result, const char *what)
{
    char message[400], name[64];

    if (result == CUDA_SUCCESS)
        return 0;
    snprintf(message, sizeof(message), "%s: %s", what, glr_av_cuda_error_(cu, result, name, sizeof(name)));
    return glr_av_fail_(log, GLR_ERROR_UNSUPPORTED, message);
}

/* Loads CUDA's functions into *cu, or refuses naming the driver missing (the loader's words). */
static inline int glr_av_cuda_load_(glr_log *log, CudaFunctions **cu)
{
    char words[256] = "", message[400];
    size_t n;

    if (cuda_load_functions(cu, words) >= 0)
        return 0;
    for (n = strlen(words); n > 0 && (words[n - 1] == '\n' || words[n - 1] == ' '); n--)
        words[n - 1] = '\0';
    snprintf(message, sizeof(message), "no CUDA driver: %s (NVIDIA's driver is not installed here, or not visible)",
             words);
    return glr_av_fail_(log, GLR_ERROR_UNSUPPORTED, message);
}

static inline void glr_av_cuda_device_free_(AVHWDeviceContext *ctx)
{
    struct glr_av_cuda_device_ *d = (struct glr_av_cuda_device_ *)ctx->user_opaque;
    CUcontext popped;

    if (!d)
        return;
    if (d->cu) {
        if (d->stream && d->cu->cuCtxPushCurrent(d->context) == CUDA_SUCCESS) {
            d->cu->cuStreamDestroy(d->stream);
            d->cu->cuCtxPopCurrent(&popped);
        }
        if (d->context)
            d->cu->cuDevicePrimaryCtxRelease(d->device);
        cuda_free_functions(&d->cu);
    }
    av_free(d);
}

/* The CUDA devices the current GL context runs on, into devices (*count of them: none on
 * another vendor's GL, Mesa's): cuGLGetDevices's result, CUDA started. */
static inline CUresult glr_av_cuda_list_gl_devices_(CudaFunctions *cu, CUdevice devices[16], unsigned *count)
{
    CUresult found;

    *count = 0;
    if ((found = cu->cuGLGetDevices(count, devices, 16, CU_GL_DEVICE_LIST_ALL)) != CUDA_SUCCESS)
        *count = 0;
    return found;
}

/* The CUDA devices the current GL context runs on, into gl_devices (up to 16; *count), or a
 * refusal: GL on no CUDA device (Mesa's). CUDA started (cuInit). */
static inline int glr_av_cuda_gl_devices_(glr_log *log, CudaFunctions *cu, CUdevice gl_devices[16], unsigned *count)
{
    char message[400], name[64];
    CUresult found;
    int ret;

    if ((ret = glr_av_cuda_check_(log, cu, cu->cuInit(0), "CUDA does not start (cuInit)")) < 0)
        return ret;
    found = glr_av_cuda_list_gl_devices_(cu, gl_devices, count);
    if (found == CUDA_SUCCESS && *count > 0)
        return 0;
    snprintf(message, sizeof(message), "the GL context runs on no CUDA device (cuGLGetDevices: %s): CUDA frames need "
             "NVIDIA's GL (an EGL device of NVIDIA's, GLR_EGL_DEVICE=cuda:N)",
             found == CUDA_SUCCESS ? "none" : glr_av_cuda_error_(cu, found, name, sizeof(name)));
    return glr_av_fail_(log, GLR_ERROR_UNSUPPORTED, message);
}

static inline int glr_av_cuda_is_one_of_(CUdevice device, const CUdevice *devices, unsigned count)
{
    unsigned i;

    for (i = 0; i < count; i++)
        if (devices[i] == device)
            return 1;
    return 0;
}

/* Makes in *device the CUDA device behind the current GL context, or the one spec numbers
 * (as CUDA numbers devices under CUDA_VISIBLE_DEVICES: "0"; empty or NULL: GL's), which must
 * be the GL context's, with a stream of glreader's own. Refuses naming what is missing: no
 * CUDA driver, a GL context on no CUDA device (Mesa's), a device that is not GL's. The
 * caller owns *device. */
static inline int glr_av_cuda_device_for_gl(glr_log *log, const char *spec, AVBufferRef **device)
{
    struct glr_av_cuda_device_ *d;
    AVHWDeviceContext *ctx;
    AVCUDADeviceContext *hw;
    CUdevice gl_devices[16], chosen;
    CUcontext popped;
    unsigned count;
    char message[600], name[128] = "", why[AV_ERROR_MAX_STRING_SIZE], *end = NULL;
    long ordinal;
    int ret;

    if (!(*device = av_hwdevice_ctx_alloc(AV_HWDEVICE_TYPE_CUDA)))
        return glr_av_fail_(log, -ENOMEM, "out of memory for a CUDA device context");
    ctx = (AVHWDeviceContext *)(*device)->data;
    /* Kept as long as the device context (the encoder's frames hold it): FFmpeg leaves a
     * context and a stream it was given to the caller to free. */
    if (!(d = (struct glr_av_cuda_device_ *)av_mallocz(sizeof(*d)))) {
        av_buffer_unref(device);
        return glr_av_fail_(log, -ENOMEM, "out of memory for a CUDA device");
    }
    ctx->user_opaque = d;
    ctx->free = glr_av_cuda_device_free_;
    if ((ret = glr_av_cuda_load_(log, &d->cu)) < 0 || (ret = glr_av_cuda_gl_devices_(log, d->cu, gl_devices, &count)) < 0)
        goto fail;
    chosen = gl_devices[0];
    if (spec && *spec) {
        ordinal = strtol(spec, &end, 10);
        if (end == spec || *end || ordinal < 0 || d->cu->cuDeviceGet(&chosen, (int)ordinal) != CUDA_SUCCESS) {
            snprintf(message, sizeof(message), "no CUDA device %.100s (FFmpeg's -init_hw_device cuda:%.100s; CUDA numbers "
                     "them from 0)", spec, spec);
            ret = glr_av_fail_(log, -ENODEV, message);
            goto fail;
        }
        if (!glr_av_cuda_is_one_of_(chosen, gl_devices, count)) {
            snprintf(message, sizeof(message), "CUDA device %.100s is not the one the GL context runs on: GL writes "
                     "the frames, so CUDA frames live on GL's device (leave the device out, or render on it: "
                     "GLR_EGL_DEVICE=cuda:%.100s)", spec, spec);
            ret = glr_av_fail_(log, GLR_ERROR_UNSUPPORTED, message);
            goto fail;
        }
    }
    d->device = chosen;
    if ((ret = glr_av_cuda_check_(log, d->cu, d->cu->cuDevicePrimaryCtxRetain(&d->context, chosen),
                                  "cuDevicePrimaryCtxRetain")) < 0 ||
        (ret = glr_av_cuda_check_(log, d->cu, d->cu->cuCtxPushCurrent(d->context), "cuCtxPushCurrent")) < 0)
        goto fail;
    ret = glr_av_cuda_check_(log, d->cu, d->cu->cuStreamCreate(&d->stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
    d->cu->cuCtxPopCurrent(&popped);
    if (ret < 0)
        goto fail;
    hw = (AVCUDADeviceContext *)ctx->hwctx;
    hw->cuda_ctx = d->context;
    hw->stream = d->stream;
    if ((ret = av_hwdevice_ctx_init(*device)) < 0) {
        av_strerror(ret, why, sizeof(why));
        snprintf(message, sizeof(message), "FFmpeg cannot use the CUDA device: %s", why);
        ret = glr_av_fail_(log, glr_av_code_of(ret), message);
        goto fail;
    }
    d->cu->cuDeviceGetName(name, sizeof(name), chosen);
    snprintf(message, sizeof(message), "hardware frames: CUDA device %d (%s), the GL context's", (int)chosen, name);
    glr_log_message(log, GLR_LOG_INFO, message);
    return 0;
fail:
    av_buffer_unref(device);
    return ret;
}

/* Whether device (a CUDA AVHWDeviceContext, FFmpeg's own: -init_hw_device cuda) is one the
 * current GL context runs on: 1, or 0 (another, or GL runs on no CUDA device: not logged,
 * the device's name and why not in name), or a negative code where CUDA cannot say
 * (logged). */
static inline int glr_av_cuda_device_is_gl(glr_log *log, AVBufferRef *device, char *name, size_t size)
{
    const AVCUDADeviceContext *hw = (const AVCUDADeviceContext *)((AVHWDeviceContext *)device->data)->hwctx;
    CudaFunctions *cu = NULL;
    CUdevice gl_devices[16], given = 0;
    CUcontext popped;
    unsigned count = 0;
    char device_name[128] = "";
    int ret;

    if ((ret = glr_av_cuda_load_(log, &cu)) < 0)
        return ret;
    if ((ret = glr_av_cuda_check_(log, cu, cu->cuCtxPushCurrent(hw->cuda_ctx), "cuCtxPushCurrent")) >= 0) {
        ret = glr_av_cuda_check_(log, cu, cu->cuCtxGetDevice(&given), "cuCtxGetDevice");
        glr_av_cuda_list_gl_devices_(cu, gl_devices, &count); /* none: GL on no CUDA device */
        cu->cuCtxPopCurrent(&popped);
    }
    if (ret >= 0) {
        cu->cuDeviceGetName(device_name, sizeof(device_name), given);
        ret = glr_av_cuda_is_one_of_(given, gl_devices, count);
        snprintf(name, size, "CUDA device %d (%s)%s", (int)given, device_name,
                 ret ? "" : count ? ", not the GL context's" : ", and the GL context runs on no CUDA device");
    }
    cuda_free_functions(&cu);
    return ret;
}

/* Deletes cf's registrations (after the copies reading them end) and textures, and the pool
 * reference, and zeroes cf. The GL context current. */
static inline void glr_av_cuda_frames_uninit(struct glr_av_cuda_frames *cf)
{
    CUcontext popped;
    int s, p, pushed = cf->cu && cf->cu->cuCtxPushCurrent(cf->context) == CUDA_SUCCESS;

    if (pushed)
        cf->cu->cuStreamSynchronize(cf->stream);
    for (s = 0; s < 2; s++) {
        for (p = 0; p < 4; p++)
            if (cf->sets[s].resources[p] && pushed)
                cf->cu->cuGraphicsUnregisterResource(cf->sets[s].resources[p]);
        if (cf->converter)
            glr_converter_delete_textures(cf->converter, cf->sets[s].textures);
    }
    if (pushed)
        cf->cu->cuCtxPopCurrent(&popped);
    cuda_free_functions(&cf->cu);
    av_buffer_unref(&cf->pool);
    memset(cf, 0, sizeof(*cf));
}

/* Makes cf's pool of params' frames (a YUV format of the ring, at its size: NV12, P010, I420,
 * YUV444) on device (made by glr_av_cuda_device_for_gl, or one checked by
 * glr_av_cuda_device_is_gl), and the textures converter (made for params, outliving cf)
 * writes, registered with CUDA. */
static inline int glr_av_cuda_frames_init(struct glr_av_cuda_frames *cf, glr_log *log, AVBufferRef *device,
                                          const struct glr_converter_params *params, glr_converter *converter)
{
    const AVCUDADeviceContext *hw = (const AVCUDADeviceContext *)((AVHWDeviceContext *)device->data)->hwctx;
    char message[400], name[64];
    CUcontext popped;
    CUresult r;
    int s, p, ret;

    memset(cf, 0, sizeof(*cf));
    cf->params = *params;
    cf->converter = converter;
    glr_color_resolve(params->format, &params->color, &cf->color); /* as the converter did */
    cf->context = hw->cuda_ctx;
    cf->stream = hw->stream;
    cf->planes = av_pix_fmt_count_planes(glr_av_pix_fmt(params->format));
    if ((ret = glr_av_cuda_load_(log, &cf->cu)) < 0 ||
        (ret = glr_av_hw_frames_pool(log, device, AV_PIX_FMT_CUDA, "CUDA", params, NULL, &cf->pool)) < 0)
        goto fail;
    for (s = 0; s < 2; s++) {
        if ((ret = glr_converter_make_textures(converter, cf->sets[s].textures)) < 0 ||
            (ret = glr_av_cuda_check_(log, cf->cu, cf->cu->cuCtxPushCurrent(cf->context), "cuCtxPushCurrent")) < 0)
            goto fail;
        for (p = 0; p < cf->planes && ret >= 0; p++) {
            r = cf->cu->cuGraphicsGLRegisterImage(&cf->sets[s].resources[p], cf->sets[s].textures[p], 0x0DE1,
                                                  CU_GRAPHICS_REGISTER_FLAGS_READ_ONLY); /* GL_TEXTURE_2D */
            if (r != CUDA_SUCCESS) {
                snprintf(message, sizeof(message), "CUDA cannot read GL's texture of plane %d (internal format 0x%x): %s",
                         p, glr_converter_plane_format(converter, p), glr_av_cuda_error_(cf->cu, r, name, sizeof(name)));
                ret = glr_av_fail_(log, GLR_ERROR_UNSUPPORTED, message);
            }
        }
        cf->cu->cuCtxPopCurrent(&popped);
        if (ret < 0)
            goto fail;
    }
    return 0;
fail:
    glr_av_cuda_frames_uninit(cf);
    return ret;
}

/* Copies the mapped textures of set into frame on cf's stream. */
static inline CUresult glr_av_cuda_copy_planes_(struct glr_av_cuda_frames *cf, struct glr_av_cuda_texture_set *set,
                                                AVFrame *frame)
{
    enum AVPixelFormat sw_format = ((AVHWFramesContext *)cf->pool->data)->sw_format;
    CUDA_MEMCPY2D m;
    CUarray array;
    CUresult r = CUDA_SUCCESS;
    int p;

    for (p = 0; p < cf->planes && r == CUDA_SUCCESS; p++) {
        if ((r = cf->cu->cuGraphicsSubResourceGetMappedArray(&array, set->resources[p], 0, 0)) != CUDA_SUCCESS)
            break;
        memset(&m, 0, sizeof(m));
        m.srcMemoryType = CU_MEMORYTYPE_ARRAY;
        m.srcArray = array;
        m.dstMemoryType = CU_MEMORYTYPE_DEVICE;
        m.dstDevice = (CUdeviceptr)frame->data[p];
        m.dstPitch = (size_t)frame->linesize[p];
        m.WidthInBytes = (size_t)av_image_get_linesize(sw_format, cf->params.width, p);
        m.Height = (size_t)glr_format_plane_rows(cf->params.format, p, cf->params.height);
        r = cf->cu->cuMemcpy2DAsync(&m, cf->stream);
    }
    return r;
}

/* Converts source's frame into a new frame of cf's pool (*frame, the caller's), tagged with
 * the colour as the ring's frames are, and issues the copies without waiting: *event (for
 * glr_av_cuda_wait, then glr_av_cuda_forget) passes once the frame is written, and no one
 * may read it before (FFmpeg's own users of the stream are ordered after it already). */
static inline int glr_av_cuda_convert(struct glr_av_cuda_frames *cf, glr_log *log, const struct glr_source *source,
                                      AVFrame **frame, CUevent *event)
{
    struct glr_av_cuda_texture_set *set = &cf->sets[cf->next_set];
    CUcontext popped;
    CUresult copied, unmapped;
    int ret;

    if ((ret = glr_av_hw_pooled_frame(log, cf->pool, "CUDA", frame)) < 0)
        return ret;
    cf->next_set ^= 1;
    if ((ret = glr_converter_convert(cf->converter, source, set->textures)) < 0 ||
        (ret = glr_av_cuda_check_(log, cf->cu, cf->cu->cuCtxPushCurrent(cf->context), "cuCtxPushCurrent")) < 0) {
        av_frame_free(frame);
        return ret;
    }
    /* Ordered after the GL conversion issued above, on the stream: no host wait. */
    ret = glr_av_cuda_check_(log, cf->cu, cf->cu->cuGraphicsMapResources((unsigned)cf->planes, set->resources, cf->stream),
                             "mapping GL's planes for CUDA (cuGraphicsMapResources)");
    if (ret >= 0) {
        copied = glr_av_cuda_copy_planes_(cf, set, *frame);
        /* Unmapped in every case; GL's next writes into these textures wait for the copies. */
        unmapped = cf->cu->cuGraphicsUnmapResources((unsigned)cf->planes, set->resources, cf->stream);
        if ((ret = glr_av_cuda_check_(log, cf->cu, copied, "copying GL's planes into the CUDA frame")) >= 0 &&
            (ret = glr_av_cuda_check_(log, cf->cu, unmapped, "cuGraphicsUnmapResources")) >= 0 &&
            (ret = glr_av_cuda_check_(log, cf->cu, cf->cu->cuEventCreate(event, CU_EVENT_DISABLE_TIMING),
                                      "cuEventCreate")) >= 0 &&
            (ret = glr_av_cuda_check_(log, cf->cu, cf->cu->cuEventRecord(*event, cf->stream), "cuEventRecord")) < 0)
            cf->cu->cuEventDestroy(*event);
    }
    cf->cu->cuCtxPopCurrent(&popped);
    if (ret < 0) {
        av_frame_free(frame);
        return ret;
    }
    glr_av_set_color(*frame, &cf->color);
    return 0;
}

/* 1 once event passed, 0 where timeout_ns (UINT64_MAX: none) passed first, or a negative
 * code. CUDA has no wait with a timeout: the event is looked at until it passes. */
static inline int glr_av_cuda_wait(struct glr_av_cuda_frames *cf, glr_log *log, CUevent event, uint64_t timeout_ns)
{
    int64_t deadline = av_gettime_relative() + (int64_t)(timeout_ns / 1000);
    CUcontext popped;
    CUresult r;
    int ret;

    if ((ret = glr_av_cuda_check_(log, cf->cu, cf->cu->cuCtxPushCurrent(cf->context), "cuCtxPushCurrent")) < 0)
        return ret;
    if (timeout_ns == UINT64_MAX) {
        ret = glr_av_cuda_check_(log, cf->cu, cf->cu->cuEventSynchronize(event),
                                 "waiting for a CUDA frame's copies (cuEventSynchronize)");
        ret = ret < 0 ? ret : 1;
    } else {
        while ((r = cf->cu->cuEventQuery(event)) == CUDA_ERROR_NOT_READY && av_gettime_relative() < deadline)
            av_usleep(50);
        ret = r == CUDA_ERROR_NOT_READY ? 0
            : r == CUDA_SUCCESS         ? 1
                                        : glr_av_cuda_check_(log, cf->cu, r, "a CUDA frame's copies (cuEventQuery)");
    }
    cf->cu->cuCtxPopCurrent(&popped);
    return ret;
}

/* Frees event (passed or not). */
static inline void glr_av_cuda_forget(struct glr_av_cuda_frames *cf, CUevent event)
{
    CUcontext popped;

    if (cf->cu->cuCtxPushCurrent(cf->context) != CUDA_SUCCESS)
        return;
    cf->cu->cuEventDestroy(event);
    cf->cu->cuCtxPopCurrent(&popped);
}

#endif /* GLREADER_UTILS_LIBAV_CUDA_FRAMES_H */
