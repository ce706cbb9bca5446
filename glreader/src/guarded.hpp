// The C boundary's safety net: runs a body that may throw and turns whatever it throws
// into an error code, handing code and message to `report`. Used by every extern "C"
// entry point so that no exception crosses into C.
#pragma once

#include "error.hpp"

#include <cerrno>
#include <new>

namespace glr {

template <typename Report, typename Body>
int guarded(Report &&report, Body &&body) noexcept
{
    try {
        return body();
    } catch (const failure &e) {
        report(e.code(), e.what());
        return e.code();
    } catch (const std::bad_alloc &) {
        report(-ENOMEM, "out of memory");
        return -ENOMEM;
    } catch (const std::exception &e) {
        report(GLR_ERROR_INTERNAL, e.what());
        return GLR_ERROR_INTERNAL;
    } catch (...) {
        report(GLR_ERROR_INTERNAL, "unknown exception");
        return GLR_ERROR_INTERNAL;
    }
}

} // namespace glr
