// The headless EGL context: which renderer it got, require_hw, threads.
#include "glreader/glreader.hpp"

#include <gtest/gtest.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

namespace {

TEST(context_test, reports_renderer_platform_and_version)
{
    glr::context ctx;
    EXPECT_FALSE(ctx.renderer().empty());
    std::string platform = ctx.platform();
    EXPECT_TRUE(platform == "device" || platform == "surfaceless" || platform == "pbuffer") << platform;
    int major = 0, minor = 0;
    glr_context_gl_version(ctx.get(), &major, &minor);
    EXPECT_GE(major * 10 + minor, 33);
    // On a machine without a GPU the renderer is llvmpipe, and glreader must say so.
    if (ctx.renderer().find("llvmpipe") != std::string::npos)
        EXPECT_TRUE(ctx.is_software());
}

TEST(context_test, require_hw_names_the_software_renderer_it_refused)
{
    glr::context probe;
    bool software = probe.is_software();
    std::string renderer = probe.renderer();
    probe.release_current();

    glr_context_params params{};
    params.require_hw = 1;
    glr_context *ctx = glr_context_create(nullptr, &params);
    if (!software) {
        ASSERT_NE(ctx, nullptr) << glr_last_error();
        EXPECT_FALSE(glr_context_is_software(ctx));
        glr_context_destroy(&ctx);
        return;
    }
    EXPECT_EQ(ctx, nullptr);
    std::string message = glr_last_error();
    EXPECT_NE(message.find("require_hw"), std::string::npos) << message;
    EXPECT_NE(message.find(renderer), std::string::npos) << message;
    try {
        glr::context refused(params);
        ADD_FAILURE() << "require_hw accepted " << renderer;
    } catch (const glr::error &e) {
        EXPECT_EQ(e.code(), GLR_ERROR_SOFTWARE_RENDERER);
    }
}

TEST(context_test, explicit_platform_and_unavailable_version)
{
    glr_context_params params{};
    params.platform = GLR_PLATFORM_SURFACELESS;
    params.gl_major = 9;
    params.gl_minor = 9;
    glr_context *ctx = glr_context_create(nullptr, &params);
    EXPECT_EQ(ctx, nullptr);
    std::string message = glr_last_error();
    EXPECT_NE(message.find("surfaceless: no OpenGL 9.9 core context"), std::string::npos) << message;
}

TEST(context_test, every_platform_that_egl_offers_here)
{
    // Mesa offers its software rasterizer as an EGL device too, so the device platform
    // (the NVIDIA path) is exercised even on a machine without a GPU.
    for (glr_platform platform : {GLR_PLATFORM_SURFACELESS, GLR_PLATFORM_DEVICE}) {
        glr_context_params params{};
        params.platform = platform;
        glr::context ctx(params);
        EXPECT_EQ(ctx.platform(), platform == GLR_PLATFORM_DEVICE ? "device" : "surfaceless");
        glr_ring_params ring_params{};
        ring_params.width = 4;
        ring_params.height = 4;
        glr::ring ring(ring_params);
        EXPECT_STREQ(ring.stats().path, "persistent-map+fences");
    }
}

TEST(context_test, unknown_platform_is_refused)
{
    glr_context_params params{};
    int bad = 17;
    std::memcpy(&params.platform, &bad, sizeof bad); // as a C caller could
    EXPECT_EQ(glr_context_create(nullptr, &params), nullptr);
    EXPECT_EQ(glr_last_error_code(), -EINVAL);
    EXPECT_STREQ(glr_last_error(), "unknown platform 17");
}

// GLR_EGL_DEVICE picks the one EGL device a context may use, by number or by CUDA's
// number (a scheduler's GPU id); a device that is not there is refused, naming those that are.
TEST(context_test, glr_egl_device_names_the_one_device_used)
{
    struct restore {
        ~restore() { unsetenv("GLR_EGL_DEVICE"); }
    } restore_after;
    setenv("GLR_EGL_DEVICE", "0", 1);
    {
        glr::context ctx; // the automatic choice would be surfaceless on Mesa
        EXPECT_EQ(ctx.platform(), "device");
    }
    for (const char *missing : {"99", "cuda:99"}) {
        setenv("GLR_EGL_DEVICE", missing, 1);
        EXPECT_EQ(glr_context_create(nullptr, nullptr), nullptr);
        std::string message = glr_last_error();
        EXPECT_EQ(message.find(std::string("GLR_EGL_DEVICE=") + missing + ": no such EGL device; there are "), 0u)
            << message;
        EXPECT_NE(message.find("0 ("), std::string::npos) << "device 0 is listed with what it is: " << message;
    }
    setenv("GLR_EGL_DEVICE", "gpu1", 1);
    EXPECT_EQ(glr_context_create(nullptr, nullptr), nullptr);
    EXPECT_EQ(glr_last_error_code(), -EINVAL);
    EXPECT_NE(std::string(glr_last_error()).find("give an EGL device number (0, 1, ...) or cuda:N"), std::string::npos)
        << glr_last_error();
    // An explicit platform other than a device's is not a device's choice.
    setenv("GLR_EGL_DEVICE", "99", 1);
    glr_context_params params{};
    params.platform = GLR_PLATFORM_SURFACELESS;
    glr::context surfaceless(params);
    EXPECT_EQ(surfaceless.platform(), "surfaceless");
}

TEST(context_test, moves_between_threads)
{
    glr::context ctx;
    ctx.release_current();
    std::string renderer_on_thread;
    std::thread worker([&] {
        ctx.make_current();
        auto get_string = reinterpret_cast<const unsigned char *(*)(unsigned)>(
            glr::context::proc_loader()("glGetString"));
        renderer_on_thread = reinterpret_cast<const char *>(get_string(0x1F01 /* GL_RENDERER */));
        ctx.release_current();
    });
    worker.join();
    EXPECT_EQ(renderer_on_thread, ctx.renderer());
    ctx.make_current();
}

} // namespace
