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

// FFmpeg's log goes to messages_log() while at least one of these lives (a render, a
// recorder), and back to FFmpeg's own printer after the last. With the GIL.
class ffmpeg_messages {
public:
    ffmpeg_messages();
    ~ffmpeg_messages();
    ffmpeg_messages(const ffmpeg_messages &) = delete;
    ffmpeg_messages &operator=(const ffmpeg_messages &) = delete;
};

} // namespace glr_python
