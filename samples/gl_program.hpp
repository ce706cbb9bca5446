// Builds a GL program that draws one full-viewport triangle with a given fragment shader
// (GLSL 330 core, no vertex buffers: bind any vertex array and draw 3 vertices).
#pragma once

#include "glreader/context.h"
#include "glreader/ring.h"

#include <glad/gl.h>

namespace sample {

// Loads GL for the context current on this thread through loader (by default
// glr_context_get_proc_address, for glreader's EGL contexts). Throws std::runtime_error
// when none is current.
void load_gl(GladGLContext &gl, glr_get_proc_address_fn loader = glr_context_get_proc_address);

// Compiles and links; throws std::runtime_error carrying the compiler's or linker's log.
unsigned make_fullscreen_program(const GladGLContext &gl, const char *fragment_source);

} // namespace sample
