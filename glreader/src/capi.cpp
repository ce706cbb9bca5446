// The core's C entry points for the ring, the context, scenes, the log and errors: validate
// arguments, call the C++ object, catch everything, return a code. No exception crosses
// this file's functions. The others: shadertoy/capi_shadertoy.cpp (projects, the player),
// pipe/capi_pipe.cpp, format.cpp and frame_range.cpp; glreader-av's, av/capi_av.cpp and
// the few modules that are their own C API (av/export_options.cpp, av/join.cpp,
// av/ffmpeg_log.cpp).
#include "glreader/glreader.h"
#include "glreader/convert.h"
#include "glreader/interop.h"

#include "enum_value.hpp"
#include "error.hpp"
#include "guarded.hpp"
#include "context/headless_context.hpp"
#include "context/memory_semaphore.hpp"
#include "context/memory_texture.hpp"
#include "ring/converter.hpp"
#include "ring/ring.hpp"
#include "scene/shader_scene.hpp"
#include "log.hpp"

#include <cerrno>

struct glr_context {
    glr::headless_context impl;
    glr_context(const glr_log *log, const glr_context_params &params) : impl(log, params) {}
};

namespace {

const glr_log *log_or_default(const glr_log *log) { return log ? log : glr_log::fallback(); }

thread_local std::string last_error_message;
thread_local int last_error_code = 0;

void set_last_error(int code, const char *message)
{
    last_error_code = code;
    last_error_message = glr::user_words(message);
}

void report(const glr_log *log, int code, const char *message)
{
    if (glr::is_control_flow(code))
        return;
    set_last_error(code, message);
    log_or_default(log)->write(GLR_LOG_ERROR, message);
}

int null_argument(const glr_log *log, const char *call, const char *argument)
{
    std::string message = glr::format("%s: %s is NULL", call, argument);
    report(log, -EINVAL, message.c_str());
    return -EINVAL;
}

// Frees *object (its destroy(), a failure logged to its log, then delete) and sets *object to
// NULL; NULL and a pointer to NULL are accepted.
template <typename T> void destroy_object(T **object)
{
    if (!object || !*object)
        return;
    T *o = *object;
    *object = nullptr;
    glr::guarded(o->log(), [&] {
        o->destroy();
        return 0;
    });
    delete o;
}

// Runs a semaphore's wait or signal (`op`) for textures, a NULL argument an error naming call.
template <typename F>
int with_semaphore(glr_memory_semaphore *semaphore, const unsigned *textures, int count, const char *call, F op)
{
    if (!semaphore || (count > 0 && !textures))
        return null_argument(semaphore ? semaphore->log() : nullptr, call, semaphore ? "textures" : "semaphore");
    if (count < 0) {
        report(semaphore->log(), -EINVAL, glr::format("%s: count %d is negative", call, count).c_str());
        return -EINVAL;
    }
    return glr::guarded(semaphore->log(), [&] {
        op(*semaphore);
        return 0;
    });
}

// Runs `body` with the ring of a leased frame; a NULL or empty frame is an error naming call.
template <typename F> int with_leased_ring(const glr_frame *frame, const char *call, F body)
{
    if (!frame)
        return null_argument(nullptr, call, "frame");
    glr_ring *ring = frame->ring_;
    if (!ring) {
        report(nullptr, -EINVAL,
               glr::format("%s: this frame holds no lease (it is empty, or was already released)", call).c_str());
        return -EINVAL;
    }
    const glr_log *log = ring->log(); // the ring may be gone after a release
    return glr::guarded(log, [&] {
        body(*ring);
        return 0;
    });
}

} // namespace

extern "C" {

const char *glr_strerror(int code) { return glr::describe(code); }

const char *glr_last_error(void) { return last_error_message.c_str(); }

int glr_last_error_code(void) { return last_error_code; }

unsigned glr_version(void) { return GLR_VERSION; }

void glr_set_last_error(int code, const char *message)
{
    if (!glr::is_control_flow(code))
        set_last_error(code, message ? message : "");
}

void glr_priv_report_error(const glr_log *log, int code, const char *message, int log_it)
{
    if (log_it)
        report(log, code, message);
    else
        glr_set_last_error(code, message);
}

void glr_log_message(const glr_log *log, enum glr_log_level level, const char *message)
{
    log_or_default(log)->write(level, message);
}

glr_log *glr_log_create(const struct glr_log_params *params)
{
    auto *log = new (std::nothrow) glr_log;
    if (log && params) {
        log->callback = params->callback;
        log->opaque = params->opaque;
        int level = glr::enum_value(params->level);
        if (level > GLR_LOG_NONE)
            log->level = level > GLR_LOG_DEBUG ? GLR_LOG_DEBUG : params->level;
    }
    return log;
}

enum glr_log_level glr_log_get_level(const glr_log *log) { return log_or_default(log)->level; }

void glr_log_destroy(glr_log **log)
{
    if (!log)
        return;
    delete *log;
    *log = nullptr;
}

glr_context *glr_context_create(glr_log *log, const struct glr_context_params *params)
{
    glr_context *ctx = nullptr;
    glr_context_params defaults{};
    glr::guarded(log, [&] {
        ctx = new glr_context(log_or_default(log), params ? *params : defaults);
        return 0;
    });
    return ctx;
}

void glr_context_destroy(glr_context **ctx)
{
    if (!ctx || !*ctx)
        return;
    delete *ctx;
    *ctx = nullptr;
}

int glr_context_make_current(glr_context *ctx)
{
    if (!ctx)
        return null_argument(nullptr, "glr_context_make_current", "ctx");
    return glr::guarded(nullptr, [&] {
        ctx->impl.make_current();
        return 0;
    });
}

int glr_context_release_current(glr_context *ctx)
{
    if (!ctx)
        return null_argument(nullptr, "glr_context_release_current", "ctx");
    return glr::guarded(nullptr, [&] {
        ctx->impl.release_current();
        return 0;
    });
}

const char *glr_context_renderer(const glr_context *ctx)
{
    return ctx ? ctx->impl.renderer().c_str() : "";
}

const char *glr_context_platform_name(const glr_context *ctx)
{
    return ctx ? ctx->impl.platform_name() : "";
}

int glr_context_is_software(const glr_context *ctx) { return ctx && ctx->impl.is_software(); }

void glr_context_gl_version(const glr_context *ctx, int *major, int *minor)
{
    if (major)
        *major = ctx ? ctx->impl.gl_major() : 0;
    if (minor)
        *minor = ctx ? ctx->impl.gl_minor() : 0;
}

void (*glr_context_get_proc_address(const char *name))(void)
{
    const glr::egl::api *egl = glr::egl::if_loaded();
    return egl && name ? egl->GetProcAddress(name) : nullptr;
}

glr_ring *glr_ring_create(glr_log *log, const struct glr_ring_params *params)
{
    if (!params) {
        null_argument(log, "glr_ring_create", "params");
        return nullptr;
    }
    glr_ring *ring = nullptr;
    glr::guarded(log, [&] {
        ring = new glr_ring(log_or_default(log), *params);
        return 0;
    });
    return ring;
}

void glr_ring_destroy(glr_ring **ring)
{
    if (!ring || !*ring)
        return;
    glr_ring *r = *ring;
    *ring = nullptr;
    glr::guarded(r->log(), [&] {
        r->destroy();
        return 0;
    });
}

int glr_ring_capture(glr_ring *ring, const struct glr_source *source, int64_t pts)
{
    if (!ring)
        return null_argument(nullptr, "glr_ring_capture", "ring");
    if (!source)
        return null_argument(ring->log(), "glr_ring_capture", "source");
    return glr::guarded(ring->log(), [&] { return ring->capture(*source, pts); });
}

int glr_ring_acquire(glr_ring *ring, struct glr_frame *frame, uint64_t timeout_ns)
{
    if (!ring)
        return null_argument(nullptr, "glr_ring_acquire", "ring");
    if (!frame)
        return null_argument(ring->log(), "glr_ring_acquire", "frame");
    return glr::guarded(ring->log(), [&] { return ring->acquire(*frame, timeout_ns); });
}

int glr_frame_release(struct glr_frame *frame)
{
    return with_leased_ring(frame, "glr_frame_release", [&](glr_ring &ring) { ring.release(*frame); });
}

int glr_frame_set_holder(const struct glr_frame *frame, glr_frame_describe_fn describe, void *opaque)
{
    return with_leased_ring(frame, "glr_frame_set_holder",
                            [&](glr_ring &ring) { ring.set_holder(*frame, describe, opaque); });
}

int glr_frame_may_keep(const struct glr_frame *frame, int kept)
{
    return frame && frame->ring_ && frame->ring_->may_keep(kept);
}

int glr_ring_free_slots(const glr_ring *ring)
{
    if (!ring) {
        glr_priv_report_error(nullptr, -EINVAL, "glr_ring_free_slots: ring is NULL", 1);
        return -EINVAL;
    }
    return ring->free_slots();
}

void glr_ring_get_stats(glr_ring *ring, struct glr_ring_stats *stats)
{
    if (!ring || !stats)
        return;
    glr::guarded(ring->log(), [&] {
        *stats = ring->stats();
        return 0;
    });
}

glr_scene *glr_scene_create(glr_log *log, const struct glr_scene_params *params)
{
    glr_scene *scene = nullptr;
    glr::guarded(log, [&] {
        if (!params)
            glr::fail(-EINVAL, "glr_scene_create: params is NULL");
        scene = new glr_scene(log_or_default(log), *params);
        return 0;
    });
    return scene;
}

int glr_scene_render(glr_scene *scene, const struct glr_scene_inputs *inputs)
{
    if (!scene)
        return null_argument(nullptr, "glr_scene_render", "scene");
    if (!inputs)
        return null_argument(scene->log(), "glr_scene_render", "inputs");
    return glr::guarded(scene->log(), [&] {
        scene->render(*inputs);
        return 0;
    });
}

int glr_scene_render_sound(glr_scene *scene, int sample_rate, long long first_sample, int count, int16_t *stereo)
{
    if (!scene)
        return null_argument(nullptr, "glr_scene_render_sound", "scene");
    return glr::guarded(scene->log(), [&] {
        scene->render_sound(sample_rate, first_sample, count, stereo);
        return 0;
    });
}

int glr_scene_draw(glr_scene *scene, int frame, double seconds, double delta)
{
    glr_scene_inputs inputs{};
    inputs.frame = frame;
    inputs.time = seconds;
    inputs.time_delta = delta;
    return glr_scene_render(scene, &inputs);
}

int glr_scene_set_channel_image(glr_scene *scene, int pass, int channel, const struct glr_image *image)
{
    if (!scene)
        return null_argument(nullptr, "glr_scene_set_channel_image", "scene");
    if (!image)
        return null_argument(scene->log(), "glr_scene_set_channel_image", "image");
    return glr::guarded(scene->log(), [&] {
        scene->set_channel_image(pass, channel, *image);
        return 0;
    });
}

int glr_scene_set_channel_cubemap(glr_scene *scene, int pass, int channel, const struct glr_image faces[6])
{
    if (!scene)
        return null_argument(nullptr, "glr_scene_set_channel_cubemap", "scene");
    return glr::guarded(scene->log(), [&] {
        scene->set_channel_cubemap(pass, channel, faces);
        return 0;
    });
}

int glr_scene_read_pixels(glr_scene *scene, enum glr_format format, uint8_t *data, ptrdiff_t stride)
{
    if (!scene)
        return null_argument(nullptr, "glr_scene_read_pixels", "scene");
    return glr::guarded(scene->log(), [&] {
        scene->read_pixels(glr::enum_value(format), data, stride);
        return 0;
    });
}

struct glr_source glr_scene_source(const glr_scene *scene)
{
    glr_source source{};
    source.kind = GLR_SOURCE_FRAMEBUFFER;
    source.name = scene ? scene->framebuffer() : 0;
    return source;
}

unsigned glr_scene_framebuffer(const glr_scene *scene) { return scene ? scene->framebuffer() : 0; }

void glr_scene_destroy(glr_scene **scene)
{
    if (!scene || !*scene)
        return;
    delete *scene;
    *scene = nullptr;
}

const char *glr_scene_builtin_source(void) { return glr_scene::builtin_source_text(); }

} // extern "C"

glr_converter *glr_converter_create(glr_log *log, const struct glr_converter_params *params)
{
    if (!params) {
        null_argument(log, "glr_converter_create", "params");
        return nullptr;
    }
    glr_converter *conv = nullptr;
    glr::guarded(log, [&] {
        conv = new glr_converter(log_or_default(log), *params);
        return 0;
    });
    return conv;
}

unsigned glr_converter_plane_format(const glr_converter *conv, int plane)
{
    return conv ? conv->plane(plane).format : 0;
}

int glr_converter_plane_width(const glr_converter *conv, int plane)
{
    return conv ? conv->plane(plane).width : 0;
}

int glr_converter_make_textures(glr_converter *conv, unsigned textures[4])
{
    if (!conv || !textures)
        return null_argument(conv ? conv->log() : nullptr, "glr_converter_make_textures", conv ? "textures" : "conv");
    return glr::guarded(conv->log(), [&] {
        conv->make_textures(textures);
        return 0;
    });
}

void glr_converter_delete_textures(glr_converter *conv, unsigned textures[4])
{
    if (!conv || !textures)
        return;
    glr::guarded(conv->log(), [&] {
        conv->delete_textures(textures);
        return 0;
    });
}

int glr_converter_convert(glr_converter *conv, const struct glr_source *source, const unsigned textures[4])
{
    if (!conv)
        return null_argument(nullptr, "glr_converter_convert", "conv");
    if (!source || !textures)
        return null_argument(conv->log(), "glr_converter_convert", source ? "textures" : "source");
    return glr::guarded(conv->log(), [&] { return conv->convert(*source, textures); });
}

glr_gl_fence *glr_converter_fence(glr_converter *conv)
{
    if (!conv) {
        null_argument(nullptr, "glr_converter_fence", "conv");
        return nullptr;
    }
    GLsync fence = nullptr;
    glr::guarded(conv->log(), [&] {
        fence = conv->fence();
        return 0;
    });
    return reinterpret_cast<glr_gl_fence *>(fence);
}

int glr_converter_fence_wait(glr_converter *conv, glr_gl_fence *fence, uint64_t timeout_ns)
{
    if (!conv || !fence)
        return null_argument(conv ? conv->log() : nullptr, "glr_converter_fence_wait", conv ? "fence" : "conv");
    return glr::guarded(conv->log(), [&] { return conv->wait(reinterpret_cast<GLsync>(fence), timeout_ns); });
}

void glr_converter_fence_delete(glr_converter *conv, glr_gl_fence *fence)
{
    if (conv && fence)
        conv->delete_fence(reinterpret_cast<GLsync>(fence));
}

void glr_converter_destroy(glr_converter **conv) { destroy_object(conv); }

glr_memory_texture *glr_memory_texture_import(glr_log *log, const struct glr_memory_image *image)
{
    if (!image) {
        null_argument(log, "glr_memory_texture_import", "image");
        return nullptr;
    }
    glr_memory_texture *texture = nullptr;
    glr::guarded(log, [&] {
        texture = new glr_memory_texture(log_or_default(log), *image);
        return 0;
    });
    return texture;
}

unsigned glr_memory_texture_name(const glr_memory_texture *texture) { return texture ? texture->name() : 0; }

void glr_memory_texture_destroy(glr_memory_texture **texture) { destroy_object(texture); }

int glr_gl_has_timeline_semaphores(glr_get_proc_address_fn get_proc_address)
{
    return glr::gl::has_timeline_semaphores(get_proc_address) ? 1 : 0;
}

glr_memory_semaphore *glr_memory_semaphore_import(glr_log *log, int fd, glr_get_proc_address_fn get_proc_address)
{
    glr_memory_semaphore *semaphore = nullptr;
    glr::guarded(log, [&] {
        semaphore = new glr_memory_semaphore(log_or_default(log), fd, get_proc_address);
        return 0;
    });
    return semaphore;
}

int glr_memory_semaphore_wait(glr_memory_semaphore *semaphore, uint64_t value, const unsigned *textures, int count)
{
    return with_semaphore(semaphore, textures, count, "glr_memory_semaphore_wait",
                          [&](glr_memory_semaphore &s) { s.wait(value, textures, count); });
}

int glr_memory_semaphore_signal(glr_memory_semaphore *semaphore, uint64_t value, const unsigned *textures, int count)
{
    return with_semaphore(semaphore, textures, count, "glr_memory_semaphore_signal",
                          [&](glr_memory_semaphore &s) { s.signal(value, textures, count); });
}

void glr_memory_semaphore_destroy(glr_memory_semaphore **semaphore) { destroy_object(semaphore); }

int glr_gl_device_uuids(glr_log *log, glr_get_proc_address_fn get_proc_address, uint8_t device_uuid[16],
                        uint8_t driver_uuid[16])
{
    if (!device_uuid || !driver_uuid)
        return null_argument(log, "glr_gl_device_uuids", device_uuid ? "driver_uuid" : "device_uuid");
    return glr::guarded(log, [&] {
        glr::gl::device_uuids(get_proc_address, device_uuid, driver_uuid);
        return 0;
    });
}
