// Reads a C enum that came from a caller as a plain int. C callers may store any value
// in an enum field; in C++ loading an out-of-range enum value is undefined, so values
// are checked as ints before they are trusted.
#pragma once

#include <cstring>

namespace glr {

template <typename Enum>
int enum_value(const Enum &value)
{
    static_assert(sizeof(Enum) == sizeof(int), "C enums are int-sized here");
    int out;
    std::memcpy(&out, &value, sizeof out);
    return out;
}

} // namespace glr
