// Shadertoy's own JSON for a shader: the API's {"Shader": {...}}, the site's export (one
// shader object, or an array of them, as collections and browser extensions save them).
// Read into what glreader's project needs, every field checked: a malformed or hostile file
// (wrong types, huge arrays, deep nesting, ids that point nowhere) is refused with words
// naming the field. No GL and no files here.
#pragma once

#include <string>
#include <vector>

namespace glr::shadertoy {

// An input of a pass, as Shadertoy binds it.
struct json_input {
    int channel = 0;        // iChannel0..3
    std::string kind;       // texture, cubemap, video, music, musicstream, mic, webcam, keyboard, buffer, volume
    std::string media;      // texture, cubemap, video, music: Shadertoy's path (/media/a/...)
    int buffer = -1;        // buffer: 0..3 for Buffer A..D; 4: Cube A
    std::string filter;     // nearest, linear, mipmap; empty: Shadertoy's default for the kind
    std::string wrap;       // clamp, repeat; empty: the default
    int vflip = -1;         // 1, 0; -1: the default
    bool srgb = false;
};

struct json_pass {
    std::string type;       // image, buffer, common, sound, cubemap
    std::string name;       // "Image", "Buffer A", ... as the file names it
    std::string code;
    int buffer = -1;        // a buffer pass: which of A..D (4: Cube A), from its output id
    std::vector<json_input> inputs;
};

struct json_shader {
    std::string id, name, author;
    std::vector<json_pass> passes;
};

// The largest JSON file glreader reads: collections hold many shaders.
constexpr size_t max_json_bytes = 64u << 20;

// The shader of `text` whose info.id is `pick`, or the only one when `pick` is empty.
// `file` names the file in errors. Throws glr::failure (-EINVAL).
json_shader read_shadertoy_json(const std::string &text, const std::string &file, const std::string &pick);

} // namespace glr::shadertoy
