// Sound for the tests: WAV files written from samples, and the audio of a video file
// decoded back to samples with the system's ffmpeg.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace glr_test {

// Writes 16-bit PCM, interleaved, as a WAV file; returns the path.
std::string write_wav(const std::string &name, int sample_rate, int channels, const std::vector<int16_t> &samples);

// The first audio stream of path decoded to 16-bit samples at sample_rate with channels
// (interleaved); empty when ffmpeg fails.
std::vector<int16_t> decode_audio(const std::string &path, int sample_rate, int channels);

} // namespace glr_test
