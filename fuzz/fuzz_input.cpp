#include "fuzz_input.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace glr_fuzz {

const std::string &scratch_folder()
{
    static const std::string folder = [] {
        char pattern[] = "/tmp/glreader-fuzz-XXXXXX";
        if (!mkdtemp(pattern))
            std::abort();
        return std::string(pattern);
    }();
    return folder;
}

void write_file(const std::string &path, const uint8_t *data, size_t size)
{
    FILE *f = std::fopen(path.c_str(), "wb");
    if (!f || (size && std::fwrite(data, 1, size, f) != size) || std::fclose(f) != 0)
        std::abort();
}

glr_log *quiet_log()
{
    static glr_log *log = [] {
        glr_log_params params{};
        params.callback = [](void *, glr_log_level, const char *) {};
        params.level = GLR_LOG_ERROR;
        return glr_log_create(&params);
    }();
    return log;
}

} // namespace glr_fuzz
