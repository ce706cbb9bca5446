// glr_scene: the Shadertoy renderer every sample and the FFmpeg filter use. Its uniforms,
// orientation and pixels through a real ring; its errors with their words.
#include "support/gl_test.hpp"

#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

namespace {

using glr_test::ring_params;

bool contains(const std::string &text, const std::string &part) { return text.find(part) != std::string::npos; }

// Left half: x, iFrame, iResolution.x. Right half: x, iTime * 255, iResolution.y. All
// exact in 8 bits for the values used below.
const char *probe_source = R"(void mainImage(out vec4 c, in vec2 p) {
    float x = float(int(p.x)) / 255.0;
    if (p.x < iResolution.x * 0.5)
        c = vec4(x, float(iFrame & 255) / 255.0, iResolution.x / 255.0, 0.0);
    else
        c = vec4(x, iTime, iResolution.y / 255.0, 0.0);
    if (int(p.y) == 0) c.b = 1.0; // GL's bottom row: must come out last
}
)";

glr_scene_params scene_params(int w, int h, const char *source)
{
    glr_scene_params p{};
    p.width = w;
    p.height = h;
    p.source = source;
    return p;
}

class scene_test : public glr_test::gl_test {};

TEST_F(scene_test, uniforms_and_orientation_follow_shadertoy)
{
    const int w = 40, h = 20;
    glr_scene_params p = scene_params(w, h, probe_source);
    glr_scene *scene = glr_scene_create(nullptr, &p);
    ASSERT_NE(scene, nullptr) << glr_last_error();
    glr::ring ring(ring_params(w, h, GLR_FORMAT_RGBA8, GLR_FLIP_STRIDE, 2));
    ASSERT_EQ(glr_scene_draw(scene, 7, 51.0 / 255.0, 1.0 / 30), 0);
    glr_source source = glr_scene_source(scene);
    ASSERT_TRUE(ring.try_capture(source, 0));
    auto f = ring.acquire(UINT64_MAX);
    ASSERT_TRUE(f);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const uint8_t *px = f->row(y) + x * 4;
            bool left = x < w / 2;
            int blue = y == h - 1 ? 255 : left ? w : h; // the top row of memory is GL's top row
            EXPECT_EQ(px[0], x) << x << "," << y;
            EXPECT_EQ(px[1], left ? 7 : 51) << x << "," << y;
            ASSERT_EQ(px[2], blue) << x << "," << y;
            ASSERT_EQ(px[3], 255) << "alpha is always opaque";
        }
    f->reset();
    glr_scene_destroy(&scene);
    EXPECT_EQ(scene, nullptr);
}

// The two GL calls the readback test makes itself, from the context's loader.
constexpr unsigned gl_pack_alignment = 0x0D05; // GL_PACK_ALIGNMENT
void set_pack_alignment(int value)
{
    reinterpret_cast<void (*)(unsigned, int)>(glr_context_get_proc_address("glPixelStorei"))(gl_pack_alignment, value);
}
int pack_alignment()
{
    int value = 0;
    reinterpret_cast<void (*)(unsigned, int *)>(glr_context_get_proc_address("glGetIntegerv"))(gl_pack_alignment, &value);
    return value;
}

// The synchronous readback gives the ring's bytes, bottom row first, in every format and
// with rows wider than the image; it leaves the caller's pack state alone.
TEST_F(scene_test, read_pixels_matches_the_ring_bottom_row_first)
{
    const int w = 37, h = 11;
    glr_scene_params p = scene_params(w, h, probe_source);
    glr_scene *scene = glr_scene_create(nullptr, &p);
    ASSERT_NE(scene, nullptr) << glr_last_error();
    ASSERT_EQ(glr_scene_draw(scene, 3, 0.5, 1.0 / 30), 0);
    for (glr_format format : {GLR_FORMAT_RGBA8, GLR_FORMAT_BGRA8, GLR_FORMAT_RGB8}) {
        SCOPED_TRACE(glr_format_name(format));
        int bytes = glr_format_get_info(format)->samples_per_pixel[0];
        ptrdiff_t stride = (w + 5) * bytes;
        std::vector<uint8_t> memory(static_cast<size_t>(stride * h), 0xAB);
        set_pack_alignment(8);
        ASSERT_EQ(glr_scene_read_pixels(scene, format, memory.data(), stride), 0) << glr_last_error();
        EXPECT_EQ(pack_alignment(), 8);

        glr::ring ring(ring_params(w, h, format, GLR_FLIP_STRIDE, 2));
        ASSERT_TRUE(ring.try_capture(glr_scene_source(scene), 0));
        auto f = ring.acquire(UINT64_MAX);
        ASSERT_TRUE(f);
        for (int y = 0; y < h; y++) {
            const uint8_t *row = memory.data() + stride * (h - 1 - y);
            ASSERT_EQ(std::memcmp(row, f->row(y), static_cast<size_t>(w * bytes)), 0) << "row " << y;
            EXPECT_EQ(row[w * bytes], 0xAB) << "wrote past the row";
        }
    }
    std::vector<uint8_t> memory(static_cast<size_t>(w * h * 4));
    EXPECT_EQ(glr_scene_read_pixels(scene, GLR_FORMAT_RGBA8, memory.data(), w * 4 - 4), -EINVAL);
    EXPECT_TRUE(contains(glr_last_error(), "stride")) << glr_last_error();
    EXPECT_EQ(glr_scene_read_pixels(scene, GLR_FORMAT_RGBA8, memory.data(), w * 4 + 2), -EINVAL);
    EXPECT_EQ(glr_scene_read_pixels(scene, GLR_FORMAT_RGBA8, nullptr, w * 4), -EINVAL);
    EXPECT_EQ(glr_scene_read_pixels(scene, static_cast<glr_format>(99), memory.data(), w * 4), -EINVAL);
    EXPECT_EQ(glr_scene_read_pixels(scene, GLR_FORMAT_NV12, memory.data(), w * 4), -EINVAL);
    EXPECT_TRUE(contains(glr_last_error(), "RGB formats only")) << glr_last_error();
    EXPECT_EQ(glr_scene_read_pixels(nullptr, GLR_FORMAT_RGBA8, memory.data(), w * 4), -EINVAL);
    glr_scene_destroy(&scene);
}

TEST_F(scene_test, builtin_scene_moves)
{
    glr_scene_params p = scene_params(64, 36, nullptr);
    glr_scene *scene = glr_scene_create(nullptr, &p);
    ASSERT_NE(scene, nullptr) << glr_last_error();
    glr::ring ring(ring_params(64, 36));
    std::vector<std::vector<uint8_t>> frames;
    for (int n = 0; n < 2; n++) {
        ASSERT_EQ(glr_scene_draw(scene, n, n * 0.5, 0.5), 0);
        glr_source source = glr_scene_source(scene);
        ASSERT_TRUE(ring.try_capture(source, n));
        auto f = ring.acquire(UINT64_MAX);
        ASSERT_TRUE(f);
        frames.emplace_back(f->row(0), f->row(0) + 64 * 4);
    }
    EXPECT_NE(frames[0], frames[1]);
    EXPECT_TRUE(contains(glr_scene_builtin_source(), "mainImage"));
    glr_scene_destroy(&scene);
}

TEST_F(scene_test, compile_errors_name_the_source_line_and_column)
{
    glr_scene_params p = scene_params(16, 16, "void mainImage(out vec4 c, in vec2 p) {\n    c = vec4(nope);\n}\n");
    p.source_name = "broken.frag";
    EXPECT_EQ(glr_scene_create(nullptr, &p), nullptr);
    EXPECT_EQ(glr_last_error_code(), GLR_ERROR_SHADER);
    EXPECT_TRUE(contains(glr_last_error(), "Image pass (broken.frag) does not compile:\nbroken.frag:2:")) << glr_last_error();
    EXPECT_TRUE(contains(glr_last_error(), "broken.frag:2:")) << glr_last_error();
    EXPECT_TRUE(contains(glr_last_error(), "nope")) << glr_last_error();

    p.source = "void notMainImage() {}\n";
    EXPECT_EQ(glr_scene_create(nullptr, &p), nullptr);
    EXPECT_EQ(glr_last_error_code(), GLR_ERROR_SHADER);
    EXPECT_TRUE(contains(glr_last_error(), "mainImage")) << glr_last_error();
}

TEST_F(scene_test, shader_files_are_read_and_named)
{
    std::string path = glr_test::scratch_path("scene.frag");
    std::ofstream(path) << "void mainImage(out vec4 c, in vec2 p) {\n\n    c = vec4(oops);\n}\n";
    glr_scene_params p = scene_params(16, 16, nullptr);
    p.source_path = path.c_str();
    EXPECT_EQ(glr_scene_create(nullptr, &p), nullptr);
    EXPECT_TRUE(contains(glr_last_error(), path + ":3:")) << glr_last_error();
    std::remove(path.c_str());
    EXPECT_EQ(glr_scene_create(nullptr, &p), nullptr);
    EXPECT_EQ(glr_last_error_code(), -ENOENT);
    EXPECT_TRUE(contains(glr_last_error(), "cannot read the Image pass's shader " + path + ": No such file or directory"))
        << glr_last_error();
}

TEST_F(scene_test, bad_sizes_and_no_context_are_refused)
{
    glr_scene_params p = scene_params(0, 16, nullptr);
    EXPECT_EQ(glr_scene_create(nullptr, &p), nullptr);
    EXPECT_EQ(glr_last_error_code(), -EINVAL);
    EXPECT_TRUE(contains(glr_last_error(), "size 0x16 is not positive")) << glr_last_error();
    p = scene_params(1 << 20, 16, nullptr);
    EXPECT_EQ(glr_scene_create(nullptr, &p), nullptr);
    EXPECT_TRUE(contains(glr_last_error(), "larger than this driver's limit")) << glr_last_error();

    ctx_->release_current();
    p = scene_params(16, 16, nullptr);
    EXPECT_EQ(glr_scene_create(nullptr, &p), nullptr);
    EXPECT_EQ(glr_last_error_code(), GLR_ERROR_NO_CONTEXT);
    ctx_->make_current();
}

} // namespace
