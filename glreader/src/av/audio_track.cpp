#include "av/audio_track.hpp"

#include "av/av_error.hpp"
#include "error.hpp"
#include "glreader/frame_range.h"

extern "C" {
#include <libavutil/channel_layout.h>
#include <libavutil/opt.h>
}

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>

namespace glr {

namespace {

// The first of an encoder's sample formats, preferring planar float (what most take).
AVSampleFormat pick_sample_format(const AVCodec *codec)
{
    const AVSampleFormat *formats = nullptr;
#if LIBAVCODEC_VERSION_INT >= AV_VERSION_INT(61, 13, 100)
    avcodec_get_supported_config(nullptr, codec, AV_CODEC_CONFIG_SAMPLE_FORMAT, 0,
                                 reinterpret_cast<const void **>(&formats), nullptr);
#else
    formats = codec->sample_fmts;
#endif
    if (!formats)
        return AV_SAMPLE_FMT_FLTP;
    for (const AVSampleFormat *f = formats; *f != AV_SAMPLE_FMT_NONE; f++)
        if (*f == AV_SAMPLE_FMT_FLTP)
            return *f;
    return formats[0];
}

// The source's rate if the encoder takes it, else the closest it takes above it (Opus:
// 48 kHz for 44.1 kHz), else its highest.
int pick_sample_rate(const AVCodec *codec, int wanted)
{
    const int *rates = nullptr;
#if LIBAVCODEC_VERSION_INT >= AV_VERSION_INT(61, 13, 100)
    avcodec_get_supported_config(nullptr, codec, AV_CODEC_CONFIG_SAMPLE_RATE, 0,
                                 reinterpret_cast<const void **>(&rates), nullptr);
#else
    rates = codec->supported_samplerates;
#endif
    if (!rates)
        return wanted;
    int above = 0, highest = 0;
    for (const int *r = rates; *r; r++) {
        if (*r == wanted)
            return wanted;
        if (*r > wanted && (!above || *r < above))
            above = *r;
        highest = std::max(highest, *r);
    }
    return above ? above : highest;
}

} // namespace

audio_track::audio_track(const glr_audio_params &p, const encoder_plan &plan, AVFormatContext *muxer,
                         int64_t first_frame, AVRational fps)
    : keep_longer_(p.keep_longer != 0)
{
    try {
        if (p.input)
            open_input(p.input);
        else if (p.sample_rate <= 0 || p.channels <= 0 || p.channels > 8)
            fail(-EINVAL, "glr_encoder_create: the audio track needs an input file, or a sample rate and 1..8 "
                          "channels for submitted PCM (given %d Hz, %d channels)",
                 p.sample_rate, p.channels);
        pcm_channels_ = p.input ? 0 : p.channels;
        if (p.input && first_frame && p.codec && std::strcmp(p.codec, "copy") == 0)
            fail(-EINVAL, "glr_encoder_create: audio copied as it is cannot start at frame %lld: re-encode it",
                 static_cast<long long>(first_frame));
        if (p.input && !first_frame && copies(p, plan, muxer->oformat))
            open_copy(muxer);
        else
            open_encoder(p, plan.audio, muxer);
        if (first_frame) { // frame 0 starts at sample 0, whatever the rate says
            origin_ = glr_frame_first_sample(first_frame, rate_, fps.num, fps.den);
            if (!p.input)
                pcm_next_ = glr_frame_first_sample(first_frame, p.sample_rate, fps.num, fps.den);
        }
        if (p.offset > 0)
            leading_silence_ = std::llround(p.offset * rate_);
        else
            skip_ = std::llround(-p.offset * rate_);
    } catch (...) {
        release();
        throw;
    }
}

audio_track::~audio_track() { release(); }

void audio_track::release()
{
    av_packet_free(&packet_);
    av_frame_free(&frame_);
    avcodec_free_context(&encoder_);
    av_audio_fifo_free(fifo_);
    fifo_ = nullptr;
    swr_free(&swr_);
    avcodec_free_context(&decoder_);
    avformat_close_input(&input_);
}

void audio_track::open_input(const char *url)
{
    int rc = avformat_open_input(&input_, url, nullptr, nullptr);
    if (rc < 0)
        fail(code_of_av_error(rc), "glr_encoder_create: cannot open the audio input %s: %s", url,
             av_error_text(rc).c_str());
    avformat_find_stream_info(input_, nullptr);
    const AVCodec *codec = nullptr;
    input_stream_ = av_find_best_stream(input_, AVMEDIA_TYPE_AUDIO, -1, -1, &codec, 0);
    if (input_stream_ < 0 || !codec)
        fail(-EINVAL, "glr_encoder_create: %s has no audio stream this FFmpeg can decode", url);
    decoder_ = avcodec_alloc_context3(codec);
    if (!decoder_)
        fail(-ENOMEM, "out of memory");
    avcodec_parameters_to_context(decoder_, input_->streams[input_stream_]->codecpar);
    // The packets' time base: a decoder that skips samples (an MP3's encoder delay, which
    // every LAME file has) moves its frames' timestamps in it, and warns without it.
    decoder_->pkt_timebase = input_->streams[input_stream_]->time_base;
    if ((rc = avcodec_open2(decoder_, codec, nullptr)) < 0)
        fail(code_of_av_error(rc), "glr_encoder_create: cannot decode the audio of %s: %s", url,
             av_error_text(rc).c_str());
    if (decoder_->ch_layout.order == AV_CHANNEL_ORDER_UNSPEC)
        av_channel_layout_default(&decoder_->ch_layout, decoder_->ch_layout.nb_channels);
    input_done_ = false;
}

bool audio_track::copies(const glr_audio_params &p, const encoder_plan &plan, const AVOutputFormat *muxer) const
{
    AVCodecID source = input_->streams[input_stream_]->codecpar->codec_id;
    bool holds = avformat_query_codec(muxer, source, FF_COMPLIANCE_NORMAL) == 1;
    if (p.codec && std::strcmp(p.codec, "copy") == 0) {
        if (!holds)
            fail(-EINVAL, "glr_encoder_create: the %s muxer cannot hold %s audio as it is: choose an encoder",
                 muxer->name, avcodec_get_name(source));
        if (p.offset != 0)
            fail(-EINVAL, "glr_encoder_create: audio copied as it is cannot start at an offset: re-encode it");
        return true;
    }
    // Already what the container takes, and nothing to shift: no generation is lost.
    return plan.audio_default == source && holds && p.offset == 0;
}

void audio_track::open_copy(AVFormatContext *muxer)
{
    const AVStream *in = input_->streams[input_stream_];
    stream_ = avformat_new_stream(muxer, nullptr);
    packet_ = av_packet_alloc();
    if (!stream_ || !packet_)
        fail(-ENOMEM, "out of memory");
    int rc = avcodec_parameters_copy(stream_->codecpar, in->codecpar);
    if (rc < 0)
        fail(code_of_av_error(rc), "glr_encoder_create: cannot copy the audio stream: %s", av_error_text(rc).c_str());
    stream_->codecpar->codec_tag = 0; // the muxer's own tag for the codec
    stream_->time_base = in->time_base;
    rate_ = in->codecpar->sample_rate;
    copy_start_ = in->start_time == AV_NOPTS_VALUE ? 0 : in->start_time;
    copy_ = true;
}

void audio_track::copy_until(double seconds, const packet_sink &write)
{
    const AVRational in_tb = input_->streams[input_stream_]->time_base;
    int64_t limit = std::isfinite(seconds) ? std::llround(seconds / av_q2d(in_tb)) : INT64_MAX;
    for (;;) {
        if (!held_) {
            if (av_read_frame(input_, packet_) < 0)
                return;
            if (packet_->stream_index != input_stream_ || packet_->pts == AV_NOPTS_VALUE) {
                av_packet_unref(packet_);
                continue;
            }
            packet_->pts -= copy_start_;
            packet_->dts -= copy_start_;
            held_ = true;
        }
        if (packet_->pts >= limit)
            return; // for a later call, or past the end
        int64_t end = packet_->pts + packet_->duration;
        encoded_ = std::max(encoded_, av_rescale_q(end, in_tb, AVRational{1, rate_}));
        av_packet_rescale_ts(packet_, in_tb, stream_->time_base);
        packet_->stream_index = stream_->index;
        packet_->pos = -1;
        held_ = false;
        write(packet_);
    }
}

void audio_track::open_encoder(const glr_audio_params &p, const AVCodec *codec, AVFormatContext *muxer)
{
    if (!codec) // "copy" of no input's packets
        fail(-EINVAL, "glr_encoder_create: audio codec \"copy\" copies a sound file's packets; submitted PCM is "
                      "encoded: name an encoder, or none for the container's own");
    encoder_ = avcodec_alloc_context3(codec);
    if (!encoder_)
        fail(-ENOMEM, "out of memory");
    AVChannelLayout layout{};
    int source_rate = p.input ? decoder_->sample_rate : p.sample_rate;
    if (p.input)
        av_channel_layout_copy(&layout, &decoder_->ch_layout);
    else
        av_channel_layout_default(&layout, p.channels);
    rate_ = pick_sample_rate(codec, source_rate);
    encoder_->sample_rate = rate_;
    encoder_->sample_fmt = pick_sample_format(codec);
    av_channel_layout_copy(&encoder_->ch_layout, &layout);
    encoder_->time_base = AVRational{1, rate_};
    if (p.bit_rate > 0)
        encoder_->bit_rate = p.bit_rate;
    if (muxer->oformat->flags & AVFMT_GLOBALHEADER)
        encoder_->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    int rc = avcodec_open2(encoder_, codec, nullptr);
    if (rc < 0)
        fail(code_of_av_error(rc), "glr_encoder_create: cannot open the audio encoder %s (%d Hz, %d channels): %s",
             codec->name, rate_, layout.nb_channels, av_error_text(rc).c_str());

    // Whatever the source gives, the FIFO holds the encoder's own samples.
    AVSampleFormat source_format = p.input ? decoder_->sample_fmt : AV_SAMPLE_FMT_FLT;
    rc = swr_alloc_set_opts2(&swr_, &encoder_->ch_layout, encoder_->sample_fmt, rate_, &layout, source_format,
                             source_rate, 0, nullptr);
    av_channel_layout_uninit(&layout);
    if (rc < 0 || (rc = swr_init(swr_)) < 0)
        fail(GLR_ERROR_CODEC, "glr_encoder_create: cannot resample the audio for %s: %s", codec->name,
             av_error_text(rc).c_str());
    fifo_ = av_audio_fifo_alloc(encoder_->sample_fmt, encoder_->ch_layout.nb_channels, rate_);
    frame_ = av_frame_alloc();
    packet_ = av_packet_alloc();
    stream_ = avformat_new_stream(muxer, nullptr);
    if (!fifo_ || !frame_ || !packet_ || !stream_)
        fail(-ENOMEM, "out of memory");
    avcodec_parameters_from_context(stream_->codecpar, encoder_);
    stream_->time_base = encoder_->time_base;
}

void audio_track::resample_into_fifo(const uint8_t *const *data, int samples)
{
    int out_max = swr_get_out_samples(swr_, samples);
    if (out_max <= 0)
        return;
    uint8_t **out = nullptr;
    if (av_samples_alloc_array_and_samples(&out, nullptr, encoder_->ch_layout.nb_channels, out_max,
                                           encoder_->sample_fmt, 0) < 0)
        fail(-ENOMEM, "out of memory");
    // 5.1 takes const uint8_t **, later releases const uint8_t *const *.
    int got = swr_convert(swr_, out, out_max, const_cast<const uint8_t **>(data), samples);
    int drop = static_cast<int>(std::min<int64_t>(skip_, std::max(got, 0)));
    skip_ -= drop;
    if (got > drop) {
        // Dropping the start of the sound (a negative offset): write from sample `drop` on.
        uint8_t *planes[AV_NUM_DATA_POINTERS] = {};
        int plane_count = av_sample_fmt_is_planar(encoder_->sample_fmt) ? encoder_->ch_layout.nb_channels : 1;
        int step = av_get_bytes_per_sample(encoder_->sample_fmt) *
                   (av_sample_fmt_is_planar(encoder_->sample_fmt) ? 1 : encoder_->ch_layout.nb_channels);
        for (int c = 0; c < plane_count; c++)
            planes[c] = out[c] + drop * step;
        av_audio_fifo_write(fifo_, reinterpret_cast<void **>(planes), got - drop);
        produced_ += got - drop;
    }
    av_freep(&out[0]);
    av_freep(&out);
    if (got < 0)
        fail(GLR_ERROR_CODEC, "resampling the audio failed: %s", av_error_text(got).c_str());
}

void audio_track::add_silence(int64_t samples)
{
    while (samples > 0) {
        int n = static_cast<int>(std::min<int64_t>(samples, 4096));
        uint8_t **silence = nullptr;
        if (av_samples_alloc_array_and_samples(&silence, nullptr, encoder_->ch_layout.nb_channels, n,
                                               encoder_->sample_fmt, 0) < 0)
            fail(-ENOMEM, "out of memory");
        av_samples_set_silence(silence, 0, n, encoder_->ch_layout.nb_channels, encoder_->sample_fmt);
        av_audio_fifo_write(fifo_, reinterpret_cast<void **>(silence), n);
        av_freep(&silence[0]);
        av_freep(&silence);
        produced_ += n;
        samples -= n;
    }
}

void audio_track::read_input(int64_t wanted)
{
    AVFrame *decoded = av_frame_alloc();
    AVPacket *packet = av_packet_alloc();
    if (!decoded || !packet) {
        av_frame_free(&decoded);
        av_packet_free(&packet);
        fail(-ENOMEM, "out of memory");
    }
    auto drain_decoder = [&] {
        while (avcodec_receive_frame(decoder_, decoded) == 0) {
            resample_into_fifo(const_cast<const uint8_t *const *>(decoded->extended_data), decoded->nb_samples);
            av_frame_unref(decoded);
        }
    };
    while (!input_done_ && produced_ < wanted) {
        int rc = av_read_frame(input_, packet);
        if (rc < 0) { // the end (or a broken file: what was read stays)
            avcodec_send_packet(decoder_, nullptr);
            drain_decoder();
            resample_into_fifo(nullptr, 0); // what the resampler still holds
            input_done_ = true;
            break;
        }
        if (packet->stream_index == input_stream_ && avcodec_send_packet(decoder_, packet) == 0)
            drain_decoder();
        av_packet_unref(packet);
    }
    av_frame_free(&decoded);
    av_packet_free(&packet);
}

void audio_track::submit(const float *samples, int frames, int64_t pts)
{
    if (!pcm_channels_)
        fail(-EINVAL, "glr_encoder_submit_audio: this encoder has no PCM audio track (audio.sample_rate, and "
                      "no audio.input)");
    if (!samples || frames <= 0)
        fail(-EINVAL, "glr_encoder_submit_audio: no samples");
    std::lock_guard<std::mutex> lock(mutex_);
    if (pts < pcm_next_)
        fail(-EINVAL, "glr_encoder_submit_audio: pts %lld is before %lld, the end of what was submitted or the "
                      "track's start",
             static_cast<long long>(pts), static_cast<long long>(pcm_next_));
    if (pts > pcm_next_) // a gap: silence
        submitted_.emplace_back(static_cast<size_t>((pts - pcm_next_) * pcm_channels_), 0.0f);
    submitted_.emplace_back(samples, samples + static_cast<size_t>(frames) * static_cast<size_t>(pcm_channels_));
    pcm_next_ = pts + frames;
}

void audio_track::take_submitted()
{
    std::deque<std::vector<float>> taken;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        taken.swap(submitted_);
    }
    for (const std::vector<float> &block : taken) {
        const uint8_t *data[1] = {reinterpret_cast<const uint8_t *>(block.data())};
        resample_into_fifo(data, static_cast<int>(block.size() / static_cast<size_t>(pcm_channels_)));
    }
}

void audio_track::send(AVFrame *frame, const packet_sink &write)
{
    int rc = avcodec_send_frame(encoder_, frame);
    if (rc < 0)
        fail(code_of_av_error(rc), "audio encoder %s failed: %s", encoder_->codec->name, av_error_text(rc).c_str());
    while ((rc = avcodec_receive_packet(encoder_, packet_)) == 0) {
        av_packet_rescale_ts(packet_, encoder_->time_base, stream_->time_base);
        packet_->stream_index = stream_->index;
        write(packet_);
    }
    if (rc != AVERROR(EAGAIN) && rc != AVERROR_EOF)
        fail(code_of_av_error(rc), "audio encoder %s failed: %s", encoder_->codec->name, av_error_text(rc).c_str());
}

void audio_track::encode(int64_t up_to, bool last, const packet_sink &write)
{
    const int frame_size = encoder_->frame_size > 0 ? encoder_->frame_size : 1024;
    while (encoded_ < up_to && av_audio_fifo_size(fifo_) > 0) {
        int n = static_cast<int>(std::min<int64_t>({frame_size, up_to - encoded_, av_audio_fifo_size(fifo_)}));
        if (n < frame_size && !last)
            break; // whole frames only: just the very last one may be short
        av_frame_unref(frame_);
        frame_->nb_samples = n;
        frame_->format = encoder_->sample_fmt;
        frame_->sample_rate = rate_;
        av_channel_layout_copy(&frame_->ch_layout, &encoder_->ch_layout);
        if (av_frame_get_buffer(frame_, 0) < 0)
            fail(-ENOMEM, "out of memory");
        av_audio_fifo_read(fifo_, reinterpret_cast<void **>(frame_->data), n);
        frame_->pts = origin_ + encoded_;
        encoded_ += n;
        send(frame_, write);
    }
}

void audio_track::produce(int64_t wanted)
{
    // The offset's silence first, as far as wanted; the sound only once it is all out.
    int64_t silence = std::min(leading_silence_, std::max<int64_t>(0, wanted - produced_));
    add_silence(silence);
    leading_silence_ -= silence;
    if (leading_silence_ > 0)
        return;
    take_submitted();
    read_input(wanted);
}

void audio_track::pump(double seconds, const packet_sink &write)
{
    if (copy_)
        return copy_until(seconds, write);
    auto until = static_cast<int64_t>(std::floor(seconds * rate_)) - origin_;
    produce(until);
    encode(std::min(until, produced_), false, write);
}

void audio_track::finish(double video_seconds, const packet_sink &write)
{
    if (copy_) {
        // As it is: what starts before the end, or all of it when kept longer.
        copy_until(keep_longer_ ? INFINITY : video_seconds, write);
        if (held_)
            av_packet_unref(packet_);
        held_ = false;
        return;
    }
    auto video_end = static_cast<int64_t>(std::llround(video_seconds * rate_)) - origin_;
    int64_t limit = keep_longer_ ? INT64_MAX : video_end;
    // A second of sound at a time, so that a long one kept whole never sits in memory.
    while ((leading_silence_ > 0 || !input_done_) && produced_ < limit) {
        produce(std::min(limit, produced_ + rate_));
        encode(std::min(limit, produced_), false, write);
    }
    take_submitted();
    int64_t end = keep_longer_ ? std::max(produced_, video_end) : video_end;
    while (produced_ < end) { // a shorter sound: silence to the end, a second at a time
        add_silence(std::min<int64_t>(end - produced_, rate_));
        encode(std::min(end, produced_), false, write);
    }
    encode(end, true, write);
    send(nullptr, write); // the encoder's delayed packets
}

} // namespace glr
