/*
 * glreader-av: a Shadertoy project's media channels, decoded with FFmpeg's libraries and
 * fed to a player (glreader/player.h) in step with the render's time, never wall time:
 *
 *   image  a picture (PNG, JPEG, anything FFmpeg decodes) as RGBA, uploaded once.
 *   video  a video's frames as RGBA: the frame shown at time t is the last whose timestamp
 *          is at or before t; past the end it loops, or holds its last frame.
 *   sound  Shadertoy's 512x2 sound texture: row 0 the spectrum of the 2048 samples that
 *          end at the frame's time (Blackman window, |X|/N smoothed over frames with 0.8,
 *          mapped from -100..-30 dB to 0..255, as Web Audio's analyser does), row 1 the
 *          512 samples that end there as 128 * (1 + x). Bins are sample_rate / 2048 apart.
 *   cube map  six pictures, PATTERN's {} replaced by px nx py ny pz nz.
 *
 *   glr_media_channels *media = glr_media_channels_create(log, project, "song.flac");
 *   struct glr_channel_feeder feeder = glr_media_channels_feeder(media);
 *   player_params.feeder = &feeder;              ... play ...
 *   glr_media_channels_destroy(&media);          after the player
 *
 * Link glreader-av (pkg-config glreader-av). The FFmpeg source filter, which links only
 * glreader's core, defines GLR_MEDIA_STATIC before including this header: the same
 * functions are then static inline, compiled with that FFmpeg.
 */
#ifndef GLREADER_UTILS_LIBAV_MEDIA_H
#define GLREADER_UTILS_LIBAV_MEDIA_H

#include "glreader/player.h"
#include "glreader/shadertoy_project.h"

#ifdef GLR_MEDIA_STATIC
#define GLR_MEDIA_API static inline
#else
#define GLR_MEDIA_API GLR_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The decoders of a project's channels.
 * Thread-safety: one thread at a time (the player's). Lifetime: outlive the player it feeds. */
typedef struct glr_media_channels glr_media_channels;

/* Opens the file of every channel of `project` that has one (a file bound to several
 * channels is decoded once). A sound channel without a file plays `audio`; with none
 * (NULL), it hears the project's Sound pass where the project has one, as the player it
 * feeds renders it (glr_player_render_sound: mixed down to mono as a file's sound is), and
 * is an error naming the channel where it has none, or where the player plays none
 * (glr_player_params.sound_rate < 0). Returns NULL with the reason, naming the file,
 * logged and in glr_last_error(). */
GLR_MEDIA_API glr_media_channels *glr_media_channels_create(glr_log *log, const glr_project *project,
                                                           const char *audio);

/* Frees the decoders and sets *media to NULL. NULL and a pointer to NULL are accepted. */
GLR_MEDIA_API void glr_media_channels_destroy(glr_media_channels **media);

/* The player's channel feeder: it decodes and uploads each rendered frame's media, and
 * carries the sound's smoothing over frames a start skips. */
GLR_MEDIA_API struct glr_channel_feeder glr_media_channels_feeder(glr_media_channels *media);

/* iSampleRate: the first sound's rate; 0 (Shadertoy's 44100) without a sound. */
GLR_MEDIA_API float glr_media_channels_sample_rate(const glr_media_channels *media);

#ifdef __cplusplus
}
#endif

#if defined(GLR_MEDIA_STATIC) || defined(GLR_MEDIA_IMPLEMENTATION)
#include "glreader/utils/libav_media_internal.h"
#endif

#endif /* GLREADER_UTILS_LIBAV_MEDIA_H */
