#include "av/output.hpp"

#include "av/av_dictionary.hpp"
#include "av/av_error.hpp"
#include "error.hpp"

#include <cerrno>
#include <cstring>

namespace glr {

namespace {

// The MP4 family: to an output that cannot seek, these write fragmented files.
bool is_mov_family(const AVOutputFormat *muxer)
{
    for (const char *name : {"mp4", "mov", "ipod", "ismv", "3gp", "3g2", "psp", "f4v"})
        if (std::strcmp(muxer->name, name) == 0)
            return true;
    return false;
}

// Muxers whose files are unplayable unless they can go back and rewrite (AVI's index and
// header sizes).
bool needs_seekable_output(const AVOutputFormat *muxer) { return std::strcmp(muxer->name, "avi") == 0; }

constexpr size_t default_chunk_size = 1 << 20;

} // namespace

output::output(const glr_log *log, const char *name, const AVOutputFormat *muxer, const char *format_options,
               const char *const *metadata, size_t chunk_size, unsigned flags, const glr_interrupt &interrupt)
    : log_(log)
{
    av_dictionary options("glr_encoder_create: cannot read format options", format_options);
    int rc = avformat_alloc_output_context2(&context_, muxer, nullptr, name);
    if (rc < 0)
        fail(code_of_av_error(rc), "glr_encoder_create: %s", av_error_text(rc).c_str());
    try {
        context_->interrupt_callback = {interrupt.callback, interrupt.opaque};
        for (const char *const *entry = metadata; entry && *entry; entry++) {
            // The value as it is, quotes and colons too (no av_dict_parse_string).
            const char *equals = std::strchr(*entry, '=');
            if (!equals || equals == *entry)
                fail(-EINVAL, "glr_encoder_create: metadata '%s' is not key=value", *entry);
            av_dict_set(&context_->metadata, std::string(*entry, static_cast<size_t>(equals - *entry)).c_str(),
                        equals + 1, 0);
        }
        io_ = std::make_unique<output_io>(log, name, muxer, chunk_size ? chunk_size : default_chunk_size, flags,
                                          interrupt);
        what_ = io_->what();
    } catch (...) {
        avformat_free_context(context_);
        throw;
    }
    av_dict_copy(&options_, *options.address(), 0);
    // One picture file (x.png, no %05d): the image muxer writes it over for each frame.
    if (std::strcmp(muxer->name, "image2") == 0 && !av_filename_number_test(name) &&
        !av_dict_get(options_, "update", nullptr, 0))
        av_dict_set(&options_, "update", "1", 0);
    if (io_->avio() && !io_->seekable()) {
        // A pipe or a socket: nothing can be rewritten later, so the muxer must stream.
        if (is_mov_family(muxer)) {
            av_dict_set(&options_, "movflags", "+frag_keyframe+empty_moov+default_base_moof", AV_DICT_APPEND);
            glr_log_message(log_, GLR_LOG_WARN,
                          format("%s cannot seek: writing fragmented %s (movflags +frag_keyframe+empty_moov)",
                                 io_->what().c_str(), muxer->name)
                              .c_str());
        } else if (needs_seekable_output(muxer)) {
            std::string what = io_->what();
            io_.reset();
            av_dict_free(&options_);
            avformat_free_context(context_);
            fail(-EINVAL,
                 "glr_encoder_create: the %s muxer cannot write to %s, which cannot seek (it rewrites its "
                 "header at the end); use matroska, nut, mpegts or mp4, which stream",
                 muxer->name, what.c_str());
        }
    }
    context_->pb = io_->avio();
    if (io_->custom())
        context_->flags |= AVFMT_FLAG_CUSTOM_IO;
}

output::~output()
{
    close();
    av_dict_free(&options_);
    avformat_free_context(context_);
}

int output::io_error(int av_error) const
{
    int code = io_ ? io_->write_error() : 0;
    return code ? code : code_of_av_error(av_error);
}

void output::start(const char *video_codec)
{
    int rc = avformat_write_header(context_, &options_);
    if (rc < 0)
        fail(io_error(rc), "glr_encoder_create: %s cannot start a %s file with %s: %s", what().c_str(),
             muxer()->name, video_codec, av_error_text(rc).c_str());
    started_ = true; // a trailer is owed from now on
    // The muxer chose each stream's time base; one too coarse for the frame rate (1000000
    // fps in Matroska's milliseconds) would give frames the same timestamp, and a file
    // that plays as one frame.
    for (unsigned i = 0; i < context_->nb_streams; i++) {
        const AVStream *st = context_->streams[i];
        if (st->codecpar->codec_type == AVMEDIA_TYPE_VIDEO && st->avg_frame_rate.num > 0 &&
            av_rescale_q(1, av_inv_q(st->avg_frame_rate), st->time_base) == 0)
            fail(-EINVAL, "glr_encoder_create: a %s file cannot hold %d/%d frames a second: its time base, %d/%d "
                          "seconds, is coarser than one frame",
                 muxer()->name, st->avg_frame_rate.num, st->avg_frame_rate.den, st->time_base.num, st->time_base.den);
    }
    const AVDictionaryEntry *unknown = av_dict_get(options_, "", nullptr, AV_DICT_IGNORE_SUFFIX);
    if (unknown)
        fail(-EINVAL, "glr_encoder_create: muxer %s has no option '%s' (ffmpeg -h muxer=%s lists them)",
             muxer()->name, unknown->key, muxer()->name);
    io_->commit(); // only now may an existing file be replaced
}

void output::write(AVPacket *packet)
{
    int rc = av_interleaved_write_frame(context_, packet);
    if (rc < 0 || io_->write_error()) {
        int code = io_error(rc);
        fail(code, "writing %s failed: %s", what().c_str(), describe(code));
    }
}

void output::finish()
{
    if (!started_)
        return;
    started_ = false;
    int rc = av_write_trailer(context_);
    if (rc < 0 || io_->write_error()) {
        int code = io_error(rc);
        fail(code, "finishing %s failed: %s", what().c_str(), describe(code));
    }
}

std::string output::kept_after_failure(bool trailer_written) const
{
    if (trailer_written)
        return "is finalized: it plays them";
    // MP4 and MOV keep their index at the end (a fragmented one keeps one a fragment);
    // the others play what they hold.
    bool index_at_end = false;
    for (const char *name : {"mp4", "mov", "ipod", "ismv", "3gp", "3g2", "psp", "f4v"})
        index_at_end |= std::strcmp(muxer()->name, name) == 0;
    return index_at_end ? "lacks the index MP4 and MOV write at the end: it plays only if fragmented "
                          "(movflags=+frag_keyframe), up to its last whole fragment; Matroska keeps all that was "
                          "written playable"
                        : "lacks its end: it plays up to the last whole frame it holds";
}

int output::close()
{
    if (!io_)
        return 0;
    int rc = io_->close();
    final_bytes_ = io_->bytes_written();
    io_.reset();
    context_->pb = nullptr; // the I/O's, gone with it
    return rc;
}

} // namespace glr
