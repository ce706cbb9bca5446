// How every program stops on SIGINT and SIGTERM, the same way: the first signal asks it to
// stop (it finishes what it started: frames rendered are encoded, the file finalized), a
// second one exits at once with 128 + that signal, leaving what was already written, as
// ffmpeg does. Work that cannot look at the signal itself (the driver compiling a shader,
// a frame that renders for a minute) is the export job's to answer: the signal cancels the
// job that runs (run_cancelled_on_stop), whose supervisor finalizes without a thread the driver
// holds.
#pragma once

#include "glreader/av/export.h"

namespace sample {

// Installs the handlers; call once, early in main.
void catch_stop_signals();

// Runs the job (glr_export_run), a stop signal cancelling it meanwhile, one that came
// before at once; run's code.
int run_cancelled_on_stop(glr_export *job);

// The first SIGINT or SIGTERM received; 0 while none came.
int stop_signal();

// The exit status of a program that stopped: 128 + the first signal (130 for SIGINT, 143
// for SIGTERM), or 0 when none came.
int stop_status();

// How a program that ran a job ends with `status`: returned from main, or, when the job's
// render thread was left in the driver, at once (_exit, stdio flushed), so that no exit
// handler (EGL's and the driver's clean-up) runs under that thread's feet.
int end_after_job(int status, bool render_left_running);

} // namespace sample
