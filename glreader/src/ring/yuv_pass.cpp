// The conversion pass (ring/yuv_pass.hpp). Measured on llvmpipe against two fragment
// passes into R8 + RG8 targets read back with glReadPixels (OBS's and gpu-screen-recorder's
// design): the compute pass took 0.4x the time at 1080p and 720p, the draws being the cost
// there, and it needs no targets.
//
// Each invocation converts a block of 8x2 pixels: the luma of both rows and, for 4:2:0,
// the 4 chroma samples under it, so every 32-bit word of a buffer has one writer.
#include "ring/yuv_pass.hpp"

#include "context/shader.hpp"
#include "ring/readback_state.hpp"

#include "error.hpp"

#include <string>

namespace glr::gl {
namespace {

// Wide, short groups ran fastest on llvmpipe (32 or 64 invocations across).
constexpr int group_w = 32, group_h = 2;

const char *const shader_body = R"(
layout(local_size_x = GROUP_W, local_size_y = GROUP_H) in;
layout(binding = 0) uniform sampler2D source;
uniform ivec2 size;        // of the frame
uniform int level;         // of the source texture
uniform bool top_first;    // rows top first (GL's are bottom first)
uniform vec3 y_row, u_row, v_row; // the matrix, scaled to code values
uniform vec3 bias;         // code-value offsets of Y, U, V, plus 0.5 to round
uniform float code_max;
uniform uint plane_offset[4], plane_stride[4]; // in 32-bit words

vec4 px[2][10]; // columns x0 - 1 .. x0 + 8 of the block's two rows

uint code(float v) { return uint(clamp(floor(v), 0.0, code_max)); }
uint luma(vec4 c) { return code(dot(y_row, c.rgb) + bias.x); }
uint cb(vec4 c) { return code(dot(u_row, c.rgb) + bias.y); }
uint cr(vec4 c) { return code(dot(v_row, c.rgb) + bias.z); }
uint alpha(vec4 c) { return code(c.a * code_max + 0.5); } // full range
#if TEXTURES
// A texture per plane, bound as unsigned integers: each sample is stored as it is.
layout(binding = 0) writeonly uniform uimage2D plane0;
layout(binding = 1) writeonly uniform uimage2D plane1;
#if PLANES >= 3
layout(binding = 2) writeonly uniform uimage2D plane2;
#endif
#if PLANES == 4
layout(binding = 3) writeonly uniform uimage2D plane3;
#endif
void store(int plane, int x, int y, uvec4 value)
{
    ivec2 at = ivec2(x, y); // past a plane's edge, a store does nothing
    if (plane == 0)
        imageStore(plane0, at, value);
    else if (plane == 1)
        imageStore(plane1, at, value);
#if PLANES >= 3
    else if (plane == 2)
        imageStore(plane2, at, value);
#endif
#if PLANES == 4
    else
        imageStore(plane3, at, value);
#endif
}
// Eight samples of a full-size plane's row, from the block's column bx.
void put8(int plane, int row, int bx, uint s[8])
{
    for (int i = 0; i < 8; i++)
        store(plane, bx * 8 + i, row, uvec4(s[i] << SHIFT, 0u, 0u, 0u));
}
// The four chroma samples of a 4:2:0 block, from chroma column bx * 4.
void put_chroma(int row, int bx, uint u[4], uint v[4])
{
    for (int i = 0; i < 4; i++) {
#if PLANES >= 3
        store(1, bx * 4 + i, row, uvec4(u[i] << SHIFT, 0u, 0u, 0u));
        store(2, bx * 4 + i, row, uvec4(v[i] << SHIFT, 0u, 0u, 0u));
#else
        store(1, bx * 4 + i, row, uvec4(u[i] << SHIFT, v[i] << SHIFT, 0u, 0u));
#endif
    }
}
#else
// The planes packed into one buffer as the format lays them out in memory.
layout(std430, binding = 0) writeonly restrict buffer frame_words { uint words[]; };
void put(int plane, int row, int word, uint value)
{
    words[plane_offset[plane] + uint(row) * plane_stride[plane] + uint(word)] = value;
}
uint pack8(uint a, uint b, uint c, uint d) { return a | (b << 8) | (c << 16) | (d << 24); }
// 16-bit samples: P010 keeps the value in the high bits, planar formats in the low ones.
uint pack16(uint a, uint b) { return (a << SHIFT) | (b << (16 + SHIFT)); }
// Eight samples of a full-size plane's row, from the block's column bx.
void put8(int plane, int row, int bx, uint s[8])
{
#if BITS == 8
    put(plane, row, bx * 2, pack8(s[0], s[1], s[2], s[3]));
    put(plane, row, bx * 2 + 1, pack8(s[4], s[5], s[6], s[7]));
#else
    for (int w = 0; w < 4; w++)
        put(plane, row, bx * 4 + w, pack16(s[2 * w], s[2 * w + 1]));
#endif
}

// The four chroma samples of a 4:2:0 block, from chroma column bx * 4.
void put_chroma(int row, int bx, uint u[4], uint v[4])
{
#if PLANES >= 3
    put(1, row, bx, pack8(u[0], u[1], u[2], u[3]));
    put(2, row, bx, pack8(v[0], v[1], v[2], v[3]));
#elif BITS == 8
    put(1, row, bx * 2, pack8(u[0], v[0], u[1], v[1]));
    put(1, row, bx * 2 + 1, pack8(u[2], v[2], u[3], v[3]));
#else
    for (int i = 0; i < 4; i++)
        put(1, row, bx * 4 + i, pack16(u[i], v[i]));
#endif
}
#endif

void main()
{
    int bx = int(gl_GlobalInvocationID.x), by = int(gl_GlobalInvocationID.y);
    int x0 = bx * 8, y0 = by * 2;
    if (x0 >= size.x || y0 >= size.y)
        return;
    for (int r = 0; r < 2; r++) {
        int y = min(y0 + r, size.y - 1);
        int gy = top_first ? size.y - 1 - y : y;
        for (int i = 0; i < 10; i++)
            px[r][i] = texelFetch(source, ivec2(clamp(x0 - 1 + i, 0, size.x - 1), gy), level);
    }
    uint s[8];
    for (int r = 0; r < 2 && y0 + r < size.y; r++) {
        for (int i = 0; i < 8; i++)
            s[i] = luma(px[r][1 + i]);
        put8(0, y0 + r, bx, s);
#if CHROMA_444
        for (int i = 0; i < 8; i++)
            s[i] = cb(px[r][1 + i]);
        put8(1, y0 + r, bx, s);
        for (int i = 0; i < 8; i++)
            s[i] = cr(px[r][1 + i]);
        put8(2, y0 + r, bx, s);
#endif
#if PLANES == 4
        for (int i = 0; i < 8; i++)
            s[i] = alpha(px[r][1 + i]);
        put8(3, y0 + r, bx, s);
#endif
    }
#if !CHROMA_444
    vec4 c[4]; // chroma sample i sits at luma column x0 + 2i (px index 1 + 2i)
    for (int i = 0; i < 4; i++) {
        int k = 1 + 2 * i;
#if SITING_LEFT
        c[i] = (px[0][k - 1] + 2.0 * px[0][k] + px[0][k + 1] + px[1][k - 1] + 2.0 * px[1][k] + px[1][k + 1]) / 8.0;
#else
        c[i] = (px[0][k] + px[0][k + 1] + px[1][k] + px[1][k + 1]) / 4.0;
#endif
    }
    uint cbs[4], crs[4];
    for (int i = 0; i < 4; i++) {
        cbs[i] = cb(c[i]);
        crs[i] = cr(c[i]);
    }
    put_chroma(by, bx, cbs, crs);
#endif
}
)";

} // namespace

yuv_pass::yuv_pass(const functions &fns, const fill_params &params, yuv_target target, const char *caller)
    : gl_(fns.gl), params_(params)
{
    const glr_format_info &f = *params.format;
    bool images = target == yuv_target::textures;
    if (!fns.version_at_least(4, 3) || !gl_.DispatchCompute || !gl_.BindSampler || (images && !gl_.BindImageTexture))
        fail(GLR_ERROR_UNSUPPORTED,
             "%s: converting to %s on the GPU needs compute shaders and %s (OpenGL 4.3); this context has "
             "OpenGL %d.%d%s",
             caller, f.name, images ? "image stores" : "shader storage buffers", fns.major, fns.minor,
             images ? "" : ": read back rgba or bgra and convert on the CPU instead");
    if (!images) {
        GLint64 max_block = 0;
        gl_.GetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &max_block);
        if (static_cast<GLint64>(params.layout.bytes) > max_block)
            fail(GLR_ERROR_UNSUPPORTED,
                 "%s: a %dx%d %s frame is %.1f MiB, more than this driver lets one shader write "
                 "(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, %.1f MiB)",
                 caller, params.width, params.height, f.name, static_cast<double>(params.layout.bytes) / 1048576.0,
                 static_cast<double>(max_block) / 1048576.0);
    }
    build_program(target, caller);
}

void yuv_pass::dispatch(const source_binding::texture_level &texture)
{
    gl_.UseProgram(program_);
    gl_.Uniform1i(level_location_, texture.level);
    gl_.ActiveTexture(GL_TEXTURE0);
    gl_.BindTexture(GL_TEXTURE_2D, texture.texture);
    // texelFetch of a texture that is incomplete for its own filter (mipmaps asked, level
    // 0 only) returns zeros: our sampler's filter decides completeness instead.
    gl_.BindSampler(0, texture.level == 0 ? sampler_ : 0);
    auto blocks_x = static_cast<GLuint>((params_.width + 7) / 8), blocks_y = static_cast<GLuint>((params_.height + 1) / 2);
    gl_.DispatchCompute((blocks_x + group_w - 1) / group_w, (blocks_y + group_h - 1) / group_h, 1);
}

void yuv_pass::delete_gl_objects()
{
    if (gl_.DeleteProgram && program_)
        gl_.DeleteProgram(program_);
    if (gl_.DeleteSamplers && sampler_)
        gl_.DeleteSamplers(1, &sampler_);
    program_ = sampler_ = 0;
}

void yuv_pass::build_program(yuv_target target, const char *caller)
{
    const glr_format_info &f = *params_.format;
    // P010 (2 planes) keeps a sample's bits high in its 16; planar formats keep them low.
    int shift = f.bytes_per_sample == 2 && f.planes == 2 ? 16 - f.bit_depth : 0;
    std::string source = format("#version 430\n#define GROUP_W %d\n#define GROUP_H %d\n#define BITS %d\n"
                                "#define PLANES %d\n#define CHROMA_444 %d\n#define SITING_LEFT %d\n#define SHIFT %d\n"
                                "#define TEXTURES %d\n",
                                group_w, group_h, f.bit_depth, f.planes, f.log2_chroma_w == 0 ? 1 : 0,
                                params_.color.chroma == GLR_CHROMA_LEFT ? 1 : 0, shift,
                                target == yuv_target::textures ? 1 : 0) +
                         shader_body;
    std::string log;
    GLuint shader = compile_shader(gl_, GL_COMPUTE_SHADER, source, log);
    if (shader)
        program_ = link_program(gl_, {shader}, log);
    if (!program_) {
        delete_gl_objects();
        fail(GLR_ERROR_INTERNAL, "%s: the %s conversion shader does not build: %s", caller, f.name, log.c_str());
    }

    // The matrix rows, scaled to code values: Y' = Kr R + Kg G + Kb B,
    // Cb = (B - Y') / (2 (1 - Kb)), Cr = (R - Y') / (2 (1 - Kr)).
    double kr, kb;
    matrix_constants(params_.color.matrix, kr, kb);
    double kg = 1.0 - kr - kb;
    double max = (1 << f.bit_depth) - 1, half = 1 << (f.bit_depth - 1), step = (1 << f.bit_depth) / 256.0;
    bool limited = params_.color.range == GLR_RANGE_LIMITED;
    double y_scale = limited ? 219.0 * step : max, c_scale = limited ? 224.0 * step : max;
    double y_offset = limited ? 16.0 * step : 0.0;
    auto uniform3 = [&](const char *name, double a, double b, double c) {
        gl_.ProgramUniform3f(program_, gl_.GetUniformLocation(program_, name), static_cast<float>(a),
                             static_cast<float>(b), static_cast<float>(c));
    };
    uniform3("y_row", y_scale * kr, y_scale * kg, y_scale * kb);
    uniform3("u_row", -c_scale * kr / (2 * (1 - kb)), -c_scale * kg / (2 * (1 - kb)), c_scale * 0.5);
    uniform3("v_row", c_scale * 0.5, -c_scale * kg / (2 * (1 - kr)), -c_scale * kb / (2 * (1 - kr)));
    uniform3("bias", y_offset + 0.5, half + 0.5, half + 0.5);
    gl_.ProgramUniform1f(program_, gl_.GetUniformLocation(program_, "code_max"), static_cast<float>(max));
    gl_.ProgramUniform2i(program_, gl_.GetUniformLocation(program_, "size"), params_.width, params_.height);
    gl_.ProgramUniform1i(program_, gl_.GetUniformLocation(program_, "top_first"), params_.flip != GLR_FLIP_NONE);
    gl_.ProgramUniform1i(program_, gl_.GetUniformLocation(program_, "source"), 0);
    GLuint offsets[4] = {}, strides[4] = {};
    for (int p = 0; p < params_.layout.count; p++) {
        offsets[p] = static_cast<GLuint>(params_.layout.planes[p].offset / 4);
        strides[p] = static_cast<GLuint>(params_.layout.planes[p].stride / 4);
    }
    gl_.ProgramUniform1uiv(program_, gl_.GetUniformLocation(program_, "plane_offset"), 4, offsets);
    gl_.ProgramUniform1uiv(program_, gl_.GetUniformLocation(program_, "plane_stride"), 4, strides);
    level_location_ = gl_.GetUniformLocation(program_, "level");

    gl_.GenSamplers(1, &sampler_);
    gl_.SamplerParameteri(sampler_, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    gl_.SamplerParameteri(sampler_, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    check_errors(gl_, format("%s: setting up the conversion pass", caller).c_str());
}

} // namespace glr::gl
