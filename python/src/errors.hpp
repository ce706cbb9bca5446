// How glreader's failures reach Python: a negative code and its message become the
// exception a Python programmer expects (ValueError for bad options, FileNotFoundError,
// FileExistsError, BrokenPipeError, else glreader.Error), with the library's words.
#pragma once

#include <nanobind/nanobind.h>

#include <string>

namespace glr_python {

// Thrown by the bindings; turned into the Python exception its code names.
struct failure {
    int code;
    std::string message;
};

// The last glreader error of this thread, as a failure.
[[noreturn]] void fail_with_last_error();

// Registers glreader.Error and the translation of failure; call once, at import.
void register_errors(nanobind::module_ &m);

} // namespace glr_python
