#include "errors.hpp"

#include "glreader/common.h"

#include <cerrno>

namespace nb = nanobind;

namespace glr_python {

namespace {

PyObject *glreader_error = nullptr; // glreader.Error, made at import

// The Python exception for a code: OSError's subclasses carry errno as Python's own do.
PyObject *exception_of(int code)
{
    switch (-code) {
    case EINVAL:
    case ERANGE: return PyExc_ValueError;
    case ENOENT: return PyExc_FileNotFoundError;
    case EEXIST: return PyExc_FileExistsError;
    case EPIPE: return PyExc_BrokenPipeError;
    case EACCES:
    case EPERM: return PyExc_PermissionError;
    case ENOMEM: return PyExc_MemoryError;
    case EBUSY: return PyExc_BufferError; // memory still lent out
    default: return glreader_error;
    }
}

} // namespace

void fail_with_last_error()
{
    int code = glr_last_error_code();
    throw failure{code ? code : GLR_ERROR_INTERNAL, glr_last_error()};
}

void register_errors(nb::module_ &m)
{
    glreader_error = PyErr_NewExceptionWithDoc("glreader.Error",
                                               "A failure of glreader's: OpenGL, a shader, the encoder, the output. "
                                               "args[0] is the message, .code glreader's (negative) code.",
                                               PyExc_RuntimeError, nullptr);
    m.attr("Error") = nb::handle(glreader_error);
    nb::register_exception_translator([](const std::exception_ptr &p, void *) {
        try {
            std::rethrow_exception(p);
        } catch (const failure &f) {
            PyObject *type = exception_of(f.code);
            nb::object value;
            if (PyType_IsSubtype(reinterpret_cast<PyTypeObject *>(type), reinterpret_cast<PyTypeObject *>(PyExc_OSError)))
                value = nb::steal(PyObject_CallFunction(type, "is", -f.code, f.message.c_str()));
            else
                value = nb::steal(PyObject_CallFunction(type, "s", f.message.c_str()));
            if (value.is_valid() && type == glreader_error)
                PyObject_SetAttrString(value.ptr(), "code", nb::int_(f.code).ptr());
            if (value.is_valid())
                PyErr_SetObject(type, value.ptr());
        }
    });
}

} // namespace glr_python
