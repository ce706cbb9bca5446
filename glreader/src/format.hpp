// The format table's C++ side: where each plane of a frame lies in a slot, and the
// colour description with its defaults filled in. glreader/common.h has the table itself.
#pragma once

#include "glreader/common.h"

#include <cstddef>

namespace glr {

// The table entry of a format; throws -EINVAL naming `call` for a value that is none.
const glr_format_info &format_info(int format, const char *call);

// Where the planes of a width x height frame lie in a slot's memory, as read back.
struct frame_layout {
    struct plane {
        size_t offset = 0; // from the start of the slot
        size_t stride = 0; // bytes between rows in memory
        size_t row_bytes = 0; // bytes of pixels in a row
        int rows = 0;
    };
    plane planes[4];
    int count = 0;
    size_t bytes = 0; // all planes, padding included
};

// RGB formats: one tightly packed plane, as glReadPixels writes it. YUV formats: planes
// and strides at multiples of 64 bytes, so the conversion's 8-pixel blocks stay inside a
// row's padding and SIMD consumers see aligned rows.
frame_layout layout_of(const glr_format_info &format, int width, int height);

// Checks that a width x height frame has whole chroma samples in format (4:2:0: even
// sizes); throws -EINVAL naming `call` and the size to render at.
void check_frame_size(const glr_format_info &format, int width, int height, const char *call);

// Fills in the defaults of a colour description for format (see glr_color) and checks
// its values; throws -EINVAL naming `call` for values glreader cannot produce.
glr_color resolved_color(const glr_format_info &format, const glr_color &requested, const char *call);

// Kr and Kb of a matrix (BT.709, BT.601, BT.2020).
void matrix_constants(glr_matrix matrix, double &kr, double &kb);

} // namespace glr
