// glreader as a guest in a hostile host's GL context. Whatever state the host leaves set,
// every capture path reads the same bytes as in GL's default state, glr_scene draws the
// same bytes, the host's next draw, clear, upload and readback give what they give without
// glreader, and after every glreader call the host's state and its pending GL error are
// as they were. Compiled twice: against a headless EGL context (core profile) and, with
// GLR_TEST_WINDOW, against a GLFW window's GLX context (compatibility profile) on a
// virtual display, whose default framebuffer is one more source.
#include "glreader/glreader.h"

#include "support/gl_test.hpp"

#include <glad/gl.h>
#include <gtest/gtest.h>

#ifdef GLR_TEST_WINDOW
#include "support/virtual_display.hpp"

#include <GLFW/glfw3.h>
#include <dlfcn.h>
#include <link.h>
#endif

#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace {

constexpr int width = 64, height = 32;
// Compatibility-profile state, absent from glad's core headers.
constexpr GLenum gl_alpha_test = 0x0BC0, gl_clamp_fragment_color = 0x891B, gl_alpha_test_func = 0x0BC1;

// ---------------------------------------------------------------------------------------
// The host: its context, its GL functions and objects of its own.

struct host {
    GladGLContext gl{};
    glr_get_proc_address_fn loader = nullptr;
    bool compatibility = false;
    bool has_default_framebuffer = false;
    void (*alpha_func)(GLenum, GLfloat) = nullptr; // compatibility only

    GLuint program = 0, vao = 0, sampler = 0, pack_buffer = 0, unpack_buffer = 0, storage_buffer = 0;
    GLuint unit_textures[4] = {};
    GLuint work_fbo = 0, work_texture = 0, upload_texture = 0;
    int planted = 0;
};

host *the_host = nullptr;

GLuint compile_program(const GladGLContext &gl, const char *fragment)
{
    const char *vertex = R"(#version 330 core
void main() {
    vec2 p = vec2(float((gl_VertexID << 1) & 2), float(gl_VertexID & 2));
    gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);
})";
    GLuint program = gl.CreateProgram();
    for (auto [type, text] : {std::pair<GLenum, const char *>{GL_VERTEX_SHADER, vertex}, {GL_FRAGMENT_SHADER, fragment}}) {
        GLuint shader = gl.CreateShader(type);
        gl.ShaderSource(shader, 1, &text, nullptr);
        gl.CompileShader(shader);
        GLint ok = 0;
        gl.GetShaderiv(shader, GL_COMPILE_STATUS, &ok);
        EXPECT_TRUE(ok) << text;
        gl.AttachShader(program, shader);
        gl.DeleteShader(shader);
    }
    gl.LinkProgram(program);
    GLint ok = 0;
    gl.GetProgramiv(program, GL_LINK_STATUS, &ok);
    EXPECT_TRUE(ok);
    return program;
}

// The pattern every source holds: distinct bytes in each channel, alpha included.
std::vector<uint8_t> pattern_rgba()
{
    std::vector<uint8_t> out(static_cast<size_t>(width) * height * 4);
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++) {
            uint8_t *p = &out[(static_cast<size_t>(y) * width + x) * 4];
            p[0] = static_cast<uint8_t>(x * 4 + y);
            p[1] = static_cast<uint8_t>(y * 8 + x / 8);
            p[2] = static_cast<uint8_t>((x * 37 + y * 11) & 255);
            p[3] = static_cast<uint8_t>(255 - ((x + y) & 63));
        }
    return out; // GL's order: row 0 at the bottom
}

void make_host_objects(host &h)
{
    const GladGLContext &gl = h.gl;
    h.program = compile_program(gl, R"(#version 330 core
out vec4 colour;
void main() { colour = vec4(fract(gl_FragCoord.xy / 16.0), 0.5, 0.75); })");
    gl.GenVertexArrays(1, &h.vao);
    gl.GenSamplers(1, &h.sampler);
    gl.SamplerParameteri(h.sampler, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    gl.GenTextures(4, h.unit_textures);
    for (GLuint t : h.unit_textures) {
        gl.BindTexture(GL_TEXTURE_2D, t);
        gl.TexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, 4, 4, 0, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
    }
    gl.BindTexture(GL_TEXTURE_2D, 0);
    std::vector<uint8_t> bytes(1 << 16);
    for (size_t i = 0; i < bytes.size(); i++)
        bytes[i] = static_cast<uint8_t>(i * 7);
    for (GLuint *buffer : {&h.pack_buffer, &h.unpack_buffer, &h.storage_buffer}) {
        gl.GenBuffers(1, buffer);
        gl.BindBuffer(GL_COPY_WRITE_BUFFER, *buffer);
        gl.BufferData(GL_COPY_WRITE_BUFFER, static_cast<GLsizeiptr>(bytes.size()), bytes.data(), GL_STATIC_DRAW);
    }
    gl.BindBuffer(GL_COPY_WRITE_BUFFER, 0);
    gl.GenTextures(1, &h.work_texture);
    gl.BindTexture(GL_TEXTURE_2D, h.work_texture);
    gl.TexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, width, height, 0, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
    gl.GenTextures(1, &h.upload_texture);
    gl.BindTexture(GL_TEXTURE_2D, h.upload_texture);
    gl.TexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, 8, 8, 0, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
    gl.BindTexture(GL_TEXTURE_2D, 0);
    gl.GenFramebuffers(1, &h.work_fbo);
    gl.BindFramebuffer(GL_FRAMEBUFFER, h.work_fbo);
    gl.FramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, h.work_texture, 0);
    gl.BindFramebuffer(GL_FRAMEBUFFER, 0);
}

// ---------------------------------------------------------------------------------------
// A snapshot of the host's state: every state glreader could touch, and more.

struct snapshot {
    std::vector<std::pair<std::string, double>> values;
    void add(const std::string &name, double value) { values.emplace_back(name, value); }
};

snapshot take_snapshot(const host &h, const std::vector<GLuint> &framebuffers)
{
    const GladGLContext &gl = h.gl;
    snapshot s;
    auto ints = [&](const char *name, GLenum pname, int n) {
        GLint v[4] = {-7, -7, -7, -7};
        gl.GetIntegerv(pname, v);
        for (int i = 0; i < n; i++)
            s.add(std::string(name) + "[" + std::to_string(i) + "]", v[i]);
    };
    auto enabled = [&](const char *name, GLenum cap) { s.add(name, gl.IsEnabled(cap)); };
    enabled("scissor test", GL_SCISSOR_TEST);
    s.add("scissor test 0", gl.IsEnabledi(GL_SCISSOR_TEST, 0));
    ints("scissor box", GL_SCISSOR_BOX, 4);
    enabled("framebuffer srgb", GL_FRAMEBUFFER_SRGB);
    s.add("blend 0", gl.IsEnabledi(GL_BLEND, 0));
    ints("blend src rgb", GL_BLEND_SRC_RGB, 1);
    ints("blend dst rgb", GL_BLEND_DST_RGB, 1);
    GLboolean mask[4] = {};
    gl.GetBooleani_v(GL_COLOR_WRITEMASK, 0, mask);
    for (int i = 0; i < 4; i++)
        s.add("colour mask " + std::to_string(i), mask[i]);
    enabled("cull face", GL_CULL_FACE);
    ints("cull face mode", GL_CULL_FACE_MODE, 1);
    ints("polygon mode", GL_POLYGON_MODE, h.compatibility ? 2 : 1);
    enabled("rasterizer discard", GL_RASTERIZER_DISCARD);
    enabled("logic op", GL_COLOR_LOGIC_OP);
    ints("logic op mode", GL_LOGIC_OP_MODE, 1);
    for (int i = 0; i < 8; i++)
        s.add("clip distance " + std::to_string(i), gl.IsEnabled(GL_CLIP_DISTANCE0 + static_cast<GLenum>(i)));
    enabled("depth test", GL_DEPTH_TEST);
    enabled("stencil test", GL_STENCIL_TEST);
    enabled("dither", GL_DITHER);
    enabled("multisample", GL_MULTISAMPLE);
    enabled("cube map seamless", GL_TEXTURE_CUBE_MAP_SEAMLESS);
    enabled("debug output", GL_DEBUG_OUTPUT);
    GLfloat viewport[4] = {};
    gl.GetFloati_v(GL_VIEWPORT, 0, viewport);
    for (int i = 0; i < 4; i++)
        s.add("viewport " + std::to_string(i), viewport[i]);
    for (GLenum pname : {GL_PACK_SWAP_BYTES, GL_PACK_LSB_FIRST, GL_PACK_ROW_LENGTH, GL_PACK_IMAGE_HEIGHT,
                         GL_PACK_SKIP_ROWS, GL_PACK_SKIP_PIXELS, GL_PACK_SKIP_IMAGES, GL_PACK_ALIGNMENT,
                         GL_UNPACK_SWAP_BYTES, GL_UNPACK_LSB_FIRST, GL_UNPACK_ROW_LENGTH, GL_UNPACK_IMAGE_HEIGHT,
                         GL_UNPACK_SKIP_ROWS, GL_UNPACK_SKIP_PIXELS, GL_UNPACK_SKIP_IMAGES, GL_UNPACK_ALIGNMENT})
        ints(("pixel store 0x" + std::to_string(pname)).c_str(), pname, 1);
    ints("read framebuffer", GL_READ_FRAMEBUFFER_BINDING, 1);
    ints("draw framebuffer", GL_DRAW_FRAMEBUFFER_BINDING, 1);
    ints("read buffer", GL_READ_BUFFER, 1);
    ints("draw buffer 0", GL_DRAW_BUFFER0, 1);
    ints("renderbuffer", GL_RENDERBUFFER_BINDING, 1);
    ints("pack buffer", GL_PIXEL_PACK_BUFFER_BINDING, 1);
    ints("unpack buffer", GL_PIXEL_UNPACK_BUFFER_BINDING, 1);
    ints("array buffer", GL_ARRAY_BUFFER_BINDING, 1);
    ints("uniform buffer", GL_UNIFORM_BUFFER_BINDING, 1);
    ints("storage buffer", GL_SHADER_STORAGE_BUFFER_BINDING, 1);
    GLint indexed = -7;
    gl.GetIntegeri_v(GL_SHADER_STORAGE_BUFFER_BINDING, 0, &indexed);
    s.add("storage buffer 0", indexed);
    GLint64 range = -7;
    gl.GetInteger64i_v(GL_SHADER_STORAGE_BUFFER_START, 0, &range);
    s.add("storage buffer 0 start", static_cast<double>(range));
    gl.GetInteger64i_v(GL_SHADER_STORAGE_BUFFER_SIZE, 0, &range);
    s.add("storage buffer 0 size", static_cast<double>(range));
    ints("program", GL_CURRENT_PROGRAM, 1);
    ints("vertex array", GL_VERTEX_ARRAY_BINDING, 1);
    ints("element array buffer", GL_ELEMENT_ARRAY_BUFFER_BINDING, 1);
    ints("clamp read colour", GL_CLAMP_READ_COLOR, 1);
    GLint active = 0;
    gl.GetIntegerv(GL_ACTIVE_TEXTURE, &active);
    s.add("active texture", active);
    for (GLenum unit = 0; unit < 8; unit++) {
        gl.ActiveTexture(GL_TEXTURE0 + unit);
        std::string u = "unit " + std::to_string(unit) + " ";
        ints((u + "2d").c_str(), GL_TEXTURE_BINDING_2D, 1);
        ints((u + "cube").c_str(), GL_TEXTURE_BINDING_CUBE_MAP, 1);
        ints((u + "2d multisample").c_str(), GL_TEXTURE_BINDING_2D_MULTISAMPLE, 1);
        ints((u + "sampler").c_str(), GL_SAMPLER_BINDING, 1);
    }
    gl.ActiveTexture(static_cast<GLenum>(active));
    // (glGetNamedFramebufferParameteriv does not take GL_READ_BUFFER in Mesa's
    // compatibility profile: bind each one to ask.)
    GLint read_fbo = 0;
    gl.GetIntegerv(GL_READ_FRAMEBUFFER_BINDING, &read_fbo);
    for (GLuint fbo : framebuffers) {
        GLint read_buffer = -7;
        gl.BindFramebuffer(GL_READ_FRAMEBUFFER, fbo);
        gl.GetIntegerv(GL_READ_BUFFER, &read_buffer);
        s.add("read buffer of framebuffer " + std::to_string(fbo), read_buffer);
    }
    gl.BindFramebuffer(GL_READ_FRAMEBUFFER, static_cast<GLuint>(read_fbo));
    if (h.compatibility) {
        enabled("alpha test", gl_alpha_test);
        ints("alpha test func", gl_alpha_test_func, 1);
        ints("clamp fragment colour", gl_clamp_fragment_color, 1);
    }
    return s;
}

void expect_same_state(const snapshot &before, const snapshot &after, const std::string &call)
{
    ASSERT_EQ(before.values.size(), after.values.size());
    for (size_t i = 0; i < before.values.size(); i++)
        EXPECT_EQ(before.values[i].second, after.values[i].second)
            << call << " changed the host's " << before.values[i].first;
}

// Leaves a GL error pending, as a careless host does; a different one each time.
GLenum plant_error(host &h)
{
    const GladGLContext &gl = h.gl;
    switch (h.planted++ % 5) {
    case 0:
        gl.ActiveTexture(0);
        return GL_INVALID_ENUM;
    case 1:
        gl.LineWidth(-1.0f);
        return GL_INVALID_VALUE;
    case 2:
        gl.EndQuery(GL_SAMPLES_PASSED); // none is active
        return GL_INVALID_OPERATION;
    case 3: {
        GLint draw = 0;
        GLuint empty = 0;
        gl.GetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &draw);
        gl.GenFramebuffers(1, &empty);
        gl.BindFramebuffer(GL_DRAW_FRAMEBUFFER, empty);
        gl.Clear(GL_COLOR_BUFFER_BIT); // incomplete: no attachment
        gl.BindFramebuffer(GL_DRAW_FRAMEBUFFER, static_cast<GLuint>(draw));
        gl.DeleteFramebuffers(1, &empty);
        return GL_INVALID_FRAMEBUFFER_OPERATION;
    }
    default:
        gl.PopDebugGroup(); // at the base of the stack
        return GL_STACK_UNDERFLOW;
    }
}

// One glreader call as the host sees it: its state the same afterwards and the error it
// left pending still pending (and nothing else).
void guest_call(host &h, const std::vector<GLuint> &framebuffers, const std::string &what,
                const std::function<void()> &call)
{
    GLenum planted = plant_error(h);
    snapshot before = take_snapshot(h, framebuffers);
    call();
    snapshot after = take_snapshot(h, framebuffers);
    expect_same_state(before, after, what);
    EXPECT_EQ(h.gl.GetError(), planted) << what << " lost the host's pending GL error (or raised another)";
    EXPECT_EQ(h.gl.GetError(), static_cast<GLenum>(GL_NO_ERROR)) << what << " left a GL error of its own";
}

// ---------------------------------------------------------------------------------------
// Hostile states: each applied on top of GL's defaults, and undone.

struct hostile_state {
    std::string name;
    std::function<void(host &)> apply, undo;
};

// Pack and unpack parameters away from GL's initial values (hostile), or back to them.
void set_pixel_store(host &h, bool hostile)
{
    struct parameter {
        GLenum name;
        GLint hostile, initial;
    };
    for (const parameter &p : {parameter{GL_PACK_ALIGNMENT, 8, 4}, {GL_PACK_ROW_LENGTH, 100, 0},
                               {GL_PACK_SKIP_ROWS, 3, 0}, {GL_PACK_SKIP_PIXELS, 2, 0}, {GL_PACK_SWAP_BYTES, 1, 0},
                               {GL_UNPACK_ALIGNMENT, 8, 4}, {GL_UNPACK_ROW_LENGTH, 100, 0},
                               {GL_UNPACK_SKIP_ROWS, 3, 0}, {GL_UNPACK_SKIP_PIXELS, 2, 0},
                               {GL_UNPACK_SWAP_BYTES, 1, 0}})
        h.gl.PixelStorei(p.name, hostile ? p.hostile : p.initial);
}

std::vector<hostile_state> hostile_states(const host &h)
{
    std::vector<hostile_state> out = {
        {"scissor",
         [](host &h) {
             h.gl.Enable(GL_SCISSOR_TEST);
             h.gl.Scissor(3, 2, 5, 4);
         },
         [](host &h) { h.gl.Disable(GL_SCISSOR_TEST); }},
        {"framebuffer_srgb", [](host &h) { h.gl.Enable(GL_FRAMEBUFFER_SRGB); },
         [](host &h) { h.gl.Disable(GL_FRAMEBUFFER_SRGB); }},
        {"blend",
         [](host &h) {
             h.gl.Enable(GL_BLEND);
             h.gl.BlendFunc(GL_ZERO, GL_ONE); // keeps what is there
         },
         [](host &h) {
             h.gl.Disable(GL_BLEND);
             h.gl.BlendFunc(GL_ONE, GL_ZERO);
         }},
        {"colour_mask", [](host &h) { h.gl.ColorMask(GL_TRUE, GL_FALSE, GL_TRUE, GL_FALSE); },
         [](host &h) { h.gl.ColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE); }},
        {"cull_front_and_back",
         [](host &h) {
             h.gl.Enable(GL_CULL_FACE);
             h.gl.CullFace(GL_FRONT_AND_BACK);
         },
         [](host &h) {
             h.gl.Disable(GL_CULL_FACE);
             h.gl.CullFace(GL_BACK);
         }},
        {"polygon_mode_line", [](host &h) { h.gl.PolygonMode(GL_FRONT_AND_BACK, GL_LINE); },
         [](host &h) { h.gl.PolygonMode(GL_FRONT_AND_BACK, GL_FILL); }},
        {"rasterizer_discard", [](host &h) { h.gl.Enable(GL_RASTERIZER_DISCARD); },
         [](host &h) { h.gl.Disable(GL_RASTERIZER_DISCARD); }},
        {"logic_op_clear",
         [](host &h) {
             h.gl.Enable(GL_COLOR_LOGIC_OP);
             h.gl.LogicOp(GL_CLEAR);
         },
         [](host &h) {
             h.gl.Disable(GL_COLOR_LOGIC_OP);
             h.gl.LogicOp(GL_COPY);
         }},
        {"clip_distance", [](host &h) { h.gl.Enable(GL_CLIP_DISTANCE0); },
         [](host &h) { h.gl.Disable(GL_CLIP_DISTANCE0); }},
        {"pixel_store", [](host &h) { set_pixel_store(h, true); }, [](host &h) { set_pixel_store(h, false); }},
        {"pack_and_unpack_buffers",
         [](host &h) {
             h.gl.BindBuffer(GL_PIXEL_PACK_BUFFER, h.pack_buffer);
             h.gl.BindBuffer(GL_PIXEL_UNPACK_BUFFER, h.unpack_buffer);
         },
         [](host &h) {
             h.gl.BindBuffer(GL_PIXEL_PACK_BUFFER, 0);
             h.gl.BindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
         }},
        {"program_vao_units_and_framebuffers",
         [](host &h) {
             h.gl.UseProgram(h.program);
             h.gl.BindVertexArray(h.vao);
             for (GLenum unit = 0; unit < 4; unit++) {
                 h.gl.ActiveTexture(GL_TEXTURE0 + unit);
                 h.gl.BindTexture(GL_TEXTURE_2D, h.unit_textures[unit]);
                 h.gl.BindSampler(unit, h.sampler);
             }
             h.gl.ActiveTexture(GL_TEXTURE2);
             h.gl.BindBufferRange(GL_SHADER_STORAGE_BUFFER, 0, h.storage_buffer, 256, 1024);
             h.gl.BindFramebuffer(GL_FRAMEBUFFER, h.work_fbo);
         },
         [](host &h) {
             h.gl.UseProgram(0);
             h.gl.BindVertexArray(0);
             for (GLenum unit = 0; unit < 4; unit++) {
                 h.gl.ActiveTexture(GL_TEXTURE0 + unit);
                 h.gl.BindTexture(GL_TEXTURE_2D, 0);
                 h.gl.BindSampler(unit, 0);
             }
             h.gl.ActiveTexture(GL_TEXTURE0);
             h.gl.BindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, 0);
             h.gl.BindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
             h.gl.BindFramebuffer(GL_FRAMEBUFFER, 0);
         }},
    };
    if (h.compatibility) {
        out.push_back({"alpha_test_never",
                       [](host &h) {
                           h.gl.Enable(gl_alpha_test);
                           h.alpha_func(GL_NEVER, 0.0f);
                       },
                       [](host &h) {
                           h.gl.Disable(gl_alpha_test);
                           h.alpha_func(GL_ALWAYS, 0.0f);
                       }});
        out.push_back({"clamp_fragment_colour",
                       [](host &h) { h.gl.ClampColor(gl_clamp_fragment_color, GL_TRUE); },
                       [](host &h) { h.gl.ClampColor(gl_clamp_fragment_color, GL_FIXED_ONLY); }});
    }
    std::vector<hostile_state> each = out;
    out.push_back({"all_at_once",
                   [each](host &h) {
                       for (const hostile_state &s : each)
                           s.apply(h);
                   },
                   [each](host &h) {
                       for (const hostile_state &s : each)
                           s.undo(h);
                   }});
    return out;
}

// ---------------------------------------------------------------------------------------
// Sources, filled with the pattern in GL's default state.

struct source {
    std::string name;
    glr_source gl_source;
    GLuint fbo; // 0 for bare textures and the default framebuffer
};

class sources {
public:
    explicit sources(host &h) : h_(h)
    {
        const GladGLContext &gl = h.gl;
        std::vector<uint8_t> pattern = pattern_rgba();
        texture_ = texture(GL_RGBA8, pattern);
        srgb_texture_ = texture(GL_SRGB8_ALPHA8, pattern);
        draw_program_ = compile_program(gl, R"(#version 330 core
uniform sampler2D pattern;
out vec4 colour;
void main() { colour = texelFetch(pattern, ivec2(gl_FragCoord.xy), 0); })");
        gl.GenVertexArrays(1, &vao_);

        list_.push_back({"texture_fbo", {GLR_SOURCE_FRAMEBUFFER, framebuffer_of_texture(texture_), 0, 0, 0}, 0});
        list_.push_back({"renderbuffer_fbo", {GLR_SOURCE_FRAMEBUFFER, framebuffer_of_renderbuffer(GL_RGBA8, 0), 0, 0, 0}, 0});
        list_.push_back({"msaa4_fbo", {GLR_SOURCE_FRAMEBUFFER, framebuffer_of_renderbuffer(GL_RGBA8, 4), 0, 0, 0}, 0});
        list_.push_back(
            {"srgb_renderbuffer_fbo", {GLR_SOURCE_FRAMEBUFFER, framebuffer_of_renderbuffer(GL_SRGB8_ALPHA8, 0), 0, 0, 0}, 0});
        list_.push_back({"texture", {GLR_SOURCE_TEXTURE, texture_, 0, GL_TEXTURE_2D, 0}, 0});
        list_.push_back({"srgb_texture", {GLR_SOURCE_TEXTURE, srgb_texture_, 0, GL_TEXTURE_2D, 0}, 0});
        if (h.has_default_framebuffer) {
            draw_pattern(0);
            list_.push_back({"default_framebuffer", {GLR_SOURCE_FRAMEBUFFER, 0, 0, 0, 0}, 0});
        }
        for (source &s : list_)
            if (s.gl_source.kind == GLR_SOURCE_FRAMEBUFFER)
                s.fbo = s.gl_source.name;
    }
    ~sources()
    {
        const GladGLContext &gl = h_.gl;
        for (GLuint fbo : framebuffers_)
            gl.DeleteFramebuffers(1, &fbo);
        for (GLuint rb : renderbuffers_)
            gl.DeleteRenderbuffers(1, &rb);
        gl.DeleteTextures(1, &texture_);
        gl.DeleteTextures(1, &srgb_texture_);
        gl.DeleteProgram(draw_program_);
        gl.DeleteVertexArrays(1, &vao_);
    }
    sources(const sources &) = delete;
    sources &operator=(const sources &) = delete;

    const std::vector<source> &list() const { return list_; }
    // The host's framebuffer objects whose read buffer glreader might change.
    std::vector<GLuint> framebuffers() const { return framebuffers_; }

private:
    GLuint texture(GLenum internal_format, const std::vector<uint8_t> &pixels)
    {
        GLuint t = 0;
        h_.gl.GenTextures(1, &t);
        h_.gl.BindTexture(GL_TEXTURE_2D, t);
        h_.gl.TexStorage2D(GL_TEXTURE_2D, 1, internal_format, width, height);
        h_.gl.TexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, pixels.data());
        h_.gl.BindTexture(GL_TEXTURE_2D, 0);
        return t;
    }
    GLuint framebuffer_of_texture(GLuint t)
    {
        GLuint fbo = 0;
        h_.gl.GenFramebuffers(1, &fbo);
        h_.gl.BindFramebuffer(GL_FRAMEBUFFER, fbo);
        h_.gl.FramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, t, 0);
        h_.gl.BindFramebuffer(GL_FRAMEBUFFER, 0);
        framebuffers_.push_back(fbo);
        return fbo;
    }
    GLuint framebuffer_of_renderbuffer(GLenum internal_format, int samples)
    {
        GLuint rb = 0, fbo = 0;
        h_.gl.GenRenderbuffers(1, &rb);
        h_.gl.BindRenderbuffer(GL_RENDERBUFFER, rb);
        h_.gl.RenderbufferStorageMultisample(GL_RENDERBUFFER, samples, internal_format, width, height);
        h_.gl.BindRenderbuffer(GL_RENDERBUFFER, 0);
        h_.gl.GenFramebuffers(1, &fbo);
        h_.gl.BindFramebuffer(GL_FRAMEBUFFER, fbo);
        h_.gl.FramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, rb);
        EXPECT_EQ(h_.gl.CheckFramebufferStatus(GL_FRAMEBUFFER), static_cast<GLenum>(GL_FRAMEBUFFER_COMPLETE));
        h_.gl.BindFramebuffer(GL_FRAMEBUFFER, 0);
        renderbuffers_.push_back(rb);
        framebuffers_.push_back(fbo);
        draw_pattern(fbo);
        return fbo;
    }
    // Writes the pattern's bytes as they are (GL_FRAMEBUFFER_SRGB is off: no encoding).
    void draw_pattern(GLuint fbo)
    {
        const GladGLContext &gl = h_.gl;
        gl.BindFramebuffer(GL_FRAMEBUFFER, fbo);
        if (fbo == 0)
            gl.DrawBuffer(GL_BACK);
        gl.Viewport(0, 0, width, height);
        gl.UseProgram(draw_program_);
        gl.BindVertexArray(vao_);
        gl.BindTexture(GL_TEXTURE_2D, texture_);
        gl.DrawArrays(GL_TRIANGLES, 0, 3);
        gl.BindTexture(GL_TEXTURE_2D, 0);
        gl.BindVertexArray(0);
        gl.UseProgram(0);
        gl.BindFramebuffer(GL_FRAMEBUFFER, 0);
        EXPECT_EQ(gl.GetError(), static_cast<GLenum>(GL_NO_ERROR));
    }

    host &h_;
    GLuint texture_ = 0, srgb_texture_ = 0, draw_program_ = 0, vao_ = 0;
    std::vector<GLuint> framebuffers_, renderbuffers_;
    std::vector<source> list_;
};

// ---------------------------------------------------------------------------------------
// Capture paths.

struct capture_path {
    const char *name;
    glr_format format;
    glr_flip flip;
};

const capture_path paths[] = {
    {"rgba", GLR_FORMAT_RGBA8, GLR_FLIP_STRIDE}, {"bgra", GLR_FORMAT_BGRA8, GLR_FLIP_STRIDE},
    {"nv12", GLR_FORMAT_NV12, GLR_FLIP_STRIDE},  {"i420", GLR_FORMAT_I420, GLR_FLIP_STRIDE},
    {"p010", GLR_FORMAT_P010, GLR_FLIP_STRIDE},  {"rgba_flip_gpu", GLR_FORMAT_RGBA8, GLR_FLIP_GPU},
};

// A fresh ring's first frame of the source, every plane's rows top first, with each
// glreader call checked as a guest call.
std::vector<uint8_t> capture_frame(host &h, const sources &all, const capture_path &path, const source &s)
{
    std::vector<GLuint> fbos = all.framebuffers();
    glr_ring_params params = glr_test::ring_params(width, height, path.format, path.flip);
    params.get_proc_address = h.loader;
    glr_ring *ring = nullptr;
    guest_call(h, fbos, "glr_ring_create", [&] { ring = glr_ring_create(nullptr, &params); });
    EXPECT_NE(ring, nullptr) << glr_last_error();
    if (!ring)
        return {};
    int captured = -1, acquired = -1;
    guest_call(h, fbos, "glr_ring_capture", [&] { captured = glr_ring_capture(ring, &s.gl_source, 0); });
    EXPECT_EQ(captured, 0) << glr_last_error();
    glr_frame frame{};
    guest_call(h, fbos, "glr_ring_acquire", [&] { acquired = glr_ring_acquire(ring, &frame, UINT64_MAX); });
    EXPECT_EQ(acquired, 0) << glr_last_error();
    std::vector<uint8_t> bytes;
    if (acquired == 0) {
        for (const glr_plane &plane : frame.planes)
            for (int row = 0; plane.data && row < plane.rows; row++) {
                const uint8_t *at = plane.data + static_cast<ptrdiff_t>(row) * plane.stride;
                bytes.insert(bytes.end(), at, at + plane.row_bytes);
            }
        guest_call(h, fbos, "glr_frame_release", [&] { glr_frame_release(&frame); });
    }
    guest_call(h, fbos, "glr_ring_destroy", [&] { glr_ring_destroy(&ring); });
    return bytes;
}

// The pattern as an RGBA frame shows it: rows top first.
std::vector<uint8_t> pattern_top_first()
{
    std::vector<uint8_t> gl_order = pattern_rgba(), out;
    for (int row = height - 1; row >= 0; row--)
        out.insert(out.end(), gl_order.begin() + static_cast<ptrdiff_t>(row) * width * 4,
                   gl_order.begin() + static_cast<ptrdiff_t>(row + 1) * width * 4);
    return out;
}

// ---------------------------------------------------------------------------------------
// The fixture: a host context current on the test's thread.

class host_state_test : public ::testing::TestWithParam<capture_path> {
protected:
    void SetUp() override
    {
#ifdef GLR_TEST_WINDOW
        ASSERT_NE(the_host, nullptr) << "no window: see the environment's failure above";
        h_ = the_host;
#else
        context_ = std::make_unique<glr::context>();
        owned_ = std::make_unique<host>();
        h_ = owned_.get();
        h_->loader = glr_context_get_proc_address;
        ASSERT_TRUE(gladLoadGLContextUserPtr(
            &h_->gl, [](void *, const char *name) { return reinterpret_cast<GLADapiproc>(glr_context_get_proc_address(name)); },
            nullptr));
        make_host_objects(*h_);
#endif
        EXPECT_EQ(h_->gl.GetError(), static_cast<GLenum>(GL_NO_ERROR));
    }

    host *h_ = nullptr;
#ifndef GLR_TEST_WINDOW
    std::unique_ptr<glr::context> context_;
    std::unique_ptr<host> owned_;
#endif
};

TEST_P(host_state_test, a_capture_reads_the_same_bytes_whatever_the_host_state)
{
    host &h = *h_;
    sources all(h);
    const capture_path &path = GetParam();
    std::vector<hostile_state> states = hostile_states(h);
    for (const source &s : all.list()) {
        SCOPED_TRACE(s.name);
        std::vector<uint8_t> reference = capture_frame(h, all, path, s);
        ASSERT_FALSE(reference.empty()) << s.name;
        // An sRGB source gives its stored bytes, as every source does.
        if (path.format == GLR_FORMAT_RGBA8)
            EXPECT_TRUE(reference == pattern_top_first()) << s.name << ": not the pattern's bytes";
        for (const hostile_state &state : states) {
            SCOPED_TRACE(s.name + " under the host's " + state.name);
            state.apply(h);
            std::vector<uint8_t> got = capture_frame(h, all, path, s);
            state.undo(h);
            EXPECT_TRUE(got == reference) << path.name << " of " << s.name << " with the host's " << state.name
                                          << " differs from the same capture in GL's default state";
        }
    }
}

INSTANTIATE_TEST_SUITE_P(paths, host_state_test, ::testing::ValuesIn(paths),
                         [](const ::testing::TestParamInfo<capture_path> &info) { return std::string(info.param.name); });

// ---------------------------------------------------------------------------------------
// glr_scene in the host's context, and the host's own work after it.

class scene_host_test : public host_state_test {};

// The host's own next draw, clear, upload and readback, in whatever state it has set.
void host_work(host &h, std::vector<uint8_t> &client)
{
    const GladGLContext &gl = h.gl;
    GLint pack = 0, unpack = 0;
    gl.GetIntegerv(GL_PIXEL_PACK_BUFFER_BINDING, &pack);
    gl.GetIntegerv(GL_PIXEL_UNPACK_BUFFER_BINDING, &unpack);
    gl.BindFramebuffer(GL_FRAMEBUFFER, h.work_fbo);
    gl.ClearColor(0.25f, 0.5f, 0.75f, 1.0f);
    gl.Clear(GL_COLOR_BUFFER_BIT);
    gl.UseProgram(h.program);
    gl.BindVertexArray(h.vao);
    gl.Viewport(0, 0, width / 2, height);
    gl.DrawArrays(GL_TRIANGLES, 0, 3);
    gl.BindTexture(GL_TEXTURE_2D, h.upload_texture);
    gl.TexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, 4, 4, GL_RGBA, GL_UNSIGNED_BYTE, unpack ? nullptr : client.data());
    gl.ReadPixels(0, 0, 4, 4, GL_RGBA, GL_UNSIGNED_BYTE, pack ? nullptr : client.data() + client.size() / 2);
    EXPECT_EQ(gl.GetError(), static_cast<GLenum>(GL_NO_ERROR));
}

// What the host's work left, read in GL's default state by direct state access.
std::vector<uint8_t> host_results(host &h, const std::vector<uint8_t> &client)
{
    const GladGLContext &gl = h.gl;
    std::vector<uint8_t> out(client);
    std::vector<uint8_t> pixels(static_cast<size_t>(width) * height * 4), upload(8 * 8 * 4), packed(4096);
    gl.GetTextureImage(h.work_texture, 0, GL_RGBA, GL_UNSIGNED_BYTE, static_cast<GLsizei>(pixels.size()), pixels.data());
    gl.GetTextureImage(h.upload_texture, 0, GL_RGBA, GL_UNSIGNED_BYTE, static_cast<GLsizei>(upload.size()), upload.data());
    gl.GetNamedBufferSubData(h.pack_buffer, 0, static_cast<GLsizeiptr>(packed.size()), packed.data());
    for (auto *part : {&pixels, &upload, &packed})
        out.insert(out.end(), part->begin(), part->end());
    return out;
}

// Puts the host's work targets back to known contents between runs.
void reset_host_targets(host &h)
{
    std::vector<uint8_t> zeros(static_cast<size_t>(width) * height * 4, 0);
    h.gl.TextureSubImage2D(h.work_texture, 0, 0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, zeros.data());
    h.gl.TextureSubImage2D(h.upload_texture, 0, 0, 0, 8, 8, GL_RGBA, GL_UNSIGNED_BYTE, zeros.data());
    h.gl.NamedBufferSubData(h.pack_buffer, 0, 4096, zeros.data());
}

// A scene whose every part a hostile state could spoil: a float buffer pass with values
// above 1 (clamping), an image channel uploaded from memory (unpack state), a cube-free
// Image pass that mixes both.
std::vector<uint8_t> scene_frame(host &h, const std::vector<GLuint> &fbos)
{
    glr_scene_params params{};
    params.width = width;
    params.height = height;
    params.get_proc_address = h.loader;
    params.buffers[0].source = "void mainImage(out vec4 c, in vec2 f) {"
                               " c = vec4(3.0 * fract(f.x / 13.0), 2.0 * fract(f.y / 7.0), 1.5, 2.0); }";
    params.source = "void mainImage(out vec4 c, in vec2 f) { vec2 uv = f / iResolution.xy;"
                    " c = vec4(texture(iChannel1, uv).rgb * 0.25 + texture(iChannel0, uv).rgb * 0.5, 0.8); }";
    params.channels[0] = {GLR_CHANNEL_TEXTURE, 0, GLR_FILTER_NEAREST, GLR_WRAP_CLAMP, GLR_VFLIP_OFF};
    params.channels[1] = {GLR_CHANNEL_BUFFER, 0, GLR_FILTER_NEAREST, GLR_WRAP_CLAMP, GLR_VFLIP_OFF};
    glr_scene *scene = nullptr;
    guest_call(h, fbos, "glr_scene_create", [&] { scene = glr_scene_create(nullptr, &params); });
    EXPECT_NE(scene, nullptr) << glr_last_error();
    if (!scene)
        return {};
    std::vector<uint8_t> picture(static_cast<size_t>(8) * 4 * 4);
    for (size_t i = 0; i < picture.size(); i++)
        picture[i] = static_cast<uint8_t>(i * 9);
    glr_image image{8, 4, 4, picture.data(), 8 * 4, 0.0};
    int rc = -1;
    guest_call(h, fbos, "glr_scene_set_channel_image", [&] { rc = glr_scene_set_channel_image(scene, GLR_SCENE_IMAGE_PASS, 0, &image); });
    EXPECT_EQ(rc, 0) << glr_last_error();
    for (int frame = 0; frame < 2; frame++) {
        guest_call(h, fbos, "glr_scene_draw", [&] { rc = glr_scene_draw(scene, frame, frame / 30.0, 1 / 30.0); });
        EXPECT_EQ(rc, 0) << glr_last_error();
    }
    std::vector<uint8_t> pixels(static_cast<size_t>(width) * height * 4);
    guest_call(h, fbos, "glr_scene_read_pixels",
               [&] { rc = glr_scene_read_pixels(scene, GLR_FORMAT_RGBA8, pixels.data(), width * 4); });
    EXPECT_EQ(rc, 0) << glr_last_error();
    guest_call(h, fbos, "glr_scene_destroy", [&] { glr_scene_destroy(&scene); });
    return pixels;
}

TEST_F(scene_host_test, a_scene_draws_the_same_bytes_and_the_host_s_next_work_is_unchanged)
{
    host &h = *h_;
    std::vector<GLuint> fbos{h.work_fbo};
    std::vector<uint8_t> reference = scene_frame(h, fbos);
    ASSERT_FALSE(reference.empty());
    for (const hostile_state &state : hostile_states(h)) {
        std::vector<uint8_t> client(1 << 16, 0x5a);
        reset_host_targets(h);
        state.apply(h);
        host_work(h, client);
        state.undo(h);
        std::vector<uint8_t> without = host_results(h, client);

        reset_host_targets(h);
        std::fill(client.begin(), client.end(), 0x5a);
        state.apply(h);
        std::vector<uint8_t> drawn = scene_frame(h, fbos);
        host_work(h, client);
        state.undo(h);
        std::vector<uint8_t> with = host_results(h, client);
        EXPECT_TRUE(drawn == reference) << "the scene under the host's " << state.name;
        EXPECT_TRUE(with == without) << "the host's own work under its " << state.name
                                     << " gave other results after glreader's calls";
    }
}

} // namespace

#ifdef GLR_TEST_WINDOW
// A virtual display and a GLFW window for the whole process, its GLX context current on
// the main thread, where the tests run.
class window_environment : public ::testing::Environment {
public:
    void SetUp() override
    {
        display_ = std::make_unique<glr_test::virtual_display>();
        setenv("DISPLAY", display_->name().c_str(), 1);
        ASSERT_TRUE(glfwInit());
        glfwWindowHint(GLFW_RESIZABLE, GLFW_FALSE);
        window_ = glfwCreateWindow(width, height, "host_state_window_test", nullptr, nullptr);
        ASSERT_NE(window_, nullptr);
        glfwMakeContextCurrent(window_);
        int fb_w = 0, fb_h = 0;
        glfwGetFramebufferSize(window_, &fb_w, &fb_h);
        ASSERT_EQ(fb_w, width);
        ASSERT_EQ(fb_h, height);
        host_ = std::make_unique<host>();
        host_->loader = reinterpret_cast<glr_get_proc_address_fn>(glfwGetProcAddress);
        ASSERT_TRUE(gladLoadGLContextUserPtr(
            &host_->gl, [](void *, const char *name) { return reinterpret_cast<GLADapiproc>(glfwGetProcAddress(name)); },
            nullptr));
        GLint profile = 0;
        host_->gl.GetIntegerv(GL_CONTEXT_PROFILE_MASK, &profile);
        host_->compatibility = (profile & GL_CONTEXT_COMPATIBILITY_PROFILE_BIT) != 0;
        ASSERT_TRUE(host_->compatibility) << "GLFW's default context is a compatibility one";
        host_->alpha_func = reinterpret_cast<void (*)(GLenum, GLfloat)>(glfwGetProcAddress("glAlphaFunc"));
        host_->has_default_framebuffer = true;
        make_host_objects(*host_);
        pin_dri_drivers();
        the_host = host_.get();
    }
    void TearDown() override
    {
        the_host = nullptr;
        host_.reset();
        if (window_)
            glfwDestroyWindow(window_);
        glfwTerminate();
        display_.reset();
    }

private:
    // GLX unloads its DRI driver when GLFW ends; the driver stays loaded here to the end of
    // the process instead, as the headless suites keep their display: ThreadSanitizer's
    // suppressions name the driver (tests/tsan.supp) and it stops the process when a
    // library they matched is unloaded.
    static void pin_dri_drivers()
    {
        dl_iterate_phdr(
            [](dl_phdr_info *info, size_t, void *) {
                std::string name = info->dlpi_name ? info->dlpi_name : "";
                if (name.size() > 7 && name.compare(name.size() - 7, 7, "_dri.so") == 0)
                    dlopen(info->dlpi_name, RTLD_NOW | RTLD_NOLOAD); // one more reference, never closed
                return 0;
            },
            nullptr);
    }

    std::unique_ptr<glr_test::virtual_display> display_;
    GLFWwindow *window_ = nullptr;
    std::unique_ptr<host> host_;
};

int main(int argc, char **argv)
{
    ::testing::InitGoogleTest(&argc, argv);
    ::testing::AddGlobalTestEnvironment(new window_environment);
    return RUN_ALL_TESTS();
}
#endif
