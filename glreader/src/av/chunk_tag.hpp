// The tag a chunk (glr_export_params.chunk) carries in its container's metadata, under
// GLR_EXPORT_CHUNK_TAG, and glr_join reads back: the chunk's place on the timeline. The
// value comes from a user's file, so it is read strictly. FFmpeg-free, to be fuzzed alone.
#pragma once

#include <cstdint>
#include <string>

namespace glr {

// How a chunk keeps the project's Sound pass: as it rendered (16-bit stereo), so that the
// join's one encode over the whole render gets the single pass's samples.
constexpr const char *chunk_sound_codec = "pcm_s16le";

// A Sound pass sample as the encoder takes it. The job converts the single pass's samples
// and the join a chunk's with this one rule, so that one encode sees the same values.
inline float sound_sample_value(int16_t sample) { return static_cast<float>(sample) / 32768.0f; }

struct chunk_range {
    int first = 0, frames = 0, fps_num = 0, fps_den = 0;
    // The colour tags of the chunk's video stream as FFmpeg names them, range, primaries,
    // transfer, matrix and chroma location between slashes ("tv/bt709/bt709/bt709/left"):
    // the join gives them to the output, as a single pass tags its stream, where the chunk's
    // container keeps none (NUT). Empty in a chunk that did not say (glreader 0.9's).
    std::string color;
};

// "first=F frames=N fps=A/B color=R/P/T/M/C" (no " color=..." when r.color is empty).
std::string chunk_tag_value(const chunk_range &r);

// The range a value of chunk_tag_value's form gives; false for anything else: another
// form, a number out of range (first < 0, frames, fps_num or fps_den < 1, any above
// INT_MAX), a range that ends past INT_MAX, a colour that is not five names of lower-case
// letters, digits and dashes (at most 32 each).
bool read_chunk_tag(const char *value, chunk_range &r);

} // namespace glr
