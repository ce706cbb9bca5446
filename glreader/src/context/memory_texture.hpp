// glr_memory_texture (glreader/interop.h): another API's image imported into GL through
// GL_EXT_memory_object_fd, as a texture the converter writes into.
#pragma once

#include "glreader/interop.h"

#include "context/functions.hpp"
#include "log.hpp"

#include <unistd.h>

struct glr_memory_texture {
public:
    // Imports image (taking its fd in every case); throws glr::failure.
    glr_memory_texture(const glr_log *log, const glr_memory_image &image);
    void destroy(); // deletes the texture and the memory object, the context current

    unsigned name() const { return texture_; }
    const glr_log *log() const { return log_; }

private:
    const glr_log *log_;
    glr::gl::functions fns_;
    GLuint memory_ = 0, texture_ = 0;
};

namespace glr::gl {
// An fd handed to GL's import: closed unless GL took it (fd set to -1 then).
struct fd_guard {
    int fd;
    ~fd_guard()
    {
        if (fd >= 0)
            close(fd);
    }
};
// Fails with GLR_ERROR_UNSUPPORTED, naming call, where the driver lacks extension.
void require_extension(const functions &fns, int present, const char *extension, const char *call);
// The current context's device and driver UUIDs (glr_gl_device_uuids); throws glr::failure.
void device_uuids(glr_get_proc_address_fn loader, uint8_t device_uuid[GL_UUID_SIZE_EXT],
                  uint8_t driver_uuid[GL_UUID_SIZE_EXT]);
} // namespace glr::gl
