/*
 * glreader's private exports, in FFmpeg's avpriv_ manner: libglreader exports them for
 * glreader's own libraries (glreader-av) and tests, so that their messages and errors
 * reach the same log and glr_last_error() as the core's; no installed header declares
 * them (shadertoy_media_internal.h repeats the one it needs), and they are no API.
 */
#ifndef GLREADER_PRIV_H
#define GLREADER_PRIV_H

#include "glreader/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Writes message at level through log (NULL: the default stderr log). */
GLR_API void glr_priv_log_write(const glr_log *log, enum glr_log_level level, const char *message);

/* Records message as the calling thread's last error with its code and, when log_it is
 * non-zero, logs it at error level through log (NULL: the default log). Control-flow codes
 * (-EAGAIN, -EBUSY, -ENODATA) are ignored. */
GLR_API void glr_priv_report_error(const glr_log *log, int code, const char *message, int log_it);

#ifdef __cplusplus
}
#endif

#endif /* GLREADER_PRIV_H */
