// A project folder's `channels` file: whatever its bytes, glr_project_load returns a
// project or NULL with a message naming the file, and never crashes, leaks or hangs.
#include "fuzz_input.hpp"

#include "glreader/shadertoy_project.h"

#include <sys/stat.h>

#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const std::string project = [] {
        std::string dir = glr_fuzz::scratch_folder() + "/project";
        mkdir(dir.c_str(), 0755);
        const uint8_t pass[] = "void mainImage(out vec4 c, in vec2 p) { c = vec4(1.0); }\n";
        for (const char *name : {"image", "common", "bufferA", "bufferB", "bufferC", "bufferD"})
            glr_fuzz::write_file(dir + "/" + name + ".glsl", pass, sizeof pass - 1);
        return dir;
    }();
    glr_fuzz::write_file(project + "/channels", data, size);
    glr_project *loaded = glr_project_load(glr_fuzz::quiet_log(), project.c_str());
    if (!loaded && std::string(glr_last_error()).find(project) == std::string::npos)
        std::abort(); // a refusal names the project's file
    glr_project_destroy(&loaded);
    return 0;
}
