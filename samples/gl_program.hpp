// A GL function table for the samples' own GL calls (glreader keeps its own).
#pragma once

#include "glreader/context.h"
#include "glreader/ring.h"

#include <glad/gl.h>

namespace sample {

// Loads GL for the context current on this thread through loader (by default
// glr_context_get_proc_address, for glreader's EGL contexts). Throws std::runtime_error
// when none is current.
void load_gl(GladGLContext &gl, glr_get_proc_address_fn loader = glr_context_get_proc_address);

} // namespace sample
