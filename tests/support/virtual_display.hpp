// A virtual X display of the test's own: Xvfb on a display number it picks and names on
// its standard output (-displayfd), so that tests running at once never share one;
// stopped and reaped at the end. (xvfb-run, used before, could fail its own clean-up and
// replace the status of the program it ran with 5.)
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace glr_test {

class virtual_display {
public:
    virtual_display();
    ~virtual_display();
    virtual_display(const virtual_display &) = delete;
    virtual_display &operator=(const virtual_display &) = delete;

    // ":N", for DISPLAY.
    const std::string &name() const { return name_; }
    std::vector<std::string> environment() const { return {"DISPLAY=" + name_}; }

private:
    std::string number() const;

    static inline int serial_ = 0;
    std::string log_, name_;
    pid_t pid_ = -1;
};

} // namespace glr_test
