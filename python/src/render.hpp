// glreader.render's engine (render.cpp).
#pragma once

#include <nanobind/nanobind.h>

namespace glr_python {

// Runs the export job that `options` describe (the keys glreader.render fills in), calling
// progress(stats) every `interval` seconds and at the end; returns the final statistics.
nanobind::dict run_export(const nanobind::dict &options, const nanobind::object &progress, double interval);

} // namespace glr_python
