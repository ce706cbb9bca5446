// Errors inside glreader: C++ code throws glr::failure; capi.cpp turns it into a return
// code, logs it and keeps its text as the thread's last error.
#pragma once

#include <exception>
#include <string>

namespace glr {

class failure : public std::exception {
public:
    failure(int code, std::string message) : code_(code), message_(std::move(message)) {}
    int code() const noexcept { return code_; }
    const char *what() const noexcept override { return message_.c_str(); }

private:
    int code_;
    std::string message_;
};

// printf-style formatting into a std::string.
std::string format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

[[noreturn]] void fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

// The text returned by glr_last_error() on this thread.
void set_last_error(int code, const std::string &message);
const char *last_error();
int last_error_code();

// A few words naming an error code (glr_strerror).
const char *describe(int code);

// Control-flow codes that are returned, never logged nor kept as the last error.
bool is_control_flow(int code);

} // namespace glr
