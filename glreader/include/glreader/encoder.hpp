// glreader 0.9 moved this header to glreader/av/encoder.hpp, whose path says what it needs
// (glreader-av). This forwarding header goes in 0.10: include the new path.
#pragma once
#include "glreader/av/encoder.hpp"
