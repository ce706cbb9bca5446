/* glreader 0.9 moved this header to glreader/av/export.h, whose path says what it needs
 * (glreader-av). This forwarding header goes in 0.10: include the new path. */
#ifndef GLREADER_FORWARD_EXPORT_H
#define GLREADER_FORWARD_EXPORT_H
#include "glreader/av/export.h"
#endif
