// YUV formats: one compute pass reads the source texture, converts it to Y'CbCr and packs
// the planes straight into the slot's buffer (bound as a shader storage buffer), rows top
// first. Measured on llvmpipe against two fragment passes into R8 + RG8 targets read back
// with glReadPixels (OBS's and gpu-screen-recorder's design): the compute pass took 0.4x
// the time at 1080p and 720p, the draws being the cost there, and it needs no targets.
//
// Each invocation converts a block of 8x2 pixels: the luma of both rows and, for 4:2:0,
// the 4 chroma samples under it, so every 32-bit word of the buffer has one writer.
#include "ring/pack_buffers.hpp"
#include "ring/readback_state.hpp"
#include "context/shader.hpp"
#include "ring/slot_filler.hpp"

#include "error.hpp"

#include <cerrno>
#include <string>

namespace glr::gl {
namespace {

// Wide, short groups ran fastest on llvmpipe (32 or 64 invocations across).
constexpr int group_w = 32, group_h = 2;

const char *const shader_body = R"(
layout(local_size_x = GROUP_W, local_size_y = GROUP_H) in;
layout(binding = 0) uniform sampler2D source;
layout(std430, binding = 0) writeonly restrict buffer frame_words { uint words[]; };
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
#if PLANES >= 3
    put(1, by, bx, pack8(cb(c[0]), cb(c[1]), cb(c[2]), cb(c[3])));
    put(2, by, bx, pack8(cr(c[0]), cr(c[1]), cr(c[2]), cr(c[3])));
#elif BITS == 8
    put(1, by, bx * 2, pack8(cb(c[0]), cr(c[0]), cb(c[1]), cr(c[1])));
    put(1, by, bx * 2 + 1, pack8(cb(c[2]), cr(c[2]), cb(c[3]), cr(c[3])));
#else
    for (int i = 0; i < 4; i++)
        put(1, by, bx * 4 + i, pack16(cb(c[i]), cr(c[i])));
#endif
#endif
}
)";

class convert_filler final : public slot_filler {
public:
    convert_filler(const functions &fns, const fill_params &p) : gl_(fns.gl), params_(p), source_(fns, p.width, p.height)
    {
        const glr_format_info &f = *p.format;
        if (!fns.version_at_least(4, 3) ||
            !gl_.DispatchCompute || !gl_.BindSampler)
            fail(GLR_ERROR_UNSUPPORTED,
                 "glr_ring_create: converting to %s on the GPU needs compute shaders and shader storage "
                 "buffers (OpenGL 4.3); this context has OpenGL %d.%d: read back rgba or bgra and convert "
                 "on the CPU instead",
                 f.name, fns.major, fns.minor);
        GLint64 max_block = 0;
        gl_.GetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &max_block);
        if (static_cast<GLint64>(p.layout.bytes) > max_block)
            fail(GLR_ERROR_UNSUPPORTED,
                 "glr_ring_create: a %dx%d %s frame is %.1f MiB, more than this driver lets one shader "
                 "write (GL_MAX_SHADER_STORAGE_BLOCK_SIZE, %.1f MiB)",
                 p.width, p.height, f.name, static_cast<double>(p.layout.bytes) / 1048576.0,
                 static_cast<double>(max_block) / 1048576.0);
        build_program();
    }

    void fill(const glr_source &source, GLuint buffer) override
    {
        read_buffer_guard guard(gl_);
        source_binding::texture_level texture = source_.texture_for_sampling(source, guard);
        gl_.UseProgram(program_);
        gl_.Uniform1i(level_location_, texture.level);
        gl_.ActiveTexture(GL_TEXTURE0);
        gl_.BindTexture(GL_TEXTURE_2D, texture.texture);
        // texelFetch of a texture that is incomplete for its own filter (mipmaps asked, level
        // 0 only) returns zeros: our sampler's filter decides completeness instead.
        gl_.BindSampler(0, texture.level == 0 ? sampler_ : 0);
        gl_.BindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, buffer);
        auto blocks_x = static_cast<GLuint>((params_.width + 7) / 8), blocks_y = static_cast<GLuint>((params_.height + 1) / 2);
        gl_.DispatchCompute((blocks_x + group_w - 1) / group_w, (blocks_y + group_h - 1) / group_h, 1);
        // Shader writes reach a mapped buffer (persistent) or a later map (per frame) only
        // after this barrier; the fence that follows then covers them.
        gl_.MemoryBarrier(GL_CLIENT_MAPPED_BUFFER_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT);
        check_errors(gl_, "glr_ring_capture: converting the frame on the GPU");
    }

    void delete_gl_objects() override
    {
        source_.delete_gl_objects();
        if (gl_.DeleteProgram && program_)
            gl_.DeleteProgram(program_);
        if (gl_.DeleteSamplers && sampler_)
            gl_.DeleteSamplers(1, &sampler_);
        program_ = sampler_ = 0;
    }

    const char *name() const override { return "gpu-convert"; }
    state_set touched_state() const override { return scope::convert; }

private:
    void build_program();

    const GladGLContext &gl_;
    fill_params params_;
    source_binding source_;
    GLuint program_ = 0, sampler_ = 0;
    GLint level_location_ = -1;
};

void convert_filler::build_program()
{
    const glr_format_info &f = *params_.format;
    // P010 (2 planes) keeps a sample's bits high in its 16; planar formats keep them low.
    int shift = f.bytes_per_sample == 2 && f.planes == 2 ? 16 - f.bit_depth : 0;
    std::string source = format("#version 430\n#define GROUP_W %d\n#define GROUP_H %d\n#define BITS %d\n"
                                "#define PLANES %d\n#define CHROMA_444 %d\n#define SITING_LEFT %d\n#define SHIFT %d\n",
                                group_w, group_h, f.bit_depth, f.planes, f.log2_chroma_w == 0 ? 1 : 0,
                                params_.color.chroma == GLR_CHROMA_LEFT ? 1 : 0, shift) +
                         shader_body;
    std::string log;
    GLuint shader = compile_shader(gl_, GL_COMPUTE_SHADER, source, log);
    if (shader)
        program_ = link_program(gl_, {shader}, log);
    if (!program_) {
        delete_gl_objects();
        fail(GLR_ERROR_INTERNAL, "glr_ring_create: the %s conversion shader does not build: %s", f.name, log.c_str());
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
    check_errors(gl_, "glr_ring_create: setting up the conversion pass");
}

} // namespace

std::unique_ptr<slot_filler> make_convert_filler(const functions &fns, const fill_params &params)
{
    return std::make_unique<convert_filler>(fns, params);
}

} // namespace glr::gl
