// What the tests of hardware frames share: owners of the pool and of its frames, and a
// recorder fed the pattern scene, to record the same frames through each path and compare.
#pragma once

#include "pattern_scene.hpp"

#include "glreader/av/hw_frames.h"
#include "glreader/av/recorder.h"

extern "C" {
#include <libavutil/frame.h>
}

#include <gtest/gtest.h>

#include <memory>

namespace glr_test {

struct hw_frames_deleter {
    void operator()(glr_hw_frames *f) const { glr_hw_frames_destroy(&f); }
};
using hw_frames_ptr = std::unique_ptr<glr_hw_frames, hw_frames_deleter>;
struct frame_deleter {
    void operator()(AVFrame *f) const { av_frame_free(&f); }
};
using frame_ptr = std::unique_ptr<AVFrame, frame_deleter>;

// Records frames 0..count-1 of scene (frame n at pts n) with params, finishes and fills
// *stats. False, with glr_last_error saying why, when the recorder refuses to start.
inline bool record_scene(pattern_scene &scene, const glr_recorder_params &params, int count,
                         glr_recorder_stats *stats, glr_log *log = nullptr)
{
    glr_recorder *rec = glr_recorder_create(log, &params);
    if (!rec)
        return false;
    for (int n = 0; n < count; n++) {
        scene.draw(static_cast<uint64_t>(n));
        glr_source source = scene.source();
        EXPECT_EQ(glr_recorder_capture(rec, &source, n), 0) << glr_last_error();
    }
    EXPECT_EQ(glr_recorder_finish(rec), 0) << glr_last_error();
    glr_recorder_get_stats(rec, stats);
    glr_recorder_destroy(&rec);
    return true;
}

} // namespace glr_test
