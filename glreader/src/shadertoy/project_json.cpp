// Shadertoy's JSON as a project: each pass's code, each input bound as Shadertoy binds it
// (its kind, its buffer, its sampler), and Shadertoy's own media (textures, cube maps,
// videos, music) found on this machine, or named with the file a user must supply.
#include "project.hpp"

#include "error.hpp"
#include "log.hpp"
#include "shadertoy/shadertoy_json.hpp"
#include "text_file.hpp"


#include <algorithm>
#include <cctype>
#include <cerrno>
#include <vector>

namespace {

std::string directory_of(const std::string &path)
{
    size_t slash = path.rfind('/');
    return slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
}

// Where a Shadertoy media path ("/media/a/NAME.png", or a whole URL) may be here: laid out
// as the site has it (FOLDER/media/a/NAME.png) or by its name alone (FOLDER/NAME.png), in
// the media folder first, then beside the JSON file.
class media_finder {
public:
    media_finder(const std::string &media_dir, const std::string &json_dir)
    {
        if (!media_dir.empty())
            folders_.push_back(media_dir);
        folders_.push_back(json_dir);
    }

    // The file's path here; empty when it is in none of the folders.
    std::string find(const std::string &media) const
    {
        std::string relative = media;
        if (size_t scheme = relative.find("://"); scheme != std::string::npos)
            relative = relative.substr(std::min(relative.size(), relative.find('/', scheme + 3)));
        relative.erase(0, relative.find_first_not_of('/'));
        std::string name = relative.substr(relative.rfind('/') + 1);
        for (const std::string &folder : folders_)
            for (const std::string &candidate : {folder + "/" + relative, folder + "/" + name})
                if (glr::is_regular_file(candidate))
                    return candidate;
        return {};
    }

    std::string folders() const
    {
        std::string list;
        for (const std::string &folder : folders_)
            list += (list.empty() ? "" : ", ") + folder;
        return list;
    }

private:
    std::vector<std::string> folders_;
};

// Shadertoy names a cube map by its first face (NAME.png) and finds the others as
// NAME_1.png .. NAME_5.png; glreader's pattern for that is NAME{_}.png.
std::string cube_pattern(const std::string &first_face)
{
    size_t dot = first_face.rfind('.'), slash = first_face.rfind('/');
    if (dot == std::string::npos || (slash != std::string::npos && dot < slash))
        dot = first_face.size();
    return first_face.substr(0, dot) + "{_}" + first_face.substr(dot);
}

glr_channel_filter filter_of(const std::string &name)
{
    return name == "nearest" ? GLR_FILTER_NEAREST
           : name == "linear" ? GLR_FILTER_LINEAR
           : name == "mipmap" ? GLR_FILTER_MIPMAP
                              : GLR_FILTER_DEFAULT;
}

glr_channel_wrap wrap_of(const std::string &name)
{
    return name == "clamp" ? GLR_WRAP_CLAMP : name == "repeat" ? GLR_WRAP_REPEAT : GLR_WRAP_DEFAULT;
}

} // namespace

bool glr_project::is_json(const std::string &path)
{
    std::string lower = path;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
    size_t at = lower.rfind(".json");
    return at != std::string::npos && (at + 5 == lower.size() || lower[at + 5] == '#');
}

void glr_project::read_json(const std::string &path, const std::string &media_dir, const glr_log *log)
{
    std::string file = path, pick;
    if (size_t hash = path.rfind('#'); hash != std::string::npos && hash > path.rfind(".json")) {
        file = path.substr(0, hash);
        pick = path.substr(hash + 1);
    }
    const glr::shadertoy::json_shader shader = glr::shadertoy::read_shadertoy_json(
        glr::read_text_file(file, "Shadertoy JSON", glr::shadertoy::max_json_bytes, nullptr), file, pick);
    const glr_log *to = log ? log : glr_log::fallback();
    media_finder finder(media_dir, directory_of(file));
    std::vector<std::string> missing, unsupported;

    for (const glr::shadertoy::json_pass &p : shader.passes) {
        std::string name = file + " [" + p.name + "]";
        if (p.type == "common") {
            common_.source = p.code;
            common_.name = name;
            continue;
        }
        if (p.type == "sound") {
            sound_.source = p.code;
            sound_.name = name;
            for (const glr::shadertoy::json_input &in : p.inputs)
                to->write(GLR_LOG_WARN, file + ": the Sound pass's iChannel" + std::to_string(in.channel) + " (" +
                                            in.kind + ") is not bound: glreader's Sound pass reads no channels");
            continue;
        }
        if (p.type == "cubemap") {
            unsupported.push_back("the Cube A pass: glreader renders no cube map passes");
            continue;
        }
        int index = p.type == "image" ? GLR_SCENE_IMAGE_PASS : p.buffer;
        pass_entry &entry = passes_[static_cast<size_t>(index)];
        entry.source = p.code;
        entry.name = name;
        for (const glr::shadertoy::json_input &in : p.inputs) {
            std::string where = std::string(glr::project_pass_titles[index]) + " iChannel" + std::to_string(in.channel);
            bound &b = entry.channels[static_cast<size_t>(in.channel)];
            b = bound{};
            glr_channel &c = b.binding.channel;
            c.filter = filter_of(in.filter);
            c.wrap = wrap_of(in.wrap);
            b.binding.loop = 1;
            auto media = [&](glr_media_kind kind, const char *what) {
                b.binding.media = kind;
                b.path = finder.find(in.media);
                if (b.path.empty())
                    missing.push_back(where + ": the " + what + " " + in.media);
            };
            if (in.kind == "texture" || in.kind == "video") {
                c.kind = GLR_CHANNEL_TEXTURE;
                c.vflip = in.vflip < 0 ? GLR_VFLIP_DEFAULT : in.vflip ? GLR_VFLIP_ON : GLR_VFLIP_OFF;
                if (in.kind == "video" && in.filter.empty())
                    c.filter = GLR_FILTER_LINEAR; // Shadertoy's for a video: no mipmaps each frame
                if (in.kind == "video" && in.wrap.empty())
                    c.wrap = GLR_WRAP_CLAMP;
                media(in.kind == "video" ? GLR_MEDIA_VIDEO : GLR_MEDIA_IMAGE, in.kind == "video" ? "video" : "texture");
                if (in.srgb)
                    to->write(GLR_LOG_WARN, file + ": " + where + " asks for sRGB sampling, which glreader does not "
                                                              "do: the texture is read as stored");
            } else if (in.kind == "cubemap") {
                c.kind = GLR_CHANNEL_CUBEMAP;
                media(GLR_MEDIA_CUBEMAP, "cube map");
                if (!b.path.empty())
                    b.path = cube_pattern(b.path);
            } else if (in.kind == "music" || in.kind == "musicstream" || in.kind == "mic") {
                // The sound texture's rows are the spectrum and the wave: linear and clamped,
                // never flipped, as on Shadertoy.
                c = {GLR_CHANNEL_TEXTURE, 0, GLR_FILTER_LINEAR, GLR_WRAP_CLAMP, GLR_VFLIP_OFF};
                b.binding.media = GLR_MEDIA_SOUND;
                if (in.kind == "music")
                    b.path = finder.find(in.media);
                if (b.path.empty())
                    to->write(GLR_LOG_INFO, file + ": " + where + " (Shadertoy's " + in.kind +
                                                (in.media.empty() ? "" : " " + in.media) +
                                                ") plays the render's own sound track");
            } else if (in.kind == "keyboard") {
                c.kind = GLR_CHANNEL_KEYBOARD;
            } else if (in.kind == "buffer" && in.buffer < GLR_SCENE_BUFFERS) {
                c.kind = GLR_CHANNEL_BUFFER;
                c.buffer = in.buffer;
            } else if (in.kind == "buffer") {
                unsupported.push_back(where + ": reads Cube A, a cube map pass glreader does not render");
            } else if (in.kind == "webcam") {
                unsupported.push_back(where + ": a webcam, which an offline render has none of (bind a video in its "
                                              "place: --to-project, then video:FILE in the channels file)");
            } else {
                unsupported.push_back(where + ": a " + in.kind + " (a 3D texture), which glreader does not sample");
            }
            b.binding.path = b.path.empty() ? nullptr : b.path.c_str();
        }
    }
    if (!unsupported.empty()) {
        std::string list;
        for (const std::string &u : unsupported)
            list += "\n  " + u;
        glr::fail(-ENOTSUP, "%s uses what glreader cannot render:%s", file.c_str(), list.c_str());
    }
    if (!missing.empty()) {
        std::string list;
        for (const std::string &m : missing)
            list += "\n  " + m;
        glr::fail(-ENOENT,
                  "%s needs Shadertoy's own media, which glreader does not ship, and they are not here:%s\nPut each "
                  "file (named as above, e.g. %s) in a folder and give it as --media FOLDER (the filter's media=); "
                  "looked in %s",
                  file.c_str(), list.c_str(), missing[0].substr(missing[0].rfind('/') + 1).c_str(),
                  finder.folders().c_str());
    }
}
