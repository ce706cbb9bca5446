#include "gl_program.hpp"

#include <stdexcept>
#include <string>

namespace sample {

namespace {

const char *fullscreen_vertex_source = R"(#version 330 core
void main() {
    // Vertices (-1,-1), (3,-1), (-1,3): one triangle covering the whole viewport.
    vec2 p = vec2(float((gl_VertexID << 1) & 2), float(gl_VertexID & 2));
    gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);
})";

unsigned compile(const GladGLContext &gl, GLenum type, const char *source)
{
    unsigned shader = gl.CreateShader(type);
    gl.ShaderSource(shader, 1, &source, nullptr);
    gl.CompileShader(shader);
    GLint ok = 0;
    gl.GetShaderiv(shader, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[4096] = "";
        gl.GetShaderInfoLog(shader, sizeof log, nullptr, log);
        gl.DeleteShader(shader);
        throw std::runtime_error(std::string("shader compilation failed:\n") + log);
    }
    return shader;
}

} // namespace

void load_gl(GladGLContext &gl, glr_get_proc_address_fn loader)
{
    auto load = [](void *userptr, const char *name) {
        return reinterpret_cast<GLADapiproc>(reinterpret_cast<glr_get_proc_address_fn>(userptr)(name));
    };
    if (!gladLoadGLContextUserPtr(&gl, load, reinterpret_cast<void *>(loader)))
        throw std::runtime_error("no OpenGL context is current on this thread");
}

unsigned make_fullscreen_program(const GladGLContext &gl, const char *fragment_source)
{
    unsigned vs = compile(gl, GL_VERTEX_SHADER, fullscreen_vertex_source);
    unsigned fs = 0;
    try {
        fs = compile(gl, GL_FRAGMENT_SHADER, fragment_source);
    } catch (...) {
        gl.DeleteShader(vs);
        throw;
    }
    unsigned program = gl.CreateProgram();
    gl.AttachShader(program, vs);
    gl.AttachShader(program, fs);
    gl.LinkProgram(program);
    gl.DeleteShader(vs);
    gl.DeleteShader(fs);
    GLint ok = 0;
    gl.GetProgramiv(program, GL_LINK_STATUS, &ok);
    if (!ok) {
        char log[4096] = "";
        gl.GetProgramInfoLog(program, sizeof log, nullptr, log);
        gl.DeleteProgram(program);
        throw std::runtime_error(std::string("shader linking failed:\n") + log);
    }
    return program;
}

} // namespace sample
