// A failure a glreader C call already logged and kept as the thread's last error: whoever
// catches it hands it on without logging it twice.
#pragma once

#include "error.hpp"

namespace glr {

class logged_failure : public failure {
public:
    explicit logged_failure(int code) : failure(code, glr_last_error()) {}
};

// code, or a logged_failure when it is negative.
inline int check(int code)
{
    if (code < 0)
        throw logged_failure(code);
    return code;
}

// created, or a logged_failure when it is NULL.
template <typename T>
T *check(T *created)
{
    if (!created)
        throw logged_failure(glr_last_error_code() ? glr_last_error_code() : GLR_ERROR_INTERNAL);
    return created;
}

} // namespace glr
