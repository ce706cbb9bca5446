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
#define GLR_VERSION_MINOR 9
#define GLR_VERSION_PATCH 0
/* The version as one number, comparable with <: 0x00MMmmpp. */
#define GLR_VERSION_INT(major, minor, patch) (((major) << 16) | ((minor) << 8) | (patch))
#define GLR_VERSION GLR_VERSION_INT(GLR_VERSION_MAJOR, GLR_VERSION_MINOR, GLR_VERSION_PATCH)

/* The version of the library loaded at run time (GLR_VERSION is the headers'). Until 1.0
 * every minor version may change the ABI; the soname carries major.minor. */
GLR_API unsigned glr_version(void);

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
 * call, or "" when none failed yet: words for the user, without the name of the function
 * that failed (a log at GLR_LOG_DEBUG has that too). Control-flow codes (-EAGAIN, -EBUSY, -ENODATA) do not
 * change it.
 * Thread-safety: any thread; each thread has its own message.
 * Lifetime: valid until the next glreader call on the same thread. */
GLR_API const char *glr_last_error(void);

/* The code of that same last failure on the calling thread, or 0. Lets a caller of a
 * function that returns NULL (the create functions) learn the code, e.g.
 * GLR_ERROR_SOFTWARE_RENDERER. Thread-safety: per thread, as glr_last_error(). */
GLR_API int glr_last_error_code(void);

/* Records `message` and `code` (negative) as the calling thread's last error, as a failing
 * glreader call does: for code that glreader calls back (a channel feeder) to report why
 * it failed. Code 0 clears it; control-flow codes (-EAGAIN, -EBUSY, -ENODATA) are ignored. */
GLR_API void glr_set_last_error(int code, const char *message);

/* Pixel layout of a read-back frame, in memory order. RGB formats are read back as they
 * are; YUV formats are converted from the rendered RGB on the GPU before readback, with the
 * colour description of struct glr_color, and arrive with their rows top first. */
enum glr_format {
    GLR_FORMAT_RGBA8 = 1,  /* R, G, B, A */
    GLR_FORMAT_BGRA8 = 2,  /* B, G, R, A: what many encoders and displays take natively */
    GLR_FORMAT_RGB8 = 3,   /* R, G, B, rows packed tightly; 3-5x slower to read back than RGBA */
    GLR_FORMAT_NV12 = 4,   /* 8-bit 4:2:0: a Y plane, then one plane of interleaved U, V */
    GLR_FORMAT_I420 = 5,   /* 8-bit 4:2:0: Y, U and V planes (FFmpeg's yuv420p) */
    GLR_FORMAT_P010 = 6,   /* 10-bit 4:2:0 as NV12 with 16-bit little-endian samples, the
                              value in the high 10 bits (FFmpeg's p010le) */
    GLR_FORMAT_YUV444 = 7, /* 8-bit 4:4:4: Y, U and V planes at full size (yuv444p) */
    /* With alpha: the planes above, then an alpha plane at full size, full range (the
     * rendered alpha, as glr_scene's GLR_ALPHA_STRAIGHT or _PREMULTIPLIED keeps it). */
    GLR_FORMAT_YUVA420 = 8,   /* 8-bit 4:2:0 (yuva420p: VP9's alpha) */
    GLR_FORMAT_YUVA444 = 9,   /* 8-bit 4:4:4 (yuva444p) */
    GLR_FORMAT_YUVA444P10 = 10 /* 10-bit 4:4:4, 16-bit little-endian samples, the value in
                                  the low 10 bits (yuva444p10le: ProRes 4444's) */
};

/* What glreader knows of a format: the one table every part of glreader reads. */
struct glr_format_info {
    enum glr_format format;
    const char *name;       /* FFmpeg's pixel format name: "rgba", "nv12", "yuv420p", ... */
    int planes;             /* 1..4; a fourth is alpha, at full size */
    int yuv;                /* 1: Y'CbCr, converted on the GPU; 0: RGB, read back as is */
    int log2_chroma_w;      /* planes after the first are subsampled by 2^this across ... */
    int log2_chroma_h;      /* ... and down */
    int bytes_per_sample;   /* 1, or 2 for P010 and YUVA444P10 */
    int bit_depth;          /* significant bits per sample: 8 or 10 */
    int samples_per_pixel[4]; /* interleaved samples per pixel of each plane (RGBA: 4; NV12: 1, 2) */
};

/* The description of a format, or NULL for a value that is no glr_format.
 * Lifetime: static. */
GLR_API const struct glr_format_info *glr_format_get_info(enum glr_format format);

/* The format whose FFmpeg pixel format name is name ("nv12", "yuv420p", "bgra"), or 0. */
GLR_API enum glr_format glr_format_from_name(const char *name);

/* Short lower-case name of a format (FFmpeg's), or NULL if unknown. */
GLR_API const char *glr_format_name(enum glr_format format);

/* Bytes in one row of a plane of a width-pixel frame (no padding), or 0 for a plane the
 * format does not have. */
GLR_API size_t glr_format_plane_row_bytes(enum glr_format format, int plane, int width);

/* Rows of a plane of a height-row frame, or 0 for a plane the format does not have. */
GLR_API int glr_format_plane_rows(enum glr_format format, int plane, int height);

/* Bytes of a width x height frame with its planes packed tightly one after the other:
 * what a pipe carries and `ffmpeg -f rawvideo -pix_fmt NAME` reads per frame. 0 for an
 * unknown format. */
GLR_API size_t glr_format_frame_bytes(enum glr_format format, int width, int height);

/* How Y'CbCr values relate to the rendered R'G'B'. The numbers are those of ITU-T H.273
 * and FFmpeg's AVColorSpace, AVColorPrimaries, AVColorTransferCharacteristic, AVColorRange
 * and AVChromaLocation, so each converts by a cast. */
enum glr_matrix {
    GLR_MATRIX_AUTO = 0,       /* in params: BT.709; in a frame of an RGB format: RGB */
    GLR_MATRIX_BT709 = 1,      /* Kr 0.2126, Kb 0.0722: HD and most video today */
    GLR_MATRIX_BT601 = 6,      /* Kr 0.299, Kb 0.114: SD (SMPTE 170M) */
    GLR_MATRIX_BT2020_NCL = 9  /* Kr 0.2627, Kb 0.0593: UHD and HDR, non-constant luminance */
};
enum glr_range {
    GLR_RANGE_AUTO = 0,    /* in params: limited for YUV formats; RGB frames are full */
    GLR_RANGE_LIMITED = 1, /* Y 16..235, C 16..240 (x4 at 10 bits): what video players expect */
    GLR_RANGE_FULL = 2     /* 0..255 (0..1023) */
};
enum glr_chroma_siting {
    GLR_CHROMA_AUTO = 0,   /* in params: left for 4:2:0 formats; unused by 4:4:4 and RGB */
    GLR_CHROMA_LEFT = 1,   /* co-sited with the left luma sample, between the two rows:
                              the H.264/HEVC default (a [1 2 1] filter across, [1 1] down) */
    GLR_CHROMA_CENTER = 2  /* in the middle of its 2x2 luma samples (a 2x2 box filter) */
};

/* The colour description of frames: how a YUV frame was converted, and what its values
 * mean. In params, 0 in any field means its default; in an acquired frame every field
 * holds the value used (RGB formats: matrix 0 = RGB, range full, chroma 0). */
struct glr_color {
    enum glr_matrix matrix;
    enum glr_range range;
    /* H.273 colour primaries and transfer characteristics of the rendered RGB, for the tags
     * only (glreader converts no gamut or curve). 0: from the matrix: BT.709 gives 1/1
     * (bt709), BT.601 gives 6/6 (smpte170m), BT.2020 gives 9/14 (bt2020, bt2020-10). */
    int primaries;
    int transfer;
    enum glr_chroma_siting chroma;
};

/* Fills *out with requested's values for frames of format, each 0 replaced by its
 * default (as a ring does for its frames). requested may be NULL for all defaults.
 * Returns 0, or -EINVAL (logged nowhere, kept as the last error) for an unknown format or
 * a value glreader cannot convert with. */
GLR_API int glr_color_resolve(enum glr_format format, const struct glr_color *requested, struct glr_color *out);

/* The GL loader of a context glreader works in (rings, scenes, players): returns the
 * address of a GL function, or NULL (eglGetProcAddress, glfwGetProcAddress,
 * SDL_GL_GetProcAddress, glr_context_get_proc_address all fit). */
typedef void (*(*glr_get_proc_address_fn)(const char *name))(void);

/* The levels of ffmpeg's -loglevel, most severe first: a log passes on its level and those
 * above it. */
enum glr_log_level {
    GLR_LOG_NONE = 0,    /* in params: the default (warning) */
    GLR_LOG_ERROR = 1,   /* something failed */
    GLR_LOG_WARN = 2,    /* something worked, not as asked or not as well as it could */
    GLR_LOG_INFO = 3,    /* what was chosen: the renderer, a fallback, the paths taken */
    GLR_LOG_VERBOSE = 4, /* more of it (FFmpeg's verbose) */
    GLR_LOG_DEBUG = 5    /* details for a bug report */
};

typedef void (*glr_log_fn)(void *opaque, enum glr_log_level level, const char *message);

struct glr_log_params {
    /* Receives each message (one line, no trailing newline). NULL: write to stderr
     * prefixed with "glreader: ". Called from whichever thread hit the event. */
    glr_log_fn callback;
    void *opaque;
    /* Most verbose level passed on. 0 (GLR_LOG_NONE) means the default, GLR_LOG_WARN;
     * to silence a log, set callback to a function that ignores its input. At
     * GLR_LOG_DEBUG, messages also name the glreader function they come from. */
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

/* The most verbose level a log passes on (NULL: the built-in log's, GLR_LOG_WARN). */
GLR_API enum glr_log_level glr_log_get_level(const glr_log *log);

/* Writes message at level through log (NULL: the built-in log), as glreader's own
 * messages go: for code that glreader calls back, or that works beside it (the FFmpeg
 * glue of glreader/utils/libav_media.h), to report on the same log. */
GLR_API void glr_log_message(const glr_log *log, enum glr_log_level level, const char *message);


#ifdef __cplusplus
}
#endif

#endif /* GLREADER_COMMON_H */
