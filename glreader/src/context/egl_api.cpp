#include "egl_api.hpp"

#include <dlfcn.h>

#include <cstring>
#include <mutex>

namespace glr::egl {

namespace {

std::mutex load_mutex;
api table;
bool loaded = false;

template <typename T>
void resolve(void *lib, T &out, const char *name)
{
    out = reinterpret_cast<T>(dlsym(lib, name));
}

const api *load_from(void *lib, std::string *why)
{
    resolve(lib, table.GetError, "eglGetError");
    resolve(lib, table.GetDisplay, "eglGetDisplay");
    resolve(lib, table.GetPlatformDisplay, "eglGetPlatformDisplay");
    resolve(lib, table.Initialize, "eglInitialize");
    resolve(lib, table.Terminate, "eglTerminate");
    resolve(lib, table.QueryString, "eglQueryString");
    resolve(lib, table.BindAPI, "eglBindAPI");
    resolve(lib, table.ChooseConfig, "eglChooseConfig");
    resolve(lib, table.CreateContext, "eglCreateContext");
    resolve(lib, table.DestroyContext, "eglDestroyContext");
    resolve(lib, table.CreatePbufferSurface, "eglCreatePbufferSurface");
    resolve(lib, table.DestroySurface, "eglDestroySurface");
    resolve(lib, table.MakeCurrent, "eglMakeCurrent");
    resolve(lib, table.GetCurrentContext, "eglGetCurrentContext");
    resolve(lib, table.GetProcAddress, "eglGetProcAddress");
    if (!table.GetError || !table.GetDisplay || !table.GetPlatformDisplay || !table.Initialize ||
        !table.QueryString || !table.BindAPI || !table.CreateContext || !table.MakeCurrent ||
        !table.GetCurrentContext || !table.GetProcAddress || !table.ChooseConfig) {
        if (why)
            *why = "libEGL.so.1 lacks EGL 1.5 entry points (eglGetPlatformDisplay): the EGL "
                   "library is too old";
        return nullptr;
    }
    // Extension entry points are only reachable through eglGetProcAddress.
    table.QueryDevicesEXT =
        reinterpret_cast<PFNEGLQUERYDEVICESEXTPROC>(table.GetProcAddress("eglQueryDevicesEXT"));
    table.QueryDeviceStringEXT = reinterpret_cast<PFNEGLQUERYDEVICESTRINGEXTPROC>(
        table.GetProcAddress("eglQueryDeviceStringEXT"));
    table.QueryDeviceAttribEXT = reinterpret_cast<PFNEGLQUERYDEVICEATTRIBEXTPROC>(
        table.GetProcAddress("eglQueryDeviceAttribEXT"));
    loaded = true;
    return &table;
}

} // namespace

const api *load(std::string *why)
{
    std::lock_guard<std::mutex> lock(load_mutex);
    if (loaded)
        return &table;
    // Never dlclose: EGL keeps per-thread state that must outlive any glreader object.
    void *lib = dlopen("libEGL.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        if (why)
            *why = std::string("cannot load libEGL.so.1 (install libegl1 and a driver such as "
                               "libegl-mesa0): ") +
                   dlerror();
        return nullptr;
    }
    return load_from(lib, why);
}

const api *if_loaded()
{
    {
        std::lock_guard<std::mutex> lock(load_mutex);
        if (loaded)
            return &table;
    }
    void *lib = dlopen("libEGL.so.1", RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
    if (!lib)
        return nullptr;
    dlclose(lib); // drops only the reference RTLD_NOLOAD took
    return load(nullptr);
}

const char *error_name(EGLint error)
{
    switch (error) {
    case EGL_SUCCESS: return "EGL_SUCCESS";
    case EGL_NOT_INITIALIZED: return "EGL_NOT_INITIALIZED";
    case EGL_BAD_ACCESS: return "EGL_BAD_ACCESS";
    case EGL_BAD_ALLOC: return "EGL_BAD_ALLOC";
    case EGL_BAD_ATTRIBUTE: return "EGL_BAD_ATTRIBUTE";
    case EGL_BAD_CONFIG: return "EGL_BAD_CONFIG";
    case EGL_BAD_CONTEXT: return "EGL_BAD_CONTEXT";
    case EGL_BAD_CURRENT_SURFACE: return "EGL_BAD_CURRENT_SURFACE";
    case EGL_BAD_DISPLAY: return "EGL_BAD_DISPLAY";
    case EGL_BAD_MATCH: return "EGL_BAD_MATCH";
    case EGL_BAD_NATIVE_PIXMAP: return "EGL_BAD_NATIVE_PIXMAP";
    case EGL_BAD_NATIVE_WINDOW: return "EGL_BAD_NATIVE_WINDOW";
    case EGL_BAD_PARAMETER: return "EGL_BAD_PARAMETER";
    case EGL_BAD_SURFACE: return "EGL_BAD_SURFACE";
    case EGL_CONTEXT_LOST: return "EGL_CONTEXT_LOST";
    default: return "unknown EGL error";
    }
}

bool has_extension(const char *list, const char *name)
{
    if (!list)
        return false;
    size_t len = std::strlen(name);
    for (const char *p = list; (p = std::strstr(p, name)) != nullptr; p += len) {
        bool starts = p == list || p[-1] == ' ';
        bool ends = p[len] == '\0' || p[len] == ' ';
        if (starts && ends)
            return true;
    }
    return false;
}

} // namespace glr::egl
