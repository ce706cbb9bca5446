#include "scene/scene_channel.hpp"

#include "enum_value.hpp"
#include "error.hpp"

#include <array>
#include <cerrno>
#include <utility>
#include <vector>

namespace glr::gl {

namespace {

const char *kind_name(glr_channel_kind kind)
{
    switch (kind) {
    case GLR_CHANNEL_TEXTURE: return "an image channel";
    case GLR_CHANNEL_CUBEMAP: return "a cube map channel";
    case GLR_CHANNEL_BUFFER: return "a buffer channel";
    case GLR_CHANNEL_KEYBOARD: return "the keyboard channel";
    default: return "an empty channel";
    }
}

// Uploads read client memory, rows packed tightly (the caller's state_scope restores the
// host's unpack state and buffer).
void unpack_from_memory(const GladGLContext &gl)
{
    gl.BindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    gl.PixelStorei(GL_UNPACK_ALIGNMENT, 1);
}

// The client-side format of an image's pixels: red only (the sound texture) or RGBA.
GLenum pixel_format(const glr_image &image) { return image.components == 1 ? GL_RED : GL_RGBA; }

} // namespace

scene_channel::scene_channel(const GladGLContext &gl, const glr_channel &spec, std::string where, bool staged)
    : gl_(gl), spec_(spec), where_(std::move(where)), staged_(staged)
{
    // Checked as ints: a C caller may store anything in these enums.
    int kind = enum_value(spec.kind), filter = enum_value(spec.filter), wrap = enum_value(spec.wrap),
        vflip = enum_value(spec.vflip);
    if (kind < GLR_CHANNEL_NONE || kind > GLR_CHANNEL_KEYBOARD)
        fail(-EINVAL, "%s: unknown channel kind %d", where_.c_str(), kind);
    if (kind == GLR_CHANNEL_BUFFER && (spec.buffer < 0 || spec.buffer >= GLR_SCENE_BUFFERS))
        fail(-EINVAL, "%s: buffer %d is not one of Buffer A..D (0..3)", where_.c_str(), spec.buffer);
    if (filter < GLR_FILTER_DEFAULT || filter > GLR_FILTER_MIPMAP)
        fail(-EINVAL, "%s: unknown filter %d", where_.c_str(), filter);
    if (wrap < GLR_WRAP_DEFAULT || wrap > GLR_WRAP_REPEAT)
        fail(-EINVAL, "%s: unknown wrap %d", where_.c_str(), wrap);
    if (vflip < GLR_VFLIP_DEFAULT || vflip > GLR_VFLIP_OFF)
        fail(-EINVAL, "%s: unknown vflip %d", where_.c_str(), vflip);

    // Shadertoy's defaults for the kind.
    bool picture = spec_.kind == GLR_CHANNEL_TEXTURE || spec_.kind == GLR_CHANNEL_CUBEMAP;
    if (spec_.filter == GLR_FILTER_DEFAULT)
        spec_.filter = picture ? GLR_FILTER_MIPMAP : spec_.kind == GLR_CHANNEL_BUFFER ? GLR_FILTER_LINEAR
                                                                                      : GLR_FILTER_NEAREST;
    if (spec_.wrap == GLR_WRAP_DEFAULT)
        spec_.wrap = picture ? GLR_WRAP_REPEAT : GLR_WRAP_CLAMP;
    if (spec_.vflip == GLR_VFLIP_DEFAULT)
        spec_.vflip = spec_.kind == GLR_CHANNEL_TEXTURE ? GLR_VFLIP_ON : GLR_VFLIP_OFF;

    gl_.GenSamplers(1, &sampler_);
    GLint min = spec_.filter == GLR_FILTER_NEAREST  ? GL_NEAREST
                : spec_.filter == GLR_FILTER_MIPMAP ? GL_LINEAR_MIPMAP_LINEAR
                                                    : GL_LINEAR;
    gl_.SamplerParameteri(sampler_, GL_TEXTURE_MIN_FILTER, min);
    gl_.SamplerParameteri(sampler_, GL_TEXTURE_MAG_FILTER, spec_.filter == GLR_FILTER_NEAREST ? GL_NEAREST : GL_LINEAR);
    GLint gl_wrap = spec_.wrap == GLR_WRAP_REPEAT ? GL_REPEAT : GL_CLAMP_TO_EDGE;
    for (GLenum axis : {GL_TEXTURE_WRAP_S, GL_TEXTURE_WRAP_T, GL_TEXTURE_WRAP_R})
        gl_.SamplerParameteri(sampler_, axis, gl_wrap);
    if (spec_.kind == GLR_CHANNEL_BUFFER)
        return;

    // Until the host uploads, a picture channel reads black, as an empty one always does;
    // the keyboard is Shadertoy's 256x3 texture with every key up.
    GLenum target = cube() ? GL_TEXTURE_CUBE_MAP : GL_TEXTURE_2D;
    for (texture &t : textures_) {
        gl_.GenTextures(1, &t.name);
        gl_.BindTexture(target, t.name);
        gl_.TexParameteri(target, GL_TEXTURE_MAX_LEVEL, wants_mipmaps() ? 1000 : 0);
    }
    gl_.BindTexture(target, textures_[0].name);
    std::vector<uint8_t> zeros(spec_.kind == GLR_CHANNEL_KEYBOARD ? 256 * 3 : 4, 0);
    glr_image blank{};
    bool keyboard = spec_.kind == GLR_CHANNEL_KEYBOARD;
    blank.width = keyboard ? 256 : 1;
    blank.height = keyboard ? 3 : 1;
    blank.components = keyboard ? 1 : 4;
    blank.data = zeros.data();
    blank.stride = keyboard ? 256 : 4;
    unpack_from_memory(gl_);
    for (int face = 0; face < (cube() ? 6 : 1); face++) {
        GLenum face_target = cube() ? GL_TEXTURE_CUBE_MAP_POSITIVE_X + static_cast<GLenum>(face) : GL_TEXTURE_2D;
        allocate(face_target, blank);
        store_direct(face_target, blank);
    }
    textures_[0].width = blank.width;
    textures_[0].height = blank.height;
    textures_[0].components = blank.components;
    if (spec_.kind == GLR_CHANNEL_KEYBOARD) {
        width_ = 256;
        height_ = 3;
    } else {
        width_ = height_ = 0; // iChannelResolution stays 0 until an upload
    }
}

scene_channel::~scene_channel()
{
    for (texture &t : textures_)
        gl_.DeleteTextures(1, &t.name);
    gl_.DeleteSamplers(1, &sampler_);
}

void scene_channel::check_image(const glr_image &image, const char *what) const
{
    if (!image.data)
        fail(-EINVAL, "%s: %s has no pixels (data is NULL)", where_.c_str(), what);
    if (image.width <= 0 || image.height <= 0)
        fail(-EINVAL, "%s: %s is %dx%d", where_.c_str(), what, image.width, image.height);
    if (image.components != 1 && image.components != 4)
        fail(-EINVAL, "%s: %s has %d components; 1 (red) and 4 (RGBA) are taken", where_.c_str(), what,
             image.components);
    ptrdiff_t row = static_cast<ptrdiff_t>(image.width) * image.components;
    if ((image.stride < row && image.stride > -row) || image.stride % image.components != 0)
        fail(-EINVAL, "%s: %s's stride %td is not a whole number of pixels of at least a row (either sign)",
             where_.c_str(), what, image.stride);
    GLint max_size = 0;
    gl_.GetIntegerv(cube() ? GL_MAX_CUBE_MAP_TEXTURE_SIZE : GL_MAX_TEXTURE_SIZE, &max_size);
    if (image.width > max_size || image.height > max_size)
        fail(-EINVAL, "%s: %s is %dx%d, larger than this driver's limit %d", where_.c_str(), what, image.width,
             image.height, max_size);
}

void scene_channel::check_yuv_image(const glr_image &image) const
{
    const glr_format_info *f = glr_format_get_info(image.yuv_format);
    if (!f || !f->yuv || f->planes == 4) // a channel picture's alpha is not uploaded
        fail(-EINVAL, "%s: yuv_format %d is none of nv12, yuv420p, p010le, yuv444p", where_.c_str(),
             static_cast<int>(image.yuv_format));
    if (!image.data || !image.chroma[0] || (f->planes == 3 && !image.chroma[1]))
        fail(-EINVAL, "%s: the %s picture lacks a plane (NULL)", where_.c_str(), f->name);
    if (image.width <= 0 || image.height <= 0 || image.width % (1 << f->log2_chroma_w) ||
        image.height % (1 << f->log2_chroma_h))
        fail(-EINVAL, "%s: a %s picture of %dx%d (4:2:0 sizes are even)", where_.c_str(), f->name, image.width,
             image.height);
    const ptrdiff_t strides[3] = {image.stride, image.chroma_stride[0], image.chroma_stride[1]};
    for (int p = 0; p < f->planes; p++) {
        ptrdiff_t row = static_cast<ptrdiff_t>(glr_format_plane_row_bytes(image.yuv_format, p, image.width));
        if (strides[p] < row && strides[p] > -row)
            fail(-EINVAL, "%s: plane %d's stride %td is less than its row of %td bytes", where_.c_str(), p,
                 strides[p], row);
    }
    if (glr_color_resolve(image.yuv_format, &image.color, nullptr) < 0)
        fail(-EINVAL, "%s: %s", where_.c_str(), glr_last_error());
}

void scene_channel::store_converted(const glr_image &image)
{
    if (!converter_)
        converter_ = std::make_unique<yuv_to_rgb>(gl_, where_.c_str());
    if (!staging_)
        staging_ = std::make_unique<unpack_ring>(gl_);
    const glr_format_info &f = *glr_format_get_info(image.yuv_format);
    // Each plane as rows of bytes, staged as they are (the conversion turns the rows).
    glr_image planes[3]{};
    const uint8_t *data[3] = {image.data, image.chroma[0], image.chroma[1]};
    const ptrdiff_t strides[3] = {image.stride, image.chroma_stride[0], image.chroma_stride[1]};
    yuv_to_rgb::staged_planes staged{};
    for (int p = 0; p < f.planes; p++) {
        size_t row = glr_format_plane_row_bytes(image.yuv_format, p, image.width);
        planes[p].width = static_cast<int>(row);
        planes[p].height = glr_format_plane_rows(image.yuv_format, p, image.height);
        planes[p].components = 1;
        planes[p].data = data[p];
        planes[p].stride = strides[p];
        staged.pitch[p] = row;
    }
    size_t rgba_bytes = static_cast<size_t>(image.width) * 4 * static_cast<size_t>(image.height);
    size_t rgba_offset = staging_->stage(planes, f.planes, false, staged.offset, where_.c_str(), rgba_bytes);
    converter_->convert(staging_->staged_buffer(), image, staged, rgba_offset, spec_.vflip == GLR_VFLIP_ON);
    gl_.PixelStorei(GL_UNPACK_ROW_LENGTH, 0);
    gl_.TexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, image.width, image.height, GL_RGBA, GL_UNSIGNED_BYTE,
                      reinterpret_cast<const void *>(rgba_offset));
    staging_->fence();
}

void scene_channel::store_direct(GLenum target, const glr_image &image)
{
    GLenum format = pixel_format(image);
    ptrdiff_t stride = image.stride;
    gl_.PixelStorei(GL_UNPACK_ROW_LENGTH, static_cast<GLint>((stride < 0 ? -stride : stride) / image.components));
    // GL's row 0 is the bottom. vflip puts the image's top row last: one call reads the
    // rows in order when memory already runs that way (a negative stride walks up from the
    // image's last row), else they go one at a time.
    bool flip = spec_.vflip == GLR_VFLIP_ON;
    if (flip == (stride < 0)) {
        const uint8_t *first = flip ? image.data + static_cast<ptrdiff_t>(image.height - 1) * stride : image.data;
        gl_.TexSubImage2D(target, 0, 0, 0, image.width, image.height, format, GL_UNSIGNED_BYTE, first);
        return;
    }
    for (int row = 0; row < image.height; row++)
        gl_.TexSubImage2D(target, 0, 0, flip ? image.height - 1 - row : row, image.width, 1, format, GL_UNSIGNED_BYTE,
                          image.data + static_cast<ptrdiff_t>(row) * stride);
}

void scene_channel::allocate(GLenum target, const glr_image &image)
{
    bool red = image.components == 1 && !image.yuv_format;
    gl_.TexImage2D(target, 0, red ? GL_R8 : GL_RGBA8, image.width, image.height, 0, red ? GL_RED : GL_RGBA,
                   GL_UNSIGNED_BYTE, nullptr);
}

void scene_channel::fill_next_texture(const glr_image *images, int count, const char *what)
{
    GLenum target = cube() ? GL_TEXTURE_CUBE_MAP : GL_TEXTURE_2D;
    auto face_target = [&](int i) { return cube() ? GL_TEXTURE_CUBE_MAP_POSITIVE_X + static_cast<GLenum>(i) : target; };
    texture &next = textures_[(current_ + 1) % texture_count];
    const glr_image &first = images[0];
    int components = first.yuv_format ? 4 : first.components; // Y'CbCr is stored as RGBA
    bool reallocate = first.width != next.width || first.height != next.height || components != next.components;
    gl_.BindTexture(target, next.name);
    {
        unpack_from_memory(gl_); // no unpack buffer bound: allocating reads nothing
        for (int i = 0; reallocate && i < count; i++)
            allocate(face_target(i), images[i]);
        if (first.yuv_format) {
            store_converted(first);
        } else if (staged_) {
            if (!staging_)
                staging_ = std::make_unique<unpack_ring>(gl_);
            std::array<size_t, 6> offsets{};
            staging_->stage(images, count, spec_.vflip == GLR_VFLIP_ON, offsets.data(), where_.c_str());
            gl_.PixelStorei(GL_UNPACK_ROW_LENGTH, 0);
            for (int i = 0; i < count; i++)
                gl_.TexSubImage2D(face_target(i), 0, 0, 0, images[i].width, images[i].height, pixel_format(images[i]),
                                  GL_UNSIGNED_BYTE, reinterpret_cast<const void *>(offsets[static_cast<size_t>(i)]));
            staging_->fence();
        } else {
            for (int i = 0; i < count; i++)
                store_direct(face_target(i), images[i]);
        }
    }
    if (wants_mipmaps())
        gl_.GenerateMipmap(target);
    check_errors(gl_, (where_ + ": " + what).c_str());
    next.width = first.width;
    next.height = first.height;
    next.components = components;
    current_ = (current_ + 1) % texture_count;
    width_ = first.width;
    height_ = first.height;
    time_ = static_cast<float>(first.time);
}

void scene_channel::upload(const glr_image &image)
{
    if (spec_.kind != GLR_CHANNEL_TEXTURE)
        fail(-EINVAL, "%s is %s; only an image channel takes an image", where_.c_str(), kind_name(spec_.kind));
    if (image.yuv_format)
        check_yuv_image(image);
    else
        check_image(image, "the image");
    fill_next_texture(&image, 1, image.yuv_format ? "converting the Y'CbCr picture" : "uploading the image");
}

void scene_channel::upload_cube(const glr_image faces[6])
{
    if (spec_.kind != GLR_CHANNEL_CUBEMAP)
        fail(-EINVAL, "%s is %s; only a cube map channel takes six faces", where_.c_str(), kind_name(spec_.kind));
    if (!faces)
        fail(-EINVAL, "%s: faces is NULL", where_.c_str());
    static const char *names[6] = {"face +X", "face -X", "face +Y", "face -Y", "face +Z", "face -Z"};
    for (int face = 0; face < 6; face++) {
        check_image(faces[face], names[face]);
        if (faces[face].width != faces[face].height || faces[face].width != faces[0].width ||
            faces[face].components != faces[0].components)
            fail(-EINVAL, "%s: %s is %dx%d with %d components; a cube map's faces are squares all alike (%s: %dx%d, %d)",
                 where_.c_str(), names[face], faces[face].width, faces[face].height, faces[face].components, names[0],
                 faces[0].width, faces[0].height, faces[0].components);
    }
    fill_next_texture(faces, 6, "uploading the cube map");
}

scene_channel::shape scene_channel::bind(int unit, GLuint buffer_texture, int buffer_width,
                                              int buffer_height) const
{
    gl_.ActiveTexture(GL_TEXTURE0 + static_cast<GLenum>(unit));
    gl_.BindTexture(cube() ? GL_TEXTURE_CUBE_MAP : GL_TEXTURE_2D,
                    spec_.kind == GLR_CHANNEL_BUFFER ? buffer_texture : textures_[current_].name);
    gl_.BindSampler(static_cast<GLuint>(unit), sampler_);
    if (spec_.kind == GLR_CHANNEL_BUFFER)
        return {static_cast<float>(buffer_width), static_cast<float>(buffer_height), 0.0f};
    return {static_cast<float>(width_), static_cast<float>(height_), time_};
}

} // namespace glr::gl
