#include "counter_video.hpp"

#include "decoder.hpp"
#include "gl_test.hpp"

#include <gtest/gtest.h>

#include <fstream>

namespace glr_test {

namespace {

// iFrame in red and green, the pixel's position (counted from the top row) in blue: what
// pattern() computes.
const char *counter_shader = R"(void mainImage(out vec4 c, in vec2 fragCoord) {
    uint x = uint(fragCoord.x);
    uint y = uint(int(iResolution.y) - 1 - int(fragCoord.y));
    uint n = uint(iFrame);
    c = vec4(uvec4(n & 255u, (n >> 8) & 255u, (x * 3u + y * 7u + n) & 255u, 255u)) / 255.0;
}
)";

} // namespace

std::string write_counter_shader()
{
    std::string path = scratch_path("counter.frag");
    std::ofstream(path) << counter_shader;
    return path;
}

void expect_counter_video(const std::string &path, int width, int height, int frames)
{
    decoded_video v = decode_file(path);
    ASSERT_EQ(v.error, "");
    if (frames < 0)
        ASSERT_GT(v.frames.size(), 0u);
    else
        ASSERT_EQ(v.frames.size(), static_cast<size_t>(frames));
    for (size_t n = 0; n < v.frames.size(); n++) {
        ASSERT_EQ(check_decoded(v.frames[n], n, width, height, false), "");
        // The shader writes alpha 1 where pattern() has its own alpha.
        for (size_t i = 3; i < v.frames[n].rgba.size(); i += 4)
            ASSERT_EQ(v.frames[n].rgba[i], 255) << "frame " << n << " byte " << i;
    }
}

} // namespace glr_test
