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
    std::fprintf(stderr, "%s: %s\n%s", program_.c_str(), why.c_str(), usage_.c_str());
    std::exit(2);
}

} // namespace sample
