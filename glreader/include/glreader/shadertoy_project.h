/*
 * glreader: a Shadertoy project as files, and what each of its frames sees. Every host
 * (glreader-export, the FFmpeg filter, a program of its own) reads projects, channel
 * specs, --mouse and --date values and computes frame inputs through these calls, so the
 * same project renders the same pixels everywhere. FFmpeg-free: a project says which
 * media feed which channel; the host decodes them (glreader/utils/libav_media.h does it
 * with FFmpeg's libraries) and the scene (glreader/scene.h) renders.
 *
 * A project is one fragment file (the Image pass), a directory holding image.glsl,
 * optionally common.glsl, bufferA..D.glsl and sound.glsl (the Sound pass, mainSound), and
 * a `channels` file of lines
 * "PASS.channelN SPEC" (PASS: image or bufferA..bufferD, N: 0..3; # starts a comment), or
 * Shadertoy's own JSON (FILE.json: the API's {"Shader": ...} or the site's export, one
 * shader or an array of them, FILE.json#ID picking one), every pass and input bound as
 * Shadertoy binds it. A channel spec:
 *
 *   KIND[:SOURCE][,filter=nearest|linear|mipmap][,wrap=clamp|repeat][,vflip=on|off][,loop=on|off]
 *
 *   image:FILE   video:FILE   sound[:FILE]   keyboard   buffer:A..D
 *   cubemap:PATTERN (each face's file: {} in PATTERN becomes px, nx, py, ny, pz, nz; {_}
 *                    becomes "", _1, .. _5, as Shadertoy names its cube maps' faces)
 *
 * Each kind's defaults are Shadertoy's: image mipmap, repeat, vflip on; video linear,
 * clamp, vflip on, loop on; sound linear, clamp, vflip off; cubemap mipmap, clamp, vflip
 * off; buffer linear, clamp; keyboard nearest, clamp.
 *
 * Relative files in a channels file are taken from the project's directory. The calls
 * that take no log keep their errors in glr_last_error() without logging them.
 */
#ifndef GLREADER_SHADERTOY_PROJECT_H
#define GLREADER_SHADERTOY_PROJECT_H

#include "glreader/common.h"
#include "glreader/scene.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the host decodes into a channel. */
enum glr_media_kind {
    GLR_MEDIA_NONE = 0,    /* nothing to decode: an empty, buffer or keyboard channel */
    GLR_MEDIA_IMAGE = 1,   /* a picture, uploaded once */
    GLR_MEDIA_VIDEO = 2,   /* a video's frame at each render time */
    GLR_MEDIA_SOUND = 3,   /* Shadertoy's 512x2 sound texture at each render time */
    GLR_MEDIA_CUBEMAP = 4  /* six pictures, uploaded once */
};

struct glr_channel_binding {
    struct glr_channel channel; /* how the scene samples it */
    enum glr_media_kind media;
    const char *path; /* the file (cubemap: the pattern); NULL: a sound without a file, which
                         takes the host's audio; valid while the project lives */
    int loop;         /* video: 1 loops past the end, 0 holds the last frame */
};

typedef struct glr_project glr_project;

/* Reads a .frag file's path, a project directory (its channels file parsed, each pass's
 * file checked) or a Shadertoy JSON (read whole, its media found beside it: see
 * glr_project_open). NULL or "": the built-in scene. Returns NULL with the reason logged
 * and in glr_last_error(): -ENOENT (no image.glsl, naming the directory), -EINVAL (a
 * channels line, as "FILE:LINE: why"; a JSON field, as "FILE: FIELD: why"). Pass files
 * are read when the scene is created. */
GLR_API glr_project *glr_project_load(glr_log *log, const char *path);

/* What glr_project_open reads. */
struct glr_project_params {
    const char *path;      /* as glr_project_load takes it */
    const char *media_dir; /* Shadertoy JSON: the folder its media (/media/a/NAME.png and the
                              like, which glreader does not ship) are looked for in first, as
                              FOLDER/media/a/NAME.png or FOLDER/NAME.png, then beside the
                              file; NULL: beside the file only. A missing one fails the call
                              (-ENOENT), naming each input and file. */
};

/* glr_project_load with a media folder. Also -ENOTSUP: the JSON uses what glreader cannot
 * render (a Cube A pass, a webcam, a 3D texture), each named. */
GLR_API glr_project *glr_project_open(glr_log *log, const struct glr_project_params *params);

/* Writes the project as a folder (image.glsl, common.glsl, bufferA..D.glsl, channels; media
 * by their absolute paths) that glr_project_load reads back as the same project: how a
 * Shadertoy JSON becomes files to edit. `dir` is made, or must be empty; nothing is
 * overwritten. Returns 0 or a negative errno, with a message naming the file. */
GLR_API int glr_project_write(const glr_project *project, const char *dir);

/* Binds a channel of a pass (0..3: Buffer A..D, GLR_SCENE_IMAGE_PASS: Image) to a spec;
 * relative files are taken as given. `where` names the spec in errors ("--channel0").
 * Returns 0 or -EINVAL (a bad spec, no such pass or channel, a pass the project lacks),
 * with a message. */
GLR_API int glr_project_bind(glr_project *project, int pass, int channel, const char *spec, const char *where);

/* A pass's channel; NULL when there is no such pass or channel. */
GLR_API const struct glr_channel_binding *glr_project_binding(const glr_project *project, int pass, int channel);

/* Fills every pass's source_path, the common section's and every channel of `params`,
 * leaving its other fields as they are. The paths point into the project. */
GLR_API void glr_project_scene_params(const glr_project *project, struct glr_scene_params *params);

/* 1 when the project has a Sound pass (vec2 mainSound(int samp, float time): a folder's
 * sound.glsl, a JSON's Sound pass), rendered by glr_scene_render_sound; else 0. */
GLR_API int glr_project_has_sound_pass(const glr_project *project);

/* Frees the project and sets *project to NULL. NULL and a pointer to NULL are accepted. */
GLR_API void glr_project_destroy(glr_project **project);

/* The clock of a render: all a frame's inputs but its channels follow from it. */
struct glr_shadertoy_clock {
    int fps_num, fps_den;  /* the frame rate, both > 0 */
    float mouse[4];        /* iMouse (glr_shadertoy_parse_mouse) */
    long long date_start;  /* iDate at frame 0, seconds since the epoch */
    int date_local;        /* 1: iDate in local time (a render started now), 0: UTC (a given date) */
    float sample_rate;     /* iSampleRate; 0: Shadertoy's 44100 */
};

/* Frame `frame`'s inputs: iFrame, iTime = frame / rate, iTimeDelta, iFrameRate, iMouse,
 * iDate and iSampleRate. Returns 0 or -EINVAL (a NULL pointer, a rate not positive). */
GLR_API int glr_shadertoy_inputs(const struct glr_shadertoy_clock *clock, int frame, struct glr_scene_inputs *inputs);

/* "X,Y" (held down at X,Y since before the first frame) or "X,Y,CX,CY" (Shadertoy's iMouse
 * as is), pixels from the bottom left. Returns 0 or -EINVAL, with a message quoting it. */
GLR_API int glr_shadertoy_parse_mouse(const char *text, float mouse[4]);

/* "YYYY-MM-DD" or "YYYY-MM-DDTHH:MM:SS", UTC, into seconds since the epoch. Returns 0 or
 * -EINVAL, with a message quoting it. */
GLR_API int glr_shadertoy_parse_date(const char *text, long long *seconds);

#ifdef __cplusplus
}
#endif

#endif /* GLREADER_SHADERTOY_PROJECT_H */
