#include "shadertoy_json_project.hpp"

#include "gl_test.hpp"

#include <sys/stat.h>

#include <fstream>

namespace glr_test {

namespace {

// A PPM of 2x2 pixels: the top row (r, top_g, 0), the bottom row (r, bottom_g, 0).
void write_ppm(const std::string &path, int r, int top_g, int bottom_g)
{
    std::ofstream ppm(path, std::ios::binary);
    ppm << "P6\n2 2\n255\n";
    for (int g : {top_g, top_g, bottom_g, bottom_g})
        ppm << static_cast<char>(r) << static_cast<char>(g) << static_cast<char>(0);
}

} // namespace

shadertoy_json_project write_shadertoy_json_project(const std::string &name)
{
    shadertoy_json_project p{scratch_path(name + ".json"), scratch_path(name + "_media")};
    mkdir(p.media.c_str(), 0755);
    write_ppm(p.media + "/pic.ppm", 0, 200, 40);
    write_ppm(p.media + "/sky.ppm", 10, 0, 0);
    for (int face = 1; face < 6; face++)
        write_ppm(p.media + "/sky_" + std::to_string(face) + ".ppm", 10 * (face + 1), 0, 0);
    std::ofstream(p.json) << R"({"Shader": {"ver": "0.1", "info": {"id": "t3st", "name": "counting"},
  "renderpass": [
    {"type": "buffer", "name": "Buffer A", "outputs": [{"id": "4dXGR8", "channel": 0}],
     "inputs": [{"id": "4dXGR8", "ctype": "buffer", "channel": 0,
                 "sampler": {"filter": "nearest", "wrap": "clamp", "vflip": "true"}}],
     "code": "void mainImage(out vec4 c, in vec2 p) { c = vec4(texelFetch(iChannel0, ivec2(p), 0).r + 1.0); }"},
    {"type": "image", "name": "Image", "outputs": [{"id": "4dfGRr", "channel": 0}],
     "inputs": [{"id": 257, "ctype": "buffer", "channel": 0},
                {"id": "XdX3Rn", "ctype": "texture", "channel": 1, "src": "/media/a/pic.ppm"},
                {"id": "4dX3Rn", "ctype": "cubemap", "channel": 2, "src": "/media/a/sky.ppm"}],
     "code": "void mainImage(out vec4 c, in vec2 p) {\n    if (p.x < iResolution.x * 0.5)\n        c = vec4(texelFetch(iChannel0, ivec2(p), 0).r / 255.0, texture(iChannel1, vec2(0.5, 0.75)).g,\n                 texture(iChannel1, vec2(0.5, -0.25)).g, 1.0);\n    else\n        c = vec4(texture(iChannel2, vec3(1, 0, 0)).r, texture(iChannel2, vec3(-1, 0, 0)).r,\n                 texture(iChannel2, vec3(0, 1, 0)).r, 1.0);\n}"}
  ]}})";
    return p;
}

} // namespace glr_test
