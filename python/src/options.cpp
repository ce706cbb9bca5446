#include "options.hpp"

#include "errors.hpp"
#include "messages.hpp"

#include "glreader/av/export_options.h"

#include <nanobind/stl/string.h>

#include <sys/stat.h>

#include <cerrno>

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
    // Said in Python's words before anything starts; the library's exclusive create still
    // guards against a file that appears later.
    struct stat st;
    if (output_ && (e.output_flags & GLR_OUTPUT_NO_OVERWRITE) && stat(output_->c_str(), &st) == 0 &&
        S_ISREG(st.st_mode))
        throw failure{-EEXIST, *output_ + " already exists: overwrite=True replaces it"};
    e.audio.input = c_str(audio_);
    e.audio.codec = c_str(audio_codec_);
    e.audio.bit_rate = get<long long>(o, "audio_bitrate", 0);
    e.audio.sample_rate = get<int>(o, "audio_rate", 0);
    e.audio.channels = get<int>(o, "audio_channels", 0);
    e.width = get<int>(o, "width", 0);
    e.height = get<int>(o, "height", 0);
    e.fps_num = get<int>(o, "fps_num", 30);
    e.fps_den = get<int>(o, "fps_den", 1);
    e.alpha = get<int>(o, "alpha", 0);
}

nb::list export_options()
{
    static const char *const kinds[] = {"",      "text", "switch", "integer", "number", "time",
                                        "rate",  "size", "bits",   "bytes",   "choice", "list"};
    int count = 0;
    const glr_export_option *table = glr_export_options(&count);
    nb::list out;
    for (int i = 0; i < count; i++) {
        const glr_export_option &o = table[i];
        nb::dict d;
        d["name"] = o.name;
        d["flags"] = o.flags;
        d["value"] = o.value;
        d["kind"] = kinds[o.kind];
        d["min"] = o.min;
        d["max"] = o.max;
        d["choices"] = o.choices ? nb::cast(std::string(o.choices)) : nb::none();
        d["default"] = o.fallback;
        d["help"] = o.help;
        d["section"] = o.section;
        out.append(d);
    }
    return out;
}

void check_export_option(const std::string &key, const std::string &value)
{
    glr_export_settings *settings = glr_export_settings_create();
    int rc = settings ? glr_export_settings_set(settings, key.c_str(), value.c_str()) : -ENOMEM;
    std::string why = rc < 0 ? glr_last_error() : "";
    glr_export_settings_destroy(&settings);
    if (rc < 0)
        throw failure{-EINVAL, why};
}

nb::dict check_output(const nb::dict &options)
{
    encoder_options encoder(options);
    glr_encoder_plan plan{};
    int rc;
    {
        ffmpeg_messages route; // the trial open's lines go to logging, as a render's do
        rc = glr_encoder_check(messages_log(), &encoder.params, &plan);
    }
    flush_messages();
    if (rc < 0)
        fail_with_last_error();
    nb::dict d;
    d["container"] = plan.container;
    d["video_codec"] = plan.video_codec;
    d["video_encoder"] = plan.video_encoder;
    d["pix_fmt"] = plan.pix_fmt;
    d["audio_codec"] = plan.audio_codec;
    d["audio_encoder"] = plan.audio_encoder;
    return d;
}

} // namespace glr_python
