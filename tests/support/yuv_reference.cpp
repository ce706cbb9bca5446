#include "yuv_reference.hpp"

#include <algorithm>
#include <cmath>

namespace glr_test {

namespace {

int code(double v, int max) { return static_cast<int>(std::clamp(std::floor(v + 0.5), 0.0, double(max))); }

} // namespace

yuv_planes reference_yuv(const std::vector<uint8_t> &rgba, int w, int h, glr_format format, const glr_color &color)
{
    const glr_format_info *f = glr_format_get_info(format);
    double kr = 0.2126, kb = 0.0722;
    if (color.matrix == GLR_MATRIX_BT601)
        kr = 0.299, kb = 0.114;
    else if (color.matrix == GLR_MATRIX_BT2020_NCL)
        kr = 0.2627, kb = 0.0593;
    const double kg = 1 - kr - kb;
    const int bits = f->bit_depth, max = (1 << bits) - 1;
    const double step = (1 << bits) / 256.0, half = 1 << (bits - 1);
    const bool limited = color.range == GLR_RANGE_LIMITED;
    auto rgb = [&](int x, int y, int c) {
        x = std::clamp(x, 0, w - 1);
        y = std::clamp(y, 0, h - 1);
        return rgba[static_cast<size_t>((y * w + x) * 4 + c)] / 255.0;
    };
    auto luma = [&](double r, double g, double b) {
        double yp = kr * r + kg * g + kb * b;
        return code(limited ? 16 * step + 219 * step * yp : max * yp, max);
    };
    auto chroma = [&](double r, double g, double b, bool red) {
        double yp = kr * r + kg * g + kb * b;
        double c = red ? (r - yp) / (2 * (1 - kr)) : (b - yp) / (2 * (1 - kb));
        return code(half + (limited ? 224 * step : max) * c, max);
    };

    yuv_planes out;
    out.width = w;
    out.height = h;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            out.y.push_back(luma(rgb(x, y, 0), rgb(x, y, 1), rgb(x, y, 2)));
    const int sw = f->log2_chroma_w, sh = f->log2_chroma_h;
    out.chroma_width = (w + (1 << sw) - 1) >> sw;
    out.chroma_height = (h + (1 << sh) - 1) >> sh;
    for (int j = 0; j < out.chroma_height; j++)
        for (int i = 0; i < out.chroma_width; i++) {
            double sum[3] = {};
            if (!sw) {
                for (int c = 0; c < 3; c++)
                    sum[c] = rgb(i, j, c);
            } else if (color.chroma == GLR_CHROMA_LEFT) {
                // co-sited with luma column 2i across ([1 2 1]), between rows 2j and 2j+1
                for (int c = 0; c < 3; c++)
                    for (int r = 0; r < 2; r++)
                        sum[c] += (rgb(2 * i - 1, 2 * j + r, c) + 2 * rgb(2 * i, 2 * j + r, c) +
                                   rgb(2 * i + 1, 2 * j + r, c)) / 8;
            } else {
                for (int c = 0; c < 3; c++)
                    for (int r = 0; r < 2; r++)
                        sum[c] += (rgb(2 * i, 2 * j + r, c) + rgb(2 * i + 1, 2 * j + r, c)) / 4;
            }
            out.u.push_back(chroma(sum[0], sum[1], sum[2], false));
            out.v.push_back(chroma(sum[0], sum[1], sum[2], true));
        }
    if (f->planes == 4)
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++)
                out.a.push_back(code(rgb(x, y, 3) * max, max));
    return out;
}

yuv_planes planes_of(const glr_frame &frame)
{
    const glr_format_info *f = glr_format_get_info(frame.format);
    yuv_planes out;
    out.width = frame.width;
    out.height = frame.height;
    out.chroma_width = (frame.width + (1 << f->log2_chroma_w) - 1) >> f->log2_chroma_w;
    out.chroma_height = (frame.height + (1 << f->log2_chroma_h) - 1) >> f->log2_chroma_h;
    // P010 keeps a sample's bits high in its 16; planar formats keep them low.
    const int shift = f->bytes_per_sample == 2 && f->planes == 2 ? 16 - f->bit_depth : 0;
    auto sample = [&](int plane, int x, int y, int index) {
        const uint8_t *row = frame.planes[plane].data + frame.planes[plane].stride * y;
        int spp = f->samples_per_pixel[plane];
        if (f->bytes_per_sample == 1)
            return static_cast<int>(row[x * spp + index]);
        const uint8_t *p = row + (x * spp + index) * 2;
        return (p[0] | p[1] << 8) >> shift;
    };
    for (int y = 0; y < out.height; y++)
        for (int x = 0; x < out.width; x++)
            out.y.push_back(sample(0, x, y, 0));
    for (int y = 0; y < out.chroma_height; y++)
        for (int x = 0; x < out.chroma_width; x++) {
            out.u.push_back(sample(1, x, y, 0));
            out.v.push_back(f->planes == 2 ? sample(1, x, y, 1) : sample(2, x, y, 0));
        }
    if (f->planes == 4)
        for (int y = 0; y < out.height; y++)
            for (int x = 0; x < out.width; x++)
                out.a.push_back(sample(3, x, y, 0));
    return out;
}

plane_difference max_difference(const yuv_planes &a, const yuv_planes &b)
{
    plane_difference d;
    if (a.y.size() != b.y.size() || a.u.size() != b.u.size() || a.a.size() != b.a.size()) {
        d.luma = d.chroma = d.alpha = 1 << 16;
        d.where = "the frames differ in shape: " + std::to_string(a.width) + "x" + std::to_string(a.height) + " with " +
                  std::to_string(a.u.size()) + " chroma samples against " + std::to_string(b.width) + "x" +
                  std::to_string(b.height) + " with " + std::to_string(b.u.size());
        return d;
    }
    auto scan = [&](const std::vector<int> &p, const std::vector<int> &q, int width, const char *name, int &worst) {
        for (size_t i = 0; i < p.size(); i++) {
            int diff = std::abs(p[i] - q[i]);
            if (diff > worst) {
                worst = diff;
                d.where = std::string(name) + " (" + std::to_string(i % size_t(width)) + "," +
                          std::to_string(i / size_t(width)) + "): " + std::to_string(p[i]) + " vs " +
                          std::to_string(q[i]);
            }
        }
    };
    scan(a.y, b.y, a.width, "Y", d.luma);
    scan(a.u, b.u, a.chroma_width, "U", d.chroma);
    scan(a.v, b.v, a.chroma_width, "V", d.chroma);
    scan(a.a, b.a, a.width, "A", d.alpha);
    return d;
}

} // namespace glr_test
