#include "context/state_scope.hpp"

#include "error.hpp"

#include <algorithm>

namespace glr::gl {

namespace {

// Compatibility-profile enums, absent from glad's core headers.
constexpr GLenum alpha_test = 0x0BC0, clamp_fragment_color = 0x891B;

using saved = state_scope::saved;

// How one state is saved, set for glreader's operation, and restored.
struct handler {
    void (*save)(const functions &, saved &);
    void (*set)(const functions &, const saved &);
    void (*restore)(const functions &, const saved &);
};

void nothing(const functions &, const saved &) {}

// A capability, enabled or not, set to `want` for the operation.
template <GLenum cap, bool want>
constexpr handler capability()
{
    return {[](const functions &f, saved &s) { s.i[0] = f.gl.IsEnabled(cap); },
            [](const functions &f, const saved &s) {
                if (static_cast<bool>(s.i[0]) != want)
                    want ? f.gl.Enable(cap) : f.gl.Disable(cap);
            },
            [](const functions &f, const saved &s) {
                if (static_cast<bool>(s.i[0]) != want)
                    s.i[0] ? f.gl.Enable(cap) : f.gl.Disable(cap);
            }};
}

// A capability of index 0 (viewport 0's scissor, draw buffer 0's blend), off for the
// operation; the whole capability where indexed forms are missing (since: their version).
template <GLenum cap, int since_major, int since_minor>
constexpr handler capability_of_index0()
{
    return {[](const functions &f, saved &s) {
                s.i[0] = f.version_at_least(since_major, since_minor) ? f.gl.IsEnabledi(cap, 0) : f.gl.IsEnabled(cap);
            },
            [](const functions &f, const saved &s) {
                if (s.i[0])
                    f.version_at_least(since_major, since_minor) ? f.gl.Disablei(cap, 0) : f.gl.Disable(cap);
            },
            [](const functions &f, const saved &s) {
                if (s.i[0])
                    f.version_at_least(since_major, since_minor) ? f.gl.Enablei(cap, 0) : f.gl.Enable(cap);
            }};
}

// A binding queried with `query` and put back with `bind`.
template <GLenum query, void (*bind)(const functions &, GLuint)>
constexpr handler binding()
{
    return {[](const functions &f, saved &s) { f.gl.GetIntegerv(query, &s.i[0]); }, nothing,
            [](const functions &f, const saved &s) { bind(f, static_cast<GLuint>(s.i[0])); }};
}

// Every pixel store parameter of a direction, at GL's initial values for the operation.
template <bool pack>
struct pixel_store_table {
    static constexpr std::array<GLenum, 8> names =
        pack ? std::array<GLenum, 8>{GL_PACK_SWAP_BYTES,  GL_PACK_LSB_FIRST,   GL_PACK_ROW_LENGTH,
                                     GL_PACK_IMAGE_HEIGHT, GL_PACK_SKIP_ROWS,   GL_PACK_SKIP_PIXELS,
                                     GL_PACK_SKIP_IMAGES,  GL_PACK_ALIGNMENT}
             : std::array<GLenum, 8>{GL_UNPACK_SWAP_BYTES,  GL_UNPACK_LSB_FIRST, GL_UNPACK_ROW_LENGTH,
                                     GL_UNPACK_IMAGE_HEIGHT, GL_UNPACK_SKIP_ROWS, GL_UNPACK_SKIP_PIXELS,
                                     GL_UNPACK_SKIP_IMAGES,  GL_UNPACK_ALIGNMENT};
    static constexpr std::array<GLint, 8> initial{0, 0, 0, 0, 0, 0, 0, 4};
};

template <bool pack>
constexpr handler pixel_store()
{
    using table = pixel_store_table<pack>;
    return {[](const functions &f, saved &s) {
                for (size_t i = 0; i < table::names.size(); i++)
                    f.gl.GetIntegerv(table::names[i], &s.i[i]);
            },
            [](const functions &f, const saved &s) {
                for (size_t i = 0; i < table::names.size(); i++)
                    if (s.i[i] != table::initial[i])
                        f.gl.PixelStorei(table::names[i], table::initial[i]);
            },
            [](const functions &f, const saved &s) {
                for (size_t i = 0; i < table::names.size(); i++)
                    f.gl.PixelStorei(table::names[i], s.i[i]);
            }};
}

template <GLenum unit>
constexpr handler texture_unit()
{
    return {[](const functions &f, saved &s) {
                f.gl.ActiveTexture(GL_TEXTURE0 + unit);
                f.gl.GetIntegerv(GL_TEXTURE_BINDING_2D, &s.i[0]);
                f.gl.GetIntegerv(GL_TEXTURE_BINDING_CUBE_MAP, &s.i[1]);
                if (f.gl.BindSampler) // sampler objects: OpenGL 3.3
                    f.gl.GetIntegerv(GL_SAMPLER_BINDING, &s.i[2]);
            },
            nothing,
            [](const functions &f, const saved &s) {
                f.gl.ActiveTexture(GL_TEXTURE0 + unit);
                f.gl.BindTexture(GL_TEXTURE_2D, static_cast<GLuint>(s.i[0]));
                f.gl.BindTexture(GL_TEXTURE_CUBE_MAP, static_cast<GLuint>(s.i[1]));
                if (f.gl.BindSampler)
                    f.gl.BindSampler(unit, static_cast<GLuint>(s.i[2]));
            }};
}

// An image unit's binding (OpenGL 4.2): the texture, level, layering, access and format.
template <GLuint unit>
constexpr handler image_unit()
{
    return {[](const functions &f, saved &s) {
                if (!f.gl.BindImageTexture)
                    return;
                f.gl.GetIntegeri_v(GL_IMAGE_BINDING_NAME, unit, &s.i[0]);
                f.gl.GetIntegeri_v(GL_IMAGE_BINDING_LEVEL, unit, &s.i[1]);
                f.gl.GetIntegeri_v(GL_IMAGE_BINDING_LAYERED, unit, &s.i[2]);
                f.gl.GetIntegeri_v(GL_IMAGE_BINDING_LAYER, unit, &s.i[3]);
                f.gl.GetIntegeri_v(GL_IMAGE_BINDING_ACCESS, unit, &s.i[4]);
                f.gl.GetIntegeri_v(GL_IMAGE_BINDING_FORMAT, unit, &s.i[5]);
            },
            nothing,
            [](const functions &f, const saved &s) {
                if (!f.gl.BindImageTexture)
                    return;
                f.gl.BindImageTexture(unit, static_cast<GLuint>(s.i[0]), s.i[1], static_cast<GLboolean>(s.i[2]), s.i[3],
                                      static_cast<GLenum>(s.i[4]), static_cast<GLenum>(s.i[5]));
            }};
}

void bind_renderbuffer(const functions &f, GLuint name) { f.gl.BindRenderbuffer(GL_RENDERBUFFER, name); }
void bind_pack_buffer(const functions &f, GLuint name) { f.gl.BindBuffer(GL_PIXEL_PACK_BUFFER, name); }
void bind_unpack_buffer(const functions &f, GLuint name) { f.gl.BindBuffer(GL_PIXEL_UNPACK_BUFFER, name); }
void use_program(const functions &f, GLuint name) { f.gl.UseProgram(name); }
void bind_vertex_array(const functions &f, GLuint name) { f.gl.BindVertexArray(name); }
void active_texture(const functions &f, GLuint unit) { f.gl.ActiveTexture(unit); }

const std::array<handler, static_cast<size_t>(state::count)> handlers = {
    capability_of_index0<GL_SCISSOR_TEST, 4, 1>(),
    capability<GL_FRAMEBUFFER_SRGB, false>(),
    capability<GL_RASTERIZER_DISCARD, false>(),
    // color_mask
    handler{[](const functions &f, saved &s) {
                GLboolean mask[4] = {};
                f.gl.GetBooleani_v(GL_COLOR_WRITEMASK, 0, mask);
                std::copy(mask, mask + 4, s.i.begin());
            },
            [](const functions &f, const saved &) { f.gl.ColorMaski(0, GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE); },
            [](const functions &f, const saved &s) {
                f.gl.ColorMaski(0, static_cast<GLboolean>(s.i[0]), static_cast<GLboolean>(s.i[1]),
                                static_cast<GLboolean>(s.i[2]), static_cast<GLboolean>(s.i[3]));
            }},
    capability_of_index0<GL_BLEND, 3, 0>(),
    capability<GL_CULL_FACE, false>(),
    // polygon_mode: a compatibility profile may hold different front and back modes.
    handler{[](const functions &f, saved &s) {
                s.i[1] = -1;
                f.gl.GetIntegerv(GL_POLYGON_MODE, &s.i[0]);
            },
            [](const functions &f, const saved &) { f.gl.PolygonMode(GL_FRONT_AND_BACK, GL_FILL); },
            [](const functions &f, const saved &s) {
                if (s.i[1] == -1 || s.i[1] == s.i[0]) {
                    f.gl.PolygonMode(GL_FRONT_AND_BACK, static_cast<GLenum>(s.i[0]));
                } else {
                    f.gl.PolygonMode(GL_FRONT, static_cast<GLenum>(s.i[0]));
                    f.gl.PolygonMode(GL_BACK, static_cast<GLenum>(s.i[1]));
                }
            }},
    // clip_distances: one bit per plane.
    handler{[](const functions &f, saved &s) {
                for (GLint i = 0; i < std::min<GLint>(f.max_clip_distances, 31); i++)
                    s.i[0] |= f.gl.IsEnabled(GL_CLIP_DISTANCE0 + static_cast<GLenum>(i)) ? 1 << i : 0;
            },
            [](const functions &f, const saved &s) {
                for (GLint i = 0; i < 31; i++)
                    if (s.i[0] & (1 << i))
                        f.gl.Disable(GL_CLIP_DISTANCE0 + static_cast<GLenum>(i));
            },
            [](const functions &f, const saved &s) {
                for (GLint i = 0; i < 31; i++)
                    if (s.i[0] & (1 << i))
                        f.gl.Enable(GL_CLIP_DISTANCE0 + static_cast<GLenum>(i));
            }},
    capability<GL_COLOR_LOGIC_OP, false>(),
    // viewport: of index 0 only, where viewport arrays exist (see set_viewport).
    handler{[](const functions &f, saved &s) {
                if (f.version_at_least(4, 1))
                    f.gl.GetFloati_v(GL_VIEWPORT, 0, s.f.data());
                else
                    f.gl.GetFloatv(GL_VIEWPORT, s.f.data());
            },
            nothing,
            [](const functions &f, const saved &s) {
                if (f.version_at_least(4, 1))
                    f.gl.ViewportIndexedf(0, s.f[0], s.f[1], s.f[2], s.f[3]);
                else
                    f.gl.Viewport(static_cast<GLint>(s.f[0]), static_cast<GLint>(s.f[1]),
                                  static_cast<GLsizei>(s.f[2]), static_cast<GLsizei>(s.f[3]));
            }},
    capability<GL_TEXTURE_CUBE_MAP_SEAMLESS, true>(),
    // compatibility_draw
    handler{[](const functions &f, saved &s) {
                if (!f.compatibility)
                    return;
                s.i[0] = f.gl.IsEnabled(alpha_test);
                f.gl.GetIntegerv(clamp_fragment_color, &s.i[1]);
            },
            [](const functions &f, const saved &s) {
                if (!f.compatibility)
                    return;
                if (s.i[0])
                    f.gl.Disable(alpha_test);
                if (s.i[1] != GL_FALSE)
                    f.gl.ClampColor(clamp_fragment_color, GL_FALSE);
            },
            [](const functions &f, const saved &s) {
                if (!f.compatibility)
                    return;
                if (s.i[0])
                    f.gl.Enable(alpha_test);
                if (s.i[1] != GL_FALSE)
                    f.gl.ClampColor(clamp_fragment_color, static_cast<GLenum>(s.i[1]));
            }},
    pixel_store<true>(),
    pixel_store<false>(),
    // framebuffers
    handler{[](const functions &f, saved &s) {
                f.gl.GetIntegerv(GL_READ_FRAMEBUFFER_BINDING, &s.i[0]);
                f.gl.GetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &s.i[1]);
            },
            nothing,
            [](const functions &f, const saved &s) {
                f.gl.BindFramebuffer(GL_READ_FRAMEBUFFER, static_cast<GLuint>(s.i[0]));
                f.gl.BindFramebuffer(GL_DRAW_FRAMEBUFFER, static_cast<GLuint>(s.i[1]));
            }},
    binding<GL_RENDERBUFFER_BINDING, bind_renderbuffer>(),
    binding<GL_PIXEL_PACK_BUFFER_BINDING, bind_pack_buffer>(),
    binding<GL_PIXEL_UNPACK_BUFFER_BINDING, bind_unpack_buffer>(),
    // storage_buffer: the generic binding and index 0's buffer and range (OpenGL 4.3).
    handler{[](const functions &f, saved &s) {
                if (!f.version_at_least(4, 3))
                    return;
                f.gl.GetIntegerv(GL_SHADER_STORAGE_BUFFER_BINDING, &s.i[0]);
                f.gl.GetIntegeri_v(GL_SHADER_STORAGE_BUFFER_BINDING, 0, &s.i[1]);
                f.gl.GetInteger64i_v(GL_SHADER_STORAGE_BUFFER_START, 0, &s.wide[0]);
                f.gl.GetInteger64i_v(GL_SHADER_STORAGE_BUFFER_SIZE, 0, &s.wide[1]);
            },
            nothing,
            [](const functions &f, const saved &s) {
                if (!f.version_at_least(4, 3))
                    return;
                // A range of size 0 is a whole-buffer binding (glBindBufferBase).
                if (s.i[1] && s.wide[1])
                    f.gl.BindBufferRange(GL_SHADER_STORAGE_BUFFER, 0, static_cast<GLuint>(s.i[1]), s.wide[0], s.wide[1]);
                else
                    f.gl.BindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, static_cast<GLuint>(s.i[1]));
                f.gl.BindBuffer(GL_SHADER_STORAGE_BUFFER, static_cast<GLuint>(s.i[0]));
            }},
    binding<GL_CURRENT_PROGRAM, use_program>(),
    binding<GL_VERTEX_ARRAY_BINDING, bind_vertex_array>(),
    // active_texture: saved before the units are (saving one selects it), and the
    // operation starts on unit 0.
    handler{[](const functions &f, saved &s) { f.gl.GetIntegerv(GL_ACTIVE_TEXTURE, &s.i[0]); },
            [](const functions &f, const saved &) { f.gl.ActiveTexture(GL_TEXTURE0); },
            [](const functions &f, const saved &s) { active_texture(f, static_cast<GLuint>(s.i[0])); }},
    texture_unit<0>(),
    texture_unit<1>(),
    texture_unit<2>(),
    texture_unit<3>(),
    image_unit<0>(),
    image_unit<1>(),
    image_unit<2>(),
    image_unit<3>(),
};

// Raises error with a call that changes no state; false when GL has no such call.
bool raise_error(const functions &f, GLenum error)
{
    const GladGLContext &gl = f.gl;
    switch (error) {
    case GL_INVALID_ENUM: {
        GLint ignored = 0;
        gl.GetIntegerv(GL_NONE, &ignored);
        return true;
    }
    case GL_INVALID_VALUE:
        gl.PixelStorei(GL_PACK_ALIGNMENT, 3); // alignments are 1, 2, 4 or 8
        return true;
    case GL_INVALID_OPERATION:
        gl.BeginQuery(GL_SAMPLES_PASSED, 0); // query 0 never exists
        return true;
    case GL_INVALID_FRAMEBUFFER_OPERATION: {
        // Reading from a framebuffer with no attachment, which is incomplete.
        GLint read = 0, pack = 0;
        GLuint empty = 0;
        gl.GetIntegerv(GL_READ_FRAMEBUFFER_BINDING, &read);
        gl.GetIntegerv(GL_PIXEL_PACK_BUFFER_BINDING, &pack);
        gl.GenFramebuffers(1, &empty);
        gl.BindFramebuffer(GL_READ_FRAMEBUFFER, empty);
        gl.BindBuffer(GL_PIXEL_PACK_BUFFER, 0);
        uint8_t pixel[4];
        gl.ReadPixels(0, 0, 1, 1, GL_RGBA, GL_UNSIGNED_BYTE, pixel);
        gl.BindBuffer(GL_PIXEL_PACK_BUFFER, static_cast<GLuint>(pack));
        gl.BindFramebuffer(GL_READ_FRAMEBUFFER, static_cast<GLuint>(read));
        gl.DeleteFramebuffers(1, &empty);
        return true;
    }
    case GL_STACK_UNDERFLOW: {
        // Popping the base debug group; never a group the host pushed.
        if (!f.version_at_least(4, 3))
            return false;
        GLint depth = 0;
        gl.GetIntegerv(GL_DEBUG_GROUP_STACK_DEPTH, &depth);
        if (depth != 1)
            return false;
        gl.PopDebugGroup();
        return true;
    }
    default:
        return false;
    }
}

} // namespace

host_errors::host_errors(const functions &fns, const glr_log *log, const char *call)
    : fns_(fns), log_(log), call_(call)
{
    // Bounded: a lost context may report errors forever (and keeps reporting them).
    for (int i = 0; i < 16; i++) {
        GLenum error = fns_.gl.GetError();
        if (error == GL_NO_ERROR || error == GL_CONTEXT_LOST)
            break;
        if (count_ < static_cast<int>(pending_.size()) &&
            std::find(pending_.begin(), pending_.begin() + count_, error) == pending_.begin() + count_)
            pending_[static_cast<size_t>(count_++)] = error;
    }
}

host_errors::~host_errors()
{
    // Whatever glreader raised and did not check is its own business, not the host's.
    for (int i = 0; i < 16; i++) {
        GLenum error = fns_.gl.GetError();
        if (error == GL_NO_ERROR || error == GL_CONTEXT_LOST)
            break;
    }
    if (count_ == 0)
        return;
    bool debug_output = fns_.version_at_least(4, 3) && fns_.gl.IsEnabled(GL_DEBUG_OUTPUT);
    if (debug_output)
        fns_.gl.Disable(GL_DEBUG_OUTPUT);
    for (int i = 0; i < count_; i++)
        if (!raise_error(fns_, pending_[static_cast<size_t>(i)]) && log_)
            log_->write(GLR_LOG_WARN,
                        format("%s: the host's GL context had %s pending; glreader took it to check its own "
                               "calls and GL has no way to raise it again",
                               call_, error_name(pending_[static_cast<size_t>(i)])));
    if (debug_output)
        fns_.gl.Enable(GL_DEBUG_OUTPUT);
}

state_scope::state_scope(const functions &fns, state_set states, const glr_log *log, const char *call)
    : errors_(fns, log, call), fns_(fns), states_(states)
{
    // Saving a unit's bindings selects it: the active unit is saved with them.
    for (state unit : {state::texture_unit0, state::texture_unit1, state::texture_unit2, state::texture_unit3})
        if (states_.has(unit))
            states_ = states_ | state_set{state::active_texture};
    constexpr auto count = static_cast<size_t>(state::count);
    for (size_t i = 0; i < count; i++)
        if (states_.has(static_cast<state>(i)))
            handlers[i].save(fns_, saved_[i]);
    for (size_t i = 0; i < count; i++)
        if (states_.has(static_cast<state>(i)))
            handlers[i].set(fns_, saved_[i]);
}

state_scope::~state_scope()
{
    for (size_t i = static_cast<size_t>(state::count); i-- > 0;)
        if (states_.has(static_cast<state>(i)))
            handlers[i].restore(fns_, saved_[i]);
}

void set_viewport(const functions &fns, int width, int height)
{
    if (fns.version_at_least(4, 1))
        fns.gl.ViewportIndexedf(0, 0.0f, 0.0f, static_cast<float>(width), static_cast<float>(height));
    else
        fns.gl.Viewport(0, 0, width, height);
}

} // namespace glr::gl
