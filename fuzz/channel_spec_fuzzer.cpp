// A channel spec, as --channelN and the filter's channelN= give one: the first byte picks
// the pass and the channel, the rest is the spec. glr_project_bind binds it or refuses it
// with a message, and a binding it makes is one of the kinds the spec syntax names.
#include "fuzz_input.hpp"

#include "glreader/shadertoy_project.h"

#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static glr_project *project = glr_project_load(glr_fuzz::quiet_log(), nullptr);
    if (size < 1)
        return 0;
    int pass = GLR_SCENE_IMAGE_PASS - (data[0] >> 4) % 2; // Image, or Buffer D (which it lacks)
    int channel = data[0] % (GLR_SCENE_CHANNELS + 1);    // 4: no such channel
    std::string spec = glr_fuzz::text(data + 1, size - 1);
    if (glr_project_bind(project, pass, channel, spec.c_str(), "--channel") < 0) {
        if (!*glr_last_error())
            std::abort();
        return 0;
    }
    const glr_channel_binding *b = glr_project_binding(project, pass, channel);
    if (!b || b->channel.kind < GLR_CHANNEL_TEXTURE || b->channel.kind > GLR_CHANNEL_KEYBOARD ||
        (b->media != GLR_MEDIA_NONE && b->media != GLR_MEDIA_SOUND && !b->path))
        std::abort();
    return 0;
}
