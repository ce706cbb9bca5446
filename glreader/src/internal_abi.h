/*
 * Entry points the core library exports for glreader's own sibling library (glreader-av)
 * so that both report errors the same way. Not installed; not for applications.
 */
#ifndef GLREADER_INTERNAL_ABI_H
#define GLREADER_INTERNAL_ABI_H

#include "glreader/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Records message as the calling thread's last error (glr_last_error) with its code and
 * logs it at error level through log (NULL: the default stderr log). Control-flow codes
 * are ignored. */
GLR_API void glr_internal_report(const glr_log *log, int code, const char *message);

/* Records message as the calling thread's last error without logging it (it was logged
 * where it happened, e.g. on a worker thread). */
GLR_API void glr_internal_set_last_error(int code, const char *message);

/* Logs message at the given level through log (NULL: the default stderr log). */
GLR_API void glr_internal_log(const glr_log *log, enum glr_log_level level, const char *message);

#ifdef __cplusplus
}
#endif

#endif /* GLREADER_INTERNAL_ABI_H */
