// glreader-av's recorder: the caller's frames (a framebuffer of the test's own context)
// through the ring into the encoder or a frame sink, decoded back and compared with what
// was drawn; its stops (cancel, abandon from another thread) and its refusals.
#include "support/decoder.hpp"
#include "support/gl_test.hpp"
#include "support/pattern_scene.hpp"

#include "glreader/av/recorder.h"
#include "av/fault_injection.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

using glr_test::pattern_scene;
using glr_test::scratch_path;

// output must outlive the params.
glr_recorder_params recorder_params(int width, int height, const char *codec, const char *output)
{
    glr_recorder_params p{};
    p.encoder.width = width;
    p.encoder.height = height;
    p.encoder.fps_num = 25;
    p.encoder.fps_den = 1;
    p.encoder.codec = codec;
    p.encoder.output = output;
    return p;
}

glr_recorder_stats stats_of(const glr_recorder *rec)
{
    glr_recorder_stats s{};
    glr_recorder_get_stats(rec, &s);
    return s;
}

// A recorder made with p that recorded frames 0 to frames - 1 of scene; NULL, with a failure
// added, when it could not.
glr_recorder *recording(const glr_recorder_params &p, pattern_scene &scene, int frames)
{
    glr_recorder *rec = glr_recorder_create(nullptr, &p);
    EXPECT_NE(rec, nullptr) << glr_last_error();
    glr_source source = scene.source();
    for (int n = 0; rec && n < frames; n++) {
        scene.draw(static_cast<uint64_t>(n));
        if (glr_recorder_capture(rec, &source, n) != 0) {
            ADD_FAILURE() << "frame " << n << ": " << glr_last_error();
            glr_recorder_destroy(&rec);
        }
    }
    return rec;
}

using recorder_test = glr_test::gl_test;

// FFV1 takes BGRA as it is: every frame decodes to what was drawn, alpha included, and the
// recorder reports each step.
TEST_F(recorder_test, frames_of_the_caller_s_framebuffer_decode_pixel_exact)
{
    const int w = 64, h = 48, frames = 12;
    std::string path = scratch_path("recorder.mkv");
    glr_recorder_params p = recorder_params(w, h, "ffv1", path.c_str());
    glr_recorder_stats last_report{};
    p.progress = [](void *opaque, const glr_recorder_stats *s) { *static_cast<glr_recorder_stats *>(opaque) = *s; };
    p.progress_opaque = &last_report;
    glr_recorder *rec = glr_recorder_create(nullptr, &p);
    ASSERT_NE(rec, nullptr) << glr_last_error();
    EXPECT_EQ(stats_of(rec).ring_format, GLR_FORMAT_BGRA8);
    EXPECT_STREQ(stats_of(rec).plan.video_encoder, "ffv1");
    pattern_scene scene({w, h});
    glr_source source = scene.source();
    for (int n = 0; n < frames; n++) {
        scene.draw(static_cast<uint64_t>(n));
        ASSERT_EQ(glr_recorder_capture(rec, &source, n), 0) << glr_last_error();
        if (n == 0) // the first frame reaches the encoder before the first capture returns
            EXPECT_EQ(stats_of(rec).frames_delivered, 1);
    }
    ASSERT_EQ(glr_recorder_finish(rec), 0) << glr_last_error();
    glr_recorder_stats s = stats_of(rec);
    EXPECT_EQ(s.stop, GLR_EXPORT_COMPLETE);
    EXPECT_EQ(s.frames_captured, frames);
    EXPECT_EQ(s.frames_delivered, frames);
    EXPECT_EQ(s.encoder.frames_encoded, static_cast<uint64_t>(frames));
    EXPECT_EQ(s.ring.frames_released, static_cast<uint64_t>(frames));
    EXPECT_EQ(last_report.stop, GLR_EXPORT_COMPLETE); // finish's report
    EXPECT_EQ(last_report.frames_delivered, frames);
    glr_recorder_destroy(&rec);
    EXPECT_EQ(rec, nullptr);

    glr_test::expect_pattern_video(path, frames, w, h, true);
    std::remove(path.c_str());
}

// An encoder that wants YUV gets the ring's own conversion (no conversion on the CPU),
// as glr_encoder_check plans it; BGRA asked for leaves it to libswscale.
TEST_F(recorder_test, the_ring_converts_to_the_encoder_s_yuv_unless_bgra_is_asked_for)
{
    const int w = 64, h = 48, frames = 4;
    pattern_scene scene({w, h});
    glr_source source = scene.source();
    for (bool cpu : {false, true}) {
        std::string path = scratch_path(cpu ? "cpu.mp4" : "gpu.mp4");
        glr_recorder_params p = recorder_params(w, h, "libx264", path.c_str());
        p.encoder.codec_options = "preset=ultrafast";
        if (cpu)
            p.ring.format = GLR_FORMAT_BGRA8;
        glr_recorder *rec = glr_recorder_create(nullptr, &p);
        ASSERT_NE(rec, nullptr) << glr_last_error();
        for (int n = 0; n < frames; n++) {
            scene.draw(static_cast<uint64_t>(n));
            ASSERT_EQ(glr_recorder_capture(rec, &source, n), 0) << glr_last_error();
        }
        ASSERT_EQ(glr_recorder_finish(rec), 0) << glr_last_error();
        glr_recorder_stats s = stats_of(rec);
        glr_recorder_destroy(&rec);
        EXPECT_EQ(s.ring_format, cpu ? GLR_FORMAT_BGRA8 : GLR_FORMAT_I420) << cpu;
        EXPECT_EQ(s.encoder.converted_frames, cpu ? static_cast<uint64_t>(frames) : 0u) << cpu;
        glr_test::decoded_video v = glr_test::decode_file(path);
        ASSERT_EQ(v.error, "");
        EXPECT_EQ(v.pix_fmt, "yuv420p");
        EXPECT_EQ(v.frames.size(), static_cast<size_t>(frames));
        std::remove(path.c_str());
    }
}

// A cancel stops capturing; finish finalizes what was captured, as a stop.
TEST_F(recorder_test, a_cancel_keeps_the_frames_captured_and_finalizes_them)
{
    const int w = 32, h = 32;
    std::string path = scratch_path("cancelled.mkv");
    pattern_scene scene({w, h});
    glr_recorder *rec = recording(recorder_params(w, h, "ffv1", path.c_str()), scene, 5);
    ASSERT_NE(rec, nullptr);
    glr_source source = scene.source();
    glr_recorder_cancel(rec);
    EXPECT_EQ(glr_recorder_capture(rec, &source, 5), -ECANCELED);
    EXPECT_EQ(glr_recorder_finish(rec), 0) << glr_last_error();
    glr_recorder_stats s = stats_of(rec);
    EXPECT_EQ(s.stop, GLR_EXPORT_CANCELLED);
    EXPECT_EQ(s.cancel_requested, 1);
    EXPECT_EQ(s.frames_captured, 5);
    EXPECT_EQ(glr_recorder_finish(rec), 0); // again: the same code
    glr_recorder_destroy(&rec);
    glr_test::decoded_video v = glr_test::decode_file(path);
    ASSERT_EQ(v.error, "");
    ASSERT_EQ(v.frames.size(), 5u);
    EXPECT_EQ(glr_test::check_decoded(v.frames[4], 4, w, h, true), "");
    std::remove(path.c_str());
}

// Left behind from another thread (as a job leaves a render thread held in the driver): that
// thread finalizes the frames the encoder got; the capturing thread's later captures read
// nothing; destroy on the capturing thread frees the ring.
TEST_F(recorder_test, an_abandoned_recorder_is_finalized_from_another_thread)
{
    const int w = 32, h = 32;
    std::string path = scratch_path("abandoned.mkv");
    pattern_scene scene({w, h});
    glr_recorder *rec = recording(recorder_params(w, h, "ffv1", path.c_str()), scene, 3);
    ASSERT_NE(rec, nullptr);
    glr_source source = scene.source();
    int abandoned = 1, finished = 1;
    std::thread other([&] {
        abandoned = glr_recorder_abandon(rec);
        finished = glr_recorder_finish(rec);
    });
    other.join();
    EXPECT_EQ(abandoned, 0);
    EXPECT_EQ(finished, 0) << glr_last_error();
    EXPECT_EQ(glr_recorder_capture(rec, &source, 3), -ECANCELED);
    glr_recorder_stats s = stats_of(rec);
    EXPECT_EQ(s.stop, GLR_EXPORT_CANCELLED);
    glr_recorder_destroy(&rec);
    glr_test::decoded_video v = glr_test::decode_file(path);
    ASSERT_EQ(v.error, "");
    EXPECT_EQ(static_cast<int64_t>(v.frames.size()), s.frames_delivered);
    EXPECT_GE(v.frames.size(), 1u); // the first frame, waited for
    std::remove(path.c_str());
}

// A frame sink gets every frame in order, and owns its lease.
TEST_F(recorder_test, a_frame_sink_gets_every_frame_in_order)
{
    const int w = 48, h = 32, frames = 10;
    struct received {
        std::vector<int64_t> pts;
        std::string first_difference;
    } got;
    glr_recorder_params p{};
    p.ring.width = w;
    p.ring.height = h;
    p.ring.depth = 2;
    p.frame_sink = [](void *opaque, glr_frame *f) {
        auto *r = static_cast<received *>(opaque);
        r->pts.push_back(f->pts);
        std::vector<uint8_t> image = glr_test::pattern_image(static_cast<uint64_t>(f->pts), f->width, f->height);
        for (int y = 0; y < f->height && r->first_difference.empty(); y++)
            if (std::memcmp(f->planes[0].data + static_cast<ptrdiff_t>(y) * f->planes[0].stride,
                            &image[static_cast<size_t>(y) * static_cast<size_t>(f->width) * 4],
                            static_cast<size_t>(f->width) * 4) != 0)
                r->first_difference = "row " + std::to_string(y) + " of frame " + std::to_string(f->pts);
        glr_frame_release(f);
    };
    p.frame_sink_opaque = &got;
    glr_recorder *rec = glr_recorder_create(nullptr, &p);
    ASSERT_NE(rec, nullptr) << glr_last_error();
    EXPECT_EQ(stats_of(rec).ring_format, GLR_FORMAT_RGBA8);
    pattern_scene scene({w, h});
    glr_source source = scene.source();
    for (int n = 0; n < frames; n++) {
        scene.draw(static_cast<uint64_t>(n));
        ASSERT_EQ(glr_recorder_capture(rec, &source, n), 0) << glr_last_error();
    }
    ASSERT_EQ(glr_recorder_finish(rec), 0) << glr_last_error();
    EXPECT_EQ(stats_of(rec).stop, GLR_EXPORT_COMPLETE);
    glr_recorder_destroy(&rec);
    ASSERT_EQ(got.pts.size(), static_cast<size_t>(frames));
    for (int n = 0; n < frames; n++)
        EXPECT_EQ(got.pts[static_cast<size_t>(n)], n);
    EXPECT_EQ(got.first_difference, "");
}

// Pipe mode: the frames go to an ffmpeg child's stdin as they are (RGBA here, so that the
// file holds them byte for byte), and finish leaves ffmpeg's finalized file.
TEST_F(recorder_test, a_pipe_sink_writes_every_frame_to_an_ffmpeg_child)
{
    const int w = 64, h = 48, frames = 12;
    std::string path = scratch_path("piped.mkv");
    const char *args[] = {"-c:v", "ffv1", "-y", path.c_str(), nullptr};
    glr_recorder_params p = recorder_params(w, h, nullptr, nullptr);
    p.pipe.args = args;
    p.ring.format = GLR_FORMAT_RGBA8;
    pattern_scene scene({w, h});
    glr_recorder *rec = recording(p, scene, frames);
    ASSERT_NE(rec, nullptr);
    ASSERT_EQ(glr_recorder_finish(rec), 0) << glr_last_error();
    glr_recorder_stats s = stats_of(rec);
    glr_recorder_destroy(&rec);
    EXPECT_EQ(s.stop, GLR_EXPORT_COMPLETE);
    EXPECT_EQ(s.frames_delivered, frames);
    EXPECT_EQ(s.pipe.bytes_written, static_cast<uint64_t>(frames) * w * h * 4);
    EXPECT_EQ(s.encoder.frames_encoded, 0u);
    glr_test::expect_pattern_video(path, frames, w, h, true);
    std::remove(path.c_str());
}

// Readbacks still under way at the end, as on a GPU (the fence seam: polled, they are not
// done; waited for, they are): finish waits for each, so the encoder and the ffmpeg child
// each get every frame, in order, with its pixels.
TEST_F(recorder_test, finish_waits_for_the_frames_still_read_back)
{
    const int w = 64, h = 48, frames = 12;
    std::string encoded = scratch_path("in_flight.mkv"), piped = scratch_path("in_flight_piped.mkv");
    const char *args[] = {"-c:v", "ffv1", "-y", piped.c_str(), nullptr};
    glr_recorder_params to_encoder = recorder_params(w, h, "ffv1", encoded.c_str());
    glr_recorder_params to_pipe = recorder_params(w, h, nullptr, nullptr);
    to_pipe.pipe.args = args;
    to_pipe.ring.format = GLR_FORMAT_RGBA8;
    for (const glr_recorder_params &p : {to_encoder, to_pipe}) {
        const std::string &path = p.pipe.args ? piped : encoded;
        SCOPED_TRACE(path);
        glr_recorder *rec = glr_recorder_create(nullptr, &p);
        ASSERT_NE(rec, nullptr) << glr_last_error();
        glr_internal_recorder_fences_unsignalled(rec, 1000000);
        pattern_scene scene({w, h});
        glr_source source = scene.source();
        for (int n = 0; n < frames; n++) {
            scene.draw(static_cast<uint64_t>(n));
            ASSERT_EQ(glr_recorder_capture(rec, &source, n), 0) << glr_last_error();
        }
        EXPECT_LT(stats_of(rec).frames_delivered, frames) << "no frame was in flight at the end";
        ASSERT_EQ(glr_recorder_finish(rec), 0) << glr_last_error();
        EXPECT_EQ(stats_of(rec).frames_delivered, frames);
        glr_recorder_destroy(&rec);
        glr_test::expect_pattern_video(path, frames, w, h, true);
        std::remove(path.c_str());
    }
}

// By default the pipe carries NV12 made on the GPU; a child that fails says why in its own
// words, from finish.
TEST_F(recorder_test, a_pipe_sink_sends_nv12_and_a_failing_child_is_heard)
{
    const int w = 64, h = 48;
    std::string path = scratch_path("nv12.mkv");
    const char *args[] = {"-c:v", "ffv1", "-y", path.c_str(), nullptr};
    glr_recorder_params p = recorder_params(w, h, nullptr, nullptr);
    p.pipe.args = args;
    pattern_scene scene({w, h});
    glr_recorder *rec = recording(p, scene, 4);
    ASSERT_NE(rec, nullptr);
    EXPECT_EQ(stats_of(rec).ring_format, GLR_FORMAT_NV12);
    ASSERT_EQ(glr_recorder_finish(rec), 0) << glr_last_error();
    EXPECT_EQ(stats_of(rec).pipe.bytes_written, 4u * w * h * 3 / 2);
    glr_recorder_destroy(&rec);
    glr_test::decoded_video v = glr_test::decode_file(path);
    ASSERT_EQ(v.error, "");
    EXPECT_EQ(v.frames.size(), 4u);
    EXPECT_EQ(v.color_space, "bt709"); // the ring's conversion, told to ffmpeg with the input
    EXPECT_EQ(v.color_range, "tv");
    std::remove(path.c_str());

    glr_source source = scene.source();
    const char *bad[] = {"-c:v", "no-such-encoder", "-y", path.c_str(), nullptr};
    p.pipe.args = bad;
    rec = glr_recorder_create(nullptr, &p);
    ASSERT_NE(rec, nullptr) << glr_last_error();
    int rc = 0;
    for (int n = 0; n < 200 && rc == 0; n++) { // until the child is gone and the pipe says so
        scene.draw(static_cast<uint64_t>(n));
        rc = glr_recorder_capture(rec, &source, n);
    }
    int finished = glr_recorder_finish(rec);
    std::string words = glr_last_error();
    EXPECT_EQ(finished, GLR_ERROR_CHILD) << words;
    EXPECT_NE(words.find("no-such-encoder"), std::string::npos) << words;
    EXPECT_EQ(stats_of(rec).stop, GLR_EXPORT_FAILED);
    glr_recorder_destroy(&rec);
    std::remove(path.c_str());
}

// Refusals name their cause: a capture from another thread than the first capture's, a
// codec this FFmpeg lacks (before any file), a frame sink without a size.
TEST_F(recorder_test, refusals_name_their_cause)
{
    std::string path = scratch_path("refused.mkv");
    glr_recorder_params p = recorder_params(32, 32, "no-such-codec", path.c_str());
    EXPECT_EQ(glr_recorder_create(nullptr, &p), nullptr);
    EXPECT_NE(std::strstr(glr_last_error(), "no-such-codec"), nullptr) << glr_last_error();
    EXPECT_NE(access(path.c_str(), F_OK), 0);

    glr_recorder_params sink{};
    sink.frame_sink = [](void *, glr_frame *f) { glr_frame_release(f); };
    EXPECT_EQ(glr_recorder_create(nullptr, &sink), nullptr);
    EXPECT_NE(std::strstr(glr_last_error(), "ring.width and ring.height"), nullptr) << glr_last_error();

    p = recorder_params(32, 32, "ffv1", path.c_str());
    glr_recorder *rec = glr_recorder_create(nullptr, &p);
    ASSERT_NE(rec, nullptr) << glr_last_error();
    pattern_scene scene({32, 32});
    glr_source source = scene.source();
    scene.draw(0);
    ASSERT_EQ(glr_recorder_capture(rec, &source, 0), 0) << glr_last_error();
    int rc = 0;
    std::string message;
    std::thread other([&] {
        rc = glr_recorder_capture(rec, &source, 1);
        message = glr_last_error();
    });
    other.join();
    EXPECT_EQ(rc, -EINVAL);
    EXPECT_NE(message.find("another thread than the first capture's"), std::string::npos) << message;
    EXPECT_EQ(glr_recorder_finish(rec), 0) << glr_last_error();
    glr_recorder_destroy(&rec);
    std::remove(path.c_str());
}

} // namespace
