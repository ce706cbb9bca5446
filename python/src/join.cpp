// glreader.join: the chunks of a render made in pieces (glreader.render(..., chunk=True)),
// joined by glr_join with the GIL released; the library's messages go to logging.
#include "join.hpp"

#include "errors.hpp"
#include "messages.hpp"
#include "options.hpp"

#include "glreader/av/join.h"

#include <nanobind/stl/string.h>

#include <optional>
#include <string>
#include <vector>

namespace nb = nanobind;

namespace glr_python {

nb::dict join_chunks(const nb::dict &options)
{
    std::vector<std::string> chunks;
    for (nb::handle chunk : get<nb::list>(options, "chunks", nb::list()))
        chunks.push_back(nb::cast<std::string>(chunk));
    std::vector<const char *> names;
    for (const std::string &c : chunks)
        names.push_back(c.c_str());
    encoder_options encoder(options);
    const glr_encoder_params &e = encoder.params;
    glr_join_params p{};
    p.chunks = names.data();
    p.chunk_count = static_cast<int>(names.size());
    p.output = e.output;
    p.container = e.container;
    p.format_options = e.format_options;
    p.audio = e.audio;
    p.audio.offset = get<double>(options, "audio_offset", 0);
    p.audio.keep_longer = get<bool>(options, "audio_keep_longer", false);
    p.output_flags = e.output_flags | (get<bool>(options, "part", false) ? GLR_OUTPUT_PART : 0);
    std::vector<std::string> tags;
    for (nb::handle tag : get<nb::list>(options, "metadata", nb::list()))
        tags.push_back(nb::cast<std::string>(tag));
    std::vector<const char *> metadata;
    for (const std::string &t : tags)
        metadata.push_back(t.c_str());
    metadata.push_back(nullptr);
    p.metadata = metadata.data();
    glr_join_stats s{};
    int rc;
    {
        std::optional<ffmpeg_messages> route(std::in_place);
        nb::gil_scoped_release unlocked;
        rc = glr_join(messages_log(), &p, &s);
    }
    flush_messages();
    if (rc < 0)
        fail_with_last_error();
    nb::dict d;
    d["chunks"] = s.chunks;
    d["first_frame"] = s.first_frame;
    d["frames"] = s.frames;
    d["fps"] = nb::make_tuple(s.fps_num, s.fps_den);
    d["packets"] = s.packets;
    d["bytes_written"] = s.bytes_written;
    d["audio_samples_encoded"] = s.audio_samples_encoded;
    d["seconds"] = s.seconds;
    return d;
}

} // namespace glr_python
