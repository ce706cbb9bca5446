// The in-process encoder behind glr_encoder (see glreader/encoder.h for the contract).
#pragma once

#include "glreader/encoder.h"
#include "glreader/libav.h"
#include "av/audio_track.hpp"
#include "av/frame_pool.hpp"
#include "av/output_io.hpp"
#include "latency.hpp"

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libswscale/swscale.h>
}

#include <atomic>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

struct glr_encoder {
public:
    // Opens everything and writes the header; throws glr::failure on any problem.
    glr_encoder(const glr_log *log, const glr_encoder_params &params);
    ~glr_encoder();
    glr_encoder(const glr_encoder &) = delete;
    glr_encoder &operator=(const glr_encoder &) = delete;

    // Takes the lease in every case; returns 0 or a negative code (see encoder.h).
    int submit(glr_frame &frame);
    void submit_audio(const float *samples, int frames, int64_t pts);
    int finish();
    glr_encoder_stats stats() const;
    const glr_log *log() const { return log_; }
    // Test seam (fault_injection.h, test builds only): fail avcodec_send_frame once
    // `frames` were encoded.
    void fail_after(int64_t frames) { fail_after_ = frames; }
    // The ring format that these params encode without a CPU conversion.
    static glr_format preferred_format(const glr_encoder_params &params);

private:
    struct queued_frame {
        glr_frame frame;
        int64_t pts;
    };

    static const AVCodec *find_codec(const char *name);
    // What the encoder encodes: the pixel format asked for, else the frames' own where the
    // codec takes it, else yuv420p, else the codec's closest.
    static AVPixelFormat output_pix_fmt(const AVCodec *codec, const char *asked, AVPixelFormat input);
    void open_codec(const glr_encoder_params &params);
    void open_muxer(const glr_encoder_params &params);
    void run();
    AVFrame *prepare(queued_frame &item);
    void encode(const AVFrame *frame);
    // Muxes a packet of either stream; returns the time it took.
    uint64_t write_packet(AVPacket *packet);
    double seconds_at(int64_t pts) const;
    // The audio track's sound up to `seconds` of video (with last: to the end, flushed).
    void pump_audio(double seconds, bool last);
    void set_error(int code, const std::string &message);
    int first_error() const;
    static int sticky(int code, const std::string &message);
    void close_output();

    const glr_log *log_;
    int width_, height_;
    glr_format format_;
    glr_color color_{};     // of the submitted frames
    glr_color out_color_{}; // of the encoded frames and the stream
    AVPixelFormat input_pix_fmt_;
    bool use_frame_pts_;
    size_t queue_depth_;

    const AVCodec *codec_ = nullptr;
    AVCodecContext *codec_ctx_ = nullptr;
    AVFormatContext *format_ctx_ = nullptr;
    AVStream *stream_ = nullptr;
    std::unique_ptr<glr::output_io> output_;
    std::unique_ptr<glr::audio_track> audio_;
    int64_t video_end_pts_ = 0; // after the last frame encoded
    bool header_written_ = false;
    SwsContext *sws_ = nullptr;
    std::unique_ptr<glr::frame_pool> pool_; // conversion targets and starvation copies
    AVPacket *packet_ = nullptr;

    // Hand-off between the submitting thread and the encoder thread.
    mutable std::mutex mutex_;
    std::condition_variable changed_;
    std::deque<queued_frame> queue_;
    bool closing_ = false;
    bool finished_ = false;
    int64_t next_pts_ = 0;
    int64_t last_pts_ = INT64_MIN;
    int error_ = 0;
    std::string error_message_;
    glr_encoder_stats counters_{};
    glr::latency_histogram submit_wait_, convert_, encode_, write_;
    // Zero-copy frames libavcodec still holds: past depth - 1 frames are copied instead
    // (glreader/libav.h), so an encoder that keeps references cannot starve the ring.
    glr_av_lender lender_{};
    std::atomic<int64_t> fail_after_{-1};
    std::thread thread_;
};
