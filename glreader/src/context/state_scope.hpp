// glreader is a guest in its host's GL context. Every GL operation it performs there runs
// inside a state_scope: the state that could change the operation's result is set to what
// the operation needs, everything it binds or changes is put back as the host had it when
// the scope ends (an exception included), and the GL errors the host left pending are
// still pending afterwards (see host_errors). A scope queries only the states it lists,
// so it is cheap enough for every frame.
#pragma once

#include "context/functions.hpp"
#include "log.hpp"

#include <array>
#include <cstdint>

namespace glr::gl {

// The pieces of GL state a scope can take care of. Saved in this order and restored in
// the reverse one (the active texture unit is put back after the units' bindings).
enum class state : unsigned {
    // Set for the operation (the value in brackets), then restored.
    scissor,            // GL_SCISSOR_TEST of viewport 0 [off]
    framebuffer_srgb,   // GL_FRAMEBUFFER_SRGB [off: blits and draws move bytes as stored]
    rasterizer_discard, // [off]
    color_mask,         // of draw buffer 0 [all channels]
    blend,              // of draw buffer 0 [off]
    cull_face,          // [off]
    polygon_mode,       // [GL_FILL]
    clip_distances,     // every GL_CLIP_DISTANCEi [off]
    color_logic_op,     // [off]
    viewport,           // viewport 0 [whatever the operation sets]
    cube_map_seamless,  // [on, as Shadertoy samples cube maps]
    compatibility_draw, // compatibility profiles only: alpha test [off], fragment colour clamp [off]
    pack,               // every GL_PACK_* pixel store parameter [GL's initial values]
    unpack,             // every GL_UNPACK_* pixel store parameter [GL's initial values]
    // Bindings: saved, and restored after the operation bound its own objects.
    framebuffers,   // read and draw framebuffers
    renderbuffer,   //
    pack_buffer,    // GL_PIXEL_PACK_BUFFER
    unpack_buffer,  // GL_PIXEL_UNPACK_BUFFER
    storage_buffer, // GL_SHADER_STORAGE_BUFFER, generic and index 0
    program,        // glUseProgram's
    vertex_array,   //
    active_texture, //
    texture_unit0,  // a unit's 2D and cube map textures and its sampler
    texture_unit1,
    texture_unit2,
    texture_unit3,
    image_unit0, // an image unit's texture, level, layers, access and format (OpenGL 4.2)
    image_unit1,
    image_unit2,
    image_unit3,
    count
};

class state_set {
public:
    constexpr state_set() = default;
    constexpr state_set(std::initializer_list<state> states)
    {
        for (state s : states)
            bits_ |= bit(s);
    }
    constexpr state_set operator|(state_set other) const { return state_set(bits_ | other.bits_); }
    constexpr bool has(state s) const { return (bits_ & bit(s)) != 0; }

private:
    constexpr explicit state_set(uint32_t bits) : bits_(bits) {}
    static constexpr uint32_t bit(state s) { return 1u << static_cast<unsigned>(s); }
    uint32_t bits_ = 0;
};
static_assert(static_cast<unsigned>(state::count) <= 32, "state_set holds 32 states");

// What each kind of operation depends on and changes.
namespace scope {
// Blits (copies, the MSAA resolve, the GPU flip) and glReadPixels into a pixel-pack buffer.
inline constexpr state_set readback{state::scissor,      state::framebuffer_srgb, state::rasterizer_discard,
                                    state::color_mask,   state::framebuffers,     state::renderbuffer,
                                    state::pack_buffer,  state::pack};
// The YUV conversion: a blit or the source in place, then a compute pass on unit 0.
inline constexpr state_set convert = readback | state_set{state::program, state::storage_buffer,
                                                          state::active_texture, state::texture_unit0};
// The YUV conversion into a texture per plane (glr_converter): the source in place on
// unit 0, a compute pass writing image units 0..3.
inline constexpr state_set convert_to_textures =
    readback | state_set{state::program,     state::active_texture, state::texture_unit0, state::image_unit0,
                         state::image_unit1, state::image_unit2,    state::image_unit3};
// Texture uploads from memory or a pixel-unpack buffer, on unit 0.
inline constexpr state_set upload{state::unpack, state::unpack_buffer, state::active_texture, state::texture_unit0};
// An upload converted on the way: a compute pass over the staged buffer first.
inline constexpr state_set converted_upload = upload | state_set{state::program, state::storage_buffer};
// A glr_scene frame: full-screen draws into its own targets, channels on units 0..3.
inline constexpr state_set draw{state::scissor,           state::framebuffer_srgb, state::rasterizer_discard,
                                state::color_mask,        state::blend,            state::cull_face,
                                state::polygon_mode,      state::clip_distances,   state::color_logic_op,
                                state::viewport,          state::cube_map_seamless, state::compatibility_draw,
                                state::framebuffers,      state::program,          state::vertex_array,
                                state::active_texture,    state::texture_unit0,    state::texture_unit1,
                                state::texture_unit2,     state::texture_unit3};
// Creating or deleting objects, mapping buffers, fences: only bindings, and errors.
inline constexpr state_set objects{state::framebuffers, state::renderbuffer,   state::pack_buffer,
                                   state::unpack_buffer, state::program,       state::active_texture,
                                   state::texture_unit0};
} // namespace scope

// Takes the GL errors pending when it is made, so that glGetError (check_errors) then
// sees only glreader's own, and raises them again when it ends. GL offers no way to
// set an error flag but to cause that error, so this causes each one with a call that
// changes nothing (GL_DEBUG_OUTPUT off meanwhile: the host's debug callback hears
// nothing of it). GL_OUT_OF_MEMORY and GL_STACK_OVERFLOW cannot be caused on demand:
// those are lost, and the log says so, naming the call.
class host_errors {
public:
    host_errors(const functions &fns, const glr_log *log, const char *call);
    ~host_errors();
    host_errors(const host_errors &) = delete;
    host_errors &operator=(const host_errors &) = delete;

private:
    void raise(GLenum error) const;

    const functions &fns_;
    const glr_log *log_;
    const char *call_;
    std::array<GLenum, 8> pending_{};
    int count_ = 0;
};

class state_scope {
public:
    // call names the glreader function, for the log (see host_errors).
    state_scope(const functions &fns, state_set states, const glr_log *log, const char *call);
    ~state_scope();
    state_scope(const state_scope &) = delete;
    state_scope &operator=(const state_scope &) = delete;

    // Room for one state's saved values.
    struct saved {
        std::array<GLint, 8> i{};
        std::array<GLfloat, 4> f{};
        std::array<GLint64, 2> wide{};
    };

private:
    host_errors errors_; // first made, last ended: restoring the states raises nothing of the host's
    const functions &fns_;
    state_set states_;
    std::array<saved, static_cast<size_t>(state::count)> saved_;
};

// Sets viewport 0 alone where viewport arrays exist (glViewport would set them all).
void set_viewport(const functions &fns, int width, int height);

} // namespace glr::gl
