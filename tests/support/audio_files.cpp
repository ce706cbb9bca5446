#include "audio_files.hpp"

#include "gl_test.hpp"
#include "process.hpp"

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/channel_layout.h>
#include <libswresample/swresample.h>
}

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>

namespace glr_test {

namespace {

void put(std::ofstream &out, uint32_t value, int bytes)
{
    for (int i = 0; i < bytes; i++)
        out.put(static_cast<char>((value >> (8 * i)) & 0xff));
}

} // namespace

std::string write_wav(const std::string &name, int sample_rate, int channels, const std::vector<int16_t> &samples)
{
    std::string path = scratch_path(name);
    std::ofstream out(path, std::ios::binary);
    auto data_bytes = static_cast<uint32_t>(samples.size() * 2);
    out.write("RIFF", 4);
    put(out, 36 + data_bytes, 4);
    out.write("WAVEfmt ", 8);
    put(out, 16, 4);
    put(out, 1, 2); // PCM
    put(out, static_cast<uint32_t>(channels), 2);
    put(out, static_cast<uint32_t>(sample_rate), 4);
    put(out, static_cast<uint32_t>(sample_rate * channels * 2), 4);
    put(out, static_cast<uint32_t>(channels * 2), 2);
    put(out, 16, 2);
    out.write("data", 4);
    put(out, data_bytes, 4);
    for (int16_t s : samples)
        put(out, static_cast<uint16_t>(s), 2);
    return path;
}

namespace {

// What decode_sound holds while it reads, freed however it ends.
struct sound_reader {
    AVFormatContext *format = nullptr;
    AVCodecContext *codec = nullptr;
    SwrContext *swr = nullptr;
    AVPacket *packet = av_packet_alloc();
    AVFrame *frame = av_frame_alloc();
    ~sound_reader()
    {
        av_frame_free(&frame);
        av_packet_free(&packet);
        swr_free(&swr);
        avcodec_free_context(&codec);
        avformat_close_input(&format);
    }
};

// Where the file's timeline starts, in seconds: its first picture (the video stream's first
// timestamp); in a file of sound alone, its first sound (as ffmpeg starts one: an MP3's
// first frame is stamped after the encoder's delay it skips).
double timeline_origin(const AVFormatContext *format)
{
    int video = av_find_best_stream(const_cast<AVFormatContext *>(format), AVMEDIA_TYPE_VIDEO, -1, -1, nullptr, 0);
    if (video >= 0 && format->streams[video]->start_time != AV_NOPTS_VALUE)
        return static_cast<double>(format->streams[video]->start_time) * av_q2d(format->streams[video]->time_base);
    return format->start_time == AV_NOPTS_VALUE ? 0 : static_cast<double>(format->start_time) / AV_TIME_BASE;
}

// The initial padding of FFmpeg's encoder of the stream's codec, opened as the stream is, in
// samples at sample_rate (0 where no encoder of it opens).
int64_t encoder_priming(const AVCodecParameters *stream, int sample_rate)
{
    const AVCodec *encoder = avcodec_find_encoder(stream->codec_id);
    AVCodecContext *c = encoder ? avcodec_alloc_context3(encoder) : nullptr;
    if (!c)
        return 0;
    const AVSampleFormat *formats = nullptr;
#if LIBAVCODEC_VERSION_INT >= AV_VERSION_INT(61, 13, 100)
    avcodec_get_supported_config(nullptr, encoder, AV_CODEC_CONFIG_SAMPLE_FORMAT, 0,
                                 reinterpret_cast<const void **>(&formats), nullptr);
#else
    formats = encoder->sample_fmts;
#endif
    c->sample_fmt = formats ? formats[0] : AV_SAMPLE_FMT_FLTP;
    c->sample_rate = stream->sample_rate;
    c->time_base = {1, stream->sample_rate};
    c->strict_std_compliance = FF_COMPLIANCE_EXPERIMENTAL;
    int64_t padding = av_channel_layout_copy(&c->ch_layout, &stream->ch_layout) == 0 &&
                              avcodec_open2(c, encoder, nullptr) == 0
                          ? c->initial_padding
                          : 0;
    avcodec_free_context(&c);
    return av_rescale(padding, sample_rate, stream->sample_rate);
}

} // namespace

decoded_sound decode_sound(const std::string &path, int sample_rate, int channels)
{
    decoded_sound out;
    sound_reader r;
    int stream = -1;
    const AVCodec *decoder = nullptr;
    if (!r.packet || !r.frame || avformat_open_input(&r.format, path.c_str(), nullptr, nullptr) < 0 ||
        avformat_find_stream_info(r.format, nullptr) < 0 ||
        (stream = av_find_best_stream(r.format, AVMEDIA_TYPE_AUDIO, -1, -1, &decoder, 0)) < 0 ||
        !(r.codec = avcodec_alloc_context3(decoder)) ||
        avcodec_parameters_to_context(r.codec, r.format->streams[stream]->codecpar) < 0 ||
        // The packets' time base: the decoder moves a frame's timestamp past the samples it
        // skips (an encoder's delay), as ffmpeg's does.
        (r.codec->pkt_timebase = r.format->streams[stream]->time_base, avcodec_open2(r.codec, decoder, nullptr)) < 0) {
        out.error = "no sound of " + path + " decodes";
        return out;
    }
    const AVRational time_base = r.format->streams[stream]->time_base;
    const double origin = timeline_origin(r.format);
    out.tolerance = std::max<int64_t>(1, static_cast<int64_t>(std::ceil(av_q2d(time_base) * sample_rate)));
    AVChannelLayout layout{};
    av_channel_layout_default(&layout, channels);
    int64_t next = 0; // where the frame that follows the last one belongs, in samples
    bool first = true;
    std::vector<int16_t> converted;
    auto take = [&](AVFrame *f) {
        if (!r.swr && swr_alloc_set_opts2(&r.swr, &layout, AV_SAMPLE_FMT_S16, sample_rate, &f->ch_layout,
                                          static_cast<AVSampleFormat>(f->format), f->sample_rate, 0, nullptr) < 0) {
            out.error = "cannot convert the sound of " + path;
            return;
        }
        if (!swr_is_initialized(r.swr) && swr_init(r.swr) < 0) {
            out.error = "cannot convert the sound of " + path;
            return;
        }
        // Where this frame plays, from its timestamp; the conversion's own delay is the
        // converter's, not the file's.
        int64_t at = f->best_effort_timestamp == AV_NOPTS_VALUE
                         ? next
                         : std::llround((static_cast<double>(f->best_effort_timestamp) * av_q2d(time_base) - origin) *
                                        sample_rate) -
                               swr_get_delay(r.swr, sample_rate);
        int room = swr_get_out_samples(r.swr, f->nb_samples);
        converted.resize(static_cast<size_t>(room) * static_cast<size_t>(channels));
        auto *to = reinterpret_cast<uint8_t *>(converted.data());
        int got = swr_convert(r.swr, &to, room, const_cast<const uint8_t **>(f->extended_data), f->nb_samples);
        if (got < 0) {
            out.error = "cannot convert the sound of " + path;
            return;
        }
        if (first)
            out.start = at;
        else if (std::llabs(at - next) > out.tolerance)
            out.breaks.push_back(at);
        if (std::llabs(at - (first ? 0 : next)) <= out.tolerance) // a timestamp's rounding is no break
            at = first ? 0 : next;
        first = false;
        // Before the first picture: dropped from the timeline, as a player drops it.
        int64_t skip = std::max<int64_t>(0, -at);
        if (at > static_cast<int64_t>(out.samples.size()) / channels)
            out.samples.resize(static_cast<size_t>(at) * static_cast<size_t>(channels), 0); // silence until then
        size_t from = static_cast<size_t>(std::max<int64_t>(at, 0)) * static_cast<size_t>(channels);
        if (from < out.samples.size()) // an overlap: the later frame's samples stand
            out.samples.resize(from);
        if (skip < got)
            out.samples.insert(out.samples.end(), converted.begin() + skip * channels,
                               converted.begin() + static_cast<std::ptrdiff_t>(got) * channels);
        next = at + got;
    };
    auto receive = [&] {
        while (out.error.empty() && avcodec_receive_frame(r.codec, r.frame) >= 0) {
            take(r.frame);
            av_frame_unref(r.frame);
        }
    };
    while (out.error.empty() && av_read_frame(r.format, r.packet) >= 0) {
        if (r.packet->stream_index == stream && avcodec_send_packet(r.codec, r.packet) >= 0)
            receive();
        av_packet_unref(r.packet);
    }
    avcodec_send_packet(r.codec, nullptr);
    receive();
    if (r.swr && out.error.empty()) { // what the converter still holds (resampling's delay)
        converted.resize(static_cast<size_t>(swr_get_out_samples(r.swr, 0)) * static_cast<size_t>(channels));
        auto *to = reinterpret_cast<uint8_t *>(converted.data());
        int got = swr_convert(r.swr, &to, static_cast<int>(converted.size()) / channels, nullptr, 0);
        if (got > 0)
            out.samples.insert(out.samples.end(), converted.begin(), converted.begin() + static_cast<std::ptrdiff_t>(got) * channels);
    }
    if (first && out.error.empty())
        out.error = path + " holds no sound";
    // Only where the sound starts off the first picture (opening an encoder costs, and
    // libvorbis's leaks a block).
    if (std::llabs(out.start) > out.tolerance)
        out.priming = encoder_priming(r.format->streams[stream]->codecpar, sample_rate);
    return out;
}

::testing::AssertionResult in_step_with_the_pictures(const decoded_sound &sound)
{
    if (!sound.error.empty())
        return ::testing::AssertionFailure() << sound.error;
    if (std::llabs(sound.start) > sound.tolerance && std::llabs(sound.start + sound.priming) > sound.tolerance)
        return ::testing::AssertionFailure() << "the sound starts " << sound.start
                                             << " samples after the first picture (its encoder's priming: "
                                             << sound.priming << ")";
    if (!sound.breaks.empty())
        return ::testing::AssertionFailure() << "the sound breaks at sample " << sound.breaks.front() << " ("
                                             << sound.breaks.size() << " breaks)";
    return ::testing::AssertionSuccess();
}

std::vector<int16_t> decode_audio(const std::string &path, int sample_rate, int channels)
{
    decoded_sound sound = decode_sound(path, sample_rate, channels);
    return sound.error.empty() ? sound.samples : std::vector<int16_t>{};
}

double played_priming_seconds(const std::string &path)
{
    if (avformat_version() >= AV_VERSION_INT(61, 0, 0))
        return 0;
    AVFormatContext *format = nullptr;
    if (avformat_open_input(&format, path.c_str(), nullptr, nullptr) < 0)
        return 0;
    double seconds = 0;
    int index = av_find_best_stream(format, AVMEDIA_TYPE_AUDIO, -1, -1, nullptr, 0);
    if (index >= 0 && std::strstr(format->iformat->name, "matroska")) {
        const AVCodecParameters *audio = format->streams[index]->codecpar;
        if (audio->codec_id == AV_CODEC_ID_AAC && audio->sample_rate > 0)
            seconds = 1024.0 / audio->sample_rate;
    }
    avformat_close_input(&format);
    return seconds;
}

} // namespace glr_test
