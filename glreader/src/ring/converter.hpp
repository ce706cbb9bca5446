// glr_converter (glreader/convert.h): the ring's conversion pass (ring/yuv_pass.hpp)
// writing into the caller's plane textures, bound as image units.
#pragma once

#include "glreader/convert.h"

#include "context/functions.hpp"
#include "format.hpp"
#include "log.hpp"
#include "ring/source_binding.hpp"
#include "ring/yuv_pass.hpp"

#include <memory>
#include <vector>

struct glr_converter {
public:
    // Checks the params and builds the pass in the current context; throws glr::failure.
    glr_converter(const glr_log *log, const glr_converter_params &params);
    void destroy(); // frees the GL objects, the context current

    // A plane's texture: its internal format (unsigned normalized, as Vulkan's and CUDA's
    // planes are), the unsigned-integer view the pass stores code values through, and size.
    struct plane_texture {
        GLenum format = 0, view = 0;
        int width = 0, height = 0;
    };
    plane_texture plane(int p) const; // zeros past the format's planes

    void make_textures(unsigned textures[4]);
    void delete_textures(unsigned textures[4]);
    int convert(const glr_source &source, const unsigned textures[4]);
    GLsync fence();
    int wait(GLsync fence, uint64_t timeout_ns);
    void delete_fence(GLsync fence);
    const glr_log *log() const { return log_; }

private:
    void check_texture(int p, unsigned texture) const;

    const glr_log *log_;
    glr_converter_params params_;
    const glr_format_info &format_;
    glr_color color_;
    glr::gl::functions fns_;
    std::unique_ptr<glr::gl::source_binding> source_;
    std::unique_ptr<glr::gl::yuv_pass> pass_;
    // Textures already checked, as a pool's frames come round again: each check queries GL,
    // which a driver running GL on a thread of its own answers only after a round trip.
    static constexpr size_t max_checked = 64;
    std::vector<unsigned> checked_;
};
