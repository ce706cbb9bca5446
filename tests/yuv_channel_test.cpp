// Y'CbCr pictures in a scene's image channel (what glshader gives a decoded video): the
// scene converts them to RGB on the GPU as it uploads them. Every format, matrix, range
// and chroma siting against the same conversion computed in double precision on the CPU
// (within one code value), a round trip through the readback ring's forward conversion
// (the original RGB comes back), and the picture's orientation.
#include "support/gl_test.hpp"
#include "support/yuv_reference.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

namespace {

using glr_test::yuv_planes;

const glr_format yuv_formats[] = {GLR_FORMAT_NV12, GLR_FORMAT_I420, GLR_FORMAT_P010, GLR_FORMAT_YUV444};
const glr_matrix matrices[] = {GLR_MATRIX_BT709, GLR_MATRIX_BT601, GLR_MATRIX_BT2020_NCL};
const glr_range ranges[] = {GLR_RANGE_LIMITED, GLR_RANGE_FULL};
const glr_chroma_siting sitings[] = {GLR_CHROMA_LEFT, GLR_CHROMA_CENTER};

// Shows iChannel0's texels one for one.
const char *const show_channel =
    "void mainImage(out vec4 c, in vec2 p) { c = texelFetch(iChannel0, ivec2(p), 0); }\n";

// A picture, top row first, 4 bytes a pixel: gradients with a sharp block, so chroma has
// both slopes and edges to be interpolated.
std::vector<uint8_t> test_picture(int w, int h)
{
    std::vector<uint8_t> rgba(static_cast<size_t>(w * h * 4), 255);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            uint8_t *p = &rgba[static_cast<size_t>((y * w + x) * 4)];
            bool block = x >= w / 4 && x < w / 2 && y >= h / 4 && y < h / 2;
            p[0] = block ? 230 : static_cast<uint8_t>(x * 255 / (w - 1));
            p[1] = block ? 20 : static_cast<uint8_t>(y * 255 / (h - 1));
            p[2] = block ? 40 : static_cast<uint8_t>(255 - (x + y) * 255 / (w + h - 2));
        }
    return rgba;
}

// The planes as the format stores them in memory (interleaved, 10 bits high in 16), with
// rows `pad` bytes longer than their pixels, as decoders align them.
struct stored_planes {
    std::vector<uint8_t> bytes[3];
    ptrdiff_t stride[3] = {};
};

stored_planes store(const yuv_planes &yuv, glr_format format, size_t pad)
{
    const glr_format_info &f = *glr_format_get_info(format);
    stored_planes out;
    auto put = [&](std::vector<uint8_t> &to, size_t at, int value) {
        if (f.bytes_per_sample == 2) {
            to[at] = static_cast<uint8_t>((value << 6) & 0xff);
            to[at + 1] = static_cast<uint8_t>((value << 6) >> 8);
        } else {
            to[at] = static_cast<uint8_t>(value);
        }
    };
    for (int p = 0; p < f.planes; p++) {
        size_t row = glr_format_plane_row_bytes(format, p, yuv.width) + pad;
        int rows = glr_format_plane_rows(format, p, yuv.height);
        out.stride[p] = static_cast<ptrdiff_t>(row);
        out.bytes[p].assign(row * static_cast<size_t>(rows), 0xee);
        int width = p == 0 ? yuv.width : yuv.chroma_width, b = f.bytes_per_sample;
        for (int y = 0; y < rows; y++)
            for (int x = 0; x < width; x++) {
                size_t at = static_cast<size_t>(y) * row;
                size_t i = static_cast<size_t>(y * width + x);
                if (p == 0)
                    put(out.bytes[0], at + static_cast<size_t>(x * b), yuv.y[i]);
                else if (f.planes == 2) { // U and V interleaved
                    put(out.bytes[1], at + static_cast<size_t>(x * 2 * b), yuv.u[i]);
                    put(out.bytes[1], at + static_cast<size_t>((x * 2 + 1) * b), yuv.v[i]);
                } else
                    put(out.bytes[p], at + static_cast<size_t>(x * b), (p == 1 ? yuv.u : yuv.v)[i]);
            }
    }
    return out;
}

// The conversion the scene promises, in double precision: chroma interpolated linearly at
// its siting (left: sample i at luma x = 2i; centre: at 2i + 0.5; both between rows), the
// matrix and range of color, rounded to 8 bits. Top row first, 4 bytes a pixel.
std::vector<uint8_t> reference_rgb(const yuv_planes &yuv, glr_format format, const glr_color &color)
{
    const glr_format_info &f = *glr_format_get_info(format);
    double kr = color.matrix == GLR_MATRIX_BT601 ? 0.299 : color.matrix == GLR_MATRIX_BT2020_NCL ? 0.2627 : 0.2126;
    double kb = color.matrix == GLR_MATRIX_BT601 ? 0.114 : color.matrix == GLR_MATRIX_BT2020_NCL ? 0.0593 : 0.0722;
    double kg = 1 - kr - kb, step = (1 << f.bit_depth) / 256.0, max = (1 << f.bit_depth) - 1;
    bool limited = color.range == GLR_RANGE_LIMITED;
    double ys = limited ? 219 * step : max, cs = limited ? 224 * step : max, yb = limited ? 16 * step : 0;
    bool sub = f.log2_chroma_w == 1;
    auto chroma = [&](const std::vector<int> &plane, int x, int y) {
        if (!sub)
            return static_cast<double>(plane[static_cast<size_t>(y * yuv.chroma_width + x)]);
        double cx = (x - (color.chroma == GLR_CHROMA_CENTER ? 0.5 : 0.0)) * 0.5, cy = (y - 0.5) * 0.5;
        int x0 = static_cast<int>(std::floor(cx)), y0 = static_cast<int>(std::floor(cy));
        double fx = cx - x0, fy = cy - y0;
        auto at = [&](int i, int j) {
            i = std::clamp(i, 0, yuv.chroma_width - 1);
            j = std::clamp(j, 0, yuv.chroma_height - 1);
            return static_cast<double>(plane[static_cast<size_t>(j * yuv.chroma_width + i)]);
        };
        double top = at(x0, y0) * (1 - fx) + at(x0 + 1, y0) * fx;
        double bottom = at(x0, y0 + 1) * (1 - fx) + at(x0 + 1, y0 + 1) * fx;
        return top * (1 - fy) + bottom * fy;
    };
    std::vector<uint8_t> rgba(static_cast<size_t>(yuv.width * yuv.height * 4), 255);
    for (int y = 0; y < yuv.height; y++)
        for (int x = 0; x < yuv.width; x++) {
            double l = (yuv.y[static_cast<size_t>(y * yuv.width + x)] - yb) / ys;
            double cb = (chroma(yuv.u, x, y) - 128 * step) / cs, cr = (chroma(yuv.v, x, y) - 128 * step) / cs;
            double r = l + 2 * (1 - kr) * cr, b = l + 2 * (1 - kb) * cb, g = (l - kr * r - kb * b) / kg;
            uint8_t *p = &rgba[static_cast<size_t>((y * yuv.width + x) * 4)];
            for (double v : {r, g, b})
                *p++ = static_cast<uint8_t>(std::lround(std::clamp(v, 0.0, 1.0) * 255));
        }
    return rgba;
}

class yuv_channel_test : public glr_test::gl_test {
protected:
    // The scene's frame after uploading the picture to iChannel0, top row first.
    std::vector<uint8_t> shown(const glr_image &picture)
    {
        glr_scene_params p{};
        p.width = picture.width;
        p.height = picture.height;
        p.source = show_channel;
        p.channels[0] = {GLR_CHANNEL_TEXTURE, 0, GLR_FILTER_NEAREST, GLR_WRAP_CLAMP, GLR_VFLIP_ON};
        glr_scene *scene = glr_scene_create(nullptr, &p);
        EXPECT_NE(scene, nullptr) << glr_last_error();
        size_t row = static_cast<size_t>(picture.width * 4);
        std::vector<uint8_t> gl_rows(row * static_cast<size_t>(picture.height)), rows(gl_rows.size());
        if (!scene)
            return rows;
        EXPECT_EQ(glr_scene_set_channel_image(scene, GLR_SCENE_IMAGE_PASS, 0, &picture), 0) << glr_last_error();
        EXPECT_EQ(glr_scene_draw(scene, 0, 0, 0), 0) << glr_last_error();
        EXPECT_EQ(glr_scene_read_pixels(scene, GLR_FORMAT_RGBA8, gl_rows.data(), static_cast<ptrdiff_t>(row)), 0)
            << glr_last_error();
        glr_scene_destroy(&scene);
        for (int y = 0; y < picture.height; y++) // GL's rows are bottom first
            std::memcpy(&rows[static_cast<size_t>(y) * row], &gl_rows[static_cast<size_t>(picture.height - 1 - y) * row],
                        row);
        return rows;
    }
};

glr_image picture_of(const stored_planes &s, glr_format format, int w, int h, const glr_color &color)
{
    glr_image image{};
    image.width = w;
    image.height = h;
    image.yuv_format = format;
    image.data = s.bytes[0].data();
    image.stride = s.stride[0];
    image.chroma[0] = s.bytes[1].data();
    image.chroma_stride[0] = s.stride[1];
    image.chroma[1] = s.bytes[2].empty() ? nullptr : s.bytes[2].data();
    image.chroma_stride[1] = s.stride[2];
    image.color = color;
    return image;
}

int max_difference(const std::vector<uint8_t> &a, const std::vector<uint8_t> &b, int w, std::string &where)
{
    int worst = 0;
    for (size_t i = 0; i < a.size(); i++)
        if (i % 4 != 3 && std::abs(a[i] - b[i]) > worst) {
            worst = std::abs(a[i] - b[i]);
            size_t pixel = i / 4;
            where = "pixel " + std::to_string(pixel % static_cast<size_t>(w)) + "," +
                    std::to_string(pixel / static_cast<size_t>(w)) + " channel " + std::to_string(i % 4) + ": " +
                    std::to_string(a[i]) + " vs " + std::to_string(b[i]);
        }
    return worst;
}

TEST_F(yuv_channel_test, every_format_matrix_range_and_siting_converts_as_computed_in_double_precision)
{
    const int w = 48, h = 32;
    std::vector<uint8_t> rgba = test_picture(w, h);
    for (glr_format format : yuv_formats)
        for (glr_matrix matrix : matrices)
            for (glr_range range : ranges)
                for (glr_chroma_siting siting : sitings) {
                    glr_color color{matrix, range, 0, 0, siting};
                    SCOPED_TRACE(std::string(glr_format_name(format)) + " matrix " + std::to_string(matrix) +
                                 " range " + std::to_string(range) + " siting " + std::to_string(siting));
                    yuv_planes yuv = glr_test::reference_yuv(rgba, w, h, format, color);
                    stored_planes s = store(yuv, format, 13);
                    std::vector<uint8_t> got = shown(picture_of(s, format, w, h, color));
                    std::string where;
                    EXPECT_LE(max_difference(got, reference_rgb(yuv, format, color), w, where), 1) << where;
                    // The round trip gives the picture back, but for what 4:2:0 blurs at the block's edges.
                    if (format == GLR_FORMAT_YUV444)
                        EXPECT_LE(max_difference(got, rgba, w, where), 3) << where;
                    // Another matrix or siting (where it matters) misses by far more.
                    glr_color wrong = color;
                    wrong.matrix = matrix == GLR_MATRIX_BT709 ? GLR_MATRIX_BT601 : GLR_MATRIX_BT709;
                    EXPECT_GT(max_difference(got, reference_rgb(yuv, format, wrong), w, where), 8);
                }
}

TEST_F(yuv_channel_test, negative_strides_and_the_unflipped_channel_keep_the_picture_upright)
{
    const int w = 16, h = 8;
    std::vector<uint8_t> rgba = test_picture(w, h);
    glr_color color{GLR_MATRIX_BT709, GLR_RANGE_FULL, 0, 0, GLR_CHROMA_LEFT};
    yuv_planes yuv = glr_test::reference_yuv(rgba, w, h, GLR_FORMAT_YUV444, color);
    stored_planes s = store(yuv, GLR_FORMAT_YUV444, 0);
    std::vector<uint8_t> expected = reference_rgb(yuv, GLR_FORMAT_YUV444, color);
    // Rows stored bottom up, as FFmpeg's flipped frames: data points at the top row.
    stored_planes flipped = s;
    for (int p = 0; p < 3; p++) {
        size_t row = static_cast<size_t>(s.stride[p]);
        for (int y = 0; y < h; y++)
            std::memcpy(&flipped.bytes[p][static_cast<size_t>(h - 1 - y) * row], &s.bytes[p][static_cast<size_t>(y) * row],
                        row);
    }
    glr_image picture = picture_of(flipped, GLR_FORMAT_YUV444, w, h, color);
    picture.data += (h - 1) * s.stride[0];
    picture.chroma[0] += (h - 1) * s.stride[1];
    picture.chroma[1] += (h - 1) * s.stride[2];
    picture.stride = -s.stride[0];
    picture.chroma_stride[0] = -s.stride[1];
    picture.chroma_stride[1] = -s.stride[2];
    std::string where;
    EXPECT_LE(max_difference(shown(picture), expected, w, where), 1) << where;
}

TEST_F(yuv_channel_test, bad_pictures_are_refused_with_words)
{
    const int w = 16, h = 8;
    glr_color color{};
    yuv_planes yuv = glr_test::reference_yuv(test_picture(w, h), w, h, GLR_FORMAT_I420, color);
    stored_planes s = store(yuv, GLR_FORMAT_I420, 0);
    glr_scene_params p{};
    p.width = w;
    p.height = h;
    p.source = show_channel;
    p.channels[0] = {GLR_CHANNEL_TEXTURE, 0, GLR_FILTER_NEAREST, GLR_WRAP_CLAMP, GLR_VFLIP_ON};
    glr_scene *scene = glr_scene_create(nullptr, &p);
    ASSERT_NE(scene, nullptr) << glr_last_error();
    struct bad_case {
        std::string what;
        glr_image image;
        const char *words;
    };
    glr_image good = picture_of(s, GLR_FORMAT_I420, w, h, color);
    glr_image odd = good, no_plane = good, short_stride = good, rgb = good;
    odd.width = 15;
    no_plane.chroma[1] = nullptr;
    short_stride.chroma_stride[0] = 3;
    rgb.yuv_format = GLR_FORMAT_RGBA8;
    for (const bad_case &c : {bad_case{"odd", odd, "a yuv420p picture of 15x8 (4:2:0 sizes are even)"},
                              bad_case{"no plane", no_plane, "the yuv420p picture lacks a plane"},
                              bad_case{"short stride", short_stride, "plane 1's stride 3 is less than its row"},
                              bad_case{"rgb", rgb, "is none of nv12, yuv420p, p010le, yuv444p"}}) {
        SCOPED_TRACE(c.what);
        EXPECT_EQ(glr_scene_set_channel_image(scene, GLR_SCENE_IMAGE_PASS, 0, &c.image), -EINVAL);
        EXPECT_NE(std::string(glr_last_error()).find(c.words), std::string::npos) << glr_last_error();
    }
    EXPECT_EQ(glr_scene_set_channel_image(scene, GLR_SCENE_IMAGE_PASS, 0, &good), 0) << glr_last_error();
    glr_scene_destroy(&scene);
}

} // namespace
