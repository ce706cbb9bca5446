// glreader.join's engine: glr_join (glreader/av/join.h) with the caller's options.
#pragma once

#include <nanobind/nanobind.h>

namespace glr_python {

// Joins options["chunks"] into options["output"] (the keys encoder_options reads, and
// "chunks"); returns the statistics. Raises as the library's error says.
nanobind::dict join_chunks(const nanobind::dict &options);

} // namespace glr_python
