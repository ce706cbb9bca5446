// Times, rates and frame ranges as every front-end reads and counts them
// (glreader/frame_range.h): the readers, the rule, and the count against ffmpeg's own
// testsrc for the same duration and rate.
#include "glreader/frame_range.h"

#include "support/gl_test.hpp"
#include "support/process.hpp"

#include <gtest/gtest.h>

#include <climits>
#include <cstdio>
#include <sstream>
#include <string>

namespace {

TEST(frame_range, times_read_as_ffmpeg_writes_them_exactly_in_microseconds)
{
    struct {
        const char *text;
        int64_t us;
    } good[] = {{"2.5", 2500000},     {"0.1", 100000},        {".5", 500000},        {"7", 7000000},
                {"500ms", 500000},    {"250us", 250},         {"3s", 3000000},       {"1.5s", 1500000},
                {"1/3", 333333},      {"1:30", 90000000},     {"00:01:30.5", 90500000}, {"1:00:00", 3600000000},
                {"0:01.5", 1500000},  {"0", 0},               {"1.0000004", 1000000}, {"0.0000005", 1}};
    for (const auto &g : good) {
        int64_t us = -1;
        ASSERT_EQ(glr_parse_time(g.text, &us), 0) << g.text << ": " << glr_last_error();
        EXPECT_EQ(us, g.us) << g.text;
    }
    for (const char *bad : {"", "-1", "-0:30", "1e3", "inf", "nan", " 1", "1 ", "1.", "1..2", "s", "ms", "1:60",
                            "1:2:3:4", "1:-5", "0x10", "1/0", "1/", "1h", "2.5m", "99999999999999999999"}) {
        int64_t us = 42;
        EXPECT_EQ(glr_parse_time(bad, &us), -EINVAL) << "'" << bad << "'";
        EXPECT_NE(std::string(glr_last_error()).find("is not a time"), std::string::npos)
            << "'" << bad << "': " << glr_last_error();
    }
    int64_t us = 0;
    EXPECT_EQ(glr_parse_time("9999999999999", &us), -EINVAL) << "past INT64_MAX microseconds";
    EXPECT_NE(std::string(glr_last_error()).find("too long a time"), std::string::npos) << glr_last_error();
    EXPECT_EQ(glr_parse_time(nullptr, nullptr), -EINVAL);
}

TEST(frame_range, frame_rates_are_exact_fractions)
{
    struct {
        const char *text;
        int num, den;
    } good[] = {{"30", 30, 1},        {"29.97", 30000, 1001}, {"23.976", 24000, 1001}, {"59.94", 60000, 1001},
                {"30000/1001", 30000, 1001}, {"12.5", 25, 2},  {"0.5", 1, 2},          {"60/2", 30, 1},
                {"ntsc", 30000, 1001}, {"pal", 25, 1},         {"film", 24, 1},        {"ntsc-film", 24000, 1001}};
    for (const auto &g : good) {
        int num = 0, den = 0;
        ASSERT_EQ(glr_parse_rate(g.text, &num, &den), 0) << g.text << ": " << glr_last_error();
        EXPECT_EQ(num, g.num) << g.text;
        EXPECT_EQ(den, g.den) << g.text;
    }
    // (The last: a decimal refused for its many decimals, once scaled by ten for each of
    // them past what any integer holds; found by the fuzzer.)
    for (const char *bad : {"", "0", "-30", "30/0", "0/1", "1e3", "inf", "29.97abc", "1.", "1.1234567", "abc",
                            "30000000000/1", "29.4999999999999999999999999999999999999999999999999"}) {
        int num = 0, den = 0;
        EXPECT_EQ(glr_parse_rate(bad, &num, &den), -EINVAL) << "'" << bad << "'";
        EXPECT_NE(std::string(glr_last_error()).find("frame rate"), std::string::npos) << glr_last_error();
    }
}

TEST(frame_range, a_time_falls_on_the_first_frame_that_starts_at_or_after_it)
{
    // At 25 fps frames start every 40 ms; at 30000/1001 at n x 33366.67 us, stamped to the
    // nearest microsecond (frame 1 at 33367, frame 2 at 66733).
    struct {
        int64_t us;
        int num, den;
        int64_t frames;
    } cases[] = {{0, 25, 1, 0},          {1, 25, 1, 1},           {40000, 25, 1, 1},      {40001, 25, 1, 2},
                 {20000, 25, 1, 1},      {100000, 25, 1, 3},      {33367, 30000, 1001, 1}, {33368, 30000, 1001, 2},
                 {66733, 30000, 1001, 2}, {66734, 30000, 1001, 3}, {1001000, 30000, 1001, 30},
                 {1001001, 30000, 1001, 31}, {-5, 25, 1, 0}};
    for (const auto &c : cases)
        EXPECT_EQ(glr_frames_before(c.us, c.num, c.den), c.frames) << c.us << " us at " << c.num << "/" << c.den;
    EXPECT_EQ(glr_frames_before(INT64_MAX, 1000, 1), INT64_MAX / 1000 + 1);
}

// A frame's first sample is frame x rate x den / num rounded down, exact however far in.
TEST(frame_range, a_frame_s_first_sample_rounds_down_and_splits_add_up)
{
    EXPECT_EQ(glr_frame_first_sample(0, 44100, 30000, 1001), 0);
    EXPECT_EQ(glr_frame_first_sample(1, 44100, 30000, 1001), 1471); // 1471.47
    EXPECT_EQ(glr_frame_first_sample(2, 44100, 30000, 1001), 2942); // 2942.94
    EXPECT_EQ(glr_frame_first_sample(30, 48000, 30, 1), 48000);
    EXPECT_EQ(glr_frame_first_sample(3, 8000, 24, 1), 1000);
    // Past 2^63 / (rate x den) as a 64-bit product: INT_MAX frames at 192 kHz, 1001/30000.
    EXPECT_EQ(glr_frame_first_sample(INT32_MAX, 192000, 30000, 1001), 13757639236140LL);
    EXPECT_EQ(glr_frame_first_sample(INT64_MAX, 192000, 1, 1), INT64_MAX) << "saturates";
    for (int bad : {0, -1})
        EXPECT_EQ(glr_frame_first_sample(1, bad, 30, 1), -1);
    EXPECT_EQ(glr_frame_first_sample(1, 44100, 0, 1), -1);
    EXPECT_EQ(glr_frame_first_sample(-1, 44100, 30, 1), -1);
}

// first, count for a request, or -1, -1 when refused.
std::pair<int, int> range_of(glr_range_request r)
{
    int first = -1, count = -1;
    if (glr_frame_range(&r, &first, &count) < 0)
        return {-1, -1};
    return {first, count};
}

TEST(frame_range, starts_and_lengths_give_one_range_and_ranges_that_meet_do)
{
    glr_range_request r{};
    r.fps_num = 25;
    r.fps_den = 1;
    r.duration_us = 100000;
    EXPECT_EQ(range_of(r), std::make_pair(0, 3)) << "0.1 s at 25: frames at 0, 40 and 80 ms";
    r.start_us = 20000; // half a frame: the next one
    EXPECT_EQ(range_of(r), std::make_pair(1, 3)) << "the length counts from the first frame";
    r.duration_us = 0;
    r.end_us = 200000;
    EXPECT_EQ(range_of(r), std::make_pair(1, 4)) << "frames 1 to 4 start before 0.2 s";
    // Two ranges split at a time between frames meet: no frame twice, none lost.
    glr_range_request a{}, b{};
    a.fps_num = b.fps_num = 30000;
    a.fps_den = b.fps_den = 1001;
    a.end_us = b.start_us = 1234567;
    b.end_us = 3000000;
    auto [a_first, a_count] = range_of(a);
    auto [b_first, b_count] = range_of(b);
    EXPECT_EQ(a_first, 0);
    EXPECT_EQ(a_first + a_count, b_first);
    EXPECT_EQ(b_first + b_count, glr_frames_before(3000000, 30000, 1001));
    r = {};
    r.fps_num = 30;
    r.fps_den = 1;
    r.start_frame = 7;
    r.frames = 5;
    EXPECT_EQ(range_of(r), std::make_pair(7, 5));
}

TEST(frame_range, contradictions_and_impossible_ranges_are_refused_naming_the_options)
{
    auto refusal = [](glr_range_request r) {
        int first = 0, count = 0;
        EXPECT_EQ(glr_frame_range(&r, &first, &count), -EINVAL);
        return std::string(glr_last_error());
    };
    glr_range_request r{};
    r.fps_num = 30;
    r.fps_den = 1;
    int first = -1, count = 0;
    ASSERT_EQ(glr_frame_range(&r, &first, &count), 0) << glr_last_error();
    EXPECT_EQ(first, 0);
    EXPECT_EQ(count, 150) << "without a length, 5 s (GLR_FRAME_RANGE_DEFAULT_DURATION_US), every front-end's default";
    r.start_frame = 10;
    ASSERT_EQ(glr_frame_range(&r, &first, &count), 0) << glr_last_error();
    EXPECT_EQ(first, 10);
    EXPECT_EQ(count, 150) << "5 s from the start";
    r.start_frame = 0;
    r.duration_us = 1000000;
    r.frames = 3;
    EXPECT_NE(refusal(r).find("-t, -n and -to (duration, frames and end) each say how long"), std::string::npos);
    r.frames = 0;
    r.start_us = 1000000;
    r.start_frame = 3;
    EXPECT_NE(refusal(r).find("-ss and --start-frame (start and first_frame) both say where to start"),
              std::string::npos);
    r.start_frame = 0;
    r.duration_us = 0;
    r.end_us = 1000000;
    EXPECT_NE(refusal(r).find("-to (end) 1 s is not after the start, frame 30"), std::string::npos) << glr_last_error();
    r.end_us = 0;
    r.start_us = 0;
    r.start_frame = INT_MAX - 1;
    r.frames = 2;
    EXPECT_NE(refusal(r).find("passes the last frame number"), std::string::npos) << glr_last_error();
    r.fps_num = 0;
    EXPECT_NE(refusal(r).find("frame rate 0/1 is not above 0"), std::string::npos) << glr_last_error();
    r = {};
    r.fps_num = r.fps_den = 1;
    r.frames = -1;
    EXPECT_NE(refusal(r).find("negative"), std::string::npos) << glr_last_error();
    EXPECT_EQ(glr_frame_range(nullptr, nullptr, nullptr), -EINVAL);
}

// The frames ffmpeg's testsrc gives for duration d at rate r.
int testsrc_frames(const std::string &d, const std::string &r)
{
    std::string log = glr_test::scratch_path("testsrc.txt"), escaped;
    for (char c : d) // a colon, escaped for lavfi's graph and then for the filter's arguments
        escaped += c == ':' ? std::string("\\\\\\:") : std::string(1, c);
    int rc = glr_test::wait_exit(glr_test::spawn(
        "ffmpeg", {"-v", "error", "-f", "lavfi", "-i", "testsrc=s=16x16:d=" + escaped + ":r=" + r, "-f", "framecrc", "-"},
        log));
    EXPECT_EQ(rc, 0) << glr_test::slurp(log);
    std::istringstream lines(glr_test::slurp(log));
    int frames = 0;
    for (std::string line; std::getline(lines, line);)
        frames += !line.empty() && line[0] != '#';
    std::remove(log.c_str());
    return frames;
}

TEST(frame_range, a_length_holds_as_many_frames_as_ffmpeg_s_testsrc_of_that_duration)
{
    struct {
        const char *duration, *rate;
    } table[] = {{"0.1", "25"},         {"0.5", "30000/1001"}, {"1.001", "30000/1001"}, {"0.02", "30"},
                 {"2.5", "24"},         {"0.04", "25"},        {"0.041", "25"},         {"1", "ntsc"},
                 {"0.033367", "30000/1001"}, {"0.033366", "30000/1001"}, {"500ms", "60"}, {"0:00.25", "12.5"}};
    for (const auto &t : table) {
        glr_range_request r{};
        ASSERT_EQ(glr_parse_time(t.duration, &r.duration_us), 0) << t.duration;
        ASSERT_EQ(glr_parse_rate(t.rate, &r.fps_num, &r.fps_den), 0) << t.rate;
        auto [first, count] = range_of(r);
        EXPECT_EQ(first, 0);
        EXPECT_EQ(count, testsrc_frames(t.duration, t.rate)) << "d=" << t.duration << " r=" << t.rate;
    }
}

} // namespace
