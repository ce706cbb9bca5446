/* glreader 0.9 moved this header to glreader/utils/libav.h, whose path says what it needs
 * (the FFmpeg it is compiled with (header-only glue)). This forwarding header goes in 0.10: include the new path. */
#ifndef GLREADER_FORWARD_LIBAV_H
#define GLREADER_FORWARD_LIBAV_H
#include "glreader/utils/libav.h"
#endif
