// Builds a GL program that draws one full-viewport triangle with a given fragment shader
// (GLSL 330 core, no vertex buffers: bind any vertex array and draw 3 vertices).
#pragma once

#include <glad/gl.h>

namespace sample {

// Loads GL for the EGL context current on this thread (glr_context_get_proc_address).
// Throws std::runtime_error when none is current.
void load_gl(GladGLContext &gl);

// Compiles and links; throws std::runtime_error carrying the compiler's or linker's log.
unsigned make_fullscreen_program(const GladGLContext &gl, const char *fragment_source);

} // namespace sample
