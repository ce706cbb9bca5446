#include "frame_range.hpp"

#include "errors.hpp"

#include "glreader/frame_range.h"

#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>

#include <string>
#include <utility>

namespace nb = nanobind;

namespace glr_python {

void register_frame_range(nb::module_ &m)
{
    m.def(
        "parse_time",
        [](const std::string &text) {
            int64_t us = 0;
            if (glr_parse_time(text.c_str(), &us) < 0)
                fail_with_last_error();
            return us;
        },
        nb::arg("text"), "A time as ffmpeg's -ss and -t take one (2.5, 500ms, 1:30.5), in microseconds.");
    m.def(
        "parse_rate",
        [](const std::string &text) {
            int num = 0, den = 0;
            if (glr_parse_rate(text.c_str(), &num, &den) < 0)
                fail_with_last_error();
            return std::make_pair(num, den);
        },
        nb::arg("text"), "A frame rate (30, 29.97, 30000/1001, ntsc) as (num, den).");
    m.def(
        "frame_range",
        [](int fps_num, int fps_den, int64_t start_us, int start_frame, int64_t duration_us, int64_t end_us,
           int frames) {
            glr_range_request r{fps_num, fps_den, start_us, start_frame, duration_us, end_us, frames};
            int first = 0, count = 0;
            if (glr_frame_range(&r, &first, &count) < 0)
                fail_with_last_error();
            return std::make_pair(first, count);
        },
        nb::arg("fps_num"), nb::arg("fps_den"), nb::arg("start_us") = 0, nb::arg("start_frame") = 0,
        nb::arg("duration_us") = 0, nb::arg("end_us") = 0, nb::arg("frames") = 0,
        "The first frame and the count of a range (glr_frame_range: 0 is not given).");
}

} // namespace glr_python
