#include "format.hpp"

#include "enum_value.hpp"
#include "error.hpp"

#include <cerrno>
#include <cstring>

namespace {

// The only place that knows what a format is.
constexpr glr_format_info formats[] = {
    {GLR_FORMAT_RGBA8, "rgba", 1, 0, 0, 0, 1, 8, {4, 0, 0, 0}},
    {GLR_FORMAT_BGRA8, "bgra", 1, 0, 0, 0, 1, 8, {4, 0, 0, 0}},
    {GLR_FORMAT_RGB8, "rgb24", 1, 0, 0, 0, 1, 8, {3, 0, 0, 0}},
    {GLR_FORMAT_NV12, "nv12", 2, 1, 1, 1, 1, 8, {1, 2, 0, 0}},
    {GLR_FORMAT_I420, "yuv420p", 3, 1, 1, 1, 1, 8, {1, 1, 1, 0}},
    {GLR_FORMAT_P010, "p010le", 2, 1, 1, 1, 2, 10, {1, 2, 0, 0}},
    {GLR_FORMAT_YUV444, "yuv444p", 3, 1, 0, 0, 1, 8, {1, 1, 1, 0}},
    {GLR_FORMAT_YUVA420, "yuva420p", 4, 1, 1, 1, 1, 8, {1, 1, 1, 1}},
    {GLR_FORMAT_YUVA444, "yuva444p", 4, 1, 0, 0, 1, 8, {1, 1, 1, 1}},
    {GLR_FORMAT_YUVA444P10, "yuva444p10le", 4, 1, 0, 0, 2, 10, {1, 1, 1, 1}},
};

const glr_format_info *find(int format)
{
    for (const glr_format_info &f : formats)
        if (f.format == format)
            return &f;
    return nullptr;
}

constexpr size_t align64(size_t n) { return (n + 63) & ~size_t{63}; }

// Luma (plane 0) and alpha (plane 3) are full size; chroma is subsampled, rounded up.
int plane_width(const glr_format_info &f, int plane, int width)
{
    return plane == 0 || plane == 3 ? width : -((-width) >> f.log2_chroma_w);
}

int plane_height(const glr_format_info &f, int plane, int height)
{
    return plane == 0 || plane == 3 ? height : -((-height) >> f.log2_chroma_h);
}

} // namespace

namespace glr {

const glr_format_info &format_info(int format, const char *call)
{
    const glr_format_info *f = find(format);
    if (!f)
        fail(-EINVAL, "%s: unknown format %d (glreader has rgba, bgra, rgb24, nv12, yuv420p, p010le, yuv444p, "
                      "yuva420p, yuva444p, yuva444p10le)",
             call, format);
    return *f;
}

frame_layout layout_of(const glr_format_info &f, int width, int height)
{
    frame_layout out;
    out.count = f.planes;
    for (int p = 0; p < f.planes; p++) {
        frame_layout::plane &plane = out.planes[p];
        size_t row_bytes = glr_format_plane_row_bytes(f.format, p, width);
        plane.row_bytes = row_bytes;
        plane.stride = f.yuv ? align64(row_bytes) : row_bytes;
        plane.rows = plane_height(f, p, height);
        plane.offset = out.bytes;
        out.bytes += f.yuv ? align64(plane.stride * static_cast<size_t>(plane.rows))
                           : plane.stride * static_cast<size_t>(plane.rows);
    }
    return out;
}

void check_frame_size(const glr_format_info &f, int width, int height, const char *call)
{
    int step_w = 1 << f.log2_chroma_w, step_h = 1 << f.log2_chroma_h;
    if (f.yuv && (width % step_w || height % step_h))
        fail(-EINVAL,
             "%s: %dx%d cannot be converted to %s, whose chroma planes need a width that is a multiple of %d and "
             "a height that is a multiple of %d (render at %dx%d, or pad)",
             call, width, height, f.name, step_w, step_h, width + width % step_w, height + height % step_h);
}

glr_color resolved_color(const glr_format_info &f, const glr_color &in, const char *call)
{
    int matrix = enum_value(in.matrix), range = enum_value(in.range), chroma = enum_value(in.chroma);
    if (matrix != 0 && matrix != GLR_MATRIX_BT709 && matrix != GLR_MATRIX_BT601 && matrix != GLR_MATRIX_BT2020_NCL)
        fail(-EINVAL, "%s: matrix %d is not one glreader converts with (BT.709 = 1, BT.601 = 6, BT.2020 = 9)",
             call, matrix);
    if (range < 0 || range > GLR_RANGE_FULL)
        fail(-EINVAL, "%s: range %d is neither limited (1) nor full (2)", call, range);
    if (chroma < 0 || chroma > GLR_CHROMA_CENTER)
        fail(-EINVAL, "%s: chroma siting %d is neither left (1) nor centre (2)", call, chroma);
    if (in.primaries < 0 || in.primaries > 255 || in.transfer < 0 || in.transfer > 255)
        fail(-EINVAL, "%s: primaries %d / transfer %d are not H.273 code points (0..255)", call,
             in.primaries, in.transfer);

    glr_color out{};
    glr_matrix tags_from = matrix ? static_cast<glr_matrix>(matrix) : GLR_MATRIX_BT709;
    out.primaries = in.primaries ? in.primaries : tags_from == GLR_MATRIX_BT601 ? 6 : tags_from == GLR_MATRIX_BT2020_NCL ? 9 : 1;
    out.transfer = in.transfer ? in.transfer : tags_from == GLR_MATRIX_BT601 ? 6 : tags_from == GLR_MATRIX_BT2020_NCL ? 14 : 1;
    if (!f.yuv) {
        out.matrix = GLR_MATRIX_AUTO; // RGB
        out.range = GLR_RANGE_FULL;
        out.chroma = GLR_CHROMA_AUTO;
        return out;
    }
    out.matrix = tags_from;
    out.range = range ? static_cast<glr_range>(range) : GLR_RANGE_LIMITED;
    bool subsampled = f.log2_chroma_w || f.log2_chroma_h;
    out.chroma = !subsampled ? GLR_CHROMA_AUTO : chroma ? static_cast<glr_chroma_siting>(chroma) : GLR_CHROMA_LEFT;
    return out;
}

void matrix_constants(glr_matrix matrix, double &kr, double &kb)
{
    switch (matrix) {
    case GLR_MATRIX_BT601: kr = 0.299, kb = 0.114; return;
    case GLR_MATRIX_BT2020_NCL: kr = 0.2627, kb = 0.0593; return;
    default: kr = 0.2126, kb = 0.0722; return;
    }
}

} // namespace glr

extern "C" {

const glr_format_info *glr_format_get_info(glr_format format) { return find(glr::enum_value(format)); }

glr_format glr_format_from_name(const char *name)
{
    for (const glr_format_info &f : formats)
        if (name && std::strcmp(f.name, name) == 0)
            return f.format;
    return static_cast<glr_format>(0);
}

const char *glr_format_name(glr_format format)
{
    const glr_format_info *f = find(glr::enum_value(format));
    return f ? f->name : nullptr;
}

size_t glr_format_plane_row_bytes(glr_format format, int plane, int width)
{
    const glr_format_info *f = find(glr::enum_value(format));
    if (!f || plane < 0 || plane >= f->planes || width <= 0)
        return 0;
    return static_cast<size_t>(plane_width(*f, plane, width)) *
           static_cast<size_t>(f->samples_per_pixel[plane] * f->bytes_per_sample);
}

size_t glr_format_frame_bytes(glr_format format, int width, int height)
{
    const glr_format_info *f = find(glr::enum_value(format));
    size_t bytes = 0;
    for (int p = 0; f && p < f->planes; p++)
        bytes += glr_format_plane_row_bytes(format, p, width) * static_cast<size_t>(glr_format_plane_rows(format, p, height));
    return bytes;
}

int glr_color_resolve(glr_format format, const glr_color *requested, glr_color *out)
{
    glr_color none{};
    try {
        const glr_format_info &f = glr::format_info(glr::enum_value(format), "glr_color_resolve");
        glr_color resolved = glr::resolved_color(f, requested ? *requested : none, "glr_color_resolve");
        if (out)
            *out = resolved;
        return 0;
    } catch (const glr::failure &e) {
        glr_priv_report_error(nullptr, e.code(), e.what(), 0);
        return e.code();
    }
}

int glr_format_plane_rows(glr_format format, int plane, int height)
{
    const glr_format_info *f = find(glr::enum_value(format));
    if (!f || plane < 0 || plane >= f->planes || height <= 0)
        return 0;
    return plane_height(*f, plane, height);
}

} // extern "C"
