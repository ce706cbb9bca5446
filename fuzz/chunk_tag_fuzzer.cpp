// The chunk tag glr_join reads from a user's file (GLREADER_CHUNK's value): accepted only
// as a range that fits (first >= 0, frames and the rate >= 1, first + frames within int),
// with a colour of five short names or none, and then exactly what writing that range
// back gives, read again.
#include "av/chunk_tag.hpp"
#include "fuzz_input.hpp"

#include <climits>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    std::string text = glr_fuzz::text(data, size);
    glr::chunk_range r;
    if (!glr::read_chunk_tag(text.c_str(), r))
        return 0;
    if (r.first < 0 || r.frames < 1 || r.fps_num < 1 || r.fps_den < 1 || r.first > INT_MAX - r.frames ||
        r.color.size() > 5 * 33)
        std::abort();
    glr::chunk_range again;
    std::string written = glr::chunk_tag_value(r);
    if (!glr::read_chunk_tag(written.c_str(), again) || again.first != r.first || again.frames != r.frames ||
        again.fps_num != r.fps_num || again.fps_den != r.fps_den || again.color != r.color)
        std::abort();
    return 0;
}
