// Sound for the tests: WAV files written from samples, and the audio of a video file
// decoded back to samples with the system's ffmpeg.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace glr_test {

// Writes 16-bit PCM, interleaved, as a WAV file; returns the path.
std::string write_wav(const std::string &name, int sample_rate, int channels, const std::vector<int16_t> &samples);

// Writes a small LAME-encoded MP3 (1.2 s of a 440 Hz sine, 22050 Hz mono), whose header
// asks the decoder to skip the encoder's delay; returns the path.
std::string write_lame_mp3(const std::string &name);

// The first audio stream of path decoded to 16-bit samples at sample_rate with channels
// (interleaved); empty when ffmpeg fails.
std::vector<int16_t> decode_audio(const std::string &path, int sample_rate, int channels);

// Seconds of the audio encoder's priming that a decoder of path plays, because the muxer
// (the libavformat linked here, glreader-av's) could not say to skip them: AAC's 1024
// samples in Matroska before libavformat 61 (FFmpeg 7), which writes CodecDelay for Opus
// only. 0 where they are skipped.
double played_priming_seconds(const std::string &path);

} // namespace glr_test
