// glreader's messages in Python: one log for the process, whose callback (any thread, the
// GIL not held) queues each message; flush() hands them to Python's logging, as the
// "glreader" logger, on a thread that holds the GIL. glreader's own errors are left out:
// they reach Python as exceptions. FFmpeg's lines (which start with "[component]") come
// too while a render routes FFmpeg's log here. The log is never freed: a render thread left in the driver after
// a cancel may still write to it.
#pragma once

#include "glreader/common.h"

namespace glr_python {

glr_log *messages_log();

// Emits the queued messages through logging.getLogger("glreader"). Needs the GIL.
void flush_messages();

} // namespace glr_python
