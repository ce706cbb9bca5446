/*
 * glreader: an `ffmpeg -f rawvideo -i -` child process to write frames to (pipe mode).
 *
 * The child's input options match the frames (pixel format, size, rate); the caller's
 * arguments follow the input (codec, output file...). Its stderr is read all along on a
 * thread, so a chatty ffmpeg never blocks on a full stderr pipe, and the last bytes of it
 * are kept: when ffmpeg fails, glr_ffmpeg_child_finish's error message ends with them
 * (e.g. "Unknown encoder 'x'"). A typical loop:
 *
 *   glr_ffmpeg_child *child = glr_ffmpeg_child_spawn(log, &params);
 *   int fd = glr_ffmpeg_child_stdin(child);
 *   ... glr_pipe_write_frame(pipe, fd, &frame) ...         // -EPIPE: ffmpeg stopped reading
 *   glr_pipe_close(pipe, fd);                               // every byte written
 *   rc = glr_ffmpeg_child_finish(child);                     // EOF, wait, why it failed
 *   glr_ffmpeg_child_destroy(&child);
 */
#ifndef GLREADER_FFMPEG_CHILD_H
#define GLREADER_FFMPEG_CHILD_H

#include "glreader/common.h"

#ifdef __cplusplus
extern "C" {
#endif

struct glr_ffmpeg_child_params {
    /* The program; NULL: $GLR_FFMPEG if set, else "ffmpeg" looked up in PATH. */
    const char *ffmpeg;
    int width, height;        /* of the frames written; required */
    enum glr_format format;   /* 0: GLR_FORMAT_RGBA8; YUV formats are what a ring converted */
    /* YUV formats: the frames' colour description (0 fields: the ring's defaults), passed
     * to ffmpeg as the input's -colorspace, -color_range, -color_primaries, -color_trc and
     * -chroma_sample_location, so that the encoder tags its output with it. */
    struct glr_color color;
    int fps_num, fps_den;     /* input frame rate; 0: 60/1 */
    /* Arguments after the input (output options and the output), NULL-terminated.
     * ffmpeg cannot ask before overwriting (its stdin is the frames): pass -y to allow it. */
    const char *const *args;
    size_t stderr_tail;       /* bytes of stderr kept; 0: 8 KiB */
    uint64_t reserved_[4];    /* zero: room for later fields without an ABI break */
};

/* A running ffmpeg child. Thread-safety: one thread at a time. */
typedef struct glr_ffmpeg_child glr_ffmpeg_child;

/* Starts `ffmpeg -hide_banner -nostats -f rawvideo -pix_fmt F -video_size WxH
 * -framerate N/D [colour options] -i - ARGS...`. Returns NULL with the reason logged and in
 * glr_last_error(): bad params, or a program that cannot be started. */
GLR_API glr_ffmpeg_child *glr_ffmpeg_child_spawn(glr_log *log, const struct glr_ffmpeg_child_params *params);

/* The write end of the child's stdin (a pipe), owned by the child object: write frames
 * to it (with a glr_pipe), never close it yourself. -1 after finish. */
GLR_API int glr_ffmpeg_child_stdin(glr_ffmpeg_child *child);

/* The child's process id. */
GLR_API int glr_ffmpeg_child_pid(glr_ffmpeg_child *child);

/* Closes stdin (ffmpeg sees the end of its input), waits for ffmpeg to exit. Every glr_pipe
 * writing to stdin must have closed that fd (glr_pipe_close) before. Returns 0 when ffmpeg
 * exited with status 0, else GLR_ERROR_CHILD with a message that names the exit status or
 * signal and ends with the tail of ffmpeg's stderr. A second call returns the same. */
GLR_API int glr_ffmpeg_child_finish(glr_ffmpeg_child *child);

/* The tail of ffmpeg's stderr kept so far (complete after finish). Valid until the next
 * call on child. */
GLR_API const char *glr_ffmpeg_child_stderr(glr_ffmpeg_child *child);

/* Finishes the child if that was not done (waiting for it), frees it, sets *child to NULL.
 * NULL and a pointer to NULL are accepted. */
GLR_API void glr_ffmpeg_child_destroy(glr_ffmpeg_child **child);

#ifdef __cplusplus
}
#endif

#endif /* GLREADER_FFMPEG_CHILD_H */
