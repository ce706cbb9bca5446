/*
 * glreader-av: a recorder. The caller's own frames (a framebuffer or a texture of the GL
 * context current on the calling thread) through a readback ring into a sink: the
 * in-process encoder (glreader/av/encoder.h), an `ffmpeg -f rawvideo -i -` child written
 * through a pipe (glreader/pipe.h: pipe mode), or a callback that takes each frame.
 * glreader.Recorder, glreader-viewer, glreader-capture and the export job's render thread
 * are its users: one way to ask for the ring's format, one treatment of an output that
 * stalls, one lifecycle.
 *
 *   glr_recorder *rec = glr_recorder_create(log, &params); // the output is opened here
 *   for each frame:
 *       draw it, then glr_recorder_capture(rec, &source, pts); // no wait for the GPU
 *   glr_recorder_finish(rec);      // the frames under way, then the output finalized
 *   glr_recorder_destroy(&rec);    // with the same context current
 *
 * Threads. capture, finish and destroy are GL calls: they come from the thread whose
 * context was current at the first capture (the ring is made there), with it current.
 * submit_audio, cancel, abandon and get_stats come from any thread.
 *
 * Stopping. glr_recorder_cancel (async-signal-safe) stops capturing: later captures return
 * -ECANCELED without reading, and finish finalizes what was captured as a stop
 * (glr_encoder_finish_incomplete: a GLR_OUTPUT_PART output keeps NAME.part). An output that
 * stalls is waited for: capture blocks while every slot holds a frame the encoder's full
 * queue cannot take yet (stats.output_wait_seconds says how long), unless the encoder's
 * interrupt gives up. A thread held in the driver (a compile, a frame that draws for
 * minutes) can be left behind: glr_recorder_abandon from another thread, then finish from
 * there, finalizes the output with the frames that reached the encoder.
 */
#ifndef GLREADER_AV_RECORDER_H
#define GLREADER_AV_RECORDER_H

#include "glreader/av/encoder.h"
#include "glreader/av/hw_frames.h"
#include "glreader/av/stop.h"
#include "glreader/pipe.h"
#include "glreader/ring.h"

#ifdef __cplusplus
extern "C" {
#endif

struct glr_recorder_stats;

struct glr_recorder_params {
    /* The encoder and its output: size, rate, codec, output, sound (glreader/av/encoder.h).
     * Its format is the ring's (below). With a pipe sink, only the size, the rate and the
     * colour are read (the child's input); with a frame sink, none of it. */
    struct glr_encoder_params encoder;
    /* Pipe mode instead of the in-process encoder, when pipe.args is set. The ring's format
     * 0 is then NV12 (1.5 bytes a pixel, converted on the GPU, tagged for ffmpeg). */
    struct glr_pipe_sink pipe;
    /* The readback ring (glreader/ring.h). width, height 0: the encoder's. format 0: the
     * encoder's own YUV, converted on the GPU, where the encoder wants YUV and the ring
     * makes it (glr_encoder_check's plan.format), else BGRA; GLR_FORMAT_BGRA8 leaves the
     * conversion to the CPU (libswscale); another: as given. color with 0 fields: the
     * encoder's. capture_timeout_ns 0: forever (an output that stalls is waited for).
     * get_proc_address: the host's GL loader (NULL: EGL's, as for a ring). */
    struct glr_ring_params ring;
    /* Instead of an encoder: each frame read back, in order, to this callback on the
     * capturing thread, which owns the frame's lease from then on (glr_frame_release it,
     * on any thread). ring.width and ring.height are then required. */
    void (*frame_sink)(void *opaque, struct glr_frame *frame);
    void *frame_sink_opaque;
    /* Called on the capturing thread with 1 before it waits for the sink (the encoder's
     * queue is full: the output is slower than the frames, or stalls), and with 0 after.
     * The export job tells so a wait for the output from a driver holding its thread. */
    void (*sink_wait)(void *opaque, int waiting);
    void *sink_wait_opaque;
    /* Called on the capturing thread from capture every progress_interval_ms (0: 100)
     * from create on, and once from finish (stop set). NULL: none. */
    void (*progress)(void *opaque, const struct glr_recorder_stats *stats);
    void *progress_opaque;
    int progress_interval_ms;
    /* In-process encoder only: frames converted on the GPU into the encoder's hardware
     * frames (glreader/av/hw_frames.h), nothing read back. Where they are used, create makes
     * their pool in the GL context current on the calling thread, which capture must then
     * use: the device is the one behind that context. hw_device: the kind and device as
     * FFmpeg's -init_hw_device spells them, TYPE[=NAME][:DEVICE] with TYPE vulkan or cuda
     * ("vulkan", "vulkan:1", "cuda:0"); NULL: the kind the encoder takes (CUDA for one that
     * lists AV_PIX_FMT_CUDA, else Vulkan), on the context's device. */
    enum glr_hw_frames_use hw_frames;
    const char *hw_device;
    uint64_t reserved_[3]; /* zero: room for later fields without an ABI break */
};

struct glr_recorder_stats {
    /* GLR_EXPORT_NOT_STOPPED until finish; then COMPLETE, CANCELLED (a cancel, or an
     * abandon), INTERRUPTED (the encoder's interrupt) or FAILED. */
    enum glr_export_stop stop;
    int cancel_requested;
    int64_t frames_captured;  /* readbacks started */
    int64_t frames_delivered; /* handed to the sink */
    double output_wait_seconds; /* how long the output (or ffmpeg) has not taken the write under way */
    enum glr_format ring_format;
    struct glr_encoder_plan plan;   /* zero with a frame sink */
    /* zero before the first capture; with hardware frames, theirs (glr_hw_frames_get_stats:
     * readback's count stays 0) */
    struct glr_ring_stats ring;
    struct glr_encoder_stats encoder; /* the in-process encoder's; else zero */
    struct glr_pipe_stats pipe;       /* the pipe sink's; else zero */
    int hardware_frames;              /* 1: frames went as hardware frames, none read back */
    uint64_t reserved_[3];
};

typedef struct glr_recorder glr_recorder;

/* Checks the params and opens the encoder and its output (glr_encoder_create; with ring.format
 * 0, glr_encoder_check first, which chooses it), so that a bad option or an existing file
 * fails before any frame; makes no GL call. Returns NULL with the reason logged and in
 * glr_last_error(). */
GLR_API glr_recorder *glr_recorder_create(glr_log *log, const struct glr_recorder_params *params);

/* Starts the readback of `source` as the frame of timestamp `pts` (frames are encoded in
 * the order captured) and hands the sink every frame read back by now; while every slot
 * holds a frame, the oldest first (waiting for it). The first capture makes the ring in
 * the current context, and hands that frame to the sink before it returns (its readback
 * waited for): an output that was opened gets at least that frame. Returns 0; -ECANCELED
 * after a cancel or an abandon (nothing read); or the ring's or the sink's error. */
GLR_API int glr_recorder_capture(glr_recorder *rec, const struct glr_source *source, int64_t pts);

/* Pushes interleaved float samples to the encoder's pushed sound (glr_encoder_submit_audio);
 * any thread, one at a time. -EINVAL without the in-process encoder. */
GLR_API int glr_recorder_submit_audio(glr_recorder *rec, const float *samples, int frames, int64_t pts);

/* Asks the recorder to stop (see above); returns at once. Async-signal-safe. */
GLR_API void glr_recorder_cancel(glr_recorder *rec);

/* Leaves the capturing thread behind: from then on its captures drop what they read back
 * and return -ECANCELED. Any thread. Returns 0, or -EBUSY while that thread is handing a
 * frame to the sink (it is not held elsewhere then: try again later). */
GLR_API int glr_recorder_abandon(glr_recorder *rec);

/* Hands the sink the frames under way (not after an abandon, which calls this from its
 * own thread: the encoder then keeps the frames that reached it) and finalizes the output:
 * whole unless the recorder was cancelled or abandoned. Returns 0, or the encoder's error
 * (logged, and in glr_last_error()); called again, the same code. */
GLR_API int glr_recorder_finish(glr_recorder *rec);

/* The recorder's statistics, also while it records. Any thread. */
GLR_API void glr_recorder_get_stats(const glr_recorder *rec, struct glr_recorder_stats *stats);

/* Frees the recorder and sets *rec to NULL; NULL and a pointer to NULL are accepted. One
 * not finished is finished first as cancelled. On the capturing thread with its context
 * current: the ring is freed there. After an abandon, any thread: the ring's GL objects are
 * left to their context, which frees them when it goes. */
GLR_API void glr_recorder_destroy(glr_recorder **rec);

#ifdef __cplusplus
}
#endif

#endif /* GLREADER_AV_RECORDER_H */
