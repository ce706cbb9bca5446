/*
 * glreader: times, frame rates and frame ranges, read and counted one way for every
 * front-end (glreader-export, the glreader filter, Python and the farm). FFmpeg-free.
 *
 * The rule is ffmpeg's. Frame n of a rate starts at n x den/num seconds, in microseconds
 * rounded to the nearest (as av_rescale_q stamps it). A length of D seconds holds the
 * frames that start less than D after the first one, as ffmpeg's sources count their
 * duration (testsrc=d=0.1:r=25 gives 3 frames). A start or end time falls on the first
 * frame that starts at or after it, as ffmpeg drops the frames before its -ss: so a range
 * that ends at a time and one that starts there meet without a gap or an overlap.
 */
#ifndef GLREADER_FRAME_RANGE_H
#define GLREADER_FRAME_RANGE_H

#include "glreader/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A time as ffmpeg's -ss, -t and -to take one, into microseconds: a decimal with an
 * optional unit ("2.5", "500ms", "250us", "3s"), or [-][HH:]MM:SS[.m...] ("1:30",
 * "00:01:30.5"; minutes and seconds below 60 after a colon). A time negative or past
 * INT64_MAX microseconds is refused. 0, or -EINVAL with the reason as the last error. */
GLR_API int glr_parse_time(const char *text, int64_t *microseconds);

/* A frame rate above 0: a whole number ("30"), a fraction of whole numbers ("30000/1001"),
 * a decimal (at most six decimals; 23.976, 29.97, 59.94 and the other NTSC rates read as
 * the N x 1000/1001 they stand for, as ffmpeg reads them, others exactly: 12.5 is 25/2), or
 * ntsc, pal, film, ntsc-film. Reduced to lowest terms. 0, or -EINVAL with the reason. */
GLR_API int glr_parse_rate(const char *text, int *num, int *den);

/* How a front-end was asked for a range: a start (one of start_us and start_frame) and a
 * length (one of duration_us, end_us and frames). 0: not given. */
struct glr_range_request {
    int fps_num, fps_den;  /* the frame rate; required */
    int64_t start_us;      /* -ss: the first frame is the first at or after it */
    int start_frame;       /* --start-frame */
    int64_t duration_us;   /* -t: the frames that start less than it after the first */
    int64_t end_us;        /* -to: the frames from the first that start before it */
    int frames;            /* -n: this many */
};

/* A range's length when none is given: 5 s, every front-end's default (-t 5). */
#define GLR_FRAME_RANGE_DEFAULT_DURATION_US 5000000

/* The first frame and the count a request asks for. Without a start the range starts at
 * frame 0; without a length it lasts GLR_FRAME_RANGE_DEFAULT_DURATION_US. Refused (-EINVAL, the reason naming the options as
 * glreader-export and Python spell them): two starts or two lengths, a negative one,
 * a rate not above 0, an end not after the start, a range past frame INT_MAX. */
GLR_API int glr_frame_range(const struct glr_range_request *request, int *first, int *count);

/* The frames that start before `microseconds` at a rate: the number of the first frame at
 * or after that time. 0 for a time at or before 0; INT64_MAX when it is past that. */
GLR_API int64_t glr_frames_before(int64_t microseconds, int fps_num, int fps_den);

/* The sample a frame's sound starts at on a track of `sample_rate` Hz: frame x rate x
 * den/num, rounded down (frame 0 starts at sample 0). A frame's sound is the samples from
 * its own to the next frame's, so the sound of consecutive frames, or of chunks rendered
 * apart, meets with no gap and no overlap. -1 for a rate or fps not above 0 or a negative
 * frame. */
GLR_API int64_t glr_frame_first_sample(int64_t frame, int sample_rate, int fps_num, int fps_den);

#ifdef __cplusplus
}
#endif

#endif /* GLREADER_FRAME_RANGE_H */
