// glreader.Ring for Python: frames read back from the caller's GL context and lent to
// Python without a copy, through the buffer protocol (numpy.asarray(frame) is a view of
// the mapped slot), each until release(), which refuses while a view is still alive.
#pragma once

#include <nanobind/nanobind.h>

namespace glr_python {

// Registers _glreader.RingCore, Frame and Plane.
void register_frames(nanobind::module_ &m);

} // namespace glr_python
