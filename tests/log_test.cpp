// The log every object reports through: its level filter, and glr_priv_report_error's rules
// for what becomes the thread's last error and what reaches the log.
#include "glreader/glreader.h"
#include "priv.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace {

// A log that keeps each message with its level.
struct recorded_log {
    std::vector<std::pair<glr_log_level, std::string>> lines;
    glr_log *log = nullptr;
    explicit recorded_log(glr_log_level level)
    {
        glr_log_params p{};
        p.callback = [](void *opaque, glr_log_level l, const char *message) {
            static_cast<recorded_log *>(opaque)->lines.emplace_back(l, message);
        };
        p.opaque = this;
        p.level = level;
        log = glr_log_create(&p);
    }
    ~recorded_log() { glr_log_destroy(&log); }
    recorded_log(const recorded_log &) = delete;
    recorded_log &operator=(const recorded_log &) = delete;
};

void write_every_level(glr_log *log)
{
    glr_log_message(log, GLR_LOG_ERROR, "an error");
    glr_log_message(log, GLR_LOG_WARN, "a warning");
    glr_log_message(log, GLR_LOG_INFO, "some news");
    glr_log_message(log, GLR_LOG_VERBOSE, "more of it");
    glr_log_message(log, GLR_LOG_DEBUG, "a detail");
}

TEST(log_test, a_level_passes_on_itself_and_what_is_more_severe)
{
    for (glr_log_level level : {GLR_LOG_ERROR, GLR_LOG_WARN, GLR_LOG_INFO, GLR_LOG_VERBOSE, GLR_LOG_DEBUG}) {
        recorded_log r(level);
        write_every_level(r.log);
        ASSERT_EQ(r.lines.size(), static_cast<size_t>(level)) << "level " << level;
        for (size_t i = 0; i < r.lines.size(); i++)
            EXPECT_EQ(r.lines[i].first, static_cast<glr_log_level>(i + 1));
    }
    // 0 means the default: warnings and errors.
    recorded_log by_default(GLR_LOG_NONE);
    write_every_level(by_default.log);
    ASSERT_EQ(by_default.lines.size(), 2u);
    EXPECT_EQ(by_default.lines[1].second, "a warning");
}

TEST(log_test, report_error_keeps_the_last_error_and_logs_it_when_asked)
{
    recorded_log r(GLR_LOG_DEBUG);
    glr_priv_report_error(r.log, -EINVAL, "first: a bad argument", 1);
    EXPECT_EQ(glr_last_error_code(), -EINVAL);
    EXPECT_STREQ(glr_last_error(), "first: a bad argument");
    ASSERT_EQ(r.lines.size(), 1u);
    EXPECT_EQ(r.lines[0].first, GLR_LOG_ERROR);
    EXPECT_EQ(r.lines[0].second, "first: a bad argument");

    // Recorded, not logged.
    glr_priv_report_error(r.log, -ENOSPC, "second: the disk is full", 0);
    EXPECT_EQ(glr_last_error_code(), -ENOSPC);
    EXPECT_STREQ(glr_last_error(), "second: the disk is full");
    EXPECT_EQ(r.lines.size(), 1u);

    // Control flow is no error: neither kept nor logged.
    for (int code : {-EAGAIN, -EBUSY, -ENODATA}) {
        glr_priv_report_error(r.log, code, "not an error", 1);
        EXPECT_EQ(glr_last_error_code(), -ENOSPC) << code;
        EXPECT_STREQ(glr_last_error(), "second: the disk is full") << code;
    }
    EXPECT_EQ(r.lines.size(), 1u);
}

// A failure thrown inside names the function it failed in, for a bug report; users never
// typed that name: the last error and a log short of debug level give the words alone.
TEST(log_test, the_failing_function_s_name_is_for_the_debug_log_alone)
{
    const char *message = "glr_recorder_create: hardware frames cannot start: glr_hw_frames_create: no device";
    for (glr_log_level level : {GLR_LOG_ERROR, GLR_LOG_WARN, GLR_LOG_INFO, GLR_LOG_VERBOSE}) {
        recorded_log r(level);
        glr_priv_report_error(r.log, -EINVAL, message, 1);
        EXPECT_STREQ(glr_last_error(), "hardware frames cannot start: glr_hw_frames_create: no device") << level;
        glr_log_message(r.log, GLR_LOG_ERROR, "glr_ring_destroy: glr_ring_capture: 2 frames still leased");
        ASSERT_EQ(r.lines.size(), 2u) << level;
        EXPECT_EQ(r.lines[0].second, "hardware frames cannot start: glr_hw_frames_create: no device") << level;
        EXPECT_EQ(r.lines[1].second, "2 frames still leased") << level;
    }
    recorded_log debug(GLR_LOG_DEBUG);
    glr_priv_report_error(debug.log, -EINVAL, message, 1);
    EXPECT_STREQ(glr_last_error(), "hardware frames cannot start: glr_hw_frames_create: no device");
    ASSERT_EQ(debug.lines.size(), 1u);
    EXPECT_EQ(debug.lines[0].second, message);
    // Only a C name of glreader's, then ": ", is one.
    for (const char *kept : {"glr_: x", "glr_Ring: x", "glr_ring:x", "glreader-export: x", "the glr_ring: x"}) {
        glr_priv_report_error(nullptr, -EINVAL, kept, 0);
        EXPECT_STREQ(glr_last_error(), kept);
    }
}

TEST(log_test, the_last_error_belongs_to_its_thread)
{
    glr_priv_report_error(nullptr, -EPIPE, "this thread's error", 0);
    std::string seen_elsewhere = "unset";
    std::thread other([&] {
        glr_priv_report_error(nullptr, -EINVAL, "the other thread's error", 0);
        seen_elsewhere = glr_last_error();
    });
    other.join();
    EXPECT_EQ(seen_elsewhere, "the other thread's error");
    EXPECT_STREQ(glr_last_error(), "this thread's error");
    EXPECT_EQ(glr_last_error_code(), -EPIPE);
}

} // namespace
