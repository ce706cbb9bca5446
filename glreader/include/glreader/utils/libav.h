/*
 * glreader: a header-only bridge from leased frames to FFmpeg's AVFrame, for every user of
 * glreader that lives next to libavutil (glreader-av, the FFmpeg filter, your own code).
 * All functions are static inline: including it adds no link dependency to glreader
 * beyond the core's C ABI, and it compiles against the FFmpeg it is built with.
 *
 * The lending policy lives here: a lease is lent to FFmpeg without a copy (its AVBuffer
 * gives the slot back when the last reference goes) while the consumer keeps fewer than
 * depth - 1 of them; past that it is copied and released at once, so a consumer that holds
 * frames (an encoder with lookahead, a filter graph's queues) never starves the ring.
 *
 *   struct glr_av_lender lender = { .keeps_frames = 1 };
 *   AVFrame *av = glr_av_frame_from_lease(&f, &lender, get_pooled_frame, pool, &lent);
 */
#ifndef GLREADER_UTILS_LIBAV_H
#define GLREADER_UTILS_LIBAV_H

#include "glreader/ring.h"

#ifdef __cplusplus
extern "C" {
#endif
#include <libavutil/buffer.h>
#include <libavutil/frame.h>
#include <libavutil/imgutils.h>
#include <libavutil/mem.h>
#include <libavutil/pixdesc.h>
#ifdef __cplusplus
}
#endif

#include <string.h>

/* glreader's code for an FFmpeg error: AVERROR(errno) stays -errno (-ENOSPC), FFmpeg's own
 * codes (AVERROR_INVALIDDATA ...) become GLR_ERROR_CODEC. */
static inline int glr_av_code_of(int averror)
{
    return averror < 0 && averror > -4096 ? averror : GLR_ERROR_CODEC;
}

/* FFmpeg's pixel format of a glreader format, AV_PIX_FMT_NONE for none. */
static inline enum AVPixelFormat glr_av_pix_fmt(enum glr_format format)
{
    const char *name = glr_format_name(format);
    return name ? av_get_pix_fmt(name) : AV_PIX_FMT_NONE;
}

/* The glreader format of an FFmpeg pixel format, 0 when glreader has none. */
static inline enum glr_format glr_av_format_of(enum AVPixelFormat pix_fmt)
{
    const char *name = av_get_pix_fmt_name(pix_fmt);
    return name ? glr_format_from_name(name) : (enum glr_format)0;
}

/* Tags frame with a colour description (glreader's numbers are FFmpeg's). */
static inline void glr_av_set_color(AVFrame *frame, const struct glr_color *color)
{
    frame->colorspace = (enum AVColorSpace)color->matrix;
    frame->color_range = (enum AVColorRange)color->range;
    frame->color_primaries = (enum AVColorPrimaries)color->primaries;
    frame->color_trc = (enum AVColorTransferCharacteristic)color->transfer;
    frame->chroma_location = (enum AVChromaLocation)color->chroma;
}

/* Points frame's planes at f's (no buffer, no ownership) and sets its size, format and
 * colour: a view for code that reads the pixels while the lease is held. */
static inline void glr_av_frame_view(AVFrame *frame, const struct glr_frame *f)
{
    for (int p = 0; p < 4; p++) {
        frame->data[p] = (uint8_t *)f->planes[p].data;
        frame->linesize[p] = (int)f->planes[p].stride; /* negative for GLR_FLIP_STRIDE */
    }
    frame->width = f->width;
    frame->height = f->height;
    frame->format = glr_av_pix_fmt(f->format);
    glr_av_set_color(frame, &f->color);
}

/* Copies f's pixels into dst, an allocated frame of f's size and pixel format (rows top
 * first whatever f's strides), and tags dst with f's colour. */
static inline void glr_av_frame_copy(AVFrame *dst, const struct glr_frame *f)
{
    const struct glr_format_info *info = glr_format_get_info(f->format);
    for (int p = 0; info && p < info->planes; p++)
        av_image_copy_plane(dst->data[p], dst->linesize[p], f->planes[p].data, (int)f->planes[p].stride,
                            (int)f->planes[p].row_bytes, f->planes[p].rows);
    glr_av_set_color(dst, &f->color);
}

/* A consumer's account of the leases it lent to FFmpeg. Zero-initialise, then set:
 * keeps_frames: 1 when what receives the frames may keep them past the call that took
 * them (libavcodec with delay or frame threads, a filter graph): the policy applies;
 * 0: every frame is lent. returned/opaque: called after a lease went back to its ring,
 * so that a consumer waiting for a free slot (glr_ring_free_slots) looks again: a lent one
 * when FFmpeg let it go (any thread), one copied right after the copy. owner: a buffer each lent frame keeps a reference to (what must outlive it, such
 * as the GL context the ring maps its memory from). kept is updated atomically. */
struct glr_av_lender {
    int keeps_frames;
    int kept;
    void (*returned)(void *opaque);
    void *opaque;
    AVBufferRef *owner;
};

/* How many leases the lender has lent that are not back yet (any thread). */
static inline int glr_av_lender_kept(const struct glr_av_lender *lender)
{
    return __atomic_load_n(&lender->kept, __ATOMIC_ACQUIRE);
}

/* Private: one lent lease inside an AVBuffer. */
struct glr_av_lease_ {
    struct glr_frame frame;
    struct glr_av_lender *lender;
    AVBufferRef *owner;
};

static inline void glr_av_lease_free_(void *opaque, uint8_t *data)
{
    struct glr_av_lease_ *lease = (struct glr_av_lease_ *)opaque;
    struct glr_av_lender *lender = lease->lender;
    (void)data;
    glr_frame_release(&lease->frame);
    __atomic_fetch_sub(&lender->kept, 1, __ATOMIC_ACQ_REL);
    if (lender->returned)
        lender->returned(lender->opaque);
    av_buffer_unref(&lease->owner);
    av_free(lease);
}

/* Turns a leased frame into an AVFrame and takes the lease (*f is cleared in every case):
 *  - lent without a copy while the policy allows: the AVFrame's buffer holds the lease
 *    and gives the slot back when its last reference is freed; *lent = 1;
 *  - else copied into get_copy(copy_opaque), which returns an allocated frame of f's size
 *    and pixel format (a pooled one), the lease released at once; *lent = 0.
 * The frame is tagged with f's colour; its pts is f's. Returns NULL when out of memory
 * (the lease released then too). Thread-safety: one lender per consumer thread; the
 * frames it lends may be freed on any thread. */
static inline AVFrame *glr_av_frame_from_lease(struct glr_frame *f, struct glr_av_lender *lender,
                                               AVFrame *(*get_copy)(void *opaque), void *copy_opaque, int *lent)
{
    AVFrame *out = NULL;
    struct glr_av_lease_ *lease = NULL;
    int kept = glr_av_lender_kept(lender);

    *lent = !lender->keeps_frames || glr_frame_may_keep(f, kept);
    if (!*lent) {
        if ((out = get_copy(copy_opaque))) {
            glr_av_frame_copy(out, f);
            out->pts = f->pts;
        }
        glr_frame_release(f);
        if (lender->returned)
            lender->returned(lender->opaque);
        return out;
    }
    out = av_frame_alloc();
    lease = (struct glr_av_lease_ *)av_mallocz(sizeof(*lease));
    if (out && lease && (!lender->owner || (lease->owner = av_buffer_ref(lender->owner)))) {
        const struct glr_format_info *info = glr_format_get_info(f->format);
        const uint8_t *low = f->planes[0].data, *high = f->planes[0].data;
        for (int p = 0; info && p < info->planes; p++) {
            /* the lowest and highest addresses of the rows, whatever the strides' signs */
            const uint8_t *first = f->planes[p].data, *last = first + f->planes[p].stride * (f->planes[p].rows - 1);
            const uint8_t *lo = first < last ? first : last, *hi = (first < last ? last : first) + f->planes[p].row_bytes;
            low = lo < low ? lo : low;
            high = hi > high ? hi : high;
        }
        glr_av_frame_view(out, f);
        out->pts = f->pts;
        lease->frame = *f;
        lease->lender = lender;
        out->buf[0] = av_buffer_create((uint8_t *)low, (size_t)(high - low), glr_av_lease_free_, lease,
                                       AV_BUFFER_FLAG_READONLY);
        if (out->buf[0]) {
            __atomic_fetch_add(&lender->kept, 1, __ATOMIC_ACQ_REL);
            memset(f, 0, sizeof(*f));
            return out;
        }
        av_buffer_unref(&lease->owner);
    }
    av_free(lease);
    av_frame_free(&out);
    glr_frame_release(f);
    if (lender->returned)
        lender->returned(lender->opaque);
    return NULL;
}

#endif /* GLREADER_UTILS_LIBAV_H */
