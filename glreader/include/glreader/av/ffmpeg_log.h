/*
 * glreader-av: FFmpeg's own log (every av_log of libavcodec, libavformat, encoders and
 * muxers in this process) through a glreader log, so a program shows one log at one level,
 * as ffmpeg's -loglevel does. Link glreader-av.
 *
 *   struct glr_log_params lp = { .callback = print, .level = GLR_LOG_INFO };
 *   glr_log *log = glr_log_create(&lp);
 *   glr_ffmpeg_log_route(log);    // x264's summary, a muxer's warnings: through print
 *   ...
 *   glr_ffmpeg_log_route(NULL);   // FFmpeg's own stderr printer again
 *   glr_log_destroy(&log);
 */
#ifndef GLREADER_AV_FFMPEG_LOG_H
#define GLREADER_AV_FFMPEG_LOG_H

#include "glreader/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Sends FFmpeg's log through log: each line as ffmpeg prints it, starting with its
 * component in brackets ("[libx264 @ 0x5581...] frame I:1 ...", or "[ffmpeg] ..." for a
 * line without one; glreader's own messages never start with '['), at the glreader level
 * of its av_log level (panic, fatal and error: GLR_LOG_ERROR; warning; info; verbose; debug
 * and trace: GLR_LOG_DEBUG). FFmpeg's own level is set to log's (av_log_set_level), so
 * FFmpeg formats nothing the log would drop. Pieces of a line logged separately arrive as
 * one line. NULL: FFmpeg's default printer (to stderr) again, at its default level.
 * Thread-safety: FFmpeg has one log per process, so the last call wins; call it while no
 * other thread changes FFmpeg's log callback. Lines are delivered on the thread that
 * logged them. Lifetime: log must outlive the routing: call glr_ffmpeg_log_route(NULL)
 * before destroying it. */
GLR_API void glr_ffmpeg_log_route(glr_log *log);

#ifdef __cplusplus
}
#endif

#endif /* GLREADER_AV_FFMPEG_LOG_H */
