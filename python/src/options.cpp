#include "options.hpp"

#include <nanobind/stl/string.h>

namespace nb = nanobind;

namespace glr_python {

std::optional<std::string> text(const nb::dict &d, const char *key)
{
    if (!d.contains(key) || d[key].is_none())
        return std::nullopt;
    return nb::cast<std::string>(d[key]);
}

const char *c_str(const std::optional<std::string> &s) { return s ? s->c_str() : nullptr; }

encoder_options::encoder_options(const nb::dict &o)
    : output_(text(o, "output")), codec_(text(o, "codec")), pix_fmt_(text(o, "pix_fmt")),
      codec_options_(text(o, "codec_options")), container_(text(o, "container")),
      format_options_(text(o, "format_options")), audio_(text(o, "audio")), audio_codec_(text(o, "audio_codec"))
{
    glr_encoder_params &e = params;
    e.output = c_str(output_);
    e.codec = c_str(codec_);
    e.pix_fmt = c_str(pix_fmt_);
    e.codec_options = c_str(codec_options_);
    e.container = c_str(container_);
    e.format_options = c_str(format_options_);
    e.output_flags = get<bool>(o, "overwrite", false) ? 0 : GLR_OUTPUT_NO_OVERWRITE;
    e.audio.input = c_str(audio_);
    e.audio.codec = c_str(audio_codec_);
    e.audio.bit_rate = get<long long>(o, "audio_bitrate", 0);
    e.audio.sample_rate = get<int>(o, "audio_rate", 0);
    e.audio.channels = get<int>(o, "audio_channels", 0);
}

} // namespace glr_python
