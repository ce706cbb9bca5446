// The scene the samples render: glreader's Shadertoy-style renderer (glreader/scene.h),
// plus a GL function table for the samples' own calls on the same context.
#pragma once

#include "glreader/glreader.h"

#include <glad/gl.h>

#include <string>

namespace sample {

// What to render: source text, or a file, or (both empty) glreader's built-in scene.
// `name` labels compile errors (default: the path, or "shader").
struct shader_spec {
    std::string text, path, name;
};

class scene {
public:
    // Throws glr::error (a compile error as NAME:LINE:COLUMN, an unreadable file...).
    scene(int width, int height, const shader_spec &shader = {},
          glr_get_proc_address_fn loader = glr_context_get_proc_address, glr_log *log = nullptr);
    // Any scene glreader renders: passes, channels (params.get_proc_address: NULL for EGL).
    scene(const glr_scene_params &params, glr_log *log);
    ~scene() { glr_scene_destroy(&scene_); }
    scene(const scene &) = delete;
    scene &operator=(const scene &) = delete;

    // Draws frame `frame` at `seconds` (delta: time since the previous frame) into fbo().
    void draw(int frame, double seconds, double delta);
    // Draws with every Shadertoy input.
    void render(const glr_scene_inputs &inputs);
    glr_scene *handle() const { return scene_; }
    unsigned fbo() const { return glr_scene_framebuffer(scene_); }
    const GladGLContext &gl() const { return gl_; }

private:
    GladGLContext gl_{};
    glr_scene *scene_ = nullptr;
};

} // namespace sample
