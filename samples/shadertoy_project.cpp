#include "shadertoy_project.hpp"

#include <sys/stat.h>

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace sample {

namespace {

const char *pass_files[GLR_SCENE_BUFFERS + 1] = {"bufferA", "bufferB", "bufferC", "bufferD", "image"};

bool is_directory(const std::string &path)
{
    struct stat st;
    return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool is_file(const std::string &path)
{
    struct stat st;
    return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
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
    std::stringstream in(text);
    for (std::string part; std::getline(in, part, separator);)
        parts.push_back(part);
    return parts;
}

std::string trim(const std::string &s)
{
    size_t begin = s.find_first_not_of(" \t\r"), end = s.find_last_not_of(" \t\r");
    return begin == std::string::npos ? "" : s.substr(begin, end - begin + 1);
}

[[noreturn]] void bad(const std::string &where, const std::string &why) { throw std::runtime_error(where + ": " + why); }

bool on_off(const std::string &value, const std::string &where, const std::string &key)
{
    if (value == "on" || value == "true" || value == "1")
        return true;
    if (value == "off" || value == "false" || value == "0")
        return false;
    bad(where, key + " takes on or off, not '" + value + "'");
}

} // namespace

channel_spec parse_channel_spec(const std::string &text, const std::string &where, const std::string &base_dir)
{
    std::vector<std::string> parts = split(text, ',');
    if (parts.empty() || parts[0].empty())
        bad(where, "an empty channel; give KIND[:SOURCE], e.g. image:noise.png or buffer:A");
    std::string head = parts[0];
    size_t colon = head.find(':');
    std::string kind = head.substr(0, colon), source = colon == std::string::npos ? "" : head.substr(colon + 1);
    channel_spec spec;
    using media = channel_spec::media;
    auto need_source = [&] {
        if (source.empty())
            bad(where, kind + " needs a file: " + kind + ":FILE");
        spec.path = resolve(source, base_dir);
    };
    if (kind == "image") {
        spec.channel.kind = GLR_CHANNEL_TEXTURE;
        spec.source = media::image;
        need_source();
    } else if (kind == "video") {
        spec.channel.kind = GLR_CHANNEL_TEXTURE;
        spec.source = media::video;
        need_source();
    } else if (kind == "sound") {
        // The sound texture: row 0 the spectrum, row 1 the wave, as Shadertoy lays it out.
        spec.channel = {GLR_CHANNEL_TEXTURE, 0, GLR_FILTER_LINEAR, GLR_WRAP_CLAMP, GLR_VFLIP_OFF};
        spec.source = media::sound;
        spec.path = resolve(source, base_dir); // empty: the --audio file
    } else if (kind == "cubemap") {
        spec.channel.kind = GLR_CHANNEL_CUBEMAP;
        spec.source = media::cubemap;
        need_source();
        if (spec.path.find("{}") == std::string::npos)
            bad(where, "cubemap needs a pattern with {} for the face (px, nx, py, ny, pz, nz), like sky_{}.png");
    } else if (kind == "buffer") {
        spec.channel.kind = GLR_CHANNEL_BUFFER;
        if (source.size() != 1 || source[0] < 'A' || source[0] > 'D')
            bad(where, "buffer takes A, B, C or D, not '" + source + "'");
        spec.channel.buffer = source[0] - 'A';
    } else if (kind == "keyboard") {
        spec.channel.kind = GLR_CHANNEL_KEYBOARD;
    } else {
        bad(where, "unknown channel kind '" + kind + "' (image, video, sound, cubemap, buffer, keyboard)");
    }
    for (size_t i = 1; i < parts.size(); i++) {
        size_t eq = parts[i].find('=');
        std::string key = parts[i].substr(0, eq), value = eq == std::string::npos ? "" : parts[i].substr(eq + 1);
        if (key == "filter") {
            if (value == "nearest")
                spec.channel.filter = GLR_FILTER_NEAREST;
            else if (value == "linear")
                spec.channel.filter = GLR_FILTER_LINEAR;
            else if (value == "mipmap")
                spec.channel.filter = GLR_FILTER_MIPMAP;
            else
                bad(where, "filter takes nearest, linear or mipmap, not '" + value + "'");
        } else if (key == "wrap") {
            if (value == "clamp")
                spec.channel.wrap = GLR_WRAP_CLAMP;
            else if (value == "repeat")
                spec.channel.wrap = GLR_WRAP_REPEAT;
            else
                bad(where, "wrap takes clamp or repeat, not '" + value + "'");
        } else if (key == "vflip") {
            spec.channel.vflip = on_off(value, where, key) ? GLR_VFLIP_ON : GLR_VFLIP_OFF;
        } else if (key == "loop" && spec.source == media::video) {
            spec.loop = on_off(value, where, key);
        } else {
            bad(where, "unknown channel option '" + parts[i] + "' (filter, wrap, vflip; loop for a video)");
        }
    }
    return spec;
}

shadertoy_project load_project(const std::string &path)
{
    shadertoy_project project;
    if (path.empty())
        return project;
    if (!is_directory(path)) {
        project.image().path = path;
        return project;
    }
    std::string image = path + "/image.glsl";
    if (!is_file(image))
        throw std::runtime_error("the project " + path + " has no image.glsl (its Image pass)");
    project.image().path = image;
    if (is_file(path + "/common.glsl"))
        project.common_path = path + "/common.glsl";
    for (int i = 0; i < GLR_SCENE_BUFFERS; i++) {
        std::string file = path + "/" + pass_files[i] + ".glsl";
        if (is_file(file))
            project.passes[static_cast<size_t>(i)].path = file;
    }
    // "PASS.channelN SPEC" lines; # starts a comment.
    std::string bindings = path + "/channels";
    std::ifstream in(bindings);
    if (!in)
        return project; // no channels bound
    int number = 0;
    for (std::string line; std::getline(in, line);) {
        number++;
        line = trim(line.substr(0, line.find('#')));
        if (line.empty())
            continue;
        std::string where = bindings + ":" + std::to_string(number);
        size_t space = line.find_first_of(" \t");
        std::string target = line.substr(0, space), spec = space == std::string::npos ? "" : trim(line.substr(space));
        size_t dot = target.find(".channel");
        int pass = -1;
        for (int i = 0; i <= GLR_SCENE_BUFFERS; i++)
            if (dot != std::string::npos && target.substr(0, dot) == pass_files[i])
                pass = i;
        std::string index = dot == std::string::npos ? "" : target.substr(dot + 8);
        if (pass < 0 || index.size() != 1 || index[0] < '0' || index[0] > '3')
            bad(where, "'" + target + "' is not PASS.channelN (PASS: image, bufferA..bufferD; N: 0..3)");
        pass_spec &p = project.passes[static_cast<size_t>(pass)];
        if (p.path.empty())
            bad(where, "binds a channel of " + std::string(pass_files[pass]) + ", but the project has no " +
                           pass_files[pass] + ".glsl");
        p.channels[static_cast<size_t>(index[0] - '0')] = parse_channel_spec(spec, where, path);
    }
    return project;
}

glr_scene_params shadertoy_project::scene_params(int width, int height) const
{
    glr_scene_params p{};
    p.width = width;
    p.height = height;
    const pass_spec &image = passes[GLR_SCENE_IMAGE_PASS];
    p.source_path = image.path.empty() ? nullptr : image.path.c_str();
    p.common_path = common_path.empty() ? nullptr : common_path.c_str();
    for (size_t c = 0; c < GLR_SCENE_CHANNELS; c++)
        p.channels[c] = image.channels[c].channel;
    for (size_t b = 0; b < GLR_SCENE_BUFFERS; b++) {
        p.buffers[b].source_path = passes[b].path.empty() ? nullptr : passes[b].path.c_str();
        for (size_t c = 0; c < GLR_SCENE_CHANNELS; c++)
            p.buffers[b].channels[c] = passes[b].channels[c].channel;
    }
    return p;
}

} // namespace sample
