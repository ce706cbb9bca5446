// glreader-bench info [--json FILE]
//
// What the benchmarks run on, to head a report: the GL renderer, vendor and version, the
// EGL platform that gave the context, whether the renderer rasterizes in software (then no
// figure is a GPU's), and the readback path a default ring takes there.
#include "common.hpp"
#include "modes.hpp"

#include "gl_program.hpp"

#include <cstdio>

namespace bench {

int bench_info(int argc, char **argv)
{
    options o = parse_options(argc, argv, {"", "", 1, 1});
    glr::context ctx;
    GladGLContext gl{};
    sample::load_gl(gl);
    auto text = [&](GLenum name) { return std::string(reinterpret_cast<const char *>(gl.GetString(name))); };
    const std::string vendor = text(GL_VENDOR), version = text(GL_VERSION);
    glr_ring_params params{};
    params.width = 64;
    params.height = 64;
    const std::string path = glr::ring(params).stats().path;

    std::printf("renderer: %s\nvendor: %s\nversion: %s\nEGL platform: %s\nsoftware rasterizer: %s\n"
                "ring path: %s\n",
                ctx.renderer().c_str(), vendor.c_str(), version.c_str(), ctx.platform().c_str(),
                ctx.is_software() ? "yes" : "no", path.c_str());
    write_json(o.json, "info", ctx, 1,
               "\"vendor\": \"" + vendor + "\", \"version\": \"" + version + "\", \"ring_path\": \"" + path + "\"",
               {});
    return 0;
}

} // namespace bench
