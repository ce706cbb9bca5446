// The audio track of an encoder: sound from a file (decoded, resampled, re-encoded for the
// container; copied as it is when it already is what the container takes, or when asked)
// or PCM the caller submits, encoded on the encoder's thread in step with the
// video. Its timestamps are its sample count: audio stays in sync whatever the render
// speed. The track ends with the video (trimmed, or padded with silence) unless asked to
// keep a longer sound.
#pragma once

#include "av/encoder_plan.hpp"

#include "glreader/av/encoder.h"

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/audio_fifo.h>
#include <libswresample/swresample.h>
}

#include <deque>
#include <functional>
#include <mutex>
#include <vector>

namespace glr {

class audio_track {
public:
    using packet_sink = std::function<void(AVPacket *)>;

    // Opens the source and the plan's encoder (or copies a source already in the plan's
    // default codec, or asked to) and adds the stream to muxer (before its header). Throws
    // glr::failure with words: missing or unreadable input, no audio stream.
    // first_frame at fps: where the track starts on the frames' clock (a chunk of a longer
    // render), its packets and submitted PCM stamped from frame 0's time; 0: at 0.
    audio_track(const glr_audio_params &params, const encoder_plan &plan, AVFormatContext *muxer,
                int64_t first_frame = 0, AVRational fps = {1, 1});
    ~audio_track();
    audio_track(const audio_track &) = delete;
    audio_track &operator=(const audio_track &) = delete;

    // PCM from the caller (see glr_encoder_submit_audio). Any thread, one at a time.
    void submit(const float *samples, int frames, int64_t pts);
    // Encodes the sound up to `seconds` of the video (what is available of it).
    void pump(double seconds, const packet_sink &write);
    // The end: the track up to the video's end (or the sound's, if longer and kept),
    // then the encoder's flush.
    void finish(double video_seconds, const packet_sink &write);
    // Samples per channel sent to the encoder so far.
    int64_t samples_encoded() const { return encoded_; }
    bool copied() const { return copy_; }

private:
    void open_input(const char *url);
    void open_encoder(const glr_audio_params &params, const AVCodec *codec, AVFormatContext *muxer);
    // Whether the input's packets go to the muxer as they are (see glr_audio_params.codec).
    bool copies(const glr_audio_params &params, const encoder_plan &plan, const AVOutputFormat *muxer) const;
    void open_copy(AVFormatContext *muxer);
    // Copy mode: the input's packets that start before `seconds`.
    void copy_until(double seconds, const packet_sink &write);
    // Fills the FIFO up to track time `wanted`: the offset's silence, submitted PCM, the
    // input's sound.
    void produce(int64_t wanted);
    void read_input(int64_t wanted);
    void take_submitted();
    void resample_into_fifo(const uint8_t *const *data, int samples);
    void add_silence(int64_t samples);
    // Encodes the FIFO's samples up to track time up_to: whole frames, and with last the
    // short final one too.
    void encode(int64_t up_to, bool last, const packet_sink &write);
    void release();
    void send(AVFrame *frame, const packet_sink &write);

    int rate_ = 0;                 // the encoder's sample rate: the track's clock
    int64_t origin_ = 0;           // the track's start on the frames' clock, at rate_
    int64_t produced_ = 0;         // samples put into the FIFO (track time)
    int64_t encoded_ = 0;          // samples sent to the encoder: the next frame's pts
    int64_t skip_ = 0;             // samples still to drop from the source (offset < 0)
    int64_t leading_silence_ = 0;  // samples of silence still owed before it (offset > 0)
    bool input_done_ = true;
    bool copy_ = false;            // packets copied, not re-encoded
    bool held_ = false;            // copy mode: packet_ read, not written yet
    int64_t copy_start_ = 0;       // copy mode: the input's first timestamp
    bool keep_longer_ = false;

    AVFormatContext *input_ = nullptr;
    AVCodecContext *decoder_ = nullptr;
    int input_stream_ = -1;
    SwrContext *swr_ = nullptr;
    AVAudioFifo *fifo_ = nullptr;
    AVCodecContext *encoder_ = nullptr;
    AVStream *stream_ = nullptr;
    AVFrame *frame_ = nullptr;
    AVPacket *packet_ = nullptr;

    // PCM submitted by the caller, waiting for the encoder thread.
    std::mutex mutex_;
    std::deque<std::vector<float>> submitted_;
    int pcm_channels_ = 0;
    int64_t pcm_next_ = 0;
};

} // namespace glr
