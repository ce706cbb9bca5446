#include "scene/unpack_ring.hpp"

#include "error.hpp"

#include <cstring>

namespace glr::gl {

bool unpack_ring::supported(const functions &fns)
{
    return fns.gl.BufferStorage && (fns.version_at_least(4, 4) || fns.gl.ARB_buffer_storage) && fns.gl.FenceSync &&
           fns.gl.ClientWaitSync;
}

unpack_ring::~unpack_ring()
{
    for (buffer &b : buffers_) {
        if (b.fence)
            gl_.DeleteSync(b.fence);
        gl_.DeleteBuffers(1, &b.name); // also ends the mapping
    }
}

void unpack_ring::wait(buffer &b)
{
    if (!b.fence)
        return;
    // No time limit: the upload reading this buffer is already queued ahead of what the
    // caller is about to draw, which waits on it just the same.
    while (gl_.ClientWaitSync(b.fence, GL_SYNC_FLUSH_COMMANDS_BIT, 1000000000) == GL_TIMEOUT_EXPIRED) {
    }
    gl_.DeleteSync(b.fence);
    b.fence = nullptr;
}

void unpack_ring::reallocate(buffer &b, size_t bytes, const char *what)
{
    gl_.DeleteBuffers(1, &b.name);
    b = buffer{};
    gl_.GenBuffers(1, &b.name);
    gl_.BindBuffer(GL_PIXEL_UNPACK_BUFFER, b.name);
    // Write-only, coherent: the CPU's writes reach the GL without a flush; uncached
    // (write-combined) memory is fine since the CPU never reads it.
    GLbitfield flags = GL_MAP_WRITE_BIT | GL_MAP_PERSISTENT_BIT | GL_MAP_COHERENT_BIT;
    gl_.BufferStorage(GL_PIXEL_UNPACK_BUFFER, static_cast<GLsizeiptr>(bytes), nullptr, flags);
    b.mapped = static_cast<uint8_t *>(gl_.MapBufferRange(GL_PIXEL_UNPACK_BUFFER, 0, static_cast<GLsizeiptr>(bytes), flags));
    GLenum error = gl_.GetError();
    if (error != GL_NO_ERROR || !b.mapped) {
        gl_.DeleteBuffers(1, &b.name);
        b = buffer{};
        fail(GLR_ERROR_GL, "%s: could not map a pixel-unpack buffer of %.1f MiB (%s)", what,
             static_cast<double>(bytes) / (1024.0 * 1024.0), error_name(error));
    }
    b.bytes = bytes;
}

size_t unpack_ring::stage(const glr_image *images, int count, bool flip, size_t *offsets, const char *what,
                          size_t extra)
{
    auto aligned = [](size_t n) { return (n + 3) & ~size_t{3}; };
    size_t bytes = 0;
    for (int i = 0; i < count; i++) {
        offsets[i] = bytes;
        bytes = aligned(bytes + static_cast<size_t>(images[i].width) * static_cast<size_t>(images[i].components) *
                                    static_cast<size_t>(images[i].height));
    }
    size_t extra_offset = bytes;
    bytes += extra;
    buffer &b = buffers_[next_];
    next_ = (next_ + 1) % buffer_count;
    wait(b);
    if (b.bytes < bytes)
        reallocate(b, bytes, what);
    else
        gl_.BindBuffer(GL_PIXEL_UNPACK_BUFFER, b.name);
    for (int i = 0; i < count; i++) {
        const glr_image &image = images[i];
        size_t row = static_cast<size_t>(image.width) * static_cast<size_t>(image.components);
        uint8_t *out = b.mapped + offsets[i];
        for (int r = 0; r < image.height; r++) {
            int from = flip ? image.height - 1 - r : r; // GL row r is the image's row `from`
            std::memcpy(out + static_cast<size_t>(r) * row, image.data + static_cast<ptrdiff_t>(from) * image.stride, row);
        }
    }
    staged_ = &b;
    return extra_offset;
}

void unpack_ring::fence()
{
    if (staged_) {
        staged_->fence = gl_.FenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
        staged_ = nullptr;
    }
}

} // namespace glr::gl
