// What glr_encoder opens for its params, decided before anything is opened: the muxer, the
// video encoder and the pixel format it encodes, the audio encoder; and the checks that
// refuse a bad setup with words before a frame is rendered (glr_encoder_check): the
// options' names and values, the metadata, and a trial open of the video encoder.
#pragma once

#include "glreader/av/encoder.h"

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
}

namespace glr {

struct encoder_plan {
    const AVOutputFormat *muxer = nullptr;
    const AVCodec *video = nullptr;
    AVPixelFormat pix_fmt = AV_PIX_FMT_NONE; // what the video encoder encodes
    // The audio encoder for a re-encoded (or submitted) sound; NULL without an audio track,
    // or when the input is copied as it is (audio.codec "copy").
    const AVCodec *audio = nullptr;
    // For a file input without audio.codec: the container's own audio codec, which a sound
    // already in it keeps (copied).
    AVCodecID audio_default = AV_CODEC_ID_NONE;
};

// The colour tags an encoder gives its stream, in FFmpeg's values: its own options
// (colorspace=...) included.
struct color_tags {
    AVColorRange range = AVCOL_RANGE_UNSPECIFIED;
    AVColorPrimaries primaries = AVCOL_PRI_UNSPECIFIED;
    AVColorTransferCharacteristic transfer = AVCOL_TRC_UNSPECIFIED;
    AVColorSpace matrix = AVCOL_SPC_UNSPECIFIED;
    AVChromaLocation chroma = AVCHROMA_LOC_UNSPECIFIED;
};

// The format of the frames the params describe (0: RGBA8); for hardware frames, the
// format of their memory (the frames context's sw_format).
glr_format frames_format(const glr_encoder_params &params);

// The hardware frames' kind (AV_PIX_FMT_VULKAN), or AV_PIX_FMT_NONE without hw_frames.
AVPixelFormat hardware_format(const glr_encoder_params &params);

// Chooses everything (see codec_choice.hpp); throws with words. Opens nothing.
encoder_plan plan_encoder(const glr_encoder_params &params, const glr_log *log);

// The video encoder plan_encoder chooses for the params, before any pixel format is.
const AVCodec *choose_video_encoder(const glr_encoder_params &params, const glr_log *log);

// Whether codec takes frames of hardware format hw (AV_PIX_FMT_VULKAN) as they are.
bool takes_hardware_frames_of(const AVCodec *codec, AVPixelFormat hw);

// The ring format that encodes with this plan without a CPU conversion: the encoder's YUV
// where a ring makes it, else the frames' own format.
glr_format preferred_format(const glr_encoder_params &params, const encoder_plan &plan);

// What glr_encoder_check adds to the plan: each codec and muxer option is one the encoder
// or muxer has, with a value it takes; the metadata are key=value; the video encoder opens
// (a trial, closed at once). Throws with words. Returns the colour the trial encoder tags
// its stream with.
color_tags check_plan(const glr_encoder_params &params, const encoder_plan &plan, const glr_log *log);

// The plan in the public struct.
glr_encoder_plan public_plan(const glr_encoder_params &params, const encoder_plan &plan);

} // namespace glr
