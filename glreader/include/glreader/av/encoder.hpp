// glreader-av: C++ layer over glreader/av/encoder.h.
#pragma once

#include "glreader/av/encoder.h"
#include "glreader/glreader.hpp"

namespace glr {

// In-process encoder (see glreader/av/encoder.h).
// Thread-safety: submit and finish from one thread; stats from any.
// Lifetime: rings whose frames were submitted must outlive finish().
class encoder {
public:
    explicit encoder(const glr_encoder_params &params, glr_log *log = nullptr)
        : enc_(glr_encoder_create(log, &params))
    {
        if (!enc_.get())
            detail::throw_create_failure("glr_encoder_create");
    }

    // Takes the lease; blocks while the hand-off queue is full. Throws glr::error.
    void submit(frame &&f)
    {
        glr_frame c = f.detach();
        detail::check(glr_encoder_submit(enc_.get(), &c), "glr_encoder_submit");
    }

    // PCM for the audio track (see glr_encoder_submit_audio). Throws glr::error.
    void submit_audio(const float *samples, int frames, int64_t pts)
    {
        detail::check(glr_encoder_submit_audio(enc_.get(), samples, frames, pts), "glr_encoder_submit_audio");
    }

    // Flushes and closes the file; throws the first error met during the encode.
    void finish() { detail::check(glr_encoder_finish(enc_.get()), "glr_encoder_finish"); }
    // The same for an encode stopped before its end: a GLR_OUTPUT_PART file keeps its .part
    // name (see glr_encoder_finish_incomplete).
    void finish_incomplete()
    {
        detail::check(glr_encoder_finish_incomplete(enc_.get()), "glr_encoder_finish_incomplete");
    }

    glr_encoder_stats stats() const
    {
        glr_encoder_stats s{};
        glr_encoder_get_stats(enc_.get(), &s);
        return s;
    }
    glr_encoder *get() const { return enc_.get(); }

private:
    detail::handle<glr_encoder, glr_encoder_destroy> enc_;
};

} // namespace glr
