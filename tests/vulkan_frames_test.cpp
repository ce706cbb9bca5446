// Hardware frames in Vulkan memory, written by GL (glreader/av/hw_frames.h): on
// lavapipe and llvmpipe here, on a GPU where one is lent. A frame converted into a Vulkan
// frame and transferred back to memory by FFmpeg must hold exactly the ring's bytes for the
// same source, format and colour, tagged as its frames are; the imports' refusals name
// their cause.
#include "glreader/av/encoder.h"
#include "glreader/av/export_options.h"
#include "glreader/av/hw_frames.h"
#include "glreader/av/recorder.h"
#include "glreader/interop.h"
#include "av/fault_injection.h"

#include "support/decoder.hpp"

#include "support/gl_test.hpp"
#include "support/pattern_scene.hpp"
#include "support/hw_frames_support.hpp"

extern "C" {
#include <libavutil/hwcontext.h>
#include <libavutil/pixdesc.h>
}

#include <fcntl.h>
#include <unistd.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

// One Vulkan device for the whole process, never freed (as test_main's EGL display): each
// test's devices come and go, and the last one's end would unload the Vulkan driver, whose
// blocks LeakSanitizer then reports against an unknown module. A global pointer (external,
// so the store is kept) keeps the device reachable, so it is no leak.
AVBufferRef *glr_test_pinned_vulkan_device = nullptr;

namespace {

class pinned_vulkan : public ::testing::Environment {
public:
    void SetUp() override
    {
        av_hwdevice_ctx_create(&glr_test_pinned_vulkan_device, AV_HWDEVICE_TYPE_VULKAN, nullptr, nullptr, 0);
    }
};
[[maybe_unused]] const ::testing::Environment *const pinned = ::testing::AddGlobalTestEnvironment(new pinned_vulkan);

using glr_test::frame_ptr;
using glr_test::hw_frames_ptr;

glr_hw_frames_params params_of(int w, int h, glr_format format, const glr_color &color = {})
{
    glr_hw_frames_params p{};
    p.kind = GLR_HW_VULKAN;
    p.frame.width = w;
    p.frame.height = h;
    p.frame.format = format;
    p.frame.color = color;
    return p;
}

class vulkan_frames_test : public glr_test::scene_test {
protected:
    // Vulkan frames GL writes, on the device behind the GL context (lavapipe here).
    hw_frames_ptr frames(const glr_hw_frames_params &params)
    {
        scene();
        hw_frames_ptr f(glr_hw_frames_create(nullptr, &params));
        EXPECT_TRUE(f) << "scripts/setup.sh installs lavapipe: " << glr_last_error();
        return f;
    }

    // source's frame through f: captured, then acquired once GL finished it.
    frame_ptr convert(glr_hw_frames *f, const glr_source &source, int64_t pts = 0)
    {
        EXPECT_EQ(glr_hw_frames_capture(f, &source, pts), 0) << glr_last_error();
        AVFrame *frame = nullptr;
        EXPECT_EQ(glr_hw_frames_acquire(f, &frame, UINT64_MAX), 0) << glr_last_error();
        return frame_ptr(frame);
    }

};

// Every YUV format (FFmpeg's Vulkan frames take each), at sizes of whole blocks, of none (208: an odd multiple
// of 16 across; 118 rows), and tiny; BT.601 full range with centre siting besides the default.
TEST_F(vulkan_frames_test, every_plane_equals_the_ring_s_bytes)
{
    const glr_color full601 = glr_test::full_range_bt601_centre();
    struct size {
        int w, h;
    };
    for (size s : {size{64, 32}, size{208, 118}, size{2, 2}})
        for (glr_format format : glr_test::yuv_formats)
            for (const glr_color &color : {glr_color{}, full601}) {
                SCOPED_TRACE(std::string(glr_format_get_info(format)->name) + " " + std::to_string(s.w) + "x" + std::to_string(s.h) +
                             (color.matrix ? " bt601 full centre" : " default colour"));
                glr_source source = glr::texture_source(noise_texture(s.w, s.h, static_cast<unsigned>(s.w + format)));
                hw_frames_ptr f = frames(params_of(s.w, s.h, format, color));
                ASSERT_TRUE(f);
                frame_ptr frame = convert(f.get(), source);
                ASSERT_TRUE(frame);
                std::vector<std::vector<uint8_t>> want = ring_planes(source, s.w, s.h, format, color);
                std::vector<std::vector<uint8_t>> got = glr_test::hw_planes_in_memory(frame.get(), format, s.w, s.h);
                ASSERT_EQ(got.size(), want.size());
                for (size_t p = 0; p < got.size(); p++)
                    EXPECT_EQ(got[p], want[p]) << "plane " << p;
                glr_color tags{};
                ASSERT_EQ(glr_color_resolve(format, &color, &tags), 0);
                EXPECT_EQ(frame->colorspace, static_cast<AVColorSpace>(tags.matrix));
                EXPECT_EQ(frame->color_range, static_cast<AVColorRange>(tags.range));
                EXPECT_EQ(frame->chroma_location, static_cast<AVChromaLocation>(tags.chroma));
                EXPECT_EQ(frame->color_primaries, static_cast<AVColorPrimaries>(tags.primaries));
            }
}

// Frames come out in capture order with their pts at every depth, none torn, repeated or
// missing, each acquired only once GL wrote it, while the frames acquired earlier are still
// held (the pool never hands their memory on), and a pool's frames keep their imports.
TEST_F(vulkan_frames_test, frames_come_out_whole_and_in_order_at_every_depth)
{
    const int w = 64, h = 48, count = glr_test::frames_per_case(240), held = 3;
    std::vector<std::vector<std::vector<uint8_t>>> want;
    for (int n = 0; n < count; n++) {
        scene().draw(static_cast<uint64_t>(n));
        want.push_back(ring_planes(scene().source(), w, h, GLR_FORMAT_NV12, {}));
    }
    // And with every conversion still under way when polled, as on a GPU (the marks' seam):
    // only a capture that finds every slot taken, and the end, wait for them.
    for (auto [depth, in_flight] : {std::pair{1, false}, {2, false}, {5, false}, {3, true}}) {
        SCOPED_TRACE("depth " + std::to_string(depth) + (in_flight ? ", conversions in flight" : ""));
        glr_hw_frames_params p = params_of(w, h, GLR_FORMAT_NV12);
        p.depth = depth;
        hw_frames_ptr f = frames(p);
        ASSERT_TRUE(f);
        if (in_flight)
            glr_internal_hw_frames_marks_unsignalled(f.get(), 1000000);
        std::vector<frame_ptr> acquired;
        int64_t next = 0; // the next frame acquire must give
        auto take = [&](uint64_t timeout) {
            AVFrame *frame = nullptr;
            int rc = glr_hw_frames_acquire(f.get(), &frame, timeout);
            if (rc == 0) {
                EXPECT_EQ(frame->pts, 1000 + next);
                acquired.emplace_back(frame);
                next++;
            }
            return rc;
        };
        for (int n = 0; n < count; n++) {
            scene().draw(static_cast<uint64_t>(n));
            int rc;
            const glr_source source = scene().source();
            while ((rc = glr_hw_frames_capture(f.get(), &source, 1000 + n)) == -EBUSY)
                ASSERT_EQ(take(UINT64_MAX), 0);
            ASSERT_EQ(rc, 0) << glr_last_error();
            take(0); // whatever is finished already
            // The oldest held frame is checked and let go once `held` newer ones are held.
            while (static_cast<int>(acquired.size()) > held) {
                int64_t k = next - static_cast<int64_t>(acquired.size());
                EXPECT_EQ(glr_test::hw_planes_in_memory(acquired.front().get(), GLR_FORMAT_NV12, w, h), want[k]) << "frame " << k;
                acquired.erase(acquired.begin());
            }
        }
        if (in_flight)
            EXPECT_EQ(next, count - depth) << "the last frames were in flight at the end";
        while (take(UINT64_MAX) == 0) {
        }
        EXPECT_EQ(next, count);
        for (size_t i = 0; i < acquired.size(); i++) {
            int64_t k = next - static_cast<int64_t>(acquired.size() - i);
            EXPECT_EQ(glr_test::hw_planes_in_memory(acquired[i].get(), GLR_FORMAT_NV12, w, h), want[k]) << "frame " << k;
        }
        AVFrame *none = nullptr;
        EXPECT_EQ(glr_hw_frames_acquire(f.get(), &none, 0), -ENODATA);
    }
}

// Fields that do not fit are refused with words before GL sees them; the fd is taken in
// every case (closed on refusal).
TEST_F(vulkan_frames_test, bad_imports_are_refused_with_words)
{
    scene();
    glr_memory_image m{};
    m.fd = -1;
    m.memory_size = 4096;
    m.width = m.height = 16;
    m.internal_format = GL_R8;
    EXPECT_EQ(glr_memory_texture_import(nullptr, &m), nullptr);
    EXPECT_NE(std::string(glr_last_error()).find("is no file descriptor"), std::string::npos) << glr_last_error();

    m.fd = open("/dev/null", O_RDONLY);
    ASSERT_GE(m.fd, 0);
    m.offset = 4096;
    EXPECT_EQ(glr_memory_texture_import(nullptr, &m), nullptr);
    EXPECT_NE(std::string(glr_last_error()).find("does not fit in memory of 4096 bytes"), std::string::npos)
        << glr_last_error();
    EXPECT_EQ(fcntl(m.fd, F_GETFD), -1) << "the refused fd was left open";

    // A texture larger than the memory (a driver need not check: llvmpipe takes any fd).
    m.fd = open("/dev/null", O_RDONLY);
    m.offset = 0;
    m.width = m.height = 256;
    EXPECT_EQ(glr_memory_texture_import(nullptr, &m), nullptr);
    EXPECT_NE(std::string(glr_last_error()).find("needs at least 65536 bytes; the memory has 4096"), std::string::npos)
        << glr_last_error();
    EXPECT_EQ(fcntl(m.fd, F_GETFD), -1) << "the refused fd was left open";
    m.fd = open("/dev/null", O_RDONLY);
    m.width = m.height = 16;
    m.internal_format = GL_RGB8;
    EXPECT_EQ(glr_memory_texture_import(nullptr, &m), nullptr);
    EXPECT_NE(std::string(glr_last_error()).find("not one glreader imports"), std::string::npos) << glr_last_error();
    EXPECT_EQ(scene().gl().GetError(), static_cast<GLenum>(GL_NO_ERROR)) << "a refusal left a GL error behind";
}

// Whether GL imports timeline semaphores follows its extensions; where it cannot, an import
// is refused naming the missing one, its fd closed, and the frames say they are ordered by
// GL fences instead (here, on llvmpipe; on NVIDIA's GL the frames' semaphores order them, and
// the tests above check the bytes that way).
TEST_F(vulkan_frames_test, semaphores_are_used_where_gl_imports_them_and_refused_with_words_where_not)
{
    scene();
    const GladGLContext &gl = scene().gl();
    bool semaphore_fd = false, timeline = false;
    GLint count = 0;
    gl.GetIntegerv(GL_NUM_EXTENSIONS, &count);
    for (GLint i = 0; i < count; i++) {
        std::string name = reinterpret_cast<const char *>(gl.GetStringi(GL_EXTENSIONS, static_cast<GLuint>(i)));
        semaphore_fd |= name == "GL_EXT_semaphore_fd";
        timeline |= name == "GL_NV_timeline_semaphore";
    }
    EXPECT_EQ(glr_gl_has_timeline_semaphores(nullptr), semaphore_fd && timeline ? 1 : 0);

    EXPECT_EQ(glr_memory_semaphore_import(nullptr, -1, nullptr), nullptr);
    EXPECT_NE(std::string(glr_last_error()).find("is no file descriptor"), std::string::npos) << glr_last_error();
    unsigned texture = 1;
    EXPECT_EQ(glr_memory_semaphore_wait(nullptr, 0, &texture, 1), -EINVAL);
    EXPECT_EQ(glr_memory_semaphore_signal(nullptr, 1, &texture, 1), -EINVAL);
    glr_memory_semaphore_destroy(nullptr);
    if (!semaphore_fd || !timeline) {
        int fd = open("/dev/null", O_RDONLY);
        ASSERT_GE(fd, 0);
        EXPECT_EQ(glr_memory_semaphore_import(nullptr, fd, nullptr), nullptr);
        EXPECT_EQ(glr_last_error_code(), GLR_ERROR_UNSUPPORTED);
        EXPECT_NE(std::string(glr_last_error()).find(semaphore_fd ? "lacks GL_NV_timeline_semaphore"
                                                                   : "lacks GL_EXT_semaphore_fd"),
                  std::string::npos)
            << glr_last_error();
        EXPECT_EQ(fcntl(fd, F_GETFD), -1) << "the refused fd was left open";
    }
    EXPECT_EQ(gl.GetError(), static_cast<GLenum>(GL_NO_ERROR)) << "a refusal left a GL error behind";

    // The frames say how they are ordered, once, at the first frame.
    std::vector<std::string> lines;
    glr_log_params lp{};
    lp.level = GLR_LOG_INFO;
    lp.opaque = &lines;
    lp.callback = [](void *opaque, glr_log_level, const char *message) {
        static_cast<std::vector<std::string> *>(opaque)->push_back(message);
    };
    glr_log *log = glr_log_create(&lp);
    ASSERT_TRUE(log);
    {
        const glr_hw_frames_params p = params_of(32, 16, GLR_FORMAT_NV12);
        hw_frames_ptr f(glr_hw_frames_create(log, &p));
        ASSERT_TRUE(f) << glr_last_error();
        glr_source source = glr::texture_source(noise_texture(32, 16, 5));
        convert(f.get(), source);
        convert(f.get(), source);
    }
    glr_log_destroy(&log);
    int said = 0;
    for (const std::string &line : lines)
        if (line.find("each frame") != std::string::npos) {
            said++;
            EXPECT_NE(line.find(semaphore_fd && timeline ? "nothing waits on the host" : "a GL fence marks each frame"),
                      std::string::npos)
                << line;
        }
    EXPECT_EQ(said, 1) << "the ordering is said once";
}

// GL's UUIDs are the Vulkan device's: the device chosen is the one GL shares memory with.
TEST_F(vulkan_frames_test, the_device_is_the_gl_context_s)
{
    scene();
    uint8_t device_uuid[16] = {}, driver_uuid[16] = {}, zero[16] = {};
    ASSERT_EQ(glr_gl_device_uuids(nullptr, nullptr, device_uuid, driver_uuid), 0) << glr_last_error();
    EXPECT_NE(std::memcmp(device_uuid, zero, 16), 0);
    EXPECT_EQ(glr_gl_device_uuids(nullptr, nullptr, nullptr, driver_uuid), -EINVAL);
    EXPECT_TRUE(frames(params_of(16, 16, GLR_FORMAT_NV12)));
}

// What cannot start is refused with words naming the cause, and nothing is left behind.
TEST_F(vulkan_frames_test, what_cannot_start_is_refused_with_words)
{
    scene();
    glr_hw_frames_params p = params_of(64, 32, GLR_FORMAT_NV12);
    p.kind = static_cast<glr_hw_kind>(7);
    EXPECT_EQ(glr_hw_frames_create(nullptr, &p), nullptr);
    EXPECT_NE(std::string(glr_last_error()).find("unknown kind 7"), std::string::npos) << glr_last_error();
    p = params_of(64, 32, GLR_FORMAT_NV12);
    p.device = "no-such-gpu";
    EXPECT_EQ(glr_hw_frames_create(nullptr, &p), nullptr);
    EXPECT_NE(std::string(glr_last_error()).find("no Vulkan device named no-such-gpu"), std::string::npos)
        << glr_last_error();
    p = params_of(64, 32, GLR_FORMAT_BGRA8);
    EXPECT_EQ(glr_hw_frames_create(nullptr, &p), nullptr);
    EXPECT_NE(std::string(glr_last_error()).find("not a YUV format"), std::string::npos) << glr_last_error();
    p = params_of(33, 32, GLR_FORMAT_NV12);
    EXPECT_EQ(glr_hw_frames_create(nullptr, &p), nullptr);
    EXPECT_NE(std::string(glr_last_error()).find("render at 34x32"), std::string::npos) << glr_last_error();
    EXPECT_EQ(glr_hw_frames_create(nullptr, nullptr), nullptr);
    AVFrame *frame = nullptr;
    glr_source source = scene().source();
    EXPECT_EQ(glr_hw_frames_capture(nullptr, &source, 0), -EINVAL);
    EXPECT_EQ(glr_hw_frames_acquire(nullptr, &frame, 0), -EINVAL);
    p = params_of(64, 32, GLR_FORMAT_NV12);
    p.depth = 65;
    EXPECT_EQ(glr_hw_frames_create(nullptr, &p), nullptr);
    EXPECT_NE(std::string(glr_last_error()).find("depth 65 is not 1..64"), std::string::npos) << glr_last_error();
    EXPECT_EQ(scene().gl().GetError(), static_cast<GLenum>(GL_NO_ERROR));
}

// Hardware frames into an encoder on the CPU (FFV1): each is copied to memory by the encoder
// (transferred, nothing read back by the ring) and the file decodes to exactly the frames
// the ring's readback path encodes, in order, none missing; a frame of another pool, or a
// lease where hardware frames were promised, or frames unlike the params, are refused with
// words.
TEST_F(vulkan_frames_test, an_encoder_on_the_cpu_gets_the_frames_copied_and_encodes_the_ring_s_bytes)
{
    const int w = 64, h = 48, count = 24;
    hw_frames_ptr f = frames(params_of(w, h, GLR_FORMAT_NV12));
    ASSERT_TRUE(f);
    auto params = [&](const std::string &path, AVBufferRef *hw) {
        glr_encoder_params p{};
        p.width = w;
        p.height = h;
        p.format = GLR_FORMAT_NV12;
        p.codec = "ffv1";
        p.output = path.c_str();
        p.hw_frames = hw;
        return p;
    };
    const std::string hw_path = glr_test::scratch_path("hw_frames.mkv"),
                      ring_path = glr_test::scratch_path("ring_frames.mkv");
    // Frames of another format or size than the params' are refused before the file is made.
    glr_encoder_params wrong = params(hw_path, glr_hw_frames_context(f.get()));
    wrong.format = GLR_FORMAT_P010;
    EXPECT_EQ(glr_encoder_create(nullptr, &wrong), nullptr);
    EXPECT_NE(std::string(glr_last_error()).find("the hardware frames are 64x48 nv12, the params say 64x48 p010"),
              std::string::npos)
        << glr_last_error();
    EXPECT_NE(access(hw_path.c_str(), F_OK), 0) << "a refused encoder made its file";
    glr_encoder_params hp = params(hw_path, glr_hw_frames_context(f.get()));
    glr_encoder *hw_enc = glr_encoder_create(nullptr, &hp);
    ASSERT_TRUE(hw_enc) << glr_last_error();
    glr_encoder_params rp = params(ring_path, nullptr);
    glr_encoder *ring_enc = glr_encoder_create(nullptr, &rp);
    ASSERT_TRUE(ring_enc) << glr_last_error();
    glr::ring ring(glr_test::ring_params(w, h, GLR_FORMAT_NV12, GLR_FLIP_STRIDE, 3));
    for (int n = 0; n < count; n++) {
        scene().draw(static_cast<uint64_t>(n));
        glr_source source = scene().source();
        ASSERT_EQ(glr_hw_frames_capture(f.get(), &source, n), 0) << glr_last_error();
        AVFrame *frame = nullptr;
        ASSERT_EQ(glr_hw_frames_acquire(f.get(), &frame, UINT64_MAX), 0);
        ASSERT_EQ(glr_encoder_submit_hw(hw_enc, &frame), 0) << glr_last_error();
        EXPECT_EQ(frame, nullptr);
        if (n == 0) { // a lease where hardware frames were promised
            ASSERT_TRUE(ring.try_capture(source, n));
            auto refused = ring.acquire(UINT64_MAX);
            ASSERT_TRUE(refused);
            glr_frame c = refused->detach();
            EXPECT_EQ(glr_encoder_submit(hw_enc, &c), -EINVAL);
            EXPECT_NE(std::string(glr_last_error()).find("submit them with glr_encoder_submit_hw"), std::string::npos)
                << glr_last_error();
        }
        ASSERT_TRUE(ring.try_capture(source, n));
        auto lease = ring.acquire(UINT64_MAX);
        ASSERT_TRUE(lease);
        glr_frame c = lease->detach();
        ASSERT_EQ(glr_encoder_submit(ring_enc, &c), 0) << glr_last_error();
    }
    // A frame of another pool.
    hw_frames_ptr other = frames(params_of(w, h, GLR_FORMAT_NV12));
    glr_source source = scene().source();
    ASSERT_EQ(glr_hw_frames_capture(other.get(), &source, 0), 0);
    AVFrame *stranger = nullptr;
    ASSERT_EQ(glr_hw_frames_acquire(other.get(), &stranger, UINT64_MAX), 0);
    EXPECT_EQ(glr_encoder_submit_hw(hw_enc, &stranger), -EINVAL);
    EXPECT_EQ(stranger, nullptr);
    EXPECT_NE(std::string(glr_last_error()).find("not one of the encoder's hardware frames"), std::string::npos)
        << glr_last_error();

    ASSERT_EQ(glr_encoder_finish(hw_enc), 0) << glr_last_error();
    ASSERT_EQ(glr_encoder_finish(ring_enc), 0) << glr_last_error();
    glr_encoder_stats stats{};
    glr_encoder_get_stats(hw_enc, &stats);
    EXPECT_EQ(stats.transferred_frames, static_cast<uint64_t>(count));
    EXPECT_EQ(stats.hardware_frames + stats.zero_copy_frames + stats.copied_frames, 0u);
    glr_encoder_destroy(&hw_enc);
    glr_encoder_destroy(&ring_enc);

    glr_test::decoded_video got = glr_test::decode_file(hw_path), want = glr_test::decode_file(ring_path);
    ASSERT_EQ(got.error, "");
    ASSERT_EQ(want.error, "");
    ASSERT_EQ(got.frames.size(), static_cast<size_t>(count));
    ASSERT_EQ(want.frames.size(), static_cast<size_t>(count));
    EXPECT_EQ(got.color_space, want.color_space);
    EXPECT_EQ(got.color_range, want.color_range);
    for (int n = 0; n < count; n++) {
        EXPECT_EQ(got.frames[n].pts, want.frames[n].pts) << "frame " << n;
        EXPECT_TRUE(got.frames[n].rgba == want.frames[n].rgba) << "frame " << n;
        if (n > 0)
            EXPECT_FALSE(got.frames[n].rgba == got.frames[n - 1].rgba) << "frame " << n << " repeats its predecessor";
    }
}

// The recorder (every front-end's engine) with hardware frames asked for: the frames go
// through the pool, none read back (no ring made), and the file equals the readback's; left
// to itself (auto) with an encoder on the CPU it reads back; a device that does not exist
// is refused with words before the output is made.
TEST_F(vulkan_frames_test, the_recorder_uses_hardware_frames_when_asked_and_reads_back_otherwise)
{
    const int w = 64, h = 48, count = 12;
    scene();
    std::string said; // the recorder's log, at info level
    glr_log_params lp{};
    lp.callback = [](void *opaque, glr_log_level, const char *message) {
        *static_cast<std::string *>(opaque) += std::string(message) + "\n";
    };
    lp.opaque = &said;
    lp.level = GLR_LOG_INFO;
    std::unique_ptr<glr_log, void (*)(glr_log *)> log(glr_log_create(&lp), [](glr_log *l) { glr_log_destroy(&l); });
    auto record = [&](const std::string &path, glr_hw_frames_use use, const char *device, glr_recorder_stats *stats,
                      glr_format format = GLR_FORMAT_NV12, const char *pix_fmt = nullptr) {
        glr_recorder_params rp{};
        rp.encoder.width = w;
        rp.encoder.height = h;
        rp.encoder.codec = "ffv1";
        rp.encoder.pix_fmt = pix_fmt;
        rp.encoder.output = path.c_str();
        rp.ring.format = format;
        rp.hw_frames = use;
        rp.hw_device = device;
        said.clear();
        return glr_test::record_scene(scene(), rp, count, stats, log.get());
    };
    const std::string on = glr_test::scratch_path("recorder_hw.mkv"), off = glr_test::scratch_path("recorder_rb.mkv"),
                      automatic = glr_test::scratch_path("recorder_auto.mkv"),
                      refused = glr_test::scratch_path("recorder_refused.mkv");
    glr_recorder_stats hw{}, rb{}, au{};
    ASSERT_TRUE(record(on, GLR_HW_FRAMES_ON, nullptr, &hw)) << glr_last_error();
    ASSERT_TRUE(record(off, GLR_HW_FRAMES_OFF, nullptr, &rb)) << glr_last_error();
    ASSERT_TRUE(record(automatic, GLR_HW_FRAMES_AUTO, nullptr, &au)) << glr_last_error();
    EXPECT_EQ(hw.hardware_frames, 1);
    EXPECT_EQ(hw.frames_delivered, count);
    // The capture's figures are the hardware frames': every frame converted, fenced and
    // acquired, none read back.
    EXPECT_STREQ(hw.ring.fill, "hardware-frames");
    EXPECT_EQ(hw.ring.frames_captured, static_cast<uint64_t>(count));
    EXPECT_EQ(hw.ring.frames_acquired, static_cast<uint64_t>(count));
    EXPECT_EQ(hw.ring.stall.count, static_cast<uint64_t>(count));
    EXPECT_EQ(hw.ring.fence_wait.count, static_cast<uint64_t>(count));
    EXPECT_EQ(hw.ring.readback.count, 0u) << "a frame was read back";
    EXPECT_EQ(hw.ring.frame_bytes, 0u);
    EXPECT_EQ(hw.encoder.transferred_frames, static_cast<uint64_t>(count));
    EXPECT_EQ(rb.hardware_frames, 0);
    EXPECT_EQ(au.hardware_frames, 0) << "ffv1 is an encoder on the CPU: auto reads back";
    EXPECT_EQ(au.encoder.transferred_frames, 0u);
    EXPECT_EQ(said.find("not used"), std::string::npos) << "no device was named: " << said;
    // A device named, and nothing uses it: said once, and the frames are read back.
    ASSERT_TRUE(record(automatic, GLR_HW_FRAMES_AUTO, "vulkan", &au)) << glr_last_error();
    EXPECT_EQ(au.hardware_frames, 0);
    const std::string unused_device = "the hardware device vulkan is not used: ffv1 encodes frames in memory, which "
                                      "are read back";
    EXPECT_NE(said.find(unused_device), std::string::npos) << said;
    EXPECT_EQ(said.find(unused_device), said.rfind(unused_device)) << "said more than once: " << said;

    glr_test::decoded_video a = glr_test::decode_file(on), b = glr_test::decode_file(off);
    ASSERT_EQ(a.error, "");
    ASSERT_EQ(a.frames.size(), static_cast<size_t>(count));
    ASSERT_EQ(b.frames.size(), static_cast<size_t>(count));
    for (int n = 0; n < count; n++)
        EXPECT_TRUE(a.frames[n].rgba == b.frames[n].rgba) << "frame " << n;

    glr_recorder_stats unused{};
    EXPECT_FALSE(record(refused, GLR_HW_FRAMES_ON, "vulkan:no-such-gpu", &unused));
    EXPECT_NE(std::string(glr_last_error()).find("hardware frames cannot start: no Vulkan device named no-such-gpu"),
              std::string::npos)
        << glr_last_error();
    EXPECT_NE(access(refused.c_str(), F_OK), 0) << "a refused recorder made its file";
    // Frames of a format hardware frames do not come in: the formats they do are named, and
    // the one nearest the pix_fmt asked for (a YUV one too, made from BGRA on the CPU).
    const std::string formats = "hardware frames come in nv12, yuv420p, p010le, yuv444p, yuva420p, yuva444p, "
                                "yuva444p10le, which the GPU converts to";
    EXPECT_FALSE(record(refused, GLR_HW_FRAMES_ON, nullptr, &unused, GLR_FORMAT_BGRA8));
    EXPECT_NE(std::string(glr_last_error()).find(formats + ", and ffv1 encodes bgra here: give it one of those as its "
                                                           "pix_fmt"),
              std::string::npos)
        << glr_last_error();
    EXPECT_FALSE(record(refused, GLR_HW_FRAMES_ON, nullptr, &unused, GLR_FORMAT_BGRA8, "yuv420p10le"));
    EXPECT_NE(std::string(glr_last_error()).find(formats + "; pix_fmt yuv420p10le is none of them (ffv1 would make it "
                                                           "from BGRA on the CPU): ask for p010le for 10 bits"),
              std::string::npos)
        << glr_last_error();
    EXPECT_NE(access(refused.c_str(), F_OK), 0) << "a refused recorder made its file";
}

// Hardware frames still converted at the end, as on a GPU (the marks' seam): the recorder's
// finish waits for each, so the file holds every frame, in order, as the readback's.
TEST_F(vulkan_frames_test, the_recorder_s_finish_waits_for_the_frames_still_converted)
{
    const int w = 64, h = 48, count = 12;
    scene();
    const std::string hw_path = glr_test::scratch_path("in_flight_hw.mkv"), rb_path = glr_test::scratch_path("in_flight_rb.mkv");
    for (const std::string &path : {hw_path, rb_path}) {
        glr_recorder_params rp{};
        rp.encoder.width = w;
        rp.encoder.height = h;
        rp.encoder.codec = "ffv1";
        rp.encoder.output = path.c_str();
        rp.ring.format = GLR_FORMAT_NV12;
        rp.hw_frames = path == hw_path ? GLR_HW_FRAMES_ON : GLR_HW_FRAMES_OFF;
        glr_recorder *rec = glr_recorder_create(nullptr, &rp);
        ASSERT_NE(rec, nullptr) << glr_last_error();
        glr_internal_recorder_fences_unsignalled(rec, 1000000);
        for (int n = 0; n < count; n++) {
            scene().draw(static_cast<uint64_t>(n));
            glr_source source = scene().source();
            ASSERT_EQ(glr_recorder_capture(rec, &source, n), 0) << glr_last_error();
        }
        glr_recorder_stats s{};
        glr_recorder_get_stats(rec, &s);
        EXPECT_LT(s.frames_delivered, count) << path << ": no frame was in flight at the end";
        ASSERT_EQ(glr_recorder_finish(rec), 0) << glr_last_error();
        glr_recorder_get_stats(rec, &s);
        EXPECT_EQ(s.frames_delivered, count) << path;
        EXPECT_EQ(s.hardware_frames, path == hw_path ? 1 : 0);
        glr_recorder_destroy(&rec);
    }
    glr_test::decoded_video a = glr_test::decode_file(hw_path), b = glr_test::decode_file(rb_path);
    ASSERT_EQ(a.error, "");
    ASSERT_EQ(a.frames.size(), static_cast<size_t>(count));
    ASSERT_EQ(b.frames.size(), static_cast<size_t>(count));
    for (int n = 0; n < count; n++)
        EXPECT_TRUE(a.frames[n].rgba == b.frames[n].rgba) << "frame " << n;
    EXPECT_FALSE(a.frames.front().rgba == a.frames.back().rgba) << "the frames change";
}

// The export job (glreader-export's, Python's and the farm's engine), through the options
// every front-end spells: --hw-frames on with -init_hw_device vulkan encodes the file that
// --hw-frames off does, with no frame read back; an encoder that encodes RGB is refused
// with the way out.
TEST_F(vulkan_frames_test, the_export_job_takes_hardware_frames_from_the_shared_options)
{
    auto run = [](const std::string &path, const char *use, glr_export_stats *stats) {
        glr_export_settings *s = glr_export_settings_create();
        const char *given[][2] = {{"-s", "64x48"},         {"-n", "6"}, {"-c", "ffv1"},        {"-pix_fmt", "yuv420p"},
                                  {"-o", path.c_str()},    {"-y", "1"}, {"--hw-frames", use}, {"-init_hw_device", "vulkan"}};
        for (const auto &g : given)
            EXPECT_EQ(glr_export_settings_set(s, g[0], g[1]), 0) << g[0] << ": " << glr_last_error();
        glr_export_params p{};
        EXPECT_EQ(glr_export_settings_resolve(s, nullptr, &p), 0) << glr_last_error();
        glr_export *job = glr_export_create(nullptr, &p);
        EXPECT_TRUE(job) << glr_last_error();
        if (job) {
            EXPECT_EQ(glr_export_run(job), 0) << glr_last_error();
            glr_export_get_stats(job, stats);
            glr_export_destroy(&job);
        }
        glr_export_settings_destroy(&s);
    };
    const std::string on = glr_test::scratch_path("export_hw.mkv"), off = glr_test::scratch_path("export_rb.mkv");
    glr_export_stats hw{}, rb{};
    run(on, "on", &hw);
    run(off, "off", &rb);
    EXPECT_EQ(hw.encoder.transferred_frames, 6u);
    EXPECT_STREQ(hw.ring.fill, "hardware-frames");
    EXPECT_EQ(hw.ring.frames_captured, 6u);
    EXPECT_EQ(hw.ring.readback.count, 0u) << "a frame was read back";
    EXPECT_EQ(rb.encoder.transferred_frames, 0u);
    EXPECT_EQ(rb.ring.frames_captured, 6u);
    glr_test::decoded_video a = glr_test::decode_file(on), b = glr_test::decode_file(off);
    ASSERT_EQ(a.error, "");
    ASSERT_EQ(a.frames.size(), 6u);
    ASSERT_EQ(b.frames.size(), 6u);
    for (size_t n = 0; n < a.frames.size(); n++)
        EXPECT_TRUE(a.frames[n].rgba == b.frames[n].rgba) << "frame " << n;
}

} // namespace
