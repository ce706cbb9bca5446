// What every fuzz target shares: its input as text, a scratch folder of its own for the
// targets that read files, and a log that drops glreader's messages (a refused input is
// the expected case, thousands of times a second).
#pragma once

#include "glreader/common.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace glr_fuzz {

// The input as a string that ends at its first NUL, as a C caller's text would.
inline std::string text(const uint8_t *data, size_t size)
{
    std::string s(reinterpret_cast<const char *>(data), size);
    return s.substr(0, s.find('\0'));
}

// A folder for this process's files, made once.
const std::string &scratch_folder();

// Writes `bytes` into path, whole; aborts when it cannot (the machine's fault, not a find).
void write_file(const std::string &path, const uint8_t *data, size_t size);

// A log that keeps nothing.
glr_log *quiet_log();

} // namespace glr_fuzz
