// The extension module glreader._glreader: what the pure-Python package (python/glreader)
// builds on.
#include "errors.hpp"
#include "frame_range.hpp"
#include "frames.hpp"
#include "join.hpp"
#include "options.hpp"
#include "recorder.hpp"
#include "render.hpp"
#include "turbopipe.hpp"

#include <nanobind/nanobind.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

namespace nb = nanobind;

NB_MODULE(_glreader, m)
{
    m.doc() = "glreader's C library, for the glreader package";
    m.attr("__version__") = GLREADER_VERSION_STRING;
    glr_python::register_errors(m);
    glr_python::register_turbopipe(m);
    glr_python::register_recorder(m);
    glr_python::register_frames(m);
    glr_python::register_frame_range(m);
    m.def("run_export", &glr_python::run_export, nb::arg("options"), nb::arg("progress").none(),
          nb::arg("interval") = 0.1, "Runs an export job (glreader.render is its interface).");
    m.def("export_options", &glr_python::export_options,
          "The export's options as the library's table names them (glreader.export_options is its interface).");
    m.def("check_export_option", &glr_python::check_export_option, nb::arg("key"), nb::arg("value"),
          "Raises ValueError, in the table's words, unless the export's options take key=value.");
    m.def("check_output", &glr_python::check_output, nb::arg("options"),
          "What an output with these encoder options would hold (glreader.farm checks its output with it).");
    m.def("join", &glr_python::join_chunks, nb::arg("options"), "Joins chunks (glreader.join is its interface).");
}
