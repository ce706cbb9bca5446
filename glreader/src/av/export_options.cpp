// The export's option table and the settings made from it (glreader/av/export_options.h).
#include "glreader/av/export_options.h"

#include "av/edit_distance.hpp"
#include "av/hw_device_spec.hpp"
#include "error.hpp"
#include "guarded.hpp"
#include "glreader/frame_range.h"
#include "glreader/player.h"
#include "glreader/shadertoy_project.h"

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavutil/opt.h>
}

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace {

using glr::fail;

constexpr double max_seconds = 1e6;      // lengths whose frame counts stay far inside int
constexpr double max_dimension = 32768;  // GL's own limit, maybe lower, is checked later
constexpr char render[] = "What to render", encoding[] = "Encoding", sound[] = "Sound", output[] = "Output",
               colour[] = "Colour and readback";

#define CHANNEL(n)                                                                                               \
    {"channel" #n, "--channel" #n, "SPEC", GLR_EXPORT_OPTION_TEXT, 0, 0, nullptr, "the project's own, or none",  \
     "the Image pass's iChannelN: image:FILE, video:FILE, sound[:FILE], cubemap:PATTERN ({} becomes px nx py ny " \
     "pz nz; {_} Shadertoy's '' _1 .. _5), buffer:A..D or keyboard, then ,filter=nearest|linear|mipmap "        \
     ",wrap=clamp|repeat ,vflip=on|off ,loop=on|off. Shadertoy's defaults: image mipmap,repeat,vflip=on; video " \
     "linear,clamp,vflip=on,loop=on; sound linear,clamp,vflip=off; cubemap mipmap,clamp,vflip=off; buffer "       \
     "linear,clamp; keyboard nearest,clamp",                                                                     \
     render}

const glr_export_option table[] = {
    {"shader", "--shader", "FILE|DIR|JSON", GLR_EXPORT_OPTION_TEXT, 0, 0, nullptr, "the built-in scene",
     "a Shadertoy shader: a .frag file with mainImage, a project directory (image.glsl, common.glsl, "
     "bufferA..D.glsl and a 'channels' file of 'PASS.channelN SPEC' lines), or Shadertoy's JSON of a shader "
     "(FILE.json; FILE.json#ID picks one of several)",
     render},
    {"media", "--media", "DIR", GLR_EXPORT_OPTION_TEXT, 0, 0, nullptr, "beside the JSON",
     "where a Shadertoy JSON's media (its textures, cube maps, videos, music: /media/a/NAME) are, as DIR/NAME or "
     "DIR/media/a/NAME",
     render},
    CHANNEL(0),
    CHANNEL(1),
    CHANNEL(2),
    CHANNEL(3),
    {"size", "-s", "WxH", GLR_EXPORT_OPTION_SIZE, 1, max_dimension, nullptr, "1280x720",
     "frame size, each side from 1 to 32768", render},
    // Beyond 1/1000 and 1000 a second, containers' time bases (MP4's and Matroska's
    // millisecond ticks among them) cannot tell the frames apart.
    {"fps", "-r", "FPS", GLR_EXPORT_OPTION_RATE, 0.001, 1000, nullptr, "30",
     "frame rate from 1/1000 to 1000: 30, 29.97 (= 30000/1001), 30000/1001, ntsc, pal, film", render},
    {"duration", "-t", "TIME", GLR_EXPORT_OPTION_TIME, 0.001, max_seconds, nullptr, "5",
     "length: seconds (2.5, 500ms) or [HH:]MM:SS[.m]; the frames that start within it, as ffmpeg's sources count",
     render},
    {"frames", "-n, -frames:v", "FRAMES", GLR_EXPORT_OPTION_INTEGER, 1, INT_MAX, nullptr, "from -t",
     "length in frames, instead of -t", render},
    {"end", "-to", "TIME", GLR_EXPORT_OPTION_TIME, 0.001, max_seconds, nullptr, "from -t",
     "stop at this time, instead of -t: the frames before the first at or after it", render},
    {"start", "-ss", "TIME", GLR_EXPORT_OPTION_TIME, 0, max_seconds, nullptr, "0",
     "start at this time: the first frame at or after it, rendered exactly as a run from 0 renders it", render},
    {"first_frame", "--start-frame", "N", GLR_EXPORT_OPTION_INTEGER, 0, INT_MAX - 1, nullptr, "0",
     "start at frame N (as -ss, in frames)", render},
    {"mouse", "--mouse", "X,Y[,CX,CY]", GLR_EXPORT_OPTION_TEXT, 0, 0, nullptr, "not pressed",
     "iMouse: held down at X,Y, pixels from the bottom left", render},
    {"date", "--date", "YYYY-MM-DD[THH:MM:SS]", GLR_EXPORT_OPTION_TEXT, 0, 0, nullptr,
     "the render's start, local time", "iDate at the first frame, UTC, so that reruns match", render},
    {"max_shader_size", "--max-shader-size", "BYTES", GLR_EXPORT_OPTION_BYTES, 1, 1 << 30, nullptr, "4M",
     "refuse shader files larger than this: 16M", render},
    {"compile_timeout", "--compile-timeout", "SECONDS", GLR_EXPORT_OPTION_NUMBER, 0, max_seconds, nullptr, "120",
     "give up on shaders that compile (and a first frame that renders) for longer; 0: never", render},
    {"require_hw", "--require-hw", "", GLR_EXPORT_OPTION_SWITCH, 0, 0, nullptr, "off",
     "refuse to render on a software rasterizer (llvmpipe) instead of a GPU", render},

    {"codec", "-c, -c:v", "CODEC", GLR_EXPORT_OPTION_TEXT, 0, 0, nullptr,
     "the container's own: H.264 for .mp4 and .mkv, VP9 for .webm, PNG for .png, GIF for .gif",
     "video encoder (libx264) or codec (h264, hevc, av1, vp9, prores: this FFmpeg's best encoder of it); its "
     "options are options too (-preset, -crf, -b:v, -g, -tune: ffmpeg -h encoder=NAME lists them)",
     encoding},
    {"pix_fmt", "--pix-fmt, -pix_fmt", "F", GLR_EXPORT_OPTION_TEXT, 0, 0, nullptr,
     "the encoder's: yuv420p where it takes it",
     "the pixel format to encode: yuv420p, yuv444p, nv12, p010le, rgb24...", encoding},
    {"codec_options", "--codec-options", "K=V:K=V", GLR_EXPORT_OPTION_TEXT, 0, 0, nullptr, "none",
     "encoder options in one value, as the encoder's own options one by one", encoding},
    {"alpha", "--alpha", "", GLR_EXPORT_OPTION_SWITCH, 0, 0, nullptr, "off: alpha 1, as on Shadertoy",
     "keep the shader's alpha as transparency (straight): the container's codec with alpha (ProRes 4444 for .mov, "
     "VP9 for .webm, FFV1 for .mkv, PNG) and its format with alpha",
     encoding},
    {"premultiply", "--premultiply", "", GLR_EXPORT_OPTION_SWITCH, 0, 0, nullptr, "off",
     "--alpha with the colour multiplied by the alpha (premultiplied)", encoding},
    {"hw_frames", "--hw-frames", "auto|on|off", GLR_EXPORT_OPTION_CHOICE, 0, 0, "auto|on|off",
     "auto: for an encoder on the GPU",
     "convert on the GPU straight into the encoder's hardware frames (CUDA, Vulkan), nothing read back: auto for an "
     "encoder that takes them, on for any (an encoder on the CPU gets each copied to memory), off to read back",
     encoding},
    {"hw_device", "-init_hw_device", "TYPE[:DEVICE]", GLR_EXPORT_OPTION_TEXT, 0, 0, nullptr,
     "the encoder's kind, the GL context's device",
     "the hardware frames' kind and device, as ffmpeg spells them: vulkan, vulkan:0, vulkan:NAME, cuda, cuda:0", encoding},

    {"audio", "--audio", "FILE", GLR_EXPORT_OPTION_TEXT, 0, 0, nullptr,
     "none: the project's Sound pass (mainSound), rendered on the GPU, when it has one",
     "a sound file or URL to mux, in step with the frames (a sound channel plays it too)", sound},
    {"audio_rate", "--audio-rate, -ar", "HZ", GLR_EXPORT_OPTION_INTEGER, GLR_SOUND_RATE_MIN, GLR_SOUND_RATE_MAX, nullptr,
     "44100, Shadertoy's", "the Sound pass's sample rate (iSampleRate), 8000 to 192000", sound},
    {"no_audio", "--no-audio, -an", "", GLR_EXPORT_OPTION_SWITCH, 0, 0, nullptr, "off",
     "no sound track, not even the Sound pass's", sound},
    {"audio_codec", "--audio-codec, -c:a", "CODEC", GLR_EXPORT_OPTION_TEXT, 0, 0, nullptr,
     "the container's own: AAC for .mp4, Vorbis for .mkv, Opus for .webm; a sound already in it is copied",
     "the sound's encoder or codec (aac, libopus, mp3, flac), or copy to keep --audio's packets as they are", sound},
    {"audio_bitrate", "--audio-bitrate, -b:a", "RATE", GLR_EXPORT_OPTION_BITS, 1000, 10000000, nullptr,
     "the encoder's", "its bit rate: 192k", sound},
    {"audio_offset", "--audio-offset", "SECONDS", GLR_EXPORT_OPTION_NUMBER, -max_seconds, max_seconds, nullptr, "0",
     "start the sound this much after the video; below 0 cuts its start", sound},
    {"audio_keep_longer", "--audio-keep-longer", "", GLR_EXPORT_OPTION_SWITCH, 0, 0, nullptr,
     "off: it ends with the video", "keep a sound longer than the video whole", sound},

    {"output", "-o", "OUTPUT", GLR_EXPORT_OPTION_TEXT, 0, 0, nullptr, "glreader-export.mp4",
     "a file, - (standard output), pipe:N, a URL (udp://, tcp://, srt://...) or an image sequence "
     "(frames/%05d.png)",
     output},
    {"container", "-f", "FORMAT", GLR_EXPORT_OPTION_TEXT, 0, 0, nullptr, "from the output's name",
     "the container, when the output's name does not say it (mp4, matroska, mpegts, nut, null: encode and write "
     "nothing)",
     output},
    {"format_options", "--format-options", "K=V:K=V", GLR_EXPORT_OPTION_TEXT, 0, 0, nullptr, "none",
     "muxer options: movflags=+faststart, hls_time=2", output},
    {"metadata", "-metadata", "KEY=VALUE", GLR_EXPORT_OPTION_LIST, 0, 0, nullptr, "none",
     "a tag of the file: title=..., artist=..., album, comment, date; repeat it", output},
    {"overwrite", "-y", "", GLR_EXPORT_OPTION_SWITCH, 0, 0, nullptr, "off",
     "overwrite an existing output file, which is refused otherwise", output},
    {"part", "--part", "", GLR_EXPORT_OPTION_SWITCH, 0, 0, nullptr, "off",
     "write OUTPUT.part and rename it to OUTPUT once the whole output is written (a file only)", output},
    {"chunk", "--chunk", "", GLR_EXPORT_OPTION_SWITCH, 0, 0, nullptr, "off",
     "the output is one chunk of a longer render, to join with the others by stream copy: timestamps on the whole "
     "timeline, joinable encoder settings, the Sound pass kept as it rendered (the join encodes the sound once), into "
     ".mkv or .nut",
     output},

    {"convert", "--convert", "gpu|cpu", GLR_EXPORT_OPTION_CHOICE, 0, 0, "gpu|cpu", "gpu",
     "convert to the encoder's YUV on the GPU before readback, or with libswscale after", colour},
    {"ring_format", "--ring-format", "F", GLR_EXPORT_OPTION_CHOICE, 0, 0,
     "rgba|bgra|rgb24|nv12|yuv420p|p010le|yuv444p|yuva420p|yuva444p|yuva444p10le",
     "chosen from the encoder and --convert",
     "read frames back as rgba, bgra or rgb24, or as nv12, yuv420p, p010le, yuv444p, yuva420p, yuva444p or "
     "yuva444p10le converted on the GPU",
     colour},
    {"matrix", "--matrix", "M", GLR_EXPORT_OPTION_CHOICE, 0, 0, "bt709|bt601|bt2020", "bt709",
     "YUV conversion matrix and tags: bt709, bt601 or bt2020", colour},
    {"color_range", "--range", "R", GLR_EXPORT_OPTION_CHOICE, 0, 0, "tv|pc", "tv",
     "YUV range: tv (limited, 16-235) or pc (full)", colour},
    {"chroma_loc", "--chroma-loc", "L", GLR_EXPORT_OPTION_CHOICE, 0, 0, "left|center", "left",
     "4:2:0 chroma siting: left (H.264's) or center", colour},
    {"depth", "--depth", "N", GLR_EXPORT_OPTION_INTEGER, 1, 64, nullptr, "3",
     "ring slots: frames being read back at once", colour},
    {"queue", "--queue", "N", GLR_EXPORT_OPTION_INTEGER, 1, 64, nullptr, "2",
     "frames waiting for the encoder thread, 1 to 64", colour},
};
#undef CHANNEL

// The spellings of a flags field.
std::vector<std::string> spellings(const char *flags)
{
    std::vector<std::string> out;
    for (const char *p = flags; *p;) {
        size_t n = std::strcspn(p, ",");
        out.emplace_back(p, n);
        p += n;
        while (*p == ',' || *p == ' ')
            p++;
    }
    return out;
}

const glr_export_option *find(const char *key)
{
    for (const glr_export_option &o : table) {
        if (std::strcmp(o.name, key) == 0)
            return &o;
        for (const std::string &s : spellings(o.flags))
            if (s == key)
                return &o;
    }
    return nullptr;
}

// The known key nearest to an unknown one, spelled as it was: a command-line spelling for
// "-x", a name for "x"; "" when none is near.
std::string nearest(const std::string &key)
{
    bool flag = !key.empty() && key[0] == '-';
    std::string best;
    size_t best_distance = SIZE_MAX;
    auto consider = [&](const std::string &candidate) {
        size_t d = glr::edit_distance(key, candidate);
        if (d < best_distance)
            best_distance = d, best = candidate;
    };
    for (const glr_export_option &o : table) {
        if (flag)
            for (const std::string &s : spellings(o.flags))
                consider(s);
        else
            consider(o.name);
    }
    return best_distance <= std::max<size_t>(2, key.size() / 3) && best_distance < key.size() ? best : "";
}

// The encoder option a key names, as ffmpeg's opt_default finds it: on any encoder of
// libavcodec (the chosen one checks it again), "-b:v" as "b". "" when none has it.
std::string encoder_option(const std::string &key)
{
    std::string name = key.substr(std::min(key.find_first_not_of('-'), key.size()));
    size_t colon = name.find(':');
    if (colon != std::string::npos) {
        if (name.substr(colon + 1) != "v")
            return "";
        name.resize(colon);
    }
    const AVClass *codec_class = avcodec_get_class();
    bool found = !name.empty() && av_opt_find(&codec_class, name.c_str(), nullptr, AV_OPT_FLAG_ENCODING_PARAM,
                                              AV_OPT_SEARCH_CHILDREN | AV_OPT_SEARCH_FAKE_OBJ) != nullptr;
    return found ? name : "";
}

// A value inside "k=v:k=v" as av_dict_parse_string reads it back.
std::string escaped(const std::string &value)
{
    std::string out;
    for (char c : value) {
        if (std::strchr("\\:='", c))
            out += '\\';
        out += c;
    }
    return out;
}

bool all_digits(const std::string &text, size_t from, size_t to)
{
    if (from >= to)
        return false;
    for (size_t i = from; i < to; i++)
        if (text[i] < '0' || text[i] > '9')
            return false;
    return true;
}

// [-]DIGITS, within long long.
bool parse_integer(const std::string &text, long long &out)
{
    size_t from = !text.empty() && text[0] == '-' ? 1 : 0;
    if (!all_digits(text, from, text.size()))
        return false;
    errno = 0;
    out = std::strtoll(text.c_str(), nullptr, 10);
    return errno != ERANGE;
}

// [-]DIGITS[.DIGITS] or [-].DIGITS, and nothing else (strtod alone takes "1e10", "inf",
// "0x1p3" and leading spaces).
bool parse_plain_decimal(const std::string &text, double &out)
{
    size_t from = !text.empty() && text[0] == '-' ? 1 : 0, dot = text.find('.', from);
    bool whole = dot == std::string::npos ? all_digits(text, from, text.size())
                                          : (dot == from || all_digits(text, from, dot)) &&
                                                all_digits(text, dot + 1, text.size());
    if (!whole)
        return false;
    out = std::strtod(text.c_str(), nullptr);
    return std::isfinite(out);
}

// A decimal, or a fraction of two (A/B, B not 0).
bool parse_number(const std::string &text, double &out)
{
    size_t slash = text.find('/');
    if (slash == std::string::npos)
        return parse_plain_decimal(text, out);
    double num = 0, den = 0;
    if (!parse_plain_decimal(text.substr(0, slash), num) || !parse_plain_decimal(text.substr(slash + 1), den) ||
        den == 0)
        return false;
    out = num / den;
    return std::isfinite(out);
}

// A decimal with a k (or K), M or G suffix, each a power of kilo.
bool parse_scaled(const std::string &text, double kilo, double &out)
{
    char suffix = text.empty() ? 0 : text.back();
    double scale = suffix == 'k' || suffix == 'K' ? kilo
                   : suffix == 'M'                ? kilo * kilo
                   : suffix == 'G'                ? kilo * kilo * kilo
                                                  : 1;
    if (!parse_plain_decimal(scale > 1 ? text.substr(0, text.size() - 1) : text, out))
        return false;
    out *= scale;
    return true;
}

std::string number_text(double x)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.15g", x);
    return text;
}

// A rate as people write it: a fraction of one for rates under one a second (1/1000).
std::string rate_text(double fps) { return fps < 1 ? "1/" + number_text(std::round(1 / fps)) : number_text(fps); }

bool parse_switch(const std::string &text, bool &on)
{
    if (text == "1" || text == "true")
        return on = true, true;
    if (text == "0" || text == "false")
        return on = false, true;
    return false;
}

bool parse_size(const std::string &text, int &width, int &height, double max)
{
    size_t x = text.find('x');
    long long w = 0, h = 0;
    if (x == std::string::npos || !parse_integer(text.substr(0, x), w) || !parse_integer(text.substr(x + 1), h) ||
        w < 1 || h < 1 || w > max || h > max)
        return false;
    width = static_cast<int>(w), height = static_cast<int>(h);
    return true;
}

bool is_choice(const glr_export_option &o, const std::string &text)
{
    std::string choices = o.choices;
    size_t at = 0;
    while (at <= choices.size()) {
        size_t bar = choices.find('|', at);
        if (choices.substr(at, bar == std::string::npos ? std::string::npos : bar - at) == text)
            return true;
        if (bar == std::string::npos)
            break;
        at = bar + 1;
    }
    return false;
}

// Checks `text` as a value of option o, spelled `key`; fails naming what it takes.
void check_value(const glr_export_option &o, const std::string &key, const std::string &text)
{
    // In the words every program's options use (samples/command_line.cpp).
    auto refuse = [&](const std::string &needs) {
        fail(-EINVAL, "%s %s, not '%s'", key.c_str(), needs.c_str(), text.c_str());
    };
    auto bounds = [&](const char *unit) {
        return ", from " + number_text(o.min) + " to " + number_text(o.max) + unit;
    };
    long long n = 0;
    double x = 0;
    int w = 0, h = 0;
    bool on = false;
    switch (o.kind) {
    case GLR_EXPORT_OPTION_TEXT:
        if (std::strcmp(o.name, "mouse") == 0) {
            float mouse[4];
            if (glr_shadertoy_parse_mouse(text.c_str(), mouse) < 0)
                fail(-EINVAL, "%s: %s", key.c_str(), glr_last_error());
        } else if (std::strcmp(o.name, "date") == 0) {
            long long seconds = 0;
            if (glr_shadertoy_parse_date(text.c_str(), &seconds) < 0)
                fail(-EINVAL, "%s: %s", key.c_str(), glr_last_error());
        } else if (std::strcmp(o.name, "hw_device") == 0) {
            glr::av::parse_hw_device(key, text);
        }
        return;
    case GLR_EXPORT_OPTION_SWITCH:
        if (!parse_switch(text, on))
            refuse("takes 1, 0, true or false");
        return;
    case GLR_EXPORT_OPTION_INTEGER:
        if (!parse_integer(text, n) || n < o.min || n > o.max)
            refuse("needs a whole number from " + number_text(o.min) + " to " + number_text(o.max));
        return;
    case GLR_EXPORT_OPTION_NUMBER:
        if (!parse_number(text, x) || x < o.min || x > o.max)
            refuse("needs a number like 1.5 or 3/2" + bounds(""));
        return;
    case GLR_EXPORT_OPTION_TIME: {
        int64_t us = 0;
        if (glr_parse_time(text.c_str(), &us) < 0 || us < std::llround(o.min * 1e6) || us > o.max * 1e6)
            refuse("needs a time like 2.5, 500ms or 01:30" + bounds(" seconds"));
        return;
    }
    case GLR_EXPORT_OPTION_RATE: {
        int num = 0, den = 0;
        // The bounds as written in the row: 1/1000 is 0.001 within a double's rounding.
        double fps = 0;
        if (glr_parse_rate(text.c_str(), &num, &den) == 0)
            fps = static_cast<double>(num) / den;
        if (fps == 0 || fps < o.min * (1 - 1e-12) || fps > o.max * (1 + 1e-12))
            refuse("needs a frame rate from " + rate_text(o.min) + " to " + rate_text(o.max) +
                   " frames a second, like 30, 29.97, 30000/1001 or ntsc");
        return;
    }
    case GLR_EXPORT_OPTION_SIZE:
        if (!parse_size(text, w, h, o.max))
            refuse("needs WIDTHxHEIGHT like 1280x720, each a whole number from 1 to " + number_text(o.max));
        return;
    case GLR_EXPORT_OPTION_BITS:
        if (!parse_scaled(text, 1000, x) || x < o.min || x > o.max)
            refuse("needs bits per second like 192000, 192k or 1.5M" + bounds(""));
        return;
    case GLR_EXPORT_OPTION_BYTES:
        if (!parse_scaled(text, 1024, x) || x < o.min || x > o.max)
            refuse("needs bytes like 65536, 64k or 16M (k: 1024, M: 1024 k)" + bounds(""));
        return;
    case GLR_EXPORT_OPTION_CHOICE:
        if (!is_choice(o, text)) {
            std::string choices = o.choices;
            size_t last = choices.rfind('|');
            choices.replace(last, 1, " or ");
            for (size_t bar; (bar = choices.find('|')) != std::string::npos;)
                choices.replace(bar, 1, ", ");
            refuse("takes " + choices);
        }
        return;
    case GLR_EXPORT_OPTION_LIST:
        if (text.find('=') == std::string::npos || text[0] == '=')
            refuse("takes KEY=VALUE, like title=My video");
        return;
    }
}

} // namespace

struct glr_export_settings {
    std::map<std::string, std::string> values;       // by option name, the last given
    std::map<std::string, std::string> spelled;      // the key each was given by, for messages
    std::vector<std::string> metadata;               // -metadata's entries
    std::vector<std::pair<std::string, std::string>> encoder; // encoder options the table lacks
    glr_project *project = nullptr;
    // What a resolve's params point into.
    std::string codec_options, output;
    std::vector<const char *> metadata_pointers;
    bool command_line = false; // keys spelled as on the command line ("-t"), not as names


    ~glr_export_settings() { glr_project_destroy(&project); }

    const char *text(const char *name) const
    {
        auto it = values.find(name);
        return it == values.end() || it->second.empty() ? nullptr : it->second.c_str();
    }
    bool on(const char *name) const
    {
        bool value = false;
        const char *t = text(name);
        return t && parse_switch(t, value) && value;
    }
    long long integer(const char *name, long long otherwise) const
    {
        long long n = otherwise;
        const char *t = text(name);
        return t && parse_integer(t, n) ? n : otherwise;
    }
    double number(const char *name, double otherwise) const
    {
        double x = otherwise;
        const char *t = text(name);
        return t && parse_number(t, x) ? x : otherwise;
    }
    int64_t microseconds(const char *name) const
    {
        int64_t us = 0;
        const char *t = text(name);
        return t && glr_parse_time(t, &us) == 0 ? us : 0;
    }
    double scaled(const char *name, double kilo) const
    {
        double x = 0;
        const char *t = text(name);
        return t && parse_scaled(t, kilo, x) ? x : 0;
    }
    // The option as the caller spelled it, for messages; one not given, as the caller
    // spells keys: its first command-line spelling, or its name.
    std::string said(const char *name) const
    {
        auto it = spelled.find(name);
        if (it != spelled.end())
            return it->second;
        const glr_export_option *o = find(name);
        return command_line && o ? spellings(o->flags).front() : name;
    }
};

namespace {

glr_project *open_project(glr_export_settings &s, const glr_log *log)
{
    if (s.project)
        return s.project;
    glr_project_params pp{};
    pp.path = s.text("shader");
    pp.media_dir = s.text("media");
    glr_project *project = glr_project_open(const_cast<glr_log *>(log), &pp);
    if (!project)
        fail(glr_last_error_code(), "%s", glr_last_error());
    for (int c = 0; c < GLR_SCENE_CHANNELS; c++) {
        std::string name = "channel" + std::to_string(c);
        const char *spec = s.text(name.c_str());
        if (spec && glr_project_bind(project, GLR_SCENE_IMAGE_PASS, c, spec, s.said(name.c_str()).c_str()) < 0) {
            std::string why = glr_last_error();
            int code = glr_last_error_code();
            glr_project_destroy(&project);
            fail(code, "%s", why.c_str());
        }
    }
    return s.project = project;
}

// Says, as a warning, that a time falls between two frames: the later one is taken.
void say_between_frames(const glr_export_settings &s, const glr_log *log, const char *name, int num, int den)
{
    int64_t us = s.microseconds(name);
    if (!us || glr_frames_before(us + 1, num, den) != glr_frames_before(us, num, den))
        return;
    std::string said = glr::format("%s %g s is not a whole frame at %d/%d fps: frame %lld", s.said(name).c_str(),
                                   static_cast<double>(us) / 1e6, num, den,
                                   static_cast<long long>(glr_frames_before(us, num, den)));
    glr_log_message(log, GLR_LOG_WARN, said.c_str());
}

glr_range_request range_request(const glr_export_settings &s, int fps_num, int fps_den)
{
    glr_range_request r{};
    r.fps_num = fps_num, r.fps_den = fps_den;
    r.start_us = s.microseconds("start");
    r.start_frame = static_cast<int>(s.integer("first_frame", 0));
    r.duration_us = s.microseconds("duration");
    r.end_us = s.microseconds("end");
    r.frames = static_cast<int>(s.integer("frames", 0));
    return r; // without a length, glr_frame_range's default
}

void rate(const glr_export_settings &s, int &num, int &den)
{
    num = 30, den = 1;
    if (const char *fps = s.text("fps"))
        glr_parse_rate(fps, &num, &den);
}

void check(const glr_export_settings &s)
{
    int num = 0, den = 0, first = 0, count = 0;
    rate(s, num, den);
    glr_range_request r = range_request(s, num, den);
    if (glr_frame_range(&r, &first, &count) < 0)
        fail(-EINVAL, "%s", glr_last_error());
    bool file = s.text("audio"), shaped = s.text("audio_codec") || s.text("audio_bitrate") || s.text("audio_rate");
    if (!file && (s.text("audio_offset") || s.on("audio_keep_longer")))
        fail(-EINVAL, "%s and %s place the sound of %s, which is missing", s.said("audio_offset").c_str(),
             s.said("audio_keep_longer").c_str(), s.said("audio").c_str());
    if (file && s.text("audio_rate"))
        fail(-EINVAL, "%s is the Sound pass's rate; %s keeps its own", s.said("audio_rate").c_str(),
             s.said("audio").c_str());
    if (s.on("no_audio") && (file || shaped))
        fail(-EINVAL, "%s asks for no sound track, and another option shapes one", s.said("no_audio").c_str());
}

void check_sound_to_shape(const glr_export_settings &s, glr_project *project)
{
    bool shaped = s.text("audio_codec") || s.text("audio_bitrate") || s.text("audio_rate");
    if (!s.text("audio") && !s.on("no_audio") && shaped && !glr_project_has_sound_pass(project))
        fail(-EINVAL, "%s, %s and %s shape the sound track, and there is none: no %s, and the project has no Sound "
                      "pass",
             s.said("audio_codec").c_str(), s.said("audio_bitrate").c_str(), s.said("audio_rate").c_str(),
             s.said("audio").c_str());
}

void resolve(glr_export_settings &s, const glr_log *log, glr_export_params &p)
{
    p = glr_export_params{};
    check(s);
    glr_project *project = open_project(s, log);
    check_sound_to_shape(s, project);

    glr_player_params &pl = p.player;
    pl.width = 1280, pl.height = 720;
    if (const char *size = s.text("size"))
        parse_size(size, pl.width, pl.height, max_dimension);
    rate(s, pl.fps_num, pl.fps_den);
    glr_range_request r = range_request(s, pl.fps_num, pl.fps_den);
    if (glr_frame_range(&r, &pl.first_frame, &p.frame_count) < 0)
        fail(-EINVAL, "%s", glr_last_error());
    say_between_frames(s, log, "start", pl.fps_num, pl.fps_den);
    say_between_frames(s, log, "end", pl.fps_num, pl.fps_den);
    pl.project = project;
    if (const char *mouse = s.text("mouse"))
        glr_shadertoy_parse_mouse(mouse, pl.mouse);
    pl.date = s.text("date");
    pl.max_source_bytes = s.text("max_shader_size") ? static_cast<size_t>(s.scaled("max_shader_size", 1024))
                                                    : GLR_SCENE_DEFAULT_MAX_SOURCE;
    pl.alpha = s.on("premultiply") ? GLR_ALPHA_PREMULTIPLIED : s.on("alpha") ? GLR_ALPHA_STRAIGHT : GLR_ALPHA_OPAQUE;

    glr_encoder_params &e = p.encoder;
    e.codec = s.text("codec");
    e.pix_fmt = s.text("pix_fmt");
    s.codec_options = s.text("codec_options") ? s.text("codec_options") : "";
    for (const auto &[key, value] : s.encoder)
        s.codec_options += (s.codec_options.empty() ? "" : ":") + key + "=" + escaped(value);
    e.codec_options = s.codec_options.empty() ? nullptr : s.codec_options.c_str();
    e.container = s.text("container");
    bool null_muxer = e.container && std::strcmp(e.container, "null") == 0;
    s.output = s.text("output") ? s.text("output") : null_muxer ? "nowhere" : "glreader-export.mp4";
    e.output = s.output.c_str();
    e.format_options = s.text("format_options");
    e.audio.input = s.text("audio");
    e.audio.codec = s.text("audio_codec");
    e.audio.bit_rate = static_cast<int64_t>(s.scaled("audio_bitrate", 1000));
    e.audio.sample_rate = static_cast<int>(s.integer("audio_rate", 0));
    e.audio.offset = s.number("audio_offset", 0);
    e.audio.keep_longer = s.on("audio_keep_longer");
    e.queue_depth = static_cast<int>(s.integer("queue", 2));
    const char *matrix = s.text("matrix"), *range = s.text("color_range"), *chroma = s.text("chroma_loc");
    e.color.matrix = !matrix || !std::strcmp(matrix, "bt709") ? GLR_MATRIX_BT709
                     : !std::strcmp(matrix, "bt601")          ? GLR_MATRIX_BT601
                                                              : GLR_MATRIX_BT2020_NCL;
    e.color.range = range && !std::strcmp(range, "pc") ? GLR_RANGE_FULL : GLR_RANGE_LIMITED;
    e.color.chroma = chroma && !std::strcmp(chroma, "center") ? GLR_CHROMA_CENTER : GLR_CHROMA_LEFT;
    s.metadata_pointers.clear();
    for (const std::string &entry : s.metadata)
        s.metadata_pointers.push_back(entry.c_str());
    s.metadata_pointers.push_back(nullptr);
    e.metadata = s.metadata_pointers.data();
    // Exclusive: of two exports started at once on one file, one writes it.
    e.output_flags = (s.on("overwrite") ? 0 : GLR_OUTPUT_NO_OVERWRITE) | (s.on("part") ? GLR_OUTPUT_PART : 0);

    const char *convert = s.text("convert");
    p.conversion = convert && !std::strcmp(convert, "cpu") ? GLR_EXPORT_CONVERT_CPU : GLR_EXPORT_CONVERT_GPU;
    p.ring_format = s.text("ring_format") ? glr_format_from_name(s.text("ring_format")) : glr_format{};
    p.ring_depth = static_cast<int>(s.integer("depth", 3));
    const char *hw = s.text("hw_frames");
    p.hw_frames = !hw || !std::strcmp(hw, "auto") ? GLR_HW_FRAMES_AUTO
                  : !std::strcmp(hw, "on")        ? GLR_HW_FRAMES_ON
                                                  : GLR_HW_FRAMES_OFF;
    p.hw_device = s.text("hw_device"); // checked at set
    double limit = s.number("compile_timeout", GLR_EXPORT_DEFAULT_COMPILE_TIMEOUT);
    p.compile_timeout = limit > 0 ? limit : -1; // the table's 0, never, is the params' -1
    p.no_sound_pass = s.on("no_audio");
    p.chunk = s.on("chunk");
    p.context.require_hw = s.on("require_hw");
}

// A C entry point's body whose failure is the caller's to report: kept as the last error,
// not logged (a front-end words a usage error itself).
template <typename Body>
int unlogged(Body &&body)
{
    return glr::guarded_with([](int code, const char *message) { glr_priv_report_error(nullptr, code, message, 0); },
                             body);
}

} // namespace

const glr_export_option *glr_export_options(int *count)
{
    if (count)
        *count = static_cast<int>(std::size(table));
    return table;
}

const glr_export_option *glr_export_option_find(const char *key) { return key ? find(key) : nullptr; }

glr_export_settings *glr_export_settings_create(void)
{
    try {
        return new glr_export_settings;
    } catch (const std::bad_alloc &) {
        return nullptr;
    }
}

int glr_export_settings_set(glr_export_settings *s, const char *key, const char *value)
{
    return unlogged([&] {
        if (!s || !key || !value)
            fail(-EINVAL, "glr_export_settings_set: no settings, key or value");
        const glr_export_option *o = find(key);
        if (!o) {
            std::string option = encoder_option(key);
            if (option.empty()) {
                std::string near = nearest(key);
                fail(-ENOENT, "unknown option %s: neither glreader's nor an encoder's%s", key,
                     near.empty() ? "" : (" (did you mean " + near + "?)").c_str());
            }
            s->encoder.emplace_back(option, value);
            return 0;
        }
        check_value(*o, key, value);
        s->command_line = key[0] == '-';
        bool on = false;
        if (o->kind == GLR_EXPORT_OPTION_LIST)
            s->metadata.emplace_back(value);
        else if (o->kind == GLR_EXPORT_OPTION_SWITCH && parse_switch(value, on))
            s->values[o->name] = on ? "1" : "0";
        else
            s->values[o->name] = value;
        s->spelled[o->name] = key;
        return 0;
    });
}

int glr_export_parse_integer(const char *text, long long *value)
{
    return text && value && parse_integer(text, *value) ? 0 : -EINVAL;
}

int glr_export_parse_number(const char *text, double *value)
{
    return text && value && parse_number(text, *value) ? 0 : -EINVAL;
}

int glr_export_parse_scaled(const char *text, double kilo, double *value)
{
    return text && value && parse_scaled(text, kilo, *value) ? 0 : -EINVAL;
}

int glr_export_settings_has(const glr_export_settings *s, const char *key)
{
    const glr_export_option *o = s && key ? find(key) : nullptr;
    if (!o)
        return 0;
    return o->kind == GLR_EXPORT_OPTION_LIST ? !s->metadata.empty() : s->values.count(o->name) > 0;
}

int glr_export_settings_check(const glr_export_settings *s)
{
    return unlogged([&] {
        if (!s)
            fail(-EINVAL, "glr_export_settings_check: no settings");
        check(*s);
        return 0;
    });
}

const char *glr_export_settings_get(const glr_export_settings *s, const char *key)
{
    const glr_export_option *o = s && key ? find(key) : nullptr;
    if (!o)
        return nullptr;
    if (o->kind == GLR_EXPORT_OPTION_LIST)
        return s->metadata.empty() ? nullptr : s->metadata.back().c_str();
    auto it = s->values.find(o->name);
    return it == s->values.end() ? nullptr : it->second.c_str();
}

glr_project *glr_export_settings_project(glr_export_settings *s, glr_log *log)
{
    glr_project *project = nullptr;
    glr::guarded(log, [&] {
        if (!s)
            fail(-EINVAL, "glr_export_settings_project: no settings");
        project = open_project(*s, log);
        return 0;
    });
    return project;
}

int glr_export_settings_resolve(glr_export_settings *s, glr_log *log, glr_export_params *params)
{
    return glr::guarded(log, [&] {
        if (!s || !params)
            fail(-EINVAL, "glr_export_settings_resolve: no settings or params");
        resolve(*s, log, *params);
        return 0;
    });
}

void glr_export_settings_destroy(glr_export_settings **s)
{
    if (s) {
        delete *s;
        *s = nullptr;
    }
}
