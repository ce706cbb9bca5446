// Whether the fence seam (fence_seam.h) holds a ring's next readback back. Compiled per
// library: the installed one always answers no.
#pragma once

#include "ring/fence_seam.h"

namespace glr::gl {

// True, and one poll fewer left, while a test said this ring's fences are unsignalled.
bool fence_seam_holds(const glr_ring *ring);

} // namespace glr::gl
