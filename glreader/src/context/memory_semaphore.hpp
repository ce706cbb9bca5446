// glr_memory_semaphore (glreader/interop.h): another API's timeline semaphore imported into
// GL (GL_EXT_semaphore_fd, GL_NV_timeline_semaphore), so that GL's writes into imported
// textures and that API's work on them are ordered on the GPU, with no wait on the host.
#pragma once

#include "glreader/interop.h"

#include "context/functions.hpp"
#include "log.hpp"

struct glr_memory_semaphore {
public:
    // Imports fd (taking it in every case); throws glr::failure.
    glr_memory_semaphore(const glr_log *log, int fd, glr_get_proc_address_fn loader);
    // GL's later commands wait until the semaphore reaches value; textures' contents are
    // not kept (GL writes them whole). Throws glr::failure.
    void wait(uint64_t value, const unsigned *textures, int count);
    // The semaphore reaches value once GL's earlier commands are done, textures left in the
    // general layout; GL's commands are flushed. Throws glr::failure.
    void signal(uint64_t value, const unsigned *textures, int count);
    void destroy(); // deletes GL's semaphore, the context current

    const glr_log *log() const { return log_; }

private:
    // Sets the value, then runs command (glWaitSemaphoreEXT or glSignalSemaphoreEXT, which
    // take the same arguments) for textures with layout; throws glr::failure naming call.
    void submit(const char *call, uint64_t value, const unsigned *textures, int count, GLenum layout,
                PFNGLWAITSEMAPHOREEXTPROC command);

    const glr_log *log_;
    glr::gl::functions fns_;
    GLuint semaphore_ = 0;
};

namespace glr::gl {
// Whether the current context imports timeline semaphores (GL_EXT_semaphore_fd and
// GL_NV_timeline_semaphore): false too where no context is current.
bool has_timeline_semaphores(glr_get_proc_address_fn loader);
} // namespace glr::gl
