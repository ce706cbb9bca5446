#include "glreader/frame_range.h"

#include "error.hpp"
#include "guarded.hpp"

#include <cctype>
#include <climits>
#include <cmath>
#include <cstring>
#include <numeric>
#include <string>
#include <string_view>

namespace {

// Times in microseconds times rates: past 64 bits on the way.
__extension__ typedef __int128 wide;

constexpr wide microseconds_per_second = 1000000;

bool all_digits(std::string_view s)
{
    if (s.empty())
        return false;
    for (char c : s)
        if (!std::isdigit(static_cast<unsigned char>(c)))
            return false;
    return true;
}

// DIGITS within 18 of them, as ffmpeg's readers take them.
bool read_whole(std::string_view s, wide &out)
{
    if (!all_digits(s) || s.size() > 18)
        return false;
    out = 0;
    for (char c : s)
        out = out * 10 + (c - '0');
    return true;
}

// n / d to the nearest whole number, halves away from zero (n >= 0, d > 0).
wide rounded(wide n, wide d) { return (2 * n + d) / (2 * d); }

// DIGITS[.DIGITS] or .DIGITS, or A/B of whole numbers, in `unit` microseconds (1000000: s).
bool read_decimal_us(std::string_view s, wide unit, wide &out)
{
    size_t slash = s.find('/');
    if (slash != std::string_view::npos) {
        wide a = 0, b = 0;
        if (!read_whole(s.substr(0, slash), a) || !read_whole(s.substr(slash + 1), b) || b == 0)
            return false;
        out = rounded(a * unit, b);
        return true;
    }
    size_t dot = s.find('.');
    std::string_view whole = s.substr(0, dot), fraction = dot == std::string_view::npos ? "" : s.substr(dot + 1);
    if (whole.empty() && fraction.empty())
        return false;
    wide w = 0, f = 0;
    if ((!whole.empty() && !read_whole(whole, w)) || (dot != std::string_view::npos && !read_whole(fraction, f)))
        return false;
    wide scale = 1;
    for (size_t i = 0; i < fraction.size(); i++)
        scale *= 10;
    out = w * unit + rounded(f * unit, scale);
    return true;
}

// [HH:]MM:SS[.m...]: minutes and seconds below 60 after a colon.
bool read_clock_us(std::string_view s, wide &out)
{
    size_t first = s.find(':'), second = s.find(':', first + 1);
    std::string_view hours = second == std::string_view::npos ? "0" : s.substr(0, first);
    std::string_view minutes =
        second == std::string_view::npos ? s.substr(0, first) : s.substr(first + 1, second - first - 1);
    std::string_view secs = s.substr((second == std::string_view::npos ? first : second) + 1);
    wide h = 0, m = 0, sec = 0;
    if (!read_whole(hours, h) || !read_whole(minutes, m) || secs.find(':') != std::string_view::npos ||
        secs.find('/') != std::string_view::npos || !read_decimal_us(secs, microseconds_per_second, sec) || m >= 60 ||
        sec >= 60 * microseconds_per_second)
        return false;
    out = (h * 3600 + m * 60) * microseconds_per_second + sec;
    return true;
}

wide parse_time_us(const char *text)
{
    if (!text)
        glr::fail(-EINVAL, "glr_parse_time: no text");
    std::string_view s(text);
    wide us = 0;
    bool ok;
    if (s.find(':') != std::string_view::npos) {
        ok = read_clock_us(s, us);
    } else {
        wide unit = microseconds_per_second;
        for (auto [suffix, scale] : {std::pair<std::string_view, wide>{"ms", 1000}, {"us", 1}, {"s", 1000000}}) {
            if (s.size() > suffix.size() && s.substr(s.size() - suffix.size()) == suffix) {
                s.remove_suffix(suffix.size());
                unit = scale;
                break;
            }
        }
        ok = read_decimal_us(s, unit, us);
    }
    if (!ok)
        glr::fail(-EINVAL, "'%s' is not a time: seconds (2.5), with a unit (500ms, 250us) or [HH:]MM:SS[.m]", text);
    if (us > INT64_MAX)
        glr::fail(-EINVAL, "'%s' is too long a time", text);
    return us;
}

void parse_rate(const char *text, int &num, int &den)
{
    if (!text)
        glr::fail(-EINVAL, "glr_parse_rate: no text");
    std::string_view s(text);
    static const struct {
        const char *name;
        int num, den;
    } names[] = {{"ntsc", 30000, 1001}, {"pal", 25, 1}, {"film", 24, 1}, {"ntsc-film", 24000, 1001}};
    for (const auto &n : names) {
        if (s == n.name) {
            num = n.num;
            den = n.den;
            return;
        }
    }
    wide n = 0, d = 1;
    size_t slash = s.find('/'), dot = s.find('.');
    bool ok;
    if (slash != std::string_view::npos) {
        ok = read_whole(s.substr(0, slash), n) && read_whole(s.substr(slash + 1), d);
    } else if (dot != std::string_view::npos) {
        // Exactly: the digits over a power of ten (at most six decimals).
        std::string digits = std::string(s.substr(0, dot)) + std::string(s.substr(dot + 1));
        size_t decimals = s.size() - dot - 1;
        ok = decimals >= 1 && decimals <= 6 && read_whole(digits, n);
        for (size_t i = 0; ok && i < decimals; i++) // (a refused one may have thousands)
            d *= 10;
        // A decimal NTSC rate (23.976, 29.97, 59.94...) is the N x 1000/1001 it stands for.
        for (int base : {24, 30, 48, 60, 120, 240}) {
            if (ok && std::abs(static_cast<double>(n) / static_cast<double>(d) - base * 1000.0 / 1001.0) < 0.005) {
                n = base * 1000;
                d = 1001;
            }
        }
    } else {
        ok = read_whole(s, n);
    }
    if (!ok || n <= 0 || d <= 0)
        glr::fail(-EINVAL, "'%s' is not a frame rate: 30, 29.97, 30000/1001, ntsc, pal, film or ntsc-film", text);
    wide g = std::gcd(static_cast<long long>(n), static_cast<long long>(d));
    n /= g;
    d /= g;
    if (n > INT_MAX || d > INT_MAX)
        glr::fail(-EINVAL, "'%s': the frame rate's fraction is past what an int holds", text);
    num = static_cast<int>(n);
    den = static_cast<int>(d);
}

// When frame n starts, in microseconds rounded to the nearest (av_rescale_q's stamp).
wide start_us(wide n, int fps_num, int fps_den) { return rounded(n * fps_den * microseconds_per_second, fps_num); }

int64_t frames_before(int64_t us, int fps_num, int fps_den)
{
    if (us <= 0 || fps_num <= 0 || fps_den <= 0)
        return 0;
    wide n = static_cast<wide>(us) * fps_num / (static_cast<wide>(fps_den) * microseconds_per_second);
    while (n > 0 && start_us(n - 1, fps_num, fps_den) >= us)
        n--;
    while (start_us(n, fps_num, fps_den) < us)
        n++;
    return n > INT64_MAX ? INT64_MAX : static_cast<int64_t>(n);
}

void frame_range(const glr_range_request &r, int &first, int &count)
{
    if (r.fps_num <= 0 || r.fps_den <= 0)
        glr::fail(-EINVAL, "the frame rate %d/%d is not above 0", r.fps_num, r.fps_den);
    if (r.start_us < 0 || r.start_frame < 0 || r.duration_us < 0 || r.end_us < 0 || r.frames < 0)
        glr::fail(-EINVAL, "a start or a length is negative");
    if (r.start_us > 0 && r.start_frame > 0)
        glr::fail(-EINVAL, "-ss and --start-frame (start and first_frame) both say where to start: give one of them");
    int lengths = (r.duration_us > 0) + (r.end_us > 0) + (r.frames > 0);
    if (lengths > 1)
        glr::fail(-EINVAL, "-t, -n and -to (duration, frames and end) each say how long to render: give one of them");
    const int64_t duration_us = lengths ? r.duration_us : GLR_FRAME_RANGE_DEFAULT_DURATION_US;
    int64_t from = r.start_frame > 0 ? r.start_frame : frames_before(r.start_us, r.fps_num, r.fps_den);
    int64_t n = r.frames;
    if (duration_us > 0)
        n = frames_before(duration_us, r.fps_num, r.fps_den);
    if (r.end_us > 0) {
        n = frames_before(r.end_us, r.fps_num, r.fps_den) - from;
        if (n <= 0)
            glr::fail(-EINVAL, "-to (end) %.6g s is not after the start, frame %lld, at %g s",
                      static_cast<double>(r.end_us) / 1e6, static_cast<long long>(from),
                      static_cast<double>(start_us(from, r.fps_num, r.fps_den)) / 1e6);
    }
    if (from > INT_MAX || n > INT_MAX - from)
        glr::fail(-EINVAL, "the range, %lld frames from frame %lld, passes the last frame number, %d",
                  static_cast<long long>(n), static_cast<long long>(from), INT_MAX);
    first = static_cast<int>(from);
    count = static_cast<int>(n);
}

// Bad input is the caller's to say in its own words: kept as the last error, not logged.
template <class Body> int unlogged(Body &&body) noexcept
{
    return glr::guarded_with([](int code, const char *message) { glr_priv_report_error(nullptr, code, message, 0); },
                             body);
}

} // namespace

int glr_parse_time(const char *text, int64_t *microseconds)
{
    return unlogged([&] {
        if (!microseconds)
            glr::fail(-EINVAL, "glr_parse_time: microseconds is NULL");
        *microseconds = static_cast<int64_t>(parse_time_us(text));
        return 0;
    });
}

int glr_parse_rate(const char *text, int *num, int *den)
{
    return unlogged([&] {
        if (!num || !den)
            glr::fail(-EINVAL, "glr_parse_rate: num or den is NULL");
        parse_rate(text, *num, *den);
        return 0;
    });
}

int glr_frame_range(const struct glr_range_request *request, int *first, int *count)
{
    return unlogged([&] {
        if (!request || !first || !count)
            glr::fail(-EINVAL, "glr_frame_range: request, first or count is NULL");
        frame_range(*request, *first, *count);
        return 0;
    });
}

int64_t glr_frames_before(int64_t microseconds, int fps_num, int fps_den)
{
    return frames_before(microseconds, fps_num, fps_den);
}

int64_t glr_frame_first_sample(int64_t frame, int sample_rate, int fps_num, int fps_den)
{
    if (frame < 0 || sample_rate <= 0 || fps_num <= 0 || fps_den <= 0)
        return -1;
    // frame < 2^63, rate x den < 2^62: the product fits in 128 bits, and the quotient is
    // rounded down by the division of non-negative numbers.
    __extension__ typedef unsigned __int128 wide;
    wide sample = static_cast<wide>(frame) * static_cast<wide>(sample_rate) * static_cast<wide>(fps_den) /
                  static_cast<wide>(fps_num);
    return sample > static_cast<wide>(INT64_MAX) ? INT64_MAX : static_cast<int64_t>(sample);
}
