// glreader.Recorder's engine: frames of the caller's own GL context (a moderngl framebuffer
// or texture) through a readback ring, converted on the GPU to the encoder's YUV, into an
// in-process encoder whose thread encodes and writes.
#pragma once

#include <nanobind/nanobind.h>

namespace glr_python {

// Registers _glreader.RecorderCore.
void register_recorder(nanobind::module_ &m);

} // namespace glr_python
