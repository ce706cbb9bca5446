#include "context/memory_semaphore.hpp"

#include "context/memory_texture.hpp"
#include "context/state_scope.hpp"
#include "error.hpp"

#include <cerrno>
#include <vector>

using glr::fail;

namespace {

constexpr const char *import_call = "glr_memory_semaphore_import";

} // namespace

glr_memory_semaphore::glr_memory_semaphore(const glr_log *log, int fd, glr_get_proc_address_fn loader) : log_(log)
{
    glr::gl::fd_guard owned{fd};
    if (fd < 0)
        fail(-EINVAL, "%s: fd %d is no file descriptor: pass the semaphore's opaque fd (vkGetSemaphoreFdKHR)",
             import_call, fd);
    glr::gl::load(fns_, loader);
    glr::gl::require_current(fns_, import_call);
    const GladGLContext &gl = fns_.gl;
    glr::gl::require_extension(fns_, gl.EXT_semaphore_fd, "GL_EXT_semaphore_fd", import_call);
    glr::gl::require_extension(fns_, gl.NV_timeline_semaphore, "GL_NV_timeline_semaphore", import_call);
    glr::gl::state_scope scope(fns_, glr::gl::state_set{}, log_, import_call);
    // The type is the semaphore's before the import: a binary one would drop the values.
    gl.CreateSemaphoresNV(1, &semaphore_);
    GLint timeline = GL_SEMAPHORE_TYPE_TIMELINE_NV;
    gl.SemaphoreParameterivNV(semaphore_, GL_SEMAPHORE_TYPE_NV, &timeline);
    GLenum error = gl.GetError();
    if (error == GL_NO_ERROR) {
        gl.ImportSemaphoreFdEXT(semaphore_, GL_HANDLE_TYPE_OPAQUE_FD_EXT, fd);
        if ((error = gl.GetError()) == GL_NO_ERROR)
            owned.fd = -1; // GL owns it now
    }
    if (error != GL_NO_ERROR || !gl.IsSemaphoreEXT(semaphore_)) {
        destroy();
        fail(GLR_ERROR_GL, "%s: the driver refused the timeline semaphore (fd %d, %s): is it another device's, or "
                           "a binary one?",
             import_call, fd, glr::gl::error_name(error));
    }
}

void glr_memory_semaphore::wait(uint64_t value, const unsigned *textures, int count)
{
    // Undefined (GL_NONE) before: GL writes the textures whole, their contents go.
    submit("glr_memory_semaphore_wait", value, textures, count, GL_NONE, fns_.gl.WaitSemaphoreEXT);
}

void glr_memory_semaphore::signal(uint64_t value, const unsigned *textures, int count)
{
    submit("glr_memory_semaphore_signal", value, textures, count, GL_LAYOUT_GENERAL_EXT, fns_.gl.SignalSemaphoreEXT);
    fns_.gl.Flush(); // the other API waits for the signal on the GPU: it must be submitted
}

void glr_memory_semaphore::submit(const char *call, uint64_t value, const unsigned *textures, int count,
                                  GLenum layout, PFNGLWAITSEMAPHOREEXTPROC command)
{
    glr::gl::require_current(fns_, call);
    glr::gl::state_scope scope(fns_, glr::gl::state_set{}, log_, call);
    std::vector<GLenum> layouts(static_cast<size_t>(count), layout);
    fns_.gl.SemaphoreParameterui64vEXT(semaphore_, GL_TIMELINE_SEMAPHORE_VALUE_NV, &value);
    // Checked before the command: a signal of the old value would not advance the timeline.
    glr::gl::check_errors(fns_.gl, call);
    command(semaphore_, 0, nullptr, static_cast<GLuint>(count), textures, layouts.data());
    glr::gl::check_errors(fns_.gl, call);
}

void glr_memory_semaphore::destroy()
{
    if (semaphore_)
        fns_.gl.DeleteSemaphoresEXT(1, &semaphore_);
    semaphore_ = 0;
}

namespace glr::gl {

bool has_timeline_semaphores(glr_get_proc_address_fn loader)
{
    functions fns;
    try {
        load(fns, loader);
    } catch (const glr::failure &) {
        return false; // no context current
    }
    return fns.gl.EXT_semaphore_fd && fns.gl.NV_timeline_semaphore;
}

} // namespace glr::gl
