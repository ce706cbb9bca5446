// The C++ layer: leases as move-only objects that give their slot back when destroyed.
#include "support/gl_test.hpp"
#include "support/pattern_scene.hpp"

#include <cstdio>
#include <fstream>
#include <string>
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
        EXPECT_STREQ(e.what(), "invalid size 0x4: width and height must be at least 1");
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

namespace {

// A project and its player as C++ objects: they render, move, and throw with the
// library's words (a compile error locates the author's line).
TEST_F(cpp_api_test, a_project_plays_through_the_player_wrapper_and_errors_throw)
{
    std::string shader = glr_test::scratch_path("cpp_player.frag");
    std::ofstream(shader) << "void mainImage(out vec4 c, in vec2 p) { c = vec4(float(iFrame) / 255.0, 0, 0, 1); }\n";
    glr::project project(shader.c_str());
    glr_player_params pp{};
    pp.width = 8;
    pp.height = 8;
    pp.project = project.get();
    pp.first_frame = 3;
    glr::player player(pp);
    glr::player moved = std::move(player);
    EXPECT_EQ(player.get(), nullptr);
    EXPECT_EQ(moved.preroll(), 0);
    moved.render_next();
    EXPECT_EQ(moved.frame(), 3);
    glr::ring ring(ring_params(8, 8, GLR_FORMAT_RGBA8, GLR_FLIP_STRIDE, 2));
    ASSERT_TRUE(ring.try_capture(moved.source(), 0));
    auto f = ring.acquire(UINT64_MAX);
    ASSERT_TRUE(f);
    EXPECT_EQ(f->data()[0], 3); // iFrame 3's red
    EXPECT_EQ(moved.stats().frames_rendered, 1u);

    std::ofstream(shader) << "void mainImage(out vec4 c, in vec2 p) {\n    c = nonsense;\n}\n";
    glr::project broken(shader.c_str());
    pp.project = broken.get();
    try {
        glr::player fails(pp);
        ADD_FAILURE() << "a shader that does not compile made a player";
    } catch (const glr::error &e) {
        EXPECT_EQ(e.code(), GLR_ERROR_SHADER);
        EXPECT_NE(std::string(e.what()).find("cpp_player.frag:2:"), std::string::npos) << e.what();
    }
    EXPECT_THROW(project.bind(GLR_SCENE_IMAGE_PASS, 0, "nosuchkind:x", "channel0"), glr::error);
    std::remove(shader.c_str());
}

} // namespace
