// Errors inside glreader: C++ code throws glr::failure; the C entry points (capi.cpp and
// its siblings) turn it into a return code, log it and keep it as the thread's last error
// (glr_priv_report_error, src/priv.h). Shared by both libraries.
#pragma once

#include "glreader/common.h"
#include "priv.h"

#include <exception>
#include <string>
#include <string_view>

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

// A message may begin with the entry point it failed in ("glr_ring_create: size 0x4 ..."),
// which says where for a bug report. Users never typed that name: what they are shown (the
// last error, a log short of debug level) is the rest, these words.
std::string_view user_words(std::string_view message);

// A few words naming an error code (glr_strerror).
const char *describe(int code);

// Control-flow codes that are returned, never logged nor kept as the last error.
bool is_control_flow(int code);

} // namespace glr
