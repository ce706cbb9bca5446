// The animated scene the samples render: a GLSL plasma with moving rings and a clock
// hand, drawn into a framebuffer object of the samples' own. Shared by the samples so
// each sample file stays about the glreader API.
#pragma once

#include <glad/gl.h>

namespace sample {

class scene {
public:
    // Loads GL through glr_context_get_proc_address (an EGL context must be current),
    // compiles the shader and creates a width x height RGBA8 framebuffer.
    // Throws std::runtime_error with the compiler's log on failure.
    scene(int width, int height);
    ~scene();
    scene(const scene &) = delete;
    scene &operator=(const scene &) = delete;

    // Draws the scene at `seconds` into fbo().
    void draw(double seconds);
    unsigned fbo() const { return fbo_; }
    const GladGLContext &gl() const { return gl_; }

private:
    GladGLContext gl_{};
    int width_, height_;
    unsigned program_ = 0, vao_ = 0, fbo_ = 0, texture_ = 0;
    int time_location_ = -1, resolution_location_ = -1;
};

} // namespace sample
