#include "ring/slot_ledger.hpp"

#include "error.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>

namespace {

// Lease ids are unique across all rings, so a stale copy of a frame never matches.
std::atomic<uint64_t> next_lease_id{1};

} // namespace

namespace glr {

slot_ledger::slot_ledger(int depth, uint64_t capture_timeout_ns)
    : capture_timeout_ns_(capture_timeout_ns), slots_(static_cast<size_t>(depth))
{
}

int slot_ledger::find_free() const
{
    for (size_t i = 0; i < slots_.size(); i++)
        if (slots_[i].st == state::free)
            return static_cast<int>(i);
    return -1;
}

int slot_ledger::begin_capture(const char *blocked_on)
{
    std::unique_lock<std::mutex> lock(mutex_);
    int index = find_free();
    if (index < 0) {
        // Waiting cannot help while frames wait to be acquired: only this thread may do that.
        if (!in_flight_.empty())
            return -EBUSY;
        uint64_t start = now_ns();
        auto freed = [&] { return (index = find_free()) >= 0; };
        if (capture_timeout_ns_ == UINT64_MAX) {
            released_cv_.wait(lock, freed);
        } else if (!released_cv_.wait_for(lock, std::chrono::nanoseconds(capture_timeout_ns_), freed)) {
            fail(-ETIMEDOUT,
                 "glr_ring_capture: all %d slots stayed leased for %.0f ms, and %s has released none: %s "
                 "(capture_timeout_ns; UINT64_MAX waits as long as it takes)",
                 depth(), static_cast<double>(capture_timeout_ns_) / 1e6, blocked_on,
                 describe_oldest_lease().c_str());
        }
        slot_wait_.record_ns(now_ns() - start);
    }
    slots_[static_cast<size_t>(index)].st = state::pending;
    return index;
}

void slot_ledger::abandon(int index)
{
    std::lock_guard<std::mutex> lock(mutex_);
    slots_[static_cast<size_t>(index)].st = state::free;
}

void slot_ledger::captured(int index, int64_t pts)
{
    std::lock_guard<std::mutex> lock(mutex_);
    slot &s = slots_[static_cast<size_t>(index)];
    s.pts = pts;
    s.sequence = next_sequence_++;
    in_flight_.push_back(index);
    captured_++;
}

void slot_ledger::mark_ready(int index)
{
    std::lock_guard<std::mutex> lock(mutex_);
    slots_[static_cast<size_t>(index)].st = state::ready;
}

bool slot_ledger::is_ready(int index) const
{
    std::lock_guard<std::mutex> lock(mutex_);
    return slots_[static_cast<size_t>(index)].st == state::ready;
}

slot_ledger::lease slot_ledger::lease_oldest()
{
    std::lock_guard<std::mutex> lock(mutex_);
    int index = in_flight_.front();
    slot &s = slots_[static_cast<size_t>(index)];
    if (s.st != state::ready)
        fail(GLR_ERROR_INTERNAL, "glr_ring_acquire: slot %d leased before its readback completed", index);
    in_flight_.pop_front();
    s.st = state::leased;
    s.lease_id = next_lease_id.fetch_add(1, std::memory_order_relaxed);
    s.leased_ns = now_ns();
    leased_++;
    acquired_++;
    return {s.lease_id, s.pts, s.sequence};
}

std::vector<int> slot_ledger::take_released()
{
    std::vector<int> out;
    std::lock_guard<std::mutex> lock(mutex_);
    for (size_t i = 0; i < slots_.size(); i++)
        if (slots_[i].released) {
            slots_[i].released = false;
            out.push_back(static_cast<int>(i));
        }
    return out;
}

slot_ledger::slot &slot_ledger::current_lease(int index, uint64_t id, const char *call)
{
    slot *s = index >= 0 && index < depth() && id != 0 ? &slots_[static_cast<size_t>(index)] : nullptr;
    if (!s || s->st != state::leased || s->lease_id != id)
        fail(-EINVAL, "%s: this frame holds no lease (it is empty, or was already released through another copy)",
             call);
    return *s;
}

void slot_ledger::set_holder(int index, uint64_t id, glr_frame_describe_fn describe, void *opaque)
{
    std::lock_guard<std::mutex> lock(mutex_);
    slot &s = current_lease(index, id, "glr_frame_set_holder");
    s.describe = describe;
    s.opaque = describe ? opaque : nullptr;
}

std::string slot_ledger::describe_oldest_lease() const
{
    const slot *oldest = nullptr;
    for (const slot &s : slots_)
        if (s.st == state::leased && (!oldest || s.sequence < oldest->sequence))
            oldest = &s;
    if (!oldest)
        return "no frame is leased";
    char holder[256] = "the code that acquired it, which has not said what it is (glr_frame_set_holder)";
    if (oldest->describe)
        oldest->describe(oldest->opaque, holder, sizeof holder);
    holder[sizeof holder - 1] = '\0';
    return format("the oldest lease, frame %llu, has been held for %.1f s by %s",
                  static_cast<unsigned long long>(oldest->sequence),
                  static_cast<double>(now_ns() - oldest->leased_ns) / 1e9, holder);
}

bool slot_ledger::release(int index, uint64_t id)
{
    bool last;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        slot *s = &current_lease(index, id, "glr_frame_release");
        s->st = state::free;
        s->describe = nullptr;
        s->opaque = nullptr;
        s->lease_id = 0;
        s->released = true;
        hold_.record_ns(now_ns() - s->leased_ns);
        leased_--;
        released_++;
        last = destroyed_ && leased_ == 0;
    }
    released_cv_.notify_all();
    return last;
}

bool slot_ledger::destroy(int &leased_now)
{
    std::lock_guard<std::mutex> lock(mutex_);
    destroyed_ = true;
    in_flight_.clear();
    leased_now = leased_;
    return leased_ == 0;
}

bool slot_ledger::is_leased(int index) const
{
    std::lock_guard<std::mutex> lock(mutex_);
    return slots_[static_cast<size_t>(index)].st == state::leased;
}

slot_ledger::counts slot_ledger::counters() const
{
    std::lock_guard<std::mutex> lock(mutex_);
    return {captured_, acquired_, released_, static_cast<uint64_t>(leased_)};
}

glr_latency slot_ledger::slot_wait() const
{
    std::lock_guard<std::mutex> lock(mutex_);
    return slot_wait_.summary();
}

glr_latency slot_ledger::hold() const
{
    std::lock_guard<std::mutex> lock(mutex_);
    return hold_.summary();
}

int slot_ledger::free_slots() const
{
    std::lock_guard<std::mutex> lock(mutex_);
    return static_cast<int>(std::count_if(slots_.begin(), slots_.end(), [](const slot &s) { return s.st == state::free; }));
}

} // namespace glr
