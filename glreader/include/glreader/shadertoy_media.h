/* glreader 0.9 moved this header to glreader/utils/libav_media.h, whose path says what it needs
 * (glreader-av, or the FFmpeg it is compiled with (GLR_MEDIA_STATIC)). This forwarding header goes in 0.10: include the new path. */
#ifndef GLREADER_FORWARD_SHADERTOY_MEDIA_H
#define GLREADER_FORWARD_SHADERTOY_MEDIA_H
#include "glreader/utils/libav_media.h"
#endif
