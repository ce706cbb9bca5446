#include "scene.hpp"

#include "gl_program.hpp"

#include <stdexcept>

namespace sample {

namespace {

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

} // namespace

scene::scene(int width, int height) : width_(width), height_(height)
{
    load_gl(gl_);
    program_ = make_fullscreen_program(gl_, fragment_source);
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
