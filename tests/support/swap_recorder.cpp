// Preloaded (LD_PRELOAD) into an unchanged GLFW program by tests/glfw_examples_test.sh:
// just before each glfwSwapBuffers it records the frame the program is about to show
// through glreader rings, in whatever GL state the program left set (RGBA with the
// stride flip, RGBA with GLR_FLIP_GPU, NV12 converted on the GPU), and checks each
// recording against the window's pixels, read with glReadPixels. After
// GLR_RECORD_FRAMES frames, or once the program only waits for events, it asks the
// window to close and writes "frames N matched M" to GLR_RECORD_REPORT, the reasons for
// any mismatch to stderr.
#include "glreader/glreader.h"
#include "yuv_reference.hpp"

#include <glad/gl.h>
#define GLFW_INCLUDE_NONE // glad declares GL
#include <GLFW/glfw3.h>

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

struct recorder {
    GladGLContext gl{};
    bool loaded = false, done = false;
    int width = 0, height = 0, frames = 0, matched = 0, idle_waits = 0;
    int wanted = std::getenv("GLR_RECORD_FRAMES") ? std::atoi(std::getenv("GLR_RECORD_FRAMES")) : 10;
    glr_ring *rgba = nullptr, *rgba_gpu_flip = nullptr, *nv12 = nullptr;
};

recorder the_recorder;

template <class Fn>
Fn real(const char *name)
{
    auto fn = reinterpret_cast<Fn>(dlsym(RTLD_NEXT, name));
    if (!fn) {
        std::fprintf(stderr, "swap_recorder: no %s after this library\n", name);
        std::abort();
    }
    return fn;
}

glr_ring *make_ring(int width, int height, glr_format format, glr_flip flip)
{
    glr_ring_params p{};
    p.width = width;
    p.height = height;
    p.format = format;
    p.flip = flip;
    p.get_proc_address = reinterpret_cast<glr_get_proc_address_fn>(glfwGetProcAddress);
    glr_ring *ring = glr_ring_create(nullptr, &p);
    if (!ring) {
        std::fprintf(stderr, "swap_recorder: glr_ring_create: %s\n", glr_last_error());
        std::abort();
    }
    return ring;
}

void destroy_rings(recorder &r)
{
    glr_ring_destroy(&r.rgba);
    glr_ring_destroy(&r.rgba_gpu_flip);
    glr_ring_destroy(&r.nv12);
}

// The back buffer's pixels, top row first, read in a state of the recorder's own (put
// back afterwards, so the program draws its next frame as it would have).
std::vector<uint8_t> window_pixels(const recorder &r)
{
    const GladGLContext &gl = r.gl;
    GLint read_fbo = 0, pack_buffer = 0, alignment = 0, row_length = 0, skip_rows = 0, skip_pixels = 0;
    gl.GetIntegerv(GL_READ_FRAMEBUFFER_BINDING, &read_fbo);
    gl.GetIntegerv(GL_PIXEL_PACK_BUFFER_BINDING, &pack_buffer);
    gl.GetIntegerv(GL_PACK_ALIGNMENT, &alignment);
    gl.GetIntegerv(GL_PACK_ROW_LENGTH, &row_length);
    gl.GetIntegerv(GL_PACK_SKIP_ROWS, &skip_rows);
    gl.GetIntegerv(GL_PACK_SKIP_PIXELS, &skip_pixels);
    gl.BindFramebuffer(GL_READ_FRAMEBUFFER, 0);
    gl.BindBuffer(GL_PIXEL_PACK_BUFFER, 0);
    gl.PixelStorei(GL_PACK_ALIGNMENT, 1);
    gl.PixelStorei(GL_PACK_ROW_LENGTH, 0);
    gl.PixelStorei(GL_PACK_SKIP_ROWS, 0);
    gl.PixelStorei(GL_PACK_SKIP_PIXELS, 0);
    size_t row = static_cast<size_t>(r.width) * 4;
    std::vector<uint8_t> gl_order(row * static_cast<size_t>(r.height)), top_first;
    gl.ReadPixels(0, 0, r.width, r.height, GL_RGBA, GL_UNSIGNED_BYTE, gl_order.data());
    gl.BindFramebuffer(GL_READ_FRAMEBUFFER, static_cast<GLuint>(read_fbo));
    gl.BindBuffer(GL_PIXEL_PACK_BUFFER, static_cast<GLuint>(pack_buffer));
    gl.PixelStorei(GL_PACK_ALIGNMENT, alignment);
    gl.PixelStorei(GL_PACK_ROW_LENGTH, row_length);
    gl.PixelStorei(GL_PACK_SKIP_ROWS, skip_rows);
    gl.PixelStorei(GL_PACK_SKIP_PIXELS, skip_pixels);
    for (int y = r.height - 1; y >= 0; y--)
        top_first.insert(top_first.end(), gl_order.begin() + static_cast<ptrdiff_t>(row) * y,
                         gl_order.begin() + static_cast<ptrdiff_t>(row) * (y + 1));
    return top_first;
}

// Captures the default framebuffer into ring and acquires the frame; false with words.
bool capture(glr_ring *ring, glr_frame &frame, const char *what)
{
    glr_source source{GLR_SOURCE_FRAMEBUFFER, 0, 0, 0, 0};
    if (glr_ring_capture(ring, &source, 0) != 0 || glr_ring_acquire(ring, &frame, UINT64_MAX) != 0) {
        std::fprintf(stderr, "swap_recorder: %s: %s\n", what, glr_last_error());
        return false;
    }
    return true;
}

// An RGBA frame's rows, top first, against the window's.
bool same_rgba(const glr_frame &frame, const std::vector<uint8_t> &want, int frame_number, const char *what)
{
    const glr_plane &plane = frame.planes[0];
    for (int y = 0; y < plane.rows; y++) {
        const uint8_t *got = plane.data + static_cast<ptrdiff_t>(y) * plane.stride;
        for (size_t x = 0; x < plane.row_bytes; x++)
            if (got[x] != want[static_cast<size_t>(y) * plane.row_bytes + x]) {
                std::fprintf(stderr, "swap_recorder: frame %d, %s: byte %zu of row %d (from the top) is %d, the "
                             "window's is %d\n", frame_number, what, x, y, got[x],
                             want[static_cast<size_t>(y) * plane.row_bytes + x]);
                return false;
            }
    }
    return true;
}

void record(recorder &r, GLFWwindow *window)
{
    int width = 0, height = 0;
    glfwGetFramebufferSize(window, &width, &height);
    if (!r.loaded) {
        r.loaded = gladLoadGLContextUserPtr(
            &r.gl, [](void *, const char *name) { return reinterpret_cast<GLADapiproc>(glfwGetProcAddress(name)); },
            nullptr);
        if (!r.loaded)
            std::abort();
    }
    if (width != r.width || height != r.height) {
        destroy_rings(r);
        r.width = width;
        r.height = height;
        r.rgba = make_ring(width, height, GLR_FORMAT_RGBA8, GLR_FLIP_STRIDE);
        r.rgba_gpu_flip = make_ring(width, height, GLR_FORMAT_RGBA8, GLR_FLIP_GPU);
        r.nv12 = make_ring(width, height, GLR_FORMAT_NV12, GLR_FLIP_STRIDE);
    }
    int n = r.frames++;
    glr_frame rgba{}, flipped{}, nv12{};
    bool ok = capture(r.rgba, rgba, "RGBA") && capture(r.rgba_gpu_flip, flipped, "RGBA, GPU flip") &&
              capture(r.nv12, nv12, "NV12");
    std::vector<uint8_t> window_rgba = window_pixels(r);
    if (ok) {
        ok = same_rgba(rgba, window_rgba, n, "RGBA") && same_rgba(flipped, window_rgba, n, "RGBA, GPU flip");
        glr_test::plane_difference d = glr_test::max_difference(
            glr_test::planes_of(nv12), glr_test::reference_yuv(window_rgba, width, height, GLR_FORMAT_NV12, nv12.color));
        if (d.luma > 1 || d.chroma > 2) {
            std::fprintf(stderr, "swap_recorder: frame %d, NV12: differs from the window's pixels converted by "
                         "%d (luma) and %d (chroma) code values, at %s\n", n, d.luma, d.chroma, d.where.c_str());
            ok = false;
        }
    }
    for (glr_frame *f : {&rgba, &flipped, &nv12})
        if (f->ring_)
            glr_frame_release(f);
    r.matched += ok ? 1 : 0;
    r.idle_waits = 0;
}

void finish(recorder &r, GLFWwindow *window)
{
    if (r.done)
        return;
    r.done = true;
    destroy_rings(r);
    if (const char *report = std::getenv("GLR_RECORD_REPORT"))
        if (FILE *f = std::fopen(report, "w")) {
            std::fprintf(f, "frames %d matched %d\n", r.frames, r.matched);
            std::fclose(f);
        }
    glfwSetWindowShouldClose(window, GLFW_TRUE);
}

} // namespace

extern "C" {

void glfwSwapBuffers(GLFWwindow *window)
{
    static auto swap = real<void (*)(GLFWwindow *)>("glfwSwapBuffers");
    recorder &r = the_recorder;
    if (!r.done) {
        record(r, window);
        if (r.frames >= r.wanted)
            finish(r, window);
    }
    swap(window);
}

// The window is single-sampled even where the program asks for samples (splitview does):
// glReadPixels' own resolve of a multisampled window and a blit's differ on llvmpipe, and
// the comparison needs one exact reference. Multisampled sources are host_state_test's.
void glfwWindowHint(int hint, int value)
{
    static auto window_hint = real<void (*)(int, int)>("glfwWindowHint");
    window_hint(hint, hint == GLFW_SAMPLES ? 0 : value);
}

// A program that redraws only on events (splitview) would wait for ever under a virtual
// display: poll instead, and end once it has drawn nothing for a few rounds.
void glfwWaitEvents(void)
{
    recorder &r = the_recorder;
    glfwPollEvents();
    if (++r.idle_waits > 3 && r.frames > 0)
        finish(r, glfwGetCurrentContext());
}

} // extern "C"
