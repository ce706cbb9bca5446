// glr_player: a project played over time through a channel feeder of the test's own (the
// interface glreader's FFmpeg feeder, Python or a farm worker fill in), with exact starts:
// the feeder sees every rendered frame's time and skips the rest; a project whose buffers
// carry state is pre-rolled, one without is not; and its errors have words.
#include "support/gl_test.hpp"

#include "glreader/player.h"

#include <gtest/gtest.h>

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

namespace {

bool contains(const std::string &text, const std::string &part) { return text.find(part) != std::string::npos; }

constexpr int fps = 20;

// A feeder that uploads one grey pixel into the Image pass's iChannel0: frame n's grey is
// n, so what a frame shows says which time it was fed. It records what it was called for.
struct test_feeder {
    std::vector<long> updated, skipped; // frame numbers, from the times given
    int fail_at = -1;                   // update fails for this frame

    static long frame_of(double seconds) { return std::lround(seconds * fps); }
    static int update(void *opaque, glr_player *player, double seconds)
    {
        auto *self = static_cast<test_feeder *>(opaque);
        long n = frame_of(seconds);
        self->updated.push_back(n);
        if (n == self->fail_at) {
            glr_set_last_error(-EIO, ("test.media: cannot decode frame " + std::to_string(n)).c_str());
            return -EIO;
        }
        uint8_t pixel[4] = {static_cast<uint8_t>(n), 0, 0, 255};
        glr_image image{1, 1, 4, pixel, 4, seconds};
        return glr_scene_set_channel_image(glr_player_scene(player), GLR_SCENE_IMAGE_PASS, 0, &image);
    }
    static int skip(void *opaque, glr_player *, double seconds)
    {
        static_cast<test_feeder *>(opaque)->skipped.push_back(frame_of(seconds));
        return 0;
    }
    glr_channel_feeder interface() { return {this, update, skip, nullptr}; }
};

struct project_deleter {
    void operator()(glr_project *p) const { glr_project_destroy(&p); }
};
struct player_deleter {
    void operator()(glr_player *p) const { glr_player_destroy(&p); }
};
using project_ptr = std::unique_ptr<glr_project, project_deleter>;
using player_ptr = std::unique_ptr<glr_player, player_deleter>;

class player_test : public glr_test::gl_test {
protected:
    // A project directory with these files (name, text); returns its path.
    std::string project(const std::string &name, const std::vector<std::pair<std::string, std::string>> &files)
    {
        std::string dir = glr_test::scratch_path(name);
        mkdir(dir.c_str(), 0755);
        for (const auto &[file, text] : files)
            std::ofstream(dir + "/" + file) << text;
        return dir;
    }

    player_ptr play(const glr_project *p, int first, glr_channel_feeder *feeder, const char *date = "2026-03-04",
                    int sound_rate = 0)
    {
        glr_player_params params{};
        params.width = 4;
        params.height = 2;
        params.fps_num = fps;
        params.fps_den = 1;
        params.project = p;
        params.feeder = feeder;
        params.first_frame = first;
        params.date = date;
        params.sound_rate = sound_rate;
        return player_ptr(glr_player_create(nullptr, &params));
    }

    // The red byte of the frame the player rendered last, at pixel (0, 0).
    static int red(glr_player *player)
    {
        std::vector<uint8_t> pixels(4 * 2 * 4);
        EXPECT_EQ(glr_scene_read_pixels(glr_player_scene(player), GLR_FORMAT_RGBA8, pixels.data(), 16), 0)
            << glr_last_error();
        return pixels[0];
    }
};

// Image shows iChannel0's grey (what was fed) in red.
const char *shows_channel = "void mainImage(out vec4 c, in vec2 p) { c = vec4(texelFetch(iChannel0, ivec2(0), 0).r, 0, 0, 1); }\n";

TEST_F(player_test, a_stateless_start_feeds_the_frames_it_renders_and_skips_the_rest)
{
    std::string dir = project("stateless", {{"image.glsl", shows_channel}, {"channels", "image.channel0 image:fed.png\n"}, {"fed.png", ""}});
    project_ptr p(glr_project_load(nullptr, dir.c_str()));
    ASSERT_TRUE(p) << glr_last_error();
    test_feeder feeder;
    glr_channel_feeder f = feeder.interface();
    player_ptr player = play(p.get(), 5, &f);
    ASSERT_TRUE(player) << glr_last_error();
    EXPECT_EQ(glr_player_preroll(player.get()), 0);
    EXPECT_EQ(glr_player_frame(player.get()), 4);
    for (int n = 5; n < 8; n++) {
        ASSERT_EQ(glr_player_render_next(player.get()), 0) << glr_last_error();
        EXPECT_EQ(glr_player_frame(player.get()), n);
        EXPECT_EQ(glr_player_inputs(player.get()).frame, n);
        EXPECT_DOUBLE_EQ(glr_player_inputs(player.get()).time, n / double(fps));
        EXPECT_EQ(red(player.get()), n) << "frame " << n << " shows what was fed for it";
    }
    EXPECT_EQ(feeder.skipped, (std::vector<long>{0, 1, 2, 3, 4}));
    EXPECT_EQ(feeder.updated, (std::vector<long>{5, 6, 7}));
    glr_player_stats stats{};
    glr_player_get_stats(player.get(), &stats);
    EXPECT_EQ(stats.frames_rendered, 3u);
    EXPECT_EQ(stats.preroll_frames, 0u);
    EXPECT_EQ(stats.render.count, 3u);
    EXPECT_EQ(stats.channels.count, 3u);
    // iDate of a given date, in UTC: 2026-03-04, month 2 counted from 0, 7/20 s into the day.
    glr_scene_inputs in = glr_player_inputs(player.get());
    EXPECT_EQ(in.date[0], 2026.0f);
    EXPECT_EQ(in.date[1], 2.0f);
    EXPECT_EQ(in.date[2], 4.0f);
    EXPECT_FLOAT_EQ(in.date[3], 7.0f / fps);
}

TEST_F(player_test, a_project_whose_buffer_keeps_state_is_pre_rolled_to_its_start)
{
    // Buffer A adds what was fed to its own previous frame: frame n holds 0 + 1 + ... + n.
    std::string dir = project(
        "stateful", {{"bufferA.glsl", "void mainImage(out vec4 c, in vec2 p) {\n"
                                      "    c = texelFetch(iChannel0, ivec2(p), 0) + vec4(texelFetch(iChannel1, ivec2(0), 0).r * 255.0);\n"
                                      "}\n"},
                     {"image.glsl", "void mainImage(out vec4 c, in vec2 p) { c = vec4(texelFetch(iChannel0, ivec2(p), 0).r / 255.0, 0, 0, 1); }\n"},
                     {"channels", "bufferA.channel0 buffer:A\nbufferA.channel1 image:fed.png\nimage.channel0 buffer:A\n"},
                     {"fed.png", ""}});
    project_ptr p(glr_project_load(nullptr, dir.c_str()));
    ASSERT_TRUE(p) << glr_last_error();
    // The feeder feeds the Image pass's iChannel0 in this test's feeder: here Buffer A's
    // channel 1 takes the grey instead.
    struct buffer_feeder : test_feeder {
        static int update(void *opaque, glr_player *player, double seconds)
        {
            auto *self = static_cast<buffer_feeder *>(opaque);
            long n = frame_of(seconds);
            self->updated.push_back(n);
            uint8_t pixel[4] = {static_cast<uint8_t>(n), 0, 0, 255};
            glr_image image{1, 1, 4, pixel, 4, seconds};
            return glr_scene_set_channel_image(glr_player_scene(player), 0, 1, &image);
        }
    } feeder;
    glr_channel_feeder f{&feeder, buffer_feeder::update, test_feeder::skip, nullptr};
    const int first = 6;
    player_ptr player = play(p.get(), first, &f);
    ASSERT_TRUE(player) << glr_last_error();
    EXPECT_EQ(glr_player_preroll(player.get()), first);
    ASSERT_EQ(glr_player_render_next(player.get()), 0) << glr_last_error();
    EXPECT_EQ(red(player.get()), first * (first + 1) / 2) << "frame 6 holds the sum of every frame before it";
    ASSERT_EQ(glr_player_render_next(player.get()), 0) << glr_last_error();
    EXPECT_EQ(red(player.get()), (first + 1) * (first + 2) / 2);
    EXPECT_TRUE(feeder.skipped.empty());
    EXPECT_EQ(feeder.updated, (std::vector<long>{0, 1, 2, 3, 4, 5, 6, 7}));
    glr_player_stats stats{};
    glr_player_get_stats(player.get(), &stats);
    EXPECT_EQ(stats.preroll_frames, static_cast<uint64_t>(first));
    EXPECT_EQ(stats.frames_rendered, static_cast<uint64_t>(first + 2));
}

// The Sound pass is the player's: samples asked for in any pieces (the frames' own, a step
// back behind what is kept, a jump ahead) are those one call renders, silence before
// sample 0; frame n's sound starts at n * rate / fps rounded down; the pass's rate is
// iSampleRate; a rate out of bounds is refused, and a negative one plays no Sound pass.
TEST_F(player_test, the_sound_pass_gives_the_same_samples_in_any_pieces)
{
    std::string dir =
        project("sound", {{"image.glsl", "void mainImage(out vec4 c, in vec2 p) { c = vec4(iSampleRate / 255000.0, 0, 0, 1); }\n"},
                          {"sound.glsl", "vec2 mainSound(int samp, float time) {\n"
                                         "    return vec2(float(samp % 441) / 441.0 - 0.5, 0.5 * sin(6.2831853 * 440.0 * time));\n"
                                         "}\n"}});
    project_ptr p(glr_project_load(nullptr, dir.c_str()));
    ASSERT_TRUE(p) << glr_last_error();
    const int rate = 22050, whole_count = 300000;
    player_ptr one = play(p.get(), 0, nullptr, "2026-03-04", rate), pieces = play(p.get(), 0, nullptr, "2026-03-04", rate);
    ASSERT_TRUE(one && pieces) << glr_last_error();
    EXPECT_EQ(glr_player_sound_rate(one.get()), rate);
    EXPECT_EQ(glr_player_sound_sample(one.get(), 3), 3307) << "3 * 22050 / 20 = 3307.5, rounded down";
    EXPECT_EQ(glr_player_sound_sample(one.get(), 40), 2 * rate);
    ASSERT_EQ(glr_player_render_next(one.get()), 0) << glr_last_error();
    EXPECT_EQ(red(one.get()), 22) << "iSampleRate is the Sound pass's rate";

    std::vector<int16_t> whole(2 * whole_count);
    ASSERT_EQ(glr_player_render_sound(one.get(), 0, whole_count, whole.data()), 0) << glr_last_error();
    int worst = 0;
    for (int i = 0; i < whole_count; i++)
        worst = std::max(worst, std::abs(whole[2 * i] - static_cast<int>(std::lround(((i % 441) / 441.0 - 0.5) * 32767.5 - 0.5))));
    EXPECT_LE(worst, 2) << "each sample is the pass's at its own number";

    auto expect_piece = [&](long long first, int count) {
        std::vector<int16_t> got(2 * static_cast<size_t>(count), 1);
        ASSERT_EQ(glr_player_render_sound(pieces.get(), first, count, got.data()), 0) << glr_last_error();
        for (int i = 0; i < count; i++) {
            long long at = first + i;
            int16_t left = at < 0 ? 0 : whole[2 * at], right = at < 0 ? 0 : whole[2 * at + 1];
            if (got[2 * i] != left || got[2 * i + 1] != right) {
                ADD_FAILURE() << "sample " << at << " of the piece from " << first << " differs";
                return;
            }
        }
    };
    expect_piece(-100, 1100); // silence, then the start
    for (int frame = 1; frame < 200; frame++) { // frame by frame, as the exporter asks
        long long from = glr_player_sound_sample(pieces.get(), frame);
        expect_piece(from, static_cast<int>(glr_player_sound_sample(pieces.get(), frame + 1) - from));
        expect_piece(from - 2048, 2048); // a sound channel's window, ending where the frame starts
    }
    expect_piece(10, 50);         // back behind what is kept: rendered anew
    expect_piece(250000, 40000);  // a jump ahead
    expect_piece(249000, 2000);   // and back across where it began
    glr_player_stats stats{};
    glr_player_get_stats(pieces.get(), &stats);
    EXPECT_GT(stats.sound_samples, 0u);

    player_ptr unplayed = play(p.get(), 0, nullptr, "2026-03-04", -1);
    ASSERT_TRUE(unplayed) << glr_last_error();
    EXPECT_EQ(glr_player_sound_rate(unplayed.get()), 0);
    EXPECT_EQ(glr_player_sound_sample(unplayed.get(), 3), -1);
    int16_t two[4];
    EXPECT_EQ(glr_player_render_sound(unplayed.get(), 0, 2, two), -EINVAL);
    EXPECT_TRUE(contains(glr_last_error(), "plays no Sound pass")) << glr_last_error();
    ASSERT_EQ(glr_player_render_next(unplayed.get()), 0) << glr_last_error();
    EXPECT_EQ(red(unplayed.get()), 44) << "iSampleRate is Shadertoy's without a Sound pass";
    EXPECT_FALSE(play(p.get(), 0, nullptr, "2026-03-04", 7000));
    EXPECT_TRUE(contains(glr_last_error(), "sample rate 7000 Hz is outside 8000..192000")) << glr_last_error();
}

TEST_F(player_test, errors_name_their_cause)
{
    std::string dir = project("media", {{"image.glsl", shows_channel}, {"channels", "image.channel0 video:clip.mkv\n"}, {"clip.mkv", ""}});
    project_ptr p(glr_project_load(nullptr, dir.c_str()));
    ASSERT_TRUE(p) << glr_last_error();
    EXPECT_FALSE(play(p.get(), 0, nullptr));
    EXPECT_EQ(glr_last_error_code(), -EINVAL);
    EXPECT_TRUE(contains(glr_last_error(), "the Image pass's iChannel0 shows a video (" + dir + "/clip.mkv), and no "
                                           "channel feeder was given to decode it"))
        << glr_last_error();

    test_feeder feeder;
    glr_channel_feeder f = feeder.interface();
    EXPECT_FALSE(play(p.get(), 0, &f, "2026-13-01"));
    EXPECT_TRUE(contains(glr_last_error(), "2026-13-01")) << glr_last_error();

    // A feeder's failure is the frame's, with its words, and stays.
    feeder.fail_at = 1;
    player_ptr player = play(p.get(), 0, &f);
    ASSERT_TRUE(player) << glr_last_error();
    EXPECT_EQ(glr_player_render_next(player.get()), 0) << glr_last_error();
    EXPECT_EQ(glr_player_render_next(player.get()), -EIO);
    EXPECT_TRUE(contains(glr_last_error(), "frame 1: test.media: cannot decode frame 1")) << glr_last_error();
    EXPECT_EQ(glr_player_render_next(player.get()), -EIO);
    EXPECT_EQ(feeder.updated, (std::vector<long>{0, 1})) << "a failed player renders no further";

    // Without a date, iDate counts from now, in local time.
    project_ptr plain(glr_project_load(nullptr, nullptr));
    player_ptr now = play(plain.get(), 0, nullptr, nullptr);
    ASSERT_TRUE(now) << glr_last_error();
    ASSERT_EQ(glr_player_render_next(now.get()), 0) << glr_last_error();
    std::time_t t = std::time(nullptr);
    std::tm local{};
    localtime_r(&t, &local);
    EXPECT_EQ(glr_player_inputs(now.get()).date[0], static_cast<float>(local.tm_year + 1900));
}

} // namespace
