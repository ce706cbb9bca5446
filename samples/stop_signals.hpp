// How every program stops on SIGINT and SIGTERM, the same way: the first signal asks it to
// stop (it finishes what it started: frames rendered are encoded, the file finalized), a
// second one exits at once with 128 + that signal, leaving what was already written, as
// ffmpeg does.
//
// Some work cannot look at the signal until it ends: the driver compiling a shader, a frame
// that renders for a minute, opening a FIFO no one reads. The program marks such work with
// a busy_section; a watchdog thread stands in for it there. A signal that comes during a
// section (or before it, unanswered) and is still unanswered half a second later makes the
// watchdog run the program's abandon action (on_abandon: finalize what is already encoded)
// and exit with 128 + the signal. A section with a time limit that runs past it ends the
// program the same way, after its message, with status 1.
#pragma once

#include <functional>
#include <string>

namespace sample {

// Installs the handlers; call once, early in main. on_stop, when given, runs in the
// handler at the first signal: it must be async-signal-safe (glr_export_cancel is).
void catch_stop_signals(void (*on_stop)() = nullptr);

// The first SIGINT or SIGTERM received; 0 while none came.
int stop_signal();

// The exit status of a program that stopped: 128 + the first signal (130 for SIGINT, 143
// for SIGTERM), or 0 when none came.
int stop_status();

// Work the watchdog answers signals for while it runs (see above). Sections do not nest.
class busy_section {
public:
    // limit_seconds 0: no limit. limit_message: what the program prints when it runs out.
    explicit busy_section(double limit_seconds = 0, std::string limit_message = {});
    // Waits, when the watchdog is running the abandon action, for the program to exit.
    ~busy_section();
    busy_section(const busy_section &) = delete;
    busy_section &operator=(const busy_section &) = delete;
};

// Steps out of the current busy section for work that the abandon action must not overlap
// (handing a frame to the encoder that the action finalizes), and back in after.
class outside_section {
public:
    outside_section();
    ~outside_section();
    outside_section(const outside_section &) = delete;
    outside_section &operator=(const outside_section &) = delete;
};

// What the watchdog runs, on its own thread, before it exits during a busy section; the program's thread is held at the section's end meanwhile. Empty: just exit.
void on_abandon(std::function<void()> action);

} // namespace sample
