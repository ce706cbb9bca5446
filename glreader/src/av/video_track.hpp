// The video stream of an output: the encoder, the conversion when the frames are not in
// the pixel format it encodes (libswscale), and the lending of leases to libavcodec
// without a copy (glreader/utils/libav.h) with copies into a pool once it holds too many;
// or hardware frames, as they are to an encoder that takes them, else copied to memory.
#pragma once

#include "av/encoder_plan.hpp"
#include "av/frame_pool.hpp"
#include "av/output.hpp"

#include "glreader/av/encoder.h"
#include "glreader/utils/libav.h"

extern "C" {
#include <libavcodec/avcodec.h>
#include <libswscale/swscale.h>
}

#include <atomic>
#include <functional>
#include <memory>

namespace glr {

class video_track {
public:
    using packet_sink = std::function<void(AVPacket *)>;

    // Opens the plan's encoder for the params' frames and adds the stream to out (before
    // its header). Throws with words: an unknown option, a size the pixel format cannot
    // hold, a hardware encoder without its device.
    video_track(const glr_encoder_params &params, const encoder_plan &plan, output &out);
    ~video_track();
    video_track(const video_track &) = delete;
    video_track &operator=(const video_track &) = delete;

    const char *codec_name() const { return codec_->name; }
    int stream_index() const { return stream_->index; }
    glr_format format() const { return format_; }
    const glr_color &color() const { return color_; }
    double seconds_at(int64_t pts) const { return static_cast<double>(pts) * av_q2d(context_->time_base); }

    // A submitted lease as the frame to encode, its lease taken in every case.
    enum class route { lent, copied, converted, hardware, transferred };
    struct prepared {
        AVFrame *frame;
        route how;
        uint64_t convert_ns; // libswscale's time, for `converted`
        int held;            // leases libavcodec holds now
    };
    prepared prepare(glr_frame &lease, int64_t pts);
    // A submitted hardware frame as the frame to encode, taken (and hw cleared) in every case.
    prepared prepare(AVFrame *&hw, int64_t pts);
    // Encodes a frame (NULL: the end) and hands its packets to write.
    void encode(const AVFrame *frame, const packet_sink &write);

    // Test seam (test builds only): the next send fails once `frames` were sent.
    void fail_after(int64_t frames) { fail_after_ = frames; }

    // Opens the plan's encoder as the constructor does and closes it again: a check that
    // throws what opening would. Returns the colour the encoder tags the stream with, its
    // own options (colorspace=...) included.
    static color_tags trial_open(const glr_encoder_params &params, const encoder_plan &plan);

private:
    void open_scaler(AVPixelFormat to);
    // in converted by libswscale into a frame of the pool; throws.
    AVFrame *scale(const AVFrame *in);
    void release();

    glr_format format_;
    glr_color color_{};     // of the submitted frames
    glr_color out_color_{}; // of the encoded frames and the stream
    AVPixelFormat input_pix_fmt_;
    int width_, height_;
    const AVCodec *codec_ = nullptr;
    AVCodecContext *context_ = nullptr;
    AVStream *stream_ = nullptr;
    SwsContext *sws_ = nullptr;
    std::unique_ptr<frame_pool> pool_; // conversion targets and starvation copies
    // Hardware frames copied to memory before libswscale converts them (their sw_format).
    std::unique_ptr<frame_pool> transfer_pool_;
    bool hardware_ = false; // the encoder takes the hardware frames as they are
    AVPacket *packet_ = nullptr;
    // Leases libavcodec still holds: past depth - 1 frames are copied instead, so an
    // encoder that keeps references cannot starve the ring.
    glr_av_lender lender_{};
    int64_t frames_sent_ = 0;
    std::atomic<int64_t> fail_after_{-1};
};

} // namespace glr
