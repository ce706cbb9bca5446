#include "virtual_display.hpp"

#include "gl_test.hpp"
#include "process.hpp"

#include <signal.h>

#include <cstdio>

namespace glr_test {

virtual_display::virtual_display() : log_(scratch_path("xvfb_" + std::to_string(serial_++) + ".log"))
{
    pid_ = spawn("Xvfb", {"-displayfd", "1", "-screen", "0", "320x240x24", "-nolisten", "tcp"}, log_);
    wait_until([&] { return !number().empty(); }, "Xvfb naming its display", [&] { return running(pid_); });
    name_ = ":" + number();
}

virtual_display::~virtual_display()
{
    kill(pid_, SIGTERM);
    wait_exit(pid_);
    std::remove(log_.c_str());
}

// The display number Xvfb wrote, a whole line of digits ("" until it did).
std::string virtual_display::number() const
{
    std::string log = slurp(log_), line;
    for (size_t at = 0, end; (end = log.find('\n', at)) != std::string::npos; at = end + 1)
        if ((line = log.substr(at, end - at)).find_first_not_of("0123456789") == std::string::npos && !line.empty())
            return line;
    return "";
}

} // namespace glr_test
