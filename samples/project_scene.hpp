// What to render, for every program that renders a scene: --shader FILE|DIR|JSON, --media DIR
// and --channel0..3 SPEC (project_options), and the scene that plays it (project_scene): a
// Shadertoy shader or project directory (glreader/shadertoy_project.h), its media channels
// decoded with FFmpeg (glreader/utils/libav_media.h), played by glr_player frame after frame
// at a frame rate, in the GL context current when it is made.
#pragma once

#include "command_line.hpp"

#include "glreader/glreader.hpp"
#include "glreader/utils/libav_media.h"

#include <glad/gl.h>

#include <array>
#include <memory>
#include <string>

namespace sample {

struct project_options {
    std::string shader; // a .frag file, a project directory or a JSON; empty: the built-in scene
    std::string media;  // where a JSON's Shadertoy media are
    std::array<std::string, GLR_SCENE_CHANNELS> channels; // the Image pass's, over the project's

    // Takes --shader or --channelN from args; false when the option is neither.
    bool read(command_line &args);
    // The project, the channel specs bound (named --channelN in errors). Throws glr::error.
    glr::project load(glr_log *log = nullptr) const;
};

class project_scene {
public:
    // loader: the GL context's (NULL: glreader's EGL one); audio: the file a sound channel
    // without one plays. Throws glr::error naming the file, spec or pass at fault.
    project_scene(const project_options &options, int width, int height, frame_rate fps,
                  glr_get_proc_address_fn loader = nullptr, const std::string &audio = {}, glr_log *log = nullptr);

    // Renders the next frame (the first, then each after) into fbo().
    void render_next() { player_.render_next(); }
    glr_source source() const { return player_.source(); }
    unsigned fbo() const { return player_.source().name; }
    // A GL table for the program's own calls in the same context.
    const GladGLContext &gl() const { return gl_; }

private:
    struct media_deleter {
        void operator()(glr_media_channels *m) const { glr_media_channels_destroy(&m); }
    };
    // In this order: the player goes first, then the media it reads, then the project.
    glr::project project_;
    std::unique_ptr<glr_media_channels, media_deleter> media_;
    glr::player player_;
    GladGLContext gl_{};
};

} // namespace sample
