// The object behind glr_scene: a Shadertoy shader's passes (Buffer A..D, then Image), each
// a fragment program drawn as one full-screen triangle; buffers into float targets that
// alternate each frame (so a buffer can read its own previous frame), Image into an RGBA8
// texture framebuffer. GL is loaded into the scene's own table.
#pragma once

#include "glreader/ring.h"
#include "glreader/scene.h"
#include "context/functions.hpp"
#include "scene/scene_channel.hpp"
#include "scene/shadertoy_source.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

struct glr_scene {
public:
    glr_scene(const glr_log *log, const glr_scene_params &params);
    ~glr_scene();
    glr_scene(const glr_scene &) = delete;
    glr_scene &operator=(const glr_scene &) = delete;

    void render(const glr_scene_inputs &inputs);
    void set_channel_image(int pass, int channel, const glr_image &image);
    void set_channel_cubemap(int pass, int channel, const glr_image faces[6]);
    void read_pixels(int format, uint8_t *data, ptrdiff_t stride); // format: a glr_format as int
    bool has_sound() const { return sound_.program != 0; }
    void render_sound(int sample_rate, long long first_sample, int count, int16_t *stereo);
    GLuint framebuffer() const { return fbo_; }
    const glr_log *log() const { return log_; }
    static const char *builtin_source_text();
    static constexpr int default_sample_rate = 44100; // iSampleRate when none is given, as Shadertoy's

private:
    struct pass;
    void build_pass(int index, const std::string &common, const std::string &common_name, const char *source,
                    const char *source_path, const char *source_name, const glr_channel *channels);
    void create_buffer_targets(pass &p);
    GLuint build_program(const std::string &fragment, const glr::shadertoy::pass_source &text, const std::string &label);
    void build_sound(const std::string &common, const std::string &common_name, const char *source,
                     const char *source_path, const char *source_name);
    void draw_pass(pass &p, GLuint target_fbo, const glr_scene_inputs &inputs);
    glr::gl::scene_channel &channel_of(int pass, int channel, const char *call);
    void release(); // the GL objects

    const glr_log *log_;
    glr::gl::functions fns_;
    const GladGLContext &gl_ = fns_.gl;
    int width_, height_;
    GLenum buffer_format_;
    size_t max_source_; // bytes of a shader file read
    glr_alpha alpha_;   // the Image pass's
    bool staged_uploads_ = false; // channels upload through pixel-unpack buffers
    // Buffer A..D (absent: null), then Image.
    std::array<std::unique_ptr<pass>, GLR_SCENE_BUFFERS + 1> passes_;
    GLuint vao_ = 0, fbo_ = 0, texture_ = 0;
    glr_get_proc_address_fn get_proc_address_ = nullptr; // for the Sound pass's ring
    // The Sound pass: a block of sound_block x sound_block samples a draw, as Shadertoy's,
    // read back through a ring of its own (made at the first render) while the next draws.
    static constexpr int sound_block = 512;
    static constexpr long long block_samples = static_cast<long long>(sound_block) * sound_block;
    struct sound_pass {
        GLuint program = 0, texture = 0, fbo = 0;
        GLint first_sample = -1, first_time = -1, block_width = -1, sample_rate = -1;
        glr_ring *ring = nullptr;
    } sound_;
};
