#include "command_line.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace sample {

namespace {

// "1280x720"; false unless both numbers are positive.
bool parse_size(const std::string &text, int &width, int &height)
{
    return std::sscanf(text.c_str(), "%dx%d", &width, &height) == 2 && width > 0 && height > 0;
}

} // namespace

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

double command_line::positive()
{
    std::string v = value();
    char *end = nullptr;
    double d = std::strtod(v.c_str(), &end);
    if (v.empty() || *end || !(d > 0))
        fail(option_ + " needs a positive number, not '" + v + "'");
    return d;
}

void command_line::size(int &width, int &height)
{
    std::string v = value();
    if (!parse_size(v, width, height))
        fail("size must look like 1280x720, not '" + v + "'");
}

std::vector<std::string> command_line::rest()
{
    std::vector<std::string> out(argv_ + at_ + 1, argv_ + argc_);
    at_ = argc_;
    return out;
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
