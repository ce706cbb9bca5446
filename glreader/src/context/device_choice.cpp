#include "context/device_choice.hpp"

#include <cctype>
#include <cstdlib>

namespace glr {

bool read_device_choice(const std::string &text, device_choice &choice)
{
    bool cuda = text.rfind("cuda:", 0) == 0;
    std::string digits = cuda ? text.substr(5) : text;
    if (digits.empty() || digits.size() > 4)
        return false;
    for (char c : digits)
        if (!std::isdigit(static_cast<unsigned char>(c)))
            return false;
    int n = std::atoi(digits.c_str());
    if (n > 1023)
        return false;
    choice = device_choice{};
    (cuda ? choice.cuda : choice.index) = n;
    choice.text = text;
    return true;
}

} // namespace glr
