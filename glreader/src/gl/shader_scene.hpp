// The object behind glr_scene: a Shadertoy-style fragment shader drawn as one full-screen
// triangle into an RGBA8 texture framebuffer, with GL loaded into its own table.
#pragma once

#include "glreader/scene.h"
#include "gl/functions.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

struct glr_scene {
public:
    glr_scene(const glr_log *log, const glr_scene_params &params);
    ~glr_scene();
    glr_scene(const glr_scene &) = delete;
    glr_scene &operator=(const glr_scene &) = delete;

    void draw(int frame, double seconds, double delta);
    void read_pixels(int format, uint8_t *data, ptrdiff_t stride); // format: a glr_format as int
    GLuint framebuffer() const { return fbo_; }
    const glr_log *log() const { return log_; }
    static const char *builtin_source_text();

private:
    GLuint compile(GLenum type, const std::string &source, const std::string &name);
    void link(const std::string &fragment_source, const std::string &name);
    void release(); // the GL objects

    const glr_log *log_;
    glr::gl::functions fns_;
    const GladGLContext &gl_ = fns_.gl;
    int width_, height_;
    GLuint program_ = 0, vao_ = 0, fbo_ = 0, texture_ = 0;
    GLint resolution_ = -1, time_ = -1, delta_ = -1, frame_ = -1;
};
