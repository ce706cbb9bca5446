#include "scene/shader_scene.hpp"

#include "format.hpp"
#include "ring/ring.hpp"

#include "ring/readback_state.hpp"
#include "context/shader.hpp"
#include "context/state_scope.hpp"
#include "scene/shadertoy_source.hpp"

#include "enum_value.hpp"
#include "error.hpp"
#include "log.hpp"
#include "text_file.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <vector>

namespace {

const char *builtin_source = R"(void mainImage(out vec4 colour, in vec2 fragCoord) {
    vec2 uv = (fragCoord - 0.5 * iResolution.xy) / iResolution.y;
    float plasma = sin(uv.x * 6.0 + iTime) + sin(uv.y * 7.0 - iTime * 1.3) +
                   sin(length(uv * 9.0) - iTime * 2.0);
    vec3 c = 0.5 + 0.5 * cos(plasma + vec3(0.0, 2.1, 4.2));
    // Rings that travel outwards, and a clock hand, so motion is easy to see.
    float r = length(uv);
    c *= 0.75 + 0.25 * smoothstep(0.0, 0.02, abs(fract(r * 4.0 - iTime * 0.5) - 0.5) - 0.02);
    vec2 hand = vec2(sin(iTime), cos(iTime));
    float d = length(uv - hand * clamp(dot(uv, hand), 0.0, 0.45));
    c = mix(vec3(1.0), c, smoothstep(0.008, 0.014, d));
    colour = vec4(c, 1.0);
}
)";

const char *fullscreen_vertex_source = R"(#version 330 core
void main() {
    // Vertices (-1,-1), (3,-1), (-1,3): one triangle covering the whole viewport.
    vec2 p = vec2(float((gl_VertexID << 1) & 2), float(gl_VertexID & 2));
    gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);
})";

const char *pass_titles[GLR_SCENE_BUFFERS + 1] = {"Buffer A", "Buffer B", "Buffer C", "Buffer D", "Image"};

std::string read_source(const char *path, const std::string &what, size_t limit)
{
    return glr::read_text_file(path, what, limit, "glreader-export --max-shader-size, or glr_scene_params.max_source_bytes,");
}

} // namespace

struct glr_scene::pass {
    std::string title; // "Buffer A", "Image"
    GLuint program = 0;
    GLint resolution = -1, time = -1, delta = -1, frame_rate = -1, frame = -1, channel_time = -1,
          channel_resolution = -1, mouse = -1, date = -1, sample_rate = -1;
    std::array<std::unique_ptr<glr::gl::scene_channel>, GLR_SCENE_CHANNELS> channels;
    // Buffers only: two targets, written in turn; `latest` holds the last frame rendered.
    std::array<GLuint, 2> targets{}, fbos{};
    int latest = 0;
    bool mipmapped = false; // a reader samples it with mipmaps: build them after each render
};

glr_scene::glr_scene(const glr_log *log, const glr_scene_params &p)
    : log_(log), width_(p.width), height_(p.height),
      buffer_format_(glr::enum_value(p.buffer_precision) == GLR_BUFFER_FLOAT16 ? GL_RGBA16F : GL_RGBA32F),
      max_source_(p.max_source_bytes ? p.max_source_bytes : GLR_SCENE_DEFAULT_MAX_SOURCE),
      alpha_(static_cast<glr_alpha>(glr::enum_value(p.alpha)))
{
    if (p.width <= 0 || p.height <= 0)
        glr::fail(-EINVAL, "glr_scene_create: size %dx%d is not positive", p.width, p.height);
    if (alpha_ < GLR_ALPHA_OPAQUE || alpha_ > GLR_ALPHA_PREMULTIPLIED)
        glr::fail(-EINVAL, "glr_scene_create: unknown alpha %d (opaque 0, straight 1, premultiplied 2)", alpha_);
    int precision = glr::enum_value(p.buffer_precision);
    if (precision != GLR_BUFFER_FLOAT32 && precision != GLR_BUFFER_FLOAT16)
        glr::fail(-EINVAL, "glr_scene_create: unknown buffer precision %d", precision);
    int upload = glr::enum_value(p.upload);
    if (upload != GLR_UPLOAD_STAGED && upload != GLR_UPLOAD_DIRECT)
        glr::fail(-EINVAL, "glr_scene_create: unknown channel upload %d", upload);
    std::string common = p.common_source ? p.common_source
                         : p.common_path ? read_source(p.common_path, "Common section", max_source_)
                                         : "";
    std::string common_name = p.common_name ? p.common_name : p.common_path ? p.common_path : "Common";
    glr::gl::load(fns_, p.get_proc_address);
    get_proc_address_ = p.get_proc_address;
    staged_uploads_ = upload == GLR_UPLOAD_STAGED && glr::gl::unpack_ring::supported(fns_);
    if (upload == GLR_UPLOAD_STAGED && !staged_uploads_)
        log_->write(GLR_LOG_INFO,
                    "glr_scene_create: no persistently mapped buffers (OpenGL 4.4); channels upload straight from memory");
    glr::gl::state_scope scope(fns_, glr::gl::scope::draw | glr::gl::scope::upload | glr::gl::scope::objects, log_,
                               "glr_scene_create");
    GLint max_size = 0;
    gl_.GetIntegerv(GL_MAX_TEXTURE_SIZE, &max_size);
    if (p.width > max_size || p.height > max_size)
        glr::fail(-EINVAL, "glr_scene_create: size %dx%d is larger than this driver's limit %d", p.width, p.height,
                  max_size);
    try {
        for (int i = 0; i < GLR_SCENE_BUFFERS; i++) {
            const glr_scene_pass &b = p.buffers[i];
            if (b.source || b.source_path)
                build_pass(i, common, common_name, b.source, b.source_path, b.source_name, b.channels);
        }
        bool builtin = !p.source && !p.source_path;
        build_pass(GLR_SCENE_IMAGE_PASS, common, common_name, builtin ? builtin_source : p.source, p.source_path,
                   p.source_name ? p.source_name : builtin ? "built-in scene" : nullptr, p.channels);
        if (p.sound_source || p.sound_path)
            build_sound(common, common_name, p.sound_source, p.sound_path, p.sound_name);
        // Every buffer a channel reads must exist; readers asking for mipmaps get them.
        for (auto &reader : passes_)
            for (size_t i = 0; reader && i < reader->channels.size(); i++) {
                const glr::gl::scene_channel &c = *reader->channels[i];
                if (c.kind() != GLR_CHANNEL_BUFFER)
                    continue;
                if (!passes_[static_cast<size_t>(c.buffer())])
                    glr::fail(-EINVAL, "%s reads %s, which has no source", c.where().c_str(),
                              pass_titles[c.buffer()]);
                passes_[static_cast<size_t>(c.buffer())]->mipmapped |= c.wants_mipmaps();
            }
        for (int i = 0; i < GLR_SCENE_BUFFERS; i++)
            if (passes_[static_cast<size_t>(i)])
                create_buffer_targets(*passes_[static_cast<size_t>(i)]);

        gl_.GenVertexArrays(1, &vao_);
        gl_.GenTextures(1, &texture_);
        gl_.BindTexture(GL_TEXTURE_2D, texture_);
        gl_.TexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, width_, height_, 0, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
        gl_.GenFramebuffers(1, &fbo_);
        gl_.BindFramebuffer(GL_FRAMEBUFFER, fbo_);
        gl_.FramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, texture_, 0);
        GLenum status = gl_.CheckFramebufferStatus(GL_FRAMEBUFFER);
        if (status != GL_FRAMEBUFFER_COMPLETE)
            glr::fail(GLR_ERROR_GL, "glr_scene_create: the scene's framebuffer is incomplete (%s)",
                      glr::gl::framebuffer_status_name(status));
        glr::gl::check_errors(gl_, "glr_scene_create");
    } catch (...) {
        release();
        throw;
    }
}

glr_scene::~glr_scene() { release(); }

void glr_scene::release()
{
    for (auto &p : passes_) {
        if (!p)
            continue;
        gl_.DeleteFramebuffers(2, p->fbos.data());
        gl_.DeleteTextures(2, p->targets.data());
        gl_.DeleteProgram(p->program);
        p.reset();
    }
    gl_.DeleteFramebuffers(1, &fbo_);
    gl_.DeleteTextures(1, &texture_);
    if (sound_.ring)
        sound_.ring->destroy();
    gl_.DeleteProgram(sound_.program);
    gl_.DeleteFramebuffers(1, &sound_.fbo);
    gl_.DeleteTextures(1, &sound_.texture);
    sound_ = {};
    gl_.DeleteVertexArrays(1, &vao_);
    fbo_ = texture_ = vao_ = 0;
}

void glr_scene::build_pass(int index, const std::string &common, const std::string &common_name, const char *source,
                           const char *source_path, const char *source_name, const glr_channel *channels)
{
    auto made = std::make_unique<pass>();
    pass &p = *made;
    p.title = pass_titles[index];
    passes_[static_cast<size_t>(index)] = std::move(made); // release() frees what follows on failure
    for (size_t i = 0; i < p.channels.size(); i++)
        p.channels[i] =
            std::make_unique<glr::gl::scene_channel>(gl_, channels[i], p.title + " iChannel" + std::to_string(i),
                                                     staged_uploads_);
    glr::shadertoy::pass_source text;
    text.common = common;
    text.common_name = common_name;
    text.body = source ? source : read_source(source_path, p.title + " pass's shader", max_source_);
    text.body_name = source_name ? source_name : source_path ? source_path : p.title;
    text.image_pass = index == GLR_SCENE_IMAGE_PASS;
    text.alpha = alpha_;
    for (size_t i = 0; i < p.channels.size(); i++)
        text.cube_channels[i] = p.channels[i]->cube();
    // A pass is named by its title and, where it differs, its file.
    std::string label = text.body_name == p.title ? p.title : p.title + " pass (" + text.body_name + ")";

    p.program = build_program(glr::shadertoy::fragment_source(text), text, label);
    auto at = [&](const char *name) { return gl_.GetUniformLocation(p.program, name); };
    p.resolution = at("iResolution");
    p.time = at("iTime");
    p.delta = at("iTimeDelta");
    p.frame_rate = at("iFrameRate");
    p.frame = at("iFrame");
    p.channel_time = at("iChannelTime");
    p.channel_resolution = at("iChannelResolution");
    p.mouse = at("iMouse");
    p.date = at("iDate");
    p.sample_rate = at("iSampleRate");
    gl_.UseProgram(p.program);
    for (int i = 0; i < GLR_SCENE_CHANNELS; i++)
        gl_.Uniform1i(at(("iChannel" + std::to_string(i)).c_str()), i);
    gl_.UseProgram(0);
}

GLuint glr_scene::build_program(const std::string &fragment, const glr::shadertoy::pass_source &text,
                                const std::string &label)
{
    std::string log;
    GLuint vs = glr::gl::compile_shader(gl_, GL_VERTEX_SHADER, fullscreen_vertex_source, log);
    if (!vs)
        glr::fail(GLR_ERROR_SHADER, "glreader's vertex shader does not compile:\n%s", log.c_str());
    GLuint fs = glr::gl::compile_shader(gl_, GL_FRAGMENT_SHADER, fragment, log);
    if (!fs) {
        gl_.DeleteShader(vs);
        glr::fail(GLR_ERROR_SHADER, "%s does not compile:\n%s", label.c_str(),
                  glr::shadertoy::locate_errors(log, text).c_str());
    }
    GLuint program = glr::gl::link_program(gl_, {vs, fs}, log);
    if (!program)
        glr::fail(GLR_ERROR_SHADER, "%s does not link:\n%s", label.c_str(),
                  glr::shadertoy::locate_errors(log, text).c_str());
    return program;
}

void glr_scene::build_sound(const std::string &common, const std::string &common_name, const char *source,
                            const char *source_path, const char *source_name)
{
    glr::shadertoy::pass_source text;
    text.common = common;
    text.common_name = common_name;
    text.body = source ? source : read_source(source_path, "Sound pass's shader", max_source_);
    text.body_name = source_name ? source_name : source_path ? source_path : "Sound";
    std::string label = text.body_name == "Sound" ? "Sound" : "Sound pass (" + text.body_name + ")";
    sound_.program = build_program(glr::shadertoy::sound_source(text), text, label);
    auto at = [&](const char *name) { return gl_.GetUniformLocation(sound_.program, name); };
    sound_.first_sample = at("glr_first_sample");
    sound_.first_time = at("glr_first_time");
    sound_.block_width = at("glr_block_width");
    sound_.sample_rate = at("iSampleRate");
    gl_.GenTextures(1, &sound_.texture);
    gl_.BindTexture(GL_TEXTURE_2D, sound_.texture);
    gl_.TexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, sound_block, sound_block, 0, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
    gl_.GenFramebuffers(1, &sound_.fbo);
    gl_.BindFramebuffer(GL_FRAMEBUFFER, sound_.fbo);
    gl_.FramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, sound_.texture, 0);
}

void glr_scene::render_sound(int sample_rate, long long first_sample, int count, int16_t *stereo)
{
    glr::gl::require_current(fns_, "glr_scene_render_sound");
    if (!sound_.program)
        glr::fail(-EINVAL, "glr_scene_render_sound: the scene has no Sound pass");
    if (sample_rate <= 0 || first_sample < 0 || count < 0 || first_sample + count > INT32_MAX || (count && !stereo))
        glr::fail(-EINVAL, "glr_scene_render_sound: %d samples from %lld at %d Hz (or no buffer) cannot be rendered",
                  count, first_sample, sample_rate);
    if (!sound_.ring) {
        glr_ring_params rp{};
        rp.width = rp.height = sound_block;
        rp.format = GLR_FORMAT_RGBA8;
        rp.flip = GLR_FLIP_NONE; // GL's row 0 first: sample order
        rp.get_proc_address = get_proc_address_;
        sound_.ring = new glr_ring(log_, rp);
    }
    glr::gl::state_scope scope(fns_, glr::gl::scope::draw, log_, "glr_scene_render_sound");
    gl_.UseProgram(sound_.program);
    gl_.Uniform1i(sound_.block_width, sound_block);
    gl_.Uniform1f(sound_.sample_rate, static_cast<float>(sample_rate));
    gl_.BindVertexArray(vao_);
    for (int unit = 0; unit < GLR_SCENE_CHANNELS; unit++) { // the Sound pass reads no channels
        gl_.ActiveTexture(GL_TEXTURE0 + unit);
        gl_.BindTexture(GL_TEXTURE_2D, 0);
        gl_.BindTexture(GL_TEXTURE_CUBE_MAP, 0);
    }
    const long long end = first_sample + count;
    // The oldest block read back (waiting up to timeout_ns), its samples in the range
    // decoded into `stereo`; false when none was ready.
    auto take_block = [&](uint64_t timeout_ns) {
        glr_frame f{};
        int rc = sound_.ring->acquire(f, timeout_ns);
        if (rc == -EAGAIN || rc == -ENODATA)
            return false;
        if (rc < 0)
            glr::fail(rc, "glr_scene_render_sound: reading a block of samples back failed");
        const glr_plane &plane = f.planes[0];
        const long long from = std::max<long long>(first_sample, f.pts);
        const long long to = std::min<long long>(end, f.pts + block_samples);
        for (long long i = from; i < to; i++) {
            long long local = i - f.pts;
            const uint8_t *px = plane.data + local / sound_block * plane.stride + local % sound_block * 4;
            stereo[2 * (i - first_sample)] = static_cast<int16_t>(px[0] + 256 * px[1] - 32768);
            stereo[2 * (i - first_sample) + 1] = static_cast<int16_t>(px[2] + 256 * px[3] - 32768);
        }
        sound_.ring->release(f);
        return true;
    };
    // Blocks start at multiples of a block on the whole track, whatever sample is asked for
    // first: a sample's time (the block's, plus its place in it, in float as on Shadertoy)
    // and so its value are the same from any start. A block draws while the one before it
    // is read back.
    const glr_source source{GLR_SOURCE_FRAMEBUFFER, sound_.fbo, 0, 0, 0};
    for (long long start = first_sample / block_samples * block_samples; start < end; start += block_samples) {
        gl_.Uniform1i(sound_.first_sample, static_cast<GLint>(start));
        gl_.Uniform1f(sound_.first_time, static_cast<float>(static_cast<double>(start) / sample_rate));
        gl_.BindFramebuffer(GL_FRAMEBUFFER, sound_.fbo);
        glr::gl::set_viewport(fns_, sound_block, sound_block);
        gl_.DrawArrays(GL_TRIANGLES, 0, 3);
        int rc;
        while ((rc = sound_.ring->capture(source, start)) == -EBUSY)
            take_block(UINT64_MAX);
        if (rc < 0)
            glr::fail(rc, "glr_scene_render_sound: reading a block of samples back failed");
        while (take_block(0)) {
        }
    }
    while (take_block(UINT64_MAX)) {
    }
    glr::gl::check_errors(gl_, "glr_scene_render_sound");
}

void glr_scene::create_buffer_targets(pass &p)
{
    gl_.GenTextures(2, p.targets.data());
    gl_.GenFramebuffers(2, p.fbos.data());
    const float zero[4] = {0, 0, 0, 0};
    for (size_t i = 0; i < 2; i++) {
        gl_.BindTexture(GL_TEXTURE_2D, p.targets[i]);
        gl_.TexImage2D(GL_TEXTURE_2D, 0, static_cast<GLint>(buffer_format_), width_, height_, 0, GL_RGBA, GL_FLOAT,
                       nullptr);
        if (!p.mipmapped)
            gl_.TexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAX_LEVEL, 0);
        gl_.BindFramebuffer(GL_FRAMEBUFFER, p.fbos[i]);
        gl_.FramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, p.targets[i], 0);
        GLenum status = gl_.CheckFramebufferStatus(GL_FRAMEBUFFER);
        if (status != GL_FRAMEBUFFER_COMPLETE)
            glr::fail(GLR_ERROR_GL, "glr_scene_create: %s's float target is incomplete (%s)", p.title.c_str(),
                      glr::gl::framebuffer_status_name(status));
        gl_.ClearBufferfv(GL_COLOR, 0, zero); // a buffer's "previous frame" before the first
        if (p.mipmapped)
            gl_.GenerateMipmap(GL_TEXTURE_2D);
    }
}

void glr_scene::draw_pass(pass &p, GLuint target_fbo, const glr_scene_inputs &in)
{
    gl_.BindFramebuffer(GL_FRAMEBUFFER, target_fbo);
    glr::gl::set_viewport(fns_, width_, height_);
    gl_.UseProgram(p.program);
    std::array<float, 3 * GLR_SCENE_CHANNELS> resolutions{};
    std::array<float, GLR_SCENE_CHANNELS> times{};
    for (size_t i = 0; i < p.channels.size(); i++) {
        const glr::gl::scene_channel &c = *p.channels[i];
        GLuint buffer_texture = 0;
        if (c.kind() == GLR_CHANNEL_BUFFER) {
            const pass &source = *passes_[static_cast<size_t>(c.buffer())];
            buffer_texture = source.targets[static_cast<size_t>(source.latest)];
        }
        glr::gl::scene_channel::shape r = c.bind(static_cast<int>(i), buffer_texture, width_, height_);
        resolutions[i * 3] = r.width;
        resolutions[i * 3 + 1] = r.height;
        resolutions[i * 3 + 2] = 1.0f;
        times[i] = r.time;
    }
    double frame_rate = in.frame_rate > 0 ? in.frame_rate : in.time_delta > 0 ? 1.0 / in.time_delta : 0.0;
    gl_.Uniform3f(p.resolution, static_cast<float>(width_), static_cast<float>(height_), 1.0f);
    gl_.Uniform1f(p.time, static_cast<float>(in.time));
    gl_.Uniform1f(p.delta, static_cast<float>(in.time_delta));
    gl_.Uniform1f(p.frame_rate, static_cast<float>(frame_rate));
    gl_.Uniform1i(p.frame, in.frame);
    gl_.Uniform1fv(p.channel_time, GLR_SCENE_CHANNELS, times.data());
    gl_.Uniform3fv(p.channel_resolution, GLR_SCENE_CHANNELS, resolutions.data());
    gl_.Uniform4fv(p.mouse, 1, in.mouse);
    gl_.Uniform4fv(p.date, 1, in.date);
    gl_.Uniform1f(p.sample_rate, in.sample_rate > 0 ? in.sample_rate : static_cast<float>(default_sample_rate));
    gl_.BindVertexArray(vao_);
    gl_.DrawArrays(GL_TRIANGLES, 0, 3);
}

void glr_scene::render(const glr_scene_inputs &inputs)
{
    glr::gl::require_current(fns_, "glr_scene_render");
    glr::gl::state_scope scope(fns_, glr::gl::scope::draw, log_, "glr_scene_render");
    for (int i = 0; i < GLR_SCENE_BUFFERS; i++) {
        pass *p = passes_[static_cast<size_t>(i)].get();
        if (!p)
            continue;
        int write = 1 - p->latest;
        draw_pass(*p, p->fbos[static_cast<size_t>(write)], inputs);
        p->latest = write;
        if (p->mipmapped) {
            gl_.ActiveTexture(GL_TEXTURE0);
            gl_.BindTexture(GL_TEXTURE_2D, p->targets[static_cast<size_t>(write)]);
            gl_.GenerateMipmap(GL_TEXTURE_2D);
        }
    }
    draw_pass(*passes_[GLR_SCENE_IMAGE_PASS], fbo_, inputs);
}

glr::gl::scene_channel &glr_scene::channel_of(int pass_index, int channel, const char *call)
{
    if (pass_index < 0 || pass_index > GLR_SCENE_IMAGE_PASS)
        glr::fail(-EINVAL, "%s: pass %d is not one of Buffer A..D (0..3) or Image (%d)", call, pass_index,
                  GLR_SCENE_IMAGE_PASS);
    if (!passes_[static_cast<size_t>(pass_index)])
        glr::fail(-EINVAL, "%s: %s has no source", call, pass_titles[pass_index]);
    if (channel < 0 || channel >= GLR_SCENE_CHANNELS)
        glr::fail(-EINVAL, "%s: channel %d is not one of iChannel0..3", call, channel);
    return *passes_[static_cast<size_t>(pass_index)]->channels[static_cast<size_t>(channel)];
}

void glr_scene::set_channel_image(int pass_index, int channel, const glr_image &image)
{
    glr::gl::require_current(fns_, "glr_scene_set_channel_image");
    glr::gl::state_scope scope(fns_, image.yuv_format ? glr::gl::scope::converted_upload : glr::gl::scope::upload, log_,
                               "glr_scene_set_channel_image");
    channel_of(pass_index, channel, "glr_scene_set_channel_image").upload(image);
}

void glr_scene::set_channel_cubemap(int pass_index, int channel, const glr_image faces[6])
{
    glr::gl::require_current(fns_, "glr_scene_set_channel_cubemap");
    glr::gl::state_scope scope(fns_, glr::gl::scope::upload, log_, "glr_scene_set_channel_cubemap");
    channel_of(pass_index, channel, "glr_scene_set_channel_cubemap").upload_cube(faces);
}

void glr_scene::read_pixels(int format, uint8_t *data, ptrdiff_t stride)
{
    glr::gl::require_current(fns_, "glr_scene_read_pixels");
    const glr_format_info &info = glr::format_info(format, "glr_scene_read_pixels");
    if (info.yuv)
        glr::fail(-EINVAL, "glr_scene_read_pixels: reads RGB formats only; %s frames come from a ring", info.name);
    int bytes = info.samples_per_pixel[0];
    if (!data)
        glr::fail(-EINVAL, "glr_scene_read_pixels: data is NULL");
    if (stride < static_cast<ptrdiff_t>(width_) * bytes || stride % bytes != 0)
        glr::fail(-EINVAL, "glr_scene_read_pixels: stride %td is not a whole number of pixels of at least a row "
                  "(%d bytes)", stride, width_ * bytes);
    glr::gl::state_scope scope(fns_, glr::gl::scope::readback, log_, "glr_scene_read_pixels");
    gl_.BindFramebuffer(GL_READ_FRAMEBUFFER, fbo_);
    gl_.BindBuffer(GL_PIXEL_PACK_BUFFER, 0); // into client memory
    gl_.PixelStorei(GL_PACK_ALIGNMENT, 1);
    gl_.PixelStorei(GL_PACK_ROW_LENGTH, static_cast<GLint>(stride / bytes));
    gl_.ReadPixels(0, 0, width_, height_, glr::gl::pack_format_of(format),
                   GL_UNSIGNED_BYTE, data);
    glr::gl::check_errors(gl_, "glr_scene_read_pixels: glReadPixels");
}

const char *glr_scene::builtin_source_text() { return builtin_source; }
