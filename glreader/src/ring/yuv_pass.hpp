// The GPU's RGB to Y'CbCr conversion: one compute pass that reads a source texture and
// writes a YUV format's planes, rows top first (or GL's order), either packed into a
// buffer as the format lays them out in memory (a ring slot: convert_filler) or into a
// texture per plane (glr_converter, whose textures another API may share: Vulkan, CUDA).
// Both targets run the same shader, so a plane in a texture holds exactly the bytes the
// ring reads back.
#pragma once

#include "context/functions.hpp"
#include "ring/slot_filler.hpp"
#include "ring/source_binding.hpp"

namespace glr::gl {

enum class yuv_target {
    buffer,  // a shader storage buffer at binding 0, laid out as params.layout says
    textures // image units 0..planes-1, one unsigned-integer view per plane
};

class yuv_pass {
public:
    // Builds the pass; throws GLR_ERROR_UNSUPPORTED naming what the driver lacks, in the
    // words of `caller` (the public function being called).
    yuv_pass(const functions &fns, const fill_params &params, yuv_target target, const char *caller);
    yuv_pass(const yuv_pass &) = delete;
    yuv_pass &operator=(const yuv_pass &) = delete;

    // Converts texture's level into what is bound (the caller's state_scope has the
    // program, unit 0 and the target's bindings); the caller issues the barrier its reader
    // needs.
    void dispatch(const source_binding::texture_level &texture);
    void delete_gl_objects();

private:
    void build_program(yuv_target target, const char *caller);

    const GladGLContext &gl_;
    fill_params params_;
    GLuint program_ = 0, sampler_ = 0;
    GLint level_location_ = -1;
};

} // namespace glr::gl
