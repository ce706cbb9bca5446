/*
 * glreader: error codes, pixel formats and the log shared by every glreader object.
 *
 * Conventions used by all glreader headers:
 *  - Functions return 0 on success or a negative error code: a negated errno value where
 *    one fits (-EINVAL misuse, -EAGAIN not ready yet, -EBUSY ring full, -ETIMEDOUT),
 *    or one of the GLR_ERROR_* codes below. glr_strerror() names every code.
 *  - -EAGAIN, -EBUSY and -ENODATA are normal control flow and are never logged.
 *  - Every other failure is logged through the object's glr_log and its message is also
 *    kept per thread: glr_last_error() returns it.
 *  - Parameter structs are zero-initialised by the caller; 0 always means "default".
 */
#ifndef GLREADER_COMMON_H
#define GLREADER_COMMON_H

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#define GLR_API
#elif defined(GLREADER_BUILDING)
#define GLR_API __attribute__((visibility("default")))
#else
#define GLR_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define GLR_VERSION_MAJOR 0
#define GLR_VERSION_MINOR 1
#define GLR_VERSION_PATCH 0

/* Library error codes, all below any negated errno value. */
enum glr_error {
    GLR_ERROR_GL = -1001,                /* an OpenGL call failed; the message names it */
    GLR_ERROR_NO_CONTEXT = -1002,        /* no (or the wrong) GL context is current on this thread */
    GLR_ERROR_UNSUPPORTED = -1003,       /* the driver lacks something glreader needs */
    GLR_ERROR_EGL = -1004,               /* EGL could not give a headless context */
    GLR_ERROR_SOFTWARE_RENDERER = -1005, /* require_hw was set and only a software renderer exists */
    GLR_ERROR_INTERNAL = -1006,          /* a bug in glreader; please report the message */
    GLR_ERROR_CODEC = -1007,             /* FFmpeg (encoder or muxer) failed; the message says how */
    GLR_ERROR_CHILD = -1008,             /* a child process (ffmpeg) failed; the message has its stderr */
    GLR_ERROR_SHADER = -1009             /* a shader does not compile or link; the message has the log */
};

/* Describes an error code in a few words (never NULL; unknown codes get a generic text).
 * Thread-safety: any thread. Lifetime: the string is static. */
GLR_API const char *glr_strerror(int code);

/* The full message of the last failure reported on the calling thread by any glreader
 * call, or "" when none failed yet. Control-flow codes (-EAGAIN, -EBUSY, -ENODATA) do not
 * change it.
 * Thread-safety: any thread; each thread has its own message.
 * Lifetime: valid until the next glreader call on the same thread. */
GLR_API const char *glr_last_error(void);

/* The code of that same last failure on the calling thread, or 0. Lets a caller of a
 * function that returns NULL (the create functions) learn the code, e.g.
 * GLR_ERROR_SOFTWARE_RENDERER. Thread-safety: per thread, as glr_last_error(). */
GLR_API int glr_last_error_code(void);

/* Pixel layout of a read-back frame: bytes in memory order, 8 bits per channel. */
enum glr_format {
    GLR_FORMAT_RGBA8 = 1, /* R, G, B, A */
    GLR_FORMAT_BGRA8 = 2, /* B, G, R, A: what many encoders and displays take natively */
    GLR_FORMAT_RGB8 = 3   /* R, G, B, rows packed tightly; 3-5x slower to read back than RGBA */
};

/* Bytes per pixel of a format, or 0 for a value that is no glr_format. */
GLR_API int glr_format_bytes_per_pixel(enum glr_format format);

/* Short lower-case name of a format ("rgba", "bgra", "rgb24"), or NULL if unknown. */
GLR_API const char *glr_format_name(enum glr_format format);

enum glr_log_level {
    GLR_LOG_NONE = 0,
    GLR_LOG_ERROR = 1,
    GLR_LOG_WARN = 2,
    GLR_LOG_INFO = 3,
    GLR_LOG_DEBUG = 4
};

typedef void (*glr_log_fn)(void *opaque, enum glr_log_level level, const char *message);

struct glr_log_params {
    /* Receives each message (one line, no trailing newline). NULL: write to stderr
     * prefixed with "glreader: ". Called from whichever thread hit the event. */
    glr_log_fn callback;
    void *opaque;
    /* Most verbose level passed on. 0 (GLR_LOG_NONE) means the default, GLR_LOG_WARN;
     * to silence a log, set callback to a function that ignores its input. */
    enum glr_log_level level;
};

/* Where glreader objects report what happened.
 * Thread-safety: a log may be shared by objects used on different threads; the callback
 * must then be thread-safe.
 * Lifetime: must outlive every object created with it. Objects created with a NULL log
 * use a built-in one that writes warnings and errors to stderr. */
typedef struct glr_log glr_log;

/* Creates a log; params may be NULL for the defaults. Returns NULL only when out of memory. */
GLR_API glr_log *glr_log_create(const struct glr_log_params *params);

/* Destroys a log and sets *log to NULL. NULL and a pointer to NULL are accepted. */
GLR_API void glr_log_destroy(glr_log **log);

#ifdef __cplusplus
}
#endif

#endif /* GLREADER_COMMON_H */
