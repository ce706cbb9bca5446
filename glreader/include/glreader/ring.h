/*
 * glreader: asynchronous readback of rendered frames through a ring of pixel-buffer
 * objects (PBOs) guarded by fences.
 *
 * Each slot of the ring moves through these states:
 *
 *   FREE --capture--> PENDING --fence signalled--> READY --acquire--> LEASED --release--> FREE
 *
 * capture() issues glReadPixels into a FREE slot's PBO plus a fence and returns at once.
 * acquire() hands out the oldest captured frame once its fence has signalled, as a view
 * straight into the PBO's mapped memory (no copy). The slot is not written again until
 * the lease is released, from any thread.
 *
 * A typical render loop (C++ users get the same loop from glr::ring::capture):
 *
 *   render();
 *   while (glr_ring_capture(ring, &src, pts) == -EBUSY)   // full of unacquired frames
 *       if (glr_ring_acquire(ring, &f, UINT64_MAX) == 0) hand_off(&f);
 *   while (glr_ring_acquire(ring, &f, 0) == 0)             // whatever is ready now
 *       hand_off(&f);                                      // consumer calls glr_frame_release
 *   ...
 *   while (glr_ring_acquire(ring, &f, UINT64_MAX) == 0) hand_off(&f);   // at the end
 *
 * In the host's GL context (docs/host-guide.md says more):
 *  - The rule: every GL state a glreader call touches reads the same after it as before,
 *    and whatever the host has set does not change what glreader reads. Each call sets
 *    what its result depends on for its own commands (scissor off, GL_FRAMEBUFFER_SRGB off,
 *    colour mask on, rasterizer discard off, pack parameters at GL's defaults, and its own
 *    bindings) and puts back the host's state and bindings afterwards, errors included.
 *  - sRGB sources give their stored bytes: a capture of an sRGB framebuffer or texture
 *    returns what glReadPixels of it returns with GL_FRAMEBUFFER_SRGB off, for RGB formats
 *    and for the YUV conversion alike, whatever the host's GL_FRAMEBUFFER_SRGB is. (Encode
 *    them with a transfer of sRGB, as the bytes are.)
 *  - GL errors: glreader takes the errors the host left pending before its own calls, so
 *    that it checks only its own (ring creation never fails for an earlier host error),
 *    and raises them again before returning: GL_INVALID_ENUM, _VALUE, _OPERATION,
 *    _FRAMEBUFFER_OPERATION, and GL_STACK_UNDERFLOW at the base of the debug group stack,
 *    with GL_DEBUG_OUTPUT off meanwhile so a debug callback hears nothing of it. GL has no
 *    way to raise GL_OUT_OF_MEMORY or GL_STACK_OVERFLOW again: the log warns when glreader
 *    took one of those. glreader's own errors never reach the host's glGetError.
 *  - Preconditions: while a glreader call runs, the host has no conditional rendering
 *    active, no query active that counts samples or primitives (GL_SAMPLES_PASSED,
 *    GL_ANY_SAMPLES_PASSED*, GL_PRIMITIVES_GENERATED, GL_TIME_ELAPSED, ...), and transform
 *    feedback, if active, paused. Such state cannot be saved and restored, and would count
 *    or drop glreader's own commands. Calls run on the thread where the context is
 *    current; leases are released from any thread.
 */
#ifndef GLREADER_RING_H
#define GLREADER_RING_H

#include "glreader/common.h"
#include "glreader/stats.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How rows are ordered in an acquired frame of an RGB format. OpenGL stores the bottom row
 * first. YUV formats fold the flip into their conversion: their rows come top first,
 * with positive strides, unless GLR_FLIP_NONE asks for GL's order. */
enum glr_flip {
    /* Read rows as GL stores them and return a view that starts at the top row with a
     * negative stride. Free; libav* and most image code accept negative strides. */
    GLR_FLIP_STRIDE = 0,
    /* Blit the source upside down into an internal framebuffer before reading it back:
     * memory holds the top row first, stride is positive. Costs one GPU blit. */
    GLR_FLIP_GPU = 1,
    /* No flip: the frame starts with GL's bottom row, stride is positive. */
    GLR_FLIP_NONE = 2
};

enum glr_ring_flags {
    /* Do not use persistent mapping (ARB_buffer_storage) even when available: map each
     * slot when acquired and unmap it after release, as drivers without it require. */
    GLR_RING_NO_PERSISTENT_MAP = 1 << 0,
    /* Do not use fences (ARB_sync) even when available: acquire waits with glFinish. */
    GLR_RING_NO_FENCES = 1 << 1
};

struct glr_ring_params {
    /* Frame size in pixels; required, 1..the GL size limit; even for 4:2:0 formats. */
    int width, height;
    enum glr_format format; /* 0: GLR_FORMAT_RGBA8 */
    /* YUV formats: how to convert (0 fields: BT.709, limited range, left chroma siting).
     * RGB formats: primaries and transfer are the frames' tags; the rest is ignored. */
    struct glr_color color;
    enum glr_flip flip;     /* 0: GLR_FLIP_STRIDE */
    int depth;              /* number of slots, 1..64; 0: 3 */
    unsigned flags;         /* glr_ring_flags */
    /* How long capture() may block waiting for a leased slot to be released before it
     * fails with -ETIMEDOUT, naming what holds the oldest lease (glr_frame_set_holder).
     * 0: 10 seconds; UINT64_MAX: forever, as a program whose output may stall for a while
     * (a reader paused, a disk busy) wants. */
    uint64_t capture_timeout_ns;
    /* GL function loader. NULL: eglGetProcAddress when an EGL context is current on the
     * calling thread, else glXGetProcAddressARB. GL functions are kept per ring and never
     * touch the global symbols of the host's own GL loader. */
    glr_get_proc_address_fn get_proc_address;
    uint64_t reserved_[4]; /* zero: room for later fields without an ABI break */
};

/* What to read back from. */
enum glr_source_kind {
    GLR_SOURCE_FRAMEBUFFER = 0, /* a framebuffer object, or 0 for the default framebuffer */
    GLR_SOURCE_TEXTURE = 1      /* a 2D texture, or a 2D multisample texture */
};

struct glr_source {
    enum glr_source_kind kind;
    unsigned name; /* framebuffer or texture name */
    /* Framebuffer: colour attachment index (0 for GL_COLOR_ATTACHMENT0, ...); ignored for
     * the default framebuffer, whose current read buffer is used. */
    unsigned attachment;
    /* Texture: 0 or GL_TEXTURE_2D (0x0DE1), or GL_TEXTURE_2D_MULTISAMPLE (0x9100). */
    unsigned target;
    /* Texture: mipmap level to read. */
    int level;
};

/* One plane of a frame: the first byte of its top row and the bytes from one row to the
 * next (negative for GLR_FLIP_STRIDE). */
/* A plane of a leased frame: its top row and the step to the next (negative for a view
 * that flips), with its size, so that consumers need not ask the format table. */
struct glr_plane {
    const uint8_t *data;
    ptrdiff_t stride;
    size_t row_bytes; /* bytes of pixels in a row (glr_format_plane_row_bytes) */
    int rows;         /* rows (glr_format_plane_rows) */
};

/* A leased frame: a read-only view into a slot's mapped PBO, which describes itself
 * (planes, format, colour) and knows its ring, so glr_frame_release(&f) needs nothing
 * else. At least 64 readable bytes follow its last row in memory, so SIMD code may read
 * whole vectors past a row's end; YUV planes start and stride at multiples of 64 bytes.
 * Thread-safety: may be passed to and read from any thread.
 * Lifetime: the planes stay valid and unchanged until glr_frame_release() of this frame
 * (or until the GL context is destroyed). Copies of the struct share the one lease. */
struct glr_frame {
    struct glr_plane planes[4]; /* glr_format_info.planes of them; the rest zero */
    int width, height;
    enum glr_format format;
    struct glr_color color;     /* how it was converted, every field resolved */
    int64_t pts;                /* the pts given to capture() */
    uint64_t sequence;          /* capture number on this ring, from 0 */
    /* Private: the lease. */
    struct glr_ring *ring_;
    uint64_t lease_id_;
    int slot_;
    uint64_t reserved_[4];      /* room to grow without changing the size */
};

/* Gives a leased frame's slot back to its ring and clears *frame. Any thread.
 * Returns 0, or -EINVAL (logged) when the frame holds no lease (empty, or already released
 * through another copy of the struct); nothing is changed then. */
GLR_API int glr_frame_release(struct glr_frame *frame);

/* Who holds a leased frame, for the message of a capture that times out waiting for its
 * slot (capture_timeout_ns): `describe` writes a few words into buf, such as what the
 * holder is blocked on and since when. It runs on the capturing thread with the ring's lock
 * held, so it must neither block nor call glreader; the holder must keep `opaque` alive
 * until it releases the frame. Consumers that take leases (glr_encoder, glr_pipe) set it;
 * describe NULL clears it. Any thread. Returns 0, or -EINVAL (logged) when the frame holds
 * no lease. */
typedef void (*glr_frame_describe_fn)(void *opaque, char *buf, size_t size);
GLR_API int glr_frame_set_holder(const struct glr_frame *frame, glr_frame_describe_fn describe, void *opaque);

/* The lending policy for consumers that keep leases for a while (an encoder holding
 * reference frames, a filter graph's queues): whether a consumer already keeping `kept`
 * leases of frame's ring may keep this one too, leaving the ring a slot to capture into.
 * Returns 1 to keep (lend) it, 0 when the consumer should copy the pixels and release the
 * lease at once: at depth 1, and whenever kept >= depth - 1. */
GLR_API int glr_frame_may_keep(const struct glr_frame *frame, int kept);

/* Slots a capture can fill now without waiting: neither holding a frame not yet acquired
 * nor leased. A consumer that must never block in capture (a filter graph) renders only
 * while this is positive; the count grows when leases come back, on any thread. Any
 * thread. Returns the count, or -EINVAL for a NULL ring. */
GLR_API int glr_ring_free_slots(const struct glr_ring *ring);

/* Statistics of a ring. Times in milliseconds. */
struct glr_ring_stats {
    uint64_t frames_captured, frames_acquired, frames_released;
    uint64_t frames_leased_now;   /* acquired and not yet released */
    int depth;
    int persistent_map;           /* 1: persistent coherent mapping; 0: map per frame */
    int fences;                   /* 1: fences; 0: glFinish */
    const char *path;             /* the two above in words, e.g. "persistent-map+fences" */
    const char *fill;             /* how slots are filled: "readback" or "gpu-convert" */
    size_t frame_bytes;           /* bytes read back per frame (all planes, padding included) */
    struct glr_latency stall;     /* whole time the render thread spent in capture() */
    struct glr_latency slot_wait; /* part of stall spent blocked for a leased slot */
    struct glr_latency readback;  /* issuing blits, the conversion or glReadPixels, the fence */
    struct glr_latency fence_wait;/* time acquire() waited for a fence (or glFinish) */
    struct glr_latency map;       /* map-per-frame path only: glMapBufferRange */
    struct glr_latency hold;      /* acquire to release: how long consumers kept leases */
    /* Part of stall spent saving, setting and restoring the host's GL state and pending
     * errors around capture() (see "In the host's GL context" above). */
    struct glr_latency host_state;
    uint64_t reserved_[4];        /* room for later figures without an ABI break */
};

/* The readback ring.
 * Thread-safety: create, capture, acquire and destroy are GL calls and must be made on a
 * thread where the GL context the ring was created in is current (the same context or
 * one sharing its objects). glr_frame_release and get_stats may be called from any thread.
 * Lifetime: destroy it before its GL context. Leases outstanding at destroy keep their
 * memory mapped until released (the ring logs a warning); the ring's remaining memory is
 * freed by the last release. */
typedef struct glr_ring glr_ring;

/* Creates a ring in the GL context current on the calling thread. Returns NULL on failure
 * with the reason logged and in glr_last_error(): no current context, bad size
 * ("0x0", or larger than GL_MAX_RENDERBUFFER_SIZE, odd for a 4:2:0 format), unknown format
 * or colour description, depth out of range, GL too old (needs OpenGL 3.0 or framebuffer
 * objects + glMapBufferRange; YUV formats need compute shaders: OpenGL 4.3). */
GLR_API glr_ring *glr_ring_create(glr_log *log, const struct glr_ring_params *params);

/* Destroys the ring's GL objects and sets *ring to NULL (see Lifetime above). NULL and a
 * pointer to NULL are accepted. */
GLR_API void glr_ring_destroy(glr_ring **ring);

/* Starts reading back source (width x height from its lower-left corner) into a free slot
 * and returns without waiting for the copy. A multisampled source is resolved first.
 * The host's GL state is as it was on return, and what it is does not change the frame
 * (see "In the host's GL context" at the top).
 * Returns 0, or:
 *  -EBUSY      no free slot and some slot holds a frame not acquired yet: acquire it
 *              (glr_ring_acquire with a timeout) and call again. Not logged.
 *  -ETIMEDOUT  every slot stayed leased for capture_timeout_ns.
 *  -EINVAL     bad source (no such framebuffer or texture, smaller than the ring,
 *              incomplete framebuffer) or NULL argument.
 *  GLR_ERROR_NO_CONTEXT  the ring's context is not current on this thread.
 *  GLR_ERROR_GL          a GL call failed; the message names it. */
GLR_API int glr_ring_capture(glr_ring *ring, const struct glr_source *source, int64_t pts);

/* Leases the oldest captured frame once its readback is complete, waiting up to
 * timeout_ns (0: do not wait; UINT64_MAX: wait as long as it takes).
 * Returns 0 and fills *frame, or:
 *  -EAGAIN   the oldest frame is not ready within the timeout. Not logged.
 *  -ENODATA  no captured frame is waiting to be acquired. Not logged.
 *  GLR_ERROR_NO_CONTEXT, GLR_ERROR_GL as for capture. */
GLR_API int glr_ring_acquire(glr_ring *ring, struct glr_frame *frame, uint64_t timeout_ns);

/* Copies the ring's statistics into *stats. Any thread. */
GLR_API void glr_ring_get_stats(glr_ring *ring, struct glr_ring_stats *stats);

#ifdef __cplusplus
}
#endif

#endif /* GLREADER_RING_H */
