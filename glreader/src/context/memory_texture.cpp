#include "context/memory_texture.hpp"

#include "context/state_scope.hpp"
#include "error.hpp"

#include <cerrno>

using glr::fail;

namespace glr::gl {

void require_extension(const functions &fns, int present, const char *extension, const char *call)
{
    if (!present)
        fail(GLR_ERROR_UNSUPPORTED, "%s: this OpenGL driver (%s) lacks %s, which sharing memory with Vulkan needs",
             call, reinterpret_cast<const char *>(fns.gl.GetString(GL_RENDERER)), extension);
}

} // namespace glr::gl

namespace {

constexpr const char *import_call = "glr_memory_texture_import";

// Bytes per texel of the formats an imported plane has; 0 for any other.
int texel_bytes(unsigned internal_format)
{
    switch (internal_format) {
    case GL_R8: return 1;
    case GL_RG8:
    case GL_R16: return 2;
    case GL_RG16:
    case GL_RGBA8: return 4;
    case GL_RGBA16: return 8;
    default: return 0;
    }
}

} // namespace

glr_memory_texture::glr_memory_texture(const glr_log *log, const glr_memory_image &image) : log_(log)
{
    glr::gl::fd_guard fd{image.fd};
    if (image.fd < 0)
        fail(-EINVAL, "%s: fd %d is no file descriptor: pass the memory's opaque fd (vkGetMemoryFdKHR)", import_call,
             image.fd);
    if (image.width <= 0 || image.height <= 0)
        fail(-EINVAL, "%s: invalid size %dx%d", import_call, image.width, image.height);
    if (image.memory_size == 0 || image.offset >= image.memory_size)
        fail(-EINVAL, "%s: offset %llu does not fit in memory of %llu bytes", import_call,
             static_cast<unsigned long long>(image.offset), static_cast<unsigned long long>(image.memory_size));
    int texel = texel_bytes(image.internal_format);
    if (!texel)
        fail(-EINVAL, "%s: internal format 0x%x is not one glreader imports (GL_R8, GL_RG8, GL_R16, GL_RG16, GL_RGBA8, "
                      "GL_RGBA16)",
             import_call, image.internal_format);
    // Drivers need not check (llvmpipe takes any fd and size); a texture past the memory's
    // end would write into whatever follows it.
    uint64_t least = static_cast<uint64_t>(image.width) * static_cast<uint64_t>(image.height) * texel;
    if (least > image.memory_size - image.offset)
        fail(-EINVAL, "%s: a %dx%d texture of internal format 0x%x needs at least %llu bytes; the memory has %llu past "
                      "offset %llu",
             import_call, image.width, image.height, image.internal_format, static_cast<unsigned long long>(least),
             static_cast<unsigned long long>(image.memory_size - image.offset),
             static_cast<unsigned long long>(image.offset));
    glr::gl::load(fns_, image.get_proc_address);
    glr::gl::require_current(fns_, import_call);
    const GladGLContext &gl = fns_.gl;
    glr::gl::require_extension(fns_, gl.EXT_memory_object_fd, "GL_EXT_memory_object_fd", import_call);
    glr::gl::state_scope scope(fns_, glr::gl::scope::objects, log_, import_call);
    gl.CreateMemoryObjectsEXT(1, &memory_);
    GLint dedicated = image.dedicated ? GL_TRUE : GL_FALSE;
    gl.MemoryObjectParameterivEXT(memory_, GL_DEDICATED_MEMORY_OBJECT_EXT, &dedicated);
    gl.ImportMemoryFdEXT(memory_, image.memory_size, GL_HANDLE_TYPE_OPAQUE_FD_EXT, image.fd);
    if (gl.GetError() != GL_NO_ERROR || !gl.IsMemoryObjectEXT(memory_)) {
        destroy();
        fail(GLR_ERROR_GL, "%s: the driver refused the memory (%llu bytes, fd %d): is it another device's?",
             import_call, static_cast<unsigned long long>(image.memory_size), image.fd);
    }
    fd.fd = -1; // GL owns it now
    gl.CreateTextures(GL_TEXTURE_2D, 1, &texture_);
    gl.TextureParameteri(texture_, GL_TEXTURE_TILING_EXT, image.linear ? GL_LINEAR_TILING_EXT : GL_OPTIMAL_TILING_EXT);
    gl.TextureStorageMem2DEXT(texture_, 1, image.internal_format, image.width, image.height, memory_, image.offset);
    GLenum error = gl.GetError();
    if (error != GL_NO_ERROR) {
        destroy();
        fail(GLR_ERROR_GL,
             "%s: a %dx%d texture of internal format 0x%x at offset %llu does not fit the memory (%s): give the "
             "image's own size, format and offset",
             import_call, image.width, image.height, image.internal_format,
             static_cast<unsigned long long>(image.offset), glr::gl::error_name(error));
    }
}

void glr_memory_texture::destroy()
{
    const GladGLContext &gl = fns_.gl;
    if (texture_)
        gl.DeleteTextures(1, &texture_);
    if (memory_)
        gl.DeleteMemoryObjectsEXT(1, &memory_);
    texture_ = memory_ = 0;
}

namespace glr::gl {

void device_uuids(glr_get_proc_address_fn loader, uint8_t device_uuid[GL_UUID_SIZE_EXT],
                  uint8_t driver_uuid[GL_UUID_SIZE_EXT])
{
    constexpr const char *call = "glr_gl_device_uuids";
    functions fns;
    load(fns, loader);
    require_current(fns, call);
    require_extension(fns, fns.gl.EXT_memory_object, "GL_EXT_memory_object", call);
    // A context spanning several devices lists each; glreader's contexts have one.
    fns.gl.GetUnsignedBytei_vEXT(GL_DEVICE_UUID_EXT, 0, device_uuid);
    fns.gl.GetUnsignedBytevEXT(GL_DRIVER_UUID_EXT, driver_uuid);
}

} // namespace glr::gl
