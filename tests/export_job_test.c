/* The export job (glreader/av/export.h) driven from C, as a library: frame ranges that equal
 * a full render's frames; stops while a shader compiles, while a frame renders for long
 * (both held so by a test seam), and while the output stalls, each with the output it must
 * leave and the stop code it must report; pipe mode, whose ffmpeg child writes the frames
 * the in-process encoder does; and a job started on its own thread and waited for. One case per process: `export_job_test CASE`. Prints
 * the failed checks and exits non-zero on any. */
#include "glreader/av/export.h"
#include "glreader/glreader.h"

#include "av/fault_injection.h" /* the test seam that holds the render thread */

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/imgutils.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int failed;

/* Kept to the end of the process, as in capi_test.c: the jobs' contexts come and go, and the
 * last eglTerminate would unload Mesa's driver before LeakSanitizer looks. External linkage
 * so the compiler keeps the pointer that makes the context reachable. */
glr_context *export_job_test_pinned_context;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            failed++;                                                                              \
            fprintf(stderr, "%s:%d: CHECK(%s) failed; last error: %s\n", __FILE__, __LINE__, #cond, \
                    glr_last_error());                                                             \
        }                                                                                          \
    } while (0)

static char scratch[256];

static const char *scratch_file(const char *name)
{
    static char paths[8][320];
    static int next;
    char *p = paths[next++ % 8];
    snprintf(p, sizeof paths[0], "%s/%s", scratch, name);
    return p;
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
        fprintf(stderr, "cannot write %s\n", path);
        exit(2);
    }
}

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* --- Decoding: every video frame of a file, as a hash of its pixels. */

static uint64_t hash_bytes(uint64_t h, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

/* Fills hashes (up to max) and returns the number of frames, or -1 when the file does
 * not open or a packet does not decode. */
static int decode_hashes(const char *path, uint64_t *hashes, int max)
{
    AVFormatContext *fmt = NULL;
    if (avformat_open_input(&fmt, path, NULL, NULL) < 0)
        return -1;
    int count = -1, stream = -1;
    const AVCodec *codec = NULL;
    AVCodecContext *dec = NULL;
    AVPacket *pkt = av_packet_alloc();
    AVFrame *frame = av_frame_alloc();
    if (avformat_find_stream_info(fmt, NULL) < 0 ||
        (stream = av_find_best_stream(fmt, AVMEDIA_TYPE_VIDEO, -1, -1, &codec, 0)) < 0 ||
        !(dec = avcodec_alloc_context3(codec)) ||
        avcodec_parameters_to_context(dec, fmt->streams[stream]->codecpar) < 0 || avcodec_open2(dec, codec, NULL) < 0)
        goto done;
    count = 0;
    int ended = 0;
    while (!ended) {
        int rc = av_read_frame(fmt, pkt);
        if (rc < 0)
            ended = 1;
        else if (pkt->stream_index != stream) {
            av_packet_unref(pkt);
            continue;
        }
        rc = avcodec_send_packet(dec, ended ? NULL : pkt);
        av_packet_unref(pkt);
        if (rc < 0) {
            count = -1;
            goto done;
        }
        while (avcodec_receive_frame(dec, frame) == 0) {
            uint64_t h = 1469598103934665603ull;
            int bytes = av_image_get_linesize(frame->format, frame->width, 0);
            for (int y = 0; y < frame->height; y++)
                h = hash_bytes(h, frame->data[0] + (ptrdiff_t)y * frame->linesize[0], (size_t)bytes);
            if (count < max)
                hashes[count] = h;
            count++;
            av_frame_unref(frame);
        }
    }
done:
    av_frame_free(&frame);
    av_packet_free(&pkt);
    avcodec_free_context(&dec);
    avformat_close_input(&fmt);
    return count;
}

/* --- Jobs. */

/* The params of an FFV1 export of `project` (BGRA as rendered: nothing converted). */
static struct glr_export_params ffv1_params(const glr_project *project, int w, int h, int first, int count,
                                            const char *output)
{
    struct glr_export_params p;
    memset(&p, 0, sizeof p);
    p.player.width = w;
    p.player.height = h;
    p.player.project = project;
    p.player.first_frame = first;
    p.player.date = "2026-01-01";
    p.frame_count = count;
    p.encoder.codec = "ffv1";
    p.encoder.pix_fmt = "bgra";
    p.encoder.output = output;
    p.encoder.container = "matroska";
    return p;
}

struct running_job {
    glr_export *job;
    int rc;
    pthread_t thread;
};

static void *run_thread(void *opaque)
{
    struct running_job *r = opaque;
    r->rc = glr_export_run(r->job);
    return NULL;
}

static void start(struct running_job *r, glr_export *job)
{
    r->job = job;
    r->rc = 1;
    if (pthread_create(&r->thread, NULL, run_thread, r) != 0)
        exit(2);
}

static struct glr_export_stats stats_of(const glr_export *job)
{
    struct glr_export_stats s;
    glr_export_get_stats(job, &s);
    return s;
}

typedef int (*condition)(const struct glr_export_stats *s);

/* Waits, polling the job's statistics, until `happened` holds or `seconds` pass. */
static int wait_for(const glr_export *job, condition happened, double seconds, const char *what)
{
    struct timespec step = {0, 5000000};
    for (double waited = 0; waited < seconds; waited += 0.005) {
        struct glr_export_stats s = stats_of(job);
        if (happened(&s))
            return 1;
        if (s.state == GLR_EXPORT_ENDED && s.render_running == 0) {
            fprintf(stderr, "the job ended before %s\n", what);
            return 0;
        }
        nanosleep(&step, NULL); /* pace: a poll's interval */
    }
    fprintf(stderr, "%s did not happen within %g s\n", what, seconds);
    return 0;
}

static int render_stopped(const struct glr_export_stats *s) { return !s->render_running; }

static glr_project *load(const char *path)
{
    glr_project *project = glr_project_load(NULL, path);
    if (!project) {
        fprintf(stderr, "cannot load %s: %s\n", path, glr_last_error());
        exit(2);
    }
    return project;
}

/* Runs a job to its end; returns glr_export_run's code and its stats in *out. */
/* Runs a job of p to its end (with its readbacks still under way when polled, as on a GPU,
 * where in_flight: the fence seam); its stats into *out. */
static int run_in_flight(const struct glr_export_params *p, struct glr_export_stats *out, int in_flight)
{
    glr_export *job = glr_export_create(NULL, p);
    CHECK(job != NULL);
    if (!job)
        return -1;
    if (in_flight)
        glr_internal_export_fences_unsignalled(job, 1000000);
    int rc = glr_export_run(job);
    *out = stats_of(job);
    glr_export_destroy(&job);
    return rc;
}

static int run_to_end(const struct glr_export_params *p, struct glr_export_stats *out)
{
    return run_in_flight(p, out, 0);
}

/* --- Cases. */

/* Frames [5, 8) rendered as a range are those of a render of [0, 8): for a stateless
 * shader (no pre-roll) and for a project whose Buffer A reads its own previous frame
 * (pre-rolled over the 5 frames before). */
static void range_equals_full_render(void)
{
    enum { first = 5, count = 3, total = first + count };
    const char *stateless = scratch_file("stateless.frag");
    write_text(stateless, "void mainImage(out vec4 c, in vec2 p) {\n"
                          "    c = vec4(fract(p / 16.0 + iTime), fract(float(iFrame) * 0.13), 1.0);\n}\n");
    char feedback[320];
    snprintf(feedback, sizeof feedback, "%s", scratch_file("feedback"));
    mkdir(feedback, 0755);
    char path[400];
    snprintf(path, sizeof path, "%s/bufferA.glsl", feedback);
    write_text(path, "void mainImage(out vec4 c, in vec2 p) {\n"
                     "    vec4 last = texelFetch(iChannel0, ivec2(p), 0);\n"
                     "    c = fract(last + vec4(p.x / 97.0, p.y / 89.0, float(iFrame) / 7.0, 0.25));\n}\n");
    snprintf(path, sizeof path, "%s/image.glsl", feedback);
    write_text(path, "void mainImage(out vec4 c, in vec2 p) { c = texelFetch(iChannel0, ivec2(p), 0); }\n");
    snprintf(path, sizeof path, "%s/channels", feedback);
    write_text(path, "bufferA.channel0 buffer:A\nimage.channel0 buffer:A\n");

    const char *sources[2] = {stateless, feedback};
    for (int k = 0; k < 2; k++) {
        glr_project *project = load(sources[k]);
        const char *full = scratch_file("full.mkv"), *range = scratch_file("range.mkv");
        struct glr_export_params p = ffv1_params(project, 48, 32, 0, total, full);
        struct glr_export_stats s;
        CHECK(run_to_end(&p, &s) == 0);
        CHECK(s.stop == GLR_EXPORT_COMPLETE && s.frames_rendered == total && s.preroll_frames == 0);
        p = ffv1_params(project, 48, 32, first, count, range);
        CHECK(run_to_end(&p, &s) == 0);
        CHECK(s.stop == GLR_EXPORT_COMPLETE && s.frames_rendered == count);
        CHECK(s.preroll_frames == (k == 0 ? 0 : first));
        CHECK((int)s.encoder.frames_encoded == count);
        uint64_t a[total], b[count];
        CHECK(decode_hashes(full, a, total) == total);
        CHECK(decode_hashes(range, b, count) == count);
        for (int i = 0; i < count; i++)
            CHECK(a[first + i] == b[i]);
        CHECK(a[first] != a[first + 1]); /* the frames move: equal hashes mean something */
        glr_project_destroy(&project);
        unlink(full);
        unlink(range);
    }
    const char *files[] = {"bufferA.glsl", "image.glsl", "channels"};
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s", feedback, files[i]);
        unlink(path);
    }
    rmdir(feedback);
    unlink(stateless);
}

/* Runs the job on a thread with its render thread held at `point` (the test seam: a driver
 * cannot be made to compile or draw for long on demand, and what takes llvmpipe seconds takes
 * a GPU none), cancels it once held, and waits for run to return: its code in *rc, the job's
 * stats then. The render thread stays held until the caller releases it. */
static struct glr_export_stats cancel_while_held(glr_export *job, int point, const char *what, int *rc)
{
    glr_internal_export_hold_at(job, point);
    struct running_job r;
    start(&r, job);
    if (!glr_internal_export_wait_held(job, 60))
        fprintf(stderr, "the render thread did not reach %s within 60 s\n", what);
    glr_export_cancel(job);
    pthread_join(r.thread, NULL);
    *rc = r.rc;
    return stats_of(job);
}

/* A cancel while the driver compiles: the job ends at once (without waiting for the compile),
 * cancelled; nothing was rendered, so no output is created and an existing file at its path
 * stays as it was; the compile's thread ends once the compile does and frees what it made.
 * Once it reported that (render_running 0), destroy waits for the thread's last steps: held
 * there, it is gone when destroy returns (a thread still ending when the program exits races
 * exit's clean-up of EGL and the driver). */
static void cancel_during_compile(void)
{
    const char *out = scratch_file("compile.mkv");
    write_text(out, "an older file, kept");
    glr_project *project = load("");
    struct glr_export_params p = ffv1_params(project, 16, 16, 0, 4, out);
    glr_export *job = glr_export_create(NULL, &p);
    CHECK(job != NULL);
    glr_internal_export_hold_at(job, GLR_INTERNAL_HOLD_END);
    int rc;
    struct glr_export_stats s = cancel_while_held(job, GLR_INTERNAL_HOLD_COMPILE, "the compile", &rc);
    CHECK(rc == 0);
    CHECK(s.stop == GLR_EXPORT_CANCELLED);
    CHECK(s.state == GLR_EXPORT_ENDED);
    CHECK(s.frames_rendered == 0 && s.encoder.frames_encoded == 0);
    CHECK(s.render_running == 1); /* left in the compiler */
    FILE *f = fopen(out, "r");
    char kept[64] = "";
    CHECK(f && fgets(kept, sizeof kept, f) && strcmp(kept, "an older file, kept") == 0);
    if (f)
        fclose(f);
    glr_internal_export_release(job);
    CHECK(glr_internal_export_wait_held(job, 300));
    CHECK(stats_of(job).render_running == 0); /* reported, and the thread still there */
    CHECK(glr_internal_export_render_threads() == 1);
    glr_export_destroy(&job); /* lets the held thread go on, and waits for it */
    CHECK(glr_internal_export_render_threads() == 0);
    glr_project_destroy(&project);
    unlink(out);
}

/* A cancel while frame 3 renders for long: the job finalizes without that frame's end and
 * returns; the file plays the frames encoded, the first among them. in_flight: the
 * readbacks are still under way whenever the render thread looks (as a GPU's may be, and
 * the thread held in the driver cannot hand them over later), so only the first frame,
 * whose readback the job waits for, is in the file. Otherwise all 3 are on llvmpipe, which
 * reads back at once, and 1 to 3 on a GPU. */
static void cancel_during_long_frame(int in_flight)
{
    const char *out = scratch_file("slow.mkv");
    glr_project *project = load("");
    struct glr_export_params p = ffv1_params(project, 32, 16, 0, 8, out);
    glr_export *job = glr_export_create(NULL, &p);
    CHECK(job != NULL);
    if (in_flight)
        glr_internal_export_fences_unsignalled(job, 1000000);
    int rc;
    struct glr_export_stats s = cancel_while_held(job, 3, "frame 3", &rc);
    CHECK(rc == 0);
    CHECK(s.stop == GLR_EXPORT_CANCELLED);
    CHECK(s.render_running == 1); /* left in the slow frame */
    CHECK(s.frames_rendered == 3);
    if (in_flight)
        CHECK(s.encoder.frames_encoded == 1);
    else if (strstr(s.renderer, "llvmpipe"))
        CHECK(s.encoder.frames_encoded == 3);
    else
        CHECK(s.encoder.frames_encoded >= 1 && s.encoder.frames_encoded <= 3);
    uint64_t hashes[8];
    CHECK(decode_hashes(out, hashes, 8) == (int)s.encoder.frames_encoded);
    glr_internal_export_release(job);
    CHECK(wait_for(job, render_stopped, 300, "the end of the slow frame's thread"));
    glr_export_destroy(&job);
    glr_project_destroy(&project);
    unlink(out);
}

/* The caller's log of destroy_while_held: what reaches it once the job is destroyed. */
static atomic_int job_destroyed, logged_after_destroy;
static void counting_log(void *opaque, enum glr_log_level level, const char *message)
{
    (void)opaque, (void)level, (void)message;
    if (atomic_load(&job_destroyed))
        atomic_fetch_add(&logged_after_destroy, 1);
}

/* A job whose render thread a slow frame holds, cancelled, then destroyed, and then the
 * caller's log: the thread, let go after both, finishes its frame and frees what it made,
 * logging on its way (the log takes every level) into the job's own log, which no longer
 * hands anything to the freed one (under AddressSanitizer a write there is a report). The
 * thread may still be in its last steps (EGL's thread clean-up) when it reports its end, so
 * the test ends as glreader-export does after a job left in the driver: with _exit. */
static void destroy_while_held(void)
{
    const char *out = scratch_file("held.mkv");
    glr_project *project = load("");
    struct glr_log_params lp = {counting_log, NULL, GLR_LOG_DEBUG};
    glr_log *log = glr_log_create(&lp);
    struct glr_export_params p = ffv1_params(project, 32, 16, 0, 8, out);
    glr_export *job = glr_export_create(log, &p);
    CHECK(job != NULL);
    int rc;
    struct glr_export_stats s = cancel_while_held(job, 3, "frame 3", &rc);
    CHECK(rc == 0);
    CHECK(s.render_running == 1); /* left in the slow frame */
    CHECK(glr_internal_export_render_threads() == 1);
    glr_export_destroy(&job);
    atomic_store(&job_destroyed, 1);
    glr_log_destroy(&log);
    glr_internal_export_release_destroyed();
    CHECK(glr_internal_export_wait_render_threads(0, 300)); /* the thread ended after its job */
    CHECK(atomic_load(&logged_after_destroy) == 0);
    glr_project_destroy(&project);
    unlink(out);
}

/* A FIFO's reader: takes a little, pauses until told, then reads to the end into a file. */
struct paused_reader {
    const char *fifo, *copy;
    atomic_int resume;
    size_t bytes;
    pthread_t thread;
};

static void *read_fifo(void *opaque)
{
    struct paused_reader *r = opaque;
    int in = open(r->fifo, O_RDONLY);
    FILE *out = fopen(r->copy, "wb");
    static char buffer[65536];
    ssize_t got = in >= 0 ? read(in, buffer, 4096) : -1;
    struct timespec step = {0, 5000000};
    while (got > 0 && !atomic_load(&r->resume))
        nanosleep(&step, NULL); /* pace: the reader's pause under test */
    for (; got > 0; got = read(in, buffer, sizeof buffer))
        r->bytes += fwrite(buffer, 1, (size_t)got, out);
    if (in >= 0)
        close(in);
    if (out)
        fclose(out);
    return NULL;
}

static int output_stalled(const struct glr_export_stats *s) { return s->output_wait_seconds >= 0.5; }
static int some_rendered(const struct glr_export_stats *s) { return s->frames_rendered >= 3; }

static atomic_int give_up;
static int interrupt_when_told(void *opaque)
{
    (void)opaque;
    return atomic_load(&give_up);
}

/* A job stopped while the reader of its output, the FIFO `fifo`, pauses after its first
 * bytes: run with params p until `when`, then interrupted, or cancelled (the reader then
 * reads again: a cancel waits for the output). Its end is waited for, and its render
 * thread's (as a program must before it exits: a thread left behind still frees its GL
 * context); then the reader reads to the end into `copy`. */
struct stopped_job {
    int rc;
    struct glr_export_stats stats; /* as the job returned */
    size_t bytes_read;             /* by the reader, while the job ran and after */
};

static struct stopped_job stop_with_the_reader_paused(const struct glr_export_params *p, const char *fifo,
                                                      const char *copy, condition when, const char *what,
                                                      int interrupt)
{
    glr_export *job = glr_export_create(NULL, p);
    struct paused_reader reader = {fifo, copy, 0, 0, 0};
    pthread_create(&reader.thread, NULL, read_fifo, &reader);
    struct running_job r;
    start(&r, job);
    CHECK(wait_for(job, when, 60, what));
    if (interrupt) {
        atomic_store(&give_up, 1);
    } else {
        glr_export_cancel(job);
        atomic_store(&reader.resume, 1);
    }
    pthread_join(r.thread, NULL);
    struct stopped_job stopped = {r.rc, stats_of(job), 0};
    CHECK(wait_for(job, render_stopped, 60, "the render thread's end"));
    atomic_store(&reader.resume, 1);
    pthread_join(reader.thread, NULL);
    stopped.bytes_read = reader.bytes;
    glr_export_destroy(&job);
    return stopped;
}

/* A stop while the output's reader pauses, the output written by the in-process encoder or
 * (piped) by an ffmpeg child, which then stops reading its frames. A cancel waits for the
 * output: when the reader reads again, it gets a finalized file with every frame encoded.
 * The interrupt gives up on the output (the child killed): the job returns while the
 * reader still pauses. */
static void stop_during_stalled_output(int interrupt, int piped)
{
    const char *fifo = scratch_file("stalled.nut"), *copy = scratch_file("received.nut");
    CHECK(mkfifo(fifo, 0644) == 0);
    glr_project *project = load("");
    struct glr_export_params p = ffv1_params(project, 160, 120, 0, 2000, fifo);
    p.encoder.container = "nut";
    p.encoder.chunk_size = 16384; /* the stall comes after a few frames */
    const char *args[] = {"-c:v", "ffv1", "-f", "nut", "-y", fifo, NULL};
    if (piped) {
        memset(&p.encoder, 0, sizeof p.encoder);
        p.pipe.args = args;
        p.ring_format = GLR_FORMAT_BGRA8;
    }
    p.interrupt.callback = interrupt ? interrupt_when_told : NULL;
    struct stopped_job stopped = stop_with_the_reader_paused(&p, fifo, copy, output_stalled, "the stall", interrupt);
    const struct glr_export_stats *s = &stopped.stats;
    if (interrupt) {
        CHECK(stopped.rc == -EINTR);
        CHECK(s->stop == GLR_EXPORT_INTERRUPTED);
        CHECK(stopped.bytes_read > 0);
    } else {
        CHECK(stopped.rc == 0);
        CHECK(s->stop == GLR_EXPORT_CANCELLED);
        CHECK(s->frames_rendered < 2000);
        uint64_t hashes[1];
        int frames = decode_hashes(copy, hashes, 1);
        CHECK(frames > 0 && frames == (piped ? s->frames_rendered : (int)s->encoder.frames_encoded));
    }
    glr_project_destroy(&project);
    unlink(fifo);
    unlink(copy);
}

/* Has ffmpeg taken every frame, the job waiting for its end? */
static int all_frames_taken(const struct glr_export_stats *s)
{
    return s->state == GLR_EXPORT_FLUSHING && s->pipe.bytes_written >= 8 * 160 * 120 * 3 / 2;
}

/* An interrupt while the pipe sink's ffmpeg, which has every frame, finalizes into an
 * output whose reader pauses: its `reverse` filter writes nothing before its input ends,
 * so the job waits for its exit, not its reading. The child, stalled (no CPU used), is
 * killed: the job returns while the reader still pauses. */
static void interrupt_a_stalled_finalization(void)
{
    const char *fifo = scratch_file("finalizing.nut"), *copy = scratch_file("received.nut");
    CHECK(mkfifo(fifo, 0644) == 0);
    glr_project *project = load("");
    struct glr_export_params p = ffv1_params(project, 160, 120, 0, 8, fifo);
    const char *args[] = {"-vf", "reverse", "-c:v", "rawvideo", "-f", "nut", "-y", fifo, NULL};
    memset(&p.encoder, 0, sizeof p.encoder);
    p.pipe.args = args;
    p.ring_format = GLR_FORMAT_NV12;
    p.interrupt.callback = interrupt_when_told;
    struct stopped_job stopped =
        stop_with_the_reader_paused(&p, fifo, copy, all_frames_taken, "ffmpeg's taking every frame", 1);
    CHECK(stopped.rc == -EINTR);
    CHECK(stopped.stats.stop == GLR_EXPORT_INTERRUPTED);
    CHECK(stopped.stats.frames_rendered == 8);
    glr_project_destroy(&project);
    unlink(fifo);
    unlink(copy);
}

/* Runs a long job of params p into the pipe sink's file `piped`, stops it after a few
 * frames (a cancel, or the interrupt) and checks that ffmpeg, which did not stall,
 * finalized every frame it took (a cancel hands it every frame rendered; an interrupt gives
 * up on those still in the ring): only a stalled ffmpeg is killed. */
static void stop_a_piped_job(struct glr_export_params p, const char *piped, int interrupt)
{
    p.frame_count = 2000;
    p.interrupt.callback = interrupt ? interrupt_when_told : NULL;
    glr_export *job = glr_export_create(NULL, &p);
    CHECK(job != NULL);
    struct running_job r;
    start(&r, job);
    CHECK(wait_for(job, some_rendered, 60, "the first frames"));
    if (interrupt)
        atomic_store(&give_up, 1);
    else
        glr_export_cancel(job);
    pthread_join(r.thread, NULL);
    struct glr_export_stats s = stats_of(job);
    if (interrupt)
        CHECK(r.rc == -EINTR && s.stop == GLR_EXPORT_INTERRUPTED);
    else
        CHECK(r.rc == 0 && s.stop == GLR_EXPORT_CANCELLED);
    uint64_t hashes[1];
    int frames = decode_hashes(piped, hashes, 1);
    CHECK(frames > 0 && (uint64_t)frames == s.pipe.blocks_written);
    if (!interrupt)
        CHECK(frames == s.frames_rendered);
    glr_export_destroy(&job);
}

/* Pipe mode: the same job writes the range to an ffmpeg child (BGRA through the pipe, FFV1
 * written by ffmpeg), and the file holds the frames an in-process encode of it holds. A
 * cancel or an interrupt there ends the child's input: ffmpeg finalizes what it got. */
static void pipe_sink_matches_the_encoder(void)
{
    glr_project *project = load("");
    const char *direct = scratch_file("direct.mkv"), *piped = scratch_file("piped.mkv");
    struct glr_export_params p = ffv1_params(project, 48, 32, 2, 4, direct);
    struct glr_export_stats s;
    CHECK(run_to_end(&p, &s) == 0);
    const char *args[] = {"-c:v", "ffv1", "-pix_fmt", "bgra", "-y", piped, NULL};
    memset(&p.encoder, 0, sizeof p.encoder);
    p.pipe.args = args;
    p.ring_format = GLR_FORMAT_BGRA8;
    CHECK(run_to_end(&p, &s) == 0);
    CHECK(s.stop == GLR_EXPORT_COMPLETE && s.frames_rendered == 4);
    CHECK(s.pipe.bytes_written == 4u * 48 * 32 * 4);
    CHECK(s.encoder.frames_encoded == 0);
    uint64_t a[4], b[4];
    CHECK(decode_hashes(direct, a, 4) == 4);
    CHECK(decode_hashes(piped, b, 4) == 4);
    for (int i = 0; i < 4; i++)
        CHECK(a[i] == b[i]);
    unlink(piped);

    stop_a_piped_job(p, piped, 0);
    stop_a_piped_job(p, piped, 1);
    glr_project_destroy(&project);
    unlink(direct);
    unlink(piped);
}

/* A job's normal end with the last frames still read back, as on a GPU (the fence seam:
 * polled, their readbacks are not done; waited for, they are): it waits for each, so the
 * encoder and the pipe's ffmpeg child get every frame, in order, the frames of a run
 * without the seam. */
static void frames_in_flight_at_the_end(void)
{
    enum { count = 12 };
    glr_project *project = load("");
    const char *plain = scratch_file("plain.mkv"), *direct = scratch_file("in_flight.mkv"),
               *piped = scratch_file("in_flight_piped.mkv");
    struct glr_export_params p = ffv1_params(project, 48, 32, 0, count, plain);
    struct glr_export_stats s;
    CHECK(run_to_end(&p, &s) == 0);
    uint64_t want[count], got[count];
    CHECK(decode_hashes(plain, want, count) == count);
    CHECK(want[0] != want[count - 1]); /* the frames move: equal hashes mean something */
    p.encoder.output = direct;
    CHECK(run_in_flight(&p, &s, 1) == 0);
    CHECK(s.stop == GLR_EXPORT_COMPLETE && s.frames_rendered == count && (int)s.encoder.frames_encoded == count);
    CHECK(decode_hashes(direct, got, count) == count);
    for (int i = 0; i < count; i++)
        CHECK(got[i] == want[i]);
    const char *args[] = {"-c:v", "ffv1", "-pix_fmt", "bgra", "-y", piped, NULL};
    memset(&p.encoder, 0, sizeof p.encoder);
    p.pipe.args = args;
    p.ring_format = GLR_FORMAT_BGRA8;
    CHECK(run_in_flight(&p, &s, 1) == 0);
    CHECK(s.stop == GLR_EXPORT_COMPLETE && s.pipe.bytes_written == (uint64_t)count * 48 * 32 * 4);
    CHECK(decode_hashes(piped, got, count) == count);
    for (int i = 0; i < count; i++)
        CHECK(got[i] == want[i]);
    glr_project_destroy(&project);
    unlink(plain);
    unlink(direct);
    unlink(piped);
}

/* start and wait: the job runs on a thread of its own; wait says -EAGAIN while it runs,
 * then what run returns, again on later calls; a second start is refused; a failed job's
 * words reach the waiting thread; a job destroyed while it runs is cancelled, its output
 * finalized. */
static void start_and_wait(void)
{
    glr_project *project = load("");
    const char *out = scratch_file("started.mkv");
    struct glr_export_params p = ffv1_params(project, 32, 16, 0, 100000, out);
    glr_export *job = glr_export_create(NULL, &p);
    CHECK(job != NULL);
    CHECK(glr_export_start(job) == 0);
    CHECK(glr_export_start(job) == -EINVAL);
    CHECK(wait_for(job, some_rendered, 60, "the first frames"));
    CHECK(glr_export_wait(job, 0) == -EAGAIN);
    glr_export_cancel(job);
    CHECK(glr_export_wait(job, UINT64_MAX) == 0);
    CHECK(glr_export_wait(job, 0) == 0);
    CHECK(stats_of(job).stop == GLR_EXPORT_CANCELLED);
    glr_export_destroy(&job);
    unlink(out);

    p = ffv1_params(project, 32, 16, 0, 2, "/nonexistent-folder/started.mkv");
    job = glr_export_create(NULL, &p);
    CHECK(job != NULL && glr_export_start(job) == 0);
    CHECK(glr_export_wait(job, UINT64_MAX) < 0 && strstr(glr_last_error(), "nonexistent-folder"));
    glr_export_destroy(&job);

    p = ffv1_params(project, 32, 16, 0, 100000, out);
    job = glr_export_create(NULL, &p);
    CHECK(job != NULL && glr_export_start(job) == 0);
    CHECK(wait_for(job, some_rendered, 60, "the first frames"));
    glr_export_destroy(&job);
    uint64_t hashes[1];
    CHECK(decode_hashes(out, hashes, 1) > 0);
    glr_project_destroy(&project);
    unlink(out);
}

/* Params the job refuses at create, with words. */
static void bad_params_are_refused(void)
{
    glr_project *project = load("");
    struct glr_export_params p = ffv1_params(project, 64, 48, 0, 0, "x.mkv");
    CHECK(glr_export_create(NULL, &p) == NULL && strstr(glr_last_error(), "no range of frame numbers"));
    p = ffv1_params(project, 64, 48, 0, 2, "x.mkv");
    p.encoder.codec = "no-such-codec";
    CHECK(glr_export_create(NULL, &p) == NULL && strstr(glr_last_error(), "no-such-codec"));
    p = ffv1_params(project, 64, 48, 0, 2, "x.mkv");
    p.compile_timeout = NAN;
    CHECK(glr_export_create(NULL, &p) == NULL && strstr(glr_last_error(), "compile_timeout is a number"));
    CHECK(!exists("x.mkv"));
    glr_project_destroy(&project);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: export_job_test range|compile|long_frame|long_frame_in_flight|destroy_held|"
                        "stalled_cancel|stalled_interrupt|piped_stalled_cancel|piped_stalled_interrupt|"
                        "piped_finalizing_interrupt|params|pipe|in_flight|start\n");
        return 2;
    }
    export_job_test_pinned_context = glr_context_create(NULL, NULL);
    if (!export_job_test_pinned_context || glr_context_release_current(export_job_test_pinned_context) < 0)
        return 2;
    const char *tmp = getenv("TMPDIR");
    snprintf(scratch, sizeof scratch, "%s/export_job_test.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(scratch))
        return 2;
    const char *which = argv[1];
    if (!strcmp(which, "range"))
        range_equals_full_render();
    else if (!strcmp(which, "compile"))
        cancel_during_compile();
    else if (!strcmp(which, "long_frame"))
        cancel_during_long_frame(0);
    else if (!strcmp(which, "long_frame_in_flight"))
        cancel_during_long_frame(1);
    else if (!strcmp(which, "destroy_held"))
        destroy_while_held();
    else if (!strcmp(which, "stalled_cancel"))
        stop_during_stalled_output(0, 0);
    else if (!strcmp(which, "stalled_interrupt"))
        stop_during_stalled_output(1, 0);
    else if (!strcmp(which, "piped_stalled_cancel"))
        stop_during_stalled_output(0, 1);
    else if (!strcmp(which, "piped_stalled_interrupt"))
        stop_during_stalled_output(1, 1);
    else if (!strcmp(which, "piped_finalizing_interrupt"))
        interrupt_a_stalled_finalization();
    else if (!strcmp(which, "params"))
        bad_params_are_refused();
    else if (!strcmp(which, "pipe"))
        pipe_sink_matches_the_encoder();
    else if (!strcmp(which, "in_flight"))
        frames_in_flight_at_the_end();
    else if (!strcmp(which, "start"))
        start_and_wait();
    else
        return 2;
    rmdir(scratch);
    printf("%s: %s\n", which, failed ? "FAILED" : "passed");
    if (!strcmp(which, "destroy_held")) { /* its thread may still be ending: see there */
        fflush(stdout);
        _exit(failed ? 1 : 0);
    }
    return failed ? 1 : 0;
}
