// glreader: header-only C++17 layer over the C ABI. Move-only RAII types in namespace
// glr; failures throw glr::error, expected outcomes ("not ready yet") are return values.
#pragma once

#include "glreader/glreader.h"

#include <cerrno>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

namespace glr {

// A failed glreader call: code() is the C error code, what() the full message.
class error : public std::runtime_error {
public:
    error(int code, const std::string &message) : std::runtime_error(message), code_(code) {}
    int code() const noexcept { return code_; }

private:
    int code_;
};

namespace detail {
inline error last_error(int code, const char *call)
{
    const char *message = glr_last_error();
    return error(code, message && *message ? std::string(message)
                                           : std::string(call) + ": " + glr_strerror(code));
}
inline int check(int code, const char *call)
{
    if (code < 0)
        throw last_error(code, call);
    return code;
}
// For the create functions, which return NULL: the code comes from glr_last_error_code().
[[noreturn]] inline void throw_create_failure(const char *call)
{
    int code = glr_last_error_code();
    throw last_error(code != 0 ? code : GLR_ERROR_INTERNAL, call);
}
// A C object owned by a C++ one: moved, never copied, freed by its glr_*_destroy.
template <typename T, void (*Destroy)(T **)>
class handle {
public:
    handle() = default;
    explicit handle(T *p) noexcept : p_(p) {}
    ~handle() { Destroy(&p_); }
    handle(handle &&other) noexcept : p_(std::exchange(other.p_, nullptr)) {}
    handle &operator=(handle &&other) noexcept
    {
        std::swap(p_, other.p_);
        return *this;
    }
    handle(const handle &) = delete;
    handle &operator=(const handle &) = delete;
    T *get() const noexcept { return p_; }

private:
    T *p_ = nullptr;
};

} // namespace detail

// Headless EGL context (see glreader/context.h).
// Thread-safety: current on one thread at a time. Lifetime: outlive its rings.
class context {
public:
    explicit context(const glr_context_params &params = {}, glr_log *log = nullptr)
        : ctx_(glr_context_create(log, &params))
    {
        if (!ctx_.get())
            detail::throw_create_failure("glr_context_create");
    }

    void make_current() { detail::check(glr_context_make_current(ctx_.get()), "make_current"); }
    void release_current() { detail::check(glr_context_release_current(ctx_.get()), "release_current"); }
    std::string renderer() const { return glr_context_renderer(ctx_.get()); }
    std::string platform() const { return glr_context_platform_name(ctx_.get()); }
    bool is_software() const { return glr_context_is_software(ctx_.get()) != 0; }
    static glr_get_proc_address_fn proc_loader() { return glr_context_get_proc_address; }
    glr_context *get() const { return ctx_.get(); }

private:
    detail::handle<glr_context, glr_context_destroy> ctx_;
};

// A leased frame. Destroying (or reset()) gives the slot back to its ring.
// Thread-safety: may be moved to and destroyed on any thread.
// Lifetime: pixels stay valid and unchanged while this object holds the lease.
class frame {
public:
    frame() = default;
    explicit frame(const glr_frame &f) : frame_(f) {}
    ~frame() { reset(); }
    frame(frame &&other) noexcept : frame_(std::exchange(other.frame_, {})) {}
    frame &operator=(frame &&other) noexcept
    {
        if (this != &other) {
            reset();
            frame_ = std::exchange(other.frame_, {});
        }
        return *this;
    }
    frame(const frame &) = delete;
    frame &operator=(const frame &) = delete;

    explicit operator bool() const { return frame_.ring_ != nullptr; }
    // Plane p's first byte of its top row, its stride, and row y of it.
    const uint8_t *data(int p = 0) const { return frame_.planes[p].data; }
    ptrdiff_t stride(int p = 0) const { return frame_.planes[p].stride; }
    const uint8_t *row(int y, int p = 0) const { return frame_.planes[p].data + frame_.planes[p].stride * y; }
    // Plane p's rows, and the bytes of pixels in each.
    int rows(int p = 0) const { return frame_.planes[p].rows; }
    size_t row_bytes(int p = 0) const { return frame_.planes[p].row_bytes; }
    int width() const { return frame_.width; }
    int height() const { return frame_.height; }
    glr_format format() const { return frame_.format; }
    const glr_color &color() const { return frame_.color; }
    int64_t pts() const { return frame_.pts; }
    uint64_t sequence() const { return frame_.sequence; }
    const glr_frame &c_frame() const { return frame_; }

    // Hands the lease over to C code (e.g. glr_encoder_submit), which must release it;
    // this object is empty afterwards.
    glr_frame detach() noexcept { return std::exchange(frame_, {}); }

    // Gives the slot back now. Never throws: a failure is logged by the ring.
    void reset() noexcept
    {
        if (frame_.ring_)
            glr_frame_release(&frame_);
        frame_ = {};
    }

private:
    glr_frame frame_{};
};

// Source helpers.
inline glr_source framebuffer_source(unsigned fbo, unsigned attachment = 0)
{
    glr_source s{};
    s.kind = GLR_SOURCE_FRAMEBUFFER;
    s.name = fbo;
    s.attachment = attachment;
    return s;
}
inline glr_source texture_source(unsigned texture, unsigned target = 0, int level = 0)
{
    glr_source s{};
    s.kind = GLR_SOURCE_TEXTURE;
    s.name = texture;
    s.target = target;
    s.level = level;
    return s;
}

// The readback ring (see glreader/ring.h).
// Thread-safety: all members but stats() on the GL thread; frames go anywhere.
// Lifetime: destroy before the GL context; frames may outlive it (see ring.h).
class ring {
public:
    explicit ring(const glr_ring_params &params, glr_log *log = nullptr)
        : ring_(glr_ring_create(log, &params))
    {
        if (!ring_.get())
            detail::throw_create_failure("glr_ring_create");
    }

    // Starts a readback. false: the ring is full of frames not acquired yet (-EBUSY).
    bool try_capture(const glr_source &source, int64_t pts)
    {
        int rc = glr_ring_capture(ring_.get(), &source, pts);
        if (rc == -EBUSY)
            return false;
        detail::check(rc, "glr_ring_capture");
        return true;
    }

    // The oldest captured frame once ready within timeout_ns; nullopt when not ready yet
    // or when nothing is in flight.
    std::optional<frame> acquire(uint64_t timeout_ns = 0)
    {
        glr_frame f{};
        int rc = glr_ring_acquire(ring_.get(), &f, timeout_ns);
        if (rc == -EAGAIN || rc == -ENODATA)
            return std::nullopt;
        detail::check(rc, "glr_ring_acquire");
        return frame(f);
    }

    // The render-loop step: captures source, handing sink(glr::frame&&) every frame that
    // is ready, and first the oldest ones whenever the ring is full of unacquired frames.
    template <typename Sink>
    void capture(const glr_source &source, int64_t pts, Sink &&sink)
    {
        while (!try_capture(source, pts))
            if (auto f = acquire(UINT64_MAX))
                sink(std::move(*f));
        while (auto f = acquire(0))
            sink(std::move(*f));
    }

    // Waits for every frame still in flight and hands each to sink, in order.
    template <typename Sink>
    void drain(Sink &&sink)
    {
        while (auto f = acquire(UINT64_MAX))
            sink(std::move(*f));
    }

    glr_ring_stats stats() const
    {
        glr_ring_stats s{};
        glr_ring_get_stats(ring_.get(), &s);
        return s;
    }
    glr_ring *get() const { return ring_.get(); }

private:
    detail::handle<glr_ring, glr_ring_destroy> ring_;
};

// A Shadertoy shader, project directory or JSON (see glreader/shadertoy_project.h).
class project {
public:
    // path: a .frag file, a project directory or a Shadertoy JSON; "" or NULL: the built-in
    // scene. media_dir: where a JSON's Shadertoy media are (glr_project_params).
    explicit project(const char *path, glr_log *log = nullptr, const char *media_dir = nullptr)
        : project_(open(path, media_dir, log))
    {
        if (!project_.get())
            detail::throw_create_failure("glr_project_open");
    }
    // Binds a pass's channel to a spec ("image:noise.png,wrap=repeat"); `where` names it in
    // errors. Throws glr::error.
    void bind(int pass, int channel, const char *spec, const char *where)
    {
        detail::check(glr_project_bind(project_.get(), pass, channel, spec, where), "glr_project_bind");
    }
    // Writes it as a project folder (glr_project_write). Throws glr::error.
    void write(const char *dir) const { detail::check(glr_project_write(project_.get(), dir), "glr_project_write"); }
    bool has_sound_pass() const { return glr_project_has_sound_pass(project_.get()) != 0; }
    glr_project *get() const { return project_.get(); }

private:
    static glr_project *open(const char *path, const char *media_dir, glr_log *log)
    {
        glr_project_params params{};
        params.path = path;
        params.media_dir = media_dir;
        return glr_project_open(log, &params);
    }
    detail::handle<glr_project, glr_project_destroy> project_;
};

// A project played over time (see glreader/player.h).
// Thread-safety and lifetime: on the thread where its GL context is current; destroy it
// while that context is.
class player {
public:
    // Compiles the passes. Throws glr::error (a compile error names the author's line).
    explicit player(const glr_player_params &params, glr_log *log = nullptr)
        : player_(glr_player_create(log, &params))
    {
        if (!player_.get())
            detail::throw_create_failure("glr_player_create");
    }
    // Renders the next frame (the first pre-rolls where the project needs it).
    void render_next() { detail::check(glr_player_render_next(player_.get()), "glr_player_render_next"); }
    int frame() const { return glr_player_frame(player_.get()); }
    int preroll() const { return glr_player_preroll(player_.get()); }
    glr_source source() const { return glr_player_source(player_.get()); }
    glr_player_stats stats() const
    {
        glr_player_stats s{};
        glr_player_get_stats(player_.get(), &s);
        return s;
    }
    glr_player *get() const { return player_.get(); }

private:
    detail::handle<glr_player, glr_player_destroy> player_;
};

} // namespace glr
