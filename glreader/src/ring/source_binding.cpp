#include "ring/source_binding.hpp"

#include "enum_value.hpp"
#include "error.hpp"

#include <cerrno>

using glr::fail;
using glr::format;

namespace glr::gl {

GLuint source_binding::internal_framebuffer(GLuint &fbo, GLuint &renderbuffer)
{
    if (fbo != 0)
        return fbo;
    gl_.GenRenderbuffers(1, &renderbuffer);
    gl_.BindRenderbuffer(GL_RENDERBUFFER, renderbuffer);
    gl_.RenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, width_, height_);
    gl_.GenFramebuffers(1, &fbo);
    gl_.BindFramebuffer(GL_DRAW_FRAMEBUFFER, fbo);
    gl_.FramebufferRenderbuffer(GL_DRAW_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, renderbuffer);
    check_errors(gl_, "creating the ring's internal framebuffer");
    return fbo;
}

void source_binding::delete_gl_objects()
{
    GLuint fbos[] = {texture_fbo_, resolve_fbo_, copy_fbo_};
    if (gl_.DeleteFramebuffers) {
        gl_.DeleteFramebuffers(3, fbos);
        gl_.DeleteRenderbuffers(1, &resolve_rb_);
        gl_.DeleteTextures(1, &copy_texture_);
    }
    texture_fbo_ = resolve_fbo_ = resolve_rb_ = copy_fbo_ = copy_texture_ = 0;
}

GLuint source_binding::bind_unresolved(const glr_source &source, read_buffer_guard &guard)
{
    int kind = enum_value(source.kind);
    if (kind != GLR_SOURCE_FRAMEBUFFER && kind != GLR_SOURCE_TEXTURE)
        fail(-EINVAL, "glr_ring_capture: unknown source kind %d", kind);
    GLuint fbo = source.name;
    if (source.kind == GLR_SOURCE_TEXTURE) {
        GLenum target = source.target ? source.target : GL_TEXTURE_2D;
        if (target != GL_TEXTURE_2D && target != GL_TEXTURE_2D_MULTISAMPLE)
            fail(-EINVAL,
                 "glr_ring_capture: texture target 0x%x is not supported (use GL_TEXTURE_2D or "
                 "GL_TEXTURE_2D_MULTISAMPLE)",
                 target);
        if (source.name == 0 || !gl_.IsTexture(source.name))
            fail(-EINVAL, "glr_ring_capture: %u is not a texture name in this context", source.name);
        if (texture_fbo_ == 0)
            gl_.GenFramebuffers(1, &texture_fbo_);
        gl_.BindFramebuffer(GL_READ_FRAMEBUFFER, texture_fbo_);
        gl_.FramebufferTexture2D(GL_READ_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, target, source.name,
                                 target == GL_TEXTURE_2D_MULTISAMPLE ? 0 : source.level);
        check_errors(gl_, format("glr_ring_capture: attaching texture %u (target 0x%x)", source.name, target).c_str());
        fbo = texture_fbo_;
    } else {
        if (source.name != 0 && !gl_.IsFramebuffer(source.name))
            fail(-EINVAL, "glr_ring_capture: %u is not a framebuffer name in this context", source.name);
        gl_.BindFramebuffer(GL_READ_FRAMEBUFFER, source.name);
        if (source.name != 0) {
            GLint max_attachments = 0;
            gl_.GetIntegerv(GL_MAX_COLOR_ATTACHMENTS, &max_attachments);
            if (source.attachment >= static_cast<unsigned>(max_attachments))
                fail(-EINVAL, "glr_ring_capture: colour attachment %u is out of range (this driver has %d)",
                     source.attachment, max_attachments);
            GLint type = GL_NONE;
            gl_.GetFramebufferAttachmentParameteriv(GL_READ_FRAMEBUFFER, GL_COLOR_ATTACHMENT0 + source.attachment,
                                                    GL_FRAMEBUFFER_ATTACHMENT_OBJECT_TYPE, &type);
            if (type == GL_NONE)
                fail(-EINVAL, "glr_ring_capture: colour attachment %u of framebuffer %u has nothing attached",
                     source.attachment, source.name);
            GLint saved_read_buffer = 0;
            gl_.GetIntegerv(GL_READ_BUFFER, &saved_read_buffer);
            guard.changed_read_buffer(source.name, saved_read_buffer);
            gl_.ReadBuffer(GL_COLOR_ATTACHMENT0 + source.attachment);
        }
    }
    GLenum status = gl_.CheckFramebufferStatus(GL_READ_FRAMEBUFFER);
    if (status != GL_FRAMEBUFFER_COMPLETE) {
        if (fbo == 0)
            fail(-EINVAL,
                 "glr_ring_capture: the default framebuffer cannot be read (%s); a headless "
                 "context has none: render into a framebuffer object",
                 framebuffer_status_name(status));
        fail(-EINVAL, "glr_ring_capture: the source framebuffer is incomplete (%s)", framebuffer_status_name(status));
    }
    check_size(source, fbo);
    return fbo;
}

void source_binding::check_size(const glr_source &source, GLuint fbo)
{
    // Sizes are only cheap to query without rebinding through direct state access (4.5).
    if (fbo == 0 || !gl_.GetTextureLevelParameteriv || !gl_.GetNamedRenderbufferParameteriv)
        return;
    GLenum attachment = GL_COLOR_ATTACHMENT0 + (fbo == texture_fbo_ ? 0 : source.attachment);
    GLint type = 0, name = 0, level = 0, width = 0, height = 0;
    gl_.GetFramebufferAttachmentParameteriv(GL_READ_FRAMEBUFFER, attachment, GL_FRAMEBUFFER_ATTACHMENT_OBJECT_TYPE, &type);
    gl_.GetFramebufferAttachmentParameteriv(GL_READ_FRAMEBUFFER, attachment, GL_FRAMEBUFFER_ATTACHMENT_OBJECT_NAME, &name);
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
    if (width < width_ || height < height_)
        fail(-EINVAL, "glr_ring_capture: the source %s %u is %dx%d, smaller than the ring's %dx%d",
             source.kind == GLR_SOURCE_TEXTURE ? "texture" : "framebuffer", source.name, width, height, width_,
             height_);
}

bool source_binding::multisampled(const glr_source &source, GLuint fbo)
{
    if (source.kind == GLR_SOURCE_TEXTURE)
        return source.target == GL_TEXTURE_2D_MULTISAMPLE;
    // GL_SAMPLE_BUFFERS describes the draw framebuffer: bind the source there to ask.
    GLint sample_buffers = 0;
    gl_.BindFramebuffer(GL_DRAW_FRAMEBUFFER, fbo);
    gl_.GetIntegerv(GL_SAMPLE_BUFFERS, &sample_buffers);
    return sample_buffers > 0;
}

GLuint source_binding::bind_for_read(const glr_source &source, read_buffer_guard &guard)
{
    GLuint fbo = bind_unresolved(source, guard);
    if (!multisampled(source, fbo))
        return fbo;
    // glReadPixels cannot read a multisampled buffer: resolve it with a blit.
    GLuint resolved = internal_framebuffer(resolve_fbo_, resolve_rb_);
    gl_.BindFramebuffer(GL_DRAW_FRAMEBUFFER, resolved);
    gl_.BlitFramebuffer(0, 0, width_, height_, 0, 0, width_, height_, GL_COLOR_BUFFER_BIT, GL_NEAREST);
    check_errors(gl_, "glr_ring_capture: resolving the multisampled source");
    gl_.BindFramebuffer(GL_READ_FRAMEBUFFER, resolved);
    return resolved;
}

source_binding::texture_level source_binding::texture_for_sampling(const glr_source &source, read_buffer_guard &guard)
{
    GLuint fbo = bind_unresolved(source, guard);
    bool resolve = multisampled(source, fbo);
    if (!resolve && fbo != 0) {
        // A plain 2D texture (given, or attached to the framebuffer) is sampled in place.
        GLenum attachment = GL_COLOR_ATTACHMENT0 + (fbo == texture_fbo_ ? 0 : source.attachment);
        GLint type = 0, name = 0, level = 0, layered = 0, target = 0;
        gl_.GetFramebufferAttachmentParameteriv(GL_READ_FRAMEBUFFER, attachment, GL_FRAMEBUFFER_ATTACHMENT_OBJECT_TYPE, &type);
        GLint encoding = GL_LINEAR;
        gl_.GetFramebufferAttachmentParameteriv(GL_READ_FRAMEBUFFER, attachment,
                                                GL_FRAMEBUFFER_ATTACHMENT_COLOR_ENCODING, &encoding);
        if (type == GL_TEXTURE && encoding != GL_SRGB && texture_targets_known_) {
            gl_.GetFramebufferAttachmentParameteriv(GL_READ_FRAMEBUFFER, attachment, GL_FRAMEBUFFER_ATTACHMENT_OBJECT_NAME, &name);
            gl_.GetFramebufferAttachmentParameteriv(GL_READ_FRAMEBUFFER, attachment, GL_FRAMEBUFFER_ATTACHMENT_TEXTURE_LEVEL, &level);
            gl_.GetFramebufferAttachmentParameteriv(GL_READ_FRAMEBUFFER, attachment, GL_FRAMEBUFFER_ATTACHMENT_LAYERED, &layered);
            gl_.GetTextureParameteriv(static_cast<GLuint>(name), GL_TEXTURE_TARGET, &target);
            if (target == GL_TEXTURE_2D && !layered)
                return {static_cast<GLuint>(name), level};
        }
    }
    // Anything else is copied into a texture of our own; the blit resolves multisampling.
    if (copy_fbo_ == 0) {
        gl_.GenTextures(1, &copy_texture_);
        gl_.BindTexture(GL_TEXTURE_2D, copy_texture_);
        gl_.TexStorage2D(GL_TEXTURE_2D, 1, GL_RGBA8, width_, height_);
        gl_.GenFramebuffers(1, &copy_fbo_);
        gl_.BindFramebuffer(GL_DRAW_FRAMEBUFFER, copy_fbo_);
        gl_.FramebufferTexture2D(GL_DRAW_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, copy_texture_, 0);
        check_errors(gl_, "creating the ring's conversion source texture");
    }
    gl_.BindFramebuffer(GL_DRAW_FRAMEBUFFER, copy_fbo_);
    gl_.BlitFramebuffer(0, 0, width_, height_, 0, 0, width_, height_, GL_COLOR_BUFFER_BIT, GL_NEAREST);
    check_errors(gl_, "glr_ring_capture: copying the source into a texture to convert");
    return {copy_texture_, 0};
}

} // namespace glr::gl
