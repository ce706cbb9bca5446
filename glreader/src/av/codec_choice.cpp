#include "av/codec_choice.hpp"

#include "av/av_error.hpp"
#include "av/edit_distance.hpp"
#include "av/ffmpeg_log_hold.hpp"
#include "error.hpp"
#ifdef GLREADER_TEST_SEAMS
#include "av/fault_injection.h"
#endif

extern "C" {
#include <libavutil/pixdesc.h>
}

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace glr {

namespace {

// Codecs people reach for, best first: the order in which lists of "what would do" are
// shown, and in which a container's other codecs are tried when its own default has no
// encoder in this build.
constexpr AVCodecID preferred_video[] = {AV_CODEC_ID_H264, AV_CODEC_ID_HEVC, AV_CODEC_ID_AV1, AV_CODEC_ID_VP9,
                                         AV_CODEC_ID_VP8, AV_CODEC_ID_PRORES, AV_CODEC_ID_FFV1, AV_CODEC_ID_MPEG4,
                                         AV_CODEC_ID_MPEG2VIDEO, AV_CODEC_ID_MJPEG, AV_CODEC_ID_PNG,
                                         AV_CODEC_ID_GIF, AV_CODEC_ID_RAWVIDEO};
constexpr AVCodecID preferred_audio[] = {AV_CODEC_ID_AAC, AV_CODEC_ID_OPUS, AV_CODEC_ID_VORBIS, AV_CODEC_ID_MP3,
                                         AV_CODEC_ID_FLAC, AV_CODEC_ID_AC3, AV_CODEC_ID_MP2, AV_CODEC_ID_PCM_S16LE};

// The encoders of a codec, best first, where FFmpeg's own order (that of registration,
// which puts libaom-av1 before the far quicker SVT-AV1) is not what a user would pick.
struct encoder_ranking {
    AVCodecID id;
    const char *names[4];
};
constexpr encoder_ranking rankings[] = {
    {AV_CODEC_ID_H264, {"libx264", "h264_nvenc", "libopenh264"}},
    {AV_CODEC_ID_HEVC, {"libx265", "hevc_nvenc"}},
    {AV_CODEC_ID_AV1, {"libsvtav1", "libaom-av1", "librav1e", "av1_nvenc"}},
    {AV_CODEC_ID_VP9, {"libvpx-vp9"}},
    {AV_CODEC_ID_PRORES, {"prores_ks", "prores"}},
    {AV_CODEC_ID_AAC, {"libfdk_aac", "aac"}},
    {AV_CODEC_ID_OPUS, {"libopus"}},
    {AV_CODEC_ID_VORBIS, {"libvorbis"}},
};

// Names of encoders FFmpeg can be built with, for the codec they encode: a name this build
// lacks is then answered with the encoders of that codec it has.
struct known_encoder {
    const char *name, *codec;
};
constexpr known_encoder wrappers[] = {
    {"libx264", "h264"},    {"libx264rgb", "h264"},  {"libopenh264", "h264"}, {"libx265", "hevc"},
    {"libkvazaar", "hevc"}, {"libvpx", "vp8"},       {"libvpx-vp9", "vp9"},   {"libaom-av1", "av1"},
    {"libsvtav1", "av1"},   {"librav1e", "av1"},     {"libtheora", "theora"}, {"libxvid", "mpeg4"},
    {"libwebp", "webp"},    {"libjxl", "jpegxl"},    {"libfdk_aac", "aac"},   {"libopus", "opus"},
    {"libvorbis", "vorbis"}, {"libmp3lame", "mp3"},  {"libshine", "mp3"},     {"libtwolame", "mp2"},
    {"libspeex", "speex"},
};
// Device encoders are named CODEC_DEVICE (h264_nvenc, hevc_vaapi, mpeg2_qsv).
constexpr const char *device_suffixes[] = {"_nvenc", "_vaapi", "_qsv", "_amf", "_v4l2m2m", "_videotoolbox",
                                           "_mf", "_omx", "_vulkan", "_mediacodec"};

// Spellings people use for a codec that FFmpeg names otherwise.
const char *codec_alias(const std::string &name)
{
    if (name == "h265" || name == "x265")
        return "hevc";
    if (name == "avc" || name == "x264")
        return "h264";
    if (name == "mpeg2")
        return "mpeg2video";
    return nullptr;
}

const char *type_name(AVMediaType type) { return type == AVMEDIA_TYPE_AUDIO ? "audio" : "video"; }

std::string codec_words(AVCodecID id) { return avcodec_get_name(id); }

// "the webm muxer" for messages ("any muxer" when no container is known yet).
std::string container_words(const AVOutputFormat *muxer)
{
    if (!muxer)
        return "any muxer";
    return std::strcmp(muxer->name, "image2") == 0 ? "an image sequence" : std::string("the ") + muxer->name + " muxer";
}

// Whether the container can hold the codec: 1 yes, 0 no, -1 it does not say (image2,
// the null muxer and others that take anything; no container known yet).
int container_holds(const AVOutputFormat *muxer, AVCodecID id)
{
    int rc = muxer ? avformat_query_codec(muxer, id, FF_COMPLIANCE_NORMAL) : -1;
    // Muxers of one picture codec answer nothing before FFmpeg 7 (which flags them, so that
    // the query says no), and refuse any other codec only once they start.
    if (rc < 0 && muxer)
        for (const char *one_codec : {"gif", "apng", "webp"})
            if (std::strcmp(muxer->name, one_codec) == 0)
                return id == muxer->video_codec;
    return rc < 0 ? -1 : rc;
}

bool experimental(const AVCodec *codec) { return codec->capabilities & AV_CODEC_CAP_EXPERIMENTAL; }

#ifdef GLREADER_TEST_SEAMS
// Encoders a test hides, as a build without them would (glr_internal_codec_choice_hide).
std::mutex hidden_mutex;
std::vector<std::string> hidden_encoders;
bool hidden(const AVCodec *c)
{
    std::lock_guard<std::mutex> lock(hidden_mutex);
    return std::find(hidden_encoders.begin(), hidden_encoders.end(), c->name) != hidden_encoders.end();
}
#else
constexpr bool hidden(const AVCodec *) { return false; }
#endif

// Encoders of id in this build, best first: the ranking's, then those on the CPU, then
// other devices', then experimental ones; never those that take only GPU frames, which
// glreader-av does not upload.
std::vector<const AVCodec *> encoders_of(AVCodecID id)
{
    std::vector<const AVCodec *> found;
    void *it = nullptr;
    while (const AVCodec *c = av_codec_iterate(&it))
        if (av_codec_is_encoder(c) && c->id == id && !takes_only_hardware_frames(c) && !hidden(c))
            found.push_back(c);
    auto rank = [&](const AVCodec *c) {
        for (const encoder_ranking &r : rankings)
            if (r.id == id)
                for (int i = 0; i < 4 && r.names[i]; i++)
                    if (std::strcmp(r.names[i], c->name) == 0)
                        return i;
        return 10 + (is_hardware_encoder(c) ? 10 : 0) + (experimental(c) ? 20 : 0);
    };
    std::stable_sort(found.begin(), found.end(), [&](const AVCodec *a, const AVCodec *b) { return rank(a) < rank(b); });
    return found;
}

const AVCodec *best_encoder(AVCodecID id)
{
    std::vector<const AVCodec *> all = encoders_of(id);
    return all.empty() ? nullptr : all.front();
}

// Whether a device's encoder opens in this process: "" when it does, else FFmpeg's reason.
// A small trial open, once per encoder (its device and driver answer the same until the
// process ends); FFmpeg's words about it are not the user's business unless it is chosen.
std::string device_refusal(const AVCodec *c)
{
    static std::mutex mutex;
    static std::map<const AVCodec *, std::string> known;
    std::lock_guard<std::mutex> lock(mutex);
    if (auto it = known.find(c); it != known.end())
        return it->second;
    AVCodecContext *context = avcodec_alloc_context3(c);
    if (!context)
        throw std::bad_alloc();
    context->width = 256;
    context->height = 144;
    context->time_base = {1, 30};
    context->framerate = {30, 1};
    AVPixelFormat format = first_memory_format(c);
    context->pix_fmt = format != AV_PIX_FMT_NONE ? format : AV_PIX_FMT_NV12;
    int rc;
    {
        ffmpeg_log_hold hold;
        rc = avcodec_open2(context, c, nullptr);
    }
    avcodec_free_context(&context);
    return known.emplace(c, rc < 0 ? av_error_text(rc) : std::string()).first->second;
}

// The best encoder of id that opens here: devices' encoders are tried, and one that does not
// open (no such GPU, no driver: h264_nvenc on a GPU without NVENC) is passed over, with a
// note naming it when another is taken. nullptr when this build has none; throws when none
// of those it has opens.
const AVCodec *best_encoder_that_opens(AVCodecID id, const glr_log *log)
{
    std::vector<const AVCodec *> all = encoders_of(id);
    std::string passed_over;
    for (const AVCodec *c : all) {
        std::string refusal = is_hardware_encoder(c) ? device_refusal(c) : "";
        if (refusal.empty()) {
            if (!passed_over.empty())
                glr_log_message(log, GLR_LOG_INFO,
                                format("%s: %s does not open here: encoding with %s", avcodec_get_name(id),
                                       passed_over.c_str(), c->name)
                                    .c_str());
            return c;
        }
        passed_over += (passed_over.empty() ? "" : ", ") + std::string(c->name) + " (" + refusal + ")";
    }
    if (all.empty())
        return nullptr;
    fail(-ENODEV, "no encoder of %s in this FFmpeg build opens here: %s; name another codec", avcodec_get_name(id),
         passed_over.c_str());
}

std::string joined(const std::vector<std::string> &names)
{
    std::string out;
    for (const std::string &n : names)
        out += (out.empty() ? "" : ", ") + n;
    return out.empty() ? "none" : out;
}

// A handful of encoders here that run on the CPU, the best of each codec the container
// holds, its own codec first: what a refusal offers instead.
std::string encoders_for(AVMediaType type, const AVOutputFormat *muxer, const char *output)
{
    constexpr size_t shown = 8;
    std::vector<AVCodecID> ids;
    if (muxer)
        ids.push_back(default_codec(type, muxer, output));
    ids.insert(ids.end(), type == AVMEDIA_TYPE_AUDIO ? std::begin(preferred_audio) : std::begin(preferred_video),
               type == AVMEDIA_TYPE_AUDIO ? std::end(preferred_audio) : std::end(preferred_video));
    void *it = nullptr;
    while (const AVCodec *c = av_codec_iterate(&it))
        if (av_codec_is_encoder(c) && c->type == type)
            ids.push_back(c->id);
    std::vector<std::string> names;
    std::vector<AVCodecID> seen;
    for (AVCodecID id : ids) {
        if (id == AV_CODEC_ID_NONE || std::find(seen.begin(), seen.end(), id) != seen.end() ||
            container_holds(muxer, id) == 0)
            continue;
        seen.push_back(id);
        for (const AVCodec *c : encoders_of(id))
            if (!experimental(c) && !is_hardware_encoder(c)) {
                if (names.size() == shown)
                    return joined(names) + ", ...";
                names.push_back(c->name);
                break;
            }
    }
    return joined(names);
}

// Encoder and codec names of this type here that look like `name` (a typo, a missing
// "lib"), nearest first.
std::string similar_names(AVMediaType type, const std::string &name)
{
    std::vector<std::pair<size_t, std::string>> near;
    auto consider = [&](const char *candidate) {
        std::string c = candidate;
        // "x246" is near libx264: a wrapper's name is also compared without its "lib".
        std::string bare = c.rfind("lib", 0) == 0 ? c.substr(3) : c;
        size_t d = std::min(edit_distance(name, c), edit_distance(name, bare));
        bool contains = name.size() >= 3 && (c.find(name) != std::string::npos || name.find(c) != std::string::npos);
        if ((d <= std::max<size_t>(2, name.size() / 3) || contains) &&
            std::none_of(near.begin(), near.end(), [&](const auto &n) { return n.second == c; }))
            near.emplace_back(contains ? 0 : d, c);
    };
    void *it = nullptr;
    while (const AVCodec *c = av_codec_iterate(&it))
        if (av_codec_is_encoder(c) && c->type == type)
            consider(c->name);
    for (const AVCodecDescriptor *d = avcodec_descriptor_next(nullptr); d; d = avcodec_descriptor_next(d))
        if (d->type == type && best_encoder(d->id))
            consider(d->name);
    std::stable_sort(near.begin(), near.end());
    std::string out;
    size_t shown = std::min<size_t>(near.size(), 3);
    for (size_t i = 0; i < shown; i++)
        out += (i == 0 ? "" : i + 1 == shown ? " or " : ", ") + near[i].second;
    return out;
}

// The codec FFmpeg would know an encoder name by, for names this build lacks ("" if none).
std::string codec_of_encoder_name(const std::string &name)
{
    for (const known_encoder &k : wrappers)
        if (name == k.name)
            return k.codec;
    for (const char *suffix : device_suffixes) {
        size_t length = std::strlen(suffix);
        if (name.size() > length && name.compare(name.size() - length, length, suffix) == 0) {
            std::string codec = name.substr(0, name.size() - length);
            return codec == "mpeg2" ? "mpeg2video" : codec;
        }
    }
    return "";
}

[[noreturn]] void refuse_unknown(AVMediaType type, const std::string &asked, const AVOutputFormat *muxer,
                                 const char *output)
{
    std::string fits = encoders_for(type, muxer, output);
    if (std::string codec = codec_of_encoder_name(asked); !codec.empty()) {
        const AVCodecDescriptor *d = avcodec_descriptor_get_by_name(codec.c_str());
        std::vector<std::string> others;
        for (const AVCodec *c : d ? encoders_of(d->id) : std::vector<const AVCodec *>{})
            others.push_back(c->name);
        if (!others.empty())
            fail(-EINVAL, "%s is not in this FFmpeg build; encoders of %s here: %s", asked.c_str(), codec.c_str(),
                 joined(others).c_str());
        fail(-EINVAL, "%s is not in this FFmpeg build, which has no %s encoder at all; %s encoders for %s here: %s",
             asked.c_str(), codec.c_str(), type_name(type), container_words(muxer).c_str(), fits.c_str());
    }
    std::string near = similar_names(type, asked);
    fail(-EINVAL, "'%s' is no %s encoder or codec this FFmpeg knows%s%s; %s encoders for %s here: %s", asked.c_str(),
         type_name(type), near.empty() ? "" : " (did you mean ", (near.empty() ? "" : near + "?)").c_str(), type_name(type),
         container_words(muxer).c_str(), fits.c_str());
}

// The codec an image sequence's extension names (PNG for frames/%05d.png), or NONE.
AVCodecID picture_codec_of_name(const AVOutputFormat *muxer, const char *output)
{
    if (!muxer || std::strcmp(muxer->name, "image2") != 0 || !output)
        return AV_CODEC_ID_NONE;
    AVCodecID id = default_codec(AVMEDIA_TYPE_VIDEO, muxer, output);
    return id == muxer->video_codec && !std::strstr(output, ".jpg") && !std::strstr(output, ".jpeg")
               ? AV_CODEC_ID_NONE // image2's default: the name said nothing
               : id;
}

void check_holds(const AVCodec *codec, const AVOutputFormat *muxer, const char *output)
{
    AVMediaType type = codec->type;
    AVCodecID picture = picture_codec_of_name(muxer, output);
    if (type == AVMEDIA_TYPE_VIDEO && picture != AV_CODEC_ID_NONE && picture != codec->id)
        fail(-EINVAL, "%s names %s pictures, not %s (%s): leave the codec out, or write a video file (.mp4, .mkv)",
             output, avcodec_get_name(picture), codec_words(codec->id).c_str(), codec->name);
    if (container_holds(muxer, codec->id) == 0)
        fail(-EINVAL, "%s cannot hold %s %s (%s); %s encoders for it here: %s", container_words(muxer).c_str(),
             codec_words(codec->id).c_str(), type_name(type), codec->name, type_name(type),
             encoders_for(type, muxer, output).c_str());
}

} // namespace

bool is_hardware_encoder(const AVCodec *c)
{
    if ((c->capabilities & (AV_CODEC_CAP_HARDWARE | AV_CODEC_CAP_HYBRID)) || avcodec_get_hw_config(c, 0))
        return true;
    for (const char *device : {"_omx", "_v4l2m2m", "_mediacodec", "_mf", "_amf", "_videotoolbox"})
        if (std::strstr(c->name, device))
            return true;
    return false;
}

AVPixelFormat first_memory_format(const AVCodec *codec)
{
    for (const AVPixelFormat *f = encoder_pix_fmts(codec); f && *f != AV_PIX_FMT_NONE; f++)
        if (!(av_pix_fmt_desc_get(*f)->flags & AV_PIX_FMT_FLAG_HWACCEL))
            return *f;
    return AV_PIX_FMT_NONE;
}

bool takes_only_hardware_frames(const AVCodec *codec)
{
    const AVPixelFormat *fmts = encoder_pix_fmts(codec);
    return fmts && *fmts != AV_PIX_FMT_NONE && first_memory_format(codec) == AV_PIX_FMT_NONE;
}

std::string software_encoders_of(AVCodecID id)
{
    std::vector<std::string> names;
    for (const AVCodec *c : encoders_of(id))
        if (!is_hardware_encoder(c))
            names.push_back(c->name);
    return joined(names);
}

const AVPixelFormat *encoder_pix_fmts(const AVCodec *codec)
{
#if LIBAVCODEC_VERSION_INT >= AV_VERSION_INT(61, 13, 100)
    const void *list = nullptr;
    int count = 0;
    if (avcodec_get_supported_config(nullptr, codec, AV_CODEC_CONFIG_PIX_FORMAT, 0, &list, &count) < 0)
        return nullptr;
    return static_cast<const AVPixelFormat *>(list);
#else
    return codec->pix_fmts;
#endif
}

const AVOutputFormat *choose_muxer(const char *container, const char *output)
{
    const AVOutputFormat *muxer = av_guess_format(container, container ? nullptr : output, nullptr);
    if (muxer)
        return muxer;
    if (container) {
        // An extension given for a name (-f mkv): the muxer that writes it.
        std::string file = std::string("x.") + container;
        const AVOutputFormat *by_extension = av_guess_format(nullptr, file.c_str(), nullptr);
        fail(-EINVAL, "'%s' is not a muxer in this FFmpeg build%s%s%s (ffmpeg -muxers lists them)", container,
             by_extension ? "; did you mean " : "", by_extension ? by_extension->name : "", by_extension ? "?" : "");
    }
    fail(-EINVAL,
         "cannot tell the container from the name '%s': give it a known extension (.mp4, .mkv, .webm, .mov, .nut, "
         ".gif, frames/%%05d.png) or name the container",
         output ? output : "");
}

AVCodecID default_codec(AVMediaType type, const AVOutputFormat *muxer, const char *output)
{
    if (!output) // av_guess_codec reads an image sequence's name, which it then must have
        return type == AVMEDIA_TYPE_VIDEO ? muxer->video_codec : type == AVMEDIA_TYPE_AUDIO ? muxer->audio_codec
                                                                                           : AV_CODEC_ID_NONE;
    return av_guess_codec(muxer, nullptr, output, nullptr, type);
}

bool holds_sound(const char *container, const char *output)
{
    try {
        return default_codec(AVMEDIA_TYPE_AUDIO, choose_muxer(container, output), output) != AV_CODEC_ID_NONE;
    } catch (const failure &) {
        return true;
    }
}

const AVCodec *choose_encoder(AVMediaType type, const char *asked, const AVOutputFormat *muxer, const char *output,
                              const glr_log *log)
{
    if (asked && *asked) {
        std::string name = asked;
        const AVCodec *codec = avcodec_find_encoder_by_name(asked);
        if (codec && codec->type != type)
            fail(-EINVAL, "%s is %s encoder, not %s one", asked,
                 codec->type == AVMEDIA_TYPE_AUDIO ? "an audio" : codec->type == AVMEDIA_TYPE_VIDEO ? "a video" : "no",
                 type == AVMEDIA_TYPE_AUDIO ? "an audio" : "a video");
        if (!codec) {
            const char *alias = codec_alias(name);
            const AVCodecDescriptor *d = avcodec_descriptor_get_by_name(alias ? alias : asked);
            if (!d || d->type != type)
                refuse_unknown(type, name, muxer, output);
            if (!(codec = best_encoder_that_opens(d->id, log)))
                fail(-EINVAL, "this FFmpeg build has no encoder for %s; %s encoders for %s here: %s",
                     codec_words(d->id).c_str(), type_name(type), container_words(muxer).c_str(),
                     encoders_for(type, muxer, output).c_str());
        }
        check_holds(codec, muxer, output);
        return codec;
    }

    if (!muxer)
        fail(-EINVAL, "no output: without one, name the %s codec", type_name(type));
    AVCodecID id = default_codec(type, muxer, output);
    if (id == AV_CODEC_ID_NONE)
        fail(-EINVAL, "%s holds no %s", container_words(muxer).c_str(), type_name(type));
    if (const AVCodec *codec = best_encoder_that_opens(id, log))
        return codec;
    // The container's own choice has no encoder here: the best codec it holds that has one.
    const AVCodecID *begin = type == AVMEDIA_TYPE_AUDIO ? std::begin(preferred_audio) : std::begin(preferred_video);
    const AVCodecID *end = type == AVMEDIA_TYPE_AUDIO ? std::end(preferred_audio) : std::end(preferred_video);
    for (const AVCodecID *other = begin; other != end; other++) {
        const AVCodec *codec = container_holds(muxer, *other) == 1 ? best_encoder(*other) : nullptr;
        if (codec && !experimental(codec)) {
            glr_log_message(log, GLR_LOG_INFO,
                               format("this FFmpeg build has no encoder for %s, %s's usual %s: encoding %s with %s",
                                      avcodec_get_name(id), muxer->name, type_name(type),
                                      avcodec_get_name(codec->id), codec->name)
                                   .c_str());
            return codec;
        }
    }
    fail(-EINVAL, "this FFmpeg build has no encoder for %s (%s's usual %s) nor for any other %s codec it holds",
         codec_words(id).c_str(), muxer->name, type_name(type), type_name(type));
}

bool has_alpha(AVPixelFormat format)
{
    const AVPixFmtDescriptor *d = av_pix_fmt_desc_get(format);
    return d && (d->flags & AV_PIX_FMT_FLAG_ALPHA);
}

bool encodes_alpha(const AVCodec *codec)
{
    if (is_hardware_encoder(codec)) // their RGBA inputs (NVENC's bgra) drop the alpha
        return false;
    const AVPixelFormat *fmts = encoder_pix_fmts(codec);
    for (; fmts && *fmts != AV_PIX_FMT_NONE; fmts++)
        if (has_alpha(*fmts))
            return true;
    return false;
}

const AVCodec *choose_alpha_encoder(const char *asked, const AVOutputFormat *muxer, const char *output,
                                    const glr_log *log)
{
    // Codecs with alpha, in the order taken where a container holds several: ProRes 4444
    // for QuickTime (what editors take), else lossless FFV1, then VP9.
    static const AVCodecID for_quicktime[] = {AV_CODEC_ID_PRORES, AV_CODEC_ID_QTRLE, AV_CODEC_ID_PNG, AV_CODEC_ID_VP9,
                                              AV_CODEC_ID_FFV1};
    static const AVCodecID for_others[] = {AV_CODEC_ID_FFV1, AV_CODEC_ID_VP9, AV_CODEC_ID_PRORES, AV_CODEC_ID_QTRLE,
                                           AV_CODEC_ID_PNG};
    const bool quicktime = muxer && (std::strcmp(muxer->name, "mov") == 0 || std::strcmp(muxer->name, "ipod") == 0);
    const AVCodecID(&with_alpha)[5] = quicktime ? for_quicktime : for_others;
    // Where players read each codec's alpha: VP9 keeps it beside the picture
    // (BlockAdditional), which only Matroska holds; QuickTime Animation and PNG video are
    // QuickTime's (PNG pictures too).
    const bool matroska = muxer && (std::strcmp(muxer->name, "matroska") == 0 || std::strcmp(muxer->name, "webm") == 0);
    const bool pictures = muxer && (std::strcmp(muxer->name, "image2") == 0 || std::strcmp(muxer->name, "apng") == 0);
    auto alpha_kept = [&](AVCodecID id) {
        return !muxer || (id == AV_CODEC_ID_VP9 ? matroska
                          : id == AV_CODEC_ID_QTRLE ? quicktime
                          : id == AV_CODEC_ID_PNG   ? quicktime || pictures
                                                    : true);
    };
    auto alpha_encoder_of = [&](AVCodecID id) -> const AVCodec * {
        if (!alpha_kept(id))
            return nullptr;
        for (const AVCodec *c : encoders_of(id))
            if (encodes_alpha(c) && !experimental(c))
                return c;
        return nullptr;
    };
    std::vector<std::string> offered;
    for (AVCodecID id : with_alpha)
        if (const AVCodec *c = alpha_encoder_of(id); c && (!muxer || container_holds(muxer, id) == 1))
            offered.push_back(c->name);
    if (asked && *asked) {
        const AVCodec *codec = choose_encoder(AVMEDIA_TYPE_VIDEO, asked, muxer, output, log);
        if (!encodes_alpha(codec))
            fail(-EINVAL, "%s encodes no alpha; encoders with alpha here%s%s: %s", codec->name,
                 muxer ? " for " : "", muxer ? container_words(muxer).c_str() : "", joined(offered).c_str());
        if (!alpha_kept(codec->id))
            fail(-EINVAL, "%s would lose %s's alpha; encoders whose alpha it keeps here: %s",
                 container_words(muxer).c_str(), codec->name, joined(offered).c_str());
        return codec;
    }
    if (!muxer)
        fail(-EINVAL, "no output: without one, name the video codec");
    AVCodecID own = default_codec(AVMEDIA_TYPE_VIDEO, muxer, output);
    if (const AVCodec *codec = alpha_encoder_of(own))
        return codec;
    for (AVCodecID id : with_alpha)
        if (const AVCodec *codec = container_holds(muxer, id) == 1 ? alpha_encoder_of(id) : nullptr) {
            glr_log_message(log, GLR_LOG_INFO,
                               format("%s, %s's usual video, has no alpha: encoding %s with %s", avcodec_get_name(own),
                                      muxer->name, avcodec_get_name(id), codec->name)
                                   .c_str());
            return codec;
        }
    fail(-EINVAL, "%s keeps no alpha of a codec this FFmpeg build encodes: write .mov (ProRes 4444), .webm (VP9), "
                  ".mkv (FFV1) or .png",
         container_words(muxer).c_str());
}

} // namespace glr

#ifdef GLREADER_TEST_SEAMS
void glr_internal_codec_choice_hide(const char *encoder)
{
    std::lock_guard<std::mutex> lock(glr::hidden_mutex);
    if (encoder)
        glr::hidden_encoders.emplace_back(encoder);
    else
        glr::hidden_encoders.clear();
}
#endif
