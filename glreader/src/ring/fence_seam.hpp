// Whether the fence seam (fence_seam.h) holds a ring's next readback back. Compiled per
// library: the installed one always answers no.
#pragma once

#include "ring/fence_seam.h"

#include <cstdint>

namespace glr::gl {

// True, and one poll fewer left, for a finite wait while a test said this ring's fences
// are unsignalled.
bool fence_seam_holds(const glr_ring *ring, uint64_t timeout_ns);

} // namespace glr::gl
