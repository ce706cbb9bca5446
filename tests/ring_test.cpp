// The ring's delivery contract: every captured frame is acquired exactly once, in capture
// order, pixel-exact, for every depth, flip mode, format and readback path, while a
// consumer thread holds leases for random times and releases them.
#include "support/consumer.hpp"
#include "support/gl_test.hpp"
#include "support/pattern_scene.hpp"
#include "support/process.hpp"

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <tuple>

namespace {

using glr_test::delayed_consumer;
using glr_test::pattern_scene;
using glr_test::frames_per_case;
using glr_test::ring_params;

enum class path { persistent, map_per_frame, no_fences };

unsigned flags_of(path p)
{
    switch (p) {
    case path::persistent: return 0;
    case path::map_per_frame: return GLR_RING_NO_PERSISTENT_MAP;
    case path::no_fences: return GLR_RING_NO_FENCES;
    }
    return 0;
}

struct delivery_result {
    std::vector<uint64_t> sequences;
    std::vector<int64_t> pts;
    std::vector<std::string> errors;
    glr_ring_stats stats{};
};

// Renders `frames` pattern frames through a ring into a delayed consumer.
delivery_result deliver(const glr_ring_params &params, int frames, int max_delay_us,
                        glr_test::scene_options scene_options = {})
{
    scene_options.width = params.width;
    scene_options.height = params.height;
    pattern_scene scene(scene_options);
    delivery_result result;
    delayed_consumer consumer(params.flip, max_delay_us, static_cast<unsigned>(frames));
    {
        glr::ring ring(params);
        auto sink = [&](glr::frame &&f) { consumer.push(std::move(f)); };
        glr_source source = scene.source();
        for (int n = 0; n < frames; n++) {
            scene.draw(static_cast<uint64_t>(n));
            ring.capture(source, n, sink);
        }
        ring.drain(sink);
        consumer.finish();
        result.stats = ring.stats();
    }
    result.sequences = consumer.sequences();
    result.pts = consumer.pts();
    result.errors = consumer.errors();
    return result;
}

void expect_exactly_once_in_order(const delivery_result &r, int frames)
{
    ASSERT_EQ(r.sequences.size(), static_cast<size_t>(frames));
    for (int n = 0; n < frames; n++) {
        ASSERT_EQ(r.sequences[static_cast<size_t>(n)], static_cast<uint64_t>(n));
        ASSERT_EQ(r.pts[static_cast<size_t>(n)], n);
    }
    EXPECT_TRUE(r.errors.empty()) << r.errors.front();
    EXPECT_EQ(r.stats.frames_captured, static_cast<uint64_t>(frames));
    EXPECT_EQ(r.stats.frames_acquired, static_cast<uint64_t>(frames));
    EXPECT_EQ(r.stats.frames_released, static_cast<uint64_t>(frames));
    EXPECT_EQ(r.stats.frames_leased_now, 0u);
}

using matrix_case = std::tuple<int, glr_flip, glr_format, path>;

class ring_delivery : public glr_test::gl_test,
                      public ::testing::WithParamInterface<matrix_case> {};

TEST_P(ring_delivery, every_frame_once_in_order_pixel_exact)
{
    auto [depth, flip, format, readback_path] = GetParam();
    // 37 pixels wide: an RGB row is 111 bytes, which a wrong pack alignment would pad.
    glr_ring_params params = ring_params(37, 23, format, flip, depth, flags_of(readback_path));
    int frames = frames_per_case(150);
    delivery_result r = deliver(params, frames, 300);
    expect_exactly_once_in_order(r, frames);
    EXPECT_EQ(r.stats.persistent_map, readback_path != path::map_per_frame);
    EXPECT_EQ(r.stats.fences, readback_path != path::no_fences);
}

std::string case_name(const ::testing::TestParamInfo<matrix_case> &info)
{
    auto [depth, flip, format, readback_path] = info.param;
    const char *flips[] = {"stride", "gpu", "none"};
    const char *paths[] = {"persistent", "map_per_frame", "no_fences"};
    return "depth" + std::to_string(depth) + "_" + flips[flip] + "_" + glr_format_name(format) +
           "_" + paths[static_cast<int>(readback_path)];
}

INSTANTIATE_TEST_SUITE_P(
    matrix, ring_delivery,
    ::testing::Combine(::testing::Range(1, 9),
                       ::testing::Values(GLR_FLIP_STRIDE, GLR_FLIP_GPU, GLR_FLIP_NONE),
                       ::testing::Values(GLR_FORMAT_RGBA8, GLR_FORMAT_BGRA8, GLR_FORMAT_RGB8),
                       ::testing::Values(path::persistent, path::map_per_frame, path::no_fences)),
    case_name);

using ring_test = glr_test::gl_test;

TEST_F(ring_test, thousands_of_frames_with_a_slow_consumer)
{
    int frames = frames_per_case(150) * 20;
    delivery_result r = deliver(ring_params(160, 90, GLR_FORMAT_RGBA8, GLR_FLIP_STRIDE, 3), frames, 400);
    expect_exactly_once_in_order(r, frames);
    EXPECT_STREQ(r.stats.path, "persistent-map+fences");
}

TEST_F(ring_test, thousands_of_frames_map_per_frame_path)
{
    int frames = frames_per_case(150) * 10;
    delivery_result r = deliver(
        ring_params(160, 90, GLR_FORMAT_BGRA8, GLR_FLIP_GPU, 4, GLR_RING_NO_PERSISTENT_MAP), frames,
        400);
    expect_exactly_once_in_order(r, frames);
    EXPECT_STREQ(r.stats.path, "map-per-frame+fences");
    EXPECT_EQ(r.stats.map.count, static_cast<uint64_t>(frames));
}

TEST_F(ring_test, multisampled_renderbuffer_is_resolved)
{
    glr_test::scene_options scene;
    scene.samples = 4;
    for (glr_flip flip : {GLR_FLIP_STRIDE, GLR_FLIP_GPU}) {
        delivery_result r = deliver(ring_params(40, 30, GLR_FORMAT_RGBA8, flip, 2), 40, 100, scene);
        expect_exactly_once_in_order(r, 40);
    }
}

TEST_F(ring_test, colour_attachment_other_than_zero)
{
    glr_test::scene_options scene;
    scene.attachment = 2;
    delivery_result r = deliver(ring_params(40, 30), 30, 0, scene);
    expect_exactly_once_in_order(r, 30);
}

TEST_F(ring_test, texture_source_plain_and_multisampled)
{
    for (int samples : {0, 4}) {
        glr_test::scene_options options;
        options.width = 48;
        options.height = 20;
        options.samples = samples;
        options.multisample_texture = samples > 0;
        pattern_scene scene(options);
        glr::ring ring(ring_params(48, 20, GLR_FORMAT_RGBA8, GLR_FLIP_GPU, 2));
        glr_source source =
            glr::texture_source(scene.texture(), samples ? 0x9100u /* GL_TEXTURE_2D_MULTISAMPLE */ : 0);
        std::vector<uint64_t> seen;
        auto sink = [&](glr::frame &&f) {
            EXPECT_EQ(glr_test::check_frame(f.c_frame(), static_cast<uint64_t>(f.pts()), GLR_FLIP_GPU), "");
            seen.push_back(f.sequence());
        };
        for (int n = 0; n < 20; n++) {
            scene.draw(static_cast<uint64_t>(n));
            ring.capture(source, n, sink);
        }
        ring.drain(sink);
        ASSERT_EQ(seen.size(), 20u) << "samples " << samples;
    }
}

TEST_F(ring_test, texture_source_reads_the_mipmap_level_it_names)
{
    // Level 1 of a 32x16 texture holds the 16x8 pattern, level 0 holds zeros: a 16x8 ring
    // reading level 1 (in RGBA and through the GPU's YUV conversion) gets the pattern,
    // reading level 0 does not.
    pattern_scene scene({16, 8});
    const GladGLContext &gl = scene.gl();
    GLuint texture = 0;
    gl.GenTextures(1, &texture);
    gl.BindTexture(GL_TEXTURE_2D, texture);
    gl.TexStorage2D(GL_TEXTURE_2D, 2, GL_RGBA8, 32, 16);
    std::vector<uint8_t> zeros(32 * 16 * 4, 0);
    gl.TexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, 32, 16, GL_RGBA, GL_UNSIGNED_BYTE, zeros.data());
    scene.draw(5);
    gl.BindFramebuffer(GL_READ_FRAMEBUFFER, scene.fbo());
    gl.CopyTexSubImage2D(GL_TEXTURE_2D, 1, 0, 0, 0, 0, 16, 8);
    gl.BindFramebuffer(GL_READ_FRAMEBUFFER, 0);
    gl.BindTexture(GL_TEXTURE_2D, 0);
    ASSERT_EQ(gl.GetError(), static_cast<GLenum>(GL_NO_ERROR));

    glr::ring ring(ring_params(16, 8));
    for (int level : {1, 0}) {
        glr_source source = glr::texture_source(texture);
        source.level = level;
        ASSERT_TRUE(ring.try_capture(source, 5));
        auto frame = ring.acquire(UINT64_MAX);
        ASSERT_TRUE(frame);
        std::string error = glr_test::check_frame(frame->c_frame(), 5, GLR_FLIP_STRIDE);
        if (level == 1)
            EXPECT_EQ(error, "");
        else
            EXPECT_NE(error, "") << "level 0 (zeros) read as the pattern of level 1";
    }
    // The GPU conversion samples the level it is given too: level 1's NV12 is the pattern's
    // (its luma rows differ from those of zeros, which are all 16).
    glr::ring yuv(ring_params(16, 8, GLR_FORMAT_NV12));
    glr_source source = glr::texture_source(texture);
    source.level = 1;
    ASSERT_TRUE(yuv.try_capture(source, 5));
    auto frame = yuv.acquire(UINT64_MAX);
    ASSERT_TRUE(frame);
    const uint8_t *luma = frame->c_frame().planes[0].data;
    bool all_black = true;
    for (int x = 0; x < 16; x++)
        all_black = all_black && luma[x] == 16;
    EXPECT_FALSE(all_black) << "NV12 of level 1 reads as level 0's zeros";
    frame.reset();
    gl.DeleteTextures(1, &texture);
}

// The GL state a host renderer may have set, which a capture in its context must leave
// as it found it: each value with its name.
using host_gl_state = std::vector<std::pair<std::string, GLint>>;

host_gl_state read_host_state(const GladGLContext &gl, unsigned source_fbo)
{
    host_gl_state state;
    for (auto [name, pname] : std::initializer_list<std::pair<const char *, GLenum>>{
             {"read framebuffer", GL_READ_FRAMEBUFFER_BINDING},
             {"draw framebuffer", GL_DRAW_FRAMEBUFFER_BINDING},
             {"pack buffer", GL_PIXEL_PACK_BUFFER_BINDING},
             {"renderbuffer", GL_RENDERBUFFER_BINDING},
             {"pack alignment", GL_PACK_ALIGNMENT},
             {"pack row length", GL_PACK_ROW_LENGTH},
             {"pack skip rows", GL_PACK_SKIP_ROWS},
             {"pack skip pixels", GL_PACK_SKIP_PIXELS},
             {"active texture", GL_ACTIVE_TEXTURE},
             {"2D texture", GL_TEXTURE_BINDING_2D},
             {"sampler", GL_SAMPLER_BINDING},
             {"shader storage buffer", GL_SHADER_STORAGE_BUFFER_BINDING}}) {
        GLint value = 0;
        gl.GetIntegerv(pname, &value);
        state.emplace_back(name, value);
    }
    // glReadBuffer belongs to the source's framebuffer object itself: bound only to ask.
    GLint read_buffer = 0;
    gl.BindFramebuffer(GL_READ_FRAMEBUFFER, source_fbo);
    gl.GetIntegerv(GL_READ_BUFFER, &read_buffer);
    gl.BindFramebuffer(GL_READ_FRAMEBUFFER, static_cast<GLuint>(state.front().second)); // the host's, first above
    state.emplace_back("the source's read buffer", read_buffer);
    return state;
}

// "" when now equals before, else each value that changed.
std::string changes(const host_gl_state &before, const host_gl_state &now)
{
    std::string text;
    for (size_t i = 0; i < before.size(); i++)
        if (before[i].second != now[i].second)
            text += before[i].first + " " + std::to_string(before[i].second) + " became " +
                    std::to_string(now[i].second) + "; ";
    return text;
}

TEST_F(ring_test, a_capture_leaves_the_host_s_gl_state_as_it_found_it)
{
    // A renderer captures in its own context between its draws: whatever it had bound and
    // set (framebuffers, buffers, pack state, texture unit, sampler, the source's read
    // buffer) is the same after a capture and after an acquire, for every kind of source,
    // through the readback and through the GPU's YUV conversion, on both map paths.
    struct source_case {
        const char *name;
        glr_test::scene_options options;
        bool texture;
    };
    glr_test::scene_options plain, multisampled, attachment, multisampled_texture;
    plain.width = multisampled.width = attachment.width = multisampled_texture.width = 24;
    plain.height = multisampled.height = attachment.height = multisampled_texture.height = 10;
    multisampled.samples = multisampled_texture.samples = 4;
    attachment.attachment = 1;
    multisampled_texture.multisample_texture = true;
    for (const source_case &c : {source_case{"framebuffer", plain, false},
                                 source_case{"multisampled renderbuffer", multisampled, false},
                                 source_case{"colour attachment 1", attachment, false},
                                 source_case{"texture", plain, true},
                                 source_case{"multisampled texture", multisampled_texture, true}})
        for (glr_format format : {GLR_FORMAT_RGBA8, GLR_FORMAT_RGB8, GLR_FORMAT_NV12})
            for (unsigned flags : {0u, static_cast<unsigned>(GLR_RING_NO_PERSISTENT_MAP)}) {
                SCOPED_TRACE(std::string(c.name) + ", " + glr_format_name(format) + (flags ? ", map per frame" : ""));
                pattern_scene scene(c.options);
                const GladGLContext &gl = scene.gl();
                GLuint fbos[2], buffers[2], renderbuffer = 0, texture = 0, sampler = 0;
                gl.GenFramebuffers(2, fbos);
                gl.GenBuffers(2, buffers);
                gl.GenRenderbuffers(1, &renderbuffer);
                gl.GenTextures(1, &texture);
                gl.GenSamplers(1, &sampler);
                scene.draw(7);
                if (c.options.attachment != 0)
                    gl.NamedFramebufferReadBuffer(scene.fbo(), GL_COLOR_ATTACHMENT0);
                gl.BindFramebuffer(GL_READ_FRAMEBUFFER, fbos[0]);
                gl.BindFramebuffer(GL_DRAW_FRAMEBUFFER, fbos[1]);
                gl.BindBuffer(GL_PIXEL_PACK_BUFFER, buffers[0]);
                gl.BindBuffer(GL_SHADER_STORAGE_BUFFER, buffers[1]);
                gl.BindRenderbuffer(GL_RENDERBUFFER, renderbuffer);
                gl.PixelStorei(GL_PACK_ALIGNMENT, 2);
                gl.PixelStorei(GL_PACK_ROW_LENGTH, 5);
                gl.PixelStorei(GL_PACK_SKIP_ROWS, 1);
                gl.PixelStorei(GL_PACK_SKIP_PIXELS, 3);
                gl.ActiveTexture(GL_TEXTURE3);
                gl.BindTexture(GL_TEXTURE_2D, texture);
                gl.BindSampler(3, sampler);
                ASSERT_EQ(gl.GetError(), static_cast<GLenum>(GL_NO_ERROR));
                const host_gl_state before = read_host_state(gl, scene.fbo());
                ASSERT_EQ(gl.GetError(), static_cast<GLenum>(GL_NO_ERROR));

                glr::ring ring(ring_params(24, 10, format, GLR_FLIP_STRIDE, 2, flags));
                glr_source source =
                    c.texture ? glr::texture_source(scene.texture(), c.options.samples ? 0x9100u : 0) : scene.source();
                ASSERT_TRUE(ring.try_capture(source, 7));
                EXPECT_EQ(changes(before, read_host_state(gl, scene.fbo())), "") << "after a capture";
                auto frame = ring.acquire(UINT64_MAX);
                ASSERT_TRUE(frame);
                if (format != GLR_FORMAT_NV12)
                    EXPECT_EQ(glr_test::check_frame(frame->c_frame(), 7, GLR_FLIP_STRIDE), "");
                EXPECT_EQ(changes(before, read_host_state(gl, scene.fbo())), "") << "after an acquire";
                frame.reset();
                gl.BindFramebuffer(GL_FRAMEBUFFER, 0);
                gl.BindBuffer(GL_PIXEL_PACK_BUFFER, 0);
                gl.BindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
                gl.BindSampler(3, 0);
                gl.BindTexture(GL_TEXTURE_2D, 0);
                gl.ActiveTexture(GL_TEXTURE0);
                gl.PixelStorei(GL_PACK_ALIGNMENT, 4);
                gl.PixelStorei(GL_PACK_ROW_LENGTH, 0);
                gl.PixelStorei(GL_PACK_SKIP_ROWS, 0);
                gl.PixelStorei(GL_PACK_SKIP_PIXELS, 0);
                gl.DeleteSamplers(1, &sampler);
                gl.DeleteTextures(1, &texture);
                gl.DeleteRenderbuffers(1, &renderbuffer);
                gl.DeleteBuffers(2, buffers);
                gl.DeleteFramebuffers(2, fbos);
            }
}

TEST(ring_default_framebuffer, reads_the_context_surface)
{
    glr_context_params params{};
    params.surface_width = 50;
    params.surface_height = 40;
    glr::context ctx(params);
    SCOPED_TRACE("EGL " + ctx.platform() + ": " + ctx.renderer());
    glr_test::scene_options options;
    options.width = 50;
    options.height = 40;
    pattern_scene scene(options);
    glr::ring ring(ring_params(50, 40));
    std::vector<std::string> errors;
    int seen = 0;
    auto sink = [&](glr::frame &&f) {
        errors.push_back(glr_test::check_frame(f.c_frame(), static_cast<uint64_t>(f.pts()), GLR_FLIP_STRIDE));
        seen++;
    };
    for (int n = 0; n < 10; n++) {
        scene.draw_default_framebuffer(static_cast<uint64_t>(n));
        ring.capture(glr::framebuffer_source(0), n, sink);
    }
    ring.drain(sink);
    ASSERT_EQ(seen, 10);
    for (const std::string &e : errors)
        EXPECT_EQ(e, "");
}

TEST_F(ring_test, slot_is_not_overwritten_while_leased)
{
    pattern_scene scene({40, 30});
    glr_ring_params params = ring_params(40, 30, GLR_FORMAT_RGBA8, GLR_FLIP_STRIDE, 2);
    params.capture_timeout_ns = 50'000'000; // 50 ms
    glr::ring ring(params);
    glr_source source = scene.source();

    scene.draw(0);
    ASSERT_TRUE(ring.try_capture(source, 0));
    auto held = ring.acquire(UINT64_MAX);
    ASSERT_TRUE(held);

    scene.draw(1);
    ASSERT_TRUE(ring.try_capture(source, 1));
    scene.draw(2);
    // Slot 0 is leased and slot 1 holds frame 1 unacquired: no slot may be written.
    EXPECT_FALSE(ring.try_capture(source, 2));
    auto second = ring.acquire(UINT64_MAX);
    ASSERT_TRUE(second);
    // Both slots leased: capture waits for a release, then gives up with a clear error.
    try {
        ring.try_capture(source, 2);
        ADD_FAILURE() << "capture into a fully leased ring succeeded";
    } catch (const glr::error &e) {
        EXPECT_EQ(e.code(), -ETIMEDOUT);
        EXPECT_NE(std::string(e.what()).find("stayed leased"), std::string::npos) << e.what();
    }
    EXPECT_EQ(glr_test::check_frame(held->c_frame(), 0, GLR_FLIP_STRIDE), "");
    EXPECT_EQ(glr_test::check_frame(second->c_frame(), 1, GLR_FLIP_STRIDE), "");
}

// Whether thread tid of this process sleeps in a futex (a condition variable's wait).
bool waits_in_a_futex(pid_t tid)
{
    std::ifstream wchan("/proc/self/task/" + std::to_string(tid) + "/wchan");
    std::string where;
    wchan >> where;
    return where.rfind("futex", 0) == 0;
}

TEST_F(ring_test, a_release_on_another_thread_unblocks_a_waiting_capture)
{
    pattern_scene scene({40, 30});
    glr_ring_params params = ring_params(40, 30, GLR_FORMAT_RGBA8, GLR_FLIP_STRIDE, 1);
    params.capture_timeout_ns = UINT64_MAX;
    glr::ring ring(params);
    glr_source source = scene.source();
    scene.draw(0);
    ASSERT_TRUE(ring.try_capture(source, 0));
    auto held = ring.acquire(UINT64_MAX);
    ASSERT_TRUE(held);

    // The releaser lets go of the only slot once the capture below is asleep waiting for it
    // (drawn first: the capture makes no GL call before it waits).
    scene.draw(1);
    pid_t capturing = gettid();
    std::thread releaser([&] {
        glr_test::wait_until([&] { return waits_in_a_futex(capturing); }, "the capture waiting for a slot");
        held->reset();
    });
    EXPECT_TRUE(ring.try_capture(source, 1));
    releaser.join();
    EXPECT_EQ(ring.stats().slot_wait.count, 1u) << "the capture did not wait for the release";
    auto next = ring.acquire(UINT64_MAX);
    ASSERT_TRUE(next);
    EXPECT_EQ(glr_test::check_frame(next->c_frame(), 1, GLR_FLIP_STRIDE), "");
}

TEST_F(ring_test, stats_count_each_stage)
{
    delivery_result r = deliver(ring_params(64, 48), 50, 0);
    const glr_ring_stats &s = r.stats;
    EXPECT_EQ(s.depth, 3);
    EXPECT_EQ(s.stall.count, 50u);
    EXPECT_EQ(s.readback.count, 50u);
    EXPECT_EQ(s.fence_wait.count, 50u);
    EXPECT_EQ(s.hold.count, 50u);
    EXPECT_EQ(s.host_state.count, 50u);
    EXPECT_GT(s.host_state.total_ms, 0.0);
    EXPECT_LE(s.host_state.total_ms, s.readback.total_ms); // a part of it
    EXPECT_EQ(s.map.count, 0u);
    EXPECT_GT(s.stall.p50_ms, 0.0);
    EXPECT_LE(s.stall.p50_ms, s.stall.p95_ms);
    EXPECT_LE(s.stall.p95_ms, s.stall.p99_ms);
    EXPECT_LE(s.stall.p99_ms, s.stall.max_ms);
    EXPECT_GE(s.stall.total_ms, s.readback.total_ms);
}

// Every plane of a lease carries its rows and row bytes, as the format table says (and
// the planes a format lacks carry none), so consumers need not ask the table.
TEST_F(ring_test, each_plane_says_its_rows_and_row_bytes)
{
    pattern_scene scene({48, 30});
    for (glr_format format : {GLR_FORMAT_RGBA8, GLR_FORMAT_RGB8, GLR_FORMAT_NV12, GLR_FORMAT_I420, GLR_FORMAT_P010,
                              GLR_FORMAT_YUV444}) {
        SCOPED_TRACE(glr_format_name(format));
        glr::ring ring(ring_params(48, 30, format));
        ASSERT_TRUE(ring.try_capture(scene.source(), 0));
        auto f = ring.acquire(UINT64_MAX);
        ASSERT_TRUE(f);
        int planes = glr_format_get_info(format)->planes;
        for (int p = 0; p < 4; p++) {
            EXPECT_EQ(f->rows(p), p < planes ? glr_format_plane_rows(format, p, 30) : 0) << "plane " << p;
            EXPECT_EQ(f->row_bytes(p), p < planes ? glr_format_plane_row_bytes(format, p, 48) : 0) << "plane " << p;
        }
    }
}

// The free slots are counted by the ring: a capture takes one until its frame is acquired
// and released, on whatever thread.
TEST_F(ring_test, free_slots_count_what_a_capture_may_fill_without_waiting)
{
    pattern_scene scene({16, 16});
    glr::ring ring(ring_params(16, 16, GLR_FORMAT_RGBA8, GLR_FLIP_STRIDE, 3));
    EXPECT_EQ(glr_ring_free_slots(ring.get()), 3);
    ASSERT_TRUE(ring.try_capture(scene.source(), 0));
    ASSERT_TRUE(ring.try_capture(scene.source(), 1));
    EXPECT_EQ(glr_ring_free_slots(ring.get()), 1);
    auto first = ring.acquire(UINT64_MAX);
    ASSERT_TRUE(first);
    EXPECT_EQ(glr_ring_free_slots(ring.get()), 1) << "a leased frame still holds its slot";
    std::thread([f = std::move(*first)]() mutable { f.reset(); }).join();
    EXPECT_EQ(glr_ring_free_slots(ring.get()), 2);
    EXPECT_EQ(glr_ring_free_slots(nullptr), -EINVAL);
}

// A host's own loader: counts its lookups, or finds nothing at all.
std::atomic<int> host_lookups{0};
void (*counting_loader(const char *name))(void)
{
    host_lookups++;
    return glr::context::proc_loader()(name);
}
void (*empty_loader(const char *))(void) { return nullptr; }

TEST_F(ring_test, a_host_s_own_get_proc_address_is_the_one_used)
{
    pattern_scene scene({16, 8});
    glr_ring_params params = ring_params(16, 8);
    params.get_proc_address = counting_loader;
    host_lookups = 0;
    glr::ring ring(params);
    EXPECT_GT(host_lookups.load(), 0);
    scene.draw(0);
    ASSERT_TRUE(ring.try_capture(scene.source(), 0));
    auto frame = ring.acquire(UINT64_MAX);
    ASSERT_TRUE(frame);
    EXPECT_EQ(glr_test::check_frame(frame->c_frame(), 0, GLR_FLIP_STRIDE), "");

    // A loader that finds nothing is not worked around: the ring says it cannot load GL.
    params.get_proc_address = empty_loader;
    glr_ring *none = glr_ring_create(nullptr, &params);
    EXPECT_EQ(none, nullptr);
    EXPECT_NE(std::string(glr_last_error()).find("could not load OpenGL functions"), std::string::npos)
        << glr_last_error();
    glr_ring_destroy(&none);
}

} // namespace
