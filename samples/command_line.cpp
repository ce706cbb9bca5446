#include "command_line.hpp"

#include "glreader/av/export_options.h"
#include "glreader/frame_range.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <stdexcept>

namespace sample {

namespace {

std::string number_text(double x)
{
    char text[64];
    std::snprintf(text, sizeof text, "%.10g", x);
    return text;
}

// The spellings an option_doc's names stand for: "-c, -c:v" is two; "--channel0..3" four.
std::vector<std::string> spellings(const std::string &names)
{
    std::vector<std::string> out;
    size_t at = 0;
    while (at < names.size()) {
        size_t comma = names.find(", ", at);
        std::string name = names.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
        at = comma == std::string::npos ? names.size() : comma + 2;
        size_t range = name.find("0..");
        if (range != std::string::npos && range + 4 == name.size()) {
            for (char last = '0'; last <= name.back(); last++)
                out.push_back(name.substr(0, range) + last);
        } else {
            out.push_back(name);
        }
    }
    return out;
}

// Words wrapped to `width` columns, lines after the first indented by `indent`.
std::string wrapped(const std::string &words, size_t indent, size_t first_column, size_t width)
{
    std::string out, line;
    size_t column = first_column, at = 0;
    while (at < words.size()) {
        size_t space = words.find(' ', at);
        std::string word = words.substr(at, space == std::string::npos ? std::string::npos : space - at);
        at = space == std::string::npos ? words.size() : space + 1;
        if (!line.empty() && column + line.size() + 1 + word.size() > width) {
            out += line + "\n" + std::string(indent, ' ');
            line.clear();
            column = indent;
        }
        line += (line.empty() ? "" : " ") + word;
    }
    return out + line;
}

} // namespace

option_doc exported(const char *name, const char *names)
{
    const glr_export_option *o = glr_export_option_find(name);
    if (!o)
        throw std::logic_error(std::string("the export's table has no option ") + name);
    return {names ? names : o->flags, o->value, o->help, o->fallback};
}

std::vector<help_section> exported_sections(bool (*takes)(const glr_export_option &))
{
    std::vector<help_section> sections;
    int count = 0;
    const glr_export_option *table = glr_export_options(&count);
    for (int i = 0; i < count; i++) {
        const glr_export_option &o = table[i];
        if ((takes && !takes(o)) || (std::strncmp(o.name, "channel", 7) == 0 && std::strcmp(o.name, "channel0") != 0))
            continue;
        if (sections.empty() || sections.back().title != o.section)
            sections.push_back({o.section, {}});
        sections.back().options.push_back(std::strcmp(o.name, "channel0") == 0 ? exported("channel0", "--channel0..3")
                                                                                : exported(o.name));
    }
    return sections;
}

bool length_options::read(command_line &args)
{
    if (args.is("-n") || args.is("-frames:v"))
        frames = args.count(1, INT_MAX);
    else if (args.is("-t"))
        duration_us = args.time_us(0.001, max_seconds);
    else if (args.is("-to"))
        end_us = args.time_us(0.001, max_seconds);
    else
        return false;
    return true;
}

int length_options::frames_at(frame_rate fps, int otherwise, const command_line &args) const
{
    if (!frames && !duration_us && !end_us)
        return otherwise;
    glr_range_request r{fps.num, fps.den, 0, 0, duration_us, end_us, frames};
    int first = 0, count = 0;
    if (glr_frame_range(&r, &first, &count) < 0)
        args.fail(glr_last_error());
    return count;
}

option_doc option_doc::with_default(std::string fallback_words) const
{
    option_doc copy = *this;
    copy.fallback = std::move(fallback_words);
    return copy;
}

std::string program_help::text() const
{
    constexpr size_t width = 96, column = 26;
    std::string out = "usage: " + name + " " + synopsis + "\n" + wrapped(about, 0, 0, width) + "\n";
    for (const help_section &section : sections) {
        out += "\n" + section.title + ":\n";
        for (const option_doc &o : section.options) {
            std::string left = "  " + o.names + (o.value.empty() ? "" : " " + o.value);
            std::string words = o.text + " (default: " + o.fallback + ")";
            if (left.size() + 2 > column) // at least two spaces before the words
                out += left + "\n" + std::string(column, ' ');
            else
                out += left + std::string(column - left.size(), ' ');
            out += wrapped(words, column, column, width) + "\n";
        }
    }
    if (!leaves_out.empty()) { // one line for each reason, with every option it is given for
        out += "\nglreader-export's options that " + name + " leaves out:\n";
        int count = 0;
        const glr_export_option *table = glr_export_options(&count);
        std::vector<std::string> reasons;
        for (const left_out &l : leaves_out)
            if (std::find(reasons.begin(), reasons.end(), l.why) == reasons.end())
                reasons.push_back(l.why);
        for (const std::string &why : reasons) {
            std::string flags;
            for (const left_out &l : leaves_out)
                for (int i = 0; i < count; i++)
                    if (l.why == why && l.covers(table[i]))
                        flags += (flags.empty() ? "" : ", ") + std::string(table[i].flags);
            out += "  " + wrapped(flags + ": " + why, 2, 4, width) + "\n";
        }
    }
    out += "\n-h or --help shows this help, --version the program's version and the library's.\n";
    if (!examples.empty()) {
        out += "\nExamples:\n";
        for (const std::string &e : examples)
            out += "  " + e + "\n";
    }
    return out;
}

bool program_help::documents(const std::string &option) const
{
    for (const help_section &section : sections)
        for (const option_doc &o : section.options)
            for (const std::string &spelling : spellings(o.names))
                if (spelling == option)
                    return true;
    return false;
}

namespace doc {

// The options of the export's table, spelled, explained and defaulted as the table says.
const option_doc size = exported("size"), rate = exported("fps"), seconds = exported("duration"),
                 frames = exported("frames"), shader = exported("shader"), media = exported("media"),
                 channels = exported("channel0", "--channel0..3"), codec = exported("codec"),
                 output = exported("output"), overwrite = exported("overwrite"), part = exported("part"),
                 depth = exported("depth"), ring_format = exported("ring_format"),
                 format_options = exported("format_options"), metadata = exported("metadata"),
                 audio_codec = exported("audio_codec"), audio_bitrate = exported("audio_bitrate"),
                 audio_offset = exported("audio_offset"), audio_keep_longer = exported("audio_keep_longer"),
                 matrix = exported("matrix"), range = exported("color_range"), chroma_loc = exported("chroma_loc"),
                 require_hw = exported("require_hw");
const option_doc verbosity{"-v, -loglevel", "LEVEL",
                           "what to print on stderr: quiet (only a fatal error), error, warning (with progress and "
                           "the summary), info, verbose or debug; FFmpeg's own lines show as [component] ...",
                           "warning"};

} // namespace doc

// The library's readers (glreader/av/export_options.h): the table's strictness for every
// program's options.
bool parse_integer(const std::string &text, long long &out) { return glr_export_parse_integer(text.c_str(), &out) == 0; }

bool parse_decimal(const std::string &text, double &out) { return glr_export_parse_number(text.c_str(), &out) == 0; }

void print_version(const std::string &program)
{
    unsigned v = glr_version(); // the library loaded, which may differ from the one built against
    std::fprintf(stdout, "%s %d.%d.%d (libglreader %u.%u.%u)\n", program.c_str(), GLR_VERSION_MAJOR,
                 GLR_VERSION_MINOR, GLR_VERSION_PATCH, v >> 16, (v >> 8) & 0xff, v & 0xff);
}

std::string byte_size(unsigned long long bytes)
{
    static const char *const units[] = {"B", "kB", "MB", "GB", "TB"};
    double value = static_cast<double>(bytes);
    size_t unit = 0;
    while (value >= 999.5 && unit + 1 < std::size(units))
        value /= 1000, unit++;
    char text[32];
    std::snprintf(text, sizeof text, unit == 0 ? "%.0f %s" : value < 9.995 ? "%.2f %s" : value < 99.95 ? "%.1f %s" : "%.0f %s",
                  value, units[unit]);
    return text;
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

command_line::command_line(int argc, char **argv, program_help help)
    : argc_(argc), argv_(argv), help_(std::move(help)), program_(help_.name)
{
}

bool command_line::is(const char *name) const
{
    if (!help_.documents(name)) {
        std::fprintf(stderr, "%s: a bug: option %s is read but --help does not document it\n", program_.c_str(), name);
        std::exit(70);
    }
    return option_ == name;
}

bool command_line::next()
{
    if (++at_ >= argc_)
        return false;
    option_ = argv_[at_];
    if (option_ == "-h" || option_ == "--help") {
        std::fprintf(stdout, "%s", help_.text().c_str());
        std::exit(0);
    }
    if (option_ == "--version") {
        print_version(program_);
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

double command_line::real(bool (*parse)(const std::string &, double &), double min, double max, const char *like,
                          const char *unit)
{
    std::string v = value();
    double x = 0;
    if (!parse(v, x) || x < min || x > max)
        fail(option_ + " needs " + like + ", from " + number_text(min) + " to " + number_text(max) + unit + ", not '" +
             v + "'");
    return x;
}

double command_line::decimal(double min, double max)
{
    return real(parse_decimal, min, max, "a number like 1.5 or 3/2", "");
}

int64_t command_line::time_us(double min, double max)
{
    // The library's reader, which every front-end shares (glreader/frame_range.h), in the
    // microseconds its ranges count in.
    std::string v = value();
    int64_t us = 0;
    bool read = glr_parse_time(v.c_str(), &us) == 0;
    double seconds = static_cast<double>(us) / 1e6; // as the bounds are said
    if (!read || seconds < min || seconds > max)
        fail(option_ + " needs a time like 2.5, 500ms or 01:30, from " + number_text(min) + " to " + number_text(max) +
             " seconds, not '" + v + "'");
    return us;
}

frame_rate command_line::rate()
{
    std::string v = value();
    // Read and bounded as glreader-export's -r, by the option table's row, in its words.
    glr_export_settings *table = glr_export_settings_create();
    if (!table)
        fail("out of memory");
    int rc = glr_export_settings_set(table, "-r", v.c_str());
    glr_export_settings_destroy(&table);
    frame_rate r{};
    if (rc < 0 || glr_parse_rate(v.c_str(), &r.num, &r.den) < 0) {
        std::string why = glr_last_error();
        fail(option_ + why.substr(why.find(' ')));
    }
    return r;
}

long long command_line::scaled(long long min, long long max, double kilo, const char *unit, const char *examples)
{
    std::string v = value();
    double x = 0;
    if (glr_export_parse_scaled(v.c_str(), kilo, &x) < 0 || x < min || x > max)
        fail(option_ + " needs " + unit + " like " + examples + ", from " + std::to_string(min) + " to " +
             std::to_string(max) + ", not '" + v + "'");
    return std::llround(x);
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

void command_line::unknown() const
{
    if (const glr_export_option *o = glr_export_option_find(option_.c_str()))
        for (const left_out &l : help_.leaves_out)
            if (l.covers(*o))
                fail(option_ + ": " + l.why);
    fail("unknown option " + option_);
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
        fail(option_ + " takes rgba, bgra, rgb24, nv12, yuv420p, p010le, yuv444p, yuva420p, yuva444p or yuva444p10le, not " + v);
    return f;
}

bool command_line::verbosity_option(verbosity &v)
{
    if (!is("-v") && !is("-loglevel"))
        return false;
    static const struct {
        const char *name;
        int number; // ffmpeg's number for the level
        verbosity level;
    } levels[] = {{"quiet", -8, verbosity::quiet},     {"panic", 0, verbosity::error},
                  {"fatal", 8, verbosity::error},      {"error", 16, verbosity::error},
                  {"warning", 24, verbosity::warning}, {"info", 32, verbosity::info},
                  {"verbose", 40, verbosity::verbose}, {"debug", 48, verbosity::debug},
                  {"trace", 56, verbosity::debug}};
    std::string text = value();
    long long number = 0;
    if (parse_integer(text, number)) { // as ffmpeg: messages of level <= number show
        v = verbosity::quiet;
        for (const auto &l : levels)
            if (l.number <= number)
                v = l.level;
        return true;
    }
    for (const auto &l : levels)
        if (text == l.name)
            return v = l.level, true;
    fail(option_ + " takes quiet, error, warning, info, verbose or debug (or ffmpeg's numbers), not '" + text + "'");
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
