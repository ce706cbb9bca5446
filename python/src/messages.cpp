#include "messages.hpp"

#include "glreader/av/ffmpeg_log.h"

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include <deque>
#include <mutex>
#include <string>
#include <utility>

namespace nb = nanobind;

namespace glr_python {

namespace {

struct queue {
    std::mutex mutex;
    std::deque<std::pair<glr_log_level, std::string>> messages;
};

queue &the_queue()
{
    static queue *q = new queue; // never freed: see messages.hpp
    return *q;
}

void keep(void *, glr_log_level level, const char *message)
{
    if (level == GLR_LOG_ERROR && message[0] != '[') // glreader's own: raised as the exception
        return;
    queue &q = the_queue();
    std::lock_guard<std::mutex> lock(q.mutex);
    if (q.messages.size() < 10000) // a runaway source of warnings is not kept without bound
        q.messages.emplace_back(level, message);
}

} // namespace

glr_log *messages_log()
{
    static glr_log *log = [] {
        glr_log_params params{};
        params.callback = keep;
        params.level = GLR_LOG_INFO;
        return glr_log_create(&params);
    }();
    return log;
}

void flush_messages()
{
    std::deque<std::pair<glr_log_level, std::string>> messages;
    {
        queue &q = the_queue();
        std::lock_guard<std::mutex> lock(q.mutex);
        messages.swap(q.messages);
    }
    if (messages.empty())
        return;
    nb::object logger = nb::module_::import_("logging").attr("getLogger")("glreader");
    for (const auto &[level, text] : messages) { // logging's ERROR 40, WARNING 30, INFO 20, DEBUG 10
        int python_level = level == GLR_LOG_ERROR ? 40 : level == GLR_LOG_WARN ? 30 : level == GLR_LOG_INFO ? 20 : 10;
        logger.attr("log")(python_level, text);
    }
}

namespace {
int ffmpeg_routes = 0; // guarded by the GIL
} // namespace

ffmpeg_messages::ffmpeg_messages()
{
    if (ffmpeg_routes++ == 0)
        glr_ffmpeg_log_route(messages_log());
}

ffmpeg_messages::~ffmpeg_messages()
{
    if (--ffmpeg_routes == 0)
        glr_ffmpeg_log_route(nullptr);
}

} // namespace glr_python
