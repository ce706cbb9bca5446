// The tests' frame-counter pattern (pattern_scene.hpp) as a Shadertoy shader, for the
// programs that render shaders (exporter, pipe sample, viewer, FFmpeg filter), and the
// check that a video file holds it.
#pragma once

#include "yuv_reference.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace glr_test {

// Writes the counter shader into a scratch file; returns its path.
std::string write_counter_shader();

// A video for a Shadertoy channel: ten 8x6 frames at 10 fps, FFV1 (lossless), frame n
// of colour (20 n, 7, 200), made by the system's ffmpeg. Returns its path.
std::string write_counter_channel_video();

// The file holds frames 0..frames-1 of the counter shader, upright, pixel-exact and opaque
// (frames < 0: however many there are, at least one). Fails the test otherwise.
void expect_counter_video(const std::string &path, int width, int height, int frames);

// The file holds `count` frames of the counter shader from frame `first` on (pixel-exact,
// upright), the k-th at k / rate seconds (rate = rate_num/rate_den, within half a
// millisecond): frame ranges and timestamps worked out by a test, by hand.
void expect_counted_frames(const std::string &path, uint64_t first, size_t count, int width, int height,
                           int rate_num, int rate_den);

// Frames 0..frames-1 of the counter shader as a ring converts them on the GPU to format
// with color (what a YUV export of it must hold, byte for byte).
std::vector<yuv_planes> counter_frames_converted(int width, int height, int frames, glr_format format,
                                                 const glr_color &color);

// "" when the YUV video file holds exactly those frames, else the first difference.
std::string compare_yuv_video(const std::string &path, const std::vector<yuv_planes> &want);

// The same for a raw file of frames in format (ffmpeg -f rawvideo), read as it is; each code
// value within `tolerance` of want's.
std::string compare_raw_yuv(const std::string &path, glr_format format, int width, int height,
                            const std::vector<yuv_planes> &want, int tolerance = 0);

// Frames 0..frames-1 of the counter shader as the conversion glreader promises makes them,
// computed on the CPU in double precision from the pattern's RGB (reference_yuv), with color
// as given (every field said): the oracle a conversion is held to within one 8-bit code
// value, shared with none of glreader's code.
std::vector<yuv_planes> counter_frames_reference(int width, int height, int frames, glr_format format,
                                                 const glr_color &color);

} // namespace glr_test
