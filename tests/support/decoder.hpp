// Decodes a video file with libavformat/libavcodec back into RGBA frames, top row first,
// so tests can compare what was written with what was rendered.
#pragma once

#include "yuv_reference.hpp"

#include <cstdint>
#include <string>
#include <vector>

struct AVFrame;

namespace glr_test {

struct decoded_frame {
    int64_t pts;               // in the stream's time base
    std::vector<uint8_t> rgba; // width * height * 4 bytes
    yuv_planes yuv;            // the decoded code values, when the stream is YUV
};

struct decoded_video {
    std::string error;         // empty on success
    std::string codec;
    std::string pix_fmt;
    int width = 0, height = 0;
    // As tagged in the stream, e.g. "bt709", "tv", "bt709", "bt709", "left".
    std::string color_space, color_range, color_primaries, color_trc, chroma_location;
    int time_base_num = 0, time_base_den = 1;
    std::vector<decoded_frame> frames;
};

// decoder: by name (libvpx-vp9, whose alpha FFmpeg's own VP9 decoder drops); NULL: FFmpeg's
// default for the stream.
decoded_video decode_file(const std::string &path, const char *decoder = nullptr);

// "" when the decoded frame is frame n of the test pattern (pattern_scene.hpp), byte for
// byte (alpha only if with_alpha), else the first difference.
std::string check_decoded(const decoded_frame &d, uint64_t n, int width, int height, bool with_alpha);

// The file holds exactly frames 0..frames-1 of the test pattern, in order, byte for byte
// (check_decoded). Fails the test otherwise.
void expect_pattern_video(const std::string &path, int frames, int width, int height, bool with_alpha);

// A hardware frame's planes (format's, width x height) in memory, transferred by FFmpeg
// (av_hwframe_transfer_data) and packed row after row; empty, with a failure added, when the
// transfer fails.
std::vector<std::vector<uint8_t>> hw_planes_in_memory(const AVFrame *frame, glr_format format, int width,
                                                      int height);

// PSNR in dB of b against a over all RGB bytes (alpha ignored); 100 when identical.
double psnr_rgb(const std::vector<uint8_t> &a, const std::vector<uint8_t> &b);

} // namespace glr_test
