/* A program outside the glreader tree: built against the installed package, once with
 * CMake's find_package(glreader) and once with `pkg-config --cflags --libs glreader`.
 * It reads back one cleared frame and checks a pixel. */
#include <glreader/glreader.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

typedef void (*gen_fn)(int, unsigned *);
typedef void (*bind_fn)(unsigned, unsigned);
typedef void (*tex_image_fn)(unsigned, int, int, int, int, int, unsigned, unsigned, const void *);
typedef void (*fb_texture_fn)(unsigned, unsigned, unsigned, unsigned, int);
typedef void (*clear_color_fn)(float, float, float, float);
typedef void (*clear_fn)(unsigned);

#define LOAD(type, name) type name = (type)glr_context_get_proc_address(#name)

int main(void)
{
    glr_context *ctx = glr_context_create(NULL, NULL);
    if (!ctx)
        return 1;
    LOAD(gen_fn, glGenTextures);
    LOAD(gen_fn, glGenFramebuffers);
    LOAD(bind_fn, glBindTexture);
    LOAD(bind_fn, glBindFramebuffer);
    LOAD(tex_image_fn, glTexImage2D);
    LOAD(fb_texture_fn, glFramebufferTexture2D);
    LOAD(clear_color_fn, glClearColor);
    LOAD(clear_fn, glClear);
    unsigned tex, fbo;
    glGenTextures(1, &tex);
    glBindTexture(0x0DE1 /* GL_TEXTURE_2D */, tex);
    glTexImage2D(0x0DE1, 0, 0x8058 /* GL_RGBA8 */, 8, 8, 0, 0x1908 /* GL_RGBA */,
                 0x1401 /* GL_UNSIGNED_BYTE */, NULL);
    glGenFramebuffers(1, &fbo);
    glBindFramebuffer(0x8D40 /* GL_FRAMEBUFFER */, fbo);
    glFramebufferTexture2D(0x8D40, 0x8CE0 /* GL_COLOR_ATTACHMENT0 */, 0x0DE1, tex, 0);
    glClearColor(1.0f, 0.0f, 0.0f, 1.0f);
    glClear(0x4000 /* GL_COLOR_BUFFER_BIT */);

    struct glr_ring_params params;
    memset(&params, 0, sizeof params);
    params.width = 8;
    params.height = 8;
    glr_ring *ring = glr_ring_create(NULL, &params);
    struct glr_source source;
    memset(&source, 0, sizeof source);
    source.name = fbo;
    struct glr_frame frame;
    int ok = ring && glr_ring_capture(ring, &source, 0) == 0 &&
             glr_ring_acquire(ring, &frame, UINT64_MAX) == 0 && frame.planes[0].data[0] == 255 &&
             frame.planes[0].data[1] == 0 && glr_frame_release(&frame) == 0 && glr_version() >= GLR_VERSION_INT(0, 4, 0);
    glr_ring_destroy(&ring);
    glr_context_destroy(&ctx);
    printf("consumer: %s\n", ok ? "read back a red frame" : glr_last_error());
    return ok ? 0 : 1;
}
