// The tests' frame-counter pattern (pattern_scene.hpp) as a Shadertoy shader, for the
// programs that render shaders (exporter, pipe sample, viewer, FFmpeg filter), and the
// check that a video file holds it.
#pragma once

#include <string>

namespace glr_test {

// Writes the counter shader into a scratch file; returns its path.
std::string write_counter_shader();

// The file holds frames 0..frames-1 of the counter shader, upright, pixel-exact and opaque
// (frames < 0: however many there are, at least one). Fails the test otherwise.
void expect_counter_video(const std::string &path, int width, int height, int frames);

} // namespace glr_test
