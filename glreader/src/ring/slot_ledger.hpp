// The ring's bookkeeping, apart from how a slot is filled: slot states, the order of
// captured frames, lease ids, waiting for a released slot, the lending policy, and the
// deferred free of a ring destroyed while frames are still leased. It knows no GL, so
// every way of filling a slot (plain readback, GPU conversion, later hardware interop)
// shares it.
//
//   FREE --begin_capture--> PENDING --captured, fence signalled: mark_ready--> READY
//        --lease_oldest--> LEASED --release (any thread)--> FREE
#pragma once

#include "latency.hpp"

#include "glreader/ring.h"

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <vector>

namespace glr {

class slot_ledger {
public:
    enum class state { free, pending, ready, leased };

    // capture_timeout_ns: how long begin_capture waits for a release (UINT64_MAX: forever).
    slot_ledger(int depth, uint64_t capture_timeout_ns);

    int depth() const { return static_cast<int>(slots_.size()); }

    // --- The GL thread's side (capture and acquire).

    // A FREE slot, now PENDING; waits for a release while every slot is leased. Returns
    // -EBUSY at once when captured frames wait to be acquired (only the caller can);
    // throws -ETIMEDOUT naming `blocked_on` when the wait runs out.
    int begin_capture(const char *blocked_on);
    // The fill failed: the slot is FREE again.
    void abandon(int slot);
    // The fill was issued: the frame joins the captured ones, in order.
    void captured(int slot, int64_t pts);
    // The oldest captured frame's slot, -1 when none waits.
    int oldest() const { return in_flight_.empty() ? -1 : in_flight_.front(); }
    const std::deque<int> &in_flight() const { return in_flight_; }
    void mark_ready(int slot);
    bool is_ready(int slot) const;
    struct lease {
        uint64_t id;
        int64_t pts;
        uint64_t sequence;
    };
    // Leases the oldest captured frame, which must be READY.
    lease lease_oldest();
    // Slots released since the last call (for drivers that unmap a slot after each use).
    std::vector<int> take_released();

    // --- Any thread.

    // Gives a lease back. Throws -EINVAL when (slot, id) is no current lease. Returns true
    // when that was the last lease of a destroyed ring: the caller frees the ring.
    bool release(int slot, uint64_t id);
    // Marks the ring destroyed; returns true when no lease is out (free it now).
    bool destroy(int &leased_now);
    bool is_leased(int slot) const;
    // Who holds a lease (glr_frame_set_holder). Throws -EINVAL when (slot, id) is no
    // current lease.
    void set_holder(int slot, uint64_t id, glr_frame_describe_fn describe, void *opaque);
    // The lending policy (glr_frame_may_keep): a consumer may keep all leases but one slot's.
    bool may_keep(int kept) const { return kept < depth() - 1; }
    // Slots neither captured into nor leased: what a capture may fill without waiting.
    int free_slots() const;

    struct counts {
        uint64_t captured, acquired, released, leased_now;
    };
    counts counters() const;
    glr_latency slot_wait() const; // begin_capture blocked for a release
    glr_latency hold() const;      // lease to release

private:
    struct slot {
        state st = state::free;
        int64_t pts = 0;
        uint64_t sequence = 0;
        uint64_t lease_id = 0;
        uint64_t leased_ns = 0;
        bool released = false; // since the last take_released
        glr_frame_describe_fn describe = nullptr;
        void *opaque = nullptr;
    };
    int find_free() const;
    slot &current_lease(int index, uint64_t id, const char *call);
    // What holds the oldest lease, for a capture that timed out (the lock held).
    std::string describe_oldest_lease() const;

    std::deque<int> in_flight_; // captured, not leased; oldest first (GL thread only)
    uint64_t next_sequence_ = 0;
    uint64_t capture_timeout_ns_;

    mutable std::mutex mutex_;
    std::condition_variable released_cv_;
    std::vector<slot> slots_;
    int leased_ = 0;
    bool destroyed_ = false;
    uint64_t captured_ = 0, acquired_ = 0, released_ = 0;
    latency_histogram slot_wait_, hold_;
};

} // namespace glr
