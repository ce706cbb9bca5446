#include "counter_video.hpp"

#include "decoder.hpp"
#include "gl_test.hpp"
#include "pattern_scene.hpp"
#include "process.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <stdexcept>

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

std::string write_counter_channel_video()
{
    std::string pattern = scratch_path("count%02d.ppm");
    for (int n = 0; n < 10; n++) {
        char name[512];
        std::snprintf(name, sizeof name, pattern.c_str(), n);
        std::ofstream ppm(name, std::ios::binary);
        ppm << "P6\n8 6\n255\n";
        for (int i = 0; i < 8 * 6; i++)
            ppm << static_cast<char>(n * 20) << static_cast<char>(7) << static_cast<char>(200);
    }
    std::string video = scratch_path("count.mkv");
    int rc = wait_exit(spawn("ffmpeg", {"-v", "error", "-y", "-framerate", "10", "-i", pattern, "-c:v", "ffv1", video},
                             scratch_path("ffmpeg.log")));
    EXPECT_EQ(rc, 0) << slurp(scratch_path("ffmpeg.log"));
    return video;
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

void expect_counted_frames(const std::string &path, uint64_t first, size_t count, int width, int height,
                           int rate_num, int rate_den)
{
    decoded_video v = decode_file(path);
    ASSERT_EQ(v.error, "");
    ASSERT_EQ(v.frames.size(), count);
    for (size_t k = 0; k < count; k++) {
        EXPECT_EQ(check_decoded(v.frames[k], first + k, width, height, false), "") << "frame " << k;
        double at = static_cast<double>(v.frames[k].pts) * v.time_base_num / v.time_base_den;
        EXPECT_NEAR(at, static_cast<double>(k) * rate_den / rate_num, 0.0005 + 1e-9) << "frame " << k;
    }
}

std::vector<yuv_planes> counter_frames_converted(int width, int height, int frames, glr_format format,
                                                 const glr_color &color)
{
    glr::context ctx;
    std::vector<yuv_planes> out;
    glr_scene_params sp{};
    sp.width = width;
    sp.height = height;
    sp.source = counter_shader;
    glr_scene *scene = glr_scene_create(nullptr, &sp);
    if (!scene)
        throw std::runtime_error(glr_last_error());
    glr_ring_params rp = ring_params(width, height, format);
    rp.color = color;
    {
        glr::ring ring(rp);
        auto keep = [&](glr::frame &&f) { out.push_back(planes_of(f.c_frame())); };
        for (int n = 0; n < frames; n++) {
            glr_scene_draw(scene, n, n / 25.0, 1 / 25.0);
            ring.capture(glr_scene_source(scene), n, keep);
        }
        ring.drain(keep);
    }
    glr_scene_destroy(&scene);
    return out;
}

std::string compare_yuv_video(const std::string &path, const std::vector<yuv_planes> &want)
{
    decoded_video v = decode_file(path);
    if (!v.error.empty())
        return v.error;
    if (v.frames.size() != want.size())
        return std::to_string(v.frames.size()) + " frames, not " + std::to_string(want.size());
    for (size_t n = 0; n < want.size(); n++) {
        plane_difference d = max_difference(v.frames[n].yuv, want[n]);
        if (d.luma || d.chroma)
            return "frame " + std::to_string(n) + ": " + d.where;
    }
    return "";
}

std::vector<yuv_planes> counter_frames_reference(int width, int height, int frames, glr_format format,
                                                 const glr_color &color)
{
    std::vector<yuv_planes> out;
    for (int n = 0; n < frames; n++)
        out.push_back(reference_yuv(pattern_image(static_cast<uint64_t>(n), width, height), width, height, format, color));
    return out;
}

std::string compare_raw_yuv(const std::string &path, glr_format format, int width, int height,
                            const std::vector<yuv_planes> &want, int tolerance)
{
    std::ifstream in(path, std::ios::binary);
    std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const glr_format_info *info = glr_format_get_info(format);
    size_t frame_bytes = glr_format_frame_bytes(format, width, height);
    if (bytes.size() != frame_bytes * want.size())
        return path + " has " + std::to_string(bytes.size()) + " bytes, not " + std::to_string(want.size()) +
               " frames of " + std::to_string(frame_bytes);
    for (size_t n = 0; n < want.size(); n++) {
        // The raw frame seen as a frame with tightly packed planes.
        glr_frame f{};
        f.width = width;
        f.height = height;
        f.format = format;
        const uint8_t *at = bytes.data() + n * frame_bytes;
        for (int p = 0; p < info->planes; p++) {
            size_t row_bytes = glr_format_plane_row_bytes(format, p, width);
            int rows = glr_format_plane_rows(format, p, height);
            f.planes[p] = {at, static_cast<ptrdiff_t>(row_bytes), row_bytes, rows};
            at += row_bytes * static_cast<size_t>(rows);
        }
        plane_difference d = max_difference(planes_of(f), want[n]);
        if (d.luma > tolerance || d.chroma > tolerance)
            return "frame " + std::to_string(n) + ": " + d.where;
    }
    return "";
}

} // namespace glr_test
