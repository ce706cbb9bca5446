// A Shadertoy shader as glreader-export takes it: one .frag file (the Image pass), or a
// project directory (image.glsl, optional common.glsl and bufferA..D.glsl, and a
// `channels` file binding each pass's iChannels), plus --channelN options for the Image
// pass. The channel spec both use:
//
//   KIND[:SOURCE][,filter=nearest|linear|mipmap][,wrap=clamp|repeat][,vflip=on|off][,loop=on|off]
//
//   image:FILE   video:FILE   sound[:FILE] (no FILE: the --audio file)   keyboard
//   cubemap:PATTERN (each face's file: {} in PATTERN becomes px, nx, py, ny, pz, nz)
//   buffer:A..D
#pragma once

#include "glreader/scene.h"

#include <array>
#include <string>
#include <vector>

namespace sample {

struct channel_spec {
    glr_channel channel{};
    enum class media { none, image, video, sound, cubemap } source = media::none;
    std::string path; // the file (cubemap: the pattern), relative paths already resolved
    bool loop = true; // video: past the end loop, else hold the last frame
};

struct pass_spec {
    std::string path; // the pass's file; empty: absent
    std::array<channel_spec, GLR_SCENE_CHANNELS> channels{};
};

struct shadertoy_project {
    std::string common_path;                        // empty: none
    std::array<pass_spec, GLR_SCENE_BUFFERS + 1> passes{}; // Buffer A..D, Image
    pass_spec &image() { return passes[GLR_SCENE_IMAGE_PASS]; }

    // The scene's parameters; they point into this project, which must outlive them.
    glr_scene_params scene_params(int width, int height) const;
};

// Reads a spec; throws std::runtime_error naming `where` and what is wrong. Relative
// paths are taken from base_dir (empty: as given).
channel_spec parse_channel_spec(const std::string &text, const std::string &where, const std::string &base_dir);

// A .frag file or a project directory (empty: the built-in scene). Throws
// std::runtime_error naming the file, the line and the cause.
shadertoy_project load_project(const std::string &path);

} // namespace sample
