// A Shadertoy project played by glr_player (glreader/player.h), for the samples: the
// project with the command line's channel specs, its media decoded by glreader's FFmpeg
// feeder (glreader/shadertoy_media.h), and the player that renders it from a first frame.
#pragma once

#include "glreader/player.h"
#include "glreader/shadertoy_media.h"

#include <array>
#include <memory>
#include <string>

namespace sample {

struct shadertoy_options {
    std::string shader;                                   // .frag, project directory, or empty
    std::array<std::string, GLR_SCENE_CHANNELS> channels; // the Image pass's specs (empty: as the project says)
    std::string audio;                                    // the file of a sound channel without one
    int fps_num = 30, fps_den = 1;
    float mouse[4] = {0, 0, 0, 0};                        // iMouse
    std::string date;                                     // iDate at frame 0, UTC; empty: now, local time
    int first_frame = 0;
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

    // Renders the next frame (the first frame, pre-rolled where the project needs it);
    // throws std::runtime_error.
    void render_next();
    glr_source source() const { return glr_player_source(player_.get()); }
    int preroll() const { return glr_player_preroll(player_.get()); }
    glr_player_stats stats() const;

private:
    struct project_deleter {
        void operator()(glr_project *p) const { glr_project_destroy(&p); }
    };
    struct player_deleter {
        void operator()(glr_player *p) const { glr_player_destroy(&p); }
    };
    std::unique_ptr<glr_project, project_deleter> project_;
    std::unique_ptr<glr_media_channels> media_; // the player's feeder reads it
    std::unique_ptr<glr_player, player_deleter> player_;
};

} // namespace sample
