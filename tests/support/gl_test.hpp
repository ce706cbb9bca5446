// GoogleTest fixture: a headless EGL context, current on the test's thread.
#pragma once

#include "glreader/glreader.hpp"

#include <gtest/gtest.h>

#include <memory>

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

} // namespace glr_test
