// The readback ring behind glr_ring (see glreader/ring.h for the contract): the slot
// bookkeeping (ring/slot_ledger.hpp), the pixel buffers and fences (gl/pack_buffers.hpp)
// and a filler that puts frames into them (gl/slot_filler.hpp), glued together.
#pragma once

#include "glreader/ring.h"
#include "format.hpp"
#include "context/functions.hpp"
#include "ring/pack_buffers.hpp"
#include "ring/slot_filler.hpp"
#include "latency.hpp"
#include "ring/slot_ledger.hpp"

#include <memory>
#include <mutex>

struct glr_ring {
public:
    glr_ring(const glr_log *log, const glr_ring_params &params);
    glr_ring(const glr_ring &) = delete;
    glr_ring &operator=(const glr_ring &) = delete;

    int capture(const glr_source &source, int64_t pts);
    int acquire(glr_frame &frame, uint64_t timeout_ns);
    // Any thread. After this call `this` may be gone (the last lease of a destroyed ring).
    void release(glr_frame &frame);
    bool may_keep(int kept) const { return ledger_.may_keep(kept); }
    int free_slots() const { return ledger_.free_slots(); }
    void set_holder(const glr_frame &frame, glr_frame_describe_fn describe, void *opaque)
    {
        ledger_.set_holder(frame.slot_, frame.lease_id_, describe, opaque);
    }
    glr_ring_stats stats() const;

    // Deletes the GL objects not in use and frees the ring once no lease is left:
    // after this call `this` may already be gone.
    void destroy();

    const glr_log *log() const { return log_; }

private:
    ~glr_ring();
    void unmap_released();

    const glr_log *log_;
    glr_ring_params params_;
    const glr_format_info &format_;
    glr::frame_layout layout_;
    glr_color color_;
    glr::gl::functions fns_;
    const GladGLContext &gl_;
    glr::slot_ledger ledger_;
    std::unique_ptr<glr::gl::pack_buffers> buffers_;
    std::unique_ptr<glr::gl::slot_filler> filler_;

    mutable std::mutex stats_mutex_;
    glr::latency_histogram stall_, readback_, fence_wait_, map_, host_state_;
};
