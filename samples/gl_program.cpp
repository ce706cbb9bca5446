#include "gl_program.hpp"

#include <stdexcept>

namespace sample {

void load_gl(GladGLContext &gl, glr_get_proc_address_fn loader)
{
    auto load = [](void *userptr, const char *name) {
        return reinterpret_cast<GLADapiproc>(reinterpret_cast<glr_get_proc_address_fn>(userptr)(name));
    };
    if (!gladLoadGLContextUserPtr(&gl, load, reinterpret_cast<void *>(loader)))
        throw std::runtime_error("no OpenGL context is current on this thread");
}

} // namespace sample
