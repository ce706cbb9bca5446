// glreader-av: frames from the ring encoded in-process, decoded back and compared with
// what was rendered; and every bad input's error.
#include "support/audio_files.hpp"
#include "support/decoder.hpp"
#include "support/gl_test.hpp"
#include "support/pattern_scene.hpp"
#include "support/process.hpp"

#include "glreader/av/encoder.hpp"
#include "av/fault_injection.h"

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
}

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <cmath>
#include <thread>
#include <tuple>
#include <vector>

namespace {

using glr_test::pattern_scene;
using glr_test::ring_params;
using glr_test::scratch_path;

// output must outlive the params (they keep the pointer).
glr_encoder_params encoder_params(int width, int height, glr_format format, const char *codec,
                                  const char *output)
{
    glr_encoder_params p{};
    p.width = width;
    p.height = height;
    p.format = format;
    p.fps_num = 25;
    p.fps_den = 1;
    p.codec = codec;
    p.output = output;
    return p;
}

// Renders `frames` pattern frames through a ring into an encoder; returns the stats.
glr_encoder_stats encode_pattern(const glr_ring_params &rp, glr_encoder_params ep, int frames)
{
    pattern_scene scene({rp.width, rp.height});
    glr::ring ring(rp);
    glr::encoder enc(ep);
    auto submit = [&](glr::frame &&f) { enc.submit(std::move(f)); };
    for (int n = 0; n < frames; n++) {
        scene.draw(static_cast<uint64_t>(n));
        ring.capture(scene.source(), n, submit);
    }
    ring.drain(submit);
    enc.finish();
    return enc.stats();
}

using lossless_case = std::tuple<int, int, const char *>;

class encoder_lossless : public glr_test::gl_test,
                         public ::testing::WithParamInterface<lossless_case> {};

TEST_P(encoder_lossless, every_frame_once_in_order_pixel_exact_with_pts)
{
    auto [ring_depth, queue_depth, kind] = GetParam();
    // ffv1: fast, takes BGRA as is (zero-copy). rawvideo: takes RGBA as is. libx264rgb at
    // qp 0 is lossless too but slow (veryslow preset, lookahead): the slow consumer, fed
    // through a conversion to bgr0 that drops alpha.
    std::string k = kind;
    bool slow = k == "x264rgb";
    std::string path = scratch_path("lossless_" + k + (k == "rawvideo" ? ".nut" : ".mkv"));
    const int w = 48, h = 32, frames = 40;
    glr_encoder_params ep = encoder_params(w, h, k == "rawvideo" ? GLR_FORMAT_RGBA8 : GLR_FORMAT_BGRA8,
                                           slow ? "libx264rgb" : k.c_str(), path.c_str());
    ep.codec_options = slow ? "qp=0:preset=veryslow" : nullptr;
    ep.queue_depth = queue_depth;
    glr_encoder_stats stats = encode_pattern(
        ring_params(w, h, ep.format, GLR_FLIP_STRIDE, ring_depth), ep, frames);
    EXPECT_EQ(stats.frames_submitted, static_cast<uint64_t>(frames));
    EXPECT_EQ(stats.frames_encoded, static_cast<uint64_t>(frames));
    if (slow) {
        EXPECT_EQ(stats.converted_frames, static_cast<uint64_t>(frames));
    } else {
        EXPECT_EQ(stats.converted_frames, 0u); // the encoder takes the ring's format as it is
        EXPECT_EQ(stats.zero_copy_frames + stats.copied_frames, static_cast<uint64_t>(frames));
    }

    glr_test::decoded_video v = glr_test::decode_file(path);
    ASSERT_EQ(v.error, "");
    EXPECT_EQ(v.codec, slow ? "h264" : k);
    ASSERT_EQ(v.frames.size(), static_cast<size_t>(frames));
    for (int n = 0; n < frames; n++) {
        const auto &d = v.frames[static_cast<size_t>(n)];
        // pts counts frames at 25 fps, whatever the container's time base.
        ASSERT_EQ(d.pts * v.time_base_num * 25, static_cast<int64_t>(n) * v.time_base_den) << "frame " << n;
        ASSERT_EQ(glr_test::check_decoded(d, static_cast<uint64_t>(n), w, h, !slow), "");
    }
    std::remove(path.c_str());
}

std::string lossless_name(const ::testing::TestParamInfo<lossless_case> &info)
{
    auto [ring_depth, queue_depth, kind] = info.param;
    return "ring" + std::to_string(ring_depth) + "_queue" + std::to_string(queue_depth) + "_" + kind;
}

INSTANTIATE_TEST_SUITE_P(matrix, encoder_lossless,
                         ::testing::Combine(::testing::Range(1, 5), ::testing::Range(1, 4),
                                            ::testing::Values("ffv1", "rawvideo", "x264rgb")),
                         lossless_name);

using encoder_test = glr_test::gl_test;

TEST_F(encoder_test, h264_yuv420p_decodes_with_high_psnr)
{
    std::string path = scratch_path("h264.mp4");
    const int w = 64, h = 48, frames = 30;
    glr_encoder_params ep = encoder_params(w, h, GLR_FORMAT_RGBA8, "libx264", path.c_str());
    ep.codec_options = "preset=ultrafast:crf=12";
    glr_encoder_stats stats = encode_pattern(ring_params(w, h), ep, frames);
    EXPECT_EQ(stats.converted_frames, static_cast<uint64_t>(frames)); // RGBA -> yuv420p
    EXPECT_GT(stats.bytes_written, 0u);

    glr_test::decoded_video v = glr_test::decode_file(path);
    ASSERT_EQ(v.error, "");
    EXPECT_EQ(v.codec, "h264");
    EXPECT_EQ(v.pix_fmt, "yuv420p");
    EXPECT_EQ(v.color_space, "bt709"); // what the frames were converted with
    EXPECT_EQ(v.color_range, "tv");    // limited range
    ASSERT_EQ(v.frames.size(), static_cast<size_t>(frames));
    auto rendered = [&](uint64_t n, bool upside_down) {
        std::vector<uint8_t> image(static_cast<size_t>(w * h * 4));
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                auto p = glr_test::pattern(n, x, upside_down ? h - 1 - y : y);
                std::copy(p.begin(), p.end(), image.begin() + (y * w + x) * 4);
            }
        return image;
    };
    for (int n = 0; n < frames; n += 7) {
        const auto &got = v.frames[static_cast<size_t>(n)].rgba;
        // The pattern changes colour at every pixel, the worst case for 4:2:0: above 24 dB
        // the picture is right and upright (upside down it scores below 20 dB).
        EXPECT_GT(glr_test::psnr_rgb(rendered(static_cast<uint64_t>(n), false), got), 24.0) << "frame " << n;
        EXPECT_LT(glr_test::psnr_rgb(rendered(static_cast<uint64_t>(n), true), got), 20.0) << "frame " << n;
    }
    std::remove(path.c_str());
}

// Creating an encoder with p fails with NULL and a message; returns the message.
std::string create_fails(const glr_encoder_params &p, int expected_code = -EINVAL)
{
    glr_encoder *enc = glr_encoder_create(nullptr, &p);
    EXPECT_EQ(enc, nullptr);
    glr_encoder_destroy(&enc);
    EXPECT_EQ(glr_last_error_code(), expected_code) << glr_last_error();
    return glr_last_error();
}

bool contains(const std::string &text, const std::string &part) { return text.find(part) != std::string::npos; }

TEST(encoder_errors, bad_parameters_name_the_cause)
{
    std::string path = scratch_path("errors.mkv");
    glr_encoder_params p = encoder_params(64, 48, GLR_FORMAT_RGBA8, "no_such_encoder", path.c_str());
    std::string m = create_fails(p);
    EXPECT_TRUE(contains(m, "'no_such_encoder' is no video encoder or codec this FFmpeg knows")) << m;
    EXPECT_TRUE(contains(m, "video encoders for the matroska muxer here: libx264")) << m; // what would do
    EXPECT_TRUE(contains(m, "ffv1")) << m;
    EXPECT_FALSE(contains(m, "a64multi")) << m; // a few that would do, not all ~130

    p = encoder_params(64, 48, GLR_FORMAT_RGBA8, "ffv1", path.c_str());
    p.container = "no_such_muxer";
    m = create_fails(p);
    EXPECT_TRUE(contains(m, "'no_such_muxer' is not a muxer")) << m;
    p.container = "mkv"; // an extension, not the muxer's name
    m = create_fails(p);
    EXPECT_TRUE(contains(m, "did you mean matroska")) << m;

    std::string bad_extension = scratch_path("out.unknown_ext");
    p = encoder_params(64, 48, GLR_FORMAT_RGBA8, "ffv1", bad_extension.c_str());
    EXPECT_TRUE(contains(create_fails(p), "cannot tell the container"));

    p = encoder_params(64, 48, GLR_FORMAT_RGBA8, "libx264", path.c_str());
    p.codec_options = "preset=ultrafast:no_such_option=3";
    m = create_fails(p);
    EXPECT_TRUE(contains(m, "encoder libx264 has no option 'no_such_option'")) << m;

    p = encoder_params(65, 48, GLR_FORMAT_RGBA8, "libx264", path.c_str());
    p.pix_fmt = "yuv420p";
    m = create_fails(p);
    EXPECT_TRUE(contains(m, "65x48 cannot be encoded as yuv420p")) << m;

    p = encoder_params(64, 48, GLR_FORMAT_RGBA8, "libx264", path.c_str());
    p.pix_fmt = "pal8";
    m = create_fails(p);
    EXPECT_TRUE(contains(m, "libx264 cannot encode pal8; it takes:")) << m;

    // Matroska counts milliseconds: a million frames a second would share timestamps.
    p = encoder_params(64, 48, GLR_FORMAT_RGBA8, "ffv1", path.c_str());
    p.fps_num = 1000000;
    m = create_fails(p);
    EXPECT_TRUE(contains(m, "a matroska file cannot hold 1000000/1 frames a second: its time base, 1/1000")) << m;
    EXPECT_FALSE(std::ifstream(path).good()) << "nothing is written for a refused rate";

    p = encoder_params(64, 48, GLR_FORMAT_RGBA8, "ffv1", "/nonexistent-dir/out.mkv");
    m = create_fails(p, -ENOENT);
    EXPECT_TRUE(contains(m, "cannot open /nonexistent-dir/out.mkv for writing: No such file or directory")) << m;

    // Pixel formats by name, and FFmpeg's own limit on a picture's size said in words.
    p = encoder_params(16384, 16384, GLR_FORMAT_BGRA8, "ffv1", path.c_str());
    m = create_fails(p, GLR_ERROR_CODEC);
    EXPECT_TRUE(contains(m, "cannot make 16384x16384 frames of bgra: FFmpeg takes pictures of fewer than about 268 "
                            "million pixels")) << m;
    EXPECT_FALSE(std::ifstream(path).good()) << "nothing is written for a refused size";

    p = encoder_params(0, 48, GLR_FORMAT_RGBA8, "ffv1", path.c_str());
    EXPECT_TRUE(contains(create_fails(p), "invalid size 0x48"));
    EXPECT_EQ(glr_encoder_create(nullptr, nullptr), nullptr);
    EXPECT_TRUE(contains(glr_last_error(), "params is NULL"));
    std::remove(path.c_str());
}

TEST_F(encoder_test, disk_full_is_reported_and_no_lease_is_lost)
{
    const int w = 64, h = 48;
    glr_encoder_params ep = encoder_params(w, h, GLR_FORMAT_RGBA8, "rawvideo", "/dev/full");
    ep.container = "nut";
    ep.chunk_size = 4096;
    pattern_scene scene({w, h});
    glr::ring ring(ring_params(w, h));
    // The header may already fail to be written: either way the error names ENOSPC.
    glr_encoder *enc = glr_encoder_create(nullptr, &ep);
    if (!enc) {
        EXPECT_EQ(glr_last_error_code(), -ENOSPC) << glr_last_error();
        return;
    }
    int first_error = 0;
    for (int n = 0; n < 50 && first_error == 0; n++) {
        scene.draw(static_cast<uint64_t>(n));
        while (!ring.try_capture(scene.source(), n))
            if (auto g = ring.acquire(UINT64_MAX)) {
                glr_frame c = g->detach();
                first_error = glr_encoder_submit(enc, &c);
            }
        while (auto g = ring.acquire(0)) {
            glr_frame c = g->detach();
            int rc = glr_encoder_submit(enc, &c);
            if (first_error == 0)
                first_error = rc;
        }
    }
    ring.drain([&](glr::frame &&g) {
        glr_frame c = g.detach();
        glr_encoder_submit(enc, &c);
    });
    int rc = glr_encoder_finish(enc);
    EXPECT_EQ(rc, -ENOSPC);
    EXPECT_TRUE(contains(glr_last_error(), "No space left on device")) << glr_last_error();
    glr_encoder_destroy(&enc);
    EXPECT_EQ(ring.stats().frames_leased_now, 0u); // every lease came back
}

TEST_F(encoder_test, frame_of_the_wrong_size_is_refused_and_released)
{
    std::string path = scratch_path("mismatch.nut");
    pattern_scene scene({32, 32});
    glr::ring ring(ring_params(32, 32));
    glr::encoder enc(encoder_params(64, 48, GLR_FORMAT_RGBA8, "rawvideo", path.c_str()));
    ASSERT_TRUE(ring.try_capture(scene.source(), 0));
    auto f = ring.acquire(UINT64_MAX);
    ASSERT_TRUE(f);
    try {
        enc.submit(std::move(*f));
        ADD_FAILURE() << "a 32x32 frame was accepted by a 64x48 encoder";
    } catch (const glr::error &e) {
        EXPECT_EQ(e.code(), -EINVAL);
        EXPECT_TRUE(contains(e.what(), "the frame is 32x32 rgba, the encoder was opened for 64x48 rgba")) << e.what();
    }
    EXPECT_EQ(ring.stats().frames_leased_now, 0u);
    enc.finish();
    std::remove(path.c_str());
}

// The state of one of this process's threads, as the kernel gives it ('S': asleep).
char thread_state(pid_t tid)
{
    std::ifstream stat("/proc/self/task/" + std::to_string(tid) + "/stat");
    std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    size_t name_end = text.rfind(')');
    return name_end == std::string::npos || name_end + 2 >= text.size() ? '?' : text[name_end + 2];
}

// queue_depth is how many frames wait for the encoder thread: with its output stalled (a FIFO
// read only once the submitting thread sleeps in submit), that many wait and no more, and
// every frame arrives once the FIFO is read.
TEST_F(encoder_test, queue_depth_frames_wait_while_the_output_is_stalled_and_no_more)
{
    const int w = 256, h = 256, frames = 12, queue = 1; // 256 KiB a frame: four times a pipe's buffer
    std::string fifo = scratch_path("queue.fifo"), path = scratch_path("queue.nut");
    std::remove(fifo.c_str());
    ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0) << std::strerror(errno);
    int reader = open(fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    ASSERT_GE(reader, 0) << std::strerror(errno);
    ASSERT_EQ(fcntl(reader, F_SETFL, 0), 0) << std::strerror(errno);
    glr_encoder_params ep = encoder_params(w, h, GLR_FORMAT_RGBA8, "rawvideo", fifo.c_str());
    ep.container = "nut";
    ep.chunk_size = 65536;
    ep.queue_depth = queue;
    // Every frame read back first, so that the submitting thread does nothing but submit.
    pattern_scene scene({w, h});
    glr::ring ring(ring_params(w, h, ep.format, GLR_FLIP_STRIDE, frames + 1));
    std::vector<glr::frame> leases;
    auto keep = [&](glr::frame &&f) { leases.push_back(std::move(f)); };
    for (int n = 0; n < frames; n++) {
        scene.draw(static_cast<uint64_t>(n));
        ring.capture(scene.source(), n, keep);
    }
    ring.drain(keep);
    ASSERT_EQ(leases.size(), static_cast<size_t>(frames));
    glr::encoder enc(ep);
    std::atomic<pid_t> submitter{0};
    std::thread submitting([&] {
        submitter = gettid();
        for (glr::frame &f : leases)
            enc.submit(std::move(f));
        enc.finish();
    });
    glr_encoder_stats full{};
    glr_test::wait_until(
        [&] {
            if (!submitter || thread_state(submitter) != 'S')
                return false;
            full = enc.stats();
            return full.write_in_progress_ms > 0 && full.frames_submitted < static_cast<uint64_t>(frames);
        },
        "the submitting thread asleep in submit, the output stalled");
    std::ofstream out(path, std::ios::binary);
    char block[65536];
    for (ssize_t got; (got = read(reader, block, sizeof block)) > 0;)
        out.write(block, got);
    out.close();
    submitting.join();
    close(reader);
    EXPECT_EQ(full.max_frames_queued, static_cast<uint64_t>(queue)) << "queue_depth frames waited, stalled";
    EXPECT_EQ(enc.stats().max_frames_queued, static_cast<uint64_t>(queue)) << "no more ever waited";
    glr_test::expect_pattern_video(path, frames, w, h, true);
    std::remove(fifo.c_str());
    std::remove(path.c_str());
}

TEST_F(encoder_test, encoder_that_holds_frames_gets_copies_instead_of_starving_the_ring)
{
    // PNG with frame threads keeps each input frame until a worker is done with it. The
    // ring must never be left without a free slot: past depth - 1 held slots the encoder
    // copies, and every frame still arrives, in order, pixel-exact. At depth 1 every frame
    // is a copy; deeper, how many frames the workers still hold depends on their speed.
    for (int depth : {1, 2, 3}) {
        std::string path = scratch_path("png_" + std::to_string(depth) + ".nut");
        const int w = 48, h = 32, frames = 30;
        glr_encoder_params ep = encoder_params(w, h, GLR_FORMAT_RGBA8, "png", path.c_str());
        ep.codec_options = "threads=2";
        glr_ring_params rp = ring_params(w, h, GLR_FORMAT_RGBA8, GLR_FLIP_STRIDE, depth);
        rp.capture_timeout_ns = 5'000'000'000ull; // a starved ring would fail here, not hang
        glr_encoder_stats stats = encode_pattern(rp, ep, frames);
        EXPECT_EQ(stats.frames_encoded, static_cast<uint64_t>(frames));
        EXPECT_LE(stats.max_frames_held, static_cast<uint64_t>(depth - 1)) << "depth " << depth;
        if (depth == 1)
            EXPECT_EQ(stats.copied_frames, static_cast<uint64_t>(frames));
        EXPECT_EQ(stats.copied_frames + stats.zero_copy_frames, static_cast<uint64_t>(frames));
        glr_test::expect_pattern_video(path, frames, w, h, true);
        std::remove(path.c_str());
    }
}

// A chunk's encoder: frames from first_pts on, and a sound track that starts at that
// frame's sample, its PCM stamped from pts 0's time (frame 10 at 25 fps: 0.4 s, sample
// 19200 at 48 kHz); a frame before first_pts, and first_pts without use_frame_pts or
// below 0, are refused.
TEST_F(encoder_test, first_pts_starts_the_frames_and_the_sound_on_the_timeline)
{
    std::string path = scratch_path("first_pts.mkv");
    const int w = 32, h = 32;
    pattern_scene scene({w, h});
    glr::ring ring(ring_params(w, h, GLR_FORMAT_BGRA8));
    glr_encoder_params ep = encoder_params(w, h, GLR_FORMAT_BGRA8, "ffv1", path.c_str());
    ep.fps_num = 25;
    ep.fps_den = 1;
    ep.audio.sample_rate = 48000;
    ep.audio.channels = 2;
    ep.audio.codec = "flac";
    for (auto [use, first, words] : {std::tuple<int, int64_t, const char *>{0, 10, "set without use_frame_pts"},
                                     std::tuple<int, int64_t, const char *>{1, -1, "is negative"}}) {
        glr_encoder_params bad = ep;
        bad.use_frame_pts = use;
        bad.first_pts = first;
        EXPECT_EQ(glr_encoder_create(nullptr, &bad), nullptr);
        EXPECT_TRUE(contains(glr_last_error(), words)) << glr_last_error();
    }
    ep.use_frame_pts = 1;
    ep.first_pts = 10;
    glr::encoder enc(ep);
    ASSERT_TRUE(ring.try_capture(scene.source(), 9));
    try {
        enc.submit(std::move(*ring.acquire(UINT64_MAX)));
        ADD_FAILURE() << "a frame before first_pts was accepted";
    } catch (const glr::error &e) {
        EXPECT_TRUE(contains(e.what(), "pts 9 is before first_pts 10")) << e.what();
    }
    std::vector<float> sound(1920 * 2, 0.25f);
    EXPECT_EQ(glr_encoder_submit_audio(enc.get(), sound.data(), 1920, 19199), -EINVAL) << "before the track's start";
    for (int64_t p : {10, 11}) {
        scene.draw(static_cast<uint64_t>(p));
        ASSERT_TRUE(ring.try_capture(scene.source(), p));
        enc.submit(std::move(*ring.acquire(UINT64_MAX)));
        ASSERT_EQ(glr_encoder_submit_audio(enc.get(), sound.data(), 1920, p * 1920), 0) << glr_last_error();
    }
    enc.finish();
    EXPECT_EQ(enc.stats().audio_samples_encoded, 2u * 1920) << "two frames' samples, from the first frame's";
    AVFormatContext *in = nullptr;
    ASSERT_EQ(avformat_open_input(&in, path.c_str(), nullptr, nullptr), 0);
    avformat_find_stream_info(in, nullptr);
    double first_video = -1, first_audio = -1;
    AVPacket *packet = av_packet_alloc();
    while (av_read_frame(in, packet) >= 0) {
        const AVStream *st = in->streams[packet->stream_index];
        double &first = st->codecpar->codec_type == AVMEDIA_TYPE_AUDIO ? first_audio : first_video;
        if (first < 0)
            first = static_cast<double>(packet->pts) * av_q2d(st->time_base);
        av_packet_unref(packet);
    }
    av_packet_free(&packet);
    avformat_close_input(&in);
    EXPECT_NEAR(first_video, 0.4, 0.0005);
    EXPECT_NEAR(first_audio, 0.4, 0.0005) << "the sound starts with the first frame";
    std::remove(path.c_str());
}

TEST_F(encoder_test, explicit_pts_are_kept_and_must_increase)
{
    std::string path = scratch_path("pts.mkv");
    const int w = 32, h = 32;
    pattern_scene scene({w, h});
    glr::ring ring(ring_params(w, h, GLR_FORMAT_BGRA8));
    glr_encoder_params ep = encoder_params(w, h, GLR_FORMAT_BGRA8, "ffv1", path.c_str());
    ep.use_frame_pts = 1;
    glr::encoder enc(ep);
    const int64_t pts[] = {0, 1, 5, 6, 20};
    for (int64_t p : pts) {
        scene.draw(static_cast<uint64_t>(p));
        ASSERT_TRUE(ring.try_capture(scene.source(), p));
        enc.submit(std::move(*ring.acquire(UINT64_MAX)));
    }
    ASSERT_TRUE(ring.try_capture(scene.source(), 20)); // not after 20
    try {
        enc.submit(std::move(*ring.acquire(UINT64_MAX)));
        ADD_FAILURE() << "a repeated pts was accepted";
    } catch (const glr::error &e) {
        EXPECT_EQ(e.code(), -EINVAL);
        EXPECT_TRUE(contains(e.what(), "pts 20 does not increase (the last was 20)")) << e.what();
    }
    enc.finish();
    EXPECT_EQ(ring.stats().frames_leased_now, 0u); // the refused frame came back too
    glr_test::decoded_video v = glr_test::decode_file(path);
    ASSERT_EQ(v.frames.size(), 5u);
    for (size_t i = 0; i < 5; i++)
        EXPECT_EQ(v.frames[i].pts * v.time_base_num * 25, pts[i] * v.time_base_den) << "frame " << i;
    std::remove(path.c_str());
}

TEST_F(encoder_test, encoder_failure_mid_stream_is_sticky_and_the_file_is_finalized)
{
    std::string path = scratch_path("failing.mkv");
    const int w = 48, h = 32, fail_after = 10;
    pattern_scene scene({w, h});
    glr::ring ring(ring_params(w, h, GLR_FORMAT_BGRA8));
    glr_encoder_params ep = encoder_params(w, h, GLR_FORMAT_BGRA8, "ffv1", path.c_str());
    glr_encoder *enc = glr_encoder_create(nullptr, &ep);
    ASSERT_NE(enc, nullptr);
    glr_internal_encoder_fail_after(enc, fail_after);
    int first_error = 0;
    auto submit = [&](glr::frame &&f) {
        glr_frame c = f.detach();
        int rc = glr_encoder_submit(enc, &c);
        if (rc < 0 && first_error == 0)
            first_error = rc;
    };
    for (int n = 0; n < 60; n++) {
        scene.draw(static_cast<uint64_t>(n));
        ring.capture(scene.source(), n, submit);
    }
    ring.drain(submit);
    EXPECT_EQ(first_error, GLR_ERROR_CODEC); // later submits return the sticky error
    EXPECT_EQ(glr_encoder_finish(enc), GLR_ERROR_CODEC);
    EXPECT_TRUE(contains(glr_last_error(), "encoder ffv1 failed")) << glr_last_error();
    glr_encoder_stats stats{};
    glr_encoder_get_stats(enc, &stats);
    EXPECT_EQ(stats.frames_encoded, static_cast<uint64_t>(fail_after));
    glr_encoder_destroy(&enc);
    EXPECT_EQ(ring.stats().frames_leased_now, 0u); // every lease came back

    // What was encoded before the failure was finalized and decodes, pixel-exact.
    glr_test::expect_pattern_video(path, fail_after, w, h, true);
    std::remove(path.c_str());
}

TEST_F(encoder_test, yuv_colours_survive_the_round_trip_as_tagged)
{
    // Flat saturated colours through RGB -> yuv420p (BT.709, limited) -> H.264 at qp 0 ->
    // decoded as tagged: each comes back within 4 levels (8-bit limited range rounds by up
    // to 3). Converting with BT.601 while tagging BT.709 shifts them by up to 22.
    std::string path = scratch_path("colours.mkv");
    const int w = 32, h = 32;
    const uint8_t colours[][3] = {{200, 30, 60}, {20, 180, 90}, {40, 60, 220}, {128, 128, 128}};
    pattern_scene scene({w, h});
    glr::ring ring(ring_params(w, h));
    glr_encoder_params ep = encoder_params(w, h, GLR_FORMAT_RGBA8, "libx264", path.c_str());
    ep.codec_options = "qp=0";
    glr::encoder enc(ep);
    auto submit = [&](glr::frame &&f) { enc.submit(std::move(f)); };
    const GladGLContext &gl = scene.gl();
    for (int n = 0; n < 4; n++) {
        gl.BindFramebuffer(GL_FRAMEBUFFER, scene.fbo());
        gl.ClearColor(colours[n][0] / 255.0f, colours[n][1] / 255.0f, colours[n][2] / 255.0f, 1.0f);
        gl.Clear(GL_COLOR_BUFFER_BIT);
        ring.capture(scene.source(), n, submit);
    }
    ring.drain(submit);
    enc.finish();
    glr_test::decoded_video v = glr_test::decode_file(path);
    ASSERT_EQ(v.frames.size(), 4u);
    for (int n = 0; n < 4; n++) {
        const uint8_t *centre = &v.frames[static_cast<size_t>(n)].rgba[(16 * w + 16) * 4];
        for (int c = 0; c < 3; c++)
            EXPECT_NEAR(centre[c], colours[n][c], 4) << "colour " << n << " channel " << c;
    }
    std::remove(path.c_str());
}

} // namespace

namespace {

// A YUV ring with the given colour into the encoder; every frame checked against the
// conversion's reference after decoding (luma within 1, chroma within 2 code values).
class encoder_yuv : public glr_test::gl_test {
protected:
    glr_test::decoded_video encode_yuv(glr_format ring_format, const glr_color &color, const char *codec,
                                       const char *pix_fmt, const std::string &path, glr_encoder_stats &stats,
                                       int frames = 12)
    {
        glr_ring_params rp = ring_params(64, 48, ring_format);
        rp.color = color;
        glr_encoder_params ep = encoder_params(64, 48, ring_format, codec, path.c_str());
        ep.color = color;
        ep.pix_fmt = pix_fmt;
        stats = encode_pattern(rp, ep, frames);
        return glr_test::decode_file(path);
    }
};

TEST_F(encoder_yuv, yuv_leases_reach_x264_without_a_copy)
{
    for (glr_format format : {GLR_FORMAT_I420, GLR_FORMAT_NV12}) {
        SCOPED_TRACE(glr_format_name(format));
        std::string path = scratch_path("zero_copy.mkv");
        glr_encoder_stats st{};
        auto v = encode_yuv(format, {}, "libx264", glr_format_name(format), path, st, 20);
        ASSERT_EQ(v.error, "");
        EXPECT_EQ(v.frames.size(), 20u);
        EXPECT_EQ(st.zero_copy_frames, 20u);
        EXPECT_EQ(st.converted_frames, 0u);
        EXPECT_EQ(st.copied_frames, 0u);
        std::remove(path.c_str());
    }
}

TEST_F(encoder_yuv, lossless_yuv_is_the_gpu_conversion_exactly_and_the_fallback_converts_the_rest)
{
    // yuv420p and yuv444p leases go to ffv1 as they are; nv12 and p010le are repacked by
    // libswscale (ffv1 takes neither). Either way the file holds the GPU's conversion.
    struct yuv_case {
        glr_format ring;
        const char *pix_fmt;
        bool zero_copy;
    };
    for (const yuv_case &c : {yuv_case{GLR_FORMAT_I420, "yuv420p", true}, yuv_case{GLR_FORMAT_YUV444, "yuv444p", true},
                              yuv_case{GLR_FORMAT_NV12, "yuv420p", false},
                              yuv_case{GLR_FORMAT_P010, "yuv420p10le", false}}) {
        SCOPED_TRACE(glr_format_name(c.ring));
        std::string path = scratch_path("lossless_yuv.mkv");
        glr_encoder_stats st{};
        glr_color color{};
        glr_color_resolve(c.ring, nullptr, &color);
        auto v = encode_yuv(c.ring, {}, "ffv1", c.pix_fmt, path, st);
        ASSERT_EQ(v.error, "");
        ASSERT_EQ(v.frames.size(), 12u);
        EXPECT_EQ(st.zero_copy_frames, c.zero_copy ? 12u : 0u);
        EXPECT_EQ(st.converted_frames, c.zero_copy ? 0u : 12u);
        for (size_t n = 0; n < v.frames.size(); n++) {
            auto want = glr_test::reference_yuv(glr_test::pattern_image(n, 64, 48), 64, 48, c.ring, color);
            auto d = glr_test::max_difference(v.frames[n].yuv, want);
            EXPECT_LE(d.luma, 1) << "frame " << n << ": " << d.where;
            EXPECT_LE(d.chroma, 2) << "frame " << n << ": " << d.where;
        }
        std::remove(path.c_str());
    }
}

TEST_F(encoder_yuv, streams_are_tagged_with_the_colour_of_their_frames)
{
    struct tag_case {
        glr_color color;
        const char *space, *range, *primaries, *trc, *chroma;
    };
    glr_color bt709{}, bt601{}, bt2020{};
    bt601.matrix = GLR_MATRIX_BT601;
    bt601.range = GLR_RANGE_FULL;
    bt601.chroma = GLR_CHROMA_CENTER;
    bt2020.matrix = GLR_MATRIX_BT2020_NCL;
    for (const tag_case &c : {tag_case{bt709, "bt709", "tv", "bt709", "bt709", "left"},
                              tag_case{bt601, "smpte170m", "pc", "smpte170m", "smpte170m", "center"},
                              tag_case{bt2020, "bt2020nc", "tv", "bt2020", "bt2020-10", "left"}})
        for (const char *container : {"mp4", "mkv"}) {
            SCOPED_TRACE(std::string(c.space) + " in " + container);
            std::string path = scratch_path(std::string("tags.") + container);
            glr_encoder_stats st{};
            auto v = encode_yuv(GLR_FORMAT_NV12, c.color, "libx264", "nv12", path, st, 3);
            ASSERT_EQ(v.error, "");
            EXPECT_EQ(v.color_space, c.space);
            EXPECT_EQ(v.color_range, c.range);
            EXPECT_EQ(v.color_primaries, c.primaries);
            EXPECT_EQ(v.color_trc, c.trc);
            EXPECT_EQ(v.chroma_location, c.chroma);
            std::remove(path.c_str());
        }
}

// A smooth animated scene, as most renders are.
const char *const smooth_scene = "void mainImage(out vec4 c, in vec2 p) {\n"
                                 "    vec2 uv = p / iResolution.xy;\n"
                                 "    c = vec4(0.5 + 0.4 * sin(uv.x * 3.0 + iTime), 0.5 + 0.4 * cos(uv.y * 2.0 - iTime),\n"
                                 "             uv.x * uv.y, 1.0);\n"
                                 "}\n";

// Renders `frames` frames of a scene (source; NULL: the built-in scene), converts them on
// the GPU to format, encodes them zero-copy with codec and its options into an MP4,
// decodes that back to RGB as tagged and checks each frame scores at least min_psnr dB
// against what was rendered.
void expect_encoded_scene_decodes_to_what_was_rendered(const char *source, glr_format format, const char *codec,
                                                       const char *codec_options, double min_psnr)
{
    const int w = 320, h = 180, frames = 6;
    std::string path = scratch_path("scene.mp4");
    glr_scene_params sp{};
    sp.width = w;
    sp.height = h;
    sp.source = source;
    glr_scene *scene = glr_scene_create(nullptr, &sp);
    ASSERT_NE(scene, nullptr) << glr_last_error();
    glr::ring ring(ring_params(w, h, format));
    glr_encoder_params ep = encoder_params(w, h, format, codec, path.c_str());
    ep.pix_fmt = glr_format_name(format);
    ep.codec_options = codec_options;
    glr::encoder enc(ep);
    auto submit = [&](glr::frame &&f) { enc.submit(std::move(f)); };
    std::vector<std::vector<uint8_t>> rendered;
    for (int n = 0; n < frames; n++) {
        ASSERT_EQ(glr_scene_draw(scene, n, n / 5.0, 1 / 5.0), 0);
        std::vector<uint8_t> gl_rows(static_cast<size_t>(w * h * 4)), top_first(gl_rows.size());
        ASSERT_EQ(glr_scene_read_pixels(scene, GLR_FORMAT_RGBA8, gl_rows.data(), w * 4), 0);
        for (int y = 0; y < h; y++)
            std::copy_n(&gl_rows[static_cast<size_t>((h - 1 - y) * w * 4)], w * 4,
                        &top_first[static_cast<size_t>(y * w * 4)]);
        rendered.push_back(top_first);
        ring.capture(glr_scene_source(scene), n, submit);
    }
    ring.drain(submit);
    enc.finish();
    glr_scene_destroy(&scene);
    EXPECT_EQ(enc.stats().zero_copy_frames, static_cast<uint64_t>(frames));
    auto v = glr_test::decode_file(path);
    ASSERT_EQ(v.error, "");
    ASSERT_EQ(v.frames.size(), static_cast<size_t>(frames));
    for (int n = 0; n < frames; n++)
        EXPECT_GE(glr_test::psnr_rgb(rendered[static_cast<size_t>(n)], v.frames[static_cast<size_t>(n)].rgba), min_psnr)
            << "frame " << n;
    std::remove(path.c_str());
}

TEST_F(encoder_yuv, h264_of_a_gpu_converted_scene_decodes_to_what_was_rendered)
{
    // Scenes converted on the GPU, encoded with H.264 and decoded back to RGB as tagged
    // score at least 40 dB against the rendered RGBA: a smooth animated scene in 4:2:0, and
    // the built-in scene's sharp colour edges in 4:4:4 (4:2:0 itself costs them about 6 dB,
    // on the CPU path just the same). A wrong matrix, range, siting or flip scores far lower.
    for (auto [source, format] : {std::pair<const char *, glr_format>{smooth_scene, GLR_FORMAT_NV12},
                                  {smooth_scene, GLR_FORMAT_I420}, {nullptr, GLR_FORMAT_YUV444}}) {
        SCOPED_TRACE(std::string(source ? "smooth scene " : "built-in scene ") + glr_format_name(format));
        expect_encoded_scene_decodes_to_what_was_rendered(source, format, "libx264", "crf=8:preset=ultrafast", 40.0);
    }
}

TEST_F(encoder_yuv, frames_of_another_colour_than_the_stream_are_refused)
{
    std::string path = scratch_path("mismatch.mkv");
    pattern_scene scene({64, 48});
    glr_ring_params rp = ring_params(64, 48, GLR_FORMAT_NV12);
    rp.color.matrix = GLR_MATRIX_BT601;
    glr::ring ring(rp);
    glr_encoder_params ep = encoder_params(64, 48, GLR_FORMAT_NV12, "libx264", path.c_str());
    glr::encoder enc(ep); // BT.709
    scene.draw(0);
    ASSERT_TRUE(ring.try_capture(scene.source(), 0));
    auto f = ring.acquire(UINT64_MAX);
    ASSERT_TRUE(f);
    try {
        enc.submit(std::move(*f));
        ADD_FAILURE() << "a BT.601 frame went into a BT.709 stream";
    } catch (const glr::error &e) {
        EXPECT_EQ(e.code(), -EINVAL);
        EXPECT_NE(std::string(e.what()).find("colour"), std::string::npos) << e.what();
    }
    EXPECT_EQ(ring.stats().frames_leased_now, 0u);
    enc.finish();
    std::remove(path.c_str());
}

TEST(encoder_preferred_format, is_the_yuv_the_encoder_wants_when_a_ring_can_make_it)
{
    glr_encoder_params p{};
    p.format = GLR_FORMAT_BGRA8;
    p.codec = "libx264";
    EXPECT_EQ(glr_encoder_preferred_format(&p), GLR_FORMAT_I420);
    p.pix_fmt = "nv12";
    EXPECT_EQ(glr_encoder_preferred_format(&p), GLR_FORMAT_NV12);
    p.pix_fmt = "yuv444p";
    EXPECT_EQ(glr_encoder_preferred_format(&p), GLR_FORMAT_YUV444);
    p.pix_fmt = "yuv420p10le"; // no ring makes it: RGB, converted on the CPU
    EXPECT_EQ(glr_encoder_preferred_format(&p), GLR_FORMAT_BGRA8);
    p.pix_fmt = nullptr;
    p.codec = "ffv1"; // takes BGRA as is: nothing to convert
    EXPECT_EQ(glr_encoder_preferred_format(&p), GLR_FORMAT_BGRA8);
    p.codec = "no_such_codec";
    EXPECT_EQ(glr_encoder_preferred_format(&p), 0);
    EXPECT_NE(std::string(glr_last_error()).find("no_such_codec"), std::string::npos);
}

} // namespace

namespace {

TEST(encoder_hardware, hardware_encoders_are_refused_with_what_is_missing)
{
    // NVENC needs an NVIDIA device; VAAPI encoders take only frames in GPU memory. Either
    // way the error says so and names the software encoders of the same codec. Where the
    // GPU offers NVENC (the GPU bundle's FFmpeg has it), frames go through h264_nvenc and
    // are decoded to check what they show.
    struct hw_case {
        const char *codec, *words;
    };
    for (const hw_case &c : {hw_case{"h264_nvenc", "is a hardware encoder and could not open its device"},
                             hw_case{"hevc_vaapi", "takes only hardware frames (vaapi)"}}) {
        SCOPED_TRACE(c.codec);
        std::string path = scratch_path("hardware.mkv");
        glr_encoder_params ep = encoder_params(64, 48, GLR_FORMAT_NV12, c.codec, path.c_str());
        glr_encoder *enc = glr_encoder_create(nullptr, &ep);
        if (!avcodec_find_encoder_by_name(c.codec)) { // an FFmpeg built without it
            EXPECT_NE(std::string(glr_last_error()).find("is not in this FFmpeg build"), std::string::npos);
            continue;
        }
        if (enc) { // a machine with that hardware: frames go through it and decode as rendered
            EXPECT_EQ(glr_encoder_finish(enc), 0) << glr_last_error();
            glr_encoder_destroy(&enc);
            if (std::string(c.codec) == "h264_nvenc") {
                glr::context ctx; // this test has none of its own
                expect_encoded_scene_decodes_to_what_was_rendered(smooth_scene, GLR_FORMAT_NV12, c.codec,
                                                                  "preset=p7:rc=constqp:qp=12", 38.0);
            }
            continue;
        }
        std::string error = glr_last_error();
        EXPECT_NE(error.find(c.words), std::string::npos) << error;
        EXPECT_NE(error.find("software encoders of"), std::string::npos) << error;
        EXPECT_EQ(error.find("Operation not permitted\n"), std::string::npos);
        std::ifstream exists(path);
        EXPECT_FALSE(exists.good()) << "a failed setup created " << path;
    }
}


// A codec name takes the best encoder of that codec that opens here: a device's encoder
// that does not (no NVENC on a machine without an NVIDIA GPU, or on an H100) is passed
// over with a note, and where none of the build's encoders of that codec opens, the error
// names each with FFmpeg's reason and nothing is created. A build without libx264 or
// libx265 is made by hiding them (the choice's test seam).
TEST(encoder_hardware, a_codec_name_never_takes_an_encoder_that_does_not_open)
{
    std::vector<std::string> lines;
    glr_log_params lp{[](void *lines, glr_log_level, const char *m) {
                          static_cast<std::vector<std::string> *>(lines)->push_back(m);
                      },
                      &lines, GLR_LOG_INFO};
    glr_log *log = glr_log_create(&lp);
    glr_internal_codec_choice_hide("libx264");
    glr_internal_codec_choice_hide("libx265");
    std::string path = scratch_path("probed.mkv");
    for (const char *codec : {"h264", "hevc"}) {
        SCOPED_TRACE(codec);
        lines.clear();
        glr_encoder_params ep = encoder_params(64, 48, GLR_FORMAT_NV12, codec, path.c_str());
        glr_encoder_plan plan{};
        int rc = glr_encoder_check(log, &ep, &plan);
        std::string all;
        for (const std::string &l : lines)
            all += l + "\n";
        const AVCodec *nvenc = avcodec_find_encoder_by_name(std::string(codec) == "h264" ? "h264_nvenc" : "hevc_nvenc");
        if (rc == 0) { // the check's trial open of the encoder taken succeeded: it opens
            EXPECT_STRNE(plan.video_encoder, "libx264");
            EXPECT_STRNE(plan.video_encoder, "libx265");
            if (nvenc && std::strcmp(plan.video_encoder, nvenc->name) != 0) { // it did not open: named
                EXPECT_NE(all.find(std::string(nvenc->name) + " ("), std::string::npos) << all;
                EXPECT_NE(all.find(std::string("does not open here: encoding with ") + plan.video_encoder),
                          std::string::npos)
                    << all;
            }
        } else { // every encoder of the codec in this build is a device's, and none opens
            std::string error = glr_last_error();
            EXPECT_NE(error.find("in this FFmpeg build opens here"), std::string::npos) << error;
            if (nvenc)
                EXPECT_NE(error.find(std::string(nvenc->name) + " ("), std::string::npos) << error;
            std::ifstream exists(path);
            EXPECT_FALSE(exists.good()) << "a failed check created " << path;
        }
    }
    glr_internal_codec_choice_hide(nullptr);
    glr_log_destroy(&log);
}

} // namespace

namespace {

using encoder_audio = glr_test::gl_test;

TEST_F(encoder_audio, pcm_from_the_renderer_arrives_sample_exact)
{
    // A renderer's own sound through glr_encoder_submit_audio, from another thread, in
    // blocks of odd sizes and with a gap (silence), into FLAC: decoded back, every sample
    // is what was submitted, and the track ends with the video (25 frames at 25 fps: 1 s).
    std::string path = scratch_path("pcm.mkv");
    const int rate = 48000, channels = 2;
    glr_encoder_params ep = encoder_params(64, 48, GLR_FORMAT_BGRA8, "ffv1", path.c_str());
    ep.audio.sample_rate = rate;
    ep.audio.channels = channels;
    ep.audio.codec = "flac";
    pattern_scene scene({64, 48});
    glr::ring ring(ring_params(64, 48, GLR_FORMAT_BGRA8));
    glr::encoder enc(ep);
    // Values 16-bit PCM holds exactly, so the float -> s16 conversion is exact too.
    std::vector<float> sound(static_cast<size_t>(rate * channels));
    for (size_t i = 0; i < sound.size(); i++)
        sound[i] = static_cast<float>(static_cast<int>((i * 7919) % 60001) - 30000) / 32768.0f;
    const int64_t gap_start = 20000, gap_end = 21000;
    std::thread renderer_sound([&] {
        int64_t at = 0;
        for (int block = 1; at < rate; block = block * 3 % 997 + 100) {
            int64_t n = std::min<int64_t>(block, rate - at);
            if (at < gap_end && at + n > gap_start) { // leave [gap_start, gap_end) out
                if (at < gap_start)
                    EXPECT_EQ(glr_encoder_submit_audio(enc.get(), &sound[static_cast<size_t>(at * channels)],
                                                       static_cast<int>(gap_start - at), at), 0);
                at = gap_end;
                continue;
            }
            EXPECT_EQ(glr_encoder_submit_audio(enc.get(), &sound[static_cast<size_t>(at * channels)],
                                               static_cast<int>(n), at), 0)
                << glr_last_error();
            at += n;
        }
    });
    auto submit = [&](glr::frame &&f) { enc.submit(std::move(f)); };
    for (int n = 0; n < 25; n++) {
        scene.draw(static_cast<uint64_t>(n));
        ring.capture(scene.source(), n, submit);
    }
    ring.drain(submit);
    renderer_sound.join();
    EXPECT_EQ(glr_encoder_submit_audio(enc.get(), sound.data(), 10, 5), -EINVAL); // before the end
    enc.finish();
    EXPECT_EQ(enc.stats().audio_samples_encoded, static_cast<uint64_t>(rate));

    EXPECT_TRUE(glr_test::in_step_with_the_pictures(glr_test::decode_sound(path, rate, channels)));
    std::vector<int16_t> decoded = glr_test::decode_audio(path, rate, channels);
    ASSERT_EQ(decoded.size(), sound.size());
    for (size_t i = 0; i < decoded.size(); i++) {
        int64_t sample = static_cast<int64_t>(i) / channels;
        int want = sample >= gap_start && sample < gap_end ? 0 : static_cast<int>(std::lround(sound[i] * 32768));
        ASSERT_EQ(decoded[i], want) << "sample " << sample << " channel " << i % channels;
    }
    std::remove(path.c_str());
}

TEST(encoder_audio_errors, an_encoder_without_a_pcm_track_refuses_pcm)
{
    EXPECT_EQ(glr_encoder_submit_audio(nullptr, nullptr, 0, 0), -EINVAL);
    glr_encoder_params ep = encoder_params(16, 16, GLR_FORMAT_BGRA8, "ffv1", "/dev/null");
    ep.container = "null";
    glr_encoder *enc = glr_encoder_create(nullptr, &ep);
    ASSERT_NE(enc, nullptr) << glr_last_error();
    float s[2] = {};
    EXPECT_EQ(glr_encoder_submit_audio(enc, s, 1, 0), -EINVAL);
    EXPECT_NE(std::string(glr_last_error()).find("no audio track"), std::string::npos) << glr_last_error();
    glr_encoder_destroy(&enc);
    ep.audio.sample_rate = 48000; // and no channels
    EXPECT_EQ(glr_encoder_create(nullptr, &ep), nullptr);
    EXPECT_NE(std::string(glr_last_error()).find("1..8 channels"), std::string::npos) << glr_last_error();
}

} // namespace
