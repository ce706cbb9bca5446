// YUV formats: the conversion pass (ring/yuv_pass.hpp) reads the source texture and packs
// the planes straight into the slot's buffer, bound as a shader storage buffer.
#include "ring/readback_state.hpp"
#include "ring/slot_filler.hpp"
#include "ring/yuv_pass.hpp"

#include "error.hpp"

namespace glr::gl {
namespace {

class convert_filler final : public slot_filler {
public:
    convert_filler(const functions &fns, const fill_params &p)
        : gl_(fns.gl), source_(fns, p.width, p.height), pass_(fns, p, yuv_target::buffer, "glr_ring_create")
    {
    }

    void fill(const glr_source &source, GLuint buffer) override
    {
        read_buffer_guard guard(gl_);
        source_binding::texture_level texture = source_.texture_for_sampling(source, guard);
        gl_.BindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, buffer);
        pass_.dispatch(texture);
        // Shader writes reach a mapped buffer (persistent) or a later map (per frame) only
        // after this barrier; the fence that follows then covers them.
        gl_.MemoryBarrier(GL_CLIENT_MAPPED_BUFFER_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT);
        check_errors(gl_, "glr_ring_capture: converting the frame on the GPU");
    }

    void delete_gl_objects() override
    {
        source_.delete_gl_objects();
        pass_.delete_gl_objects();
    }

    const char *name() const override { return "gpu-convert"; }
    state_set touched_state() const override { return scope::convert; }

private:
    const GladGLContext &gl_;
    source_binding source_;
    yuv_pass pass_;
};

} // namespace

std::unique_ptr<slot_filler> make_convert_filler(const functions &fns, const fill_params &params)
{
    return std::make_unique<convert_filler>(fns, params);
}

} // namespace glr::gl
