/*
 * glreader-av: joining the chunks of a render made in pieces (glr_export_params.chunk, or
 * glreader-export --frames A-B on several machines) into one output, by stream copy.
 *
 *   const char *chunks[] = {"0.mkv", "1.mkv", "2.mkv"};       // any order
 *   struct glr_join_params p = {.chunks = chunks, .chunk_count = 3, .output = "film.mp4"};
 *   p.audio.input = "song.flac";                               // encoded once, over the whole
 *   glr_join(log, &p, &stats);
 *
 * Every chunk must be glreader's (its GLREADER_CHUNK tag gives its frame range), hold one
 * video stream, and have the same codec parameters as the others (codec, size, pixel
 * format, colour, the encoder's headers); together their ranges must cover one span of
 * frames with no gap and no overlap. Anything else is refused with words before the output
 * is created; a chunk found wrong only as it is read (a frame outside its range, its Sound
 * pass cut short) ends the join with the output as far as it got (GLR_OUTPUT_PART: only
 * OUTPUT.part, never OUTPUT). The packets are copied as they are, their timestamps those of a single pass
 * over the same frames (counted from the first chunk's first frame); the sound, a file's
 * or the project's Sound pass that every chunk kept (as it rendered), is encoded once for
 * the whole length, so there is no seam at a join, and the Sound pass's samples are a
 * single pass's. The output is
 * made as glr_encoder makes one: created once its header is written, colour tagged from
 * the chunks, any muxer options (movflags=+faststart), GLR_OUTPUT_* flags.
 */
#ifndef GLREADER_AV_JOIN_H
#define GLREADER_AV_JOIN_H

#include "glreader/av/encoder.h"

#ifdef __cplusplus
extern "C" {
#endif

struct glr_join_params {
    const char *const *chunks; /* the chunks' paths or URLs, in any order */
    int chunk_count;           /* >= 1 */
    const char *output;        /* where to write, as glr_encoder_params.output; required */
    const char *container;     /* muxer name; NULL: guessed from output */
    const char *format_options; /* muxer options "key=value:key=value"; NULL: none */
    /* The sound track: input (a file or URL), codec, bit_rate, sample_rate, offset (from
     * the joined output's start) and keep_longer as glr_encoder_params.audio. Without input:
     * the chunks' Sound pass, when they kept one (codec and bit_rate then shape it), else
     * none; an output that holds no sound (a GIF) leaves it out. */
    struct glr_audio_params audio;
    unsigned output_flags;       /* GLR_OUTPUT_* */
    const char *const *metadata; /* "key=value", NULL-terminated; NULL: none */
    size_t chunk_size;           /* bytes per write; 0: 1 MiB */
    uint64_t reserved_[4];       /* zero */
};

struct glr_join_stats {
    int chunks;
    int first_frame;             /* the joined span: [first_frame, first_frame + frames) */
    int frames;
    int fps_num, fps_den;
    uint64_t packets, bytes_written;
    int64_t audio_samples_encoded;
    double seconds;              /* how long the join took */
};

/* Joins params.chunks into params.output (see above). Returns 0, or a negative code with
 * the reason logged and in glr_last_error(): -EINVAL for chunks that do not join (not
 * glreader's, other settings, a gap or an overlap) or bad params, -ENOENT, -EEXIST (an
 * output kept by GLR_OUTPUT_*), an I/O error. stats may be NULL. */
GLR_API int glr_join(glr_log *log, const struct glr_join_params *params, struct glr_join_stats *stats);

#ifdef __cplusplus
}
#endif

#endif /* GLREADER_AV_JOIN_H */
