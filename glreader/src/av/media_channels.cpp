// glreader/utils/libav_media.h's functions, compiled here and exported from glreader-av;
// the implementation is shared, static inline, with the FFmpeg filter.
#define GLR_MEDIA_IMPLEMENTATION
#include "glreader/utils/libav_media.h"
