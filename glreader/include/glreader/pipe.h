/*
 * glreader: ordered writes of leased frames, or of any memory block, to file descriptors
 * on writer threads (pipe mode). The TurboPipe model (pipe / sync / close), for users who
 * keep an out-of-process reader such as an `ffmpeg -f rawvideo -i -` child.
 *
 *   glr_pipe_write_frame(pipe, fd, &frame);        // returns at once; the lease is the pipe's
 *   glr_pipe_write(pipe, fd, block, size);          // caller's memory: keep it unchanged ...
 *   glr_pipe_sync(pipe, block);                     // ... until this returns
 *   glr_pipe_close(pipe, fd);                       // everything for fd is out
 *
 * Transport, per fd. A pipe (or FIFO) is enlarged with F_SETPIPE_SZ and fed with
 * vmsplice(2): the kernel takes references to the memory's pages instead of copying them,
 * so a block is "out" only once the reader has read those bytes, not when vmsplice
 * returns. The writer tracks that with FIONREAD (bytes still unread in the pipe) and
 * releases a lease, or lets glr_pipe_sync return, only then. Anything else (file, socket,
 * a pipe with GLR_PIPE_WRITE) gets write(2) in chunks of chunk_size bytes; a block is out
 * when the last write returned. Memory vmsplice cannot take (EFAULT, e.g. some drivers'
 * mappings) falls back to write for that fd, and the stats say so.
 *
 * The pipe must be the only writer of each fd it serves: the FIONREAD accounting counts
 * every byte in the pipe as its own. A reader that splices the pipe onward without copying
 * (to a socket) may see later bytes; use GLR_PIPE_WRITE for such readers.
 *
 * Errors. A write that fails on an fd (EPIPE when the reader died, ENOSPC, EBADF, ...)
 * makes that fd's error sticky: the blocks still queued for it are dropped (their leases
 * released, counted in blocks_failed), and every later write, sync or close touching that
 * fd returns the error, with a message. EINTR, short writes and EAGAIN (non-blocking fds)
 * are retried and never lose or repeat a byte. SIGPIPE is blocked on the writer threads
 * only; the process's disposition is left alone.
 */
#ifndef GLREADER_PIPE_H
#define GLREADER_PIPE_H

#include "glreader/common.h"
#include "glreader/ring.h"
#include "glreader/stats.h"

#ifdef __cplusplus
extern "C" {
#endif

enum glr_pipe_transport {
    GLR_PIPE_AUTO = 0,  /* vmsplice for pipes and FIFOs, write otherwise */
    GLR_PIPE_WRITE = 1  /* write(2) for every fd */
};

struct glr_pipe_params {
    enum glr_pipe_transport transport; /* 0: GLR_PIPE_AUTO */
    int queue_depth;      /* blocks queued per fd before write blocks; 0: 4 */
    size_t chunk_size;    /* bytes per write(2) call; 0: 1 MiB */
    /* Size a pipe is raised to with F_SETPIPE_SZ; 0: the system's limit
     * (/proc/sys/fs/pipe-max-size). If the kernel refuses, smaller sizes are tried. */
    size_t pipe_size;
    uint64_t reserved_[4]; /* zero: room for later fields without an ABI break */
};

/* Statistics of a pipe, over all its fds. Times in milliseconds. */
struct glr_pipe_stats {
    uint64_t blocks_written;     /* blocks out (consumed by the reader, for vmsplice) */
    uint64_t bytes_written;
    uint64_t vmsplice_bytes, write_bytes; /* of those, by transport */
    uint64_t syscalls;           /* vmsplice, write and writev calls, retries included */
    uint64_t retries;            /* EINTR, EAGAIN and short writes that were resumed */
    uint64_t blocks_failed;      /* dropped because their fd had failed */
    size_t pipe_size;            /* the largest pipe size set, 0 when no fd is a pipe */
    struct glr_latency queue_wait; /* caller blocked in write because the queue was full */
    struct glr_latency delivery;   /* from write to out */
    /* How long the slowest fd's reader has taken no bytes while blocks wait for it, 0 when
     * none waits: a program shows that it waits for its reader when this grows. */
    double reader_idle_ms;
    uint64_t reserved_[3];         /* room for later figures without an ABI break */
};

/* Pipe mode as a sink of the export job (glreader/av/export.h) and the recorder
 * (glreader/av/recorder.h): an `ffmpeg -f rawvideo -i -` child (glreader/ffmpeg_child.h)
 * whose stdin takes each frame's lease through a glr_pipe, without a copy (vmsplice), as
 * TurboPipe writes them. The child waits for its input as long as it takes; one that stops
 * reading (it failed, or a Ctrl-C reached it) makes the writes fail with -EPIPE, and the
 * end of the job or recording says why in ffmpeg's own words. */
struct glr_pipe_sink {
    /* The child's output arguments (codec, options, output), NULL-terminated; non-NULL
     * chooses this sink. ffmpeg cannot ask before overwriting: pass -y or -n. */
    const char *const *args;
    const char *ffmpeg;                /* the program; NULL: $GLR_FFMPEG, else ffmpeg on the PATH */
    enum glr_pipe_transport transport; /* 0: vmsplice into the pipe */
    uint64_t reserved_[2];             /* zero: room for later fields without an ABI break */
};

/* Writes blocks to file descriptors, one writer thread per fd.
 * Thread-safety: every function may be called from any thread; writes to one fd keep the
 * order of the calls. Lifetime: a ring whose frames were written must outlive the moment
 * those frames are out (sync_all, close or destroy). */
typedef struct glr_pipe glr_pipe;

/* params may be NULL for the defaults. Returns NULL (-EINVAL logged) for bad params. */
GLR_API glr_pipe *glr_pipe_create(glr_log *log, const struct glr_pipe_params *params);

/* Queues size bytes at data for fd and returns; blocks only while fd's queue is full.
 * The memory belongs to the caller and must stay valid and unchanged until
 * glr_pipe_sync(pipe, data) (or sync_all, or close of fd) returned.
 * Returns 0; fd's sticky error (nothing is queued then); -EINVAL for a negative fd,
 * NULL data with a size, or size 0. */
GLR_API int glr_pipe_write(glr_pipe *pipe, int fd, const void *data, size_t size);

/* Queues a leased frame for fd: each plane in turn, its rows top to bottom without
 * padding (glr_format_plane_row_bytes each; any stride, negative included: rows are
 * gathered, never copied), which is what `ffmpeg -f rawvideo -pix_fmt NAME` reads. Takes
 * the lease in every case and releases it once the bytes are out, or at once on failure.
 * *frame is cleared. Returns as glr_pipe_write. */
GLR_API int glr_pipe_write_frame(glr_pipe *pipe, int fd, struct glr_frame *frame);

/* Waits until every queued write of the block starting at data (on any fd) is out.
 * Returns at once with 0 when none is queued. Returns the error of an fd that failed
 * such a write since the last sync of that block, else 0. */
GLR_API int glr_pipe_sync(glr_pipe *pipe, const void *data);

/* Waits until every queued write on every fd is out. Returns the first error of any fd
 * since the last sync_all (fds stay failed), else 0. */
GLR_API int glr_pipe_sync_all(glr_pipe *pipe);

/* Flushes fd: waits until every block queued for it is out (it does not drop pending
 * writes; a reader that stopped reading but lives keeps this waiting), then stops its
 * writer thread. Does not close fd itself, which stays the caller's: closing it then
 * gives the reader its end of file. Returns fd's error if it failed, else 0; a fd never
 * written returns 0. */
GLR_API int glr_pipe_close(glr_pipe *pipe, int fd);

/* Closes every fd as glr_pipe_close (flushing them), frees the pipe, sets *pipe to NULL.
 * NULL and a pointer to NULL are accepted. */
GLR_API void glr_pipe_destroy(glr_pipe **pipe);

/* Copies the pipe's statistics into *stats. Any thread. */
GLR_API void glr_pipe_get_stats(glr_pipe *pipe, struct glr_pipe_stats *stats);

#ifdef __cplusplus
}
#endif

#endif /* GLREADER_PIPE_H */
