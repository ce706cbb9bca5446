// One iChannel of one scene pass: its sampling (a GL sampler object, so two passes can read
// the same buffer differently) and, unless it reads a buffer, the texture behind it.
#pragma once

#include "glreader/scene.h"
#include "context/functions.hpp"
#include "scene/unpack_ring.hpp"
#include "scene/yuv_to_rgb.hpp"

#include <array>
#include <memory>
#include <string>

namespace glr::gl {

class scene_channel {
public:
    // `where` names the channel in errors ("Buffer B iChannel2"). `staged`: uploads go
    // through pixel-unpack buffers (unpack_ring), else straight from the host's memory.
    // Throws -EINVAL for a kind, buffer, filter, wrap or vflip outside its enum.
    scene_channel(const GladGLContext &gl, const glr_channel &spec, std::string where, bool staged);
    ~scene_channel();
    scene_channel(const scene_channel &) = delete;
    scene_channel &operator=(const scene_channel &) = delete;

    glr_channel_kind kind() const { return spec_.kind; }
    int buffer() const { return spec_.buffer; }
    bool cube() const { return spec_.kind == GLR_CHANNEL_CUBEMAP; }
    bool wants_mipmaps() const { return spec_.filter == GLR_FILTER_MIPMAP; }
    const std::string &where() const { return where_; }

    // A TEXTURE channel's new pixels (RGB, red, or Y'CbCr converted on the GPU); a CUBEMAP
    // channel's six faces. Throw -EINVAL with words for another kind or a bad image.
    void upload(const glr_image &image);
    void upload_cube(const glr_image faces[6]);

    // Binds the channel to texture unit `unit`: its own texture, or `buffer_texture` of
    // size buffer_width x buffer_height for a BUFFER channel. Returns iChannelResolution
    // and iChannelTime.
    struct shape {
        float width, height, time;
    };
    shape bind(int unit, GLuint buffer_texture, int buffer_width, int buffer_height) const;

private:
    void check_image(const glr_image &image, const char *what) const;
    void check_yuv_image(const glr_image &image) const;
    // Stages a Y'CbCr picture's planes, converts them on the GPU into RGBA rows in the same
    // buffer and fills the bound texture from there.
    void store_converted(const glr_image &image);
    // Storage for an image of this size at level 0 (nothing read: no unpack buffer bound).
    void allocate(GLenum target, const glr_image &image);
    // glTexSubImage2D from the host's memory, rows turned to GL's order.
    void store_direct(GLenum target, const glr_image &image);
    // Stores `count` images (one, or a cube map's six faces) into the next texture of the
    // ring and makes it the one passes read. `what` names the step in GL errors.
    void fill_next_texture(const glr_image *images, int count, const char *what);

    // A picture a frame (video, sound) goes into the least recently used of a few
    // textures: writing one that frames still rendering read would make the driver wait
    // for them (llvmpipe serializes its render threads on it), every frame.
    static constexpr size_t texture_count = 3;
    struct texture {
        GLuint name = 0;
        int width = 0, height = 0, components = 0; // as allocated
    };

    const GladGLContext &gl_;
    glr_channel spec_;
    std::string where_;
    GLuint sampler_ = 0;
    std::array<texture, texture_count> textures_{};
    size_t current_ = 0;                          // the texture passes read
    bool staged_;
    std::unique_ptr<unpack_ring> staging_;        // made at the first staged upload
    std::unique_ptr<yuv_to_rgb> converter_;       // made at the first Y'CbCr picture
    int width_ = 0, height_ = 0; // of what was uploaded (iChannelResolution); 0: nothing yet
    float time_ = 0;
};

} // namespace glr::gl
