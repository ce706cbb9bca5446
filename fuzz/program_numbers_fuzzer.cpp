// The programs' number, time, rate and size options (samples/command_line.hpp's strict
// readers): the first byte picks the reader. Each accepts the whole text or refuses it, and
// what it accepts is in range: finite numbers, rates and sizes above 0.
#include "fuzz_input.hpp"

#include "command_line.hpp"

#include <cmath>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    std::string text = glr_fuzz::text(data + 1, size - 1);
    long long integer = 0;
    double real = 0;
    sample::frame_rate rate{};
    int width = 0, height = 0;
    switch (data[0] % 5) {
    case 0:
        sample::parse_integer(text, integer);
        break;
    case 1:
        if (sample::parse_decimal(text, real) && !std::isfinite(real))
            std::abort();
        break;
    case 2:
        if (sample::parse_duration(text, real) && !std::isfinite(real))
            std::abort();
        break;
    case 3:
        if (sample::parse_rate(text, rate) && (rate.num <= 0 || rate.den <= 0))
            std::abort();
        break;
    default:
        if (sample::parse_size(text, width, height) && (width <= 0 || height <= 0))
            std::abort();
        break;
    }
    return 0;
}
