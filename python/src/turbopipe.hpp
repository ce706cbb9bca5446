// glreader.turbopipe's engine: TurboPipe's model (pipe, sync, done, close) over glr_pipe,
// which writes each fd's blocks in order on a thread of its own (vmsplice into pipes).
#pragma once

#include <nanobind/nanobind.h>

namespace glr_python {

// Registers _glreader.tp_pipe, tp_sync, tp_sync_all, tp_done, tp_close, tp_close_all.
void register_turbopipe(nanobind::module_ &m);

} // namespace glr_python
