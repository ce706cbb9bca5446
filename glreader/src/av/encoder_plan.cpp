#include "av/encoder_plan.hpp"

#include "av/av_dictionary.hpp"
#include "av/codec_choice.hpp"
#include "av/video_track.hpp"
#include "enum_value.hpp"
#include "error.hpp"

#include "glreader/utils/libav.h"

extern "C" {
#include <libavutil/hwcontext.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>
}

#include <cerrno>
#include <cstring>
#include <string>

namespace glr {

namespace {

bool contains(const AVPixelFormat *fmts, AVPixelFormat f)
{
    for (; fmts && *fmts != AV_PIX_FMT_NONE; fmts++)
        if (*fmts == f)
            return true;
    return false;
}

// The encoder's format with alpha for frames in `input`: that one if it takes it, else the
// closest that a ring converts to on the GPU (yuva420p, yuva444p, yuva444p10le), else the
// closest that libswscale makes.
AVPixelFormat choose_alpha_pix_fmt(const AVCodec *codec, const char *asked, AVPixelFormat input)
{
    const AVPixelFormat *fmts = encoder_pix_fmts(codec);
    std::string list;
    AVPixelFormat best = AV_PIX_FMT_NONE, best_on_gpu = AV_PIX_FMT_NONE;
    for (const AVPixelFormat *f = fmts; f && *f != AV_PIX_FMT_NONE; f++)
        if (has_alpha(*f) && (*f == input || sws_isSupportedOutput(*f))) {
            list += (list.empty() ? "" : ", ") + std::string(av_get_pix_fmt_name(*f));
            best = av_find_best_pix_fmt_of_2(best, *f, input, 1, nullptr);
            if (glr_av_format_of(*f))
                best_on_gpu = av_find_best_pix_fmt_of_2(best_on_gpu, *f, input, 1, nullptr);
        }
    if (asked && !has_alpha(av_get_pix_fmt(asked)))
        fail(-EINVAL, "%s has no alpha, which was asked to be kept; %s's formats with alpha: %s", asked, codec->name,
             list.empty() ? "none" : list.c_str());
    if (best == AV_PIX_FMT_NONE)
        fail(-EINVAL, "%s takes no format with alpha that glreader can convert to", codec->name);
    return contains(fmts, input) ? input : best_on_gpu != AV_PIX_FMT_NONE ? best_on_gpu : best;
}

// What the encoder encodes: the pixel format asked for, else the frames' own where the
// codec takes it, else yuv420p, else the codec's closest that libswscale can make (an
// alpha channel not counted unless `alpha`: a shader's alpha is no picture's transparency
// unless the host says so).
AVPixelFormat choose_pix_fmt(const AVCodec *codec, const char *asked, AVPixelFormat input, bool alpha)
{
    const AVPixelFormat *fmts = encoder_pix_fmts(codec);
    if (takes_only_hardware_frames(codec)) {
        std::string list;
        for (const AVPixelFormat *f = fmts; *f != AV_PIX_FMT_NONE; f++)
            list += (list.empty() ? "" : ", ") + std::string(av_get_pix_fmt_name(*f));
        fail(-ENOSYS,
             "%s takes only hardware frames (%s), which glreader-av does not upload; software encoders of %s "
             "here: %s",
             codec->name, list.c_str(), avcodec_get_name(codec->id), software_encoders_of(codec->id).c_str());
    }
    if (asked) {
        AVPixelFormat out = av_get_pix_fmt(asked);
        if (out == AV_PIX_FMT_NONE)
            fail(-EINVAL, "unknown pixel format '%s' (ffmpeg -pix_fmts lists them)", asked);
        if (fmts && !contains(fmts, out)) {
            std::string list;
            for (const AVPixelFormat *f = fmts; *f != AV_PIX_FMT_NONE; f++)
                list += (list.empty() ? "" : ", ") + std::string(av_get_pix_fmt_name(*f));
            fail(-EINVAL, "%s cannot encode %s; it takes: %s", codec->name, asked, list.c_str());
        }
        if (alpha)
            choose_alpha_pix_fmt(codec, asked, input); // refuses a format without alpha
        return out;
    }
    if (alpha)
        return choose_alpha_pix_fmt(codec, nullptr, input);
    if (!fmts || contains(fmts, input))
        return input;
    if (contains(fmts, AV_PIX_FMT_YUV420P))
        return AV_PIX_FMT_YUV420P;
    AVPixelFormat best = AV_PIX_FMT_NONE;
    for (const AVPixelFormat *f = fmts; *f != AV_PIX_FMT_NONE; f++)
        if (sws_isSupportedOutput(*f))
            best = av_find_best_pix_fmt_of_2(best, *f, input, 0, nullptr);
    if (best == AV_PIX_FMT_NONE)
        fail(-EINVAL, "%s takes no pixel format glreader can convert to", codec->name);
    return best;
}

// Keys an MP4 or MOV file keeps (libavformat's movenc writes these; others are dropped
// unless movflags=+use_metadata_tags).
constexpr const char *mov_metadata_keys[] = {"title",    "artist",      "album_artist", "album",     "composer",
                                             "date",     "encoder",     "comment",      "genre",     "copyright",
                                             "grouping", "lyrics",      "description",  "synopsis",  "show",
                                             "episode_id", "network",   "keywords",     "track",     "disc",
                                             "compilation"};

bool is_mov_family(const AVOutputFormat *muxer)
{
    for (const char *name : {"mp4", "mov", "ipod", "ismv", "3gp", "3g2", "psp", "f4v"})
        if (std::strcmp(muxer->name, name) == 0)
            return true;
    return false;
}

void check_metadata(const glr_encoder_params &p, const encoder_plan &plan, const glr_log *log)
{
    bool any_key = p.format_options && std::strstr(p.format_options, "use_metadata_tags");
    for (const char *const *entry = p.metadata; entry && *entry; entry++) {
        const char *equals = std::strchr(*entry, '=');
        if (!equals || equals == *entry)
            fail(-EINVAL, "metadata '%s' is not key=value (title=My video)", *entry);
        std::string key(*entry, static_cast<size_t>(equals - *entry));
        if (!is_mov_family(plan.muxer) || any_key)
            continue;
        bool kept = false;
        for (const char *k : mov_metadata_keys)
            kept |= key == k;
        if (!kept)
            glr_log_message(log, GLR_LOG_WARN,
                               format("an %s file keeps no metadata '%s' (only title, artist, album, comment, date, "
                                      "genre, ...): it is dropped unless movflags=+use_metadata_tags",
                                      plan.muxer->name, key.c_str())
                                   .c_str());
    }
}

// "-2.5 to 51" for an option's range, or "" when it has none worth saying.
std::string range_words(const AVOption *o)
{
    if (o->type == AV_OPT_TYPE_STRING || o->type == AV_OPT_TYPE_DICT || o->unit || o->min >= o->max ||
        o->max > 1e15 || o->min < -1e15)
        return "";
    return " (from " + format("%g", o->min) + " to " + format("%g", o->max) + ")";
}

// Each option of `text` is one `object` has (an encoder's private options searched before
// the generic ones, as avcodec_open2 does), with a value it takes.
void check_options(const char *text, void *object, void *generic, const char *what, const char *name,
                   const char *help)
{
    av_dictionary options("cannot read options", text);
    const AVDictionaryEntry *e = nullptr;
    while ((e = av_dict_get(*options.address(), "", e, AV_DICT_IGNORE_SUFFIX))) {
        void *target = object && av_opt_find(object, e->key, nullptr, 0, 0) ? object : generic;
        const AVOption *o = target ? av_opt_find(target, e->key, nullptr, 0, 0) : nullptr;
        if (!o)
            fail(-EINVAL, "%s %s has no option '%s' (%s lists them)", what, name, e->key, help);
        int rc = av_opt_set(target, e->key, e->value, 0);
        if (rc < 0)
            fail(-EINVAL, "%s %s takes no '%s' for its option %s%s (%s says what it takes)", what, name, e->value,
                 e->key, range_words(o).c_str(), help);
    }
}

} // namespace

const AVCodec *choose_video_encoder(const glr_encoder_params &p, const glr_log *log)
{
    const AVOutputFormat *muxer = p.container || p.output ? choose_muxer(p.container, p.output) : nullptr;
    return p.alpha ? choose_alpha_encoder(p.codec, muxer, p.output, log)
                   : choose_encoder(AVMEDIA_TYPE_VIDEO, p.codec, muxer, p.output, log);
}

bool takes_hardware_frames_of(const AVCodec *codec, AVPixelFormat hw) { return contains(encoder_pix_fmts(codec), hw); }

AVPixelFormat hardware_format(const glr_encoder_params &p)
{
    return p.hw_frames ? reinterpret_cast<const AVHWFramesContext *>(p.hw_frames->data)->format : AV_PIX_FMT_NONE;
}

glr_format frames_format(const glr_encoder_params &p)
{
    int f = enum_value(p.format);
    return f == 0 ? GLR_FORMAT_RGBA8 : p.format;
}

encoder_plan plan_encoder(const glr_encoder_params &p, const glr_log *log)
{
    encoder_plan plan;
    // Without an output (glr_encoder_preferred_format may be asked before there is one),
    // only a named codec can be planned.
    plan.muxer = p.container || p.output ? choose_muxer(p.container, p.output) : nullptr;
    bool alpha = p.alpha != 0;
    plan.video = choose_video_encoder(p, log);
    // Hardware frames go as they are to an encoder that takes their kind (no pix_fmt asked).
    AVPixelFormat hw = hardware_format(p);
    if (hw != AV_PIX_FMT_NONE && !p.pix_fmt && !alpha && takes_hardware_frames_of(plan.video, hw))
        plan.pix_fmt = hw;
    else
        plan.pix_fmt = choose_pix_fmt(plan.video, p.pix_fmt, glr_av_pix_fmt(frames_format(p)), alpha);
    bool copy = p.audio.codec && std::strcmp(p.audio.codec, "copy") == 0;
    if ((p.audio.input || p.audio.sample_rate) && !copy)
        plan.audio = choose_encoder(AVMEDIA_TYPE_AUDIO, p.audio.codec, plan.muxer, p.output, log);
    if (p.audio.input && !p.audio.codec)
        plan.audio_default = default_codec(AVMEDIA_TYPE_AUDIO, plan.muxer, p.output);
    return plan;
}

glr_format preferred_format(const glr_encoder_params &p, const encoder_plan &plan)
{
    glr_format yuv = glr_av_format_of(plan.pix_fmt);
    const glr_format_info *info = glr_format_get_info(yuv);
    return info && info->yuv ? yuv : frames_format(p);
}

color_tags check_plan(const glr_encoder_params &p, const encoder_plan &plan, const glr_log *log)
{
    AVCodecContext *scratch = avcodec_alloc_context3(plan.video);
    if (!scratch)
        fail(-ENOMEM, "out of memory");
    try {
        check_options(p.codec_options, scratch->priv_data, scratch, "encoder", plan.video->name,
                      format("ffmpeg -h encoder=%s", plan.video->name).c_str());
    } catch (...) {
        avcodec_free_context(&scratch);
        throw;
    }
    avcodec_free_context(&scratch);

    AVFormatContext *muxer = nullptr;
    if (avformat_alloc_output_context2(&muxer, plan.muxer, nullptr, nullptr) < 0 || !muxer)
        fail(-ENOMEM, "out of memory");
    try {
        check_options(p.format_options, muxer->priv_data, muxer, "muxer", plan.muxer->name,
                      format("ffmpeg -h muxer=%s", plan.muxer->name).c_str());
    } catch (...) {
        avformat_free_context(muxer);
        throw;
    }
    avformat_free_context(muxer);
    check_metadata(p, plan, log);
    return video_track::trial_open(p, plan);
}

glr_encoder_plan public_plan(const glr_encoder_params &p, const encoder_plan &plan)
{
    glr_encoder_plan out{};
    auto copy = [](char (&to)[32], const char *from) { std::snprintf(to, sizeof to, "%s", from ? from : ""); };
    copy(out.container, plan.muxer->name);
    copy(out.video_codec, avcodec_get_name(plan.video->id));
    copy(out.video_encoder, plan.video->name);
    copy(out.pix_fmt, av_get_pix_fmt_name(plan.pix_fmt));
    if (plan.audio) {
        copy(out.audio_codec, avcodec_get_name(plan.audio->id));
        copy(out.audio_encoder, plan.audio->name);
    } else if (p.audio.input) {
        copy(out.audio_encoder, "copy");
    }
    out.format = preferred_format(p, plan);
    return out;
}

} // namespace glr
