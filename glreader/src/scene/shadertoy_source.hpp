// The text side of a Shadertoy pass: the GLSL that surrounds the author's code, and the
// compiler's log turned back into the author's files, lines and columns. No GL here.
#pragma once

#include "glreader/scene.h"

#include <array>
#include <string>

namespace glr::shadertoy {

// One pass's sources. `common` may be empty (no Common section).
struct pass_source {
    std::string common, common_name;
    std::string body, body_name;
    std::array<bool, 4> cube_channels{}; // iChannelN is a samplerCube
    bool image_pass = false;             // the Image pass: its alpha as `alpha` says
    glr_alpha alpha = GLR_ALPHA_OPAQUE;
};

// The fragment shader of a pass: Shadertoy's inputs, the Common section and the pass, each
// numbered so that the log tells them apart; the pass's lines count from 1.
std::string fragment_source(const pass_source &pass);

// The fragment shader of a Sound pass (vec2 mainSound(int samp, float time), or Shadertoy's
// older mainSound(float time)): pixel (x, y) of a block glr_block_width wide is sample
// glr_first_sample + y * width + x, its two channels as 16 bits each over R, G (left) and
// B, A (right), low byte first: a sample is (low + 256 high) - 32768.
std::string sound_source(const pass_source &pass);

// The compiler's log with each "STRING:LINE(COLUMN): " (Mesa) or "STRING(LINE) : " (NVIDIA)
// naming the author's file instead ("bufferA.glsl:3:7: "), lists of candidate overloads
// dropped, each line once, and no trailing newline.
std::string locate_errors(const std::string &log, const pass_source &pass);

} // namespace glr::shadertoy
