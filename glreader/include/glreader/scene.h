/*
 * glreader: a Shadertoy scene, rendered into a framebuffer of its own in the current GL
 * context, ready to be captured by a ring. The exporter, the samples and the FFmpeg filter
 * all render through it, so the same shader gives the same pixels everywhere.
 *
 * Each pass is a GLSL fragment body with Shadertoy's entry point and inputs:
 *
 *   void mainImage(out vec4 fragColor, in vec2 fragCoord)  // fragCoord: pixel centre,
 *                                                          // origin at the bottom left
 *   uniform vec3 iResolution; uniform float iTime, iTimeDelta, iFrameRate; uniform int iFrame;
 *   uniform float iChannelTime[4]; uniform vec3 iChannelResolution[4];
 *   uniform vec4 iMouse, iDate; uniform float iSampleRate;
 *   uniform sampler2D iChannel0..3 (samplerCube for a cube map channel);
 *   #define HW_PERFORMANCE 1
 *
 * Up to four buffer passes (Buffer A..D) render first, in that order, into float targets
 * of the scene's size; then the Image pass renders into the scene's RGBA8 framebuffer with
 * alpha written as 1. A pass reading a buffer that has already rendered this frame sees
 * this frame's pixels; one reading itself or a later buffer sees the previous frame's
 * (zeros before the first). A Common section is compiled into every pass.
 *
 * Compile errors come back once per pass as "PASS does not compile:" followed by
 * "NAME:LINE:COLUMN: error: ...", counting lines of the author's own file (the pass's or
 * the common section's), with compilers' lists of candidate overloads left out; a missing
 * mainImage is said of the pass's file ("NAME: error: ..."). glreader writes the source's
 * first line, "#version 330 core": an author's own #version line is blanked (its line
 * still counts), and a desktop version above 330 is the one glreader's line asks for.
 *
 * The scene takes ready pixels for image, video, sound and cube map channels: decoding is
 * the host's (glreader-av's media channels, the FFmpeg filter's own libraries).
 */
#ifndef GLREADER_SCENE_H
#define GLREADER_SCENE_H

#include "glreader/common.h"
#include "glreader/ring.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GLR_SCENE_CHANNELS 4 /* iChannel0..3 */
#define GLR_SCENE_BUFFERS 4  /* Buffer A..D */
#define GLR_SCENE_IMAGE_PASS GLR_SCENE_BUFFERS /* pass index of the Image pass */
/* The default limit on a shader file's size (glr_scene_params.max_source_bytes): 4 MiB,
 * a hundred times the largest shaders Shadertoy holds. */
#define GLR_SCENE_DEFAULT_MAX_SOURCE (4u << 20)

/* What a channel reads. */
enum glr_channel_kind {
    GLR_CHANNEL_NONE = 0,     /* nothing: black, iChannelResolution 0 */
    GLR_CHANNEL_TEXTURE = 1,  /* a 2D image the host uploads (glr_scene_set_channel_image):
                                 a picture, a video's current frame, the sound texture */
    GLR_CHANNEL_CUBEMAP = 2,  /* six faces the host uploads (glr_scene_set_channel_cubemap);
                                 the pass sees a samplerCube */
    GLR_CHANNEL_BUFFER = 3,   /* the output of Buffer A..D (glr_channel.buffer) */
    GLR_CHANNEL_KEYBOARD = 4  /* Shadertoy's 256x3 keyboard texture with no key ever down */
};

/* Sampling, as Shadertoy offers it. DEFAULT is what Shadertoy picks for the kind: mipmap
 * and repeat for textures and cube maps, linear and clamp for buffers, nearest and clamp
 * for the keyboard. */
enum glr_channel_filter {
    GLR_FILTER_DEFAULT = 0,
    GLR_FILTER_NEAREST = 1,
    GLR_FILTER_LINEAR = 2,
    GLR_FILTER_MIPMAP = 3 /* trilinear over mipmaps built after each upload or render */
};
enum glr_channel_wrap { GLR_WRAP_DEFAULT = 0, GLR_WRAP_CLAMP = 1, GLR_WRAP_REPEAT = 2 };
/* Whether an image's top row lands at the top of a texture (v = 1), as Shadertoy's
 * "vflip" does and by default does for textures. OFF puts row 0 at v = 0: what the sound
 * texture wants (row 0: spectrum, row 1: waveform) and the default for cube map faces,
 * which GL lays out top row first. */
enum glr_channel_vflip { GLR_VFLIP_DEFAULT = 0, GLR_VFLIP_ON = 1, GLR_VFLIP_OFF = 2 };

struct glr_channel {
    enum glr_channel_kind kind;
    int buffer; /* GLR_CHANNEL_BUFFER: 0..3 for Buffer A..D, which must have a source */
    enum glr_channel_filter filter;
    enum glr_channel_wrap wrap;
    enum glr_channel_vflip vflip;
};

/* A buffer pass. One with neither source nor source_path is absent. */
struct glr_scene_pass {
    const char *source;
    const char *source_path;
    const char *source_name; /* how errors name its file; NULL: source_path, else "Buffer A".. */
    struct glr_channel channels[GLR_SCENE_CHANNELS];
};

/* How the host's channel pixels reach their textures. */
enum glr_channel_upload {
    /* Copied into one of a few persistently mapped pixel-unpack buffers (rows put in GL's
     * order on the way); the texture fills from there without the call waiting for the
     * GL, which overlaps the copy of the next frame on a GPU. Falls back to DIRECT where
     * the GL lacks ARB_buffer_storage (OpenGL 4.4) or fences. */
    GLR_UPLOAD_STAGED = 0,
    /* glTexSubImage2D from the host's memory: the driver copies before the call returns. */
    GLR_UPLOAD_DIRECT = 1
};

/* What the Image pass's alpha becomes. */
enum glr_alpha {
    GLR_ALPHA_OPAQUE = 0,       /* 1 everywhere, as Shadertoy shows it */
    GLR_ALPHA_STRAIGHT = 1,     /* what the shader wrote, its colour as written */
    GLR_ALPHA_PREMULTIPLIED = 2 /* what the shader wrote, its colour multiplied by it */
};

/* How buffer passes store their pixels. */
enum glr_buffer_precision {
    GLR_BUFFER_FLOAT32 = 0, /* RGBA32F, Shadertoy's */
    GLR_BUFFER_FLOAT16 = 1  /* RGBA16F: half the memory and bandwidth */
};

struct glr_scene_params {
    int width, height;        /* required, 1..the GL size limit */
    /* The Image pass's mainImage source. NULL: read it from source_path; both NULL: the
     * built-in animated scene (glr_scene_builtin_source). */
    const char *source;
    const char *source_path;
    /* How compile errors name the source; NULL: source_path, else "Image". */
    const char *source_name;
    /* Loader for the GL context current at create; NULL: glreader's own (EGL, or GLX). */
    glr_get_proc_address_fn get_proc_address;
    /* The Image pass's channels; all NONE by default. */
    struct glr_channel channels[GLR_SCENE_CHANNELS];
    /* The Common section, compiled before every pass; both NULL: none. */
    const char *common_source;
    const char *common_path;
    const char *common_name; /* NULL: common_path, else "Common" */
    struct glr_scene_pass buffers[GLR_SCENE_BUFFERS];
    enum glr_buffer_precision buffer_precision;
    enum glr_channel_upload upload;
    /* The largest shader file read (source_path, common_path, a buffer's), in bytes; 0:
     * GLR_SCENE_DEFAULT_MAX_SOURCE. Only regular files are read: a directory, a device
     * (/dev/zero) or a FIFO is refused at once, as is a file with a NUL byte. */
    size_t max_source_bytes;
    enum glr_alpha alpha; /* the Image pass's alpha: OPAQUE (0) unless the host keeps it */
    /* The Sound pass: vec2 mainSound(int samp, float time) (or Shadertoy's older
     * mainSound(float time)), with the Common section; all NULL: none. Rendered by
     * glr_scene_render_sound. sound_name: how errors name it (NULL: sound_path, else "Sound"). */
    const char *sound_source;
    const char *sound_path;
    const char *sound_name;
};

/* What a frame's shaders see besides their channels. */
struct glr_scene_inputs {
    int frame;                  /* iFrame */
    double time;                /* iTime, seconds */
    double time_delta;          /* iTimeDelta */
    double frame_rate;          /* iFrameRate; 0: 1 / time_delta (0 when that is 0) */
    float mouse[4];             /* iMouse: xy the position while pressed, zw the click, in
                                   pixels from the bottom left; zeros: never clicked */
    float date[4];              /* iDate: year, month 0..11, day 1..31, seconds into the day */
    float sample_rate;          /* iSampleRate; 0: 44100, Shadertoy's */
};

/* Pixels for a channel: 8 bits per sample, rows top first (as decoders give them). Zero
 * the struct before filling it: fields added later read 0 as "not used". */
struct glr_image {
    int width, height;
    int components;     /* 1: red only (the sound texture, as Shadertoy's R8), 4: RGBA */
    const uint8_t *data; /* the top row */
    ptrdiff_t stride;   /* bytes from one row to the next: at least width * components, or
                           negative (rows stored bottom up, as FFmpeg's flipped frames) */
    double time;        /* the media's own time of these pixels (a video's playback time),
                           the channel's iChannelTime until the next upload */
    /* A Y'CbCr picture instead (a decoded video frame, as it is): GLR_FORMAT_NV12, _I420,
     * _P010 or _YUV444, its luma plane in data and stride, its chroma below; components is
     * ignored. The scene converts it to RGB on the GPU as it uploads it (image channels
     * only; OpenGL 4.3 and persistent mapping). 0: an RGB (or red) picture. */
    enum glr_format yuv_format;
    const uint8_t *chroma[2];   /* I420, 4:4:4: the U and V planes; NV12, P010: chroma[0], U
                                   and V interleaved */
    ptrdiff_t chroma_stride[2]; /* bytes from one row to the next, at least a row, either sign */
    struct glr_color color;     /* how to read its values; 0 fields: BT.709, limited, left */
};

/* Thread-safety: use it on the thread where its GL context is current.
 * Lifetime: destroy it while that context is current. */
typedef struct glr_scene glr_scene;

/* In the host's context, a scene follows ring.h's rule: its calls draw the same bytes
 * whatever state the host has set (blend, colour mask, cull, polygon mode, rasterizer
 * discard, clip distances, logic op, scissor, GL_FRAMEBUFFER_SRGB and, in compatibility
 * profiles, the alpha test and colour clamp are set for its draws; unpack parameters for
 * its uploads), every state they touch reads the same afterwards, and the host's pending
 * GL errors stay pending. Preconditions as in ring.h: no conditional rendering, no query
 * counting samples or primitives, transform feedback paused, while a call runs. */

/* Compiles every pass and creates the framebuffer (RGBA8) and the buffers' targets in the
 * current context. Returns NULL with the reason logged and in glr_last_error():
 * GLR_ERROR_NO_CONTEXT, -EINVAL (size; a channel naming an absent buffer or an unknown
 * kind, filter, wrap or vflip, naming the pass and channel), -ENOENT and the like (a
 * source file unreadable, naming it), -EISDIR, -EINVAL or -EFBIG (a source path that is a
 * directory, not a regular text file, or over max_source_bytes), GLR_ERROR_SHADER (the compiler's log, located as
 * NAME:LINE:COLUMN in the author's file). */
GLR_API glr_scene *glr_scene_create(glr_log *log, const struct glr_scene_params *params);

/* Renders one frame: every buffer pass in order, then the Image pass into the scene's
 * framebuffer. Returns 0, -EINVAL (inputs NULL), GLR_ERROR_NO_CONTEXT or GLR_ERROR_GL,
 * with a message. */
GLR_API int glr_scene_render(glr_scene *scene, const struct glr_scene_inputs *inputs);

/* Renders `count` stereo samples of the Sound pass from sample `first_sample` of its track
 * (sample 0 at time 0) at `sample_rate` (iSampleRate) into `stereo` (2 x count values, left
 * then right), as Shadertoy renders them: blocks of 512 x 512 samples drawn into a texture,
 * each channel kept as 16 bits, here read back through a ring (glreader/ring.h) while the
 * next block draws. Blocks start at multiples of a block on the track, so a sample is the
 * same from any start, and from one render to the next. The Sound pass reads no channels.
 * Returns 0, -EINVAL (no Sound pass; a rate not positive; a range past sample 2^31 - 1) or
 * GLR_ERROR_GL, with a message. */
GLR_API int glr_scene_render_sound(glr_scene *scene, int sample_rate, long long first_sample, int count,
                                   int16_t *stereo);

/* glr_scene_render with iFrame `frame`, iTime `seconds`, iTimeDelta `delta` and every
 * other input zero (or its default). */
GLR_API int glr_scene_draw(glr_scene *scene, int frame, double seconds, double delta);

/* Uploads pixels into a GLR_CHANNEL_TEXTURE channel of a pass (0..3: Buffer A..D,
 * GLR_SCENE_IMAGE_PASS: Image); they stay until the next upload, which may change the
 * size. Returns 0, -EINVAL (no such pass or channel, the channel is of another kind,
 * bad image), GLR_ERROR_NO_CONTEXT or GLR_ERROR_GL, with a message naming it. */
GLR_API int glr_scene_set_channel_image(glr_scene *scene, int pass, int channel, const struct glr_image *image);

/* Uploads the six square faces (+X, -X, +Y, -Y, +Z, -Z) of a GLR_CHANNEL_CUBEMAP channel.
 * Returns as glr_scene_set_channel_image. */
GLR_API int glr_scene_set_channel_cubemap(glr_scene *scene, int pass, int channel, const struct glr_image faces[6]);

/* Reads the framebuffer into caller memory synchronously with glReadPixels: the GL
 * finishes drawing and copies every pixel before this returns. Rows go bottom row first
 * (GL's order), `stride` bytes apart. To stream frames use a ring, which does not wait;
 * this is the design the ring is measured against, and fine for a one-off capture.
 * Returns 0, -EINVAL (no RGB glr_format, data NULL, stride smaller than a row or not a whole
 * number of pixels), GLR_ERROR_NO_CONTEXT or GLR_ERROR_GL, with a message. */
GLR_API int glr_scene_read_pixels(glr_scene *scene, enum glr_format format, uint8_t *data, ptrdiff_t stride);

/* The scene's framebuffer as a ring source (colour attachment 0). */
GLR_API struct glr_source glr_scene_source(const glr_scene *scene);

/* The scene's framebuffer object name, for the caller's own GL calls. */
GLR_API unsigned glr_scene_framebuffer(const glr_scene *scene);

/* Frees the GL objects (the context must be current) and sets *scene to NULL. NULL and a
 * pointer to NULL are accepted. */
GLR_API void glr_scene_destroy(glr_scene **scene);

/* The built-in scene's mainImage source: an animated plasma with rings and a clock hand.
 * Static string. */
GLR_API const char *glr_scene_builtin_source(void);

#ifdef __cplusplus
}
#endif

#endif /* GLREADER_SCENE_H */
