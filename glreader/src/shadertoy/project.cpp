#include "project.hpp"

#include "error.hpp"
#include "text_file.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <sstream>
#include <vector>

namespace glr {
const char *const project_pass_files[GLR_SCENE_BUFFERS + 1] = {"bufferA", "bufferB", "bufferC", "bufferD", "image"};
const char *const project_pass_titles[GLR_SCENE_BUFFERS + 1] = {"Buffer A", "Buffer B", "Buffer C", "Buffer D",
                                                                "Image"};
} // namespace glr

namespace {

using glr::project_pass_files;

// A channels file binds at most twenty channels: a megabyte is no file of that kind.
constexpr size_t max_channels_file_bytes = 1u << 20;

bool is_directory(const std::string &path)
{
    struct stat st;
    return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::string resolve(const std::string &path, const std::string &base_dir)
{
    if (path.empty() || path[0] == '/' || base_dir.empty() || path.find("://") != std::string::npos)
        return path;
    return base_dir + "/" + path;
}

std::vector<std::string> split(const std::string &text, char separator)
{
    std::vector<std::string> parts;
    size_t begin = 0;
    for (size_t at; (at = text.find(separator, begin)) != std::string::npos; begin = at + 1)
        parts.push_back(text.substr(begin, at - begin));
    parts.push_back(text.substr(begin));
    return parts;
}

std::string trim(const std::string &s)
{
    size_t begin = s.find_first_not_of(" \t\r"), end = s.find_last_not_of(" \t\r");
    return begin == std::string::npos ? "" : s.substr(begin, end - begin + 1);
}

[[noreturn]] void bad(const std::string &where, const std::string &why)
{
    glr::fail(-EINVAL, "%s: %s", where.c_str(), why.c_str());
}

bool on_off(const std::string &value, const std::string &where, const std::string &key)
{
    if (value == "on" || value == "true" || value == "1")
        return true;
    if (value == "off" || value == "false" || value == "0")
        return false;
    bad(where, key + " takes on or off, not '" + value + "'");
}

// Reads a spec into `b` (its path kept in `path`).
void parse_spec(const std::string &text, const std::string &where, const std::string &base_dir,
                glr_channel_binding &b, std::string &path)
{
    std::vector<std::string> parts = split(text, ',');
    if (parts[0].empty())
        bad(where, "an empty channel; give KIND[:SOURCE], e.g. image:noise.png or buffer:A");
    size_t colon = parts[0].find(':');
    std::string kind = parts[0].substr(0, colon);
    std::string source = colon == std::string::npos ? "" : parts[0].substr(colon + 1);
    b = glr_channel_binding{};
    b.loop = 1;
    path.clear();
    auto need_source = [&] {
        if (source.empty())
            bad(where, kind + " needs a file: " + kind + ":FILE");
        path = resolve(source, base_dir);
    };
    if (kind == "image") {
        b.channel.kind = GLR_CHANNEL_TEXTURE;
        b.media = GLR_MEDIA_IMAGE;
        need_source();
    } else if (kind == "video") {
        // Shadertoy's for a video: no mipmaps to build each frame.
        b.channel = {GLR_CHANNEL_TEXTURE, 0, GLR_FILTER_LINEAR, GLR_WRAP_CLAMP, GLR_VFLIP_ON};
        b.media = GLR_MEDIA_VIDEO;
        need_source();
    } else if (kind == "sound") {
        // Row 0 the spectrum, row 1 the wave, as Shadertoy samples them.
        b.channel = {GLR_CHANNEL_TEXTURE, 0, GLR_FILTER_LINEAR, GLR_WRAP_CLAMP, GLR_VFLIP_OFF};
        b.media = GLR_MEDIA_SOUND;
        path = resolve(source, base_dir); // empty: the host's audio
    } else if (kind == "cubemap") {
        b.channel.kind = GLR_CHANNEL_CUBEMAP;
        b.media = GLR_MEDIA_CUBEMAP;
        need_source();
        if (path.find("{}") == std::string::npos && path.find("{_}") == std::string::npos)
            bad(where, "cubemap needs a pattern with {} for the face (px, nx, py, ny, pz, nz), like sky_{}.png, or "
                       "{_} for Shadertoy's names (\"\", _1 .. _5)");
    } else if (kind == "buffer") {
        b.channel.kind = GLR_CHANNEL_BUFFER;
        if (source.size() != 1 || source[0] < 'A' || source[0] > 'D')
            bad(where, "buffer takes A, B, C or D, not '" + source + "'");
        b.channel.buffer = source[0] - 'A';
    } else if (kind == "keyboard") {
        b.channel.kind = GLR_CHANNEL_KEYBOARD;
    } else {
        bad(where, "unknown channel kind '" + kind + "' (image, video, sound, cubemap, buffer, keyboard)");
    }
    for (size_t i = 1; i < parts.size(); i++) {
        size_t eq = parts[i].find('=');
        std::string key = parts[i].substr(0, eq), value = eq == std::string::npos ? "" : parts[i].substr(eq + 1);
        if (key == "filter") {
            if (value == "nearest")
                b.channel.filter = GLR_FILTER_NEAREST;
            else if (value == "linear")
                b.channel.filter = GLR_FILTER_LINEAR;
            else if (value == "mipmap")
                b.channel.filter = GLR_FILTER_MIPMAP;
            else
                bad(where, "filter takes nearest, linear or mipmap, not '" + value + "'");
        } else if (key == "wrap") {
            if (value == "clamp")
                b.channel.wrap = GLR_WRAP_CLAMP;
            else if (value == "repeat")
                b.channel.wrap = GLR_WRAP_REPEAT;
            else
                bad(where, "wrap takes clamp or repeat, not '" + value + "'");
        } else if (key == "vflip") {
            b.channel.vflip = on_off(value, where, key) ? GLR_VFLIP_ON : GLR_VFLIP_OFF;
        } else if (key == "loop" && b.media == GLR_MEDIA_VIDEO) {
            b.loop = on_off(value, where, key);
        } else {
            bad(where, "unknown channel option '" + parts[i] + "' (filter, wrap, vflip; loop for a video)");
        }
    }
}

} // namespace

glr_project::glr_project(const std::string &path, const std::string &media_dir, const glr_log *log)
{
    if (path.empty())
        return;
    if (is_json(path)) {
        read_json(path, media_dir, log);
        return;
    }
    if (!media_dir.empty())
        glr::fail(-EINVAL, "a media folder (%s) is for Shadertoy's JSON, and %s is none", media_dir.c_str(), path.c_str());
    if (!is_directory(path)) {
        passes_[GLR_SCENE_IMAGE_PASS].path = path;
        return;
    }
    std::string image = path + "/image.glsl";
    if (!glr::is_regular_file(image))
        glr::fail(-ENOENT, "the project %s has no image.glsl (its Image pass)", path.c_str());
    passes_[GLR_SCENE_IMAGE_PASS].path = image;
    if (glr::is_regular_file(path + "/common.glsl"))
        common_.path = path + "/common.glsl";
    if (glr::is_regular_file(path + "/sound.glsl"))
        sound_.path = path + "/sound.glsl";
    for (size_t i = 0; i < GLR_SCENE_BUFFERS; i++) {
        std::string file = path + "/" + project_pass_files[i] + ".glsl";
        if (glr::is_regular_file(file))
            passes_[i].path = file;
    }
    read_channels_file(path);
}

void glr_project::read_channels_file(const std::string &dir)
{
    std::string file = dir + "/channels";
    struct stat st;
    if (stat(file.c_str(), &st) != 0 && errno == ENOENT)
        return; // no channel bound
    std::istringstream in(glr::read_text_file(file, "project's channels file", max_channels_file_bytes, nullptr));
    int number = 0;
    for (std::string line; std::getline(in, line);) {
        number++;
        line = trim(line.substr(0, line.find('#')));
        if (line.empty())
            continue;
        std::string where = file + ":" + std::to_string(number);
        size_t space = line.find_first_of(" \t");
        std::string target = line.substr(0, space), spec = space == std::string::npos ? "" : trim(line.substr(space));
        size_t dot = target.find(".channel");
        int pass = -1;
        for (int i = 0; i <= GLR_SCENE_BUFFERS; i++)
            if (dot != std::string::npos && target.compare(0, dot, project_pass_files[i]) == 0 &&
                dot == std::char_traits<char>::length(project_pass_files[i]))
                pass = i;
        std::string index = dot == std::string::npos ? "" : target.substr(dot + 8);
        if (pass < 0 || index.size() != 1 || index[0] < '0' || index[0] > '3')
            bad(where, "'" + target + "' is not PASS.channelN (PASS: image, bufferA..bufferD; N: 0..3)");
        bind(pass, index[0] - '0', spec, where, dir);
    }
}

void glr_project::bind(int pass, int channel, const std::string &spec, const std::string &where,
                       const std::string &base_dir)
{
    if (pass < 0 || pass > GLR_SCENE_IMAGE_PASS || channel < 0 || channel >= GLR_SCENE_CHANNELS)
        bad(where, glr::format("no pass %d or channel %d (passes 0..%d, channels 0..%d)", pass, channel,
                               GLR_SCENE_IMAGE_PASS, GLR_SCENE_CHANNELS - 1));
    if (!passes_[static_cast<size_t>(pass)].present() && pass != GLR_SCENE_IMAGE_PASS)
        bad(where, "binds a channel of " + std::string(project_pass_files[pass]) + ", but the project has no " +
                       project_pass_files[pass] + ".glsl");
    bound &b = passes_[static_cast<size_t>(pass)].channels[static_cast<size_t>(channel)];
    parse_spec(spec, where, base_dir, b.binding, b.path);
    b.binding.path = b.path.empty() ? nullptr : b.path.c_str();
}

const glr_channel_binding *glr_project::binding(int pass, int channel) const
{
    if (pass < 0 || pass > GLR_SCENE_IMAGE_PASS || channel < 0 || channel >= GLR_SCENE_CHANNELS)
        return nullptr;
    return &passes_[static_cast<size_t>(pass)].channels[static_cast<size_t>(channel)].binding;
}

void glr_project::scene_params(glr_scene_params &params) const
{
    auto path_of = [](const code &c) { return c.path.empty() ? nullptr : c.path.c_str(); };
    auto source_of = [](const code &c) { return c.source ? c.source->c_str() : nullptr; };
    auto name_of = [](const code &c) { return c.name.empty() ? nullptr : c.name.c_str(); };
    const pass_entry &image = passes_[GLR_SCENE_IMAGE_PASS];
    params.source = source_of(image);
    params.source_path = path_of(image);
    params.source_name = name_of(image);
    params.common_source = source_of(common_);
    params.common_path = path_of(common_);
    params.common_name = name_of(common_);
    params.sound_source = source_of(sound_);
    params.sound_path = path_of(sound_);
    params.sound_name = name_of(sound_);
    for (size_t c = 0; c < GLR_SCENE_CHANNELS; c++)
        params.channels[c] = image.channels[c].binding.channel;
    for (size_t b = 0; b < GLR_SCENE_BUFFERS; b++) {
        params.buffers[b].source = source_of(passes_[b]);
        params.buffers[b].source_path = path_of(passes_[b]);
        params.buffers[b].source_name = name_of(passes_[b]);
        for (size_t c = 0; c < GLR_SCENE_CHANNELS; c++)
            params.buffers[b].channels[c] = passes_[b].channels[c].binding.channel;
    }
}
