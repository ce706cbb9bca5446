// A Y'CbCr picture (a decoded video frame: NV12, I420, P010 or 4:4:4) made RGBA8 on the GPU
// for a channel's texture: one compute pass reads the planes as staged in a pixel-unpack
// buffer (unpack_ring) and writes the RGBA rows, in GL's row order, into the same buffer
// past them, from which the texture then fills. Only buffer bindings are involved (no
// texture or image unit of the host's), and the readback ring's conversion is its inverse:
// the matrix, range and chroma siting come from the picture's glr_color; 4:2:0 chroma is
// interpolated bilinearly at its siting.
#pragma once

#include "glreader/scene.h"
#include "context/functions.hpp"

#include <cstddef>

namespace glr::gl {

class yuv_to_rgb {
public:
    // Throws GLR_ERROR_UNSUPPORTED without compute shaders (OpenGL 4.3) and persistent
    // mapping (4.4), naming `where`.
    yuv_to_rgb(const GladGLContext &gl, const char *where);
    ~yuv_to_rgb();
    yuv_to_rgb(const yuv_to_rgb &) = delete;
    yuv_to_rgb &operator=(const yuv_to_rgb &) = delete;

    // Where each plane of `image` starts in `buffer` and its row pitch (the staged copy),
    // and where the RGBA rows go (4-byte aligned, width * 4 bytes a row, GL row 0 first:
    // the picture's last row when flip). Binds `buffer` to storage index 0; the caller's
    // scope restores it.
    struct staged_planes {
        size_t offset[3];
        size_t pitch[3];
    };
    void convert(GLuint buffer, const glr_image &image, const staged_planes &planes, size_t rgba_offset, bool flip);

private:
    const GladGLContext &gl_;
    GLuint program_ = 0;
};

} // namespace glr::gl
