// The export job behind glr_export (see glreader/av/export.h for the contract). Two threads
// share its state: the render thread, which owns the GL context and plays, captures and
// submits frame after frame; and the supervisor, the thread that called run(), which
// reports progress, polls the interrupt, and, when the render thread is held in the driver
// past a cancel or the compile limit, finalizes the encoder without it and returns.
#pragma once

#include "glreader/av/export.h"

#include <cstdint>
#include <memory>
#include <thread>

namespace glr {
struct export_shared;
}

struct glr_export {
public:
    // Checks and copies the params; throws glr::failure with words.
    glr_export(glr_log *log, const glr_export_params &params);
    ~glr_export();
    glr_export(const glr_export &) = delete;
    glr_export &operator=(const glr_export &) = delete;

    int run();
    // run() on a thread of its own, and the wait for its end (-EAGAIN while it runs).
    int start();
    int wait(uint64_t timeout_ns);
    void cancel() noexcept;
    glr_export_stats stats() const;
    glr_log *log() const;
#ifdef GLREADER_TEST_SEAMS
    void hold_at(int point);
    bool wait_held(double seconds);
    void release_hold();
    static void release_destroyed();
    void fences_unsignalled(int polls);
    static int render_threads();
    static bool wait_render_threads(int at_most, double seconds);
#endif

private:
    // Shared with the render thread, which may outlive the job (left in the driver).
    std::shared_ptr<glr::export_shared> shared_;
    // The render thread run() returned without (left in the driver). The destructor joins
    // it once it has ended (render_running 0): after glr_export_destroy nothing of the job
    // runs, and the program may exit. One still in the driver is let go.
    std::thread left_in_driver_;
    // start()'s: the thread that runs run(), and what run() returned once ran_ is set (under
    // shared_'s mutex).
    std::thread supervisor_;
    bool ran_ = false;
    int run_code_ = 0;
};
