// A headless OpenGL context through EGL: hardware device, Mesa surfaceless, pbuffer.
#pragma once

#include "glreader/context.h"
#include "context/egl_api.hpp"

#include <string>

namespace glr {

class headless_context {
public:
    // Creates the context and makes it current on the calling thread; throws glr::failure
    // whose message lists every platform tried and why it did not do.
    headless_context(const glr_log *log, const glr_context_params &params);
    ~headless_context();
    headless_context(const headless_context &) = delete;
    headless_context &operator=(const headless_context &) = delete;

    void make_current();
    void release_current();

    const std::string &renderer() const { return renderer_; }
    const char *platform_name() const { return platform_name_; }
    bool is_software() const { return software_; }
    int gl_major() const { return major_; }
    int gl_minor() const { return minor_; }

private:
    struct attempt;
    bool try_display(attempt &a, const glr_context_params &params, std::string &why);
    void destroy_current_attempt();

    const glr_log *log_;
    const egl::api *egl_ = nullptr;
    EGLDisplay display_ = EGL_NO_DISPLAY;
    EGLContext context_ = EGL_NO_CONTEXT;
    EGLSurface surface_ = EGL_NO_SURFACE;
    std::string renderer_;
    const char *platform_name_ = "";
    bool software_ = false;
    int major_ = 0, minor_ = 0;
};

} // namespace glr
