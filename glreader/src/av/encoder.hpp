// The in-process encoder behind glr_encoder (see glreader/av/encoder.h for the contract): an
// output (muxer and I/O) holding a video track and, when asked, an audio track, fed from
// a bounded queue by an encoder thread of its own.
#pragma once

#include "glreader/av/encoder.h"
#include "av/audio_track.hpp"
#include "av/output.hpp"
#include "av/video_track.hpp"
#include "latency.hpp"

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
    // Takes the hardware frame in every case (frame cleared); as submit.
    int submit_hw(AVFrame *&frame);
    void submit_audio(const float *samples, int frames, int64_t pts);
    // complete: the encode reached its end, so a GLR_OUTPUT_PART file may take its name.
    int finish(bool complete);
    glr_encoder_stats stats() const;
    // What was opened: the muxer, the encoders and the pixel format.
    const glr_encoder_plan &plan() const { return plan_; }
    const glr_log *log() const { return log_; }
    // Test seam (fault_injection.h, test builds only): fail avcodec_send_frame once
    // `frames` were encoded.
    void fail_after(int64_t frames) { video_->fail_after(frames); }
    // The ring format that these params encode without a CPU conversion.
    static glr_format preferred_format(const glr_encoder_params &params);
    // What create would open, checked (glr_encoder_check); throws with words. tags (may be
    // NULL): the colour the stream would be tagged with.
    static glr_encoder_plan check(const glr_log *log, const glr_encoder_params &params,
                                  glr::color_tags *tags = nullptr);

private:
    // A lease, or a hardware frame (hw), and its pts.
    struct queued_frame {
        glr_frame frame;
        int64_t pts;
        AVFrame *hw;
    };
    // Frees what item holds (after an error: never leak).
    static void release(queued_frame &item);
    // Stamps item (stamp: its own pts, with use_frame_pts) and queues it, waiting while the
    // queue is full; takes it in every case.
    int enqueue(queued_frame &item, int64_t stamp, uint64_t start);

    static void check_params(const glr_encoder_params &params);
    void run();
    void encode_video(queued_frame &item);
    // Muxes a packet of either track, counting it and the time it took.
    void write_packet(AVPacket *packet);
    // The audio track's sound up to `seconds` of video (with last: to the end, flushed).
    void pump_audio(double seconds, bool last);
    void set_error(int code, const std::string &message);
    int first_error() const;
    static int sticky(int code, const std::string &message);
    // publish: a whole result, which a GLR_OUTPUT_PART file may be renamed for.
    void close_output(bool publish);
    // glr_frame_set_holder's describe for the leases the encoder holds (atomics only).
    static void describe_holder(void *opaque, char *buf, size_t size);

    const glr_log *log_;
    glr_encoder_plan plan_{};
    std::string output_name_;
    int width_, height_;
    const void *hw_frames_ = nullptr; // the AVHWFramesContext of hw_frames, for identity
    bool use_frame_pts_;
    int64_t first_pts_;
    size_t queue_depth_;

    std::unique_ptr<glr::output> output_;
    std::unique_ptr<glr::video_track> video_;
    std::unique_ptr<glr::audio_track> audio_;
    int64_t video_end_pts_ = 0;  // after the last frame encoded
    uint64_t video_packets_written_ = 0; // handed to the muxer without an error
    bool output_failed_ = false;         // writing or finishing the output failed
    uint64_t writing_ns_ = 0;    // write time within the current encode step
    // When the write or encode under way began (0: none), for stats and describe_holder.
    std::atomic<uint64_t> write_started_ns_{0}, encode_started_ns_{0};

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
    std::thread thread_;
};
