// The edges of a numeric row of the export's option table, read from the row itself, for
// the tests that hold every front-end to them (program_options_test, filter_test,
// python/tests's table_edges says the same in Python).
#pragma once

#include "glreader/av/export_options.h"

#include <cstdio>
#include <string>
#include <vector>

namespace glr_test {

// A number as the table's readers take it: plain digits, at most six decimals, no exponent.
inline std::string plain(double x)
{
    char text[64];
    std::snprintf(text, sizeof text, "%.6f", x);
    std::string s = text;
    s.erase(s.find_last_not_of('0') + 1);
    if (s.back() == '.')
        s.pop_back();
    return s == "-0" ? "0" : s;
}

// A numeric row's edges, from the row itself: its lowest and highest values (taken), and
// the nearest values past each (refused), as its kind writes them.
struct edge {
    std::string text;
    bool taken;
};
inline std::vector<edge> edges_of(const glr_export_option &o)
{
    const double lo = o.min, hi = o.max;
    const std::string l = plain(lo), h = plain(hi);
    switch (o.kind) {
    case GLR_EXPORT_OPTION_INTEGER:
        return {{l, true}, {h, true}, {plain(lo - 1), false}, {plain(hi + 1), false}};
    case GLR_EXPORT_OPTION_NUMBER:
    case GLR_EXPORT_OPTION_TIME: // a millionth: the finest step both read (a time's microsecond)
        return {{l, true}, {h, true}, {plain(lo - 1e-6), false}, {plain(hi + 1e-6), false}};
    case GLR_EXPORT_OPTION_RATE: // under one a second, rates are written as fractions
        return {{"1/" + plain(1 / lo), true}, {h, true}, {"1/" + plain(1 / lo + 1), false}, {plain(hi + 1), false}};
    case GLR_EXPORT_OPTION_SIZE:
        return {{l + "x" + l, true}, {h + "x" + h, true}, {plain(lo - 1) + "x" + l, false}, {l + "x" + plain(lo - 1), false},
                {plain(hi + 1) + "x" + l, false}, {l + "x" + plain(hi + 1), false}};
    case GLR_EXPORT_OPTION_BITS:
    case GLR_EXPORT_OPTION_BYTES:
        return {{l, true}, {h, true}, {plain(lo - 1), false}, {plain(hi + 1), false}};
    default:
        return {};
    }
}

} // namespace glr_test
