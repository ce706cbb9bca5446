// GLR_EGL_DEVICE's value, read from the environment: accepted only as "N" or "cuda:N" with
// N in 0..1023, written in decimal digits alone, and then naming exactly that one device.
#include "context/device_choice.hpp"
#include "fuzz_input.hpp"

#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    std::string text = glr_fuzz::text(data, size);
    glr::device_choice choice;
    if (!glr::read_device_choice(text, choice))
        return 0;
    bool cuda = choice.cuda >= 0;
    int n = cuda ? choice.cuda : choice.index;
    std::string digits = cuda ? text.substr(5) : text;
    if ((cuda ? choice.index : choice.cuda) != -1 || n > 1023 || choice.text != text ||
        digits.find_first_not_of("0123456789") != std::string::npos || std::atoi(digits.c_str()) != n)
        std::abort();
    return 0;
}
