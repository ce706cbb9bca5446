// EGL entry points, resolved from libEGL.so.1 at run time so that linking glreader
// never requires EGL (a GLX renderer can use the ring without it). Types come from the
// glad-generated EGL header.
#pragma once

#include <glad/egl.h>

#include <string>

namespace glr::egl {

struct api {
    PFNEGLGETERRORPROC GetError;
    PFNEGLGETDISPLAYPROC GetDisplay;
    PFNEGLGETPLATFORMDISPLAYPROC GetPlatformDisplay;
    PFNEGLINITIALIZEPROC Initialize;
    PFNEGLTERMINATEPROC Terminate;
    PFNEGLQUERYSTRINGPROC QueryString;
    PFNEGLBINDAPIPROC BindAPI;
    PFNEGLCHOOSECONFIGPROC ChooseConfig;
    PFNEGLCREATECONTEXTPROC CreateContext;
    PFNEGLDESTROYCONTEXTPROC DestroyContext;
    PFNEGLCREATEPBUFFERSURFACEPROC CreatePbufferSurface;
    PFNEGLDESTROYSURFACEPROC DestroySurface;
    PFNEGLMAKECURRENTPROC MakeCurrent;
    PFNEGLGETCURRENTCONTEXTPROC GetCurrentContext;
    PFNEGLGETPROCADDRESSPROC GetProcAddress;
    // EGL_EXT_device_enumeration / EGL_EXT_device_query; NULL when absent.
    PFNEGLQUERYDEVICESEXTPROC QueryDevicesEXT;
    PFNEGLQUERYDEVICESTRINGEXTPROC QueryDeviceStringEXT;
    PFNEGLQUERYDEVICEATTRIBEXTPROC QueryDeviceAttribEXT;
};

// EGL_NV_device_cuda's attribute: the CUDA ordinal of an EGL device, numbered as CUDA
// numbers them in this process (under its CUDA_VISIBLE_DEVICES).
constexpr EGLint cuda_device_nv = 0x323A;

// libEGL's entry points, loaded once per process. NULL when libEGL.so.1 cannot be
// loaded; *why then says what went wrong.
const api *load(std::string *why);

// The entry points only if libEGL is already loaded in this process (no dlopen side
// effect); NULL otherwise.
const api *if_loaded();

// "EGL_BAD_ACCESS" and the like, for messages.
const char *error_name(EGLint error);

// Whether a space-separated extension list contains name.
bool has_extension(const char *list, const char *name);

} // namespace glr::egl
