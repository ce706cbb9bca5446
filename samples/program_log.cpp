#include "program_log.hpp"

#include <cstdio>
#include <new>

namespace sample {

program_log make_program_log()
{
    glr_log_params params{};
    params.callback = [](void *, glr_log_level level, const char *message) {
        if (level != GLR_LOG_ERROR)
            std::fprintf(stderr, "glreader: %s\n", message);
    };
    program_log log(glr_log_create(&params));
    if (!log)
        throw std::bad_alloc();
    return log;
}

} // namespace sample
