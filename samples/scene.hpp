// The scene the samples render: a Shadertoy-style fragment shader (mainImage(out vec4,
// in vec2), uniforms iResolution, iTime, iTimeDelta, iFrame; fragCoord's origin at the
// bottom left) drawn into a framebuffer object of the samples' own. Built in: an animated
// plasma with moving rings and a clock hand.
#pragma once

#include "glreader/context.h"
#include "glreader/ring.h"

#include <glad/gl.h>

#include <string>

namespace sample {

// The built-in scene's mainImage source.
const char *builtin_scene_source();

// What to render: a shader file's text and its name, or the built-in scene when path is
// empty. Throws std::runtime_error naming the file when it cannot be read.
struct scene_source {
    std::string text, name;
};
scene_source load_scene_source(const std::string &path);

class scene {
public:
    // Loads GL through loader (by default glreader's EGL context must be current),
    // compiles main_image_source and creates a width x height RGBA8 framebuffer.
    // Throws std::runtime_error on failure; a compile error's line numbers are those of
    // main_image_source, prefixed with source_name.
    scene(int width, int height, const std::string &main_image_source = builtin_scene_source(),
          const std::string &source_name = "built-in scene",
          glr_get_proc_address_fn loader = glr_context_get_proc_address);
    ~scene();
    scene(const scene &) = delete;
    scene &operator=(const scene &) = delete;

    // Draws frame `frame` at `seconds` (delta: time since the previous frame) into fbo().
    void draw(int frame, double seconds, double delta);
    unsigned fbo() const { return fbo_; }
    const GladGLContext &gl() const { return gl_; }

private:
    GladGLContext gl_{};
    int width_, height_;
    unsigned program_ = 0, vao_ = 0, fbo_ = 0, texture_ = 0;
    int resolution_location_ = -1, time_location_ = -1, delta_location_ = -1, frame_location_ = -1;
};

} // namespace sample
