// glr_join: chunks made by the export job (glr_export_params.chunk) joined by stream copy.
// Every chunk is opened and checked before the output exists; then their packets are
// copied in frame order, stamped in frames as a single pass stamps them, and the sound (a
// file, or the Sound pass the chunks kept as PCM) is encoded once alongside (audio_track,
// as the encoder does it).
#include "glreader/av/export.h"
#include "glreader/av/join.h"
#include "glreader/frame_range.h"

#include "av/audio_track.hpp"
#include "av/av_error.hpp"
#include "av/chunk_tag.hpp"
#include "av/codec_choice.hpp"
#include "av/encoder_plan.hpp"
#include "av/output.hpp"
#include "error.hpp"
#include "guarded.hpp"
#include "latency.hpp"

extern "C" {
#include <libavformat/avformat.h>
#include <libavutil/intreadwrite.h>
#include <libavutil/pixdesc.h>
}

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace glr {

namespace {

struct chunk : chunk_range {
    std::string url;
    AVFormatContext *input = nullptr;
    const AVStream *stream = nullptr;
    const AVStream *sound = nullptr; // the Sound pass, as it rendered (chunk_sound_codec)

    explicit chunk(const char *u) : url(u) {}
    ~chunk() { avformat_close_input(&input); }
    chunk(const chunk &) = delete;
    chunk &operator=(const chunk &) = delete;
    std::string range() const { return format("frames %d-%d", first, first + frames); }
};

// Opens a chunk and reads what it says of itself; throws with words when it is no chunk.
void open_chunk(chunk &c)
{
    int rc = avformat_open_input(&c.input, c.url.c_str(), nullptr, nullptr);
    if (rc < 0)
        fail(code_of_av_error(rc), "glr_join: %s cannot be opened: %s", c.url.c_str(), av_error_text(rc).c_str());
    if ((rc = avformat_find_stream_info(c.input, nullptr)) < 0)
        fail(code_of_av_error(rc), "glr_join: %s cannot be read: %s", c.url.c_str(), av_error_text(rc).c_str());
    const AVDictionaryEntry *tag = av_dict_get(c.input->metadata, GLR_EXPORT_CHUNK_TAG, nullptr, 0);
    if (!tag || !read_chunk_tag(tag->value, c))
        fail(-EINVAL, "glr_join: %s is not a glreader chunk: it has no %s tag giving its frame range (chunks are "
                      "made by glreader-export --frames A-B)",
             c.url.c_str(), GLR_EXPORT_CHUNK_TAG);
    for (unsigned i = 0; i < c.input->nb_streams; i++) {
        const AVStream *s = c.input->streams[i];
        const AVCodecParameters *par = s->codecpar;
        if (par->codec_type == AVMEDIA_TYPE_VIDEO && !c.stream)
            c.stream = s;
        else if (par->codec_type == AVMEDIA_TYPE_AUDIO && !c.sound && par->codec_id == AV_CODEC_ID_PCM_S16LE &&
                 par->sample_rate > 0 && par->ch_layout.nb_channels > 0)
            c.sound = s;
        else
            fail(-EINVAL, "glr_join: %s holds a stream of %s (stream %u) that no glreader chunk holds: a chunk holds "
                          "one video stream, and its Sound pass as %s",
                 c.url.c_str(), avcodec_get_name(par->codec_id), i, chunk_sound_codec);
    }
    if (!c.stream)
        fail(-EINVAL, "glr_join: %s holds no video stream", c.url.c_str());
}

// The first way b's video differs from a's that a stream copy cannot join, in words; "" when none.
std::string difference(const chunk &a, const chunk &b)
{
    const AVCodecParameters *x = a.stream->codecpar, *y = b.stream->codecpar;
    auto pix = [](int f) { return av_get_pix_fmt_name(static_cast<AVPixelFormat>(f)); };
    if (a.fps_num * static_cast<long long>(b.fps_den) != b.fps_num * static_cast<long long>(a.fps_den))
        return format("%d/%d fps against %d/%d", b.fps_num, b.fps_den, a.fps_num, a.fps_den);
    if (x->codec_id != y->codec_id)
        return format("codec %s against %s", avcodec_get_name(y->codec_id), avcodec_get_name(x->codec_id));
    if (x->width != y->width || x->height != y->height)
        return format("size %dx%d against %dx%d", y->width, y->height, x->width, x->height);
    if (x->format != y->format)
        return format("pixel format %s against %s", pix(y->format) ? pix(y->format) : "?",
                      pix(x->format) ? pix(x->format) : "?");
    if (x->color_range != y->color_range || x->color_primaries != y->color_primaries ||
        x->color_trc != y->color_trc || x->color_space != y->color_space ||
        x->chroma_location != y->chroma_location || a.color != b.color)
        return "colour tags";
    if (x->extradata_size != y->extradata_size ||
        (x->extradata_size && std::memcmp(x->extradata, y->extradata, static_cast<size_t>(x->extradata_size)) != 0))
        return "encoder headers (other encoder settings)";
    if (!a.sound != !b.sound)
        return b.sound ? "a Sound pass against none" : "no Sound pass against one";
    if (a.sound && (a.sound->codecpar->sample_rate != b.sound->codecpar->sample_rate ||
                    a.sound->codecpar->ch_layout.nb_channels != b.sound->codecpar->ch_layout.nb_channels))
        return format("the Sound pass at %d Hz, %d channels, against %d Hz, %d channels", b.sound->codecpar->sample_rate,
                      b.sound->codecpar->ch_layout.nb_channels, a.sound->codecpar->sample_rate,
                      a.sound->codecpar->ch_layout.nb_channels);
    return "";
}

// The colour a chunk's tag gives (chunk_range.color) on the stream's parameters, as the
// single pass tagged its stream: a container such as NUT keeps none of it.
void tag_color(const chunk &c, AVCodecParameters *par)
{
    std::string names[5];
    for (size_t i = 0, from = 0; i < 5; i++) {
        size_t slash = c.color.find('/', from);
        names[i] = c.color.substr(from, slash - from);
        from = slash + 1;
    }
    int range = av_color_range_from_name(names[0].c_str()), primaries = av_color_primaries_from_name(names[1].c_str()),
        transfer = av_color_transfer_from_name(names[2].c_str()), matrix = av_color_space_from_name(names[3].c_str()),
        chroma = av_chroma_location_from_name(names[4].c_str());
    if (range < 0 || primaries < 0 || transfer < 0 || matrix < 0 || chroma < 0)
        fail(-EINVAL, "glr_join: %s's colour (%s) names one this FFmpeg does not know", c.url.c_str(), c.color.c_str());
    par->color_range = static_cast<AVColorRange>(range);
    par->color_primaries = static_cast<AVColorPrimaries>(primaries);
    par->color_trc = static_cast<AVColorTransferCharacteristic>(transfer);
    par->color_space = static_cast<AVColorSpace>(matrix);
    par->chroma_location = static_cast<AVChromaLocation>(chroma);
}

// Opens every chunk, puts them in frame order and checks that they join.
std::vector<std::unique_ptr<chunk>> open_chunks(const glr_join_params &p)
{
    std::vector<std::unique_ptr<chunk>> chunks;
    for (int i = 0; i < p.chunk_count; i++) {
        if (!p.chunks[i])
            fail(-EINVAL, "glr_join: chunk %d is NULL", i);
        chunks.push_back(std::make_unique<chunk>(p.chunks[i]));
        open_chunk(*chunks.back());
    }
    std::stable_sort(chunks.begin(), chunks.end(), [](const auto &a, const auto &b) { return a->first < b->first; });
    for (size_t i = 1; i < chunks.size(); i++) {
        const chunk &before = *chunks[i - 1], &c = *chunks[i];
        std::string differs = difference(*chunks[0], c);
        if (!differs.empty())
            fail(-EINVAL, "glr_join: %s (%s) was made with other settings than %s: %s", c.url.c_str(),
                 c.range().c_str(), chunks[0]->url.c_str(), differs.c_str());
        int end = before.first + before.frames;
        if (c.first < end)
            fail(-EINVAL, "glr_join: %s (%s) overlaps %s (%s)", c.url.c_str(), c.range().c_str(), before.url.c_str(),
                 before.range().c_str());
        if (c.first > end)
            fail(-EINVAL, "glr_join: frames %d-%d are missing, between %s (%s) and %s (%s)", end, c.first,
                 before.url.c_str(), before.range().c_str(), c.url.c_str(), c.range().c_str());
    }
    return chunks;
}

class joiner {
public:
    joiner(const glr_log *log, const glr_join_params &p) : log_(log), p_(p), chunks_(open_chunks(p))
    {
        const chunk &c = *chunks_.front();
        frame_ = AVRational{c.fps_den, c.fps_num};
        first_ = c.first;
        frames_ = chunks_.back()->first + chunks_.back()->frames - first_;
    }

    void run(glr_join_stats &stats)
    {
        const AVCodecParameters *in = chunks_.front()->stream->codecpar;
        // What the encoder would choose for these params: the muxer (and whether it holds
        // the codec), the sound's encoder. Nothing video is opened.
        glr_encoder_params ep{};
        ep.width = in->width;
        ep.height = in->height;
        ep.fps_num = frame_.den;
        ep.fps_den = frame_.num;
        ep.codec = avcodec_get_name(in->codec_id);
        ep.pix_fmt = av_get_pix_fmt_name(static_cast<AVPixelFormat>(in->format));
        ep.output = p_.output;
        ep.container = p_.container;
        ep.audio = p_.audio;
        const AVCodecParameters *sound = chunks_.front()->sound ? chunks_.front()->sound->codecpar : nullptr;
        if (!p_.audio.input && (p_.audio.offset != 0 || p_.audio.keep_longer))
            fail(-EINVAL, "glr_join: audio.offset and keep_longer shape a sound file (audio.input), and none is given");
        if (!p_.audio.input && !sound && (p_.audio.codec || p_.audio.bit_rate))
            fail(-EINVAL, "glr_join: audio.codec and bit_rate shape the sound, and there is none: no audio.input, and "
                          "the chunks keep no Sound pass");
        if (!p_.audio.input && sound && p_.audio.codec && std::strcmp(p_.audio.codec, "copy") == 0)
            fail(-EINVAL, "glr_join: audio.codec \"copy\" copies a sound file's packets; the chunks' Sound pass is "
                          "encoded once: name an encoder (flac, aac, libopus), or none for the container's own");
        if (sound && p_.audio.input) {
            glr_log_message(log_, GLR_LOG_INFO,
                            format("the chunks' Sound pass is left out: the sound is %s", p_.audio.input).c_str());
            sound = nullptr;
        } else if (sound && !p_.audio.codec && !holds_sound(p_.container, p_.output)) {
            glr_log_message(log_, GLR_LOG_INFO,
                            format("%s holds no sound: the chunks' Sound pass is left out", p_.output).c_str());
            sound = nullptr;
        } else if (sound) {
            ep.audio.sample_rate = sound->sample_rate;
            ep.audio.channels = sound->ch_layout.nb_channels;
        }
        encoder_plan plan = plan_encoder(ep, log_);
        output out(log_, p_.output, plan.muxer, p_.format_options, p_.metadata,
                   p_.chunk_size, p_.output_flags, glr_interrupt{});
        AVStream *video = avformat_new_stream(out.context(), nullptr);
        if (!video || avcodec_parameters_copy(video->codecpar, in) < 0)
            fail(-ENOMEM, "glr_join: out of memory");
        video->codecpar->codec_tag = 0; // the output container's own
        if (!chunks_.front()->color.empty())
            tag_color(*chunks_.front(), video->codecpar);
        video->time_base = frame_;
        video->avg_frame_rate = av_inv_q(frame_);
        std::unique_ptr<audio_track> audio;
        if (p_.audio.input || sound)
            audio = std::make_unique<audio_track>(ep.audio, plan, out.context());
        out.start(ep.codec);

        auto write = [&](AVPacket *packet) {
            out.write(packet);
            stats.packets++;
        };
        AVPacket *packet = av_packet_alloc();
        if (!packet)
            fail(-ENOMEM, "glr_join: out of memory");
        std::unique_ptr<AVPacket, void (*)(AVPacket *)> owned(packet, [](AVPacket *p) { av_packet_free(&p); });
        // Decode timestamps, where a container keeps none: one frame apart, the first the
        // encoder's delay before the span's start (as the encoder stamped a single pass).
        int64_t next_dts = -in->video_delay;
        int64_t sound_next = 0; // the Sound pass's samples submitted, from the span's start
        for (const auto &c : chunks_) {
            int rc;
            // The single pass's samples of the chunk's frames, whatever it holds past them.
            const int64_t sound_start = sound_next, sound_end = sound ? sound_next + sound_samples(*c) : 0;
            while ((rc = av_read_frame(c->input, packet)) >= 0) {
                if (c->sound && packet->stream_index == c->sound->index) {
                    if (sound)
                        submit_sound(*packet, *audio, sound_next, sound_end);
                    av_packet_unref(packet);
                    continue;
                }
                int64_t frame = copy_packet(*c, packet, video, next_dts);
                if (audio) // the sound up to this frame's end, interleaved with the frames
                    audio->pump(av_q2d(frame_) * static_cast<double>(frame + 1), write);
                write(packet);
            }
            if (rc != AVERROR_EOF)
                fail(code_of_av_error(rc), "glr_join: reading %s failed: %s", c->url.c_str(), av_error_text(rc).c_str());
            if (sound_next < sound_end)
                fail(-EINVAL, "glr_join: %s (%s) holds %lld samples of its Sound pass, and its frames have %lld: it "
                              "was cut short; make it again",
                     c->url.c_str(), c->range().c_str(), static_cast<long long>(sound_next - sound_start),
                     static_cast<long long>(sound_end - sound_start));
        }
        if (audio) {
            audio->finish(av_q2d(frame_) * frames_, write);
            stats.audio_samples_encoded = audio->samples_encoded();
        }
        out.finish();
        out.publish();
        if (int rc = out.close(); rc < 0)
            fail(rc, "glr_join: writing %s failed: %s", p_.output, describe(rc));
        stats.bytes_written = out.bytes_written();
        stats.chunks = static_cast<int>(chunks_.size());
        stats.first_frame = first_;
        stats.frames = frames_;
        stats.fps_num = frame_.den;
        stats.fps_den = frame_.num;
    }

private:
    // The Sound pass's samples of a chunk's frames, as a single pass renders them.
    int64_t sound_samples(const chunk &c) const
    {
        const int rate = c.sound->codecpar->sample_rate;
        return glr_frame_first_sample(c.first + c.frames, rate, c.fps_num, c.fps_den) -
               glr_frame_first_sample(c.first, rate, c.fps_num, c.fps_den);
    }

    // A chunk's PCM packet (16-bit, interleaved) to the sound's encoder, as far as `end`.
    void submit_sound(const AVPacket &packet, audio_track &audio, int64_t &next, int64_t end)
    {
        const int channels = chunks_.front()->sound->codecpar->ch_layout.nb_channels;
        int64_t samples = std::min<int64_t>(packet.size / (2 * channels), end - next);
        if (samples <= 0)
            return;
        pcm_.resize(static_cast<size_t>(samples * channels));
        for (size_t i = 0; i < pcm_.size(); i++)
            pcm_[i] = sound_sample_value(static_cast<int16_t>(AV_RL16(packet.data + 2 * i)));
        audio.submit(pcm_.data(), static_cast<int>(samples), next);
        next += samples;
    }

    // A chunk's packet in frames from the span's start, checked to lie in the chunk's range,
    // then in the output stream's time base; returns its frame number from the span's start.
    int64_t copy_packet(const chunk &c, AVPacket *packet, const AVStream *video, int64_t &next_dts) const
    {
        AVRational tb = c.stream->time_base;
        if (packet->pts == AV_NOPTS_VALUE)
            fail(-EINVAL, "glr_join: %s has a frame without a timestamp", c.url.c_str());
        int64_t pts = av_rescale_q_rnd(packet->pts, tb, frame_, AV_ROUND_NEAR_INF);
        if (pts < c.first || pts >= c.first + c.frames)
            fail(-EINVAL, "glr_join: %s holds frame %lld, outside its range (%s)", c.url.c_str(),
                 static_cast<long long>(pts), c.range().c_str());
        int64_t dts = packet->dts == AV_NOPTS_VALUE ? next_dts + first_
                                                   : av_rescale_q_rnd(packet->dts, tb, frame_, AV_ROUND_NEAR_INF);
        packet->pts = pts - first_;
        packet->dts = dts - first_;
        next_dts = packet->dts + 1;
        packet->duration = 1;
        packet->stream_index = video->index;
        packet->pos = -1;
        av_packet_rescale_ts(packet, frame_, video->time_base);
        return pts - first_;
    }

    const glr_log *log_;
    const glr_join_params &p_;
    std::vector<std::unique_ptr<chunk>> chunks_;
    AVRational frame_{1, 30}; // one frame, in seconds
    int first_ = 0, frames_ = 0;
    std::vector<float> pcm_;
};

} // namespace

} // namespace glr

extern "C" int glr_join(glr_log *log, const struct glr_join_params *params, struct glr_join_stats *stats)
{
    return glr::guarded(log, [&] {
        if (!params || !params->chunks || params->chunk_count < 1)
            glr::fail(-EINVAL, "glr_join: no chunks given");
        if (!params->output || !*params->output)
            glr::fail(-EINVAL, "glr_join: no output given");
        glr_join_stats s{};
        uint64_t start = glr::now_ns();
        glr::joiner(log, *params).run(s);
        s.seconds = static_cast<double>(glr::now_ns() - start) / 1e9;
        if (stats)
            *stats = s;
        return 0;
    });
}
