// glr_scene as a Shadertoy renderer: every standard input read back from the pixels, image
// and cube map channels, buffers with feedback in Shadertoy's order, and errors that name
// the pass, the channel, the file and the author's line.
#include "support/gl_test.hpp"

#include <gtest/gtest.h>

#include <array>
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <string>
#include <vector>

namespace {

bool contains(const std::string &text, const std::string &part) { return text.find(part) != std::string::npos; }

// Renders and reads the scene back; rows bottom first (GL's order), RGBA.
std::vector<uint8_t> render(glr_scene *scene, const glr_scene_inputs &inputs, int w, int h)
{
    EXPECT_EQ(glr_scene_render(scene, &inputs), 0) << glr_last_error();
    std::vector<uint8_t> pixels(static_cast<size_t>(w) * static_cast<size_t>(h) * 4);
    EXPECT_EQ(glr_scene_read_pixels(scene, GLR_FORMAT_RGBA8, pixels.data(), w * 4), 0) << glr_last_error();
    return pixels;
}

class shadertoy_test : public glr_test::gl_test {};

// Column i shows input value i times 4, as a 24-bit integer over R, G, B: exact in 8 bits.
const char *inputs_probe = R"(float probe(int i) {
    if (i < 3) return iResolution[i];
    if (i == 3) return iTime;
    if (i == 4) return iTimeDelta;
    if (i == 5) return iFrameRate;
    if (i == 6) return float(iFrame);
    if (i < 11) return iChannelTime[i - 7];
    if (i < 19) return iChannelResolution[(i - 11) / 2][(i - 11) % 2];
    if (i < 23) return iMouse[i - 19];
    if (i < 27) return iDate[i - 23];
    if (i == 27) return iSampleRate;
    if (i == 28) return float(HW_PERFORMANCE);
    if (i == 29) return texture(iChannel3, vec3(1.0, 0.0, 0.0)).r * 255.0; // samplerCube
    if (i == 30) return texture(iChannel1, vec2(0.5)).r;                   // keyboard: keys up
    return -1.0;
}
void mainImage(out vec4 c, in vec2 p) {
    int n = int(round(probe(int(p.x)) * 4.0));
    c = vec4(float(n & 255), float((n >> 8) & 255), float((n >> 16) & 255), 255.0) / 255.0;
}
)";

TEST_F(shadertoy_test, every_standard_input_reaches_the_shader)
{
    const int w = 32, h = 2;
    glr_scene_params p{};
    p.width = w;
    p.height = h;
    p.source = inputs_probe;
    p.channels[0].kind = GLR_CHANNEL_TEXTURE;
    p.channels[1].kind = GLR_CHANNEL_KEYBOARD;
    p.channels[2] = {GLR_CHANNEL_BUFFER, 0, GLR_FILTER_DEFAULT, GLR_WRAP_DEFAULT, GLR_VFLIP_DEFAULT};
    p.channels[3].kind = GLR_CHANNEL_CUBEMAP;
    p.buffers[0].source = "void mainImage(out vec4 c, in vec2 p) { c = vec4(1.0); }";
    glr_scene *scene = glr_scene_create(nullptr, &p);
    ASSERT_NE(scene, nullptr) << glr_last_error();

    std::vector<uint8_t> image(3 * 2 * 4, 9);
    glr_image picture{3, 2, 4, image.data(), 12, 2.25};
    ASSERT_EQ(glr_scene_set_channel_image(scene, GLR_SCENE_IMAGE_PASS, 0, &picture), 0) << glr_last_error();
    std::vector<uint8_t> face(4 * 4 * 4, 0);
    std::array<glr_image, 6> faces;
    faces.fill({4, 4, 4, face.data(), 16, 4.5});
    std::vector<uint8_t> red(4 * 4 * 4, 0);
    for (size_t i = 0; i < red.size(); i += 4)
        red[i] = 200;
    faces[0].data = red.data(); // +X
    ASSERT_EQ(glr_scene_set_channel_cubemap(scene, GLR_SCENE_IMAGE_PASS, 3, faces.data()), 0) << glr_last_error();

    glr_scene_inputs in{};
    in.frame = 7;
    in.time = 1.5;
    in.time_delta = 0.25;
    in.frame_rate = 24;
    const float mouse[4] = {10, 20, 30, 40}, date[4] = {2026, 10, 22, 3600.5f};
    std::copy(mouse, mouse + 4, in.mouse);
    std::copy(date, date + 4, in.date);
    in.sample_rate = 48000;
    std::vector<uint8_t> px = render(scene, in, w, h);
    // iChannelTime: each upload's media time; 0 for the keyboard and buffers.
    const double expected[] = {w, h, 1, 1.5, 0.25, 24, 7, 2.25, 0, 0, 4.5,
                               3, 2, 256, 3, w, h, 4, 4, // iChannelResolution
                               10, 20, 30, 40, 2026, 10, 22, 3600.5, 48000, 1, 200, 0};
    for (int i = 0; i < static_cast<int>(std::size(expected)); i++) {
        const uint8_t *c = &px[static_cast<size_t>(i) * 4];
        long got = c[0] | c[1] << 8 | c[2] << 16;
        EXPECT_EQ(got, static_cast<long>(expected[i] * 4)) << "input " << i;
    }

    // Unset inputs take Shadertoy's defaults: iFrameRate from iTimeDelta, 44100 Hz.
    in.frame_rate = 0;
    in.sample_rate = 0;
    px = render(scene, in, w, h);
    EXPECT_EQ(px[5 * 4] | px[5 * 4 + 1] << 8, 4 * 4);
    EXPECT_EQ(px[27 * 4] | px[27 * 4 + 1] << 8 | px[27 * 4 + 2] << 16, 44100 * 4);
    glr_scene_destroy(&scene);
}

// A channel image sampled with nearest filtering at the scene's own size: the image again,
// upright with Shadertoy's vflip, upside down without.
// Every way pixels reach a channel lands them exactly: staged through the unpack buffers
// or straight from memory, rows stored top down (padded) or bottom up (negative stride),
// with and without vflip, upload after upload (more than the staging buffers, so they are
// reused once the GL is done with them).
TEST_F(shadertoy_test, image_channel_is_pixel_exact_and_vflip_turns_it)
{
    const int w = 7, h = 5, padded = w * 4 + 12;
    std::vector<uint8_t> memory(static_cast<size_t>(padded) * h);
    for (glr_channel_upload upload : {GLR_UPLOAD_STAGED, GLR_UPLOAD_DIRECT})
        for (glr_channel_vflip vflip : {GLR_VFLIP_DEFAULT, GLR_VFLIP_OFF})
            for (bool bottom_up : {false, true}) {
                glr_scene_params p{};
                p.width = w;
                p.height = h;
                p.source = "void mainImage(out vec4 c, in vec2 p) { c = texture(iChannel0, p / iResolution.xy); }";
                p.channels[0] = {GLR_CHANNEL_TEXTURE, 0, GLR_FILTER_NEAREST, GLR_WRAP_CLAMP, vflip};
                p.upload = upload;
                glr_scene *scene = glr_scene_create(nullptr, &p);
                ASSERT_NE(scene, nullptr) << glr_last_error();
                for (int round = 0; round < 5; round++) {
                    // Row r of the image: at r * padded in memory, or counted from the end.
                    auto at = [&](int r, int x, int k) -> uint8_t & {
                        int row = bottom_up ? h - 1 - r : r;
                        return memory[static_cast<size_t>(row * padded + x * 4 + k)];
                    };
                    for (int r = 0; r < h; r++)
                        for (int x = 0; x < w; x++)
                            for (int k = 0; k < 4; k++)
                                at(r, x, k) = static_cast<uint8_t>((r * 31 + x * 7 + k * 3 + round * 50) % 251);
                    glr_image picture{w, h, 4, &at(0, 0, 0), bottom_up ? -padded : padded, 0.0};
                    ASSERT_EQ(glr_scene_set_channel_image(scene, GLR_SCENE_IMAGE_PASS, 0, &picture), 0)
                        << glr_last_error();
                    std::vector<uint8_t> px = render(scene, {}, w, h); // bottom row first
                    for (int y = 0; y < h; y++) {
                        int image_row = vflip == GLR_VFLIP_OFF ? y : h - 1 - y;
                        for (int x = 0; x < w; x++)
                            for (int k = 0; k < 3; k++) // the Image pass writes alpha 1
                                ASSERT_EQ(px[static_cast<size_t>((y * w + x) * 4 + k)], at(image_row, x, k))
                                    << "upload " << upload << " vflip " << vflip << " bottom up " << bottom_up
                                    << " round " << round << " at " << x << "," << y;
                    }
                }
                glr_scene_destroy(&scene);
            }
}

// A stride shorter than a row either way is refused with words, as is an unknown upload.
TEST_F(shadertoy_test, bad_strides_and_upload_kinds_are_refused)
{
    glr_scene_params p{};
    p.width = p.height = 4;
    p.channels[0] = {GLR_CHANNEL_TEXTURE, 0, GLR_FILTER_DEFAULT, GLR_WRAP_DEFAULT, GLR_VFLIP_DEFAULT};
    p.upload = static_cast<glr_channel_upload>(7);
    EXPECT_EQ(glr_scene_create(nullptr, &p), nullptr);
    EXPECT_NE(std::string(glr_last_error()).find("unknown channel upload 7"), std::string::npos) << glr_last_error();
    p.upload = GLR_UPLOAD_STAGED;
    glr_scene *scene = glr_scene_create(nullptr, &p);
    ASSERT_NE(scene, nullptr) << glr_last_error();
    std::vector<uint8_t> pixels(64);
    for (ptrdiff_t stride : {ptrdiff_t{8}, ptrdiff_t{-8}, ptrdiff_t{17}}) {
        glr_image picture{4, 2, 4, pixels.data() + 32, stride, 0.0};
        EXPECT_EQ(glr_scene_set_channel_image(scene, GLR_SCENE_IMAGE_PASS, 0, &picture), -EINVAL) << stride;
        EXPECT_NE(std::string(glr_last_error()).find("stride " + std::to_string(stride)), std::string::npos)
            << glr_last_error();
    }
    glr_scene_destroy(&scene);
}

// The sound texture's layout: one red sample per texel, row 0 the spectrum, row 1 the wave.
TEST_F(shadertoy_test, one_component_image_lands_row_zero_first_without_vflip)
{
    std::vector<uint8_t> sound(512 * 2);
    for (int x = 0; x < 512; x++) {
        sound[static_cast<size_t>(x)] = static_cast<uint8_t>(x / 2);
        sound[static_cast<size_t>(512 + x)] = static_cast<uint8_t>(255 - x / 2);
    }
    glr_scene_params p{};
    p.width = 512;
    p.height = 2;
    p.source = "void mainImage(out vec4 c, in vec2 p) { c = texelFetch(iChannel0, ivec2(p), 0); }";
    p.channels[0] = {GLR_CHANNEL_TEXTURE, 0, GLR_FILTER_LINEAR, GLR_WRAP_CLAMP, GLR_VFLIP_OFF};
    glr_scene *scene = glr_scene_create(nullptr, &p);
    ASSERT_NE(scene, nullptr) << glr_last_error();
    glr_image texture{512, 2, 1, sound.data(), 512, 0.0};
    ASSERT_EQ(glr_scene_set_channel_image(scene, GLR_SCENE_IMAGE_PASS, 0, &texture), 0) << glr_last_error();
    std::vector<uint8_t> px = render(scene, {}, 512, 2);
    for (size_t i = 0; i < sound.size(); i++) {
        ASSERT_EQ(px[i * 4], sound[i]) << i;
        ASSERT_EQ(px[i * 4 + 1], 0) << i; // R8: no green
    }
    glr_scene_destroy(&scene);
}

TEST_F(shadertoy_test, cube_map_faces_are_where_their_directions_point)
{
    const std::array<std::array<uint8_t, 3>, 6> colours{{{255, 0, 0}, {0, 255, 0}, {0, 0, 255},
                                                         {255, 255, 0}, {0, 255, 255}, {255, 0, 255}}};
    std::array<std::vector<uint8_t>, 6> pixels;
    std::array<glr_image, 6> faces{};
    for (size_t f = 0; f < 6; f++) {
        for (int i = 0; i < 8 * 8; i++)
            pixels[f].insert(pixels[f].end(), {colours[f][0], colours[f][1], colours[f][2], 255});
        faces[f] = {8, 8, 4, pixels[f].data(), 32, 0.0};
    }
    glr_scene_params p{};
    p.width = 6;
    p.height = 1;
    p.source = R"(void mainImage(out vec4 c, in vec2 p) {
        vec3 d[6] = vec3[6](vec3(1, 0, 0), vec3(-1, 0, 0), vec3(0, 1, 0), vec3(0, -1, 0), vec3(0, 0, 1), vec3(0, 0, -1));
        c = texture(iChannel2, d[int(p.x)]);
    })";
    p.channels[2] = {GLR_CHANNEL_CUBEMAP, 0, GLR_FILTER_NEAREST, GLR_WRAP_DEFAULT, GLR_VFLIP_DEFAULT};
    glr_scene *scene = glr_scene_create(nullptr, &p);
    ASSERT_NE(scene, nullptr) << glr_last_error();
    ASSERT_EQ(glr_scene_set_channel_cubemap(scene, GLR_SCENE_IMAGE_PASS, 2, faces.data()), 0) << glr_last_error();
    std::vector<uint8_t> px = render(scene, {}, 6, 1);
    for (size_t f = 0; f < 6; f++)
        for (size_t k = 0; k < 3; k++)
            EXPECT_EQ(px[f * 4 + k], colours[f][k]) << "face " << f;
    glr_scene_destroy(&scene);
}

glr_channel buffer_channel(int buffer) { return {GLR_CHANNEL_BUFFER, buffer, GLR_FILTER_NEAREST, GLR_WRAP_CLAMP, GLR_VFLIP_DEFAULT}; }

TEST_F(shadertoy_test, a_feedback_buffer_counts_frames)
{
    glr_scene_params p{};
    p.width = 4;
    p.height = 3;
    p.common_source = "float count(sampler2D s, vec2 p) { return texelFetch(s, ivec2(p), 0).r; }";
    p.buffers[0].source = "void mainImage(out vec4 c, in vec2 p) { c = vec4(count(iChannel0, p) + 1.0); }";
    p.buffers[0].channels[0] = buffer_channel(0); // itself: the previous frame
    p.source = "void mainImage(out vec4 c, in vec2 p) { c = vec4(count(iChannel1, p) / 255.0); }";
    p.channels[1] = buffer_channel(0);
    glr_scene *scene = glr_scene_create(nullptr, &p);
    ASSERT_NE(scene, nullptr) << glr_last_error();
    for (int n = 1; n <= 300; n++) { // past 255: the buffer is float, not 8-bit
        glr_scene_inputs in{};
        in.frame = n - 1;
        std::vector<uint8_t> px = render(scene, in, 4, 3);
        int expected = n > 255 ? 255 : n;
        for (size_t i = 0; i < px.size(); i += 4)
            ASSERT_EQ(px[i], expected) << "frame " << n;
    }
    glr_scene_destroy(&scene);
}

TEST_F(shadertoy_test, buffers_render_in_order_a_b_c_d_then_image)
{
    // Each buffer adds one to the one before it this frame; C also keeps what D held the
    // frame before (D renders after C), and D passes that on.
    glr_scene_params p{};
    p.width = 2;
    p.height = 2;
    p.buffers[0].source = "void mainImage(out vec4 c, in vec2 p) { c = vec4(float(iFrame)); }";
    p.buffers[1].source = "void mainImage(out vec4 c, in vec2 p) { c = texelFetch(iChannel0, ivec2(p), 0) + 1.0; }";
    p.buffers[1].channels[0] = buffer_channel(0);
    p.buffers[2].source = R"(void mainImage(out vec4 c, in vec2 p) {
        c = vec4(texelFetch(iChannel0, ivec2(p), 0).r + 1.0, texelFetch(iChannel1, ivec2(p), 0).r, 0, 0);
    })";
    p.buffers[2].channels[0] = buffer_channel(1);
    p.buffers[2].channels[1] = buffer_channel(3);
    p.buffers[3].source = "void mainImage(out vec4 c, in vec2 p) { vec4 v = texelFetch(iChannel0, ivec2(p), 0); c = vec4(v.r + 1.0, v.g, 0, 0); }";
    p.buffers[3].channels[0] = buffer_channel(2);
    p.source = "void mainImage(out vec4 c, in vec2 p) { c = texelFetch(iChannel3, ivec2(p), 0) / 255.0; }";
    p.channels[3] = buffer_channel(3);
    glr_scene *scene = glr_scene_create(nullptr, &p);
    ASSERT_NE(scene, nullptr) << glr_last_error();
    for (int frame = 0; frame < 5; frame++) {
        glr_scene_inputs in{};
        in.frame = frame;
        std::vector<uint8_t> px = render(scene, in, 2, 2);
        EXPECT_EQ(px[0], frame + 3) << "frame " << frame;                   // A, B, C, D this frame
        EXPECT_EQ(px[1], frame == 0 ? 0 : frame + 2) << "frame " << frame; // D of the frame before
    }
    glr_scene_destroy(&scene);
}

// WebGL 2's GLSL as Shadertoy compiles it: GLSL ES 3.00's packing built-ins, which desktop
// GLSL 3.30 lacks, and iGlobalTime, iTime's name before 2017.
TEST_F(shadertoy_test, webgl2_s_packing_built_ins_and_old_names_work)
{
    glr_scene_params p{};
    p.width = 9;
    p.height = 1;
    p.source = R"(void mainImage(out vec4 c, in vec2 f) {
    uint h = packHalf2x16(vec2(0.25, -2.0));    // 0xc0003400
    vec2 back = unpackHalf2x16(h);
    uint u = packUnorm2x16(vec2(1.0, 0.0));     // 0x0000ffff
    uint s = packSnorm2x16(vec2(-1.0, 1.0));    // 0x7fff8001
    vec2 us = unpackSnorm2x16(s), uu = unpackUnorm2x16(u);
    int x = int(f.x);
    float v = x == 0 ? float((h >> 8) & 255u) : x == 1 ? float(h >> 24) : x == 2 ? back.x * 100.0
            : x == 3 ? -back.y * 50.0 : x == 4 ? float(u & 255u) : x == 5 ? float(s >> 24)
            : x == 6 ? (us.x + 2.0) * 50.0 : x == 7 ? uu.x * 200.0 : iGlobalTime * 10.0;
    c = vec4(v / 255.0, 0.0, 0.0, 1.0);
})";
    glr_scene *scene = glr_scene_create(nullptr, &p);
    ASSERT_NE(scene, nullptr) << glr_last_error();
    glr_scene_inputs inputs{};
    inputs.time = 4.2f;
    std::vector<uint8_t> pixels = render(scene, inputs, 9, 1);
    const int expected[9] = {0x34, 0xc0, 25, 100, 255, 0x7f, 50, 200, 42};
    for (int x = 0; x < 9; x++)
        EXPECT_EQ(pixels[static_cast<size_t>(x) * 4], expected[x]) << "column " << x;
    glr_scene_destroy(&scene);
}

// A Sound pass renders mainSound(samp, time) for every sample, as the same formula on the
// CPU gives it within float precision, identically twice, from any first sample; and
// Shadertoy's older mainSound(time) too.
TEST_F(shadertoy_test, a_sound_pass_renders_the_formula_s_samples)
{
    glr_scene_params p{};
    p.width = 8;
    p.height = 8;
    p.source = "void mainImage(out vec4 c, in vec2 f) { c = vec4(1.0); }";
    p.common_source = "const float TAU = 6.2831853;\n";
    p.sound_source = "vec2 mainSound(int samp, float time) {\n"
                     "    return vec2(0.5 * sin(TAU * 440.0 * time), float(samp % 100) / 100.0 - 0.5);\n}\n";
    glr_scene *scene = glr_scene_create(nullptr, &p);
    ASSERT_NE(scene, nullptr) << glr_last_error();
    const int rate = 48000, count = 300000; // more than one 512 x 512 block
    std::vector<int16_t> a(2 * count), b(2 * count), later(2 * 1000);
    ASSERT_EQ(glr_scene_render_sound(scene, rate, 0, count, a.data()), 0) << glr_last_error();
    ASSERT_EQ(glr_scene_render_sound(scene, rate, 0, count, b.data()), 0) << glr_last_error();
    EXPECT_EQ(a, b) << "two renders give the same samples";
    int worst_sine = 0, worst_ramp = 0;
    for (int i = 0; i < count; i++) {
        // The time as the pass computes it: its block's, plus its place there, in float.
        const int block = 512 * 512;
        float t = static_cast<float>(static_cast<double>(i / block * block) / rate) +
                  static_cast<float>(i % block) / static_cast<float>(rate);
        float phase = (6.2831853f * 440.0f) * t; // in float, as the shader multiplies
        int left = static_cast<int>(std::lround(0.5 * std::sin(static_cast<double>(phase)) * 32767.5 - 0.5));
        int right = static_cast<int>(std::lround(((i % 100) / 100.0 - 0.5) * 32767.5 - 0.5));
        worst_sine = std::max(worst_sine, std::abs(a[2 * static_cast<size_t>(i)] - left));
        worst_ramp = std::max(worst_ramp, std::abs(a[2 * static_cast<size_t>(i) + 1] - right));
    }
    // GLSL leaves sin's precision to the GPU: NVIDIA's is off by 0.002 at 17,000 radians
    // (66 here); a sample's time off by one sample would be off by thousands.
    EXPECT_LE(worst_sine, 256) << "the sine at each sample's time, within the GPU's float sine";
    EXPECT_LE(worst_ramp, 2) << "the sample numbers (a step of the ramp is 74 units or more)";
    ASSERT_EQ(glr_scene_render_sound(scene, rate, 250000, 1000, later.data()), 0) << glr_last_error();
    EXPECT_TRUE(std::equal(later.begin(), later.end(), a.begin() + 2 * 250000))
        << "samples 250000.. rendered from there are a whole render's";
    glr_scene_destroy(&scene);

    p.sound_source = "vec2 mainSound(float time) { return vec2(time, -time); }\n";
    scene = glr_scene_create(nullptr, &p);
    ASSERT_NE(scene, nullptr) << glr_last_error();
    std::vector<int16_t> old(2 * 10);
    ASSERT_EQ(glr_scene_render_sound(scene, 10, 0, 10, old.data()), 0) << glr_last_error();
    EXPECT_NEAR(old[2 * 5], 16384, 2) << "time 0.5";
    EXPECT_NEAR(old[2 * 5 + 1], -16384, 2);
    glr_scene_destroy(&scene);

    p.sound_source = nullptr;
    scene = glr_scene_create(nullptr, &p);
    ASSERT_NE(scene, nullptr) << glr_last_error();
    EXPECT_EQ(glr_scene_render_sound(scene, rate, 0, 10, old.data()), -EINVAL);
    EXPECT_TRUE(contains(glr_last_error(), "has no Sound pass")) << glr_last_error();
    glr_scene_destroy(&scene);
}

// A shader that fails for what differs from Shadertoy says so under the compiler's error.
TEST_F(shadertoy_test, a_webgl1_shader_s_error_says_what_differs_from_shadertoy)
{
    glr_scene_params p{};
    p.width = 8;
    p.height = 8;
    p.source = "void mainImage(out vec4 c, in vec2 f) {\n    gl_FragColor = texture(iChannel0, f);\n}\n";
    EXPECT_EQ(glr_scene_create(nullptr, &p), nullptr);
    std::string error = glr_last_error();
    size_t first = error.find("gl_FragColor"); // in the compiler's words, which differ from driver to driver
    ASSERT_NE(first, std::string::npos) << error;
    size_t hint = error.find("(a difference from Shadertoy: WebGL 1's names");
    ASSERT_NE(hint, std::string::npos) << error;
    EXPECT_EQ(error.find('\n', first) + 1, hint) << "right under the error it explains: " << error;
    EXPECT_EQ(error.find("a difference from Shadertoy"), error.rfind("a difference from Shadertoy")) << "once";
}

TEST_F(shadertoy_test, errors_name_the_pass_the_channel_the_file_and_the_line)
{
    const char *fine = "void mainImage(out vec4 c, in vec2 p) { c = vec4(helper()); }";
    glr_scene_params p{};
    p.width = 8;
    p.height = 8;
    p.source = fine;
    p.common_source = "float helper() { return 0.5; }\n";
    p.common_name = "common.glsl";
    p.buffers[1].source = "void mainImage(out vec4 c, in vec2 p) {\n    c = vec4(helper());\n    c.x = undefined_thing;\n}\n";
    p.buffers[1].source_name = "bufferB.glsl";
    EXPECT_EQ(glr_scene_create(nullptr, &p), nullptr);
    EXPECT_EQ(glr_last_error_code(), GLR_ERROR_SHADER);
    std::string error = glr_last_error();
    EXPECT_TRUE(contains(error, "Buffer B pass (bufferB.glsl) does not compile:\nbufferB.glsl:3:")) << error;
    EXPECT_TRUE(contains(error, "undefined_thing")) << error;

    // An error in the Common section is located there, and named once per pass that fails.
    p.buffers[1].source = fine;
    p.common_source = "float helper() {\n    return nothing_here;\n}\n";
    EXPECT_EQ(glr_scene_create(nullptr, &p), nullptr);
    error = glr_last_error();
    EXPECT_TRUE(contains(error, "common.glsl:2:")) << error;
    ASSERT_NE(error.find("nothing_here"), std::string::npos) << error;
    EXPECT_EQ(error.find("nothing_here"), error.rfind("nothing_here")) << "named more than once: " << error;

    // A missed overload says so in one line, without the compiler's list of candidates.
    p.common_source = nullptr;
    p.buffers[1] = {};
    p.source = "void mainImage(out vec4 c, in vec2 p) {\n    c = texture(iChannel0, 1.0);\n}\n";
    EXPECT_EQ(glr_scene_create(nullptr, &p), nullptr);
    error = glr_last_error();
    EXPECT_TRUE(contains(error, "Image does not compile:\nImage:2:")) << error;
    EXPECT_FALSE(contains(error, "candidates")) << error;
    EXPECT_LE(std::count(error.begin(), error.end(), '\n'), 2) << error;

    // No mainImage: said of the author's file, not of glreader's main() that calls it.
    p.source = "";
    EXPECT_EQ(glr_scene_create(nullptr, &p), nullptr);
    error = glr_last_error();
    EXPECT_TRUE(contains(error, "Image does not compile:\nImage: ")) << error;
    EXPECT_TRUE(contains(error, "mainImage' (glreader's main() calls mainImage(out vec4 fragColor, in vec2 "
                                "fragCoord); the file is empty)") || // Mesa's words
                contains(error, "mainImage\" (glreader's main() calls mainImage(out vec4 fragColor, in vec2 "
                                "fragCoord); the file is empty)")) // NVIDIA's
        << error;
    p.source = "void mainImage(out vec4 c) { c = vec4(1.0); }\n";
    EXPECT_EQ(glr_scene_create(nullptr, &p), nullptr);
    EXPECT_TRUE(contains(glr_last_error(), "this file defines none of that form")) << glr_last_error();

    // An author's #version line: glreader's own comes first, the author's line counts still.
    p.source = "// written for desktop GL\n#version 450 core\nvoid mainImage(out vec4 c, in vec2 f) {\n"
               "    c = vec4(missing_thing);\n}\n";
    EXPECT_EQ(glr_scene_create(nullptr, &p), nullptr);
    error = glr_last_error();
    EXPECT_TRUE(contains(error, "Image:4:")) << error;
    EXPECT_FALSE(contains(error, "#version")) << error;
    p.source = "#version 330\nvoid mainImage(out vec4 c, in vec2 f) { c = vec4(1.0); }\n";
    glr_scene *versioned = glr_scene_create(nullptr, &p);
    EXPECT_NE(versioned, nullptr) << glr_last_error();
    glr_scene_destroy(&versioned);

    // A channel reading a buffer that has no source; an unknown channel kind.
    p.source = fine;
    p.common_source = "float helper() { return 0.5; }\n";
    p.channels[2] = buffer_channel(3);
    EXPECT_EQ(glr_scene_create(nullptr, &p), nullptr);
    EXPECT_EQ(glr_last_error_code(), -EINVAL);
    EXPECT_TRUE(contains(glr_last_error(), "Image iChannel2 reads Buffer D, which has no source")) << glr_last_error();
    p.channels[2] = {};
    p.channels[1].kind = static_cast<glr_channel_kind>(42);
    EXPECT_EQ(glr_scene_create(nullptr, &p), nullptr);
    EXPECT_TRUE(contains(glr_last_error(), "Image iChannel1: unknown channel kind 42")) << glr_last_error();
    p.channels[1] = {};

    // Uploads into a channel that does not exist or is of another kind.
    p.channels[0].kind = GLR_CHANNEL_TEXTURE;
    glr_scene *scene = glr_scene_create(nullptr, &p);
    ASSERT_NE(scene, nullptr) << glr_last_error();
    uint8_t pixel[4] = {1, 2, 3, 4};
    glr_image one{1, 1, 4, pixel, 4, 0.0};
    EXPECT_EQ(glr_scene_set_channel_image(scene, GLR_SCENE_IMAGE_PASS, 4, &one), -EINVAL);
    EXPECT_TRUE(contains(glr_last_error(), "channel 4 is not one of iChannel0..3")) << glr_last_error();
    EXPECT_EQ(glr_scene_set_channel_image(scene, 1, 0, &one), -EINVAL);
    EXPECT_TRUE(contains(glr_last_error(), "Buffer B has no source")) << glr_last_error();
    EXPECT_EQ(glr_scene_set_channel_image(scene, GLR_SCENE_IMAGE_PASS, 1, &one), -EINVAL);
    EXPECT_TRUE(contains(glr_last_error(), "Image iChannel1 is an empty channel")) << glr_last_error();
    glr_image bad{1, 1, 3, pixel, 4, 0.0};
    EXPECT_EQ(glr_scene_set_channel_image(scene, GLR_SCENE_IMAGE_PASS, 0, &bad), -EINVAL);
    EXPECT_TRUE(contains(glr_last_error(), "3 components")) << glr_last_error();
    glr_scene_destroy(&scene);

    // A missing pass file names the pass and the file.
    p.channels[0] = {};
    p.buffers[0].source_path = "/nonexistent/bufferA.glsl";
    EXPECT_EQ(glr_scene_create(nullptr, &p), nullptr);
    EXPECT_EQ(glr_last_error_code(), -ENOENT);
    EXPECT_TRUE(contains(glr_last_error(), "cannot read the Buffer A pass's shader /nonexistent/bufferA.glsl"))
        << glr_last_error();
}

} // namespace
