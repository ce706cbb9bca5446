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

// Frames per case; GLR_TEST_FRAMES overrides (sanitizer builds use fewer). Fewer than 16
// (twice the deepest ring) would prove nothing about slots being reused: such a value, or
// one that is no number, fails the test instead of letting it pass on too little.
inline int frames_per_case(int fallback)
{
    const char *env = std::getenv("GLR_TEST_FRAMES");
    if (!env)
        return fallback;
    char *end = nullptr;
    long frames = std::strtol(env, &end, 10);
    if (end == env || *end != '\0' || frames < 16 || frames > 1000000) {
        ADD_FAILURE() << "GLR_TEST_FRAMES='" << env << "': give a whole number of frames from 16 to 1000000";
        return fallback;
    }
    return static_cast<int>(frames);
}

// A file name in the test's scratch directory, unique to this process.
inline std::string scratch_path(const std::string &name)
{
    return ::testing::TempDir() + "glr_" + std::to_string(getpid()) + "_" + name;
}

} // namespace glr_test
