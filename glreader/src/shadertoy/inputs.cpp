// A frame's Shadertoy inputs from the render's clock, and the strict readers of --mouse
// and --date values (glreader/shadertoy_project.h).
#include "inputs.hpp"

#include "error.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <ctime>

namespace glr {

void shadertoy_inputs(const glr_shadertoy_clock &clock, int frame, glr_scene_inputs &inputs)
{
    if (clock.fps_num <= 0 || clock.fps_den <= 0)
        fail(-EINVAL, "glr_shadertoy_inputs: the frame rate %d/%d is not positive", clock.fps_num, clock.fps_den);
    double frame_seconds = static_cast<double>(clock.fps_den) / clock.fps_num;
    inputs = glr_scene_inputs{};
    inputs.frame = frame;
    inputs.time = frame * frame_seconds;
    inputs.time_delta = frame_seconds;
    inputs.frame_rate = static_cast<double>(clock.fps_num) / clock.fps_den;
    std::memcpy(inputs.mouse, clock.mouse, sizeof inputs.mouse);
    inputs.sample_rate = clock.sample_rate;

    // iDate: year, month 0..11, day, seconds into the day.
    double whole = std::floor(inputs.time);
    std::time_t at = static_cast<std::time_t>(clock.date_start) + static_cast<std::time_t>(whole);
    std::tm t{};
    if (clock.date_local)
        localtime_r(&at, &t);
    else
        gmtime_r(&at, &t);
    inputs.date[0] = static_cast<float>(t.tm_year + 1900);
    inputs.date[1] = static_cast<float>(t.tm_mon);
    inputs.date[2] = static_cast<float>(t.tm_mday);
    inputs.date[3] = static_cast<float>(t.tm_hour * 3600 + t.tm_min * 60 + t.tm_sec + (inputs.time - whole));
}

void parse_mouse(const char *text, float mouse[4])
{
    float m[4] = {0, 0, 0, 0};
    int count = 0;
    bool ok = true;
    for (const char *at = text; ok; at++) {
        char *end = nullptr;
        errno = 0;
        float value = std::strtof(at, &end);
        // Whole numbers only: no blanks strtof would skip, nothing after them but a comma.
        ok = count < 4 && end != at && !std::strchr(" \t\n\v\f\r", *at) && errno == 0 && std::isfinite(value) &&
             (*end == ',' || *end == '\0');
        if (ok)
            m[count++] = value;
        if (!ok || *end == '\0')
            break;
        at = end;
    }
    if (!ok || (count != 2 && count != 4))
        fail(-EINVAL, "the mouse needs X,Y or X,Y,CX,CY in pixels, not '%s'", text);
    if (count == 2) { // held down since before the first frame
        m[2] = m[0];
        m[3] = -m[1];
    }
    std::memcpy(mouse, m, sizeof m);
}

namespace {

// Exactly `digits` decimal digits at text[at].
bool read_digits(const char *text, size_t at, size_t digits, int &value)
{
    value = 0;
    for (size_t i = at; i < at + digits; i++) {
        if (text[i] < '0' || text[i] > '9')
            return false;
        value = value * 10 + (text[i] - '0');
    }
    return true;
}

} // namespace

long long parse_date(const char *text)
{
    size_t length = std::strlen(text);
    std::tm t{};
    bool ok = (length == 10 || length == 19) && read_digits(text, 0, 4, t.tm_year) && text[4] == '-' &&
              read_digits(text, 5, 2, t.tm_mon) && text[7] == '-' && read_digits(text, 8, 2, t.tm_mday);
    if (ok && length == 19)
        ok = text[10] == 'T' && read_digits(text, 11, 2, t.tm_hour) && text[13] == ':' &&
             read_digits(text, 14, 2, t.tm_min) && text[16] == ':' && read_digits(text, 17, 2, t.tm_sec);
    std::tm wanted = t;
    long long seconds = 0;
    if (ok) {
        t.tm_year -= 1900;
        t.tm_mon -= 1;
        seconds = static_cast<long long>(timegm(&t));
        // timegm normalizes 2026-02-30 to March: a date that moved was no date.
        ok = t.tm_year + 1900 == wanted.tm_year && t.tm_mon + 1 == wanted.tm_mon && t.tm_mday == wanted.tm_mday &&
             t.tm_hour == wanted.tm_hour && t.tm_min == wanted.tm_min && t.tm_sec == wanted.tm_sec;
    }
    if (!ok)
        fail(-EINVAL, "the date needs YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS (UTC), a real one, not '%s'", text);
    return seconds;
}

} // namespace glr
