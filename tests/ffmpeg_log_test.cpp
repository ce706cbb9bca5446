// glr_ffmpeg_log_route: FFmpeg's own log through a glreader log, whole lines at their
// level, with their component, and FFmpeg's level set to the log's; an encoder's words on
// opening said once, though glr_encoder_check opened it before.
#include "support/gl_test.hpp"

#include "glreader/av/encoder.h"
#include "glreader/av/ffmpeg_log.h"

#include <gtest/gtest.h>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavutil/log.h>
}

#include <algorithm>
#include <cstdio>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace {

// A glreader log at info level that keeps each line it gets.
class recording_log {
public:
    recording_log()
    {
        glr_log_params p{};
        p.callback = [](void *opaque, glr_log_level level, const char *message) {
            auto *self = static_cast<recording_log *>(opaque);
            std::lock_guard<std::mutex> lock(self->mutex_);
            self->lines_.emplace_back(level, message);
        };
        p.opaque = this;
        p.level = GLR_LOG_INFO;
        log_ = glr_log_create(&p);
    }
    ~recording_log() { glr_log_destroy(&log_); }
    recording_log(const recording_log &) = delete;
    recording_log &operator=(const recording_log &) = delete;
    glr_log *get() { return log_; }
    std::vector<std::pair<glr_log_level, std::string>> lines()
    {
        std::lock_guard<std::mutex> lock(mutex_);
        return lines_;
    }
    // How many of the lines hold `words`.
    long count(const std::string &words)
    {
        std::vector<std::pair<glr_log_level, std::string>> all = lines();
        return std::count_if(all.begin(), all.end(),
                             [&](const auto &line) { return line.second.find(words) != std::string::npos; });
    }

private:
    std::mutex mutex_;
    std::vector<std::pair<glr_log_level, std::string>> lines_;
    glr_log *log_ = nullptr;
};

TEST(ffmpeg_log, lines_reach_the_glreader_log_whole_at_their_level)
{
    recording_log log;
    ASSERT_NE(log.get(), nullptr);
    glr_ffmpeg_log_route(log.get());
    EXPECT_EQ(av_log_get_level(), AV_LOG_INFO) << "FFmpeg formats nothing the log would drop";

    AVCodecContext *component = avcodec_alloc_context3(avcodec_find_encoder_by_name("rawvideo"));
    ASSERT_NE(component, nullptr);
    av_log(nullptr, AV_LOG_WARNING, "a line in ");
    av_log(nullptr, AV_LOG_WARNING, "two pieces\n");
    av_log(component, AV_LOG_ERROR, "something broke\n");
    av_log(component, AV_LOG_INFO, "some news\n");
    av_log(nullptr, AV_LOG_VERBOSE, "too detailed for info\n");
    glr_ffmpeg_log_route(nullptr);
    av_log(nullptr, AV_LOG_DEBUG, "after the routing ended\n"); // FFmpeg's printer again, which drops it
    avcodec_free_context(&component);
    EXPECT_EQ(av_log_get_level(), AV_LOG_INFO);

    std::vector<std::pair<glr_log_level, std::string>> lines = log.lines();
    ASSERT_EQ(lines.size(), 3u);
    EXPECT_EQ(lines[0], std::make_pair(GLR_LOG_WARN, std::string("[ffmpeg] a line in two pieces")));
    EXPECT_EQ(lines[1].first, GLR_LOG_ERROR);
    EXPECT_EQ(lines[1].second.rfind("[rawvideo @ 0x", 0), 0u) << lines[1].second;
    EXPECT_NE(lines[1].second.find("] something broke"), std::string::npos) << lines[1].second;
    EXPECT_EQ(lines[2].first, GLR_LOG_INFO);
    EXPECT_NE(lines[2].second.find("] some news"), std::string::npos) << lines[2].second;
}

TEST(ffmpeg_log, an_encoder_s_opening_words_are_said_once_though_a_check_opened_it_first)
{
    recording_log log;
    struct routed { // for the whole test, however it ends
        explicit routed(glr_log *to) { glr_ffmpeg_log_route(to); }
        ~routed() { glr_ffmpeg_log_route(nullptr); }
    } route(log.get());
    std::string out = glr_test::scratch_path("said_once.mkv");
    glr_encoder_params p{};
    p.width = 64;
    p.height = 36;
    p.codec = "libx264";
    p.output = out.c_str();
    ASSERT_EQ(glr_encoder_check(log.get(), &p, nullptr), 0) << glr_last_error();
    glr_encoder *encoder = glr_encoder_create(log.get(), &p);
    ASSERT_NE(encoder, nullptr) << glr_last_error();
    ASSERT_EQ(glr_encoder_finish(encoder), 0) << glr_last_error();
    glr_encoder_destroy(&encoder);
    std::remove(out.c_str());
    EXPECT_EQ(log.count("using cpu capabilities"), 1) << "libx264's line at info, from the open that encodes";

    // Refused: the trial's words say why, once.
    p.pix_fmt = "yuv444p";
    p.codec_options = "profile=baseline";
    EXPECT_LT(glr_encoder_check(log.get(), &p, nullptr), 0);
    EXPECT_EQ(log.count("Error setting profile baseline"), 1);
}

TEST(ffmpeg_log, the_level_follows_the_log)
{
    for (auto [level, av_level] : std::vector<std::pair<glr_log_level, int>>{{GLR_LOG_ERROR, AV_LOG_ERROR},
                                                                             {GLR_LOG_WARN, AV_LOG_WARNING},
                                                                             {GLR_LOG_VERBOSE, AV_LOG_VERBOSE},
                                                                             {GLR_LOG_DEBUG, AV_LOG_DEBUG}}) {
        glr_log_params p{};
        p.level = level;
        glr_log *log = glr_log_create(&p);
        glr_ffmpeg_log_route(log);
        EXPECT_EQ(av_log_get_level(), av_level) << "level " << level;
        glr_ffmpeg_log_route(nullptr);
        glr_log_destroy(&log);
    }
}

} // namespace
