// Bad input gets a clear error and no crash.
#include "priv.h"
#include "ring/fence_seam.h"
#include "support/gl_test.hpp"
#include "support/pattern_scene.hpp"

#include <cerrno>
#include <cstring>
#include <string>
#include <thread>

namespace {

using glr_test::pattern_scene;
using glr_test::ring_params;

// Collects what the ring logs, to check the words users will read.
struct captured_log {
    std::string text;
    glr_log *log = nullptr;
    captured_log()
    {
        glr_log_params p{};
        p.callback = [](void *opaque, glr_log_level, const char *message) {
            static_cast<captured_log *>(opaque)->text += std::string(message) + "\n";
        };
        p.opaque = this;
        p.level = GLR_LOG_DEBUG;
        log = glr_log_create(&p);
    }
    ~captured_log() { glr_log_destroy(&log); }
};

// Stores an out-of-range value in a C enum field, as a C caller can.
template <typename Enum>
void store_raw(Enum &field, int value)
{
    std::memcpy(&field, &value, sizeof value);
}

bool contains(const std::string &text, const std::string &part)
{
    return text.find(part) != std::string::npos;
}

using ring_errors = glr_test::gl_test;

// Creating a ring with params fails with NULL, a code-bearing message, and a log line
// (which, at debug level, may name the function).
std::string create_fails(const glr_ring_params &params)
{
    captured_log log;
    glr_ring *ring = glr_ring_create(log.log, &params);
    EXPECT_EQ(ring, nullptr);
    glr_ring_destroy(&ring);
    const std::string words = glr_last_error();
    EXPECT_TRUE(log.text == words + "\n" || log.text == "glr_ring_create: " + words + "\n") << log.text;
    return glr_last_error();
}

TEST_F(ring_errors, zero_and_negative_sizes)
{
    EXPECT_TRUE(contains(create_fails(ring_params(0, 0)), "invalid size 0x0"));
    EXPECT_TRUE(contains(create_fails(ring_params(-5, 10)), "invalid size -5x10"));
    EXPECT_TRUE(contains(create_fails(ring_params(10, -1)), "invalid size 10x-1"));
}

TEST_F(ring_errors, huge_sizes_name_the_driver_limit)
{
    std::string message = create_fails(ring_params(100000, 100000));
    EXPECT_TRUE(contains(message, "100000x100000 exceeds this driver's limit")) << message;
    EXPECT_TRUE(contains(message, "GL_MAX_RENDERBUFFER_SIZE")) << message;
}

TEST_F(ring_errors, unsupported_format_flip_depth_and_flags)
{
    glr_ring_params bad_format = ring_params(8, 8);
    store_raw(bad_format.format, 42);
    EXPECT_TRUE(contains(create_fails(bad_format), "unknown format 42"));
    glr_ring_params bad_flip = ring_params(8, 8);
    store_raw(bad_flip.flip, 9);
    EXPECT_TRUE(contains(create_fails(bad_flip), "unknown flip mode 9"));
    EXPECT_TRUE(contains(create_fails(ring_params(8, 8, GLR_FORMAT_RGBA8, GLR_FLIP_STRIDE, 65)),
                         "depth 65 is out of range 1..64"));
    EXPECT_TRUE(contains(create_fails(ring_params(8, 8, GLR_FORMAT_RGBA8, GLR_FLIP_STRIDE, -1)),
                         "depth -1 is out of range"));
    EXPECT_TRUE(contains(create_fails(ring_params(8, 8, GLR_FORMAT_RGBA8, GLR_FLIP_STRIDE, 3, 0x100)),
                         "unknown flags 0x100"));
}

TEST_F(ring_errors, no_current_context)
{
    ctx_->release_current();
    std::string message = create_fails(ring_params(8, 8));
    EXPECT_TRUE(contains(message, "no OpenGL context is current on this thread")) << message;
    ctx_->make_current();
}

TEST_F(ring_errors, capture_and_acquire_on_a_thread_without_the_context)
{
    pattern_scene scene({16, 16});
    glr::ring ring(ring_params(16, 16));
    glr_source source = scene.source();
    int capture_rc = 0, acquire_rc = 0;
    std::string message;
    std::thread other([&] {
        capture_rc = glr_ring_capture(ring.get(), &source, 0);
        message = glr_last_error();
        glr_frame f{};
        acquire_rc = glr_ring_acquire(ring.get(), &f, 0);
    });
    other.join();
    EXPECT_EQ(capture_rc, GLR_ERROR_NO_CONTEXT);
    EXPECT_EQ(acquire_rc, GLR_ERROR_NO_CONTEXT);
    EXPECT_TRUE(contains(message, "no OpenGL context is current")) << message;
    EXPECT_TRUE(ring.try_capture(source, 0)); // the ring still works on its own thread
}

TEST_F(ring_errors, bad_sources)
{
    pattern_scene scene({16, 16});
    captured_log log;
    glr_ring_params params = ring_params(16, 16);
    glr_ring *ring = glr_ring_create(log.log, &params);
    ASSERT_NE(ring, nullptr);
    auto capture_error = [&](glr_source source) {
        int rc = glr_ring_capture(ring, &source, 0);
        EXPECT_EQ(rc, -EINVAL);
        return std::string(glr_last_error());
    };
    EXPECT_TRUE(contains(capture_error(glr::framebuffer_source(9999)),
                         "9999 is not a framebuffer name"));
    EXPECT_TRUE(contains(capture_error(glr::texture_source(9999)), "9999 is not a texture name"));
    EXPECT_TRUE(contains(capture_error(glr::texture_source(scene.texture(), 0x8C1A /* 2D array */)),
                         "texture target 0x8c1a is not supported"));
    EXPECT_TRUE(contains(capture_error(glr::framebuffer_source(scene.fbo(), 100)),
                         "colour attachment 100 is out of range"));
    // The surfaceless context has no default framebuffer.
    EXPECT_TRUE(contains(capture_error(glr::framebuffer_source(0)),
                         "the default framebuffer cannot be read (GL_FRAMEBUFFER_UNDEFINED)"));
    // An attachment that exists but has nothing attached.
    EXPECT_TRUE(contains(capture_error(glr::framebuffer_source(scene.fbo(), 1)),
                         "colour attachment 1 of framebuffer"));
    glr_source bad_kind{};
    store_raw(bad_kind.kind, 7);
    EXPECT_TRUE(contains(capture_error(bad_kind), "unknown source kind 7"));
    EXPECT_EQ(glr_ring_capture(ring, nullptr, 0), -EINVAL);
    EXPECT_TRUE(contains(glr_last_error(), "source is NULL"));

    // Nothing was captured by the failed calls: every slot is still free.
    glr_frame f{};
    EXPECT_EQ(glr_ring_acquire(ring, &f, 0), -ENODATA);
    glr_ring_stats stats{};
    glr_ring_get_stats(ring, &stats);
    EXPECT_EQ(stats.frames_captured, 0u);
    glr_ring_destroy(&ring);
    EXPECT_EQ(ring, nullptr);
}

TEST_F(ring_errors, source_smaller_than_the_ring)
{
    pattern_scene scene({16, 16});
    glr::ring ring(ring_params(32, 16));
    try {
        ring.try_capture(scene.source(), 0);
        ADD_FAILURE() << "captured 32x16 from a 16x16 source";
    } catch (const glr::error &e) {
        EXPECT_EQ(e.code(), -EINVAL);
        EXPECT_TRUE(contains(e.what(), "is 16x16, smaller than the ring's 32x16")) << e.what();
    }
}

TEST_F(ring_errors, release_of_foreign_or_released_frame)
{
    pattern_scene scene({16, 16});
    captured_log log;
    glr_ring_params params = ring_params(16, 16);
    glr_ring *a = glr_ring_create(log.log, &params);
    glr_ring *b = glr_ring_create(log.log, &params);
    glr_source source = scene.source();
    ASSERT_EQ(glr_ring_capture(a, &source, 7), 0);
    ASSERT_EQ(glr_ring_capture(b, &source, 8), 0);
    glr_frame fa{}, fb{};
    ASSERT_EQ(glr_ring_acquire(a, &fa, UINT64_MAX), 0);
    ASSERT_EQ(glr_ring_acquire(b, &fb, UINT64_MAX), 0);

    glr_frame copy_of_a = fa;
    EXPECT_EQ(fa.ring_, a); // each frame knows its own ring
    EXPECT_EQ(fb.ring_, b);
    EXPECT_EQ(glr_frame_release(&fa), 0);
    EXPECT_EQ(fa.planes[0].data, nullptr); // cleared
    EXPECT_EQ(glr_frame_release(&fa), -EINVAL);        // already released (cleared struct)
    EXPECT_TRUE(contains(glr_last_error(), "holds no lease"));
    EXPECT_EQ(glr_frame_release(&copy_of_a), -EINVAL); // already released (stale copy)
    glr_frame garbage = copy_of_a;
    garbage.slot_ = 1234;
    EXPECT_EQ(glr_frame_release(&garbage), -EINVAL);
    EXPECT_EQ(glr_frame_release(nullptr), -EINVAL);

    glr_ring_stats stats{};
    glr_ring_get_stats(b, &stats);
    EXPECT_EQ(stats.frames_leased_now, 1u); // b's lease survived the bad releases
    EXPECT_EQ(glr_frame_release(&fb), 0);
    glr_ring_destroy(&a);
    glr_ring_destroy(&b);
}

TEST_F(ring_errors, destroy_with_leases_outstanding)
{
    pattern_scene scene({16, 16});
    captured_log log;
    for (unsigned flags : {0u, unsigned(GLR_RING_NO_PERSISTENT_MAP)}) {
        glr_ring_params params = ring_params(16, 16, GLR_FORMAT_RGBA8, GLR_FLIP_STRIDE, 3, flags);
        glr_ring *ring = glr_ring_create(log.log, &params);
        glr_source source = scene.source();
        scene.draw(5);
        ASSERT_EQ(glr_ring_capture(ring, &source, 5), 0);
        ASSERT_EQ(glr_ring_capture(ring, &source, 6), 0); // stays unacquired
        glr_frame f{};
        ASSERT_EQ(glr_ring_acquire(ring, &f, UINT64_MAX), 0);
        glr_ring_destroy(&ring);
        EXPECT_EQ(ring, nullptr);
        EXPECT_TRUE(contains(log.text, "1 frame(s) still leased")) << log.text;
        // The lease's memory is still readable and intact, and releasing it frees the rest.
        EXPECT_EQ(glr_test::check_frame(f, 5, GLR_FLIP_STRIDE), "");
        EXPECT_EQ(glr_frame_release(&f), 0);
        log.text.clear();
    }
}

TEST_F(ring_errors, ring_full_of_unacquired_frames_is_busy_not_blocked)
{
    pattern_scene scene({16, 16});
    glr::ring ring(ring_params(16, 16, GLR_FORMAT_RGBA8, GLR_FLIP_STRIDE, 2));
    glr_source source = scene.source();
    EXPECT_EQ(glr_ring_capture(ring.get(), &source, 0), 0);
    EXPECT_EQ(glr_ring_capture(ring.get(), &source, 1), 0);
    EXPECT_EQ(glr_ring_capture(ring.get(), &source, 2), -EBUSY);
    glr_frame f{};
    EXPECT_EQ(glr_ring_acquire(ring.get(), &f, UINT64_MAX), 0);
    EXPECT_EQ(f.pts, 0);
    EXPECT_EQ(glr_frame_release(&f), 0);
    EXPECT_EQ(glr_ring_capture(ring.get(), &source, 2), 0);
}

TEST(ring_errors_no_fixture, null_arguments_and_strerror)
{
    EXPECT_EQ(glr_ring_create(nullptr, nullptr), nullptr);
    EXPECT_TRUE(contains(glr_last_error(), "params is NULL"));
    EXPECT_EQ(glr_ring_capture(nullptr, nullptr, 0), -EINVAL);
    EXPECT_EQ(glr_ring_acquire(nullptr, nullptr, 0), -EINVAL);
    EXPECT_EQ(glr_frame_release(nullptr), -EINVAL);
    glr_ring_destroy(nullptr);
    glr_ring_get_stats(nullptr, nullptr);
    EXPECT_STREQ(glr_strerror(-EBUSY), "ring full of frames not acquired yet");
    EXPECT_STREQ(glr_strerror(GLR_ERROR_NO_CONTEXT), "no OpenGL context is current on this thread");
    EXPECT_STREQ(glr_strerror(-ETIMEDOUT), "Connection timed out");
    EXPECT_STREQ(glr_strerror(12345), "unknown error");
}

TEST_F(ring_errors, acquire_says_eagain_while_a_readback_is_not_done_and_loses_nothing)
{
    // As on a GPU still copying: a finite wait gives -EAGAIN, unlogged and not an error;
    // the frame stays first in line and comes out whole once its readback is done, which
    // a wait as long as it takes waits for.
    captured_log log;
    pattern_scene scene({16, 8});
    glr_ring_params params = ring_params(16, 8);
    glr_ring *ring = glr_ring_create(log.log, &params);
    ASSERT_NE(ring, nullptr) << glr_last_error();
    scene.draw(0);
    glr_source source = scene.source();
    ASSERT_EQ(glr_ring_capture(ring, &source, 0), 0);
    glr_internal_ring_fences_unsignalled(ring, 3);
    log.text.clear(); // the ring's creation line
    glr_priv_report_error(nullptr, -EPIPE, "an earlier error", 0);
    glr_frame f{};
    EXPECT_EQ(glr_ring_acquire(ring, &f, 1'000'000), -EAGAIN);
    EXPECT_EQ(glr_ring_acquire(ring, &f, 0), -EAGAIN);
    EXPECT_EQ(log.text, "");
    EXPECT_STREQ(glr_last_error(), "an earlier error");
    ASSERT_EQ(glr_ring_acquire(ring, &f, UINT64_MAX), 0) << glr_last_error();
    glr_internal_ring_fences_unsignalled(ring, 0); // the poll left
    EXPECT_EQ(f.pts, 0);
    EXPECT_EQ(glr_test::check_frame(f, 0, GLR_FLIP_STRIDE), "");
    EXPECT_EQ(glr_frame_release(&f), 0);
    EXPECT_EQ(glr_ring_acquire(ring, &f, 0), -ENODATA);
    glr_ring_destroy(&ring);
}

} // namespace
