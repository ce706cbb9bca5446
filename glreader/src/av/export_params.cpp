// An export job's params (av/export_shared.hpp): checked before any GL, copied with every
// string; the chunk's joinable settings, the Sound pass's rate, the encoder's plan (tried
// now, so that an unknown codec or option fails before a frame renders) and the ring's
// format.
#include "av/export_shared.hpp"

#include "glreader/frame_range.h"

#include "av/chunk_tag.hpp"
#include "av/codec_choice.hpp"
#include "enum_value.hpp"
#include "error.hpp"

extern "C" {
#include <libavformat/avformat.h>
#include <libavutil/pixdesc.h>
}

#include <cerrno>
#include <cmath>
#include <cstring>

namespace glr {

namespace {

std::string copy_of(const char *s) { return s ? s : ""; }
const char *pointer_to(const std::string &s, const char *original) { return original ? s.c_str() : nullptr; }

// A chunk joins by stream copy only when every chunk starts on a keyframe with the same
// headers: x264 is told so (stitchable; its GOPs are closed unless asked otherwise), x265
// to close its GOPs. Its range travels in the container's tags, which Matroska and NUT
// keep, with the timeline's timestamps as they are: a muxer that keeps decode times from
// going negative would shift a first chunk with B-frames (NUT does, by x264's two frames).
void make_joinable(export_shared &s)
{
    const glr_encoder_plan &plan = s.plan;
    if (std::strcmp(plan.container, "matroska") != 0 && std::strcmp(plan.container, "nut") != 0)
        glr::fail(-EINVAL, "%s: a chunk is written as Matroska (.mkv) or NUT (.nut), whose tags carry its frame range, "
                  "not %s", s.output.c_str(), plan.container);
    const char *unshifted = "avoid_negative_ts=disabled";
    s.format_options = s.format_options.empty() ? unshifted : s.format_options + ":" + unshifted;
    s.params.encoder.format_options = s.format_options.c_str();
    const char *joinable = std::strcmp(plan.video_encoder, "libx264") == 0   ? "x264-params=stitchable=1"
                           : std::strcmp(plan.video_encoder, "libx265") == 0 ? "x265-params=open-gop=0"
                                                                              : nullptr;
    if (!joinable)
        return;
    std::string key(joinable, std::strchr(joinable, '='));
    if (s.codec_options.find(key) != std::string::npos)
        glr::fail(-EINVAL, "a chunk sets %s itself, to make chunks joinable: give %s's other settings as codec "
                  "options of their own (preset=, crf=, g=)", joinable, plan.video_encoder);
    s.codec_options = s.codec_options.empty() ? joinable : s.codec_options + ":" + joinable;
    s.params.encoder.codec_options = s.codec_options.c_str();
}

// The encoder's metadata entries: s.metadata's, as key=value pointers with a NULL after.
void set_metadata(export_shared &s)
{
    s.metadata_entries.clear();
    for (const std::string &entry : s.metadata)
        s.metadata_entries.push_back(entry.c_str());
    s.metadata_entries.push_back(nullptr);
    s.params.encoder.metadata = s.metadata.empty() ? nullptr : s.metadata_entries.data();
}

} // namespace

void prepare_export(export_shared &s, glr_log *log, const glr_export_params &params)
{
    s.params = params;
    glr_export_params &p = s.params;
    const glr_player_params &pl = params.player;
    if (pl.width <= 0 || pl.height <= 0)
        glr::fail(-EINVAL, "glr_export_create: the size %dx%d is not a frame size", pl.width, pl.height);
    if (!pl.project)
        glr::fail(-EINVAL, "glr_export_create: player.project is NULL (glr_project_load gives one)");
    if (params.frame_count <= 0 || pl.first_frame < 0 || pl.first_frame > INT_MAX - params.frame_count)
        glr::fail(-EINVAL, "glr_export_create: frames %d + %d are no range of frame numbers", pl.first_frame,
                  params.frame_count);
    const bool piped = params.pipe.args != nullptr;
    if (!piped && !params.encoder.output)
        glr::fail(-EINVAL, "glr_export_create: encoder.output is NULL");
    if (piped && params.chunk)
        glr::fail(-EINVAL, "glr_export_create: a chunk is written by the in-process encoder (glr_join reads its tags), "
                           "not through a pipe");
    if (piped && params.encoder.audio.input)
        glr::fail(-EINVAL, "glr_export_create: the pipe carries the picture alone: give the sound file to ffmpeg's "
                           "own arguments (-i FILE), not encoder.audio.input");
    if (std::isnan(params.compile_timeout) || params.progress_interval_ms < 0 || params.ring_depth < 0)
        glr::fail(-EINVAL, "glr_export_create: compile_timeout is a number, progress_interval_ms and ring_depth >= 0");
    // From here on: the limit in seconds, 0 for none.
    p.compile_timeout = params.compile_timeout == 0 ? GLR_EXPORT_DEFAULT_COMPILE_TIMEOUT
                                                    : std::max(params.compile_timeout, 0.0);
    if (params.conversion != GLR_EXPORT_CONVERT_GPU && params.conversion != GLR_EXPORT_CONVERT_CPU)
        glr::fail(-EINVAL, "glr_export_create: unknown conversion %d", params.conversion);
    int hw = enum_value(params.hw_frames);
    if (hw < GLR_HW_FRAMES_AUTO || hw > GLR_HW_FRAMES_ON)
        glr::fail(-EINVAL, "glr_export_create: unknown hw_frames %d", hw);
    if (hw == GLR_HW_FRAMES_ON && piped)
        glr::fail(-EINVAL, "glr_export_create: hardware frames go to the in-process encoder, not through a pipe");
    s.hw_device = glr::copy_of(params.hw_device);
    p.hw_device = glr::pointer_to(s.hw_device, params.hw_device);
    if (!p.player.fps_num || !p.player.fps_den)
        p.player.fps_num = 30, p.player.fps_den = 1;

    s.date = glr::copy_of(pl.date);
    s.source = glr::copy_of(pl.source);
    s.source_name = glr::copy_of(pl.source_name);
    p.player.date = glr::pointer_to(s.date, pl.date);
    p.player.source = glr::pointer_to(s.source, pl.source);
    p.player.source_name = glr::pointer_to(s.source_name, pl.source_name);
    const glr_encoder_params &e = params.encoder;
    s.codec = glr::copy_of(e.codec);
    s.pix_fmt = glr::copy_of(e.pix_fmt);
    s.codec_options = glr::copy_of(e.codec_options);
    s.output = glr::copy_of(e.output);
    s.container = glr::copy_of(e.container);
    s.format_options = glr::copy_of(e.format_options);
    s.audio_input = glr::copy_of(e.audio.input);
    s.audio_codec = glr::copy_of(e.audio.codec);
    p.encoder.codec = glr::pointer_to(s.codec, e.codec);
    p.encoder.pix_fmt = glr::pointer_to(s.pix_fmt, e.pix_fmt);
    p.encoder.codec_options = glr::pointer_to(s.codec_options, e.codec_options);
    p.encoder.output = glr::pointer_to(s.output, e.output);
    p.encoder.container = glr::pointer_to(s.container, e.container);
    p.encoder.format_options = glr::pointer_to(s.format_options, e.format_options);
    p.encoder.audio.input = glr::pointer_to(s.audio_input, e.audio.input);
    p.encoder.audio.codec = glr::pointer_to(s.audio_codec, e.audio.codec);
    for (const char *const *entry = e.metadata; entry && *entry; entry++)
        s.metadata.emplace_back(*entry);
    for (const char *const *arg = params.pipe.args; arg && *arg; arg++)
        s.pipe_args.emplace_back(*arg);
    for (const std::string &arg : s.pipe_args)
        s.pipe_arg_entries.push_back(arg.c_str());
    s.pipe_arg_entries.push_back(nullptr);
    s.pipe_ffmpeg = glr::copy_of(params.pipe.ffmpeg);
    p.pipe.args = piped ? s.pipe_arg_entries.data() : nullptr;
    p.pipe.ffmpeg = glr::pointer_to(s.pipe_ffmpeg, params.pipe.ffmpeg);
    // The Image pass's alpha kept is the picture's transparency, which the encoder keeps.
    if (!p.encoder.alpha)
        p.encoder.alpha = glr::enum_value(p.player.alpha);
    set_metadata(s);
    if (pl.feeder) { // the caller's struct may go; its opaque stays
        s.feeder = *pl.feeder;
        p.player.feeder = &s.feeder;
    }

    glr_audio_params &audio = p.encoder.audio;
    bool sound_pass = !audio.input && !params.no_sound_pass && glr_project_has_sound_pass(pl.project);
    if (!audio.input && audio.sample_rate && !sound_pass)
        glr::fail(-EINVAL, "glr_export_create: encoder.audio.sample_rate without audio.input is the Sound pass's "
                           "rate, and %s",
                  params.no_sound_pass ? "no_sound_pass is set" : "the project has no Sound pass");
    // An output that holds no sound (an image sequence, a GIF) gets none; the player still
    // plays the Sound pass for the sound channels that hear it. A chunk keeps the samples as
    // they rendered, for the join to encode once over the whole.
    if (sound_pass && params.chunk) {
        if ((audio.codec && std::strcmp(audio.codec, chunk_sound_codec) != 0) || audio.bit_rate)
            glr::fail(-EINVAL, "glr_export_create: a chunk keeps the Sound pass as %s, for the join to encode once: "
                               "give the sound's codec and bit rate to the join (glreader-export join --audio-codec)",
                      chunk_sound_codec);
        if (audio.offset != 0 || audio.keep_longer)
            glr::fail(-EINVAL, "glr_export_create: a chunk keeps the Sound pass where its frames are: audio.offset and "
                               "keep_longer shape a sound file, which the join places");
        audio.codec = chunk_sound_codec;
    }
    s.mux_sound = sound_pass && !piped && (audio.codec || glr::holds_sound(p.encoder.container, p.encoder.output));
    if (sound_pass && !s.mux_sound)
        glr_log_message(log, GLR_LOG_INFO,
                           glr::format("%s holds no sound: the Sound pass is only heard by the sound channels "
                                       "without a file",
                                       piped ? "the pipe to ffmpeg" : p.encoder.output)
                               .c_str());
    if (sound_pass) {
        int &rate = s.sound_rate;
        rate = audio.sample_rate;
        if (!rate && s.feeder.sample_rate)
            rate = static_cast<int>(std::lround(s.feeder.sample_rate(s.feeder.opaque)));
        if (!rate)
            rate = GLR_SOUND_RATE_DEFAULT;
        if (rate < GLR_SOUND_RATE_MIN || rate > GLR_SOUND_RATE_MAX)
            glr::fail(-EINVAL, "glr_export_create: the Sound pass's sample rate %d Hz is outside %d..%d", rate,
                      GLR_SOUND_RATE_MIN, GLR_SOUND_RATE_MAX);
        long long end = glr_frame_first_sample(pl.first_frame + params.frame_count, rate, p.player.fps_num, p.player.fps_den);
        if (s.mux_sound && end > INT32_MAX)
            glr::fail(-EINVAL, "glr_export_create: the Sound pass renders up to sample 2^31 - 1 (%.0f s at %d Hz); the "
                               "range ends at sample %lld: render it without the Sound pass, or in parts",
                      INT32_MAX / static_cast<double>(rate), rate, end);
        if (s.mux_sound) {
            audio.sample_rate = rate;
            audio.channels = 2;
        }
    }
    if (!s.mux_sound && !audio.input)
        audio.sample_rate = 0; // no sound track

    // What the encoder will be, checked now, before any GL (an unknown codec or option, a
    // container that cannot hold the codec): for RGB frames, then the ring format is the
    // encoder's own YUV made on the GPU, or BGRA for libswscale (also what ffv1 and
    // rawvideo take as it is).
    if (piped) { // ffmpeg reads the ring's frames as they are: NV12, or BGRA it converts
        s.ring_format = params.ring_format                                  ? params.ring_format
                        : params.conversion == GLR_EXPORT_CONVERT_GPU ? GLR_FORMAT_NV12
                                                                      : GLR_FORMAT_BGRA8;
        s.plan.format = s.ring_format;
        return;
    }
    glr_encoder_params ep = s.encoder_params();
    ep.width = pl.width;
    ep.height = pl.height;
    ep.fps_num = p.player.fps_num;
    ep.fps_den = p.player.fps_den;
    ep.format = GLR_FORMAT_BGRA8;
    s.plan = glr_encoder::check(log, ep);
    if (params.chunk) {
        make_joinable(s);
        ep.codec_options = p.encoder.codec_options;
        ep.format_options = p.encoder.format_options;
        // The options added, tried; and what glr_join reads back: the chunk's place on the
        // timeline, and the colour its stream is tagged with, which not every chunk's
        // container keeps.
        glr::color_tags c;
        s.plan = glr_encoder::check(log, ep, &c);
        glr::chunk_range tag{pl.first_frame, params.frame_count, p.player.fps_num, p.player.fps_den,
                             glr::format("%s/%s/%s/%s/%s", av_color_range_name(c.range),
                                         av_color_primaries_name(c.primaries), av_color_transfer_name(c.transfer),
                                         av_color_space_name(c.matrix), av_chroma_location_name(c.chroma))};
        s.metadata.push_back(std::string(GLR_EXPORT_CHUNK_TAG) + "=" + glr::chunk_tag_value(tag));
        set_metadata(s);
    }
    bool updates_one_file = p.encoder.format_options && std::strstr(p.encoder.format_options, "update=1");
    if (std::strcmp(s.plan.container, "image2") == 0 && params.frame_count > 1 &&
        !av_filename_number_test(p.encoder.output) && !updates_one_file)
        glr::fail(-EINVAL,
                  "%s names one picture, and %d frames were asked for: name a numbered sequence (frames/%%05d.png), "
                  "render one frame, or write a video file (.mp4, .mkv)",
                  p.encoder.output, params.frame_count);
    s.ring_format = params.ring_format                                  ? params.ring_format
                    : params.conversion == GLR_EXPORT_CONVERT_GPU ? s.plan.format
                                                                  : GLR_FORMAT_BGRA8;
}

} // namespace glr
