// The object behind glr_player (glreader/player.h): a project's scene, its clock and its
// channel feeder, rendering frame after frame from a first frame, pre-rolled when the
// project keeps state from frame to frame.
#pragma once

#include "glreader/player.h"
#include "latency.hpp"

#include <memory>
#include <string>

struct glr_player {
public:
    // Compiles the project's passes in the current context; throws glr::failure.
    glr_player(const glr_log *log, const glr_player_params &params);
    ~glr_player();
    glr_player(const glr_player &) = delete;
    glr_player &operator=(const glr_player &) = delete;

    // Renders the next frame (pre-rolling first); throws glr::failure, and again after.
    void render_next();
    int frame() const { return next_ - 1; }
    int preroll() const { return preroll_; }
    const glr_scene_inputs &inputs() const { return inputs_; }
    glr_scene *scene() const { return scene_.get(); }
    const glr_log *log() const { return log_; }
    glr_player_stats stats() const;

    // Whether a scene with these passes keeps pixels from one frame to the next: a pass
    // reads its own or a later buffer, which has not rendered yet this frame.
    static bool keeps_state(const glr_scene_params &params);

private:
    struct scene_deleter {
        void operator()(glr_scene *s) const;
    };
    // Uploads frame n's channels and renders it.
    void render(int n);
    double seconds_at(int n) const; // frame n's iTime

    const glr_log *log_;
    std::unique_ptr<glr_scene, scene_deleter> scene_;
    glr_channel_feeder feeder_{};
    glr_shadertoy_clock clock_{};
    int first_, next_, preroll_;
    bool started_ = false;
    int error_ = 0; // the first failure, returned again
    std::string error_message_;
    glr_scene_inputs inputs_{};
    uint64_t rendered_ = 0, prerolled_ = 0;
    glr::latency_histogram channels_, render_;
};
