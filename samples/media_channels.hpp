// The media behind a Shadertoy project's channels (pictures, videos, sounds, cube maps),
// decoded with glreader/shadertoy_media.h and uploaded into the scene in step with the
// render's time. A file bound to several channels is decoded once.
#pragma once

#include "shadertoy_project.hpp"

#include "glreader/scene.h"

#include <map>
#include <memory>
#include <string>

namespace sample {

class media_channels {
public:
    // Opens every file the project's channels name; a sound channel without a file takes
    // audio_path (the exporter's --audio). Throws std::runtime_error naming the file.
    media_channels(const shadertoy_project &project, const std::string &audio_path);
    ~media_channels();
    media_channels(const media_channels &) = delete;
    media_channels &operator=(const media_channels &) = delete;

    // Uploads each channel's pixels for the frame at `seconds` (pictures and cube maps on
    // the first call only). Call it for consecutive frames: the sound's smoothing carries.
    void update(glr_scene *scene, double seconds);
    // The sound's analysis for a frame that is not rendered (those before a start frame),
    // so that frame N's sound texture is the same whether a run starts at 0 or at N.
    void analyse_only(double seconds);
    // iSampleRate: the first sound's, else 0 (the scene's default).
    float sample_rate() const;

private:
    struct source;
    source &open(const channel_spec &spec, const std::string &audio_path);

    std::map<std::string, std::unique_ptr<source>> sources_; // by kind and file
    std::map<std::pair<int, int>, source *> bindings_;        // (pass, channel) -> its source
    bool first_ = true;
};

} // namespace sample
