// The C boundary's safety net: runs a body that may throw and turns whatever it throws
// into an error code, handing code and message to `report` (guarded_with) or to a
// glr_log (guarded). Used by every extern "C" entry point: no exception crosses into C.
#pragma once

#include "error.hpp"

#include <cerrno>
#include <new>

namespace glr {

template <typename Report, typename Body>
int guarded_with(Report &&report, Body &&body) noexcept
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

// The usual report: log through `log` and keep the message as the thread's last error.
template <typename Body>
int guarded(const glr_log *log, Body &&body) noexcept
{
    return guarded_with([&](int code, const char *message) { glr_priv_report_error(log, code, message, 1); }, body);
}

} // namespace glr
