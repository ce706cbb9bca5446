// Where compare's Python rows import glreader from, compiled apart so that a build with the
// Python package (-DGLREADER_PYTHON=ON) and one without share every other object: the
// build's own package (GLREADER_PYTHON_PATH; "" for PYTHONPATH's), or none.
#include "common.hpp"

namespace bench {

const char *python_package_path()
{
#ifdef GLREADER_PYTHON_ROWS
    return GLREADER_PYTHON_PATH;
#else
    return nullptr;
#endif
}

} // namespace bench
