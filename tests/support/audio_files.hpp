// Sound for the tests: WAV files written from samples, and the audio of a video file
// decoded back to samples with the system's ffmpeg.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace glr_test {

// Writes 16-bit PCM, interleaved, as a WAV file; returns the path.
std::string write_wav(const std::string &name, int sample_rate, int channels, const std::vector<int16_t> &samples);

// Writes a small LAME-encoded MP3 (1.2 s of a 440 Hz sine, 22050 Hz mono), whose header
// asks the decoder to skip the encoder's delay; returns the path.
std::string write_lame_mp3(const std::string &name);

// A file's sound as its timestamps place it, decoded by this process's libavcodec.
struct decoded_sound {
    // 16-bit samples, interleaved, on the file's timeline: sample i plays at i / rate seconds
    // after the first picture (in a file of sound alone, after its first sound). Where the
    // first sound starts later, or a frame after a gap, silence stands before it: a track
    // stamped late shows.
    std::vector<int16_t> samples;
    // The first sound's time, in samples at the rate asked for, from the first picture: 0
    // for a track in step with the video; negative where it starts before it.
    int64_t start = 0;
    // How many samples one tick of the container's time base spans (Matroska's millisecond:
    // 48 at 48 kHz): timestamps say no more precisely where a frame plays, so frames closer
    // than that to where the one before ended follow it, and `start` is within it of the
    // truth.
    int64_t tolerance = 1;
    // The frames' times (in samples from the first picture) that do not follow the frame
    // before them: gaps and overlaps; empty for a track that plays without a break.
    std::vector<int64_t> breaks;
    // The samples FFmpeg's encoder of the track's codec puts before the sound itself (its
    // initial padding: AC-3's 256, AAC's 1024), at the rate asked for. A muxer stamps them
    // before the first picture; where the container cannot have them skipped (AC-3 in
    // Matroska before FFmpeg 7) they stay there, and `start` is minus this. Worked out only
    // where `start` is not 0.
    int64_t priming = 0;
    std::string error; // what could not be read ("" when all was)
};

// The first audio stream of path, decoded and converted to sample_rate and channels, placed
// by its timestamps (see decoded_sound).
decoded_sound decode_sound(const std::string &path, int sample_rate, int channels);

// Whether the track plays with the pictures: it decodes, starts with the first picture, or
// its encoder's priming before it (within its timestamps' precision), and plays without a
// break; else why not.
::testing::AssertionResult in_step_with_the_pictures(const decoded_sound &sound);

// decode_sound's samples alone: the timeline still places them (silence where the track
// starts late); empty when the file holds no sound that decodes.
std::vector<int16_t> decode_audio(const std::string &path, int sample_rate, int channels);

// Seconds of the audio encoder's priming that a decoder of path plays, because the muxer
// (the libavformat linked here, glreader-av's) could not say to skip them: AAC's 1024
// samples in Matroska before libavformat 61 (FFmpeg 7), which writes CodecDelay for Opus
// only. 0 where they are skipped.
double played_priming_seconds(const std::string &path);

} // namespace glr_test
