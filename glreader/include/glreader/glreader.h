/*
 * glreader: every public C header at once.
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
