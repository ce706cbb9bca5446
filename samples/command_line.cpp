#include "command_line.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>

namespace sample {

namespace {

bool all_digits(const std::string &text, size_t from, size_t to)
{
    if (from >= to)
        return false;
    for (size_t i = from; i < to; i++)
        if (text[i] < '0' || text[i] > '9')
            return false;
    return true;
}

// [-]DIGITS[.DIGITS] or [-].DIGITS, and nothing else (strtod alone takes "1e10", "inf",
// "0x1p3" and leading spaces).
bool parse_plain_decimal(const std::string &text, double &out)
{
    size_t from = !text.empty() && text[0] == '-' ? 1 : 0, dot = text.find('.', from);
    bool whole = dot == std::string::npos ? all_digits(text, from, text.size())
                                          : (dot == from || all_digits(text, from, dot)) &&
                                                all_digits(text, dot + 1, text.size());
    if (!whole)
        return false;
    out = std::strtod(text.c_str(), nullptr);
    return std::isfinite(out);
}

std::string number_text(double x)
{
    char text[64];
    std::snprintf(text, sizeof text, "%.10g", x);
    return text;
}

} // namespace

bool parse_integer(const std::string &text, long long &out)
{
    size_t from = !text.empty() && text[0] == '-' ? 1 : 0;
    if (!all_digits(text, from, text.size()))
        return false;
    errno = 0;
    out = std::strtoll(text.c_str(), nullptr, 10);
    return errno != ERANGE;
}

bool parse_decimal(const std::string &text, double &out)
{
    size_t slash = text.find('/');
    if (slash == std::string::npos)
        return parse_plain_decimal(text, out);
    double num = 0, den = 0;
    if (!parse_plain_decimal(text.substr(0, slash), num) || !parse_plain_decimal(text.substr(slash + 1), den) ||
        den == 0)
        return false;
    out = num / den;
    return std::isfinite(out);
}

bool parse_rate(const std::string &text, frame_rate &out)
{
    static const struct {
        const char *name;
        frame_rate rate;
    } names[] = {{"ntsc", {30000, 1001}}, {"pal", {25, 1}}, {"film", {24, 1}}, {"ntsc-film", {24000, 1001}}};
    for (const auto &n : names)
        if (text == n.name)
            return out = n.rate, true;
    long long num = 0, den = 1;
    size_t slash = text.find('/'), dot = text.find('.');
    if (slash != std::string::npos) {
        if (!parse_integer(text.substr(0, slash), num) || !parse_integer(text.substr(slash + 1), den))
            return false;
    } else if (dot != std::string::npos) {
        // Exactly: the digits as a fraction over a power of ten (at most six decimals).
        std::string digits = text.substr(0, dot) + text.substr(dot + 1);
        size_t decimals = text.size() - dot - 1;
        if (decimals == 0 || decimals > 6 || !parse_integer(digits, num) || text[0] == '-')
            return false;
        den = static_cast<long long>(std::pow(10, decimals));
        // A decimal NTSC rate (23.976, 29.97, 59.94...) is the N*1000/1001 it stands for.
        for (long long base : {24, 30, 48, 60, 120, 240})
            if (std::abs(static_cast<double>(num) / den - base * 1000.0 / 1001.0) < 0.005)
                num = base * 1000, den = 1001;
    } else if (!parse_integer(text, num)) {
        return false;
    }
    if (num <= 0 || den <= 0)
        return false;
    long long g = std::gcd(num, den);
    num /= g, den /= g;
    if (num > INT_MAX || den > INT_MAX)
        return false;
    out = {static_cast<int>(num), static_cast<int>(den)};
    return true;
}

bool parse_size(const std::string &text, int &width, int &height)
{
    size_t x = text.find('x');
    long long w = 0, h = 0;
    if (x == std::string::npos || !parse_integer(text.substr(0, x), w) || !parse_integer(text.substr(x + 1), h) ||
        w <= 0 || h <= 0 || w > INT_MAX || h > INT_MAX)
        return false;
    width = static_cast<int>(w);
    height = static_cast<int>(h);
    return true;
}

command_line::command_line(int argc, char **argv, std::string usage_text)
    : argc_(argc), argv_(argv), usage_(std::move(usage_text))
{
    const char *slash = argc > 0 ? std::strrchr(argv[0], '/') : nullptr;
    program_ = slash ? slash + 1 : argc > 0 ? argv[0] : "glreader";
}

bool command_line::next()
{
    if (++at_ >= argc_)
        return false;
    option_ = argv_[at_];
    if (option_ == "-h" || option_ == "--help") {
        std::fprintf(stdout, "%s", usage_.c_str());
        std::exit(0);
    }
    return true;
}

std::string command_line::value()
{
    if (at_ + 1 >= argc_)
        fail(option_ + " needs a value");
    return argv_[++at_];
}

long long command_line::integer(long long min, long long max)
{
    std::string v = value();
    long long n = 0;
    if (!parse_integer(v, n) || n < min || n > max)
        fail(option_ + " needs a whole number from " + std::to_string(min) + " to " + std::to_string(max) +
             ", not '" + v + "'");
    return n;
}

double command_line::decimal(double min, double max)
{
    std::string v = value();
    double x = 0;
    if (!parse_decimal(v, x) || x < min || x > max)
        fail(option_ + " needs a number like 1.5 or 3/2, from " + number_text(min) + " to " + number_text(max) +
             ", not '" + v + "'");
    return x;
}

frame_rate command_line::rate()
{
    std::string v = value();
    frame_rate r{};
    // From 1/1000 to 1000 frames a second: beyond, containers' time bases (MP4's and
    // Matroska's millisecond ticks among them) cannot tell the frames apart.
    if (!parse_rate(v, r) || static_cast<double>(r.num) / r.den > 1000 || static_cast<double>(r.den) / r.num > 1000)
        fail(option_ + " needs a frame rate from 1/1000 to 1000 frames a second, like 30, 29.97, 30000/1001 or "
                       "ntsc, not '" + v + "'");
    return r;
}

long long command_line::scaled(long long min, long long max, double kilo, const char *unit, const char *examples)
{
    std::string v = value();
    char suffix = v.empty() ? 0 : v.back();
    double scale = suffix == 'k' || suffix == 'K' ? kilo : suffix == 'M' ? kilo * kilo : suffix == 'G' ? kilo * kilo * kilo : 1;
    double x = 0;
    if (!parse_plain_decimal(scale == 1 ? v : v.substr(0, v.size() - 1), x) || x * scale < min || x * scale > max)
        fail(option_ + " needs " + unit + " like " + examples + ", from " + std::to_string(min) + " to " +
             std::to_string(max) + ", not '" + v + "'");
    return std::llround(x * scale);
}

long long command_line::bit_rate(long long min, long long max)
{
    return scaled(min, max, 1e3, "bits per second", "192000, 192k or 1.5M");
}

long long command_line::bytes(long long min, long long max)
{
    return scaled(min, max, 1024, "bytes", "65536, 64k or 16M (k: 1024, M: 1024 k)");
}

void command_line::size(int &width, int &height)
{
    std::string v = value();
    if (!parse_size(v, width, height) || width > max_dimension || height > max_dimension)
        fail(option_ + " needs WIDTHxHEIGHT like 1280x720, each a whole number from 1 to " +
             std::to_string(max_dimension) + ", not '" + v + "'");
}

std::vector<std::string> command_line::rest()
{
    std::vector<std::string> out(argv_ + at_ + 1, argv_ + argc_);
    at_ = argc_;
    return out;
}

void command_line::refuse_existing(const std::string &path, bool overwrite) const
{
    struct stat st;
    if (!overwrite && stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode))
        fail(path + " already exists: -y overwrites it");
}

void command_line::fail(const std::string &why) const
{
    std::fprintf(stderr, "%s: %s\n(%s --help lists every option)\n", program_.c_str(), why.c_str(), program_.c_str());
    std::exit(2);
}

glr_format command_line::format()
{
    std::string v = value();
    glr_format f = glr_format_from_name(v.c_str());
    if (!f)
        fail(option_ + " takes rgba, bgra, rgb24, nv12, yuv420p, p010le or yuv444p, not " + v);
    return f;
}

bool command_line::color_option(glr_color &color)
{
    struct choice {
        const char *option, *name;
        int value;
    };
    static const choice choices[] = {
        {"--matrix", "bt709", GLR_MATRIX_BT709}, {"--matrix", "bt601", GLR_MATRIX_BT601},
        {"--matrix", "bt2020", GLR_MATRIX_BT2020_NCL}, {"--range", "tv", GLR_RANGE_LIMITED},
        {"--range", "pc", GLR_RANGE_FULL}, {"--chroma-loc", "left", GLR_CHROMA_LEFT},
        {"--chroma-loc", "center", GLR_CHROMA_CENTER}};
    if (!is("--matrix") && !is("--range") && !is("--chroma-loc"))
        return false;
    std::string v = value(), accepted;
    for (const choice &c : choices) {
        if (!is(c.option))
            continue;
        if (v == c.name) {
            if (is("--matrix"))
                color.matrix = static_cast<glr_matrix>(c.value);
            else if (is("--range"))
                color.range = static_cast<glr_range>(c.value);
            else
                color.chroma = static_cast<glr_chroma_siting>(c.value);
            return true;
        }
        accepted += (accepted.empty() ? "" : ", ") + std::string(c.name);
    }
    fail(option_ + " takes " + accepted + ", not " + v);
}

} // namespace sample
