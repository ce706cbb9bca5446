// The recorder is glreader-av's glr_recorder: a ring made at the first frame, in the GL
// context current then, and an encoder opened at once (a bad option or an existing file
// fails before any frame). write() starts a frame's readback and returns; the frames read
// back go to the encoder as the ring hands them out, without a copy where the encoder
// takes the ring's format. Every GL call happens on the thread whose context was current
// at the first frame; another thread is refused, as is a call after close().
#include "recorder.hpp"

#include "errors.hpp"
#include "messages.hpp"
#include "options.hpp"

#include "glreader/av/recorder.h"

#include <nanobind/stl/string.h>

#include <cerrno>
#include <cstdint>
#include <string>

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
        glr_recorder_params p{};
        p.encoder = encoder_.params;
        // BGRA read back and converted on the CPU; else the recorder's choice: the
        // encoder's own YUV made on the GPU where the ring makes it.
        if (!get<bool>(o, "gpu_convert", true))
            p.ring.format = GLR_FORMAT_BGRA8;
        // Or no ring: converted on the GPU into the encoder's hardware frames, made now in
        // the current context.
        p.hw_frames = static_cast<glr_hw_frames_use>(get<int>(o, "hw_frames", GLR_HW_FRAMES_AUTO));
        hw_device_ = text(o, "hw_device");
        p.hw_device = c_str(hw_device_);
        if (!(rec_ = glr_recorder_create(messages_log(), &p)))
            fail_with_last_error();
        glr_recorder_stats s{};
        glr_recorder_get_stats(rec_, &s);
        gpu_convert_ = glr_format_get_info(s.ring_format)->yuv || s.hardware_frames;
        flush_messages();
    }
    recorder(const recorder &) = delete;
    recorder &operator=(const recorder &) = delete;
    ~recorder()
    {
        // Not closed (an exception in the caller's loop), and maybe away from its context:
        // what reached the encoder is finalized; the recorder and its ring are left to that
        // context (they cannot be freed away from it).
        if (rec_ && !closed_) {
            glr_recorder_abandon(rec_);
            glr_recorder_finish(rec_);
        }
    }

    void write(int kind, unsigned name)
    {
        usable("write");
        glr_source source{};
        source.kind = static_cast<glr_source_kind>(kind);
        source.name = name;
        int rc;
        {
            nb::gil_scoped_release unlocked; // a full ring waits for the encoder's queue
            rc = glr_recorder_capture(rec_, &source, next_pts_);
        }
        // moderngl asks for OpenGL 3.3 unless told otherwise, and NVIDIA's driver then gives
        // exactly that: say what to change in Python's words.
        if (rc == GLR_ERROR_UNSUPPORTED && next_pts_ == 0 && gpu_convert_)
            throw failure{GLR_ERROR_UNSUPPORTED,
                          std::string(glr_last_error()) + " (with moderngl: create_standalone_context(require=430) "
                                                          "or create_context(require=430); or give the Recorder "
                                                          "gpu_convert=False)"};
        if (rc < 0)
            fail_with_last_error();
        next_pts_++;
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
        if (glr_recorder_submit_audio(rec_, reinterpret_cast<const float *>(samples.c_str()), frames,
                                      pts < 0 ? audio_next_ : pts) < 0)
            fail_with_last_error();
        audio_next_ = (pts < 0 ? audio_next_ : pts) + frames;
    }

    nb::dict close()
    {
        if (closed_)
            return final_;
        usable("close");
        int rc;
        {
            nb::gil_scoped_release unlocked; // the frames under way, the encoder's last ones and the trailer
            rc = glr_recorder_finish(rec_);
        }
        std::string message = rc < 0 ? glr_last_error() : "";
        final_ = stats();
        glr_recorder_destroy(&rec_);
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
        glr_recorder_stats s{};
        glr_recorder_get_stats(rec_, &s);
        const glr_encoder_stats &es = s.encoder;
        nb::dict d;
        d["frames_written"] = next_pts_;
        d["frames_encoded"] = es.frames_encoded;
        d["bytes_written"] = es.bytes_written;
        d["audio_samples_encoded"] = es.audio_samples_encoded;
        d["zero_copy_frames"] = es.zero_copy_frames;
        d["converted_frames"] = es.converted_frames;
        d["copied_frames"] = es.copied_frames;
        d["hardware_frames"] = es.hardware_frames;
        d["transferred_frames"] = es.transferred_frames;
        d["gpu_convert"] = gpu_convert_;
        d["hw_frames"] = s.hardware_frames != 0;
        d["ring_format"] = glr_format_name(s.ring_format);
        d["encode"] = latency(es.encode);
        d["write"] = latency(es.write);
        d["submit_wait"] = latency(es.submit_wait);
        if (next_pts_ > 0) {
            d["capture"] = latency(s.ring.stall);
            d["readback"] = latency(s.ring.readback);
            d["fence_wait"] = latency(s.ring.fence_wait);
            d["ring_path"] = s.ring.path ? s.ring.path : "";
        }
        return d;
    }

private:
    void usable(const char *call) const
    {
        if (closed_)
            throw failure{-EINVAL, std::string("Recorder.") + call + ": the recorder is closed"};
    }

    ffmpeg_messages ffmpeg_log_; // FFmpeg's lines (x264's summary) to logging while it lives
    encoder_options encoder_;
    std::optional<std::string> hw_device_;
    glr_recorder *rec_ = nullptr;
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
