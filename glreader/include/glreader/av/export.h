/*
 * glreader-av: an export job. It plays a Shadertoy project (glreader/player.h) over a range
 * of frames in a headless GL context of its own, reads every frame back through a ring
 * (converted to the encoder's YUV on the GPU, or on the CPU) and encodes it in-process
 * (glreader/av/encoder.h) into any output, or writes it to an ffmpeg child (pipe mode): what
 * glreader-export and glreader-pipe do, as a library call, for programs, the Python
 * bindings and render-farm workers alike.
 *
 *   glr_export *job = glr_export_create(log, &params);   // checks the params
 *   glr_export_run(job);        // blocks; progress comes through params.progress
 *                               // (or glr_export_start, then glr_export_wait with a timeout)
 *   glr_export_cancel(job);     // from any thread, or a signal handler
 *   glr_export_destroy(&job);
 *
 * The frame range [first_frame, first_frame + frame_count) is exact: its frames are those
 * of a render from frame 0 (a project with state is pre-rolled), stamped from 0 in the
 * output, and a sound track starts where the range does (a Sound pass's samples are those
 * of the whole track from the range's first frame on).
 *
 * Stopping. glr_export_cancel stops rendering and still finalizes the output with every
 * frame rendered so far: at once between frames; and when the render thread is held in
 * the driver (a compile, a frame that renders for minutes) for half a second after the
 * cancel, the job encodes what reached the encoder and finalizes the output without it,
 * leaving that thread to end on its own (glr_export_stats.render_running). An output that
 * stalls is waited for: the trailer is written when it takes data again, unless the
 * interrupt callback gives up on it. Nothing is created before the first frame has
 * rendered, so a job stopped before that leaves no file.
 */
#ifndef GLREADER_AV_EXPORT_H
#define GLREADER_AV_EXPORT_H

#include "glreader/context.h"
#include "glreader/av/encoder.h"
#include "glreader/av/hw_frames.h"
#include "glreader/av/stop.h"
#include "glreader/pipe.h"
#include "glreader/player.h"
#include "glreader/ring.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the job is doing. */
enum glr_export_state {
    GLR_EXPORT_READY = 0,      /* created, not run yet */
    GLR_EXPORT_STARTING,       /* GL context, media, compiling, the first frame, the output */
    GLR_EXPORT_PREROLLING,     /* rendering the frames before the range (not encoded) */
    GLR_EXPORT_RENDERING,      /* rendering, reading back and encoding the range */
    GLR_EXPORT_FLUSHING,       /* the encoder's last frames and the trailer */
    GLR_EXPORT_ENDED           /* stopped: glr_export_stats.stop says why */
};

/* How frames become the encoder's pixel format. */
enum glr_export_conversion {
    GLR_EXPORT_CONVERT_GPU = 0, /* read back the encoder's YUV, converted on the GPU, where a
                                 * ring makes it (nv12, yuv420p, p010le, yuv444p); else RGB */
    GLR_EXPORT_CONVERT_CPU      /* read back BGRA; libswscale converts it */
};

struct glr_export_stats;

/* The tag of a chunk's container (glr_export_params.chunk) that records its frame range. */
#define GLR_EXPORT_CHUNK_TAG "GLREADER_CHUNK"

/* The compile limit a job has when its params leave it 0, in seconds. */
#define GLR_EXPORT_DEFAULT_COMPILE_TIMEOUT 120.0

struct glr_export_params {
    /* What to play, as glr_player_create takes it: size, rate, the project (it must
     * outlive glr_export_run), first_frame (the range's first), mouse, date, source.
     * feeder NULL: the project's image, video, sound and cube map channels are decoded
     * with FFmpeg (glreader/utils/libav_media.h); a sound channel without a file plays
     * encoder.audio.input, else the Sound pass. get_proc_address is ignored: the job's
     * context is its own; so is sound_rate, which the job sets (encoder.audio.sample_rate,
     * no_sound_pass). */
    struct glr_player_params player;
    int frame_count;           /* frames to encode, > 0 */
    /* How to encode and where to: everything but width, height, fps_num, fps_den and
     * format, which the job sets from the player and the conversion. audio.offset counts
     * from frame 0 of the timeline: the job moves it to the range's start. Strings are
     * copied at create. */
    struct glr_encoder_params encoder;
    /* Pipe mode instead of the in-process encoder, when pipe.args is set (glreader/pipe.h):
     * the frames go to an `ffmpeg -f rawvideo -i -` child, which the args tell what to
     * write; of encoder, only color is read (the child is told the frames' colour). The
     * ring's format 0 is then NV12 (GLR_EXPORT_CONVERT_CPU: BGRA, converted by ffmpeg); no
     * sound track (give ffmpeg its own input); no chunk. Strings are copied at create. */
    struct glr_pipe_sink pipe;
    enum glr_export_conversion conversion;
    enum glr_format ring_format; /* read back this format whatever the encoder takes; 0: chosen */
    int ring_depth;              /* ring slots; 0: 3 */
    struct glr_context_params context; /* the job's headless GL context */
    /* Seconds the shaders may take to compile, and the first frame to render when there is
     * no pre-roll (drivers compile at the first draw); past it the job stops with
     * GLR_EXPORT_COMPILE_TIMEOUT. 0: GLR_EXPORT_DEFAULT_COMPILE_TIMEOUT, as every front-end
     * has it; negative: no limit. */
    double compile_timeout;
    /* Polled on glr_export_run's thread and by the output's writes (see glr_interrupt):
     * non-zero stops the job at once, abandoning an output that stalls (a pipe sink's ffmpeg
     * child that has taken no frame for 2 s is killed; one that reads finalizes its
     * output, as for a cancel; a render thread held in the driver is given up as after a
     * cancel). NULL: none. */
    struct glr_interrupt interrupt;
    /* Called on glr_export_run's thread every progress_interval_ms (0: 100) while the job
     * runs, at each change of its state, and once when it ends (GLR_EXPORT_ENDED). NULL:
     * none. */
    void (*progress)(void *opaque, const struct glr_export_stats *stats);
    void *progress_opaque;
    int progress_interval_ms;
    /* The project's Sound pass (mainSound), when it has one and encoder.audio.input is NULL,
     * makes the sound track: rendered on the GPU at encoder.audio.sample_rate (0: the
     * feeder's rate, else Shadertoy's 44100), stereo, for the range, muxed with the frames
     * and played by every sound channel without a file. An output that holds no sound (an
     * image sequence, a GIF) gets none: the pass then renders for those channels alone.
     * Non-zero: the Sound pass is not rendered. */
    int no_sound_pass;
    /* Non-zero: the output is one chunk of a longer render, for glr_join (glreader/av/join.h)
     * to join with the others by stream copy. Its frames carry their numbers on the whole
     * timeline (first_frame on) as timestamps; the encoder is made joinable (libx264
     * "stitchable", closed GOPs from x264 and x265: every chunk starts on a keyframe and has
     * the same headers when made with the same settings); the Sound pass, when the project
     * has one, is kept as it rendered (pcm_s16le, on the same timeline) for the join to
     * encode once over the whole (no seams); a sound file (encoder.audio.input) is only
     * heard by the sound channels, the join encoding it once;
     * the output must be Matroska or NUT, and its tag GLREADER_CHUNK records the range
     * ("first=A frames=N fps=NUM/DEN"), which the join checks. */
    int chunk;
    /* Frames converted on the GPU straight into the encoder's hardware frames, nothing read
     * back (glr_recorder_params.hw_frames, glreader/av/hw_frames.h): auto (where the encoder
     * takes them as they are), off, or on; hw_device their kind and device as ffmpeg's
     * -init_hw_device spells them ("vulkan", "vulkan:1", "cuda:0"; NULL: the kind the
     * encoder takes, on the job's GL context's device). Strings are copied at create. */
    enum glr_hw_frames_use hw_frames;
    const char *hw_device;
    uint64_t reserved_[2];       /* zero: room for later fields without an ABI break */
};

struct glr_export_stats {
    enum glr_export_state state;
    enum glr_export_stop stop;
    int first_frame, frame_count;
    int frames_rendered;        /* of the range, pre-roll excluded */
    int preroll_frames;         /* rendered before the range (known once compiled) */
    double elapsed_seconds;     /* since glr_export_run began */
    double output_wait_seconds; /* how long the output (ffmpeg, in pipe mode) has not taken the write under way; 0: none */
    int cancel_requested;
    /* 1 while the job's render thread lives; after glr_export_run, 1 means it was left in
     * the driver and frees its GL objects when the driver returns. It holds what it needs,
     * the job's own log included, which relays to the caller's only while the job lives:
     * the job and the caller's log may be destroyed meanwhile. */
    int render_running;
    enum glr_format ring_format;
    char renderer[128];         /* the GL_RENDERER string, once the context exists */
    char platform[16];          /* the EGL platform that gave it */
    struct glr_encoder_plan plan; /* the container, encoders and pixel format, from create on */
    struct glr_player_stats player;
    struct glr_ring_stats ring;
    struct glr_encoder_stats encoder; /* the in-process encoder's; zero in pipe mode */
    struct glr_pipe_stats pipe;       /* pipe mode's; else zero */
    /* Seconds the pre-roll took (with the range's first frame), once it is done; 0: none. */
    double preroll_seconds;
    uint64_t reserved_[3];
};

/* Thread-safety: run (or start, then wait) from one thread; cancel and get_stats from any
 * thread (cancel also from a signal handler). Lifetime: destroy after run returned; a job
 * started and not waited for is cancelled and waited for by destroy. */
typedef struct glr_export glr_export;

/* Checks the params and copies them: the range, the conversion and everything
 * glr_encoder_check checks (the container and codecs, chosen as ffmpeg chooses them,
 * options, pixel format, a trial open of the video encoder), and that an output naming one
 * picture (x.png) gets one frame. What only the GL context, the shaders, the sound file or
 * the output can tell is checked by run. Nothing is written or rendered. Returns NULL with
 * the reason logged and in glr_last_error(). */
GLR_API glr_export *glr_export_create(glr_log *log, const struct glr_export_params *params);

/* Runs the job to its end (see above); call once. Returns 0 when the output was finalized
 * (complete or cancelled: the stats' stop says which), or a negative code with the reason
 * logged and in glr_last_error(): -EINTR (interrupted), -ETIMEDOUT (compile_timeout), or
 * the error of the context, the project, a channel's media, the ring or the encoder. */
GLR_API int glr_export_run(glr_export *job);

/* Starts the job on a thread of its own and returns at once: glr_export_run's work, whose
 * progress is called on that thread; glr_export_wait waits for its end. For callers that
 * keep their own thread free (a binding's interpreter, a UI). Returns 0, or -EINVAL for a
 * job that ran or started already. */
GLR_API int glr_export_start(glr_export *job);

/* Waits up to timeout_ns (0: not at all; UINT64_MAX: as long as it takes) for a started job
 * to end. Returns -EAGAIN while it runs (not logged); then what glr_export_run returns, its
 * message in this thread's glr_last_error(), and the same again on later calls. -EINVAL for
 * a job not started. */
GLR_API int glr_export_wait(glr_export *job, uint64_t timeout_ns);

/* Asks the job to stop (see above); returns at once. Async-signal-safe. */
GLR_API void glr_export_cancel(glr_export *job);

/* The job's state and statistics, also while it runs. Any thread. */
GLR_API void glr_export_get_stats(const glr_export *job, struct glr_export_stats *stats);

/* Frees the job and sets *job to NULL. NULL and a pointer to NULL are accepted. */
GLR_API void glr_export_destroy(glr_export **job);

#ifdef __cplusplus
}
#endif

#endif /* GLREADER_AV_EXPORT_H */
