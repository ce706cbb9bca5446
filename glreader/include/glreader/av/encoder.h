/*
 * glreader-av: encodes leased frames in-process with libavcodec and muxes them with
 * libavformat, on an encoder thread of its own. Link glreader-av (pkg-config
 * glreader-av); the core library never depends on FFmpeg.
 *
 * Frames are handed over as ring leases. Where the encoder takes the ring's pixel format
 * (RGB, or the YUV a ring converted to on the GPU: glr_encoder_preferred_format), the
 * lease is wrapped in an AVFrame without a copy (glreader/utils/libav.h) and goes back to the
 * ring when libavcodec drops its last reference; otherwise libswscale converts it on the
 * CPU and the lease is released right after the conversion. Streams and frames are tagged
 * with the frames' colour description.
 */
#ifndef GLREADER_AV_ENCODER_H
#define GLREADER_AV_ENCODER_H

#include "glreader/common.h"
#include "glreader/ring.h"

#ifdef __cplusplus
extern "C" {
#endif

struct AVBufferRef; /* FFmpeg's, for hardware frames: this header needs none of its headers */
struct AVFrame;

/* An audio track muxed beside the video, from a file or from PCM the caller submits. Its
 * timestamps follow its sample count, never wall time, so it stays in sync with the
 * frames whatever the render speed. */
struct glr_audio_params {
    /* An audio file or URL (anything this libavformat reads); its first audio stream is
     * decoded, resampled and re-encoded for the container. NULL: no file. */
    const char *input;
    /* Without input: PCM submitted with glr_encoder_submit_audio, interleaved 32-bit
     * float at this rate and channel count. 0: no audio track (when input is NULL). */
    int sample_rate, channels;
    /* An encoder's name ("libopus") or a codec's ("opus": this build's best encoder of it).
     * NULL: the container's own audio codec, as ffmpeg picks it (AAC for MP4 and MOV,
     * Vorbis for Matroska, Opus for WebM, MP2 for MPEG-TS...); an input already in that
     * codec is copied as it is (no offset then). "copy": the input's packets as they are,
     * whatever the codec, where the container holds it (not at an offset, and a shorter
     * sound is not padded). */
    const char *codec;
    int64_t bit_rate;   /* bits per second; 0: the encoder's default */
    double offset;      /* seconds the sound starts after the video (< 0: its start is cut) */
    /* 0: the track ends with the video (trimmed, or padded with silence); 1: a longer
     * sound is kept whole. */
    int keep_longer;
};

/* A caller's "give up now", in the style of FFmpeg's AVIOInterruptCB: callback(opaque)
 * returns non-zero to abandon output that blocks. It is polled, on the encoder's thread,
 * while a write to a pipe, a FIFO or a socket waits for its reader, and handed to
 * libavformat for URL outputs; a write it interrupts fails with -EINTR, and the output keeps
 * what was written before. A write to a regular file is not interrupted. Quick and
 * thread-safe. */
struct glr_interrupt {
    int (*callback)(void *opaque);
    void *opaque;
};

struct glr_encoder_params {
    int width, height;       /* of the submitted frames; required */
    enum glr_format format;  /* of the submitted frames; 0: GLR_FORMAT_RGBA8 */
    /* The colour description of the submitted frames: the ring's params.color (0 fields:
     * the same defaults). Every frame must carry it. With RGB frames encoded as YUV, the
     * CPU conversion uses its matrix, range and chroma siting (default BT.709, limited,
     * left). Streams are tagged with it. */
    struct glr_color color;
    int fps_num, fps_den;    /* constant frame rate; 0: 30/1 */
    /* The encoder, as ffmpeg's -c takes it: an encoder's name ("libx264", "ffv1") or a
     * codec's ("h264", "hevc", "av1", "vp9", "prores"), which takes this build's best
     * encoder of it (libx264, libx265, SVT-AV1...). NULL: the container's own video codec,
     * as ffmpeg picks it (PNG for .png and image patterns, VP9 for WebM, GIF for .gif,
     * H.264 for MP4, MOV and Matroska, MPEG-4 Part 2 where H.264 has no encoder here...).
     * A codec the container cannot hold is refused (libx264 into .webm, libx264 into
     * frames/%05d.png), naming the encoders here that would do. */
    const char *codec;
    /* Pixel format to encode, by FFmpeg name ("yuv420p", "bgra"). NULL: the frames' own
     * format if the encoder takes it (no conversion), else yuv420p if it takes that, else
     * its closest format that libswscale makes (rgb24 for PNG: a shader's alpha is not
     * transparency). */
    const char *pix_fmt;
    /* Encoder AVOptions as "key=value:key=value", e.g. "preset=ultrafast:crf=20:g=60".
     * An option the encoder does not know is an error. NULL: none. */
    const char *codec_options;
    /* Where to write; required. A file path (or file:PATH), written in chunk_size blocks
     * and created only once the muxer's header could be written, so a failed setup leaves
     * an existing file as it was; "-" or pipe:N for standard output or file descriptor N;
     * a URL of any protocol this libavformat has (udp://, tcp://, srt://, rtmp://...); an
     * image sequence pattern such as frames/%05d.png. MP4 and MOV to an output that cannot
     * seek (a pipe, a socket) are written fragmented (logged); AVI is refused there. The
     * null muxer writes nothing anywhere. */
    const char *output;
    /* Muxer name ("matroska", "mp4", "nut"). NULL: guessed from output's name. */
    const char *container;
    /* Muxer AVOptions as "key=value:key=value", e.g. "movflags=+faststart" or
     * "hls_time=2". An option the muxer does not know is an error. NULL: none. */
    const char *format_options;
    /* Size of each write to an output file or pipe. 0: 1 MiB. */
    size_t chunk_size;
    /* Frames that may wait between submit and the encoder thread. 0: 2. */
    int queue_depth;
    /* Non-zero: use each frame's pts (in units of fps_den/fps_num seconds), which must
     * increase. 0: number frames 0, 1, 2... in submission order. */
    int use_frame_pts;
    struct glr_audio_params audio; /* zero: no audio track */
    /* How a file output is created: GLR_OUTPUT_* flags, or'ed. 0: an existing file is
     * replaced, once the header could be written. */
    unsigned output_flags;
    /* The frames' alpha is the picture's transparency (glr_alpha, scene.h: straight 1,
     * premultiplied 2): without codec, the container's codec with alpha is taken (ProRes
     * 4444 for MOV, VP9 for WebM, FFV1 for Matroska, PNG for pictures), and without pix_fmt
     * the encoder's format with alpha closest to the frames'; an encoder or pix_fmt without
     * alpha is refused, naming those that have it. WebM and Matroska mark the stream as
     * having alpha. 0: the frames' alpha is ignored. */
    int alpha;
    struct glr_interrupt interrupt; /* NULL callback: writes wait as long as the output stalls */
    /* The output's metadata, ffmpeg's -metadata: "key=value" strings (title=..., artist=...,
     * album, comment, date, genre...), NULL-terminated; copied at create. NULL: none. MP4
     * and MOV keep only the keys they know (a warning names one they drop). */
    const char *const *metadata;
    /* With use_frame_pts: the first frame's pts (a frame before it is refused). The audio
     * track then runs on the frames' clock: it starts at that frame's sample
     * (glr_frame_first_sample), and glr_encoder_submit_audio's pts count samples from pts
     * 0's; an audio.input starts at that first frame (offset from there). A chunk of a
     * longer render is stamped so (glr_export_params.chunk). 0 otherwise. */
    int64_t first_pts;
    /* Hardware frames (glreader/av/hw_frames.h, glr_encoder_submit_hw): the frames context
     * they come from (AVHWFramesContext; a reference is taken), its sw_format the params'
     * format and its size theirs. An encoder that takes the frames' kind (AV_PIX_FMT_VULKAN)
     * gets them as they are, nothing read back; any other has each copied to memory first
     * (av_hwframe_transfer_data, counted in transferred_frames). NULL: leases only. */
    struct AVBufferRef *hw_frames;
};

/* glr_encoder_params.output_flags. Both concern outputs that are files; pipes, URLs and
 * image sequences are written as they are (an existing FIFO or device too). */
enum glr_output_flags {
    /* Never replace an existing file. Creating the file is exclusive (O_EXCL), so of two
     * encoders started at once on one path, one writes it and the other fails with
     * -EEXIST; an existing file is left byte for byte as it was. */
    GLR_OUTPUT_NO_OVERWRITE = 1 << 0,
    /* Write NAME.part, and rename it to NAME when glr_encoder_finish succeeds: NAME appears
     * only whole, replacing an older NAME at once (or, with GLR_OUTPUT_NO_OVERWRITE, never:
     * -EEXIST when a NAME appeared meanwhile). An encode that failed, or ended with
     * glr_encoder_finish_incomplete, leaves NAME.part (finalized where it could be) and
     * NAME untouched. A second encoder refuses a NAME.part that one is writing (-EALREADY);
     * one left by a process that died is written over. Files only: -EINVAL for a pipe, a
     * URL or an image sequence. */
    GLR_OUTPUT_PART = 1 << 1,
};

/* Statistics of an encoder. Times in milliseconds per frame. */
struct glr_encoder_stats {
    uint64_t frames_submitted, frames_encoded, packets_written;
    uint64_t audio_samples_encoded; /* per channel, padding included */
    int audio_copied;               /* 1: the audio input's packets were copied as they are */
    uint64_t bytes_written;    /* so far; after finish, the output's final size */
    uint64_t zero_copy_frames; /* wrapped without a copy */
    uint64_t converted_frames; /* converted by libswscale on the CPU */
    uint64_t copied_frames;    /* copied because the encoder held too many slots */
    uint64_t max_frames_held;  /* most leases the encoder held at once: at most depth - 1 */
    struct glr_latency submit_wait; /* caller blocked in submit (queue full) */
    struct glr_latency convert;     /* libswscale */
    struct glr_latency encode;      /* avcodec_send_frame + receive */
    struct glr_latency write;       /* muxing and writing */
    /* How long the write under way has lasted so far, 0 when none: a program shows that it
     * waits for its output (a stalled reader, disk or network) when this grows. */
    double write_in_progress_ms;
    uint64_t hardware_frames;    /* hardware frames encoded as they are: nothing copied */
    uint64_t transferred_frames; /* hardware frames copied to memory for an encoder on the CPU */
    uint64_t max_frames_queued;  /* most frames waiting at once for the encoder thread: at most queue_depth */
};

/* In-process encoder and muxer.
 * Thread-safety: submit, finish and destroy from one thread at a time (usually the render
 * thread); the work happens on the encoder's own thread. get_stats from any thread.
 * Lifetime: rings whose frames were submitted must outlive finish(). */
typedef struct glr_encoder glr_encoder;

/* Opens the encoder, the muxer and the output file and writes the header. Returns NULL
 * on failure with the reason logged and in glr_last_error(): what glr_encoder_check
 * refuses, or an output that cannot be opened. */
GLR_API glr_encoder *glr_encoder_create(glr_log *log, const struct glr_encoder_params *params);

/* What glr_encoder_create opens for a set of params (glr_encoder_check's answer). Names are
 * FFmpeg's. */
struct glr_encoder_plan {
    char container[32];     /* the muxer: "mp4", "matroska", "webm", "image2", "null" */
    char video_codec[32];   /* "h264", "png" */
    char video_encoder[32]; /* "libx264", "png" */
    char pix_fmt[32];       /* the pixel format encoded: "yuv420p", "rgb24" */
    /* The sound's codec and encoder ("aac"; "" without an audio track). For a file whose
     * sound is already in that codec, the sound is copied instead (known once it is read);
     * audio_encoder is "copy" for audio.codec "copy". */
    char audio_codec[32], audio_encoder[32];
    /* Frames of this format encode without a CPU conversion (glr_encoder_preferred_format). */
    enum glr_format format;
};

/* Chooses and checks what glr_encoder_create would open, writing nothing: the muxer (named
 * or from the output's name), the encoders (named, or the container's own), that the
 * container holds them, the pixel format, every codec and muxer option (a name the
 * encoder or muxer has, a value it takes), the metadata, and a trial open of the video
 * encoder. The audio input is not opened. Returns 0 with *plan filled (plan may be NULL),
 * or a negative code with the reason logged and in glr_last_error(), in words that name
 * what this FFmpeg build has instead: an unknown encoder, a codec without one, a codec the
 * container cannot hold (libx264 into WebM), a pixel format the encoder refuses, an
 * unknown option or value, an odd size for a 4:2:0 format. */
GLR_API int glr_encoder_check(glr_log *log, const struct glr_encoder_params *params, struct glr_encoder_plan *plan);

/* The ring format that encodes with these params without a CPU conversion: the YUV
 * format the encoder would encode (params->pix_fmt, or its default for RGB frames) when a
 * ring can convert to it on the GPU (nv12, yuv420p, p010le, yuv444p), else params->format
 * (0: GLR_FORMAT_RGBA8). Set params->format to it to convert on the GPU. Returns 0 with the
 * reason in glr_last_error() for an unknown codec or pixel format, or an output with no
 * container or one that cannot hold the codec. */
GLR_API enum glr_format glr_encoder_preferred_format(const struct glr_encoder_params *params);

/* Hands a leased frame to the encoder, which releases it when done with it (also
 * when this call fails: the lease is never lost). Blocks while queue_depth frames are
 * waiting; never drops. *frame is cleared.
 * Returns 0, or the first error the encoder met (sticky: every later call returns it),
 * or -EINVAL for a frame whose size, format or colour differs from the params, or a pts
 * that does not increase or is before first_pts (use_frame_pts). */
GLR_API int glr_encoder_submit(glr_encoder *enc, struct glr_frame *frame);

/* Hands a hardware frame of params.hw_frames (glr_hw_frames_acquire's) to the encoder, which
 * frees it when done with it (also when this call fails). Its pts is used as a lease's is
 * (use_frame_pts). Blocks as glr_encoder_submit; *frame is cleared.
 * Returns 0, the encoder's sticky error, or -EINVAL for a frame of another frames context,
 * an encoder opened without hw_frames, or a pts as glr_encoder_submit refuses. */
GLR_API int glr_encoder_submit_hw(glr_encoder *enc, struct AVFrame **frame);

/* Hands frames of PCM to the audio track of an encoder opened with audio.sample_rate
 * (and no audio.input): `frames` samples per channel, interleaved 32-bit float, the first
 * at sample `pts` of the track (0 for the first; with first_pts, counted from pts 0's
 * time, the track starting at first_pts'). A gap before pts is filled with silence.
 * The samples are copied; any thread, but one at a time. Returns 0, -EINVAL for a pts
 * before the end of what was submitted or an encoder without a PCM track, or the
 * encoder's sticky error. */
GLR_API int glr_encoder_submit_audio(glr_encoder *enc, const float *samples, int frames, int64_t pts);

/* Encodes what is queued, flushes the encoder, writes the trailer and closes the file
 * (a GLR_OUTPUT_PART output takes its name then, when all went well). Also after an
 * error, so that what was encoded stays playable where the container allows. Returns 0
 * or the first error met during the whole encode. Call once. */
GLR_API int glr_encoder_finish(glr_encoder *enc);

/* glr_encoder_finish for an encode that stopped before its end (a cancel): what was
 * encoded is finalized all the same, but a GLR_OUTPUT_PART output keeps its NAME.part
 * name, since only a whole result may take NAME. Otherwise the same as finish. */
GLR_API int glr_encoder_finish_incomplete(glr_encoder *enc);

/* Finishes if finish() was not called (as glr_encoder_finish_incomplete: an encode
 * abandoned is not known to be whole), frees everything and sets *enc to NULL. */
GLR_API void glr_encoder_destroy(glr_encoder **enc);

GLR_API void glr_encoder_get_stats(glr_encoder *enc, struct glr_encoder_stats *stats);

#ifdef __cplusplus
}
#endif

#endif /* GLREADER_AV_ENCODER_H */
