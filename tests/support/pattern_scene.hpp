// A GL scene for tests: every frame n draws a pattern in which each pixel encodes n and
// its own position, so a read-back frame proves which frame it is, its orientation and
// that every byte arrived.
#pragma once

#include "glreader/ring.h"
#include "gl_test.hpp"

#include <glad/gl.h>

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace glr_test {

// RGBA bytes of pixel (x, y) of frame n, y counted from the top row of the image.
inline std::array<uint8_t, 4> pattern(uint64_t n, int x, int y)
{
    auto ux = static_cast<uint32_t>(x), uy = static_cast<uint32_t>(y);
    auto un = static_cast<uint32_t>(n);
    return {static_cast<uint8_t>(un & 255u), static_cast<uint8_t>((un >> 8) & 255u),
            static_cast<uint8_t>((ux * 3u + uy * 7u + un) & 255u),
            static_cast<uint8_t>((ux * 5u + uy) & 255u)};
}

// Every YUV format of the ring, and the colour the conversion tests use besides the default
// (BT.601, full range, centre siting: each field another than the default's).
inline constexpr glr_format yuv_formats[] = {GLR_FORMAT_NV12,    GLR_FORMAT_I420,    GLR_FORMAT_P010,
                                             GLR_FORMAT_YUV444,  GLR_FORMAT_YUVA420, GLR_FORMAT_YUVA444,
                                             GLR_FORMAT_YUVA444P10};
inline glr_color full_range_bt601_centre()
{
    glr_color c{};
    c.matrix = GLR_MATRIX_BT601;
    c.range = GLR_RANGE_FULL;
    c.chroma = GLR_CHROMA_CENTER;
    return c;
}

// Frame n of the pattern as an image: width x height RGBA pixels, top row first.
std::vector<uint8_t> pattern_image(uint64_t n, int width, int height);

struct scene_options {
    int width = 64, height = 48;
    int samples = 0;           // > 0: draw into a multisampled renderbuffer
    unsigned attachment = 0;   // colour attachment the pattern goes to
    bool multisample_texture = false; // samples > 0: use a 2D multisample texture instead
};

// Draws the pattern into its own framebuffer object in the current context.
class pattern_scene {
public:
    explicit pattern_scene(const scene_options &options = {});
    ~pattern_scene();
    pattern_scene(const pattern_scene &) = delete;
    pattern_scene &operator=(const pattern_scene &) = delete;

    void draw(uint64_t n);
    // Draws frame n into the default framebuffer (the context needs a surface).
    void draw_default_framebuffer(uint64_t n);

    unsigned fbo() const { return fbo_; }
    unsigned texture() const { return colour_[options_.attachment]; }
    glr_source source() const;
    const GladGLContext &gl() const { return gl_; }

private:
    void draw_into(unsigned fbo, uint64_t n);

    scene_options options_;
    GladGLContext gl_{};
    unsigned program_ = 0, vao_ = 0, fbo_ = 0;
    unsigned colour_[4] = {};
    int frame_location_ = -1, height_location_ = -1;
};

// A test with a GL context whose functions come from a pattern_scene (made on first use),
// and textures it made there, deleted after the test.
class scene_test : public gl_test {
protected:
    pattern_scene &scene()
    {
        if (!scene_)
            scene_ = std::make_unique<pattern_scene>();
        return *scene_;
    }
    unsigned keep(unsigned texture)
    {
        textures_.push_back(texture);
        return texture;
    }
    // A 2D texture of one level, kept; data in format and type, or none.
    unsigned texture(GLenum internal, int w, int h, GLenum format = GL_RED, GLenum type = GL_UNSIGNED_BYTE,
                     const void *data = nullptr);
    // A texture of noise with alpha, w x h RGBA8, kept.
    unsigned noise_texture(int w, int h, unsigned seed);
    // The ring's frame of source as bytes, plane by plane, top row first (none, with a
    // failure recorded, when the ring gives no frame).
    std::vector<std::vector<uint8_t>> ring_planes(const glr_source &source, int w, int h, glr_format format,
                                                  const glr_color &color);
    void TearDown() override
    {
        if (scene_ && !textures_.empty())
            scene_->gl().DeleteTextures(static_cast<int>(textures_.size()), textures_.data());
        scene_.reset();
        gl_test::TearDown();
    }

private:
    std::unique_ptr<pattern_scene> scene_;
    std::vector<unsigned> textures_;
};

// "" when frame holds frame n of the pattern in the row order flip promises, else a
// description of the first wrong byte.
std::string check_frame(const glr_frame &frame, uint64_t n, glr_flip flip);

} // namespace glr_test
