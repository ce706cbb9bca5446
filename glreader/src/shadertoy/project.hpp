// A Shadertoy project as files (glreader/shadertoy_project.h): which file each pass reads
// and what feeds each channel, parsed from a directory's `channels` file and from specs.
#pragma once

#include "glreader/shadertoy_project.h"

#include <array>
#include <string>

struct glr_project {
    // path: a .frag file, a project directory, or empty (the built-in scene).
    explicit glr_project(const std::string &path);
    glr_project(const glr_project &) = delete; // bindings point into their own strings
    glr_project &operator=(const glr_project &) = delete;

    // Throws glr::failure (-EINVAL) naming `where`; relative files come from base_dir.
    void bind(int pass, int channel, const std::string &spec, const std::string &where, const std::string &base_dir);
    const glr_channel_binding *binding(int pass, int channel) const;
    void scene_params(glr_scene_params &params) const;

private:
    struct bound {
        glr_channel_binding binding{};
        std::string path; // binding.path points here (or is NULL)
    };
    struct pass_entry {
        std::string path; // empty: absent
        std::array<bound, GLR_SCENE_CHANNELS> channels{};
    };
    void read_channels_file(const std::string &dir);

    std::string common_path_;
    std::array<pass_entry, GLR_SCENE_BUFFERS + 1> passes_{}; // Buffer A..D, Image
};
