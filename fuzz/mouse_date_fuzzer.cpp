// --mouse and --date (the filter's mouse= and date=): the first byte picks which reader.
// Each accepts its syntax or refuses with a message; what it accepts is finite (a mouse)
// or a date that prints back as the same text.
#include "fuzz_input.hpp"

#include "glreader/shadertoy_project.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    std::string text = glr_fuzz::text(data + 1, size - 1);
    if (data[0] % 2) {
        float mouse[4];
        if (glr_shadertoy_parse_mouse(text.c_str(), mouse) == 0) {
            for (float m : mouse)
                if (!std::isfinite(m))
                    std::abort();
        } else if (!*glr_last_error()) {
            std::abort();
        }
        return 0;
    }
    long long seconds = 0;
    if (glr_shadertoy_parse_date(text.c_str(), &seconds) != 0)
        return *glr_last_error() ? 0 : (std::abort(), 0);
    // A date read is the date written: it prints back as its own text.
    std::time_t at = static_cast<std::time_t>(seconds);
    std::tm t{};
    gmtime_r(&at, &t);
    char back[64];
    int n = std::snprintf(back, sizeof back, "%04d-%02d-%02d", t.tm_year + 1900, t.tm_mon + 1, t.tm_mday);
    if (text.size() > 10)
        std::snprintf(back + n, sizeof back - static_cast<size_t>(n), "T%02d:%02d:%02d", t.tm_hour, t.tm_min, t.tm_sec);
    if (text != back)
        std::abort();
    return 0;
}
