// GoogleTest fixture: a headless EGL context, current on the test's thread.
#pragma once

#include "glreader/glreader.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <memory>
#include <string>

namespace glr_test {

class gl_test : public ::testing::Test {
protected:
    void SetUp() override { ctx_ = std::make_unique<glr::context>(); }
    void TearDown() override { ctx_.reset(); }

    std::unique_ptr<glr::context> ctx_;
};

// Ring parameters for a test.
inline glr_ring_params ring_params(int width, int height, glr_format format = GLR_FORMAT_RGBA8,
                                   glr_flip flip = GLR_FLIP_STRIDE, int depth = 3,
                                   unsigned flags = 0)
{
    glr_ring_params p{};
    p.width = width;
    p.height = height;
    p.format = format;
    p.flip = flip;
    p.depth = depth;
    p.flags = flags;
    return p;
}

// Frames per case; GLR_TEST_FRAMES overrides (sanitizer builds use fewer).
inline int frames_per_case(int fallback)
{
    const char *env = std::getenv("GLR_TEST_FRAMES");
    return env ? std::atoi(env) : fallback;
}

// A file name in the test's scratch directory, unique to this process.
inline std::string scratch_path(const std::string &name)
{
    return ::testing::TempDir() + "glr_" + std::to_string(getpid()) + "_" + name;
}

} // namespace glr_test
