// Compiling and linking GLSL, for every program glreader builds (the Shadertoy scene, the
// YUV conversion pass): the GL calls and the driver's log, the caller's words around it.
#pragma once

#include "context/functions.hpp"

#include <initializer_list>
#include <string>

namespace glr::gl {

// One shader of type from source; 0 with the driver's log in `log` when it does not compile.
GLuint compile_shader(const GladGLContext &gl, GLenum type, const std::string &source, std::string &log);

// A program of the shaders, which are deleted in every case; 0 with the log when it does
// not link.
GLuint link_program(const GladGLContext &gl, std::initializer_list<GLuint> shaders, std::string &log);

} // namespace glr::gl
