// The RGB -> Y'CbCr conversion glreader promises (glreader/common.h: glr_color), computed
// in double precision, and the planes of a converted frame read back as code values, so
// tests compare the GPU's output with what it should be.
#pragma once

#include "glreader/ring.h"

#include <cstdint>
#include <string>
#include <vector>

namespace glr_test {

// A YUV frame as code values, planar whatever the format's packing, top row first.
struct yuv_planes {
    int width = 0, height = 0;             // luma
    int chroma_width = 0, chroma_height = 0;
    std::vector<int> y, u, v;
    std::vector<int> a; // formats with alpha: full size, full range
};

// rgba: width x height pixels, 4 bytes each, top row first.
yuv_planes reference_yuv(const std::vector<uint8_t> &rgba, int width, int height, glr_format format,
                         const glr_color &color);

// The planes of a leased YUV frame (interleaved chroma split, 10-bit values unshifted).
yuv_planes planes_of(const glr_frame &frame);

// The largest difference between two frames of the same shape, luma and chroma apart,
// with where the first largest one is.
struct plane_difference {
    int luma = 0, chroma = 0, alpha = 0;
    std::string where;
};
plane_difference max_difference(const yuv_planes &a, const yuv_planes &b);

} // namespace glr_test
