#include "gl/ring.hpp"

#include "gl/readback_state.hpp"
#include "enum_value.hpp"
#include "error.hpp"
#include "log.hpp"

#include <atomic>
#include <cerrno>
#include <chrono>

using glr::fail;
using glr::format;
using glr::gl::pack_format_of;
using glr::gl::readback_state_guard;

namespace {

// Lease ids are unique across all rings, so a frame from another ring never matches.
std::atomic<uint64_t> next_lease_id{1};

constexpr int max_depth = 64;
constexpr uint64_t default_capture_timeout_ns = 10'000'000'000ull;
// Readable bytes after a frame's last row in memory: SIMD code in consumers (libav*'s
// included) reads whole vectors and may run up to 64 bytes past the end of a row.
constexpr size_t read_slack = 64;

class pack_buffer_guard {
public:
    pack_buffer_guard(const GladGLContext &gl, GLuint buffer) : gl_(gl)
    {
        gl.GetIntegerv(GL_PIXEL_PACK_BUFFER_BINDING, &previous_);
        gl.BindBuffer(GL_PIXEL_PACK_BUFFER, buffer);
    }
    ~pack_buffer_guard() { gl_.BindBuffer(GL_PIXEL_PACK_BUFFER, static_cast<GLuint>(previous_)); }

private:
    const GladGLContext &gl_;
    GLint previous_ = 0;
};

// Checks the caller's values (enums read as ints, see enum_value.hpp), then fills in the
// defaults for zeros.
glr_ring_params validated(const glr_ring_params &p)
{
    if (p.width <= 0 || p.height <= 0)
        fail(-EINVAL, "glr_ring_create: invalid size %dx%d: width and height must be at least 1",
             p.width, p.height);
    int format = glr::enum_value(p.format);
    if (format < 0 || format > GLR_FORMAT_RGB8)
        fail(-EINVAL,
             "glr_ring_create: unknown format %d (use GLR_FORMAT_RGBA8, GLR_FORMAT_BGRA8 or "
             "GLR_FORMAT_RGB8)",
             format);
    int flip = glr::enum_value(p.flip);
    if (flip < GLR_FLIP_STRIDE || flip > GLR_FLIP_NONE)
        fail(-EINVAL, "glr_ring_create: unknown flip mode %d", flip);
    if (p.depth < 0 || p.depth > max_depth)
        fail(-EINVAL, "glr_ring_create: depth %d is out of range 1..%d", p.depth, max_depth);
    unsigned known = GLR_RING_NO_PERSISTENT_MAP | GLR_RING_NO_FENCES;
    if (p.flags & ~known)
        fail(-EINVAL, "glr_ring_create: unknown flags 0x%x", p.flags & ~known);

    glr_ring_params out = p;
    if (format == 0)
        out.format = GLR_FORMAT_RGBA8;
    if (out.depth == 0)
        out.depth = 3;
    if (out.capture_timeout_ns == 0)
        out.capture_timeout_ns = default_capture_timeout_ns;
    return out;
}

} // namespace

glr_ring::glr_ring(const glr_log *log, const glr_ring_params &params)
    : log_(log), params_(validated(params)), gl_(fns_.gl)
{
    glr::gl::load(fns_, params_.get_proc_address);
    if (!gl_.BindFramebuffer || !gl_.BlitFramebuffer || !gl_.MapBufferRange || !gl_.GenBuffers ||
        !gl_.RenderbufferStorage)
        fail(GLR_ERROR_UNSUPPORTED,
             "glr_ring_create: OpenGL %d.%d is too old: the ring needs OpenGL 3.0 (framebuffer "
             "objects, glBlitFramebuffer, glMapBufferRange)",
             fns_.major, fns_.minor);

    GLint max_size = 0;
    gl_.GetIntegerv(GL_MAX_RENDERBUFFER_SIZE, &max_size);
    if (params_.width > max_size || params_.height > max_size)
        fail(-EINVAL,
             "glr_ring_create: size %dx%d exceeds this driver's limit of %d pixels per side "
             "(GL_MAX_RENDERBUFFER_SIZE)",
             params_.width, params_.height, max_size);

    persistent_ = !(params_.flags & GLR_RING_NO_PERSISTENT_MAP) && gl_.BufferStorage &&
                  (fns_.version_at_least(4, 4) || gl_.ARB_buffer_storage);
    fences_ = !(params_.flags & GLR_RING_NO_FENCES) && gl_.FenceSync &&
              (fns_.version_at_least(3, 2) || gl_.ARB_sync);
    pack_format_ = pack_format_of(params_.format);
    row_bytes_ = static_cast<size_t>(params_.width) *
                 static_cast<size_t>(glr_format_bytes_per_pixel(params_.format));
    frame_bytes_ = row_bytes_ * static_cast<size_t>(params_.height);
    slots_.resize(static_cast<size_t>(params_.depth));
    try {
        create_buffers();
    } catch (...) {
        delete_gl_objects();
        throw;
    }
    log_->write(GLR_LOG_DEBUG, format("ring %dx%d %s depth %d: %s%s", params_.width,
                                      params_.height, glr_format_name(params_.format),
                                      params_.depth, persistent_ ? "persistent-map" : "map-per-frame",
                                      fences_ ? "+fences" : "+glFinish"));
}

glr_ring::~glr_ring() = default;

void glr_ring::create_buffers()
{
    glr::gl::clear_errors(gl_);
    for (slot &s : slots_) {
        gl_.GenBuffers(1, &s.buffer);
        pack_buffer_guard bind(gl_, s.buffer);
        auto size = static_cast<GLsizeiptr>(frame_bytes_ + read_slack);
        if (persistent_) {
            // CLIENT_STORAGE asks for memory on the CPU side, which is cached: reading
            // write-combined (uncached) memory with the CPU is many times slower.
            // COHERENT makes finished GPU writes visible without glMemoryBarrier.
            gl_.BufferStorage(GL_PIXEL_PACK_BUFFER, size, nullptr,
                              GL_MAP_READ_BIT | GL_MAP_PERSISTENT_BIT | GL_MAP_COHERENT_BIT |
                                  GL_CLIENT_STORAGE_BIT);
            s.mapped = static_cast<uint8_t *>(gl_.MapBufferRange(
                GL_PIXEL_PACK_BUFFER, 0, size,
                GL_MAP_READ_BIT | GL_MAP_PERSISTENT_BIT | GL_MAP_COHERENT_BIT));
        } else {
            gl_.BufferData(GL_PIXEL_PACK_BUFFER, size, nullptr, GL_STREAM_READ);
        }
        GLenum error = gl_.GetError();
        if (error != GL_NO_ERROR || (persistent_ && !s.mapped))
            fail(GLR_ERROR_GL,
                 "glr_ring_create: could not allocate %d pixel buffers of %.1f MiB (%s)",
                 params_.depth, static_cast<double>(frame_bytes_) / (1024.0 * 1024.0),
                 glr::gl::error_name(error));
    }
}

void glr_ring::delete_gl_objects()
{
    std::lock_guard<std::mutex> lock(mutex_);
    for (slot &s : slots_) {
        if (s.state == slot_state::leased)
            continue; // its memory must stay mapped for the consumer
        if (s.fence)
            gl_.DeleteSync(s.fence);
        if (s.buffer) {
            if (!persistent_ && s.mapped) {
                pack_buffer_guard bind(gl_, s.buffer);
                gl_.UnmapBuffer(GL_PIXEL_PACK_BUFFER);
            }
            gl_.DeleteBuffers(1, &s.buffer); // also ends a persistent mapping
        }
        s = slot{};
    }
    GLuint fbos[] = {texture_fbo_, resolve_fbo_, flip_fbo_};
    GLuint rbs[] = {resolve_rb_, flip_rb_};
    if (gl_.DeleteFramebuffers) {
        gl_.DeleteFramebuffers(3, fbos);
        gl_.DeleteRenderbuffers(2, rbs);
    }
    texture_fbo_ = resolve_fbo_ = resolve_rb_ = flip_fbo_ = flip_rb_ = 0;
    in_flight_.clear();
}

void glr_ring::destroy()
{
    delete_gl_objects();
    bool last;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        destroyed_ = true;
        last = leased_ == 0;
        if (!last)
            log_->write(GLR_LOG_WARN,
                        format("glr_ring_destroy: %d frame(s) still leased; their buffers stay "
                               "mapped until released (or until the GL context is destroyed)",
                               leased_));
    }
    if (last)
        delete this;
}

int glr_ring::take_free_slot(std::unique_lock<std::mutex> &lock)
{
    auto find_free = [&] {
        for (size_t i = 0; i < slots_.size(); i++)
            if (slots_[i].state == slot_state::free)
                return static_cast<int>(i);
        return -1;
    };
    int index = find_free();
    if (index >= 0)
        return index;
    // Waiting cannot help while frames wait to be acquired: only this thread may do that.
    if (!in_flight_.empty())
        return -EBUSY;

    uint64_t start = glr::now_ns();
    auto ready = [&] { return (index = find_free()) >= 0; };
    if (params_.capture_timeout_ns == UINT64_MAX) {
        released_.wait(lock, ready);
    } else if (!released_.wait_for(lock, std::chrono::nanoseconds(params_.capture_timeout_ns),
                                   ready)) {
        fail(-ETIMEDOUT,
             "glr_ring_capture: all %d slots stayed leased for %.0f ms: the consumer is not "
             "releasing frames (glr_ring_release), or is much slower than rendering",
             params_.depth, static_cast<double>(params_.capture_timeout_ns) / 1e6);
    }
    slot_wait_.record_ns(glr::now_ns() - start);
    return index;
}

void glr_ring::unmap_released()
{
    if (persistent_)
        return;
    for (slot &s : slots_) {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            if (!s.needs_unmap)
                continue;
            s.needs_unmap = false;
        }
        pack_buffer_guard bind(gl_, s.buffer);
        gl_.UnmapBuffer(GL_PIXEL_PACK_BUFFER);
        s.mapped = nullptr;
    }
}

GLuint glr_ring::internal_framebuffer(GLuint &fbo, GLuint &renderbuffer)
{
    if (fbo != 0)
        return fbo;
    gl_.GenRenderbuffers(1, &renderbuffer);
    gl_.BindRenderbuffer(GL_RENDERBUFFER, renderbuffer);
    gl_.RenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, params_.width, params_.height);
    gl_.GenFramebuffers(1, &fbo);
    gl_.BindFramebuffer(GL_DRAW_FRAMEBUFFER, fbo);
    gl_.FramebufferRenderbuffer(GL_DRAW_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER,
                                renderbuffer);
    glr::gl::check_errors(gl_, "creating the ring's internal framebuffer");
    return fbo;
}

GLuint glr_ring::bind_source(const glr_source &source, GLint &saved_read_buffer)
{
    int kind = glr::enum_value(source.kind);
    if (kind != GLR_SOURCE_FRAMEBUFFER && kind != GLR_SOURCE_TEXTURE)
        fail(-EINVAL, "glr_ring_capture: unknown source kind %d", kind);
    if (source.kind == GLR_SOURCE_TEXTURE) {
        GLenum target = source.target ? source.target : GL_TEXTURE_2D;
        if (target != GL_TEXTURE_2D && target != GL_TEXTURE_2D_MULTISAMPLE)
            fail(-EINVAL,
                 "glr_ring_capture: texture target 0x%x is not supported (use GL_TEXTURE_2D or "
                 "GL_TEXTURE_2D_MULTISAMPLE)",
                 target);
        if (source.name == 0 || !gl_.IsTexture(source.name))
            fail(-EINVAL, "glr_ring_capture: %u is not a texture name in this context",
                 source.name);
        if (texture_fbo_ == 0)
            gl_.GenFramebuffers(1, &texture_fbo_);
        gl_.BindFramebuffer(GL_READ_FRAMEBUFFER, texture_fbo_);
        gl_.FramebufferTexture2D(GL_READ_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, target, source.name,
                                 target == GL_TEXTURE_2D_MULTISAMPLE ? 0 : source.level);
        glr::gl::check_errors(gl_, format("glr_ring_capture: attaching texture %u (target 0x%x)",
                                          source.name, target)
                                       .c_str());
        return texture_fbo_;
    }
    if (source.name != 0 && !gl_.IsFramebuffer(source.name))
        fail(-EINVAL, "glr_ring_capture: %u is not a framebuffer name in this context",
             source.name);
    gl_.BindFramebuffer(GL_READ_FRAMEBUFFER, source.name);
    if (source.name != 0) {
        GLint max_attachments = 0;
        gl_.GetIntegerv(GL_MAX_COLOR_ATTACHMENTS, &max_attachments);
        if (source.attachment >= static_cast<unsigned>(max_attachments))
            fail(-EINVAL, "glr_ring_capture: colour attachment %u is out of range (this driver has %d)",
                 source.attachment, max_attachments);
        GLint type = GL_NONE;
        gl_.GetFramebufferAttachmentParameteriv(GL_READ_FRAMEBUFFER,
                                                GL_COLOR_ATTACHMENT0 + source.attachment,
                                                GL_FRAMEBUFFER_ATTACHMENT_OBJECT_TYPE, &type);
        if (type == GL_NONE)
            fail(-EINVAL,
                 "glr_ring_capture: colour attachment %u of framebuffer %u has nothing "
                 "attached",
                 source.attachment, source.name);
        gl_.GetIntegerv(GL_READ_BUFFER, &saved_read_buffer);
        gl_.ReadBuffer(GL_COLOR_ATTACHMENT0 + source.attachment);
    }
    return source.name;
}

void glr_ring::check_source_size(const glr_source &source, GLuint fbo)
{
    // Sizes are only cheap to query without rebinding through direct state access (4.5).
    if (fbo == 0 || !gl_.GetTextureLevelParameteriv || !gl_.GetNamedRenderbufferParameteriv)
        return;
    GLenum attachment = GL_COLOR_ATTACHMENT0 + (fbo == texture_fbo_ ? 0 : source.attachment);
    GLint type = 0, name = 0, level = 0, width = 0, height = 0;
    gl_.GetFramebufferAttachmentParameteriv(GL_READ_FRAMEBUFFER, attachment,
                                            GL_FRAMEBUFFER_ATTACHMENT_OBJECT_TYPE, &type);
    gl_.GetFramebufferAttachmentParameteriv(GL_READ_FRAMEBUFFER, attachment,
                                            GL_FRAMEBUFFER_ATTACHMENT_OBJECT_NAME, &name);
    if (type == GL_TEXTURE) {
        gl_.GetFramebufferAttachmentParameteriv(GL_READ_FRAMEBUFFER, attachment,
                                                GL_FRAMEBUFFER_ATTACHMENT_TEXTURE_LEVEL, &level);
        gl_.GetTextureLevelParameteriv(static_cast<GLuint>(name), level, GL_TEXTURE_WIDTH, &width);
        gl_.GetTextureLevelParameteriv(static_cast<GLuint>(name), level, GL_TEXTURE_HEIGHT, &height);
    } else if (type == GL_RENDERBUFFER) {
        gl_.GetNamedRenderbufferParameteriv(static_cast<GLuint>(name), GL_RENDERBUFFER_WIDTH, &width);
        gl_.GetNamedRenderbufferParameteriv(static_cast<GLuint>(name), GL_RENDERBUFFER_HEIGHT, &height);
    } else {
        return;
    }
    if (width < params_.width || height < params_.height)
        fail(-EINVAL, "glr_ring_capture: the source %s %u is %dx%d, smaller than the ring's %dx%d",
             source.kind == GLR_SOURCE_TEXTURE ? "texture" : "framebuffer", source.name, width,
             height, params_.width, params_.height);
}

void glr_ring::read_into(slot &s, const glr_source &source)
{
    glr::gl::clear_errors(gl_);
    readback_state_guard guard(gl_);
    GLint saved_read_buffer = -1;
    GLuint fbo = bind_source(source, saved_read_buffer);
    if (saved_read_buffer >= 0)
        guard.changed_read_buffer(fbo, saved_read_buffer);

    GLenum status = gl_.CheckFramebufferStatus(GL_READ_FRAMEBUFFER);
    if (status != GL_FRAMEBUFFER_COMPLETE) {
        if (fbo == 0)
            fail(-EINVAL,
                 "glr_ring_capture: the default framebuffer cannot be read (%s); a headless "
                 "context has none: render into a framebuffer object",
                 glr::gl::framebuffer_status_name(status));
        fail(-EINVAL, "glr_ring_capture: the source framebuffer is incomplete (%s)",
             glr::gl::framebuffer_status_name(status));
    }
    check_source_size(source, fbo);

    GLint sample_buffers = 0;
    if (source.kind == GLR_SOURCE_TEXTURE) {
        sample_buffers = source.target == GL_TEXTURE_2D_MULTISAMPLE;
    } else {
        // GL_SAMPLE_BUFFERS describes the draw framebuffer: bind the source there to ask.
        gl_.BindFramebuffer(GL_DRAW_FRAMEBUFFER, fbo);
        gl_.GetIntegerv(GL_SAMPLE_BUFFERS, &sample_buffers);
    }
    const GLint w = params_.width, h = params_.height;
    if (sample_buffers > 0) {
        // glReadPixels cannot read a multisampled buffer: resolve it with a blit.
        GLuint resolved = internal_framebuffer(resolve_fbo_, resolve_rb_);
        gl_.BindFramebuffer(GL_DRAW_FRAMEBUFFER, resolved);
        gl_.BlitFramebuffer(0, 0, w, h, 0, 0, w, h, GL_COLOR_BUFFER_BIT, GL_NEAREST);
        glr::gl::check_errors(gl_, "glr_ring_capture: resolving the multisampled source");
        fbo = resolved;
        gl_.BindFramebuffer(GL_READ_FRAMEBUFFER, fbo);
    }
    if (params_.flip == GLR_FLIP_GPU) {
        // Blitting to a rectangle with swapped Y bounds mirrors the rows on the GPU, so
        // memory receives the top row first.
        GLuint flipped = internal_framebuffer(flip_fbo_, flip_rb_);
        gl_.BindFramebuffer(GL_DRAW_FRAMEBUFFER, flipped);
        gl_.BlitFramebuffer(0, 0, w, h, 0, h, w, 0, GL_COLOR_BUFFER_BIT, GL_NEAREST);
        glr::gl::check_errors(gl_, "glr_ring_capture: flipping the frame on the GPU");
        fbo = flipped;
        gl_.BindFramebuffer(GL_READ_FRAMEBUFFER, fbo);
    }

    gl_.BindBuffer(GL_PIXEL_PACK_BUFFER, s.buffer);
    // Rows packed tightly whatever the width: with alignment 1 an RGB row of w*3 bytes
    // is not padded to 4 (RGBA rows are multiples of 4 anyway).
    gl_.PixelStorei(GL_PACK_ALIGNMENT, 1);
    gl_.PixelStorei(GL_PACK_ROW_LENGTH, 0);
    gl_.PixelStorei(GL_PACK_SKIP_ROWS, 0);
    gl_.PixelStorei(GL_PACK_SKIP_PIXELS, 0);
    gl_.ReadPixels(0, 0, w, h, pack_format_, GL_UNSIGNED_BYTE, nullptr);
    glr::gl::check_errors(gl_, "glr_ring_capture: glReadPixels into the ring's pixel buffer");
    if (fences_) {
        s.fence = gl_.FenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
        if (!s.fence)
            glr::gl::check_errors(gl_, "glr_ring_capture: glFenceSync");
        // Submit now so a GPU starts the copy while the next frame is being drawn.
        gl_.Flush();
    }
}

int glr_ring::capture(const glr_source &source, int64_t pts)
{
    glr::gl::require_current(fns_, "glr_ring_capture");
    uint64_t start = glr::now_ns();
    int index;
    {
        std::unique_lock<std::mutex> lock(mutex_);
        index = take_free_slot(lock);
        if (index < 0)
            return index;
        slots_[static_cast<size_t>(index)].state = slot_state::pending;
    }
    slot &s = slots_[static_cast<size_t>(index)];
    unmap_released();
    uint64_t read_start = glr::now_ns();
    try {
        read_into(s, source);
    } catch (...) {
        std::lock_guard<std::mutex> lock(mutex_);
        s.state = slot_state::free;
        throw;
    }
    s.complete = false;
    s.pts = pts;
    s.sequence = next_sequence_++;
    in_flight_.push_back(index);
    uint64_t end = glr::now_ns();
    std::lock_guard<std::mutex> lock(mutex_);
    frames_captured_++;
    readback_.record_ns(end - read_start);
    stall_.record_ns(end - start);
    return 0;
}

void glr_ring::wait_complete(slot &s, uint64_t timeout_ns, bool &ready)
{
    ready = s.complete;
    if (ready)
        return;
    if (fences_) {
        GLenum result = gl_.ClientWaitSync(s.fence, GL_SYNC_FLUSH_COMMANDS_BIT, timeout_ns);
        if (result == GL_TIMEOUT_EXPIRED)
            return;
        if (result == GL_WAIT_FAILED)
            glr::gl::check_errors(gl_, "glr_ring_acquire: glClientWaitSync");
        gl_.DeleteSync(s.fence);
        s.fence = nullptr;
    } else {
        // Without fences the only way to know a readback is done is to wait for all.
        gl_.Finish();
        for (int index : in_flight_)
            slots_[static_cast<size_t>(index)].complete = true;
    }
    s.complete = true;
    ready = true;
}

int glr_ring::acquire(glr_frame &frame, uint64_t timeout_ns)
{
    glr::gl::require_current(fns_, "glr_ring_acquire");
    if (in_flight_.empty())
        return -ENODATA;
    unmap_released();
    int index = in_flight_.front();
    slot &s = slots_[static_cast<size_t>(index)];
    uint64_t start = glr::now_ns();
    bool ready = false;
    wait_complete(s, timeout_ns, ready);
    uint64_t waited = glr::now_ns() - start;
    if (!ready)
        return -EAGAIN;

    uint64_t map_ns = 0;
    if (!persistent_) {
        uint64_t map_start = glr::now_ns();
        glr::gl::clear_errors(gl_);
        pack_buffer_guard bind(gl_, s.buffer);
        s.mapped = static_cast<uint8_t *>(gl_.MapBufferRange(
            GL_PIXEL_PACK_BUFFER, 0, static_cast<GLsizeiptr>(frame_bytes_ + read_slack), GL_MAP_READ_BIT));
        if (!s.mapped)
            fail(GLR_ERROR_GL, "glr_ring_acquire: glMapBufferRange failed with %s",
                 glr::gl::error_name(gl_.GetError()));
        map_ns = glr::now_ns() - map_start;
    }
    in_flight_.pop_front();

    auto row = static_cast<ptrdiff_t>(row_bytes_);
    frame = glr_frame{};
    if (params_.flip == GLR_FLIP_STRIDE) {
        frame.data = s.mapped + row * (params_.height - 1);
        frame.stride = -row;
    } else {
        frame.data = s.mapped;
        frame.stride = row;
    }
    frame.width = params_.width;
    frame.height = params_.height;
    frame.format = params_.format;
    frame.pts = s.pts;
    frame.sequence = s.sequence;
    frame.slot_ = index;
    frame.lease_id_ = next_lease_id.fetch_add(1, std::memory_order_relaxed);

    std::lock_guard<std::mutex> lock(mutex_);
    s.state = slot_state::leased;
    s.lease_id = frame.lease_id_;
    s.acquired_ns = glr::now_ns();
    leased_++;
    frames_acquired_++;
    fence_wait_.record_ns(waited);
    if (!persistent_)
        map_.record_ns(map_ns);
    return 0;
}

void glr_ring::release(glr_frame &frame)
{
    bool last;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        bool known = frame.slot_ >= 0 && frame.slot_ < static_cast<int>(slots_.size()) &&
                     frame.lease_id_ != 0;
        slot *s = known ? &slots_[static_cast<size_t>(frame.slot_)] : nullptr;
        if (!s || s->state != slot_state::leased || s->lease_id != frame.lease_id_)
            fail(-EINVAL, "glr_ring_release: this frame is not leased from this ring (it was "
                          "already released, or comes from another ring)");
        s->state = slot_state::free;
        s->lease_id = 0;
        s->needs_unmap = !persistent_;
        hold_.record_ns(glr::now_ns() - s->acquired_ns);
        leased_--;
        frames_released_++;
        last = destroyed_ && leased_ == 0;
    }
    released_.notify_all();
    frame = glr_frame{};
    if (last)
        delete this;
}

glr_ring_stats glr_ring::stats() const
{
    std::lock_guard<std::mutex> lock(mutex_);
    glr_ring_stats out{};
    out.frames_captured = frames_captured_;
    out.frames_acquired = frames_acquired_;
    out.frames_released = frames_released_;
    out.frames_leased_now = static_cast<uint64_t>(leased_);
    out.depth = params_.depth;
    out.persistent_map = persistent_;
    out.fences = fences_;
    out.path = persistent_ ? (fences_ ? "persistent-map+fences" : "persistent-map+glFinish")
                           : (fences_ ? "map-per-frame+fences" : "map-per-frame+glFinish");
    out.stall = stall_.summary();
    out.slot_wait = slot_wait_.summary();
    out.readback = readback_.summary();
    out.fence_wait = fence_wait_.summary();
    out.map = map_.summary();
    out.hold = hold_.summary();
    return out;
}
