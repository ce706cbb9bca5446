#include "gl/shader_scene.hpp"

#include "format.hpp"

#include "gl/readback_state.hpp"
#include "gl/shader.hpp"

#include "error.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <regex>
#include <sstream>

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

const char *fullscreen_vertex_source = R"(#version 330 core
void main() {
    // Vertices (-1,-1), (3,-1), (-1,3): one triangle covering the whole viewport.
    vec2 p = vec2(float((gl_VertexID << 1) & 2), float(gl_VertexID & 2));
    gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);
})";

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

// Compiler logs locate errors in source string 0: Mesa "0:LINE(COLUMN): ", NVIDIA
// "0(LINE) : ". Name the source instead, as compilers of files do.
std::string locate(const std::string &log, const std::string &name)
{
    static const std::regex mesa(R"((^|\n)0:(\d+)\((\d+)\): )"), nvidia(R"((^|\n)0\((\d+)\) : )");
    std::string out = std::regex_replace(log, mesa, "$1" + name + ":$2:$3: ");
    return std::regex_replace(out, nvidia, "$1" + name + ":$2: ");
}

std::string read_source(const char *path)
{
    std::ifstream in(path);
    if (!in) {
        int err = errno;
        glr::fail(-(err ? err : ENOENT), "cannot read the shader %s: %s", path, std::strerror(err ? err : ENOENT));
    }
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

} // namespace

glr_scene::glr_scene(const glr_log *log, const glr_scene_params &p) : log_(log), width_(p.width), height_(p.height)
{
    if (p.width <= 0 || p.height <= 0)
        glr::fail(-EINVAL, "glr_scene_create: size %dx%d is not positive", p.width, p.height);
    std::string source = p.source ? p.source : p.source_path ? read_source(p.source_path) : builtin_source;
    std::string name = p.source_name ? p.source_name
                       : p.source_path ? p.source_path
                       : p.source      ? "shader"
                                       : "built-in scene";
    glr::gl::load(fns_, p.get_proc_address);
    GLint max_size = 0;
    gl_.GetIntegerv(GL_MAX_TEXTURE_SIZE, &max_size);
    if (p.width > max_size || p.height > max_size)
        glr::fail(-EINVAL, "glr_scene_create: size %dx%d is larger than this driver's limit %d", p.width, p.height,
                  max_size);
    glr::gl::clear_errors(gl_);
    link(wrap_shadertoy(source), name);
    resolution_ = gl_.GetUniformLocation(program_, "iResolution");
    time_ = gl_.GetUniformLocation(program_, "iTime");
    delta_ = gl_.GetUniformLocation(program_, "iTimeDelta");
    frame_ = gl_.GetUniformLocation(program_, "iFrame");
    gl_.GenVertexArrays(1, &vao_);
    gl_.GenTextures(1, &texture_);
    gl_.BindTexture(GL_TEXTURE_2D, texture_);
    gl_.TexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, width_, height_, 0, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
    gl_.GenFramebuffers(1, &fbo_);
    gl_.BindFramebuffer(GL_FRAMEBUFFER, fbo_);
    gl_.FramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, texture_, 0);
    GLenum status = gl_.CheckFramebufferStatus(GL_FRAMEBUFFER);
    try {
        if (status != GL_FRAMEBUFFER_COMPLETE)
            glr::fail(GLR_ERROR_GL, "glr_scene_create: the scene's framebuffer is incomplete (%s)",
                      glr::gl::framebuffer_status_name(status));
        glr::gl::check_errors(gl_, "glr_scene_create");
    } catch (...) {
        release();
        throw;
    }
}

glr_scene::~glr_scene() { release(); }

void glr_scene::release()
{
    gl_.DeleteFramebuffers(1, &fbo_);
    gl_.DeleteTextures(1, &texture_);
    gl_.DeleteVertexArrays(1, &vao_);
    gl_.DeleteProgram(program_);
    fbo_ = texture_ = vao_ = program_ = 0;
}

GLuint glr_scene::compile(GLenum type, const std::string &source, const std::string &name)
{
    std::string log;
    GLuint shader = glr::gl::compile_shader(gl_, type, source, log);
    if (!shader) {
        std::string located = locate(log.c_str(), name);
        while (!located.empty() && located.back() == '\n')
            located.pop_back();
        glr::fail(GLR_ERROR_SHADER, "%s does not compile:\n%s", name.c_str(), located.c_str());
    }
    return shader;
}

void glr_scene::link(const std::string &fragment_source, const std::string &name)
{
    GLuint vs = compile(GL_VERTEX_SHADER, fullscreen_vertex_source, "glreader's vertex shader");
    GLuint fs = 0;
    try {
        fs = compile(GL_FRAGMENT_SHADER, fragment_source, name);
    } catch (...) {
        gl_.DeleteShader(vs);
        throw;
    }
    std::string log;
    program_ = glr::gl::link_program(gl_, {vs, fs}, log);
    if (!program_)
        glr::fail(GLR_ERROR_SHADER, "%s does not link (is mainImage defined?):\n%s", name.c_str(), log.c_str());
}

void glr_scene::draw(int frame, double seconds, double delta)
{
    glr::gl::require_current(fns_, "glr_scene_draw");
    gl_.BindFramebuffer(GL_FRAMEBUFFER, fbo_);
    gl_.Viewport(0, 0, width_, height_);
    gl_.UseProgram(program_);
    gl_.Uniform3f(resolution_, static_cast<float>(width_), static_cast<float>(height_), 1.0f);
    gl_.Uniform1f(time_, static_cast<float>(seconds));
    gl_.Uniform1f(delta_, static_cast<float>(delta));
    gl_.Uniform1i(frame_, frame);
    gl_.BindVertexArray(vao_);
    gl_.DrawArrays(GL_TRIANGLES, 0, 3);
}

void glr_scene::read_pixels(int format, uint8_t *data, ptrdiff_t stride)
{
    glr::gl::require_current(fns_, "glr_scene_read_pixels");
    const glr_format_info &info = glr::format_info(format, "glr_scene_read_pixels");
    if (info.yuv)
        glr::fail(-EINVAL, "glr_scene_read_pixels: reads RGB formats only; %s frames come from a ring", info.name);
    int bytes = info.samples_per_pixel[0];
    if (!data)
        glr::fail(-EINVAL, "glr_scene_read_pixels: data is NULL");
    if (stride < static_cast<ptrdiff_t>(width_) * bytes || stride % bytes != 0)
        glr::fail(-EINVAL, "glr_scene_read_pixels: stride %td is not a whole number of pixels of at least a row "
                  "(%d bytes)", stride, width_ * bytes);
    glr::gl::readback_state_guard guard(gl_);
    gl_.BindFramebuffer(GL_READ_FRAMEBUFFER, fbo_);
    gl_.BindBuffer(GL_PIXEL_PACK_BUFFER, 0); // into client memory
    gl_.PixelStorei(GL_PACK_ALIGNMENT, 1);
    gl_.PixelStorei(GL_PACK_ROW_LENGTH, static_cast<GLint>(stride / bytes));
    gl_.PixelStorei(GL_PACK_SKIP_ROWS, 0);
    gl_.PixelStorei(GL_PACK_SKIP_PIXELS, 0);
    gl_.ReadPixels(0, 0, width_, height_, glr::gl::pack_format_of(format),
                   GL_UNSIGNED_BYTE, data);
    glr::gl::check_errors(gl_, "glr_scene_read_pixels: glReadPixels");
}

const char *glr_scene::builtin_source_text() { return builtin_source; }
