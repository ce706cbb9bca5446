// What an output is made of, chosen as ffmpeg chooses it: the muxer named or guessed from
// the output's name; for each stream the encoder asked for (an encoder's name, or a codec's
// name such as h264, which takes this build's best encoder of it) or else the container's
// own default codec (PNG for .png and image patterns, VP9 for WebM, GIF for .gif, H.264 for
// MP4 and Matroska where an encoder exists); each checked against what the container can
// hold. Every refusal names what would do instead, from what this FFmpeg build has.
#pragma once

#include "glreader/common.h"

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
}

#include <string>

namespace glr {

// The muxer for output: container names it, else output's name (an extension, a pattern,
// a URL's protocol) says it. Throws with words when neither gives one.
const AVOutputFormat *choose_muxer(const char *container, const char *output);

// The encoder of a stream of `type` into muxer writing output: `asked` (NULL: the
// container's default; muxer NULL: no output known yet, asked must be given). Throws with words: an unknown name (with the nearest names), a
// codec without an encoder here, a codec the container cannot hold, a container that holds
// no stream of this type; each naming the few encoders here that would do. `log` hears,
// at info level, when the container's own default had no encoder and another was taken.
const AVCodec *choose_encoder(AVMediaType type, const char *asked, const AVOutputFormat *muxer, const char *output,
                              const glr_log *log);

// The codec the container takes for a stream of `type` when none is asked for
// (AV_CODEC_ID_NONE: it holds no such stream), as ffmpeg guesses it from muxer and name.
AVCodecID default_codec(AVMediaType type, const AVOutputFormat *muxer, const char *output);

// Whether an output (container, else output's name) holds a sound track it chooses the
// codec of (an image sequence and a GIF hold none); one that cannot be told is left to the
// encoder's check (true).
bool holds_sound(const char *container, const char *output);

// Whether a pixel format carries alpha, and whether an encoder keeps it (one on the CPU
// that takes such a format).
bool has_alpha(AVPixelFormat format);
bool encodes_alpha(const AVCodec *codec);

// The encoder for a video stream whose alpha is transparency: `asked` if it encodes alpha,
// else the container's own codec if it does, else the best codec with alpha the container
// holds (ProRes, VP9, FFV1, QuickTime Animation, PNG). Throws with words naming the
// encoders with alpha the container would take.
const AVCodec *choose_alpha_encoder(const char *asked, const AVOutputFormat *muxer, const char *output,
                                    const glr_log *log);

// Whether an encoder runs on some device rather than the CPU.
bool is_hardware_encoder(const AVCodec *codec);

// The first pixel format an encoder takes in memory (not a GPU's), or AV_PIX_FMT_NONE.
AVPixelFormat first_memory_format(const AVCodec *codec);

// Whether an encoder takes only frames in GPU memory (hevc_vaapi), which glreader-av
// does not upload.
bool takes_only_hardware_frames(const AVCodec *codec);

// Encoders of a codec here that run on the CPU, as "a, b" (or "none").
std::string software_encoders_of(AVCodecID id);

// The pixel formats (NULL-terminated, or NULL: any) an encoder takes, across FFmpeg's
// API change of 7.1.
const AVPixelFormat *encoder_pix_fmts(const AVCodec *codec);

} // namespace glr
