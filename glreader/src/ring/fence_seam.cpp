#include "ring/fence_seam.hpp"

#ifndef GLREADER_TEST_SEAMS

namespace glr::gl {

bool fence_seam_holds(const glr_ring *, uint64_t) { return false; }

} // namespace glr::gl

#else // the test build: a test can hold readbacks back

#include <map>
#include <mutex>

namespace {
std::mutex held_mutex;
std::map<const glr_ring *, int> held_polls;
} // namespace

namespace glr::gl {

bool fence_seam_holds(const glr_ring *ring, uint64_t timeout_ns)
{
    if (timeout_ns == UINT64_MAX)
        return false;
    std::lock_guard<std::mutex> lock(held_mutex);
    auto it = held_polls.find(ring);
    if (it == held_polls.end())
        return false;
    if (--it->second == 0)
        held_polls.erase(it);
    return true;
}

} // namespace glr::gl

extern "C" void glr_internal_ring_fences_unsignalled(const glr_ring *ring, int polls)
{
    std::lock_guard<std::mutex> lock(held_mutex);
    if (polls > 0)
        held_polls[ring] = polls;
    else
        held_polls.erase(ring);
}

#endif // GLREADER_TEST_SEAMS
