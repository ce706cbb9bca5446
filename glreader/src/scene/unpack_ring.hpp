// The way a channel's pixels reach its texture without the upload call waiting for the
// GL: the host's rows are copied (reordered on the way when the texture wants them
// flipped) into one of a few persistently mapped pixel-unpack buffers, and the texture
// fills from there as the GL gets to it; the readback ring's path, run the other way.
// A buffer is written again only once the GL has finished reading it (a fence each).
#pragma once

#include "glreader/scene.h"
#include "context/functions.hpp"

#include <array>
#include <cstddef>

namespace glr::gl {

class unpack_ring {
public:
    // Whether the context has what it takes: persistent mapping (OpenGL 4.4 or
    // ARB_buffer_storage) and fences.
    static bool supported(const functions &fns);

    explicit unpack_ring(const GladGLContext &gl) : gl_(gl) {}
    ~unpack_ring();
    unpack_ring(const unpack_ring &) = delete;
    unpack_ring &operator=(const unpack_ring &) = delete;

    // Copies `count` images one after another into the next buffer, rows bottom first
    // (GL's order: the image's top row last when `flip`), rows of width * components bytes
    // packed tightly, and binds that buffer to GL_PIXEL_UNPACK_BUFFER; offsets[i] is where
    // image i starts in it (a multiple of 4). `extra` bytes more follow them, for the GL to
    // write (a conversion's output): returns where they start (a multiple of 4). `what`
    // names the channel in errors.
    size_t stage(const glr_image *images, int count, bool flip, size_t *offsets, const char *what, size_t extra = 0);
    // The buffer the last stage() filled, until fence().
    GLuint staged_buffer() const { return staged_ ? staged_->name : 0; }
    // Once the uploads reading the staged buffer are issued: marks when the GL is done.
    void fence();

private:
    struct buffer {
        GLuint name = 0;
        size_t bytes = 0;
        uint8_t *mapped = nullptr;
        GLsync fence = nullptr;
    };
    void wait(buffer &b);
    void reallocate(buffer &b, size_t bytes, const char *what);

    static constexpr size_t buffer_count = 3;
    const GladGLContext &gl_;
    std::array<buffer, buffer_count> buffers_{};
    size_t next_ = 0;
    buffer *staged_ = nullptr; // staged, not fenced yet
};

} // namespace glr::gl
