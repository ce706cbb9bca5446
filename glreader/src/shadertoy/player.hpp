// The object behind glr_player (glreader/player.h): a project's scene, its clock and its
// channel feeder, rendering frame after frame from a first frame, pre-rolled when the
// project keeps state from frame to frame.
#pragma once

#include "glreader/player.h"
#include "latency.hpp"

#include <memory>
#include <string>
#include <vector>

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

    // The Sound pass (0 / -1 without one): its rate, frame n's first sample, and samples
    // from first on (silence before 0), through a cache of pieces; throws glr::failure.
    int sound_rate() const { return sound_rate_; }
    long long sound_sample(long long frame) const;
    void render_sound(long long first, int count, int16_t *stereo);

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
    void feed(int (*step)(void *, glr_player *, double), int n, double seconds);
    // Renders the Sound pass on past the cache's end until it holds sample end - 1.
    void extend_sound(long long first, long long end);
    // The sample after the last one kept.
    long long sound_end() const { return sound_first_ + static_cast<long long>(sound_.size() / 2); }

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
    // The Sound pass's samples rendered so far and kept: stereo, from sample sound_first_.
    int sound_rate_ = 0;
    std::vector<int16_t> sound_;
    long long sound_first_ = 0;
    int sound_piece_ = 0; // the last piece's length: the next is twice as long, up to a limit
    uint64_t sound_samples_ = 0;
    double sound_seconds_ = 0;
};
