// Reading the options the pure-Python side fills in (a dict of plain values): the
// encoder's, which glreader.render and glreader.Recorder share, with the strings they point
// to kept alive beside them.
#pragma once

#include "glreader/av/encoder.h"

#include <nanobind/nanobind.h>

#include <optional>
#include <string>

namespace glr_python {

// d[key] as T, or `otherwise` when the key is absent or None.
template <typename T>
T get(const nanobind::dict &d, const char *key, T otherwise)
{
    if (!d.contains(key) || d[key].is_none())
        return otherwise;
    return nanobind::cast<T>(d[key]);
}

std::optional<std::string> text(const nanobind::dict &d, const char *key);
const char *c_str(const std::optional<std::string> &s);

// width, height, fps_num, fps_den and alpha of the frames; output, codec, pix_fmt,
// codec_options, container, format_options, overwrite, audio, audio_codec, audio_bitrate;
// and for PCM a caller submits, audio_rate and audio_channels.
// An output file that exists without overwrite raises FileExistsError at once.
class encoder_options {
public:
    explicit encoder_options(const nanobind::dict &o);
    encoder_options(const encoder_options &) = delete;
    encoder_options &operator=(const encoder_options &) = delete;
    glr_encoder_params params{};

private:
    std::optional<std::string> output_, codec_, pix_fmt_, codec_options_, container_, format_options_, audio_,
        audio_codec_;
};

// The export's option table (glreader/av/export_options.h), one dict an option: name, flags
// (the command line's spellings, ", " between), value, kind, min, max, choices, default,
// help, section.
nanobind::list export_options();

// Whether the option table takes key (a name, a spelling or an encoder's option) with this
// value; a ValueError with the table's words when not.
void check_export_option(const std::string &key, const std::string &value);

// What glr_encoder_check chooses for the encoder options, writing nothing: container, video_codec,
// video_encoder, pix_fmt, audio_codec, audio_encoder; a refusal raises, with its words.
nanobind::dict check_output(const nanobind::dict &options);

} // namespace glr_python
