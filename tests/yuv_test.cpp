// YUV formats converted on the GPU before readback: every format, matrix, range and chroma
// siting against a reference computed in double precision (support/yuv_reference), on
// test images chosen to catch what goes wrong with colour (bars, full-range gradients,
// saturated primaries, noise, a rendered scene), and the ring's contracts for them.
#include "support/gl_test.hpp"
#include "support/pattern_scene.hpp"
#include "support/yuv_reference.hpp"

#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

using glr_test::max_difference;
using glr_test::pattern_scene;
using glr_test::planes_of;
using glr_test::reference_yuv;
using glr_test::ring_params;
using glr_test::yuv_formats;
using glr_test::yuv_planes;

const glr_matrix matrices[] = {GLR_MATRIX_BT709, GLR_MATRIX_BT601, GLR_MATRIX_BT2020_NCL};
const glr_range ranges[] = {GLR_RANGE_LIMITED, GLR_RANGE_FULL};
const glr_chroma_siting sitings[] = {GLR_CHROMA_LEFT, GLR_CHROMA_CENTER};

// Test images, top row first, 4 bytes a pixel.
struct image {
    std::string name;
    int width, height;
    std::vector<uint8_t> rgba;
};

image make_image(const std::string &name, int w, int h)
{
    image im{name, w, h, std::vector<uint8_t>(static_cast<size_t>(w * h * 4), 255)};
    std::mt19937 random(1234);
    const uint8_t bars[8][3] = {{191, 191, 191}, {191, 191, 0}, {0, 191, 191}, {0, 191, 0},
                                {191, 0, 191},   {191, 0, 0},   {0, 0, 191},   {16, 16, 16}};
    const uint8_t primaries[8][3] = {{255, 0, 0},   {0, 255, 0},   {0, 0, 255},   {0, 255, 255},
                                     {255, 0, 255}, {255, 255, 0}, {0, 0, 0},     {255, 255, 255}};
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            uint8_t *p = &im.rgba[static_cast<size_t>((y * w + x) * 4)];
            if (name == "bars") {
                for (int c = 0; c < 3; c++)
                    p[c] = bars[x * 8 / w][c];
            } else if (name == "gradients") { // every level 0..255 across, and down
                p[0] = static_cast<uint8_t>(x * 255 / (w - 1));
                p[1] = static_cast<uint8_t>(y * 255 / (h - 1));
                p[2] = static_cast<uint8_t>(255 - x * 255 / (w - 1));
            } else if (name == "primaries") { // blocks of 4x4, so chroma has flat and edge samples
                for (int c = 0; c < 3; c++)
                    p[c] = primaries[(x / 4 + y / 4) % 8][c];
            } else { // noise
                for (int c = 0; c < 3; c++)
                    p[c] = static_cast<uint8_t>(random() & 255);
            }
            // Alpha of its own, which formats with alpha keep exactly and the others ignore.
            p[3] = name == "noise" ? static_cast<uint8_t>(random() & 255) : static_cast<uint8_t>((x * 7 + y * 31) & 255);
        }
    return im;
}

class yuv_test : public glr_test::scene_test {
protected:
    // A 2D texture holding im (GL's rows are bottom first).
    unsigned upload(const image &im)
    {
        const GladGLContext &gl = scene().gl();
        unsigned texture = 0;
        gl.GenTextures(1, &texture);
        gl.BindTexture(GL_TEXTURE_2D, texture);
        std::vector<uint8_t> gl_rows(im.rgba.size());
        size_t row = static_cast<size_t>(im.width * 4);
        for (int y = 0; y < im.height; y++)
            std::copy_n(&im.rgba[static_cast<size_t>(y) * row], row,
                        &gl_rows[static_cast<size_t>(im.height - 1 - y) * row]);
        gl.PixelStorei(GL_UNPACK_ALIGNMENT, 1);
        gl.TexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, im.width, im.height, 0, GL_RGBA, GL_UNSIGNED_BYTE, gl_rows.data());
        return keep(texture);
    }

    // im converted by a ring of that format and colour, read back.
    yuv_planes convert(const image &im, glr_format format, const glr_color &color, glr_flip flip = GLR_FLIP_STRIDE,
                       unsigned flags = 0)
    {
        glr_ring_params p = ring_params(im.width, im.height, format, flip, 2, flags);
        p.color = color;
        glr::ring ring(p);
        EXPECT_TRUE(ring.try_capture(glr::texture_source(upload(im)), 0));
        auto f = ring.acquire(UINT64_MAX);
        if (!f) {
            ADD_FAILURE() << "no frame to acquire after the capture";
            return {};
        }
        return planes_of(f->c_frame());
    }

};

glr_color color_of(glr_matrix m, glr_range r, glr_chroma_siting s)
{
    glr_color c{};
    c.matrix = m;
    c.range = r;
    c.chroma = s;
    return c;
}

TEST_F(yuv_test, every_format_matrix_range_and_siting_matches_the_reference)
{
    for (const char *name : {"noise", "bars"}) {
        image im = make_image(name, 48, 20);
        for (glr_format format : yuv_formats)
            for (glr_matrix m : matrices)
                for (glr_range r : ranges)
                    for (glr_chroma_siting s : sitings) {
                        glr_color want = color_of(m, r, s);
                        glr_color_resolve(format, &want, &want); // 4:4:4 has no siting
                        SCOPED_TRACE(std::string(name) + " " + glr_format_name(format) + " matrix " +
                                     std::to_string(m) + " range " + std::to_string(r) + " siting " +
                                     std::to_string(s));
                        auto d = max_difference(convert(im, format, want), reference_yuv(im.rgba, 48, 20, format, want));
                        EXPECT_LE(d.luma, 1) << d.where;
                        EXPECT_LE(d.chroma, 2) << d.where;
                        EXPECT_EQ(d.alpha, 0) << d.where;
                    }
    }
}

TEST_F(yuv_test, every_test_image_converts_within_one_code_value)
{
    for (const char *name : {"bars", "gradients", "primaries", "noise"}) {
        image im = make_image(name, 256, 16);
        for (glr_format format : yuv_formats) {
            SCOPED_TRACE(std::string(name) + " " + glr_format_name(format));
            glr_color defaults{};
            glr_color_resolve(format, nullptr, &defaults);
            auto d = max_difference(convert(im, format, {}), reference_yuv(im.rgba, 256, 16, format, defaults));
            EXPECT_LE(d.luma, 1) << d.where;
            EXPECT_LE(d.chroma, 2) << d.where;
            EXPECT_EQ(d.alpha, 0) << d.where;
        }
    }
}

TEST_F(yuv_test, a_flipped_plane_a_wrong_siting_or_matrix_would_fail)
{
    // The comparisons above can fail: the same output against a reference of the image
    // upside down, with the other siting, or with the other matrix misses by far more.
    image im = make_image("noise", 48, 20), flipped = im;
    for (int y = 0; y < 20; y++)
        std::copy_n(&im.rgba[static_cast<size_t>(y * 48 * 4)], 48 * 4, &flipped.rgba[static_cast<size_t>((19 - y) * 48 * 4)]);
    glr_color left = color_of(GLR_MATRIX_BT709, GLR_RANGE_LIMITED, GLR_CHROMA_LEFT);
    glr_color centre = color_of(GLR_MATRIX_BT709, GLR_RANGE_LIMITED, GLR_CHROMA_CENTER);
    glr_color bt601 = color_of(GLR_MATRIX_BT601, GLR_RANGE_LIMITED, GLR_CHROMA_LEFT);
    yuv_planes out = convert(im, GLR_FORMAT_NV12, left);
    EXPECT_LE(max_difference(out, reference_yuv(im.rgba, 48, 20, GLR_FORMAT_NV12, left)).chroma, 2);
    EXPECT_GT(max_difference(out, reference_yuv(flipped.rgba, 48, 20, GLR_FORMAT_NV12, left)).luma, 20);
    EXPECT_GT(max_difference(out, reference_yuv(im.rgba, 48, 20, GLR_FORMAT_NV12, centre)).chroma, 5);
    EXPECT_GT(max_difference(out, reference_yuv(im.rgba, 48, 20, GLR_FORMAT_NV12, bt601)).luma, 5);
    // GLR_FLIP_NONE keeps GL's order: the flipped image's reference then.
    yuv_planes gl_order = convert(im, GLR_FORMAT_I420, left, GLR_FLIP_NONE);
    EXPECT_LE(max_difference(gl_order, reference_yuv(flipped.rgba, 48, 20, GLR_FORMAT_I420, left)).luma, 1);
}

TEST_F(yuv_test, a_rendered_scene_converts_from_every_kind_of_source)
{
    // The pattern as rendered: from its texture (sampled in place), from a multisampled
    // renderbuffer and texture (copied, resolved), on the fallback readback paths.
    const int w = 64, h = 48;
    image im{"scene", w, h, glr_test::pattern_image(7, w, h)};
    glr_color color{};
    glr_color_resolve(GLR_FORMAT_NV12, nullptr, &color);
    yuv_planes want = reference_yuv(im.rgba, w, h, GLR_FORMAT_NV12, color);
    struct source_case {
        const char *name;
        glr_test::scene_options options;
        unsigned flags;
    };
    glr_test::scene_options plain, msaa, msaa_texture, second_attachment;
    msaa.samples = 4;
    msaa_texture.samples = 4;
    msaa_texture.multisample_texture = true;
    second_attachment.attachment = 2;
    for (const source_case &c : {source_case{"texture attachment", plain, 0},
                                 source_case{"second attachment", second_attachment, 0},
                                 source_case{"multisampled renderbuffer", msaa, 0},
                                 source_case{"multisampled texture", msaa_texture, 0},
                                 source_case{"map per frame", plain, GLR_RING_NO_PERSISTENT_MAP},
                                 source_case{"no fences", plain, GLR_RING_NO_FENCES}}) {
        SCOPED_TRACE(c.name);
        pattern_scene drawn(c.options);
        drawn.draw(7);
        glr::ring ring(ring_params(w, h, GLR_FORMAT_NV12, GLR_FLIP_STRIDE, 2, c.flags));
        ASSERT_TRUE(ring.try_capture(drawn.source(), 7));
        auto f = ring.acquire(UINT64_MAX);
        ASSERT_TRUE(f);
        auto d = max_difference(planes_of(f->c_frame()), want);
        EXPECT_LE(d.luma, 1) << d.where;
        EXPECT_LE(d.chroma, 2) << d.where;
    }
}

TEST_F(yuv_test, frames_describe_their_planes_and_colour)
{
    glr_ring_params p = ring_params(200, 10, GLR_FORMAT_P010);
    p.color.matrix = GLR_MATRIX_BT2020_NCL;
    glr::ring ring(p);
    pattern_scene s({200, 10});
    s.draw(0);
    ASSERT_TRUE(ring.try_capture(glr::framebuffer_source(s.fbo()), 0));
    auto f = ring.acquire(UINT64_MAX);
    ASSERT_TRUE(f);
    const glr_frame &c = f->c_frame();
    EXPECT_EQ(c.format, GLR_FORMAT_P010);
    EXPECT_EQ(c.color.matrix, GLR_MATRIX_BT2020_NCL);
    EXPECT_EQ(c.color.range, GLR_RANGE_LIMITED);
    EXPECT_EQ(c.color.chroma, GLR_CHROMA_LEFT);
    EXPECT_EQ(c.color.primaries, 9); // bt2020
    EXPECT_EQ(c.color.transfer, 14); // bt2020-10
    // Top first, positive strides at multiples of 64 bytes, planes in one slot.
    EXPECT_EQ(c.planes[0].stride, 448); // 200 samples of 2 bytes, rounded up to 64
    EXPECT_EQ(c.planes[1].stride, 448);
    EXPECT_EQ(c.planes[1].data, c.planes[0].data + 448 * 10);
    EXPECT_EQ(c.planes[2].data, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(c.planes[1].data) % 64, 0u);
    glr_ring_stats stats = ring.stats();
    EXPECT_STREQ(stats.fill, "gpu-convert");
    EXPECT_EQ(stats.frame_bytes, 448u * 15);
}

TEST_F(yuv_test, sizes_420_cannot_hold_are_refused_with_words)
{
    for (glr_format format : {GLR_FORMAT_NV12, GLR_FORMAT_I420, GLR_FORMAT_P010, GLR_FORMAT_YUVA420}) {
        glr_ring_params p = ring_params(33, 20, format);
        EXPECT_EQ(glr_ring_create(nullptr, &p), nullptr);
        EXPECT_NE(std::string(glr_last_error()).find("multiple of 2"), std::string::npos) << glr_last_error();
        p = ring_params(32, 21, format);
        EXPECT_EQ(glr_ring_create(nullptr, &p), nullptr);
    }
    // 4:4:4 takes any size, odd rows and all.
    image im = make_image("noise", 37, 11);
    glr_color color{};
    glr_color_resolve(GLR_FORMAT_YUV444, nullptr, &color);
    auto d = max_difference(convert(im, GLR_FORMAT_YUV444, {}), reference_yuv(im.rgba, 37, 11, GLR_FORMAT_YUV444, color));
    EXPECT_LE(d.luma, 1) << d.where;
    EXPECT_LE(d.chroma, 1) << d.where;
    for (glr_format format : {GLR_FORMAT_YUVA444, GLR_FORMAT_YUVA444P10}) {
        glr_color_resolve(format, nullptr, &color);
        d = max_difference(convert(im, format, {}), reference_yuv(im.rgba, 37, 11, format, color));
        EXPECT_LE(d.luma, 1) << glr_format_name(format) << " " << d.where;
        EXPECT_LE(d.chroma, 1) << glr_format_name(format) << " " << d.where;
        EXPECT_EQ(d.alpha, 0) << glr_format_name(format) << " " << d.where;
    }
    glr_ring_params bad = ring_params(32, 32, GLR_FORMAT_NV12);
    int not_a_matrix = 5;
    std::memcpy(&bad.color.matrix, &not_a_matrix, sizeof not_a_matrix);
    EXPECT_EQ(glr_ring_create(nullptr, &bad), nullptr);
    EXPECT_NE(std::string(glr_last_error()).find("matrix 5"), std::string::npos) << glr_last_error();
}

TEST_F(yuv_test, every_frame_once_in_order_and_never_overwritten_while_leased)
{
    // Flat grey frames whose level says their number; leases kept for a while and given
    // back out of order, on every depth.
    pattern_scene &s = scene();
    const GladGLContext &gl = s.gl();
    const int frames = glr_test::frames_per_case(40);
    for (glr_format format : yuv_formats)
        for (int depth : {1, 2, 3, 5}) {
            SCOPED_TRACE(std::string(glr_format_name(format)) + " depth " + std::to_string(depth));
            glr::ring ring(ring_params(64, 48, format, GLR_FLIP_STRIDE, depth));
            std::vector<glr::frame> held;
            int next = 0;
            auto level = [](int n) { return (n * 37 + 11) % 256; };
            auto holds_its_frame = [&](const glr::frame &f) {
                int n = static_cast<int>(f.sequence());
                image flat{"flat", 64, 48, std::vector<uint8_t>(64 * 48 * 4, static_cast<uint8_t>(level(n)))};
                auto d = max_difference(planes_of(f.c_frame()), reference_yuv(flat.rgba, 64, 48, format, f.color()));
                EXPECT_LE(d.luma, 1) << "frame " << n << ": " << d.where;
            };
            auto sink = [&](glr::frame &&f) {
                EXPECT_EQ(f.pts(), next);
                EXPECT_EQ(static_cast<int>(f.sequence()), next) << "out of order";
                holds_its_frame(f);
                next++;
                held.push_back(std::move(f));
                if (static_cast<int>(held.size()) >= depth) {
                    // Frames captured since must not have touched the ones still held.
                    for (const glr::frame &k : held)
                        holds_its_frame(k);
                    while (!held.empty()) // give back the newest first
                        held.pop_back();
                }
            };
            for (int n = 0; n < frames; n++) {
                gl.BindFramebuffer(GL_FRAMEBUFFER, s.fbo());
                gl.ClearColor(level(n) / 255.0f, level(n) / 255.0f, level(n) / 255.0f, 1.0f);
                gl.Clear(GL_COLOR_BUFFER_BIT);
                ring.capture(s.source(), n, sink);
            }
            ring.drain(sink);
            held.clear();
            EXPECT_EQ(next, frames);
            EXPECT_EQ(ring.stats().frames_leased_now, 0u);
        }
}

} // namespace
