#include "context/shader.hpp"

namespace glr::gl {

GLuint compile_shader(const GladGLContext &gl, GLenum type, const std::string &source, std::string &log)
{
    GLuint shader = gl.CreateShader(type);
    const char *text = source.c_str();
    gl.ShaderSource(shader, 1, &text, nullptr);
    gl.CompileShader(shader);
    GLint ok = 0;
    gl.GetShaderiv(shader, GL_COMPILE_STATUS, &ok);
    if (ok)
        return shader;
    char text_log[4096] = "";
    gl.GetShaderInfoLog(shader, sizeof text_log, nullptr, text_log);
    gl.DeleteShader(shader);
    log = text_log;
    return 0;
}

GLuint link_program(const GladGLContext &gl, std::initializer_list<GLuint> shaders, std::string &log)
{
    GLuint program = gl.CreateProgram();
    for (GLuint shader : shaders)
        gl.AttachShader(program, shader);
    gl.LinkProgram(program);
    for (GLuint shader : shaders)
        gl.DeleteShader(shader);
    GLint ok = 0;
    gl.GetProgramiv(program, GL_LINK_STATUS, &ok);
    if (ok)
        return program;
    char text_log[4096] = "";
    gl.GetProgramInfoLog(program, sizeof text_log, nullptr, text_log);
    gl.DeleteProgram(program);
    log = text_log;
    return 0;
}

} // namespace glr::gl
