#include "context/headless_context.hpp"

#include "context/device_choice.hpp"
#include "enum_value.hpp"
#include "error.hpp"
#include "log.hpp"

#include <glad/gl.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <vector>

namespace glr {

namespace {

// EGL hands out one EGLDisplay per native display and process, and eglTerminate ends it
// for every user; count our users so that one context's destruction spares the others.
std::mutex display_mutex;
std::map<EGLDisplay, int> display_users;

bool initialize_display(const egl::api *egl, EGLDisplay display)
{
    std::lock_guard<std::mutex> lock(display_mutex);
    EGLint major = 0, minor = 0;
    if (!egl->Initialize(display, &major, &minor))
        return false;
    display_users[display]++;
    return true;
}

void terminate_display(const egl::api *egl, EGLDisplay display)
{
    std::lock_guard<std::mutex> lock(display_mutex);
    auto it = display_users.find(display);
    if (it == display_users.end() || --it->second > 0)
        return;
    display_users.erase(it);
    egl->Terminate(display);
}

bool is_software_renderer(const std::string &renderer)
{
    for (const char *name : {"llvmpipe", "softpipe", "SwiftShader", "Software Rasterizer", "swrast"})
        if (renderer.find(name) != std::string::npos)
            return true;
    return false;
}

std::string egl_error(const egl::api *egl, const char *call)
{
    return format("%s failed (%s)", call, egl::error_name(egl->GetError()));
}

// GLR_EGL_DEVICE's choice (context/device_choice.hpp); none (-1, -1) when it is not set.
device_choice chosen_device()
{
    device_choice choice;
    const char *env = std::getenv("GLR_EGL_DEVICE");
    if (env && *env && !read_device_choice(env, choice))
        fail(-EINVAL, "GLR_EGL_DEVICE=%s: give an EGL device number (0, 1, ...) or cuda:N (the GPU that CUDA "
                      "numbers N in this process)",
             env);
    return choice;
}

} // namespace

struct headless_context::attempt {
    const char *platform;
    EGLDisplay display;
    bool software_device; // EGL says so before any context exists
};

headless_context::headless_context(const glr_log *log, const glr_context_params &params)
    : log_(log)
{
    int platform = enum_value(params.platform);
    if (platform < GLR_PLATFORM_AUTO || platform > GLR_PLATFORM_PBUFFER)
        fail(-EINVAL, "glr_context_create: unknown platform %d", platform);
    std::string why;
    egl_ = egl::load(&why);
    if (!egl_)
        fail(GLR_ERROR_EGL, "no headless OpenGL context: %s", why.c_str());

    const char *client_ext = egl_->QueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
    egl_->GetError(); // EGL 1.4 implementations reject EGL_NO_DISPLAY here

    std::vector<attempt> hardware_devices, software_devices;
    std::string device_note;
    bool want_device = params.platform == GLR_PLATFORM_AUTO || params.platform == GLR_PLATFORM_DEVICE;
    const device_choice choice = want_device ? chosen_device() : device_choice{};
    if (want_device) {
        if (!egl::has_extension(client_ext, "EGL_EXT_platform_device") || !egl_->QueryDevicesEXT) {
            device_note = "device: EGL_EXT_platform_device is not supported";
            if (!choice.text.empty())
                fail(GLR_ERROR_EGL, "GLR_EGL_DEVICE=%s: this EGL lists no devices (no EGL_EXT_platform_device)",
                     choice.text.c_str());
        } else {
            EGLDeviceEXT devices[16];
            EGLint count = 0;
            if (!egl_->QueryDevicesEXT(16, devices, &count) || count == 0) {
                device_note = "device: no EGL devices found";
                egl_->GetError();
            }
            std::string listed;
            for (EGLint i = 0; i < count; i++) {
                const char *ext = egl_->QueryDeviceStringEXT
                                      ? egl_->QueryDeviceStringEXT(devices[i], EGL_EXTENSIONS)
                                      : nullptr;
                bool software = egl::has_extension(ext, "EGL_MESA_device_software");
                EGLAttrib cuda = -1;
                if (!egl::has_extension(ext, "EGL_NV_device_cuda") || !egl_->QueryDeviceAttribEXT ||
                    !egl_->QueryDeviceAttribEXT(devices[i], egl::cuda_device_nv, &cuda))
                    cuda = -1; // not NVIDIA's, or a GPU CUDA_VISIBLE_DEVICES hides
                listed += format("%s%d%s", i ? ", " : "", i,
                                 software ? " (software)" : cuda >= 0 ? format(" (cuda:%d)", int(cuda)).c_str() : "");
                if ((choice.index >= 0 && i != choice.index) || (choice.cuda >= 0 && cuda != choice.cuda))
                    continue;
                EGLDisplay display =
                    egl_->GetPlatformDisplay(EGL_PLATFORM_DEVICE_EXT, devices[i], nullptr);
                (software ? software_devices : hardware_devices)
                    .push_back({"device", display, software});
            }
            egl_->GetError(); // a device without a CUDA ordinal leaves EGL_BAD_ATTRIBUTE behind
            if (!choice.text.empty() && hardware_devices.empty() && software_devices.empty())
                fail(GLR_ERROR_EGL, "GLR_EGL_DEVICE=%s: no such EGL device; there are %d: %s", choice.text.c_str(),
                     int(count), count ? listed.c_str() : "none");
        }
    }

    std::vector<attempt> attempts;
    auto add_surfaceless = [&] {
        if (!egl::has_extension(client_ext, "EGL_MESA_platform_surfaceless")) {
            why += "surfaceless: EGL_MESA_platform_surfaceless is not supported; ";
            return;
        }
        attempts.push_back({"surfaceless",
                            egl_->GetPlatformDisplay(EGL_PLATFORM_SURFACELESS_MESA,
                                                     EGL_DEFAULT_DISPLAY, nullptr),
                            false});
    };
    auto add_pbuffer = [&] {
        attempts.push_back({"pbuffer", egl_->GetDisplay(EGL_DEFAULT_DISPLAY), false});
    };
    switch (params.platform) {
    case GLR_PLATFORM_SURFACELESS: add_surfaceless(); break;
    case GLR_PLATFORM_PBUFFER: add_pbuffer(); break;
    case GLR_PLATFORM_DEVICE:
    case GLR_PLATFORM_AUTO:
    default:
        // Hardware devices first, software ones last; automatic, and no device named in
        // GLR_EGL_DEVICE (that device and no other), the other platforms between.
        attempts = hardware_devices;
        if (params.platform != GLR_PLATFORM_DEVICE && choice.text.empty()) {
            add_surfaceless();
            add_pbuffer();
        }
        attempts.insert(attempts.end(), software_devices.begin(), software_devices.end());
        break;
    }
    if (!device_note.empty())
        why += device_note + "; ";

    std::string software_found;
    for (attempt &a : attempts) {
        if (params.require_hw && a.software_device) {
            why += format("%s: software device skipped; ", a.platform);
            continue;
        }
        if (!try_display(a, params, why))
            continue;
        if (params.require_hw && software_) {
            software_found = format("%s via %s", renderer_.c_str(), a.platform);
            destroy_current_attempt();
            continue;
        }
        log_->write(GLR_LOG_INFO, format("OpenGL %d.%d context on EGL %s: %s", major_, minor_,
                                         platform_name_, renderer_.c_str()));
        return;
    }
    if (why.size() >= 2)
        why.resize(why.size() - 2);
    if (!software_found.empty())
        fail(GLR_ERROR_SOFTWARE_RENDERER,
             "require_hw: no hardware OpenGL renderer; only the software renderer %s was found "
             "(%s)",
             software_found.c_str(), why.c_str());
    fail(GLR_ERROR_EGL, "no headless OpenGL context could be created: %s", why.c_str());
}

bool headless_context::try_display(attempt &a, const glr_context_params &params, std::string &why)
{
    if (a.display == EGL_NO_DISPLAY) {
        why += format("%s: %s; ", a.platform, egl_error(egl_, "eglGetPlatformDisplay").c_str());
        return false;
    }
    if (!initialize_display(egl_, a.display)) {
        why += format("%s: %s; ", a.platform, egl_error(egl_, "eglInitialize").c_str());
        return false;
    }
    display_ = a.display;
    platform_name_ = a.platform;
    const char *ext = egl_->QueryString(display_, EGL_EXTENSIONS);
    bool surfaceless = egl::has_extension(ext, "EGL_KHR_surfaceless_context");
    bool no_config = egl::has_extension(ext, "EGL_KHR_no_config_context") ||
                     egl::has_extension(ext, "EGL_MESA_configless_context");
    auto give_up = [&](const std::string &reason) {
        why += format("%s: %s; ", a.platform, reason.c_str());
        destroy_current_attempt();
        return false;
    };

    if (!egl_->BindAPI(EGL_OPENGL_API))
        return give_up(egl_error(egl_, "eglBindAPI(EGL_OPENGL_API)"));

    EGLConfig config = EGL_NO_CONFIG_KHR;
    bool want_surface = params.surface_width > 0 && params.surface_height > 0;
    bool need_pbuffer = want_surface || !surfaceless || !no_config;
    if (need_pbuffer) {
        const EGLint config_attribs[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE,
                                         EGL_OPENGL_BIT,   EGL_RED_SIZE,    8,
                                         EGL_GREEN_SIZE,   8,               EGL_BLUE_SIZE,
                                         8,                EGL_ALPHA_SIZE,  8,
                                         EGL_NONE};
        EGLint count = 0;
        if (!egl_->ChooseConfig(display_, config_attribs, &config, 1, &count) || count == 0)
            return give_up("no EGL config with an RGBA8 pbuffer for desktop OpenGL");
    }

    struct version {
        int major, minor;
    };
    std::vector<version> versions;
    EGLint create_error = EGL_SUCCESS;
    if (params.gl_major > 0)
        versions.push_back({params.gl_major, params.gl_minor});
    else
        versions = {{4, 5}, {3, 3}};
    for (version v : versions) {
        const EGLint attribs[] = {EGL_CONTEXT_MAJOR_VERSION,
                                  v.major,
                                  EGL_CONTEXT_MINOR_VERSION,
                                  v.minor,
                                  EGL_CONTEXT_OPENGL_PROFILE_MASK,
                                  v.major >= 3 && (v.major > 3 || v.minor >= 2)
                                      ? EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT
                                      : EGL_CONTEXT_OPENGL_COMPATIBILITY_PROFILE_BIT,
                                  EGL_NONE};
        context_ = egl_->CreateContext(display_, config, EGL_NO_CONTEXT, attribs);
        if (context_ != EGL_NO_CONTEXT)
            break;
        create_error = egl_->GetError();
    }
    if (context_ == EGL_NO_CONTEXT)
        return give_up(format("no OpenGL %d.%d core context (%s)", versions.back().major,
                              versions.back().minor, egl::error_name(create_error)));

    if (need_pbuffer) {
        const EGLint pbuffer_attribs[] = {EGL_WIDTH, want_surface ? params.surface_width : 16,
                                          EGL_HEIGHT, want_surface ? params.surface_height : 16,
                                          EGL_NONE};
        surface_ = egl_->CreatePbufferSurface(display_, config, pbuffer_attribs);
        if (surface_ == EGL_NO_SURFACE)
            return give_up(egl_error(egl_, "eglCreatePbufferSurface"));
    }
    if (!egl_->MakeCurrent(display_, surface_, surface_, context_))
        return give_up(egl_error(egl_, "eglMakeCurrent"));

    auto get_string = reinterpret_cast<const GLubyte *(*)(GLenum)>(
        egl_->GetProcAddress("glGetString"));
    const GLubyte *renderer = get_string ? get_string(GL_RENDERER) : nullptr;
    const GLubyte *version_text = get_string ? get_string(GL_VERSION) : nullptr;
    if (!renderer || !version_text)
        return give_up("the context gives no GL_RENDERER / GL_VERSION");
    renderer_ = reinterpret_cast<const char *>(renderer);
    if (std::sscanf(reinterpret_cast<const char *>(version_text), "%d.%d", &major_, &minor_) != 2)
        return give_up(format("unreadable GL_VERSION \"%s\"", version_text));
    software_ = a.software_device || is_software_renderer(renderer_);
    return true;
}

void headless_context::destroy_current_attempt()
{
    if (display_ == EGL_NO_DISPLAY)
        return;
    if (egl_->GetCurrentContext() == context_ && context_ != EGL_NO_CONTEXT)
        egl_->MakeCurrent(display_, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    if (surface_ != EGL_NO_SURFACE)
        egl_->DestroySurface(display_, surface_);
    if (context_ != EGL_NO_CONTEXT)
        egl_->DestroyContext(display_, context_);
    terminate_display(egl_, display_);
    display_ = EGL_NO_DISPLAY;
    context_ = EGL_NO_CONTEXT;
    surface_ = EGL_NO_SURFACE;
    renderer_.clear();
    software_ = false;
}

headless_context::~headless_context() { destroy_current_attempt(); }

void headless_context::make_current()
{
    if (!egl_->MakeCurrent(display_, surface_, surface_, context_))
        fail(GLR_ERROR_EGL,
             "glr_context_make_current: %s; a context can be current on one thread at a time: "
             "release it on the other thread first",
             egl_error(egl_, "eglMakeCurrent").c_str());
}

void headless_context::release_current()
{
    if (egl_->GetCurrentContext() != context_)
        return;
    if (!egl_->MakeCurrent(display_, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT))
        fail(GLR_ERROR_EGL, "glr_context_release_current: %s",
             egl_error(egl_, "eglMakeCurrent").c_str());
}

} // namespace glr
