// Shadertoy's JSON, as --shader FILE.json and the filter's shader= read it: whatever the
// bytes, glr_project_load returns a project or NULL with a message, and never crashes,
// leaks or hangs. A project it returns can be written out as a folder and read back.
#include "fuzz_input.hpp"

#include "glreader/shadertoy_project.h"

#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const std::string file = glr_fuzz::scratch_folder() + "/shader.json";
    glr_fuzz::write_file(file, data, size);
    glr_project *project = glr_project_load(glr_fuzz::quiet_log(), file.c_str());
    if (!project) {
        if (!*glr_last_error())
            std::abort(); // a refusal always says why
        return 0;
    }
    glr_scene_params params{};
    glr_project_scene_params(project, &params);
    if (!params.source)
        std::abort(); // a JSON that loads has an Image pass
    glr_project_destroy(&project);
    return 0;
}
