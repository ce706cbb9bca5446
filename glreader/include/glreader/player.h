/*
 * glreader: a Shadertoy project played over time. The player owns a project's scene (the
 * passes compiled in the current GL context), its clock (iFrame, iTime, iTimeDelta,
 * iFrameRate, iMouse, iDate, iSampleRate) and its channels, fed each frame by a feeder
 * that decodes their media; it renders frame after frame from a first frame into its
 * framebuffer, which a ring captures (glr_player_source). glreader-export, the FFmpeg
 * source filter and the Python bindings all play through it, so the same project gives
 * the same pixels everywhere.
 *
 * Starting at a frame is exact: frame N of a render that starts at N is byte for byte
 * frame N of a render from 0. Where a pass reads its own or a later buffer (the previous
 * frame's pixels: feedback, a simulation), the frames before N are rendered first, not
 * shown (the pre-roll, glr_player_preroll); a project without such state pays nothing,
 * only the feeder's skip for what carries in its media (the sound's smoothing).
 *
 * A project's Sound pass (mainSound) is the player's too: glr_player_render_sound gives its
 * samples for any range, the same from any start, so that every front-end (the exporter's
 * sound track, the source filter's audio output, a sound channel hearing it) sounds alike.
 *
 * FFmpeg-free: media reach the channels through a glr_channel_feeder. glreader's own,
 * built on FFmpeg's libraries, is glr_media_channels_feeder (glreader/utils/libav_media.h);
 * a caller (a test, Python) may give its own.
 */
#ifndef GLREADER_PLAYER_H
#define GLREADER_PLAYER_H

#include "glreader/common.h"
#include "glreader/ring.h"
#include "glreader/scene.h"
#include "glreader/shadertoy_project.h"
#include "glreader/stats.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Thread-safety: use it on the thread where its GL context is current.
 * Lifetime: destroy it while that context is current; the feeder's opaque outlives it. */
typedef struct glr_player glr_player;

/* The Sound pass's sample rates: Shadertoy's, and the range audio encoders take. */
#define GLR_SOUND_RATE_DEFAULT 44100
#define GLR_SOUND_RATE_MIN 8000
#define GLR_SOUND_RATE_MAX 192000

/* What puts a project's media into its scene's channels, frame by frame.
 * Thread-safety: called on the player's thread (where its GL context is current).
 * Lifetime: opaque must outlive the player. */
struct glr_channel_feeder {
    void *opaque;
    /* Uploads into the player's scene (glr_player_scene) what the frame at `seconds`
     * shows (a video's frame at that time, the sound's texture, pictures once); a sound
     * channel may hear the project's Sound pass through glr_player_render_sound. Called for
     * every frame the player renders, pre-roll included, with increasing times. Returns 0,
     * or a negative code with the reason, naming the file, in glr_last_error()
     * (glr_set_last_error), which the player names the frame in. Required. */
    int (*update)(void *opaque, glr_player *player, double seconds);
    /* Carries what the media keep from frame to frame past a frame that is not rendered
     * (the sound's smoothing), for the frames before a start that needs no pre-roll.
     * Returns as update. NULL: nothing carries. */
    int (*skip)(void *opaque, glr_player *player, double seconds);
    /* iSampleRate where the project plays no Sound pass: the sound's rate; NULL or 0:
     * Shadertoy's 44100. */
    float (*sample_rate)(void *opaque);
};

struct glr_player_params {
    int width, height;               /* required */
    int fps_num, fps_den;            /* the frame rate; 0: 30/1 */
    /* The project (glr_project_load, then any glr_project_bind); required. The player
     * reads it at create only. */
    const glr_project *project;
    /* Feeds the project's image, video, sound and cube map channels; NULL: none (a project
     * that has such channels is refused, naming one). Copied at create. */
    const struct glr_channel_feeder *feeder;
    /* The Image pass's source text, in place of the project's file (FFmpeg's shader_src);
     * NULL: the project's. source_name: how errors name it (NULL: "Image"). */
    const char *source, *source_name;
    int first_frame;                 /* the first frame rendered, >= 0 */
    float mouse[4];                  /* iMouse (glr_shadertoy_parse_mouse); zeros: never clicked */
    /* iDate at frame 0, "YYYY-MM-DD[THH:MM:SS]" in UTC (glr_shadertoy_parse_date), so that
     * reruns are identical; NULL: now, in local time, as Shadertoy counts it. */
    const char *date;
    size_t max_source_bytes;         /* a shader file's size limit; 0: GLR_SCENE_DEFAULT_MAX_SOURCE */
    enum glr_channel_upload upload;  /* how channel pixels reach their textures */
    /* Loader for the GL context current at create; NULL: glreader's own (EGL, or GLX). */
    glr_get_proc_address_fn get_proc_address;
    enum glr_alpha alpha;            /* the Image pass's alpha (scene.h); 0: opaque, as Shadertoy */
    /* The Sound pass's sample rate (GLR_SOUND_RATE_MIN..MAX), which is then iSampleRate;
     * 0: GLR_SOUND_RATE_DEFAULT. Negative: the project's Sound pass is not played (nor
     * compiled), as if it had none: iSampleRate is the feeder's. */
    int sound_rate;
    uint64_t reserved_[3];           /* zero: room for later fields without an ABI break */
};

/* Compiles the project's passes in the current GL context. Nothing is rendered yet.
 * Returns NULL with the reason logged and in glr_last_error(): -EINVAL (params, a rate not
 * positive, a date that is no date, media channels without a feeder), or glr_scene_create's
 * errors (a shader file, a compile error located in the author's file). */
GLR_API glr_player *glr_player_create(glr_log *log, const struct glr_player_params *params);

/* Renders the next frame (first_frame at the first call, then each following one) into
 * the player's framebuffer; the first call first pre-rolls. Returns 0, or a negative code
 * with the reason (a feeder's, naming the file; a GL error); later calls return it again. */
GLR_API int glr_player_render_next(glr_player *player);

/* The Sound pass's sample rate; 0 where the player plays no Sound pass (the project has
 * none, or sound_rate was negative). */
GLR_API int glr_player_sound_rate(const glr_player *player);

/* The Sound pass's sample that frame `frame` starts at: frame * rate / fps, rounded down
 * (glr_frame_first_sample at the player's rate and fps).
 * Frame f's sound is the samples from glr_player_sound_sample(f) to that of f + 1 (a
 * range of frames, those from its first frame's to its end's). -1 without a Sound pass. */
GLR_API long long glr_player_sound_sample(const glr_player *player, long long frame);

/* Renders `count` samples of the Sound pass from `first_sample` (sample 0 at iTime 0) into
 * `stereo` (2 * count values: left, right, ...), 16 bits as Shadertoy keeps them. The
 * samples are the same in any pieces and from any start; those before 0 are silence. The
 * pass renders ahead in growing pieces (up to about 12 s at 44100 Hz) and keeps what a
 * sound channel's analysis may read again, so that asking frame by frame waits for the
 * GPU once a piece, not once a frame. Returns 0, or -EINVAL (no Sound pass, count < 0,
 * stereo NULL, a range past sample 2^31 - 1) or GLR_ERROR_GL, with a message. */
GLR_API int glr_player_render_sound(glr_player *player, long long first_sample, int count, int16_t *stereo);

/* The frame glr_player_render_next rendered last; first_frame - 1 before the first. */
GLR_API int glr_player_frame(const glr_player *player);

/* The frames rendered before first_frame so that it is exact: first_frame for a project
 * whose passes read a previous frame, 0 for one without (known from create on). */
GLR_API int glr_player_preroll(const glr_player *player);

/* The inputs of the frame rendered last (iTime and the rest). */
GLR_API struct glr_scene_inputs glr_player_inputs(const glr_player *player);

/* Statistics of a player. Times in milliseconds per frame, pre-roll included. */
struct glr_player_stats {
    uint64_t frames_rendered;      /* pre-roll included */
    uint64_t preroll_frames;       /* rendered before the first frame, not shown */
    struct glr_latency channels;   /* the feeder's update: decoding and uploading media */
    struct glr_latency render;     /* the passes' draw calls (queued on a GPU, run on llvmpipe) */
    uint64_t sound_samples;        /* the Sound pass's samples rendered */
    double sound_seconds;          /* ...in this much time, read back included */
    uint64_t reserved_[2];
};

GLR_API void glr_player_get_stats(const glr_player *player, struct glr_player_stats *stats);

/* The player's framebuffer as a ring source, and its scene (for the caller's own GL). */
GLR_API struct glr_source glr_player_source(const glr_player *player);
GLR_API glr_scene *glr_player_scene(glr_player *player);

/* Frees the scene (the GL context must be current) and sets *player to NULL. NULL and a
 * pointer to NULL are accepted. */
GLR_API void glr_player_destroy(glr_player **player);

#ifdef __cplusplus
}
#endif

#endif /* GLREADER_PLAYER_H */
