// The ring's pixel-pack buffers, one per slot, and their fences: persistently mapped,
// CPU-cached memory where ARB_buffer_storage exists, else mapped per frame; fences where
// ARB_sync exists, else glFinish. How a buffer gets filled is the slot filler's business.
// Its calls bind GL_PIXEL_PACK_BUFFER: the caller's state_scope puts the host's back.
#pragma once

#include "context/functions.hpp"

#include <deque>
#include <vector>

namespace glr::gl {

class pack_buffers {
public:
    // Allocates count buffers of bytes each (plus readable slack after the frame).
    pack_buffers(const functions &fns, int count, size_t bytes, bool persistent, bool fences);
    pack_buffers(const pack_buffers &) = delete;
    pack_buffers &operator=(const pack_buffers &) = delete;

    bool persistent() const { return persistent_; }
    bool fences() const { return fences_; }
    GLuint buffer(int index) const { return slots_[static_cast<size_t>(index)].buffer; }
    size_t bytes() const { return bytes_; }

    // After a fill was issued: a fence, flushed so a GPU starts at once.
    void fence(int index);
    // Waits up to timeout_ns for slot's fill; false when it is not done yet. Without
    // fences, glFinish completes every slot in in_flight at once. seam_unsignalled: the
    // fence seam's answer in its place, that the fence has not signalled (test builds).
    bool wait(int index, uint64_t timeout_ns, const std::deque<int> &in_flight, bool seam_unsignalled);
    // The slot's memory: always mapped on the persistent path, else mapped here.
    const uint8_t *map(int index);
    // Map-per-frame path: ends the mapping of a slot that was given back.
    void unmap(int index);

    // Deletes every buffer but those in keep (still leased: their memory stays mapped).
    void delete_gl_objects(const std::vector<bool> &keep);

private:
    struct slot {
        GLuint buffer = 0;
        GLsync fence = nullptr;
        uint8_t *mapped = nullptr;
        bool complete = false;
    };
    const GladGLContext &gl_;
    bool persistent_, fences_;
    size_t bytes_;
    std::vector<slot> slots_;
};

} // namespace glr::gl
