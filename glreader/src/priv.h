/*
 * glreader's private export, in FFmpeg's avpriv_ manner: libglreader exports it for
 * glreader's own libraries (glreader-av) and tests, so that their errors reach the same
 * log and glr_last_error() as the core's; no installed header declares or calls it (the
 * header-only FFmpeg glue uses the public glr_log_message and glr_set_last_error), and it
 * is no API.
 */
#ifndef GLREADER_PRIV_H
#define GLREADER_PRIV_H

#include "glreader/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Records message as the calling thread's last error with its code and, when log_it is
 * non-zero, logs it at error level through log (NULL: the default log). Control-flow codes
 * (-EAGAIN, -EBUSY, -ENODATA) are ignored. */
GLR_API void glr_priv_report_error(const glr_log *log, int code, const char *message, int log_it);

#ifdef __cplusplus
}
#endif

#endif /* GLREADER_PRIV_H */
