// The programs' options: the strict readers of numbers, sizes, times and rates
// (samples/command_line.hpp's, glreader/frame_range.h's) and the export's option table
// (glreader/av/export_options.h), each value set on one of its options and the pairs
// checked. The first byte picks the reader (and the option). Each accepts the whole text or
// refuses it, and what it accepts is in range: finite numbers, times of 0 or more, rates
// and sizes above 0.
#include "fuzz_input.hpp"

#include "command_line.hpp"
#include "glreader/av/export_options.h"
#include "glreader/frame_range.h"

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
    int64_t microseconds = 0;
    int num = 0, den = 0, width = 0, height = 0;
    switch (data[0] % 6) {
    case 0:
        sample::parse_integer(text, integer);
        break;
    case 1:
        if (sample::parse_decimal(text, real) && !std::isfinite(real))
            std::abort();
        break;
    case 2:
        if (glr_parse_time(text.c_str(), &microseconds) == 0 && microseconds < 0)
            std::abort();
        break;
    case 3:
        if (glr_parse_rate(text.c_str(), &num, &den) == 0 && (num <= 0 || den <= 0))
            std::abort();
        break;
    case 4:
        if (sample::parse_size(text, width, height) && (width <= 0 || height <= 0))
            std::abort();
        break;
    default: {
        int count = 0;
        const glr_export_option *table = glr_export_options(&count);
        glr_export_settings *settings = glr_export_settings_create();
        glr_export_settings_set(settings, table[data[0] / 6 % count].name, text.c_str());
        glr_export_settings_check(settings);
        glr_export_settings_destroy(&settings);
        break;
    }
    }
    return 0;
}
