/*
 * Hardware frames: GL frames converted on the GPU straight into an FFmpeg hardware frames
 * pool, for encoders on the GPU, with nothing read back to memory. Each pooled frame's
 * planes are imported into GL once and written by the ring's conversion (glr_converter),
 * so a frame holds exactly the bytes the ring would read back.
 *
 * Kinds: GLR_HW_VULKAN, AV_PIX_FMT_VULKAN frames whose memory GL imports
 * (GL_EXT_memory_object_fd), on the Vulkan device that drives the GL context (matched by
 * UUID). GLR_HW_CUDA, AV_PIX_FMT_CUDA frames for NVIDIA's encoders, on the CUDA device GL
 * runs on: the conversion writes GL textures registered with CUDA once, whose planes are
 * copied GPU to GPU into the frame on a CUDA stream of glreader's, the device context's
 * (CUDA is loaded at run time: no driver, a refusal saying so).
 *
 * As a ring: capture converts a frame into a pooled frame and returns at once; acquire
 * hands out the oldest one once a GL fence (Vulkan) or a CUDA event after its copies (CUDA)
 * says it is written (never glFinish), so an encoder never reads a frame still being written.
 * Where GL imports the Vulkan frames' timeline semaphores (NVIDIA's GL), acquire hands it out
 * at once and the frame's semaphore orders it instead: FFmpeg's encoders and transfers wait
 * for it on the GPU, and a caller reading the frame by other means must wait on its
 * AVVkFrame.sem at sem_value too. An acquired frame is the caller's; the pool never gives its
 * memory to another frame while it is held.
 *
 * Threads: create, capture, acquire and destroy with the GL context current; the acquired
 * frames go to any thread.
 */
#ifndef GLREADER_AV_HW_FRAMES_H
#define GLREADER_AV_HW_FRAMES_H

#include "glreader/common.h"
#include "glreader/convert.h"
#include "glreader/ring.h"

#ifdef __cplusplus
extern "C" {
#endif

struct AVBufferRef;
struct AVFrame;

typedef struct glr_hw_frames glr_hw_frames;

enum glr_hw_kind {
    GLR_HW_VULKAN = 1, /* AV_PIX_FMT_VULKAN (FFmpeg's hwcontext_vulkan) */
    GLR_HW_CUDA = 2,   /* AV_PIX_FMT_CUDA (FFmpeg's hwcontext_cuda, loaded through ffnvcodec) */
};

/* Whether a recorder (and every front-end through it) uses hardware frames. */
enum glr_hw_frames_use {
    /* Hardware frames where the encoder takes them as they are (an encoder on the GPU:
     * AV_PIX_FMT_CUDA or AV_PIX_FMT_VULKAN among its formats) and they can start (else one
     * info line says why, and frames are read back); read back for an encoder on the CPU. */
    GLR_HW_FRAMES_AUTO = 0,
    GLR_HW_FRAMES_OFF = 1, /* always read back */
    /* Hardware frames, or a refusal naming what is missing; an encoder on the CPU then gets
     * each frame copied to memory by FFmpeg (as ffmpeg's hwdownload would). */
    GLR_HW_FRAMES_ON = 2,
};

struct glr_hw_frames_params {
    enum glr_hw_kind kind;
    /* The device, in FFmpeg's -init_hw_device spelling after the type: Vulkan's index or
     * name ("vulkan:1"), CUDA's number ("cuda:0", as CUDA numbers devices); NULL or "": the
     * device behind the current GL context. A device GL cannot share memory with (Vulkan),
     * or that GL does not run on (CUDA), is refused. */
    const char *device;
    /* Size, YUV format (NV12, P010, I420, YUV444 ...), colour, row order and GL loader of the
     * frames, as for glr_converter. */
    struct glr_converter_params frame;
    /* Frames captured and not acquired yet, at most: 1..64; 0: 3. */
    int depth;
    uint64_t reserved_[4]; /* zero: room for later fields without an ABI break */
};

/* Opens the device, makes the pool and the conversion. Returns NULL with the reason logged
 * and in glr_last_error(), naming what is missing: no Vulkan (or CUDA) in this FFmpeg, no
 * device, GL without GL_EXT_memory_object_fd, a device GL shares no memory with, no CUDA
 * driver, a GL context on no CUDA device, a format the frames do not take. */
GLR_API glr_hw_frames *glr_hw_frames_create(glr_log *log, const struct glr_hw_frames_params *params);

/* The frames context (AVHWFramesContext), for an encoder's hw_frames_ctx: borrowed, take a
 * reference (av_buffer_ref) to keep it. */
GLR_API struct AVBufferRef *glr_hw_frames_context(const glr_hw_frames *frames);

/* Starts converting source's frame (its lower-left width x height pixels) into a frame of
 * the pool, stamped pts, and returns without waiting. Returns 0, or:
 *  -EBUSY  depth frames wait to be acquired: acquire one and call again. Not logged.
 *  another negative code with the reason logged (a bad source, a GL error). */
GLR_API int glr_hw_frames_capture(glr_hw_frames *frames, const struct glr_source *source, int64_t pts);

/* The oldest captured frame, in *frame (the caller's: av_frame_free, or give it to an
 * encoder), once GL finished writing it, waiting up to timeout_ns (0: do not wait;
 * UINT64_MAX: as long as it takes). Returns 0, or:
 *  -EAGAIN   the oldest frame is not finished within the timeout. Not logged.
 *  -ENODATA  no captured frame waits. Not logged.
 *  another negative code with the reason logged. */
GLR_API int glr_hw_frames_acquire(glr_hw_frames *frames, struct AVFrame **frame, uint64_t timeout_ns);

/* The capture's figures in the ring's terms, from any thread: frames_captured and
 * frames_acquired, depth, fences (1: no glFinish), path ("vulkan-frames+gl-fence",
 * "vulkan-frames+timeline-semaphores" from the first frame so ordered on, "cuda-frames+cuda-event"), fill
 * ("hardware-frames"), stall (the whole of capture: the conversion issued and fenced),
 * fence_wait (acquire's wait for GL). Nothing is read back: readback's count and
 * frame_bytes stay 0, as do the figures of a ring's slots (slot_wait, map, hold). */
GLR_API void glr_hw_frames_get_stats(const glr_hw_frames *frames, struct glr_ring_stats *stats);

/* Frees the imports, the frames not acquired and the pool (acquired frames keep their
 * memory) and sets *frames to NULL; NULL and a pointer to NULL are accepted. */
GLR_API void glr_hw_frames_destroy(glr_hw_frames **frames);

#ifdef __cplusplus
}
#endif

#endif /* GLREADER_AV_HW_FRAMES_H */
