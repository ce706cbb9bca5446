// The recorder keeps a ring (made at the first frame, in the GL context current then) and
// an encoder (made at once, so that a bad option or an existing file fails before any
// frame). write() starts a frame's readback and returns; the frames read back go to the
// encoder as the ring hands them out, without a copy where the encoder takes the ring's
// format. Every GL call happens on the thread whose context was current at the first
// frame; another thread is refused, as is a call after close().
#include "recorder.hpp"

#include "errors.hpp"
#include "messages.hpp"
#include "options.hpp"

#include "glreader/encoder.h"
#include "glreader/ring.h"

#include <nanobind/stl/string.h>

#include <cerrno>
#include <cstdint>
#include <string>
#include <thread>

namespace nb = nanobind;

namespace glr_python {

namespace {

nb::dict latency(const glr_latency &l)
{
    nb::dict d;
    d["count"] = l.count;
    d["p50_ms"] = l.p50_ms;
    d["p95_ms"] = l.p95_ms;
    d["p99_ms"] = l.p99_ms;
    d["max_ms"] = l.max_ms;
    return d;
}

class recorder {
public:
    explicit recorder(const nb::dict &o) : encoder_(o)
    {
        glr_encoder_params &e = encoder_.params;
        // BGRA, which encoders of RGB take as it is (ffv1, rawvideo, qtrle); the encoder's
        // own YUV made on the GPU where a ring makes it.
        e.format = GLR_FORMAT_BGRA8;
        if (get<bool>(o, "gpu_convert", true)) {
            glr_encoder_params trial = e;
            if (glr_format preferred = glr_encoder_preferred_format(&trial))
                e.format = preferred;
        }
        gpu_convert_ = glr_format_get_info(e.format)->yuv;
        if (!(encoder_ptr_ = glr_encoder_create(messages_log(), &e)))
            fail_with_last_error();
        flush_messages();
    }
    recorder(const recorder &) = delete;
    recorder &operator=(const recorder &) = delete;
    ~recorder()
    {
        // Not closed (an exception in the caller's loop): what was submitted is finalized;
        // the ring is left to its context (it cannot be freed away from it).
        if (encoder_ptr_) {
            glr_encoder_finish_incomplete(encoder_ptr_);
            glr_encoder_destroy(&encoder_ptr_);
        }
    }

    void write(int kind, unsigned name)
    {
        usable("write");
        if (!ring_)
            make_ring();
        glr_source source{};
        source.kind = static_cast<glr_source_kind>(kind);
        source.name = name;
        int rc;
        while ((rc = glr_ring_capture(ring_, &source, next_pts_)) == -EBUSY)
            hand_over(UINT64_MAX); // every slot holds a frame: the oldest goes first
        if (rc < 0)
            fail_with_last_error();
        next_pts_++;
        while (hand_over(0)) { // whatever is read back already
        }
        flush_messages();
    }

    void write_audio(nb::bytes samples, int64_t pts)
    {
        usable("write_audio");
        const int channels = encoder_.params.audio.channels;
        if (channels <= 0)
            throw failure{-EINVAL, "Recorder.write_audio: this recorder takes no pushed sound (audio_rate, "
                                   "audio_channels)"};
        size_t values = samples.size() / sizeof(float);
        int frames = static_cast<int>(values / static_cast<size_t>(channels));
        if (glr_encoder_submit_audio(encoder_ptr_, reinterpret_cast<const float *>(samples.c_str()), frames,
                                     pts < 0 ? audio_next_ : pts) < 0)
            fail_with_last_error();
        audio_next_ = (pts < 0 ? audio_next_ : pts) + frames;
    }

    nb::dict close()
    {
        if (closed_)
            return stats();
        usable("close");
        int rc = 0;
        if (ring_) {
            while (hand_over(UINT64_MAX)) {
            }
        }
        {
            nb::gil_scoped_release unlocked; // the encoder's last frames and the trailer
            rc = glr_encoder_finish(encoder_ptr_);
        }
        std::string message = rc < 0 ? glr_last_error() : "";
        final_ = stats();
        glr_ring_destroy(&ring_);
        glr_encoder_destroy(&encoder_ptr_);
        closed_ = true;
        flush_messages();
        if (rc < 0)
            throw failure{rc, message};
        return final_;
    }

    nb::dict stats() const
    {
        if (closed_)
            return final_;
        nb::dict d;
        glr_encoder_stats es{};
        glr_encoder_get_stats(encoder_ptr_, &es);
        d["frames_written"] = next_pts_;
        d["frames_encoded"] = es.frames_encoded;
        d["bytes_written"] = es.bytes_written;
        d["audio_samples_encoded"] = es.audio_samples_encoded;
        d["zero_copy_frames"] = es.zero_copy_frames;
        d["converted_frames"] = es.converted_frames;
        d["copied_frames"] = es.copied_frames;
        d["gpu_convert"] = gpu_convert_;
        d["ring_format"] = glr_format_name(encoder_.params.format);
        d["encode"] = latency(es.encode);
        d["write"] = latency(es.write);
        d["submit_wait"] = latency(es.submit_wait);
        if (ring_) {
            glr_ring_stats rs{};
            glr_ring_get_stats(ring_, &rs);
            d["capture"] = latency(rs.stall);
            d["readback"] = latency(rs.readback);
            d["fence_wait"] = latency(rs.fence_wait);
            d["ring_path"] = rs.path ? rs.path : "";
        }
        return d;
    }

private:
    void usable(const char *call) const
    {
        if (closed_)
            throw failure{-EINVAL, std::string("Recorder.") + call + ": the recorder is closed"};
        if (ring_ && std::this_thread::get_id() != gl_thread_)
            throw failure{-EINVAL, std::string("Recorder.") + call +
                                       ": called from another thread than its first frame's, whose GL context "
                                       "it reads"};
    }

    void make_ring()
    {
        glr_ring_params rp{};
        rp.width = encoder_.params.width;
        rp.height = encoder_.params.height;
        rp.format = encoder_.params.format;
        rp.color = encoder_.params.color;
        rp.capture_timeout_ns = UINT64_MAX; // an output that stalls is waited for
        if (!(ring_ = glr_ring_create(messages_log(), &rp))) {
            // moderngl asks for OpenGL 3.3 unless told otherwise, and NVIDIA's driver then
            // gives exactly that: say what to change in Python's words.
            if (gpu_convert_ && glr_last_error_code() == GLR_ERROR_UNSUPPORTED)
                throw failure{GLR_ERROR_UNSUPPORTED,
                              std::string(glr_last_error()) + " (with moderngl: create_standalone_context(require=430) "
                                                              "or create_context(require=430); or give the Recorder "
                                                              "gpu_convert=False)"};
            fail_with_last_error();
        }
        gl_thread_ = std::this_thread::get_id();
    }

    // The oldest frame read back (waiting up to timeout_ns) to the encoder; false: none.
    bool hand_over(uint64_t timeout_ns)
    {
        glr_frame f{};
        int rc;
        {
            nb::gil_scoped_release unlocked;
            rc = glr_ring_acquire(ring_, &f, timeout_ns);
            if (rc == 0)
                rc = glr_encoder_submit(encoder_ptr_, &f); // a full queue waits for the encoder
        }
        if (rc == -EAGAIN || rc == -ENODATA)
            return false;
        if (rc < 0)
            fail_with_last_error();
        return true;
    }

    ffmpeg_messages ffmpeg_log_; // FFmpeg's lines (x264's summary) to logging while it lives
    encoder_options encoder_;
    glr_encoder *encoder_ptr_ = nullptr;
    glr_ring *ring_ = nullptr;
    std::thread::id gl_thread_;
    int64_t next_pts_ = 0, audio_next_ = 0;
    bool gpu_convert_ = false, closed_ = false;
    nb::dict final_;
};

} // namespace

void register_recorder(nb::module_ &m)
{
    nb::class_<recorder>(m, "RecorderCore")
        .def(nb::init<const nb::dict &>(), nb::arg("options"))
        .def("write", &recorder::write, nb::arg("kind"), nb::arg("name"))
        .def("write_audio", &recorder::write_audio, nb::arg("samples"), nb::arg("pts") = -1)
        .def("close", &recorder::close)
        .def("stats", &recorder::stats);
}

} // namespace glr_python
