// A Shadertoy JSON of the API's shape and the media it names, as the tests of every program
// that reads one (exporter, FFmpeg filter) render it: Buffer A counts frames reading itself;
// the Image pass shows, left half, the count (red) and a 2x2 picture sampled with
// Shadertoy's defaults above its middle (green: 200 when upright) and below its bottom
// (blue: 200 when it repeats); right half, a cube map's +X, -X and +Y faces (red of each
// face: 10, 20, 30 when Shadertoy's face names map to the right faces).
#pragma once

#include <string>

namespace glr_test {

struct shadertoy_json_project {
    std::string json;  // the JSON file
    std::string media; // the folder holding its media (pic.ppm, sky.ppm, sky_1.ppm .. sky_5.ppm)
};

shadertoy_json_project write_shadertoy_json_project(const std::string &name);

} // namespace glr_test
