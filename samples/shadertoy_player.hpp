// A Shadertoy project played frame by frame into a scene, for the samples: the project
// and its channel specs (glreader/shadertoy_project.h), the media behind the channels
// (glreader/shadertoy_media.h) and each frame's inputs, as the FFmpeg filter plays them.
#pragma once

#include "scene.hpp"

#include "glreader/shadertoy_media.h"

#include <array>
#include <memory>
#include <string>

namespace sample {

struct shadertoy_options {
    std::string shader;                                   // .frag, project directory, or empty
    std::array<std::string, GLR_SCENE_CHANNELS> channels; // the Image pass's specs (empty: as the project says)
    std::string audio;                                    // the file of a sound channel without one
    glr_shadertoy_clock clock{};                          // sample_rate: taken from the sound
    size_t max_shader_bytes = 0;                          // a shader file's size limit (0: glreader's)
};

class shadertoy_player {
public:
    // Throws std::runtime_error naming the file, spec or pass at fault. The GL context must
    // be current.
    shadertoy_player(const shadertoy_options &options, int width, int height, glr_log *log);
    ~shadertoy_player();
    shadertoy_player(const shadertoy_player &) = delete;
    shadertoy_player &operator=(const shadertoy_player &) = delete;

    // The sound's analysis for frames before `start`, which are not rendered, so that frame
    // N looks the same whether a render starts at 0 or at N.
    void skip_to(int start);
    // Decodes and uploads the channels' media for frame n; call for consecutive frames.
    void upload(int n);
    // Renders the frame last uploaded into target().fbo().
    void render();
    const scene &target() const { return *scene_; }

private:
    struct project_deleter {
        void operator()(glr_project *p) const { glr_project_destroy(&p); }
    };
    std::unique_ptr<glr_project, project_deleter> project_;
    std::unique_ptr<glr_media_channels> media_;
    std::unique_ptr<scene> scene_;
    glr_scene_inputs inputs_of(int n) const; // throws for a clock that is no clock

    glr_shadertoy_clock clock_;
    glr_scene_inputs inputs_{}; // of the frame last uploaded
};

} // namespace sample
