// glr_ffmpeg_log_route: FFmpeg's own log through a glreader log, whole lines at their
// level, with their component, and FFmpeg's level set to the log's.
#include "glreader/ffmpeg_log.h"

#include <gtest/gtest.h>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavutil/log.h>
}

#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace {

struct recorded {
    std::mutex mutex;
    std::vector<std::pair<glr_log_level, std::string>> lines;
};

TEST(ffmpeg_log, lines_reach_the_glreader_log_whole_at_their_level)
{
    recorded r;
    glr_log_params p{};
    p.callback = [](void *opaque, glr_log_level level, const char *message) {
        auto *rec = static_cast<recorded *>(opaque);
        std::lock_guard<std::mutex> lock(rec->mutex);
        rec->lines.emplace_back(level, message);
    };
    p.opaque = &r;
    p.level = GLR_LOG_INFO;
    glr_log *log = glr_log_create(&p);
    ASSERT_NE(log, nullptr);
    glr_ffmpeg_log_route(log);
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
    glr_log_destroy(&log);

    ASSERT_EQ(r.lines.size(), 3u);
    EXPECT_EQ(r.lines[0], std::make_pair(GLR_LOG_WARN, std::string("[ffmpeg] a line in two pieces")));
    EXPECT_EQ(r.lines[1].first, GLR_LOG_ERROR);
    EXPECT_EQ(r.lines[1].second.rfind("[rawvideo @ 0x", 0), 0u) << r.lines[1].second;
    EXPECT_NE(r.lines[1].second.find("] something broke"), std::string::npos) << r.lines[1].second;
    EXPECT_EQ(r.lines[2].first, GLR_LOG_INFO);
    EXPECT_NE(r.lines[2].second.find("] some news"), std::string::npos) << r.lines[2].second;
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
