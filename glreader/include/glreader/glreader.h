/*
 * glreader: every header of the core library at once (libglreader, pkg-config glreader:
 * no FFmpeg inside). glreader-av's are glreader/av.h; the FFmpeg glue compiled with your
 * own FFmpeg, with no library of its own, is glreader/utils/.
 */
#ifndef GLREADER_GLREADER_H
#define GLREADER_GLREADER_H

#include "glreader/common.h"
#include "glreader/context.h"
#include "glreader/ffmpeg_child.h"
#include "glreader/frame_range.h"
#include "glreader/pipe.h"
#include "glreader/player.h"
#include "glreader/ring.h"
#include "glreader/scene.h"
#include "glreader/shadertoy_project.h"
#include "glreader/stats.h"

#endif /* GLREADER_GLREADER_H */
