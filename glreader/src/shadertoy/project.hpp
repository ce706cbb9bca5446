// A Shadertoy project (glreader/shadertoy_project.h): the code each pass runs (a file, or
// text from Shadertoy's JSON) and what feeds each channel, parsed from a directory's
// `channels` file, from Shadertoy's JSON and from specs.
#pragma once

#include "glreader/shadertoy_project.h"

#include <array>
#include <optional>
#include <string>

// The passes' names, Buffer A..D then Image (GLR_SCENE_IMAGE_PASS): as a project folder's
// files ("bufferA", "image") and as errors say them ("Buffer A", "Image").
namespace glr {
extern const char *const project_pass_files[GLR_SCENE_BUFFERS + 1];
extern const char *const project_pass_titles[GLR_SCENE_BUFFERS + 1];
} // namespace glr

struct glr_project {
    // path: a .frag file, a project directory, a Shadertoy JSON file (FILE.json, or
    // FILE.json#ID to pick one of several), or empty (the built-in scene). media_dir:
    // where the JSON's Shadertoy media are looked for first (empty: only by the file).
    glr_project(const std::string &path, const std::string &media_dir, const glr_log *log);
    glr_project(const glr_project &) = delete; // bindings point into their own strings
    glr_project &operator=(const glr_project &) = delete;

    // Throws glr::failure (-EINVAL) naming `where`; relative files come from base_dir.
    void bind(int pass, int channel, const std::string &spec, const std::string &where, const std::string &base_dir);
    const glr_channel_binding *binding(int pass, int channel) const;
    void scene_params(glr_scene_params &params) const;
    bool has_sound_pass() const { return sound_.present(); }
    // Writes the project as a folder (image.glsl, ..., channels) into `dir`, which must not
    // exist or be empty; nothing is overwritten. Throws glr::failure naming the file.
    void write(const std::string &dir) const;

private:
    struct bound {
        glr_channel_binding binding{};
        std::string path; // binding.path points here (or is NULL)
    };
    // A pass's code is a file (path) or text (source, named `name` in errors); both
    // empty: absent. The Common section likewise.
    struct code {
        std::string path;
        std::optional<std::string> source;
        std::string name;
        bool present() const { return !path.empty() || source; }
    };
    struct pass_entry : code {
        std::array<bound, GLR_SCENE_CHANNELS> channels{};
    };
    void read_channels_file(const std::string &dir);
    // Shadertoy's JSON (project_json.cpp): FILE.json or FILE.json#ID.
    static bool is_json(const std::string &path);
    void read_json(const std::string &path, const std::string &media_dir, const glr_log *log);

    code common_;
    code sound_; // the Sound pass: vec2 mainSound(int samp, float time)
    std::array<pass_entry, GLR_SCENE_BUFFERS + 1> passes_{}; // Buffer A..D, Image
};
