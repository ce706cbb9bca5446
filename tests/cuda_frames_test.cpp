// CUDA frames (glreader/av/hw_frames.h, GLR_HW_CUDA) where they can start: every plane of each
// format they take equals the ring's bytes, and frames come out in order with their pts.
// Where they cannot, the refusal names what is missing, and the test finds out on its own
// which piece this machine lacks (CUDA in FFmpeg, NVIDIA's driver, GL on a CUDA device), so
// a refusal for another reason fails it. Here (no GPU) the driver is missing; the GPU bundle
// runs it too.
#include "glreader/av/hw_frames.h"

#include "support/decoder.hpp"
#include "support/gl_test.hpp"
#include "support/pattern_scene.hpp"
#include "support/hw_frames_support.hpp"

extern "C" {
#include <libavutil/frame.h>
#include <libavutil/hwcontext.h>
}

#include <dlfcn.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <vector>

namespace {

using glr_test::frame_ptr;
using glr_test::hw_frames_ptr;

class cuda_frames_test : public glr_test::scene_test {
protected:
    // What CUDA frames need that this machine lacks, in the words the refusal must have;
    // "" when it has everything.
    std::string missing_here()
    {
        AVBufferRef *probe = av_hwdevice_ctx_alloc(AV_HWDEVICE_TYPE_CUDA);
        if (!probe)
            return "this FFmpeg has no CUDA";
        av_buffer_unref(&probe);
        if (!dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL | RTLD_NOLOAD) &&
            !dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL)) // kept loaded, as glreader keeps it
            return "no CUDA driver: Cannot load libcuda.so.1";
        std::string renderer = reinterpret_cast<const char *>(scene().gl().GetString(GL_RENDERER));
        if (renderer.find("NVIDIA") == std::string::npos)
            return "the GL context runs on no CUDA device";
        return "";
    }

    static glr_hw_frames_params params_of(int w, int h, glr_format format, int depth = 0)
    {
        glr_hw_frames_params p{};
        p.kind = GLR_HW_CUDA;
        p.frame.width = w;
        p.frame.height = h;
        p.frame.format = format;
        p.depth = depth;
        return p;
    }
};

TEST_F(cuda_frames_test, equal_the_ring_s_bytes_or_are_refused_naming_what_is_missing)
{
    scene();
    const std::string missing = missing_here();
    struct size {
        int w, h;
    };
    for (glr_format format : {GLR_FORMAT_NV12, GLR_FORMAT_I420, GLR_FORMAT_P010, GLR_FORMAT_YUV444})
        for (size s : {size{64, 32}, size{208, 118}}) {
            SCOPED_TRACE(std::string(glr_format_name(format)) + " " + std::to_string(s.w) + "x" + std::to_string(s.h));
            const glr_hw_frames_params params = params_of(s.w, s.h, format);
            hw_frames_ptr f(glr_hw_frames_create(nullptr, &params));
            if (!missing.empty()) {
                EXPECT_FALSE(f) << "CUDA frames started where " << missing;
                EXPECT_NE(std::string(glr_last_error()).find(missing), std::string::npos) << glr_last_error();
                continue;
            }
            ASSERT_TRUE(f) << glr_last_error();
            scene().draw(7);
            glr_source source = scene().source();
            ASSERT_EQ(glr_hw_frames_capture(f.get(), &source, 70), 0) << glr_last_error();
            AVFrame *raw = nullptr;
            ASSERT_EQ(glr_hw_frames_acquire(f.get(), &raw, UINT64_MAX), 0) << glr_last_error();
            frame_ptr frame(raw);
            EXPECT_EQ(frame->format, AV_PIX_FMT_CUDA);
            EXPECT_EQ(frame->pts, 70);
            EXPECT_EQ(glr_test::hw_planes_in_memory(frame.get(), format, s.w, s.h),
                      ring_planes(source, s.w, s.h, format, {}));
        }
}

// Where they start: frames at depths 1 and 4, each its own scene frame, in order with its pts,
// while the ones acquired before are held.
TEST_F(cuda_frames_test, frames_come_out_whole_and_in_order_where_they_start)
{
    scene();
    const std::string missing = missing_here();
    const int w = 64, h = 48, count = glr_test::frames_per_case(240);
    for (int depth : {1, 4}) {
        SCOPED_TRACE("depth " + std::to_string(depth));
        const glr_hw_frames_params params = params_of(w, h, GLR_FORMAT_NV12, depth);
        hw_frames_ptr f(glr_hw_frames_create(nullptr, &params));
        if (!missing.empty()) {
            EXPECT_FALSE(f);
            EXPECT_NE(std::string(glr_last_error()).find(missing), std::string::npos) << glr_last_error();
            continue;
        }
        ASSERT_TRUE(f) << glr_last_error();
        std::vector<std::vector<std::vector<uint8_t>>> want;
        std::vector<frame_ptr> held;
        int64_t next = 0;
        auto take = [&](uint64_t timeout) {
            AVFrame *frame = nullptr;
            int rc = glr_hw_frames_acquire(f.get(), &frame, timeout);
            if (rc == 0) {
                EXPECT_EQ(frame->pts, next);
                EXPECT_EQ(glr_test::hw_planes_in_memory(frame, GLR_FORMAT_NV12, w, h), want[next]) << "frame " << next;
                held.emplace_back(frame);
                if (held.size() > 3)
                    held.erase(held.begin());
                next++;
            }
            return rc;
        };
        for (int n = 0; n < count; n++) {
            scene().draw(static_cast<uint64_t>(n));
            glr_source source = scene().source();
            want.push_back(ring_planes(source, w, h, GLR_FORMAT_NV12, {}));
            int rc;
            while ((rc = glr_hw_frames_capture(f.get(), &source, n)) == -EBUSY)
                ASSERT_EQ(take(UINT64_MAX), 0);
            ASSERT_EQ(rc, 0) << glr_last_error();
            take(0);
        }
        while (take(UINT64_MAX) == 0) {
        }
        EXPECT_EQ(next, count);
    }
}

// The recorder asked for CUDA frames (-init_hw_device cuda, --hw-frames on) for an encoder on
// the CPU: where they start, the file equals the readback's, with nothing read back; where
// not, the refusal names what is missing before the output exists.
TEST_F(cuda_frames_test, the_recorder_uses_them_when_asked_or_refuses_before_the_file)
{
    scene();
    const std::string missing = missing_here();
    const int w = 64, h = 48, count = 12;
    auto record = [&](const std::string &path, glr_hw_frames_use use, glr_recorder_stats *stats) {
        glr_recorder_params rp{};
        rp.encoder.width = w;
        rp.encoder.height = h;
        rp.encoder.codec = "ffv1";
        rp.encoder.pix_fmt = "yuv420p";
        rp.encoder.output = path.c_str();
        rp.hw_frames = use;
        rp.hw_device = "cuda";
        return glr_test::record_scene(scene(), rp, count, stats);
    };
    const std::string on = glr_test::scratch_path("cuda_on.mkv"), off = glr_test::scratch_path("cuda_off.mkv");
    glr_recorder_stats hw{}, rb{};
    if (!missing.empty()) {
        EXPECT_FALSE(record(on, GLR_HW_FRAMES_ON, &hw));
        EXPECT_NE(std::string(glr_last_error()).find("hardware frames cannot start: " + missing), std::string::npos)
            << glr_last_error();
        EXPECT_NE(access(on.c_str(), F_OK), 0) << "a refused recorder made its file";
        return;
    }
    ASSERT_TRUE(record(on, GLR_HW_FRAMES_ON, &hw)) << glr_last_error();
    ASSERT_TRUE(record(off, GLR_HW_FRAMES_OFF, &rb)) << glr_last_error();
    EXPECT_STREQ(hw.ring.path, "cuda-frames+cuda-event");
    EXPECT_EQ(hw.ring.readback.count, 0u) << "a frame was read back";
    EXPECT_EQ(hw.encoder.transferred_frames, static_cast<uint64_t>(count));
    glr_test::decoded_video a = glr_test::decode_file(on), b = glr_test::decode_file(off);
    ASSERT_EQ(a.frames.size(), static_cast<size_t>(count));
    ASSERT_EQ(b.frames.size(), static_cast<size_t>(count));
    for (int n = 0; n < count; n++)
        EXPECT_TRUE(a.frames[n].rgba == b.frames[n].rgba) << "frame " << n;
}

} // namespace
