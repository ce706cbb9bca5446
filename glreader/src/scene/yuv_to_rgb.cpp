#include "scene/yuv_to_rgb.hpp"

#include "context/shader.hpp"
#include "enum_value.hpp"
#include "error.hpp"
#include "format.hpp"

#include <cmath>

namespace glr::gl {

namespace {

constexpr int group = 8;

// Reads bytes of the staged planes (any alignment, any pitch) and writes one RGBA word a
// pixel past them.
const char *const shader_source = R"(#version 430
layout(local_size_x = 8, local_size_y = 8) in;
layout(std430, binding = 0) buffer staged { uint words[]; };
uniform ivec2 size;
uniform int kind;             // 0: three planes (I420, 4:4:4); 1: NV12; 2: P010
uniform ivec2 subsampled;     // 1 where chroma is halved across, down
uniform uint plane_offset[3]; // bytes
uniform uint plane_pitch[3];  // bytes
uniform uint rgba_offset;     // words
uniform int flip;             // GL row r holds the picture's row size.y - 1 - r
uniform float chroma_x;       // chroma sample i sits at luma x = 2 i + chroma_x
uniform vec3 r_row, g_row, b_row, bias;

uint byte_at(uint at) { return (words[at >> 2u] >> ((at & 3u) * 8u)) & 0xffu; }
uint u16_at(uint at) { return byte_at(at) | (byte_at(at + 1u) << 8u); }

float luma(ivec2 p)
{
    uint at = plane_offset[0] + uint(p.y) * plane_pitch[0];
    return kind == 2 ? float(u16_at(at + uint(p.x) * 2u) >> 6u) : float(byte_at(at + uint(p.x)));
}

vec2 chroma_sample(ivec2 c)
{
    if (kind == 0)
        return vec2(byte_at(plane_offset[1] + uint(c.y) * plane_pitch[1] + uint(c.x)),
                    byte_at(plane_offset[2] + uint(c.y) * plane_pitch[2] + uint(c.x)));
    uint at = plane_offset[1] + uint(c.y) * plane_pitch[1];
    if (kind == 1)
        return vec2(byte_at(at + uint(c.x) * 2u), byte_at(at + uint(c.x) * 2u + 1u));
    return vec2(u16_at(at + uint(c.x) * 4u) >> 6u, u16_at(at + uint(c.x) * 4u + 2u) >> 6u);
}

// Chroma at luma sample p: the nearest samples weighed by distance where it is halved.
vec2 chroma(ivec2 p)
{
    if (subsampled == ivec2(0))
        return chroma_sample(p);
    ivec2 last = ((size + subsampled) >> subsampled) - 1;
    vec2 at = vec2(subsampled.x == 1 ? (float(p.x) - chroma_x) * 0.5 : float(p.x),
                   subsampled.y == 1 ? (float(p.y) - 0.5) * 0.5 : float(p.y));
    vec2 base = floor(at), f = at - base;
    ivec2 c0 = clamp(ivec2(base), ivec2(0), last), c1 = clamp(ivec2(base) + 1, ivec2(0), last);
    vec2 top = mix(chroma_sample(c0), chroma_sample(ivec2(c1.x, c0.y)), f.x);
    vec2 bottom = mix(chroma_sample(ivec2(c0.x, c1.y)), chroma_sample(c1), f.x);
    return mix(top, bottom, f.y);
}

void main()
{
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (p.x >= size.x || p.y >= size.y)
        return;
    vec3 ycc = vec3(luma(p), chroma(p)) - bias;
    uvec3 v = uvec3(clamp(vec3(dot(r_row, ycc), dot(g_row, ycc), dot(b_row, ycc)), 0.0, 1.0) * 255.0 + 0.5);
    int row = flip != 0 ? size.y - 1 - p.y : p.y;
    words[rgba_offset + uint(row * size.x + p.x)] = v.r | (v.g << 8u) | (v.b << 16u) | (255u << 24u);
}
)";

} // namespace

yuv_to_rgb::yuv_to_rgb(const GladGLContext &gl, const char *where) : gl_(gl)
{
    if (!gl_.VERSION_4_3 || !gl_.DispatchCompute || !gl_.BufferStorage)
        fail(GLR_ERROR_UNSUPPORTED,
             "%s: Y'CbCr pictures need compute shaders and persistently mapped buffers (OpenGL 4.4), which this "
             "context lacks: give RGBA",
             where);
    std::string log;
    GLuint shader = compile_shader(gl_, GL_COMPUTE_SHADER, shader_source, log);
    if (shader)
        program_ = link_program(gl_, {shader}, log);
    if (!program_)
        fail(GLR_ERROR_INTERNAL, "%s: the Y'CbCr to RGB shader does not build: %s", where, log.c_str());
}

yuv_to_rgb::~yuv_to_rgb()
{
    if (program_)
        gl_.DeleteProgram(program_);
}

void yuv_to_rgb::convert(GLuint buffer, const glr_image &image, const staged_planes &planes, size_t rgba_offset,
                         bool flip)
{
    const glr_format_info &f = *glr_format_get_info(image.yuv_format);
    glr_color color{};
    glr_color_resolve(image.yuv_format, &image.color, &color);
    double kr, kb;
    matrix_constants(color.matrix, kr, kb);
    double kg = 1.0 - kr - kb;
    double max = (1 << f.bit_depth) - 1, step = (1 << f.bit_depth) / 256.0;
    bool limited = color.range == GLR_RANGE_LIMITED;
    double ys = limited ? 219.0 * step : max, cs = limited ? 224.0 * step : max;

    auto location = [&](const char *name) { return gl_.GetUniformLocation(program_, name); };
    auto uniform3 = [&](const char *name, double a, double b, double c) {
        gl_.ProgramUniform3f(program_, location(name), static_cast<float>(a), static_cast<float>(b),
                             static_cast<float>(c));
    };
    uniform3("r_row", 1 / ys, 0, 2 * (1 - kr) / cs);
    uniform3("g_row", 1 / ys, -2 * kb * (1 - kb) / (kg * cs), -2 * kr * (1 - kr) / (kg * cs));
    uniform3("b_row", 1 / ys, 2 * (1 - kb) / cs, 0);
    uniform3("bias", limited ? 16.0 * step : 0.0, 128.0 * step, 128.0 * step);
    int kind = image.yuv_format == GLR_FORMAT_NV12 ? 1 : image.yuv_format == GLR_FORMAT_P010 ? 2 : 0;
    gl_.ProgramUniform1i(program_, location("kind"), kind);
    gl_.ProgramUniform2i(program_, location("size"), image.width, image.height);
    gl_.ProgramUniform2i(program_, location("subsampled"), f.log2_chroma_w, f.log2_chroma_h);
    GLuint offsets[3], pitches[3];
    for (int p = 0; p < 3; p++) {
        offsets[p] = static_cast<GLuint>(planes.offset[p]);
        pitches[p] = static_cast<GLuint>(planes.pitch[p]);
    }
    gl_.ProgramUniform1uiv(program_, location("plane_offset"), 3, offsets);
    gl_.ProgramUniform1uiv(program_, location("plane_pitch"), 3, pitches);
    gl_.ProgramUniform1ui(program_, location("rgba_offset"), static_cast<GLuint>(rgba_offset / 4));
    gl_.ProgramUniform1i(program_, location("flip"), flip ? 1 : 0);
    gl_.ProgramUniform1f(program_, location("chroma_x"), color.chroma == GLR_CHROMA_CENTER ? 0.5f : 0.0f);

    gl_.UseProgram(program_);
    gl_.BindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, buffer);
    gl_.DispatchCompute(static_cast<GLuint>((image.width + group - 1) / group),
                        static_cast<GLuint>((image.height + group - 1) / group), 1);
    // The texture fills from these rows next.
    gl_.MemoryBarrier(GL_PIXEL_BUFFER_BARRIER_BIT);
}

} // namespace glr::gl
