/* glreader 0.9 moved this header to glreader/av/encoder.h, whose path says what it needs
 * (glreader-av). This forwarding header goes in 0.10: include the new path. */
#ifndef GLREADER_FORWARD_ENCODER_H
#define GLREADER_FORWARD_ENCODER_H
#include "glreader/av/encoder.h"
#endif
