#include "scene.hpp"

#include "gl_program.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>

namespace sample {

namespace {

const char *builtin_source = R"(void mainImage(out vec4 colour, in vec2 fragCoord) {
    vec2 uv = (fragCoord - 0.5 * iResolution.xy) / iResolution.y;
    float plasma = sin(uv.x * 6.0 + iTime) + sin(uv.y * 7.0 - iTime * 1.3) +
                   sin(length(uv * 9.0) - iTime * 2.0);
    vec3 c = 0.5 + 0.5 * cos(plasma + vec3(0.0, 2.1, 4.2));
    // Rings that travel outwards, and a clock hand, so motion is easy to see.
    float r = length(uv);
    c *= 0.75 + 0.25 * smoothstep(0.0, 0.02, abs(fract(r * 4.0 - iTime * 0.5) - 0.5) - 0.02);
    vec2 hand = vec2(sin(iTime), cos(iTime));
    float d = length(uv - hand * clamp(dot(uv, hand), 0.0, 0.45));
    c = mix(vec3(1.0), c, smoothstep(0.008, 0.014, d));
    colour = vec4(c, 1.0);
}
)";

// Shadertoy's conventions around the user's mainImage. "#line 1" makes the compiler count
// lines from the first line of the user's source.
std::string wrap_shadertoy(const std::string &main_image)
{
    return "#version 330 core\n"
           "uniform vec3 iResolution;\n"
           "uniform float iTime;\n"
           "uniform float iTimeDelta;\n"
           "uniform int iFrame;\n"
           "out vec4 glr_colour;\n"
           "#line 1\n" +
           main_image +
           "\nvoid main() {\n"
           "    vec4 c = vec4(0.0, 0.0, 0.0, 1.0);\n"
           "    mainImage(c, gl_FragCoord.xy);\n"
           "    glr_colour = vec4(c.rgb, 1.0);\n"
           "}\n";
}

} // namespace

const char *builtin_scene_source() { return builtin_source; }

scene_source load_scene_source(const std::string &path)
{
    if (path.empty())
        return {builtin_source, "built-in scene"};
    std::ifstream in(path);
    if (!in)
        throw std::runtime_error("cannot read shader " + path + ": " + std::strerror(errno));
    std::stringstream text;
    text << in.rdbuf();
    return {text.str(), path};
}

scene::scene(int width, int height, const std::string &main_image_source, const std::string &source_name,
             glr_get_proc_address_fn loader)
    : width_(width), height_(height)
{
    load_gl(gl_, loader);
    try {
        program_ = make_fullscreen_program(gl_, wrap_shadertoy(main_image_source).c_str());
    } catch (const std::exception &e) {
        // Mesa writes "0:LINE(COLUMN): error: ..."; name the file as compilers do.
        static const std::regex mesa_location(R"((^|\n)0:(\d+)\((\d+)\): )");
        throw std::runtime_error(
            std::regex_replace(e.what(), mesa_location, "$1" + source_name + ":$2:$3: "));
    }
    resolution_location_ = gl_.GetUniformLocation(program_, "iResolution");
    time_location_ = gl_.GetUniformLocation(program_, "iTime");
    delta_location_ = gl_.GetUniformLocation(program_, "iTimeDelta");
    frame_location_ = gl_.GetUniformLocation(program_, "iFrame");
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

void scene::draw(int frame, double seconds, double delta)
{
    gl_.BindFramebuffer(GL_FRAMEBUFFER, fbo_);
    gl_.Viewport(0, 0, width_, height_);
    gl_.UseProgram(program_);
    gl_.Uniform3f(resolution_location_, static_cast<float>(width_), static_cast<float>(height_), 1.0f);
    gl_.Uniform1f(time_location_, static_cast<float>(seconds));
    gl_.Uniform1f(delta_location_, static_cast<float>(delta));
    gl_.Uniform1i(frame_location_, frame);
    gl_.BindVertexArray(vao_);
    gl_.DrawArrays(GL_TRIANGLES, 0, 3);
}

} // namespace sample
