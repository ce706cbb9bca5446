#include "pattern_scene.hpp"

#include "gl_program.hpp"

#include <cstdio>
#include <random>
#include <stdexcept>
#include <string>

namespace glr_test {

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

// The pattern's program: one full-viewport triangle (glr_scene cannot serve here: it
// forces alpha to 1 and draws only into its own framebuffer).
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

const char *fragment_source = R"(#version 330 core
uniform uint frame;
uniform int height;
out vec4 colour;
void main() {
    uint x = uint(gl_FragCoord.x);
    uint y = uint(height - 1 - int(gl_FragCoord.y)); // counted from the top row
    uvec4 v = uvec4(frame & 255u, (frame >> 8) & 255u, (x * 3u + y * 7u + frame) & 255u,
                    (x * 5u + y) & 255u);
    colour = vec4(v) / 255.0;
})";

} // namespace

pattern_scene::pattern_scene(const scene_options &options) : options_(options)
{
    sample::load_gl(gl_);
    program_ = make_fullscreen_program(gl_, fragment_source);
    frame_location_ = gl_.GetUniformLocation(program_, "frame");
    height_location_ = gl_.GetUniformLocation(program_, "height");
    gl_.GenVertexArrays(1, &vao_);

    const int w = options_.width, h = options_.height;
    gl_.GenFramebuffers(1, &fbo_);
    gl_.BindFramebuffer(GL_FRAMEBUFFER, fbo_);
    for (unsigned i = 0; i <= options_.attachment; i++) {
        GLenum attachment = GL_COLOR_ATTACHMENT0 + i;
        if (options_.samples > 0 && options_.multisample_texture) {
            gl_.GenTextures(1, &colour_[i]);
            gl_.BindTexture(GL_TEXTURE_2D_MULTISAMPLE, colour_[i]);
            gl_.TexImage2DMultisample(GL_TEXTURE_2D_MULTISAMPLE, options_.samples, GL_RGBA8, w, h,
                                      GL_TRUE);
            gl_.FramebufferTexture2D(GL_FRAMEBUFFER, attachment, GL_TEXTURE_2D_MULTISAMPLE,
                                     colour_[i], 0);
        } else if (options_.samples > 0) {
            gl_.GenRenderbuffers(1, &colour_[i]);
            gl_.BindRenderbuffer(GL_RENDERBUFFER, colour_[i]);
            gl_.RenderbufferStorageMultisample(GL_RENDERBUFFER, options_.samples, GL_RGBA8, w, h);
            gl_.FramebufferRenderbuffer(GL_FRAMEBUFFER, attachment, GL_RENDERBUFFER, colour_[i]);
        } else {
            gl_.GenTextures(1, &colour_[i]);
            gl_.BindTexture(GL_TEXTURE_2D, colour_[i]);
            gl_.TexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, w, h, 0, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
            gl_.FramebufferTexture2D(GL_FRAMEBUFFER, attachment, GL_TEXTURE_2D, colour_[i], 0);
        }
    }
    // Every attachment but the pattern's stays black, so reading the wrong one shows.
    for (unsigned i = 0; i < options_.attachment; i++) {
        GLenum only = GL_COLOR_ATTACHMENT0 + i;
        gl_.DrawBuffers(1, &only);
        gl_.ClearColor(0, 0, 0, 0);
        gl_.Clear(GL_COLOR_BUFFER_BIT);
    }
    GLenum target = GL_COLOR_ATTACHMENT0 + options_.attachment;
    gl_.DrawBuffers(1, &target);
    if (gl_.CheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
        throw std::runtime_error("test scene: framebuffer incomplete");
    gl_.BindFramebuffer(GL_FRAMEBUFFER, 0);
}

pattern_scene::~pattern_scene()
{
    gl_.DeleteFramebuffers(1, &fbo_);
    for (unsigned name : colour_) {
        if (!name)
            continue;
        if (options_.samples > 0 && !options_.multisample_texture)
            gl_.DeleteRenderbuffers(1, &name);
        else
            gl_.DeleteTextures(1, &name);
    }
    gl_.DeleteVertexArrays(1, &vao_);
    gl_.DeleteProgram(program_);
}

void pattern_scene::draw_into(unsigned fbo, uint64_t n)
{
    gl_.BindFramebuffer(GL_DRAW_FRAMEBUFFER, fbo);
    gl_.Viewport(0, 0, options_.width, options_.height);
    gl_.UseProgram(program_);
    gl_.Uniform1ui(frame_location_, static_cast<GLuint>(n));
    gl_.Uniform1i(height_location_, options_.height);
    gl_.BindVertexArray(vao_);
    gl_.DrawArrays(GL_TRIANGLES, 0, 3);
    gl_.BindFramebuffer(GL_DRAW_FRAMEBUFFER, 0);
}

void pattern_scene::draw(uint64_t n) { draw_into(fbo_, n); }

void pattern_scene::draw_default_framebuffer(uint64_t n) { draw_into(0, n); }

glr_source pattern_scene::source() const
{
    glr_source s{};
    s.kind = GLR_SOURCE_FRAMEBUFFER;
    s.name = fbo_;
    s.attachment = options_.attachment;
    return s;
}

std::vector<uint8_t> pattern_image(uint64_t n, int width, int height)
{
    std::vector<uint8_t> rgba;
    rgba.reserve(static_cast<size_t>(width) * static_cast<size_t>(height) * 4);
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++)
            for (uint8_t c : pattern(n, x, y))
                rgba.push_back(c);
    return rgba;
}

std::string check_frame(const glr_frame &frame, uint64_t n, glr_flip flip)
{
    int bpp = glr_format_get_info(frame.format)->samples_per_pixel[0];
    for (int row = 0; row < frame.height; row++) {
        // GLR_FLIP_NONE keeps GL's order: the frame's first row is the image's bottom row.
        int y = flip == GLR_FLIP_NONE ? frame.height - 1 - row : row;
        const uint8_t *p = frame.planes[0].data + frame.planes[0].stride * row;
        for (int x = 0; x < frame.width; x++, p += bpp) {
            auto want = pattern(n, x, y);
            uint8_t got[4] = {p[0], p[1], p[2], bpp == 4 ? p[3] : want[3]};
            if (frame.format == GLR_FORMAT_BGRA8)
                std::swap(got[0], got[2]);
            for (int c = 0; c < 4; c++) {
                if (got[c] != want[static_cast<size_t>(c)]) {
                    char text[160];
                    std::snprintf(text, sizeof text,
                                  "frame %llu: pixel (%d,%d) channel %d is %d, expected %d",
                                  static_cast<unsigned long long>(n), x, y, c, got[c],
                                  want[static_cast<size_t>(c)]);
                    return text;
                }
            }
        }
    }
    return "";
}

unsigned scene_test::texture(GLenum internal, int w, int h, GLenum format, GLenum type, const void *data)
{
    const GladGLContext &gl = scene().gl();
    unsigned t = 0;
    gl.GenTextures(1, &t);
    gl.BindTexture(GL_TEXTURE_2D, t);
    gl.PixelStorei(GL_UNPACK_ALIGNMENT, 1);
    gl.TexImage2D(GL_TEXTURE_2D, 0, static_cast<GLint>(internal), w, h, 0, format, type, data);
    gl.BindTexture(GL_TEXTURE_2D, 0);
    return keep(t);
}

unsigned scene_test::noise_texture(int w, int h, unsigned seed)
{
    std::vector<uint8_t> rgba(static_cast<size_t>(w) * h * 4);
    std::mt19937 random(seed);
    for (uint8_t &b : rgba)
        b = static_cast<uint8_t>(random() & 255);
    return texture(GL_RGBA8, w, h, GL_RGBA, GL_UNSIGNED_BYTE, rgba.data());
}

std::vector<std::vector<uint8_t>> scene_test::ring_planes(const glr_source &source, int w, int h, glr_format format,
                                                          const glr_color &color)
{
    glr_ring_params p = ring_params(w, h, format, GLR_FLIP_STRIDE, 2);
    p.color = color;
    glr::ring ring(p);
    EXPECT_TRUE(ring.try_capture(source, 0));
    auto f = ring.acquire(UINT64_MAX);
    std::vector<std::vector<uint8_t>> planes;
    if (!f)
        return planes;
    const glr_frame &frame = f->c_frame();
    for (int i = 0; i < glr_format_get_info(format)->planes; i++) {
        const glr_plane &pl = frame.planes[i];
        std::vector<uint8_t> bytes;
        for (int r = 0; r < pl.rows; r++)
            bytes.insert(bytes.end(), pl.data + r * pl.stride, pl.data + r * pl.stride + pl.row_bytes);
        planes.push_back(std::move(bytes));
    }
    return planes;
}

} // namespace glr_test
