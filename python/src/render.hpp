// glreader.render's engine (render.cpp).
#pragma once

#include <nanobind/nanobind.h>

#include <string>
#include <utility>
#include <vector>

namespace glr_python {

// Runs the export job that `options` describe ((key, text) pairs of the library's option
// table, or encoder options, as glreader.render fills them in), calling progress(stats)
// every `interval` seconds and at the end; returns the final statistics.
nanobind::dict run_export(const std::vector<std::pair<std::string, std::string>> &options,
                          const nanobind::object &progress, double interval);

} // namespace glr_python
