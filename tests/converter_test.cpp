// glr_converter: the ring's conversion pass writing into plane textures. Each plane, read
// back from its texture, must hold exactly the bytes the ring reads back for the same
// source, format and colour (the same shader); and the converter checks what it is given.
#include "glreader/convert.h"

#include "support/gl_test.hpp"
#include "support/pattern_scene.hpp"

#include <cstring>
#include <string>
#include <vector>

namespace {

struct converter_deleter {
    void operator()(glr_converter *c) const { glr_converter_destroy(&c); }
};
using converter_ptr = std::unique_ptr<glr_converter, converter_deleter>;

class converter_test : public glr_test::scene_test {
protected:
    const GladGLContext &gl() { return scene().gl(); }

    // The plane textures conv asks for, each filled with a byte no conversion writes
    // everywhere (so a plane left unwritten shows).
    std::vector<unsigned> plane_textures(const glr_converter *conv, const glr_format_info &f, int h)
    {
        std::vector<unsigned> planes(4, 0);
        for (int p = 0; p < f.planes; p++) {
            GLenum internal = glr_converter_plane_format(conv, p);
            int w = glr_converter_plane_width(conv, p), rows = glr_format_plane_rows(f.format, p, h);
            std::vector<uint8_t> fill(static_cast<size_t>(w) * rows * 4, 0xA5);
            bool pairs = internal == GL_RG8 || internal == GL_RG16;
            bool wide = internal == GL_R16 || internal == GL_RG16;
            planes[static_cast<size_t>(p)] = texture(internal, w, rows, pairs ? GL_RG : GL_RED,
                                                     wide ? GL_UNSIGNED_SHORT : GL_UNSIGNED_BYTE, fill.data());
        }
        return planes;
    }

    // Plane p of texture t, rows as stored (row 0 first), row_bytes each.
    std::vector<uint8_t> read_plane(unsigned t, GLenum internal, size_t row_bytes, int rows)
    {
        bool pairs = internal == GL_RG8 || internal == GL_RG16;
        bool wide = internal == GL_R16 || internal == GL_RG16;
        std::vector<uint8_t> bytes(row_bytes * static_cast<size_t>(rows));
        gl().PixelStorei(GL_PACK_ALIGNMENT, 1);
        gl().GetTextureImage(t, 0, pairs ? GL_RG : GL_RED, wide ? GL_UNSIGNED_SHORT : GL_UNSIGNED_BYTE,
                             static_cast<GLsizei>(bytes.size()), bytes.data());
        return bytes;
    }
};

glr_converter_params converter_params(int w, int h, glr_format format, const glr_color &color = {})
{
    glr_converter_params p{};
    p.width = w;
    p.height = h;
    p.format = format;
    p.color = color;
    return p;
}

// Every format at sizes of whole blocks, of none (an odd multiple of 16 across, rows not a
// multiple of 4), and tiny; BT.601 full range with centre siting besides the default.
TEST_F(converter_test, every_plane_equals_the_ring_s_bytes)
{
    const glr_color full601 = glr_test::full_range_bt601_centre();
    struct size {
        int w, h;
    };
    for (size s : {size{64, 32}, size{176, 144}, size{208, 118}, size{2, 2}})
        for (glr_format format : glr_test::yuv_formats)
            for (const glr_color &color : {glr_color{}, full601}) {
                const glr_format_info &f = *glr_format_get_info(format);
                SCOPED_TRACE(std::string(f.name) + " " + std::to_string(s.w) + "x" + std::to_string(s.h) +
                             (color.matrix ? " bt601 full centre" : " default colour"));
                glr_source source = glr::texture_source(noise_texture(s.w, s.h, static_cast<unsigned>(s.w + format)));
                glr_converter_params params = converter_params(s.w, s.h, format, color);
                converter_ptr conv(glr_converter_create(nullptr, &params));
                ASSERT_TRUE(conv) << glr_last_error();
                std::vector<unsigned> planes = plane_textures(conv.get(), f, s.h);
                ASSERT_EQ(glr_converter_convert(conv.get(), &source, planes.data()), 0) << glr_last_error();
                std::vector<std::vector<uint8_t>> want = ring_planes(source, s.w, s.h, format, color);
                ASSERT_EQ(static_cast<int>(want.size()), f.planes);
                for (int p = 0; p < f.planes; p++) {
                    int rows = glr_format_plane_rows(format, p, s.h);
                    size_t row_bytes = glr_format_plane_row_bytes(format, p, s.w);
                    std::vector<uint8_t> got =
                        read_plane(planes[static_cast<size_t>(p)], glr_converter_plane_format(conv.get(), p), row_bytes, rows);
                    EXPECT_EQ(got, want[static_cast<size_t>(p)]) << "plane " << p;
                }
            }
}

// The converter's own textures (for CUDA to register): one per plane, of its format and
// exact size, written by a conversion as the caller's are; deleted and zeroed after.
TEST_F(converter_test, textures_it_makes_fit_each_plane_and_take_the_conversion)
{
    const int w = 208, h = 118;
    for (glr_format format : {GLR_FORMAT_NV12, GLR_FORMAT_I420, GLR_FORMAT_P010, GLR_FORMAT_YUV444}) {
        const glr_format_info &f = *glr_format_get_info(format);
        SCOPED_TRACE(f.name);
        glr_converter_params params = converter_params(w, h, format);
        converter_ptr conv(glr_converter_create(nullptr, &params));
        ASSERT_TRUE(conv) << glr_last_error();
        unsigned made[4] = {};
        ASSERT_EQ(glr_converter_make_textures(conv.get(), made), 0) << glr_last_error();
        for (int p = 0; p < 4; p++) {
            if (p >= f.planes) {
                EXPECT_EQ(made[p], 0u) << "a texture for plane " << p << ", which " << f.name << " lacks";
                continue;
            }
            GLint internal = 0, width = 0, rows = 0;
            gl().GetTextureLevelParameteriv(made[p], 0, GL_TEXTURE_INTERNAL_FORMAT, &internal);
            gl().GetTextureLevelParameteriv(made[p], 0, GL_TEXTURE_WIDTH, &width);
            gl().GetTextureLevelParameteriv(made[p], 0, GL_TEXTURE_HEIGHT, &rows);
            EXPECT_EQ(static_cast<unsigned>(internal), glr_converter_plane_format(conv.get(), p)) << "plane " << p;
            EXPECT_EQ(width, glr_converter_plane_width(conv.get(), p)) << "plane " << p;
            EXPECT_EQ(rows, glr_format_plane_rows(format, p, h)) << "plane " << p;
        }
        glr_source source = glr::texture_source(noise_texture(w, h, 3));
        ASSERT_EQ(glr_converter_convert(conv.get(), &source, made), 0) << glr_last_error();
        std::vector<std::vector<uint8_t>> want = ring_planes(source, w, h, format, {});
        for (int p = 0; p < f.planes; p++)
            EXPECT_EQ(read_plane(made[p], glr_converter_plane_format(conv.get(), p),
                                 glr_format_plane_row_bytes(format, p, w), glr_format_plane_rows(format, p, h)),
                      want[static_cast<size_t>(p)])
                << "plane " << p;
        unsigned names[4];
        std::copy(std::begin(made), std::end(made), names);
        glr_converter_delete_textures(conv.get(), made);
        EXPECT_EQ(made[0], 0u);
        for (int p = 0; p < f.planes; p++)
            EXPECT_FALSE(gl().IsTexture(names[p])) << "plane " << p << "'s texture is left";
    }
}

// GL's order on request: row 0 is then the frame's bottom row.
TEST_F(converter_test, gl_order_keeps_the_bottom_row_first)
{
    const int w = 32, h = 16;
    glr_source source = glr::texture_source(noise_texture(w, h, 7));
    glr_converter_params p = converter_params(w, h, GLR_FORMAT_YUV444);
    converter_ptr top(glr_converter_create(nullptr, &p));
    p.flip = GLR_FLIP_NONE;
    converter_ptr bottom(glr_converter_create(nullptr, &p));
    ASSERT_TRUE(top && bottom);
    const glr_format_info &f = *glr_format_get_info(GLR_FORMAT_YUV444);
    std::vector<unsigned> a = plane_textures(top.get(), f, h), b = plane_textures(bottom.get(), f, h);
    ASSERT_EQ(glr_converter_convert(top.get(), &source, a.data()), 0);
    ASSERT_EQ(glr_converter_convert(bottom.get(), &source, b.data()), 0);
    std::vector<uint8_t> down = read_plane(a[0], GL_R8, w, h), up = read_plane(b[0], GL_R8, w, h);
    for (int r = 0; r < h; r++)
        EXPECT_EQ(0, std::memcmp(&down[static_cast<size_t>(r * w)], &up[static_cast<size_t>((h - 1 - r) * w)], w))
            << "row " << r;
}

// What the converter is given is checked, with words, and the host's GL state is kept.
TEST_F(converter_test, bad_params_and_textures_are_refused_with_words)
{
    gl();
    glr_converter_params p = converter_params(33, 20, GLR_FORMAT_NV12);
    EXPECT_EQ(glr_converter_create(nullptr, &p), nullptr);
    EXPECT_NE(std::string(glr_last_error()).find("render at 34x20"), std::string::npos) << glr_last_error();
    p = converter_params(32, 20, GLR_FORMAT_BGRA8);
    EXPECT_EQ(glr_converter_create(nullptr, &p), nullptr);
    EXPECT_NE(std::string(glr_last_error()).find("not a YUV format"), std::string::npos) << glr_last_error();

    p = converter_params(32, 20, GLR_FORMAT_P010);
    converter_ptr conv(glr_converter_create(nullptr, &p));
    ASSERT_TRUE(conv);
    EXPECT_EQ(glr_converter_plane_format(conv.get(), 0), static_cast<unsigned>(GL_R16));
    EXPECT_EQ(glr_converter_plane_format(conv.get(), 1), static_cast<unsigned>(GL_RG16));
    EXPECT_EQ(glr_converter_plane_width(conv.get(), 1), 16);
    EXPECT_EQ(glr_converter_plane_format(conv.get(), 2), 0u);
    glr_source source = glr::texture_source(noise_texture(32, 20, 1));
    unsigned eight_bit[4] = {texture(GL_R8, 32, 20), texture(GL_RG8, 16, 10), 0, 0};
    EXPECT_EQ(glr_converter_convert(conv.get(), &source, eight_bit), -EINVAL);
    EXPECT_NE(std::string(glr_last_error()).find("internal format 0x822a"), std::string::npos) << glr_last_error();
    unsigned small[4] = {texture(GL_R16, 32, 20), texture(GL_RG16, 16, 8), 0, 0};
    EXPECT_EQ(glr_converter_convert(conv.get(), &source, small), -EINVAL);
    EXPECT_NE(std::string(glr_last_error()).find("16x8, smaller than plane 1"), std::string::npos) << glr_last_error();
    unsigned none[4] = {texture(GL_R16, 32, 20), 12345, 0, 0};
    EXPECT_EQ(glr_converter_convert(conv.get(), &source, none), -EINVAL);
    EXPECT_NE(std::string(glr_last_error()).find("is no texture"), std::string::npos) << glr_last_error();

    // A host's image unit, program and texture binding survive a conversion.
    unsigned host = texture(GL_R8, 4, 4), planes[4] = {texture(GL_R16, 32, 20), texture(GL_RG16, 16, 10), 0, 0};
    gl().BindImageTexture(1, host, 0, GL_FALSE, 0, GL_READ_ONLY, GL_R8);
    gl().ActiveTexture(GL_TEXTURE0);
    gl().BindTexture(GL_TEXTURE_2D, host);
    ASSERT_EQ(glr_converter_convert(conv.get(), &source, planes), 0) << glr_last_error();
    GLint name = 0, access = 0, format = 0, bound = 0;
    gl().GetIntegeri_v(GL_IMAGE_BINDING_NAME, 1, &name);
    gl().GetIntegeri_v(GL_IMAGE_BINDING_ACCESS, 1, &access);
    gl().GetIntegeri_v(GL_IMAGE_BINDING_FORMAT, 1, &format);
    gl().GetIntegerv(GL_TEXTURE_BINDING_2D, &bound);
    EXPECT_EQ(static_cast<unsigned>(name), host);
    EXPECT_EQ(access, GL_READ_ONLY);
    EXPECT_EQ(format, GL_R8);
    EXPECT_EQ(static_cast<unsigned>(bound), host);
    EXPECT_EQ(gl().GetError(), static_cast<GLenum>(GL_NO_ERROR));
}

} // namespace
