// The PBO readback ring behind glr_ring (see glreader/ring.h for the contract).
#pragma once

#include "glreader/ring.h"
#include "gl/functions.hpp"
#include "latency.hpp"

#include <condition_variable>
#include <deque>
#include <mutex>
#include <vector>

struct glr_ring {
public:
    glr_ring(const glr_log *log, const glr_ring_params &params);
    glr_ring(const glr_ring &) = delete;
    glr_ring &operator=(const glr_ring &) = delete;

    int capture(const glr_source &source, int64_t pts);
    int acquire(glr_frame &frame, uint64_t timeout_ns);
    void release(glr_frame &frame);
    glr_ring_stats stats() const;

    // Deletes the GL objects not in use and frees the ring once no lease is left:
    // after this call `this` may already be gone.
    void destroy();

    const glr_log *log() const { return log_; }

private:
    enum class slot_state { free, pending, leased };

    struct slot {
        // Touched on the GL thread only.
        GLuint buffer = 0;
        GLsync fence = nullptr;
        uint8_t *mapped = nullptr; // persistent path: always; map-per-frame: while leased
        bool complete = false;     // readback finished (fence signalled or glFinish done)
        int64_t pts = 0;
        uint64_t sequence = 0;
        // Guarded by mutex_.
        slot_state state = slot_state::free;
        bool needs_unmap = false; // map-per-frame: released on some thread, unmap on ours
        uint64_t lease_id = 0;
        uint64_t acquired_ns = 0;
    };

    ~glr_ring();
    void create_buffers();
    void delete_gl_objects();
    int take_free_slot(std::unique_lock<std::mutex> &lock);
    void unmap_released();
    GLuint bind_source(const glr_source &source, GLint &saved_read_buffer);
    GLuint internal_framebuffer(GLuint &fbo, GLuint &renderbuffer);
    void check_source_size(const glr_source &source, GLuint fbo);
    void read_into(slot &s, const glr_source &source);
    void wait_complete(slot &s, uint64_t timeout_ns, bool &ready);

    const glr_log *log_;
    glr_ring_params params_;
    glr::gl::functions fns_;
    const GladGLContext &gl_;
    bool persistent_ = false;
    bool fences_ = false;
    size_t row_bytes_ = 0;
    size_t frame_bytes_ = 0;
    GLenum pack_format_ = 0;

    std::vector<slot> slots_;
    std::deque<int> in_flight_; // captured, not acquired; oldest first (GL thread only)
    uint64_t next_sequence_ = 0;

    // Internal framebuffers, created on first use: texture sources, MSAA resolve, GPU flip.
    GLuint texture_fbo_ = 0;
    GLuint resolve_fbo_ = 0, resolve_rb_ = 0;
    GLuint flip_fbo_ = 0, flip_rb_ = 0;

    mutable std::mutex mutex_;
    std::condition_variable released_;
    int leased_ = 0;
    bool destroyed_ = false;
    uint64_t frames_captured_ = 0, frames_acquired_ = 0, frames_released_ = 0;
    glr::latency_histogram stall_, slot_wait_, readback_, fence_wait_, map_, hold_;
};
