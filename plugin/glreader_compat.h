/*
 * What differs between the FFmpeg releases glreader's filters are built in: the filter
 * declaration (AVFilter until libavfilter 10, FFFilter with the public part in .p since
 * 11), where a link's frame rate lives (AVFilterLink until 10.3, FilterLink since 10.4,
 * the 7.1 line), which frame properties a link negotiates (colour space and range since
 * the 7.1 line), where a link's hardware frames context lives, and the internal headers
 * (internal.h until 9, filters.h since).
 */
#ifndef AVFILTER_GLREADER_COMPAT_H
#define AVFILTER_GLREADER_COMPAT_H

#include "libavutil/frame.h"
#include "libavfilter/avfilter.h"
#include "libavfilter/version.h"

#if LIBAVFILTER_VERSION_MAJOR >= 11
#include "filters.h"
#include "formats.h"
#include "video.h"
#define GLR_FILTER_TYPE FFFilter
#define GLR_FILTER_PUBLIC(field) .p.field
#define GLR_FRAME_RATE(link) (ff_filter_link(link)->frame_rate)
#elif LIBAVFILTER_VERSION_INT >= AV_VERSION_INT(10, 4, 100)
#include "filters.h"
#include "formats.h"
#include "video.h"
#define GLR_FILTER_TYPE AVFilter
#define GLR_FILTER_PUBLIC(field) .field
#define GLR_FRAME_RATE(link) (ff_filter_link(link)->frame_rate)
#elif LIBAVFILTER_VERSION_MAJOR == 8
#include "filters.h"
#include "formats.h"
#include "internal.h"
#include "video.h"
#define GLR_FILTER_TYPE AVFilter
#define GLR_FILTER_PUBLIC(field) .field
#define GLR_FRAME_RATE(link) ((link)->frame_rate)
#else
#error "glreader's filters support FFmpeg 5.1 (libavfilter 8), 7.1 (libavfilter 10.4+) and 8.0 and later (11+)"
#endif

/* The frames context of a link's hardware frames: on the link until libavfilter 10.4, on
 * its FilterLink since. Filters that make hardware frames from a device the graph gives
 * (-filter_hw_device) say so since libavfilter 9.5; earlier lines give every filter it. */
#if LIBAVFILTER_VERSION_INT >= AV_VERSION_INT(10, 4, 100)
#define GLR_LINK_HW_FRAMES(link) (ff_filter_link(link)->hw_frames_ctx)
#else
#define GLR_LINK_HW_FRAMES(link) ((link)->hw_frames_ctx)
#endif
#ifdef AVFILTER_FLAG_HWDEVICE
#define GLR_FLAG_HWDEVICE AVFILTER_FLAG_HWDEVICE
#else
#define GLR_FLAG_HWDEVICE 0
#endif

/* Makes a link negotiate one colour space and range, where links negotiate them; older
 * lines only carry them on frames. */
static inline int glr_set_link_color(AVFilterLink *link, int space, int range)
{
#if LIBAVFILTER_VERSION_INT >= AV_VERSION_INT(9, 15, 100)
    const int spaces[] = { space, -1 }, ranges[] = { range, -1 };
    int ret = ff_formats_ref(ff_make_format_list(spaces), &link->incfg.color_spaces);
    return ret < 0 ? ret : ff_formats_ref(ff_make_format_list(ranges), &link->incfg.color_ranges);
#else
    (void)link; (void)space; (void)range;
    return 0;
#endif
}

/* Gives a frame the properties the link negotiated, as ff_get_video_buffer does for
 * pooled frames: frames that differ from them make the graph reconfigure. */
static inline void glr_frame_take_link_properties(AVFrame *frame, const AVFilterLink *link)
{
#if LIBAVFILTER_VERSION_INT >= AV_VERSION_INT(9, 15, 100)
    frame->colorspace  = link->colorspace;
    frame->color_range = link->color_range;
#endif
#if LIBAVFILTER_VERSION_INT >= AV_VERSION_INT(11, 6, 100)
    frame->alpha_mode  = link->alpha_mode;
#endif
    frame->sample_aspect_ratio = link->sample_aspect_ratio;
}

#endif /* AVFILTER_GLREADER_COMPAT_H */
