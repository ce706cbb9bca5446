// glreader-export join CHUNK... -o OUTPUT: the chunks of a render made in pieces
// (glreader-export --frames A-B, on one machine or many) joined by stream copy with
// glr_join, the sound encoded once over the whole.
#include "export_join.hpp"

#include "command_line.hpp"
#include "program_log.hpp"

#include "glreader/av/join.h"

#include <cstdio>
#include <string>
#include <vector>

namespace {

sample::program_help help()
{
    using sample::option_doc;
    return {"glreader-export join",
            "CHUNK... -o OUTPUT [options]",
            "Joins the chunks of a render made in pieces (glreader-export --frames A-B) into one output by stream "
            "copy: no frame is encoded again. The chunks may come in any order; they must be glreader's, made "
            "with the same settings, and cover one span of frames with no gap or overlap, or nothing is written. "
            "The sound, --audio's or the project's Sound pass that the chunks kept, is encoded once over the whole, "
            "so no join clicks or drifts.",
            {{"Output",
              {{"-o", "OUTPUT", "where to write: a file, pipe:N, a URL", "required"},
               {"-f", "FORMAT", "the container (muxer): mp4, matroska, mov, nut", "from OUTPUT's name"},
               sample::doc::format_options,
               sample::doc::metadata,
               sample::doc::overwrite,
               sample::doc::part}},
             {"Sound",
              {{"--audio", "FILE", "a sound file or URL, encoded once over the joined length",
                "the chunks' Sound pass, else none"},
               sample::doc::audio_codec,
               sample::doc::audio_bitrate,
               sample::doc::audio_offset,
               sample::doc::audio_keep_longer}},
             {"Messages", {sample::doc::verbosity}}},
            {"glreader-export join part-*.mkv --audio song.flac -o film.mp4 --format-options movflags=+faststart"}};
}

} // namespace

int export_join(int argc, char **argv)
{
    sample::command_line args(argc, argv, help());
    std::vector<std::string> chunks, metadata;
    std::string output, container, format_options, audio_input, audio_codec;
    glr_audio_params audio{};
    bool overwrite = false, part = false;
    sample::verbosity verbosity = sample::verbosity::warning;
    while (args.next()) {
        if (!args.option().empty() && args.option()[0] != '-') {
            chunks.push_back(args.option());
        } else if (args.is("-o")) {
            output = args.value();
        } else if (args.is("-f")) {
            container = args.value();
        } else if (args.is("--format-options")) {
            format_options = args.value();
        } else if (args.is("-metadata")) {
            metadata.push_back(args.value());
        } else if (args.is("-y")) {
            overwrite = true;
        } else if (args.is("--part")) {
            part = true;
        } else if (args.is("--audio")) {
            audio_input = args.value();
        } else if (args.is("--audio-codec") || args.is("-c:a")) {
            audio_codec = args.value();
        } else if (args.is("--audio-bitrate") || args.is("-b:a")) {
            audio.bit_rate = args.bit_rate(sample::min_audio_bit_rate, sample::max_audio_bit_rate);
        } else if (args.is("--audio-offset")) {
            audio.offset = args.decimal(-sample::max_seconds, sample::max_seconds);
        } else if (args.is("--audio-keep-longer")) {
            audio.keep_longer = 1;
        } else if (!args.verbosity_option(verbosity)) {
            args.fail("unknown option " + args.option());
        }
    }
    if (chunks.empty())
        args.fail("no chunks given: glreader-export join CHUNK... -o OUTPUT");
    if (output.empty())
        args.fail("no output given: -o OUTPUT");
    if (audio_input.empty() && (audio.offset || audio.keep_longer))
        args.fail("--audio-offset and --audio-keep-longer shape the sound of --audio FILE, which is missing");
    args.refuse_existing(output, overwrite);

    sample::program_log log(verbosity);
    std::vector<const char *> chunk_names, tags;
    for (const std::string &c : chunks)
        chunk_names.push_back(c.c_str());
    for (const std::string &m : metadata)
        tags.push_back(m.c_str());
    tags.push_back(nullptr);
    glr_join_params p{};
    p.chunks = chunk_names.data();
    p.chunk_count = static_cast<int>(chunk_names.size());
    p.output = output.c_str();
    p.container = container.empty() ? nullptr : container.c_str();
    p.format_options = format_options.empty() ? nullptr : format_options.c_str();
    p.audio = audio;
    p.audio.input = audio_input.empty() ? nullptr : audio_input.c_str();
    p.audio.codec = audio_codec.empty() ? nullptr : audio_codec.c_str();
    p.metadata = metadata.empty() ? nullptr : tags.data();
    p.output_flags = (overwrite ? 0 : GLR_OUTPUT_NO_OVERWRITE) | (part ? GLR_OUTPUT_PART : 0);
    glr_join_stats s{};
    if (glr_join(log.get(), &p, &s) < 0) {
        std::fprintf(stderr, "glreader-export join: %s\n", glr_last_error());
        return 1;
    }
    if (verbosity >= sample::verbosity::warning)
        std::fprintf(stderr, "glreader-export join: %d chunks, frames %d-%d (%d frames at %d/%d fps), into %s: %s in "
                             "%.2f s%s\n",
                     s.chunks, s.first_frame, s.first_frame + s.frames, s.frames, s.fps_num, s.fps_den, output.c_str(),
                     sample::byte_size(s.bytes_written).c_str(), s.seconds,
                     s.audio_samples_encoded ? ", the sound encoded once" : "");
    return 0;
}
