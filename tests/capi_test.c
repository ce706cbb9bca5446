/* The C ABI used from C: context, ring, capture, acquire, check, release, stats.
 * Prints "N passed, N failed" and exits non-zero on any failure. */
#include "glreader/glreader.h"

#include <glad/gl.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

static int passed, failed;

/* Kept to the end of the process, as in the C++ suites (support/test_main.cpp): the last
 * eglTerminate would unload Mesa's driver before LeakSanitizer looks. External linkage
 * so the compiler keeps the pointer that makes the context reachable. */
glr_context *capi_test_pinned_context;

#define CHECK(cond)                                                                    \
    do {                                                                               \
        if (cond) {                                                                    \
            passed++;                                                                  \
        } else {                                                                       \
            failed++;                                                                  \
            fprintf(stderr, "%s:%d: CHECK(%s) failed; last error: %s\n", __FILE__,     \
                    __LINE__, #cond, glr_last_error());                                \
        }                                                                              \
    } while (0)

static GLADapiproc load(void *userptr, const char *name)
{
    (void)userptr;
    return (GLADapiproc)glr_context_get_proc_address(name);
}

int main(void)
{
    enum { W = 24, H = 10, FRAMES = 40 };
    capi_test_pinned_context = glr_context_create(NULL, NULL);
    CHECK(capi_test_pinned_context != NULL &&
          glr_context_release_current(capi_test_pinned_context) == 0);
    glr_context *ctx = glr_context_create(NULL, NULL);
    CHECK(ctx != NULL);
    if (!ctx)
        goto done;
    printf("renderer: %s (%s)\n", glr_context_renderer(ctx), glr_context_platform_name(ctx));

    GladGLContext gl;
    CHECK(gladLoadGLContextUserPtr(&gl, load, NULL) != 0);
    GLuint texture, fbo;
    gl.GenTextures(1, &texture);
    gl.BindTexture(GL_TEXTURE_2D, texture);
    gl.TexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, W, H, 0, GL_RGBA, GL_UNSIGNED_BYTE, NULL);
    gl.GenFramebuffers(1, &fbo);
    gl.BindFramebuffer(GL_FRAMEBUFFER, fbo);
    gl.FramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, texture, 0);

    struct glr_ring_params params;
    memset(&params, 0, sizeof params);
    params.width = W;
    params.height = H;
    params.format = GLR_FORMAT_BGRA8;
    glr_ring *ring = glr_ring_create(NULL, &params);
    CHECK(ring != NULL);

    struct glr_source source;
    memset(&source, 0, sizeof source);
    source.kind = GLR_SOURCE_FRAMEBUFFER;
    source.name = fbo;

    int received = 0;
    for (int n = 0; n <= FRAMES; n++) {
        if (n < FRAMES) {
            /* Frame n is a flat colour whose red channel is n. */
            gl.BindFramebuffer(GL_FRAMEBUFFER, fbo);
            gl.ClearColor((float)n / 255.0f, 0.5f, 1.0f, 1.0f);
            gl.Clear(GL_COLOR_BUFFER_BIT);
            int rc;
            while ((rc = glr_ring_capture(ring, &source, n)) == -EBUSY) {
                struct glr_frame f;
                CHECK(glr_ring_acquire(ring, &f, UINT64_MAX) == 0);
                CHECK(glr_frame_release(&f) == 0);
                received++;
            }
            CHECK(rc == 0);
        }
        struct glr_frame f;
        uint64_t timeout = n == FRAMES ? UINT64_MAX : 0;
        while (glr_ring_acquire(ring, &f, timeout) == 0) {
            CHECK(f.sequence == (uint64_t)received && f.pts == received);
            const struct glr_plane *plane = &f.planes[0];
            CHECK(f.width == W && f.height == H && plane->stride == -W * 4 && f.planes[1].data == NULL);
            CHECK(f.format == GLR_FORMAT_BGRA8 && f.color.range == GLR_RANGE_FULL && f.color.primaries == 1);
            /* BGRA in memory: blue, green, red, alpha. */
            const uint8_t *last = plane->data + plane->stride * (H - 1) + (W - 1) * 4;
            CHECK(plane->data[0] == 255 && plane->data[2] == (uint8_t)received && last[2] == (uint8_t)received);
            CHECK(glr_frame_release(&f) == 0);
            CHECK(f.planes[0].data == NULL && f.ring_ == NULL);
            received++;
        }
    }
    CHECK(received == FRAMES);

    struct glr_ring_stats stats;
    glr_ring_get_stats(ring, &stats);
    CHECK(stats.frames_captured == FRAMES && stats.frames_released == FRAMES);
    CHECK(strcmp(stats.path, "persistent-map+fences") == 0);
    printf("path %s, stall p50 %.3f ms p99 %.3f ms\n", stats.path, stats.stall.p50_ms,
           stats.stall.p99_ms);

    glr_ring_destroy(&ring);
    CHECK(ring == NULL);
    gl.DeleteFramebuffers(1, &fbo);
    gl.DeleteTextures(1, &texture);
    glr_context_destroy(&ctx);
    CHECK(ctx == NULL);
    CHECK(strcmp(glr_format_name(GLR_FORMAT_RGB8), "rgb24") == 0);
    CHECK(glr_format_plane_row_bytes(GLR_FORMAT_RGB8, 0, 10) == 30);
    CHECK(glr_format_plane_row_bytes(GLR_FORMAT_NV12, 1, 10) == 10 && glr_format_plane_rows(GLR_FORMAT_I420, 2, 7) == 4);
    CHECK(glr_format_plane_row_bytes(GLR_FORMAT_P010, 0, 10) == 20 && glr_format_plane_row_bytes(GLR_FORMAT_RGBA8, 1, 10) == 0);
    CHECK(glr_format_from_name("p010le") == GLR_FORMAT_P010 && glr_format_get_info(GLR_FORMAT_YUV444)->planes == 3);
    CHECK(glr_format_get_info((enum glr_format)99) == NULL);
    CHECK(glr_format_frame_bytes(GLR_FORMAT_NV12, 40, 24) == 40 * 24 * 3 / 2 &&
          glr_format_frame_bytes(GLR_FORMAT_P010, 40, 24) == 40 * 24 * 3 && glr_format_frame_bytes((enum glr_format)99, 4, 4) == 0);
    CHECK(glr_version() == GLR_VERSION);

done:
    printf("capi: %d passed, %d failed\n", passed, failed);
    return failed == 0 && passed > 0 ? 0 : 1;
}
