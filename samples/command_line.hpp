// The samples' option reading: options in order, each with its value; a usage error
// prints "PROGRAM: why" to stderr and exits with status 2; -h and --help print the usage
// text to stdout and exit with 0.
#pragma once

#include "glreader/common.h"

#include <string>
#include <vector>

namespace sample {

class command_line {
public:
    command_line(int argc, char **argv, std::string usage_text);

    // Moves to the next argument; false when none is left.
    bool next();
    const std::string &option() const { return option_; }
    bool is(const char *name) const { return option_ == name; }

    // The current option's value: the next argument.
    std::string value();
    // value() as a number above 0.
    double positive();
    // value() as WIDTHxHEIGHT.
    void size(int &width, int &height);
    // value() as a glreader format name (rgba, bgra, rgb24, nv12, yuv420p, p010le, yuv444p).
    glr_format format();
    // Reads the current option into color if it is one of --matrix bt709|bt601|bt2020,
    // --range tv|pc or --chroma-loc left|center; false when it is none of them.
    bool color_option(glr_color &color);
    // Every argument after the current one; reading ends there.
    std::vector<std::string> rest();

    [[noreturn]] void fail(const std::string &why) const;

private:
    int argc_;
    char **argv_;
    int at_ = 0;
    std::string program_, usage_, option_;
};

} // namespace sample
