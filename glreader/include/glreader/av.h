/*
 * glreader-av, every header: the in-process encoder, the export job, the recorder, the
 * export's option table, chunks' join and FFmpeg's log routed to glreader's. Link
 * glreader-av (pkg-config glreader-av), which links the core and FFmpeg's libraries.
 * The core alone is glreader/glreader.h; FFmpeg glue compiled with your own FFmpeg (no
 * library) is glreader/utils/.
 */
#ifndef GLREADER_AV_H
#define GLREADER_AV_H

#include "glreader/av/encoder.h"
#include "glreader/av/export.h"
#include "glreader/av/export_options.h"
#include "glreader/av/ffmpeg_log.h"
#include "glreader/av/join.h"
#include "glreader/av/recorder.h"
#include "glreader/av/stop.h"

#endif /* GLREADER_AV_H */
