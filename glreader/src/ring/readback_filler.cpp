// RGB formats: the frame as GL has it, through glReadPixels into the slot's buffer.
#include "ring/pack_buffers.hpp"
#include "ring/readback_state.hpp"
#include "ring/slot_filler.hpp"

namespace glr::gl {
namespace {

class readback_filler final : public slot_filler {
public:
    readback_filler(const functions &fns, const fill_params &p)
        : gl_(fns.gl), params_(p), source_(fns, p.width, p.height), pack_format_(pack_format_of(p.format->format))
    {
    }

    void fill(const glr_source &source, GLuint buffer) override
    {
        read_buffer_guard guard(gl_);
        GLuint fbo = source_.bind_for_read(source, guard);
        const GLint w = params_.width, h = params_.height;
        if (params_.flip == GLR_FLIP_GPU) {
            // Blitting to a rectangle with swapped Y bounds mirrors the rows on the GPU, so
            // memory receives the top row first.
            GLuint flipped = source_.internal_framebuffer(flip_fbo_, flip_rb_);
            gl_.BindFramebuffer(GL_DRAW_FRAMEBUFFER, flipped);
            gl_.BlitFramebuffer(0, 0, w, h, 0, h, w, 0, GL_COLOR_BUFFER_BIT, GL_NEAREST);
            check_errors(gl_, "glr_ring_capture: flipping the frame on the GPU");
            fbo = flipped;
            gl_.BindFramebuffer(GL_READ_FRAMEBUFFER, fbo);
        }
        gl_.BindBuffer(GL_PIXEL_PACK_BUFFER, buffer);
        // Rows packed tightly whatever the width: with alignment 1 an RGB row of w*3 bytes
        // is not padded to 4 (RGBA rows are multiples of 4 anyway). The scope set the
        // other pack parameters to GL's defaults.
        gl_.PixelStorei(GL_PACK_ALIGNMENT, 1);
        gl_.ReadPixels(0, 0, w, h, pack_format_, GL_UNSIGNED_BYTE, nullptr);
        check_errors(gl_, "glr_ring_capture: glReadPixels into the ring's pixel buffer");
    }

    void delete_gl_objects() override
    {
        source_.delete_gl_objects();
        if (gl_.DeleteFramebuffers) {
            gl_.DeleteFramebuffers(1, &flip_fbo_);
            gl_.DeleteRenderbuffers(1, &flip_rb_);
        }
        flip_fbo_ = flip_rb_ = 0;
    }

    const char *name() const override { return "readback"; }
    state_set touched_state() const override { return scope::readback; }

private:
    const GladGLContext &gl_;
    fill_params params_;
    source_binding source_;
    GLenum pack_format_;
    GLuint flip_fbo_ = 0, flip_rb_ = 0;
};

} // namespace

std::unique_ptr<slot_filler> make_readback_filler(const functions &fns, const fill_params &params)
{
    return std::make_unique<readback_filler>(fns, params);
}

} // namespace glr::gl
