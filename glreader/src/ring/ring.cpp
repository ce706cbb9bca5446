#include "ring/ring.hpp"

#include "enum_value.hpp"
#include "error.hpp"
#include "ring/fence_seam.hpp"
#include "context/state_scope.hpp"
#include "log.hpp"

#include <cerrno>

using glr::fail;
using glr::format;

namespace {

constexpr int max_depth = 64;
constexpr uint64_t default_capture_timeout_ns = 10'000'000'000ull;

// Checks the caller's values (enums read as ints, see enum_value.hpp), then fills in the
// defaults for zeros.
glr_ring_params validated(const glr_ring_params &p)
{
    if (p.width <= 0 || p.height <= 0)
        fail(-EINVAL, "glr_ring_create: invalid size %dx%d: width and height must be at least 1", p.width, p.height);
    int format = glr::enum_value(p.format);
    if (format != 0)
        glr::format_info(format, "glr_ring_create");
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
    glr::check_frame_size(glr::format_info(out.format, "glr_ring_create"), out.width, out.height, "glr_ring_create");
    return out;
}

} // namespace

glr_ring::glr_ring(const glr_log *log, const glr_ring_params &params)
    : log_(log), params_(validated(params)), format_(glr::format_info(params_.format, "glr_ring_create")),
      layout_(glr::layout_of(format_, params_.width, params_.height)),
      color_(glr::resolved_color(format_, params_.color, "glr_ring_create")), gl_(fns_.gl),
      ledger_(params_.depth, params_.capture_timeout_ns)
{
    glr::gl::load(fns_, params_.get_proc_address);
    if (!gl_.BindFramebuffer || !gl_.BlitFramebuffer || !gl_.MapBufferRange || !gl_.GenBuffers ||
        !gl_.RenderbufferStorage || !gl_.BindVertexArray || !gl_.ColorMaski)
        fail(GLR_ERROR_UNSUPPORTED,
             "glr_ring_create: OpenGL %d.%d is too old: the ring needs OpenGL 3.0 (framebuffer "
             "objects, glBlitFramebuffer, glMapBufferRange)",
             fns_.major, fns_.minor);
    glr::gl::state_scope scope(fns_, glr::gl::scope::objects, log_, "glr_ring_create");

    GLint max_size = 0;
    gl_.GetIntegerv(GL_MAX_RENDERBUFFER_SIZE, &max_size);
    if (params_.width > max_size || params_.height > max_size)
        fail(-EINVAL,
             "glr_ring_create: size %dx%d exceeds this driver's limit of %d pixels per side "
             "(GL_MAX_RENDERBUFFER_SIZE)",
             params_.width, params_.height, max_size);

    bool persistent = !(params_.flags & GLR_RING_NO_PERSISTENT_MAP) && gl_.BufferStorage &&
                      (fns_.version_at_least(4, 4) || gl_.ARB_buffer_storage);
    bool fences = !(params_.flags & GLR_RING_NO_FENCES) && gl_.FenceSync &&
                  (fns_.version_at_least(3, 2) || gl_.ARB_sync);
    glr::gl::fill_params fill{&format_, layout_, color_, params_.flip, params_.width, params_.height};
    filler_ = format_.yuv ? glr::gl::make_convert_filler(fns_, fill) : glr::gl::make_readback_filler(fns_, fill);
    try {
        buffers_ = std::make_unique<glr::gl::pack_buffers>(fns_, params_.depth, layout_.bytes, persistent, fences);
    } catch (...) {
        filler_->delete_gl_objects();
        throw;
    }
    log_->write(GLR_LOG_DEBUG, format("ring %dx%d %s depth %d: %s, %s%s", params_.width, params_.height,
                                      format_.name, params_.depth, filler_->name(),
                                      persistent ? "persistent-map" : "map-per-frame",
                                      fences ? "+fences" : "+glFinish"));
}

glr_ring::~glr_ring() = default;

void glr_ring::destroy()
{
    std::vector<bool> leased(static_cast<size_t>(params_.depth));
    for (int i = 0; i < params_.depth; i++)
        leased[static_cast<size_t>(i)] = ledger_.is_leased(i);
    {
        glr::gl::state_scope scope(fns_, glr::gl::scope::objects, log_, "glr_ring_destroy");
        buffers_->delete_gl_objects(leased);
        filler_->delete_gl_objects();
    }
    int leased_now = 0;
    if (ledger_.destroy(leased_now)) {
        delete this;
        return;
    }
    log_->write(GLR_LOG_WARN, format("glr_ring_destroy: %d frame(s) still leased; their buffers stay mapped "
                                     "until released (or until the GL context is destroyed)",
                                     leased_now));
}

void glr_ring::unmap_released()
{
    if (buffers_->persistent())
        return;
    for (int index : ledger_.take_released())
        buffers_->unmap(index);
}

int glr_ring::capture(const glr_source &source, int64_t pts)
{
    glr::gl::require_current(fns_, "glr_ring_capture");
    uint64_t start = glr::now_ns();
    int index = ledger_.begin_capture("its consumer");
    if (index < 0)
        return index;
    uint64_t fill_start = glr::now_ns(), state_ns = 0;
    try {
        uint64_t filled = 0;
        {
            // The fence too: its error check must not take an error the host left pending.
            glr::gl::state_scope scope(fns_, filler_->touched_state(), log_, "glr_ring_capture");
            uint64_t scoped = glr::now_ns();
            unmap_released();
            filler_->fill(source, buffers_->buffer(index));
            buffers_->fence(index);
            filled = glr::now_ns();
            state_ns = scoped - fill_start;
        }
        state_ns += glr::now_ns() - filled;
    } catch (...) {
        ledger_.abandon(index);
        throw;
    }
    ledger_.captured(index, pts);
    uint64_t end = glr::now_ns();
    std::lock_guard<std::mutex> lock(stats_mutex_);
    readback_.record_ns(end - fill_start);
    stall_.record_ns(end - start);
    host_state_.record_ns(state_ns);
    return 0;
}

int glr_ring::acquire(glr_frame &frame, uint64_t timeout_ns)
{
    glr::gl::require_current(fns_, "glr_ring_acquire");
    int index = ledger_.oldest();
    if (index < 0)
        return -ENODATA;
    // Only the map-per-frame path binds a buffer here; every path checks GL errors.
    glr::gl::state_set touched =
        buffers_->persistent() ? glr::gl::state_set{} : glr::gl::state_set{glr::gl::state::pack_buffer};
    glr::gl::state_scope scope(fns_, touched, log_, "glr_ring_acquire");
    unmap_released();
    uint64_t start = glr::now_ns();
    if (!ledger_.is_ready(index)) {
        if (!buffers_->wait(index, timeout_ns, ledger_.in_flight(), glr::gl::fence_seam_holds(this, timeout_ns)))
            return -EAGAIN;
        ledger_.mark_ready(index);
    }
    uint64_t waited = glr::now_ns() - start;
    uint64_t map_start = glr::now_ns();
    const uint8_t *memory = buffers_->map(index);
    uint64_t map_ns = glr::now_ns() - map_start;
    glr::slot_ledger::lease lease = ledger_.lease_oldest();

    frame = glr_frame{};
    for (int p = 0; p < layout_.count; p++) {
        const glr::frame_layout::plane &plane = layout_.planes[p];
        auto stride = static_cast<ptrdiff_t>(plane.stride);
        const uint8_t *first = memory + plane.offset;
        // RGB formats flip by a view from the top row with a negative stride; YUV formats
        // were written top first by the conversion (unless GLR_FLIP_NONE).
        if (!format_.yuv && params_.flip == GLR_FLIP_STRIDE) {
            first += stride * (plane.rows - 1);
            stride = -stride;
        }
        frame.planes[p] = {first, stride, plane.row_bytes, plane.rows};
    }
    frame.width = params_.width;
    frame.height = params_.height;
    frame.format = params_.format;
    frame.color = color_;
    frame.pts = lease.pts;
    frame.sequence = lease.sequence;
    frame.ring_ = this;
    frame.lease_id_ = lease.id;
    frame.slot_ = index;

    std::lock_guard<std::mutex> lock(stats_mutex_);
    fence_wait_.record_ns(waited);
    if (!buffers_->persistent())
        map_.record_ns(map_ns);
    return 0;
}

void glr_ring::release(glr_frame &frame)
{
    bool last = ledger_.release(frame.slot_, frame.lease_id_);
    frame = glr_frame{};
    if (last)
        delete this;
}

glr_ring_stats glr_ring::stats() const
{
    glr::slot_ledger::counts counts = ledger_.counters();
    glr_ring_stats out{};
    out.frames_captured = counts.captured;
    out.frames_acquired = counts.acquired;
    out.frames_released = counts.released;
    out.frames_leased_now = counts.leased_now;
    out.depth = params_.depth;
    out.persistent_map = buffers_->persistent();
    out.fences = buffers_->fences();
    out.path = out.persistent_map ? (out.fences ? "persistent-map+fences" : "persistent-map+glFinish")
                                  : (out.fences ? "map-per-frame+fences" : "map-per-frame+glFinish");
    out.fill = filler_->name();
    out.frame_bytes = layout_.bytes;
    out.slot_wait = ledger_.slot_wait();
    out.hold = ledger_.hold();
    std::lock_guard<std::mutex> lock(stats_mutex_);
    out.stall = stall_.summary();
    out.readback = readback_.summary();
    out.fence_wait = fence_wait_.summary();
    out.map = map_.summary();
    out.host_state = host_state_.summary();
    return out;
}
