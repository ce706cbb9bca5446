#include "ring/converter.hpp"

#include "context/state_scope.hpp"
#include "enum_value.hpp"
#include "error.hpp"
#include "ring/readback_state.hpp"

#include <algorithm>
#include <cerrno>

using glr::fail;

namespace {

constexpr const char *create_call = "glr_converter_create";

glr_converter_params validated(const glr_converter_params &p)
{
    if (p.width <= 0 || p.height <= 0)
        fail(-EINVAL, "%s: invalid size %dx%d: width and height must be at least 1", create_call, p.width, p.height);
    const glr_format_info &f = glr::format_info(glr::enum_value(p.format), create_call);
    if (!f.yuv)
        fail(-EINVAL, "%s: %s is not a YUV format: the converter writes Y'CbCr planes (read RGB back with a ring)",
             create_call, f.name);
    glr::check_frame_size(f, p.width, p.height, create_call);
    int flip = glr::enum_value(p.flip);
    if (flip < GLR_FLIP_STRIDE || flip > GLR_FLIP_NONE)
        fail(-EINVAL, "%s: unknown flip mode %d", create_call, flip);
    return p;
}

} // namespace

glr_converter::glr_converter(const glr_log *log, const glr_converter_params &params)
    : log_(log), params_(validated(params)), format_(glr::format_info(params_.format, create_call)),
      color_(glr::resolved_color(format_, params_.color, create_call))
{
    glr::gl::load(fns_, params_.get_proc_address);
    glr::gl::require_current(fns_, create_call);
    glr::gl::state_scope scope(fns_, glr::gl::scope::objects, log_, create_call);
    GLint max_size = 0;
    fns_.gl.GetIntegerv(GL_MAX_TEXTURE_SIZE, &max_size);
    if (params_.width > max_size || params_.height > max_size)
        fail(-EINVAL, "%s: size %dx%d exceeds this driver's limit of %d pixels per side (GL_MAX_TEXTURE_SIZE)",
             create_call, params_.width, params_.height, max_size);
    glr::gl::fill_params fill{&format_, glr::layout_of(format_, params_.width, params_.height), color_,
                              params_.flip, params_.width, params_.height};
    source_ = std::make_unique<glr::gl::source_binding>(fns_, params_.width, params_.height);
    pass_ = std::make_unique<glr::gl::yuv_pass>(fns_, fill, glr::gl::yuv_target::textures, create_call);
}

void glr_converter::destroy()
{
    glr::gl::state_scope scope(fns_, glr::gl::scope::objects, log_, "glr_converter_destroy");
    source_->delete_gl_objects();
    pass_->delete_gl_objects();
}

glr_converter::plane_texture glr_converter::plane(int p) const
{
    const glr_format_info &f = format_;
    if (p < 0 || p >= f.planes)
        return {};
    bool pairs = f.samples_per_pixel[p] == 2, wide = f.bytes_per_sample == 2;
    plane_texture t;
    t.format = wide ? (pairs ? GL_RG16 : GL_R16) : (pairs ? GL_RG8 : GL_R8);
    t.view = wide ? (pairs ? GL_RG16UI : GL_R16UI) : (pairs ? GL_RG8UI : GL_R8UI);
    bool chroma = p == 1 || p == 2;
    t.width = chroma ? params_.width >> f.log2_chroma_w : params_.width;
    t.height = glr_format_plane_rows(f.format, p, params_.height);
    return t;
}

int glr_converter::convert(const glr_source &source, const unsigned textures[4])
{
    constexpr const char *call = "glr_converter_convert";
    glr::gl::require_current(fns_, call);
    const GladGLContext &gl = fns_.gl;
    glr::gl::state_scope scope(fns_, glr::gl::scope::convert_to_textures, log_, call);
    for (int p = 0; p < format_.planes; p++)
        if (std::find(checked_.begin(), checked_.end(), textures[p]) == checked_.end()) {
            check_texture(p, textures[p]);
            if (checked_.size() == max_checked)
                checked_.clear();
            checked_.push_back(textures[p]);
        }
    glr::gl::read_buffer_guard guard(gl);
    glr::gl::source_binding::texture_level texture = source_->texture_for_sampling(source, guard);
    for (int p = 0; p < format_.planes; p++)
        gl.BindImageTexture(static_cast<GLuint>(p), textures[p], 0, GL_FALSE, 0, GL_WRITE_ONLY, plane(p).view);
    pass_->dispatch(texture);
    // For GL's own readers of the textures; another API waits on a fence or a semaphore
    // GL signals after this, which follows the pass.
    gl.MemoryBarrier(GL_TEXTURE_FETCH_BARRIER_BIT | GL_SHADER_IMAGE_ACCESS_BARRIER_BIT | GL_TEXTURE_UPDATE_BARRIER_BIT |
                     GL_FRAMEBUFFER_BARRIER_BIT);
    glr::gl::check_errors(gl, "glr_converter_convert: converting the frame on the GPU");
    return 0;
}

void glr_converter::make_textures(unsigned textures[4])
{
    constexpr const char *call = "glr_converter_make_textures";
    glr::gl::require_current(fns_, call);
    const GladGLContext &gl = fns_.gl;
    glr::gl::state_scope scope(fns_, glr::gl::scope::objects, log_, call);
    unsigned made[4] = {};
    try {
        for (int p = 0; p < format_.planes; p++) {
            plane_texture t = plane(p);
            gl.GenTextures(1, &made[p]);
            gl.BindTexture(GL_TEXTURE_2D, made[p]);
            gl.TexStorage2D(GL_TEXTURE_2D, 1, t.format, t.width, t.height);
            glr::gl::check_errors(gl, "glr_converter_make_textures: making a plane's texture");
        }
    } catch (...) {
        delete_textures(made);
        throw;
    }
    std::copy(std::begin(made), std::end(made), textures);
}

void glr_converter::delete_textures(unsigned textures[4])
{
    glr::gl::require_current(fns_, "glr_converter_delete_textures");
    for (int p = 0; p < 4; p++)
        if (textures[p])
            fns_.gl.DeleteTextures(1, &textures[p]);
    std::fill(textures, textures + 4, 0u);
}

// A plane's texture: a 2D texture of its format, at least its size.
void glr_converter::check_texture(int p, unsigned texture) const
{
    const GladGLContext &gl = fns_.gl;
    plane_texture want = plane(p);
    if (!texture || !gl.IsTexture(texture))
        fail(-EINVAL, "glr_converter_convert: textures[%d] (%u) is no texture: plane %d of %s needs a %dx%d one", p,
             texture, p, format_.name, want.width, want.height);
    if (!gl.GetTextureLevelParameteriv) // without OpenGL 4.5's queries, GL's own errors tell
        return;
    GLint target = GL_TEXTURE_2D, format = 0, width = 0, height = 0;
    // Mesa's compatibility profiles refuse GL_TEXTURE_TARGET (as source_binding knows).
    if (!fns_.compatibility)
        gl.GetTextureParameteriv(texture, GL_TEXTURE_TARGET, &target);
    if (target == GL_TEXTURE_2D) {
        gl.GetTextureLevelParameteriv(texture, 0, GL_TEXTURE_INTERNAL_FORMAT, &format);
        gl.GetTextureLevelParameteriv(texture, 0, GL_TEXTURE_WIDTH, &width);
        gl.GetTextureLevelParameteriv(texture, 0, GL_TEXTURE_HEIGHT, &height);
    }
    if (target != GL_TEXTURE_2D || static_cast<GLenum>(format) != want.format)
        fail(-EINVAL,
             "glr_converter_convert: textures[%d] is not a 2D texture of internal format 0x%x, which plane %d of %s "
             "is (glr_converter_plane_format)",
             p, want.format, p, format_.name);
    if (width < want.width || height < want.height)
        fail(-EINVAL, "glr_converter_convert: textures[%d] is %dx%d, smaller than plane %d of a %dx%d %s frame (%dx%d)", p,
             width, height, p, params_.width, params_.height, format_.name, want.width, want.height);
}

GLsync glr_converter::fence()
{
    glr::gl::require_current(fns_, "glr_converter_fence");
    GLsync fence = fns_.gl.FenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
    if (!fence)
        fail(GLR_ERROR_GL, "glr_converter_fence: glFenceSync failed");
    fns_.gl.Flush(); // so that a wait on another context, or one without the flush bit, ends
    return fence;
}

int glr_converter::wait(GLsync fence, uint64_t timeout_ns)
{
    switch (fns_.gl.ClientWaitSync(fence, GL_SYNC_FLUSH_COMMANDS_BIT, timeout_ns)) {
    case GL_ALREADY_SIGNALED:
    case GL_CONDITION_SATISFIED: return 1;
    case GL_TIMEOUT_EXPIRED: return 0;
    default: fail(GLR_ERROR_GL, "glr_converter_fence_wait: glClientWaitSync failed (a lost context?)");
    }
}

void glr_converter::delete_fence(GLsync fence) { fns_.gl.DeleteSync(fence); }
