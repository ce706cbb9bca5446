// Times, rates and frame ranges read and counted by the library's one rule
// (glreader/frame_range.h), so that glreader.render and the farm count as glreader-export
// and the glreader filter do.
#pragma once

#include <nanobind/nanobind.h>

namespace glr_python {

// parse_time(text) -> microseconds, parse_rate(text) -> (num, den),
// frame_range(fps_num, fps_den, start_us, start_frame, duration_us, end_us, frames) ->
// (first, count); each raises ValueError with the library's words.
void register_frame_range(nanobind::module_ &m);

} // namespace glr_python
