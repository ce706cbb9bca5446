// How a ring slot's pixel buffer gets a frame: the GL half of the ring, apart from its
// bookkeeping (ring/slot_ledger.hpp). One filler per ring, chosen by the format:
//  - readback: RGB formats, glReadPixels (after an optional upside-down blit);
//  - convert: YUV formats, one compute pass that converts the source and packs its
//    planes straight into the buffer, rows top first.
#pragma once

#include "format.hpp"
#include "context/functions.hpp"
#include "context/state_scope.hpp"
#include "ring/source_binding.hpp"

#include <memory>

namespace glr::gl {

class slot_filler {
public:
    virtual ~slot_filler() = default;
    // Issues the GL commands that fill buffer with source's frame; the caller fences it,
    // inside a state_scope of touched_state() (which has the pixel-pack buffer binding, for
    // the map-per-frame path's unmapping too).
    virtual void fill(const glr_source &source, GLuint buffer) = 0;
    virtual state_set touched_state() const = 0;
    virtual void delete_gl_objects() = 0;
    virtual const char *name() const = 0;
};

struct fill_params {
    const glr_format_info *format;
    frame_layout layout;
    glr_color color;
    glr_flip flip;
    int width, height;
};

// Throws GLR_ERROR_UNSUPPORTED naming what the driver lacks for this format.
std::unique_ptr<slot_filler> make_readback_filler(const functions &fns, const fill_params &params);
std::unique_ptr<slot_filler> make_convert_filler(const functions &fns, const fill_params &params);

} // namespace glr::gl
