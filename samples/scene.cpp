#include "scene.hpp"

#include "glreader/context.h"

#include <stdexcept>
#include <string>

namespace sample {

namespace {

const char *vertex_source = R"(#version 330 core
void main() {
    vec2 p = vec2(float((gl_VertexID << 1) & 2), float(gl_VertexID & 2));
    gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);
})";

const char *fragment_source = R"(#version 330 core
uniform float time;
uniform vec2 resolution;
out vec4 colour;
void main() {
    vec2 uv = (gl_FragCoord.xy - 0.5 * resolution) / resolution.y;
    float plasma = sin(uv.x * 6.0 + time) + sin(uv.y * 7.0 - time * 1.3) +
                   sin(length(uv * 9.0) - time * 2.0);
    vec3 c = 0.5 + 0.5 * cos(plasma + vec3(0.0, 2.1, 4.2));
    // Rings that travel outwards, and a clock hand, so motion is easy to see.
    float r = length(uv);
    c *= 0.75 + 0.25 * smoothstep(0.0, 0.02, abs(fract(r * 4.0 - time * 0.5) - 0.5) - 0.02);
    vec2 hand = vec2(sin(time), cos(time));
    float d = length(uv - hand * clamp(dot(uv, hand), 0.0, 0.45));
    c = mix(vec3(1.0), c, smoothstep(0.008, 0.014, d));
    colour = vec4(c, 1.0);
})";

unsigned compile(const GladGLContext &gl, unsigned type, const char *source)
{
    unsigned shader = gl.CreateShader(type);
    gl.ShaderSource(shader, 1, &source, nullptr);
    gl.CompileShader(shader);
    int ok = 0;
    gl.GetShaderiv(shader, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[4096];
        gl.GetShaderInfoLog(shader, sizeof log, nullptr, log);
        throw std::runtime_error(std::string("scene shader: ") + log);
    }
    return shader;
}

} // namespace

scene::scene(int width, int height) : width_(width), height_(height)
{
    auto load = [](void *, const char *name) {
        return reinterpret_cast<GLADapiproc>(glr_context_get_proc_address(name));
    };
    if (!gladLoadGLContextUserPtr(&gl_, load, nullptr))
        throw std::runtime_error("scene: no current OpenGL context");
    unsigned vs = compile(gl_, GL_VERTEX_SHADER, vertex_source);
    unsigned fs = compile(gl_, GL_FRAGMENT_SHADER, fragment_source);
    program_ = gl_.CreateProgram();
    gl_.AttachShader(program_, vs);
    gl_.AttachShader(program_, fs);
    gl_.LinkProgram(program_);
    gl_.DeleteShader(vs);
    gl_.DeleteShader(fs);
    time_location_ = gl_.GetUniformLocation(program_, "time");
    resolution_location_ = gl_.GetUniformLocation(program_, "resolution");
    gl_.GenVertexArrays(1, &vao_);

    gl_.GenTextures(1, &texture_);
    gl_.BindTexture(GL_TEXTURE_2D, texture_);
    gl_.TexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, width, height, 0, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
    gl_.GenFramebuffers(1, &fbo_);
    gl_.BindFramebuffer(GL_FRAMEBUFFER, fbo_);
    gl_.FramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, texture_, 0);
    if (gl_.CheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
        throw std::runtime_error("scene: framebuffer incomplete");
}

scene::~scene()
{
    gl_.DeleteFramebuffers(1, &fbo_);
    gl_.DeleteTextures(1, &texture_);
    gl_.DeleteVertexArrays(1, &vao_);
    gl_.DeleteProgram(program_);
}

void scene::draw(double seconds)
{
    gl_.BindFramebuffer(GL_FRAMEBUFFER, fbo_);
    gl_.Viewport(0, 0, width_, height_);
    gl_.UseProgram(program_);
    gl_.Uniform1f(time_location_, static_cast<float>(seconds));
    gl_.Uniform2f(resolution_location_, static_cast<float>(width_), static_cast<float>(height_));
    gl_.BindVertexArray(vao_);
    gl_.DrawArrays(GL_TRIANGLES, 0, 3);
}

} // namespace sample
