// The samples' option reading: options in order, each with its value; a usage error
// prints "PROGRAM: why" to stderr and exits with status 2; -h and --help print the help
// (program_help: every option with what it does and its default, then examples) to stdout
// and exit with 0. An option is read only if the help documents it, and options several
// programs take are documented once (sample::doc), so they are spelled, explained and
// checked the same way everywhere. Numbers are read strictly, by one set of readers for
// every program: the whole value is the number (no trailing characters, no exponent, no
// inf or nan, no overflow), and it must lie in the option's range.
#pragma once

#include "glreader/av/export_options.h"
#include "glreader/common.h"

#include <string>
#include <vector>

namespace sample {

// A frame rate as the fraction num/den frames a second.
struct frame_rate {
    int num, den;
};

// One option in a program's help: its spellings ("-c, -c:v"; "--channel0..3" stands for
// four), the value it takes ("" for a switch), what it does, and its default in words.
struct option_doc {
    std::string names, value, text, fallback;
    option_doc with_default(std::string fallback_words) const;
};

struct help_section {
    std::string title;
    std::vector<option_doc> options;
};

// An option of the export's table (its name there, or a section's title for all of its
// options) that a program that renders has no use for, and why: its help says so, and the
// program refuses it with those words.
struct left_out {
    std::string name, why;
    bool covers(const glr_export_option &o) const { return name == o.name || name == o.section; }
};

// What -h prints: "usage: NAME SYNOPSIS", what the program does, each section of options,
// the export table's options it leaves out, and example command lines.
struct program_help {
    std::string name, synopsis, about;
    std::vector<help_section> sections;
    std::vector<std::string> examples;
    std::vector<left_out> leaves_out;

    std::string text() const;
    // Whether one of the sections names this spelling.
    bool documents(const std::string &option) const;
};

// An option of the export's table (glreader/av/export_options.h) as it documents it:
// spellings (or `names`), value, what it does, default.
option_doc exported(const char *name, const char *names = nullptr);

// The export table's options that `takes` keeps (all: NULL), as help sections in the
// table's order, the Image pass's four channels as one line.
std::vector<help_section> exported_sections(bool (*takes)(const glr_export_option &) = nullptr);

class command_line;

// A length as -n (-frames:v), -t or -to give it, for a program that renders from frame 0.
struct length_options {
    int frames = 0;
    int64_t duration_us = 0, end_us = 0;

    // Takes -n, -frames:v, -t or -to from args (which must document them); false when the
    // option is none of them.
    bool read(command_line &args);
    // The frames asked for at fps, counted as every front-end counts them (glr_frame_range:
    // the frames that start within -t); `otherwise` when no length was given. Fails on
    // args for two lengths.
    int frames_at(frame_rate fps, int otherwise, const command_line &args) const;
};

// How much a program prints, ffmpeg's -loglevel names: quiet prints only a fatal error;
// warning (the default) adds warnings, progress and the summary; info and beyond add what
// glreader and FFmpeg say at those levels.
enum class verbosity { quiet, error, warning, info, verbose, debug };

// The options several programs take, documented once.
namespace doc {
extern const option_doc size, rate, seconds, frames, shader, media, channels, codec, output, overwrite, part, depth,
    ring_format, format_options, metadata, audio_codec, audio_bitrate, audio_offset, audio_keep_longer,
    matrix, range, chroma_loc, require_hw, verbosity;
}

// The strict readers under command_line's, for callers with their own messages: each
// returns false when text is not such a number.
// A whole number: [-]DIGITS, within long long.
bool parse_integer(const std::string &text, long long &out);
// A decimal ([-]DIGITS[.DIGITS] or [-].DIGITS), or a fraction of two (A/B, B not 0).
bool parse_decimal(const std::string &text, double &out);
// WIDTHxHEIGHT of two whole numbers above 0, within int.
bool parse_size(const std::string &text, int &width, int &height);

// "PROGRAM 0.8.0 (libglreader 0.8.0)" on stdout: --version's answer, the program's version
// and the library's it loaded.
void print_version(const std::string &program);

// A byte count as people read it, to three figures: "812 B", "43.2 kB", "12.4 MB", "3.10 GB".
std::string byte_size(unsigned long long bytes);

// The largest frame size the programs accept in each dimension (GL's own limit, which
// may be lower, is checked when the frame is made).
constexpr int max_dimension = 32768;

// Bounds of the programs' times (lengths whose frame counts stay far inside int at 1000
// fps) and of what audio encoders take as a bit rate.
constexpr double max_seconds = 1e6;
constexpr long long min_audio_bit_rate = 1000, max_audio_bit_rate = 10'000'000;

class command_line {
public:
    command_line(int argc, char **argv, program_help help);

    // Moves to the next argument; false when none is left.
    bool next();
    const std::string &option() const { return option_; }
    // Whether the current option is spelled `name`, which the help must document (a
    // program that reads an undocumented option stops with status 70, a bug).
    bool is(const char *name) const;

    // The current option's value: the next argument.
    std::string value();
    // Whether an argument follows the current one.
    bool has_value() const { return at_ + 1 < argc_; }
    // value() as a whole number from min to max.
    long long integer(long long min, long long max);
    // integer() for an int count, from min to max.
    int count(int min, int max) { return static_cast<int>(integer(min, max)); }
    // value() as a decimal or a fraction from min to max (both included).
    double decimal(double min, double max);
    // value() as a time (glr_parse_time, glreader/frame_range.h) in microseconds, from min to
    // max seconds.
    int64_t time_us(double min, double max);
    // value() as a frame rate from 1/1000 to 1000 frames a second.
    frame_rate rate();
    // value() as bits per second: 192000, 192k or 1.5M, from min to max.
    long long bit_rate(long long min, long long max);
    // value() as bytes: 65536, 64k or 16M (k and M are 1024 and 1024 * 1024), from min to max.
    long long bytes(long long min, long long max);
    // value() as WIDTHxHEIGHT, each from 1 to max_dimension.
    void size(int &width, int &height);
    // value() as a glreader format name (rgba, bgra, rgb24, nv12, yuv420p, p010le, yuv444p, yuva...).
    glr_format format();
    // Reads the current option into color if it is one of --matrix bt709|bt601|bt2020,
    // --range tv|pc or --chroma-loc left|center; false when it is none of them.
    bool color_option(glr_color &color);
    // Reads -v or -loglevel LEVEL into v; false when the option is neither.
    bool verbosity_option(verbosity &v);
    // Every argument after the current one; reading ends there.
    std::vector<std::string> rest();
    // As ffmpeg does: an existing file is never overwritten unless asked (-y); FIFOs,
    // devices and URLs are written as they are. Fails with "PATH already exists: -y
    // overwrites it" before any work, where the program's own exclusive create would
    // refuse it only once set up.
    void refuse_existing(const std::string &path, bool overwrite) const;

    [[noreturn]] void fail(const std::string &why) const;
    // Fails on the current option, which the program did not read: a table option it leaves
    // out, with the reason; any other, as unknown. Every option of the export's table is
    // either read or left out with a reason (tests/program_options_test.cpp holds each
    // program that renders to it).
    [[noreturn]] void unknown() const;

private:
    // value() read by parse, from min to max; a failure says what it needs: `like`, with
    // the range's unit.
    double real(bool (*parse)(const std::string &, double &), double min, double max, const char *like,
                const char *unit);
    // value() as a decimal with an optional k, M or G suffix (powers of kilo) naming unit.
    long long scaled(long long min, long long max, double kilo, const char *unit, const char *examples);

    int argc_;
    char **argv_;
    int at_ = 0;
    program_help help_;
    std::string program_, option_;
};

} // namespace sample
