/*
 * What differs between the FFmpeg releases vsrc_glreader.c is built in: the filter
 * declaration (AVFilter until libavfilter 10, FFFilter with the public part in .p since
 * 11), where a link's frame rate lives (AVFilterLink until 10, FilterLink since), and the
 * internal headers.
 */
#ifndef AVFILTER_GLREADER_COMPAT_H
#define AVFILTER_GLREADER_COMPAT_H

#include "libavfilter/version.h"

#if LIBAVFILTER_VERSION_MAJOR >= 11
#include "filters.h"
#include "formats.h"
#include "video.h"
#define GLR_FILTER_TYPE FFFilter
#define GLR_FILTER_PUBLIC(field) .p.field
#define GLR_SET_FRAME_RATE(link, rate) (ff_filter_link(link)->frame_rate = (rate))
#elif LIBAVFILTER_VERSION_MAJOR == 8
#include "filters.h"
#include "formats.h"
#include "internal.h"
#include "video.h"
#define GLR_FILTER_TYPE AVFilter
#define GLR_FILTER_PUBLIC(field) .field
#define GLR_SET_FRAME_RATE(link, rate) ((link)->frame_rate = (rate))
#else
#error "vsrc_glreader supports the FFmpeg 5.1 line (libavfilter 8) and 8.0 and later (libavfilter 11+)"
#endif

#endif /* AVFILTER_GLREADER_COMPAT_H */
