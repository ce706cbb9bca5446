// The C++ layer: leases as move-only objects that give their slot back when destroyed.
#include "support/gl_test.hpp"
#include "support/pattern_scene.hpp"

#include <thread>
#include <vector>

namespace {

using glr_test::pattern_scene;
using glr_test::ring_params;
using cpp_api_test = glr_test::gl_test;

TEST_F(cpp_api_test, destroying_a_frame_returns_its_slot)
{
    pattern_scene scene({16, 16});
    glr::ring ring(ring_params(16, 16, GLR_FORMAT_RGBA8, GLR_FLIP_STRIDE, 1));
    ASSERT_TRUE(ring.try_capture(scene.source(), 0));
    {
        auto f = ring.acquire(UINT64_MAX);
        ASSERT_TRUE(f);
        EXPECT_EQ(ring.stats().frames_leased_now, 1u);
        glr::frame moved = std::move(*f);
        EXPECT_FALSE(*f);
        EXPECT_TRUE(moved);
        EXPECT_EQ(ring.stats().frames_leased_now, 1u);
    }
    EXPECT_EQ(ring.stats().frames_leased_now, 0u);
    EXPECT_EQ(ring.stats().frames_released, 1u);
    EXPECT_TRUE(ring.try_capture(scene.source(), 1));
}

TEST_F(cpp_api_test, frames_released_on_other_threads)
{
    pattern_scene scene({16, 16});
    glr::ring ring(ring_params(16, 16, GLR_FORMAT_RGBA8, GLR_FLIP_STRIDE, 2));
    std::vector<std::thread> releasers;
    for (int n = 0; n < 20; n++) {
        scene.draw(static_cast<uint64_t>(n));
        ring.capture(scene.source(), n, [&](glr::frame &&f) {
            releasers.emplace_back([frame = std::move(f)]() mutable { frame.reset(); });
        });
    }
    ring.drain([&](glr::frame &&f) { f.reset(); });
    for (auto &t : releasers)
        t.join();
    EXPECT_EQ(ring.stats().frames_released, 20u);
}

TEST_F(cpp_api_test, errors_carry_code_and_words)
{
    try {
        glr::ring ring(ring_params(0, 4));
        ADD_FAILURE();
    } catch (const glr::error &e) {
        EXPECT_EQ(e.code(), -EINVAL);
        EXPECT_STREQ(e.what(), "glr_ring_create: invalid size 0x4: width and height must be at least 1");
    }
}

TEST_F(cpp_api_test, row_accessor_follows_the_flip)
{
    pattern_scene scene({8, 4});
    for (glr_flip flip : {GLR_FLIP_STRIDE, GLR_FLIP_GPU}) {
        glr::ring ring(ring_params(8, 4, GLR_FORMAT_RGBA8, flip));
        scene.draw(3);
        ASSERT_TRUE(ring.try_capture(scene.source(), 3));
        auto f = ring.acquire(UINT64_MAX);
        ASSERT_TRUE(f);
        // Top row, third pixel, blue channel: (x*3 + y*7 + n) with x=2, y=0, n=3.
        EXPECT_EQ(f->row(0)[2 * 4 + 2], 9);
        EXPECT_EQ(f->row(3)[2 * 4 + 2], 2 * 3 + 3 * 7 + 3);
    }
}

} // namespace
