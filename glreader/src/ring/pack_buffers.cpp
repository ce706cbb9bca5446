#include "ring/pack_buffers.hpp"

#include "error.hpp"

namespace {

// Readable bytes after a frame's last row in memory: SIMD code in consumers (libav*'s
// included) reads whole vectors and may run up to 64 bytes past the end of a row.
constexpr size_t read_slack = 64;

} // namespace

namespace glr::gl {

pack_buffers::pack_buffers(const functions &fns, int count, size_t bytes, bool persistent, bool fences)
    : gl_(fns.gl), persistent_(persistent), fences_(fences), bytes_(bytes), slots_(static_cast<size_t>(count))
{
    auto size = static_cast<GLsizeiptr>(bytes + read_slack);
    for (slot &s : slots_) {
        gl_.GenBuffers(1, &s.buffer);
        gl_.BindBuffer(GL_PIXEL_PACK_BUFFER, s.buffer);
        if (persistent_) {
            // CLIENT_STORAGE asks for memory on the CPU side, which is cached: reading
            // write-combined (uncached) memory with the CPU is many times slower.
            // COHERENT makes finished GPU writes visible without glMemoryBarrier.
            gl_.BufferStorage(GL_PIXEL_PACK_BUFFER, size, nullptr,
                              GL_MAP_READ_BIT | GL_MAP_PERSISTENT_BIT | GL_MAP_COHERENT_BIT | GL_CLIENT_STORAGE_BIT);
            s.mapped = static_cast<uint8_t *>(gl_.MapBufferRange(
                GL_PIXEL_PACK_BUFFER, 0, size, GL_MAP_READ_BIT | GL_MAP_PERSISTENT_BIT | GL_MAP_COHERENT_BIT));
        } else {
            gl_.BufferData(GL_PIXEL_PACK_BUFFER, size, nullptr, GL_STREAM_READ);
        }
        GLenum error = gl_.GetError();
        if (error != GL_NO_ERROR || (persistent_ && !s.mapped)) {
            delete_gl_objects(std::vector<bool>(slots_.size(), false));
            fail(GLR_ERROR_GL, "glr_ring_create: could not allocate %d pixel buffers of %.1f MiB (%s)", count,
                 static_cast<double>(bytes) / (1024.0 * 1024.0), error_name(error));
        }
    }
}

void pack_buffers::delete_gl_objects(const std::vector<bool> &keep)
{
    for (size_t i = 0; i < slots_.size(); i++) {
        slot &s = slots_[i];
        if (keep[i])
            continue; // its memory must stay mapped for the consumer
        if (s.fence)
            gl_.DeleteSync(s.fence);
        if (s.buffer) {
            if (!persistent_ && s.mapped) {
                gl_.BindBuffer(GL_PIXEL_PACK_BUFFER, s.buffer);
                gl_.UnmapBuffer(GL_PIXEL_PACK_BUFFER);
            }
            gl_.DeleteBuffers(1, &s.buffer); // also ends a persistent mapping
        }
        s = slot{};
    }
}

void pack_buffers::fence(int index)
{
    slot &s = slots_[static_cast<size_t>(index)];
    s.complete = false;
    if (!fences_)
        return;
    s.fence = gl_.FenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
    if (!s.fence)
        check_errors(gl_, "glr_ring_capture: glFenceSync");
    // Submit now so a GPU starts the copy while the next frame is being drawn.
    gl_.Flush();
}

bool pack_buffers::wait(int index, uint64_t timeout_ns, const std::deque<int> &in_flight, bool seam_unsignalled)
{
    slot &s = slots_[static_cast<size_t>(index)];
    if (s.complete)
        return true;
    if (fences_) {
        GLenum result = seam_unsignalled ? GL_TIMEOUT_EXPIRED
                                         : gl_.ClientWaitSync(s.fence, GL_SYNC_FLUSH_COMMANDS_BIT, timeout_ns);
        if (result == GL_TIMEOUT_EXPIRED)
            return false;
        if (result == GL_WAIT_FAILED)
            check_errors(gl_, "glr_ring_acquire: glClientWaitSync");
        gl_.DeleteSync(s.fence);
        s.fence = nullptr;
        s.complete = true;
    } else {
        // Without fences the only way to know a fill is done is to wait for all.
        gl_.Finish();
        for (int other : in_flight)
            slots_[static_cast<size_t>(other)].complete = true;
    }
    return true;
}

const uint8_t *pack_buffers::map(int index)
{
    slot &s = slots_[static_cast<size_t>(index)];
    if (persistent_)
        return s.mapped;
    gl_.BindBuffer(GL_PIXEL_PACK_BUFFER, s.buffer);
    s.mapped = static_cast<uint8_t *>(
        gl_.MapBufferRange(GL_PIXEL_PACK_BUFFER, 0, static_cast<GLsizeiptr>(bytes_ + read_slack), GL_MAP_READ_BIT));
    if (!s.mapped)
        fail(GLR_ERROR_GL, "glr_ring_acquire: glMapBufferRange failed with %s", error_name(gl_.GetError()));
    return s.mapped;
}

void pack_buffers::unmap(int index)
{
    slot &s = slots_[static_cast<size_t>(index)];
    if (persistent_ || !s.mapped)
        return;
    gl_.BindBuffer(GL_PIXEL_PACK_BUFFER, s.buffer);
    gl_.UnmapBuffer(GL_PIXEL_PACK_BUFFER);
    s.mapped = nullptr;
}

} // namespace glr::gl
