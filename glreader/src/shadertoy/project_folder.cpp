// A project written out as a folder (image.glsl, common.glsl, bufferA..D.glsl and a
// `channels` file), which glr_project reads back as the same project: how a Shadertoy
// JSON becomes files a user edits. Nothing that exists is overwritten.
#include "project.hpp"

#include "error.hpp"
#include "text_file.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

// A folder to write into: made, or one that exists and is empty.
void make_empty_folder(const std::string &dir)
{
    if (mkdir(dir.c_str(), 0777) == 0)
        return;
    int error = errno;
    DIR *d = error == EEXIST ? opendir(dir.c_str()) : nullptr;
    if (!d)
        glr::fail(-error, "cannot make the project folder %s: %s", dir.c_str(), std::strerror(error));
    bool empty = true;
    while (dirent *e = readdir(d))
        empty = empty && (!std::strcmp(e->d_name, ".") || !std::strcmp(e->d_name, ".."));
    closedir(d);
    if (!empty)
        glr::fail(-EEXIST, "the project folder %s already holds files: give a new or empty one", dir.c_str());
}

void write_new_file(const std::string &path, const std::string &text)
{
    int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0)
        glr::fail(-errno, "cannot create %s: %s", path.c_str(), std::strerror(errno));
    for (size_t done = 0; done < text.size();) {
        ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int error = errno;
            close(fd);
            glr::fail(-error, "cannot write %s: %s", path.c_str(), std::strerror(error));
        }
        done += static_cast<size_t>(n);
    }
    if (close(fd) != 0)
        glr::fail(-errno, "cannot write %s: %s", path.c_str(), std::strerror(errno));
}

// A media file's absolute path, which the channels file may hold whatever folder it is in.
std::string absolute(const std::string &path, const std::string &where)
{
    std::string pattern_free = path;
    for (const char *face : {"{}", "{_}"})
        if (size_t at = pattern_free.find(face); at != std::string::npos)
            pattern_free.erase(at); // a cube map's pattern: its folder is what must resolve
    std::string folder = pattern_free.substr(0, pattern_free.rfind('/') + 1);
    char resolved[PATH_MAX];
    if (!realpath(folder.empty() ? "." : folder.c_str(), resolved))
        glr::fail(-errno, "%s: cannot find the folder of %s: %s", where.c_str(), path.c_str(), std::strerror(errno));
    std::string out = std::string(resolved) + "/" + path.substr(folder.size());
    if (out.find_first_of(",#\n") != std::string::npos)
        glr::fail(-EINVAL, "%s: %s has a comma, # or line break, which a channels file cannot hold", where.c_str(),
                  out.c_str());
    return out;
}

// The spec that binds `b` (the channels file's syntax, glreader/shadertoy_project.h).
std::string spec_of(const glr_channel_binding &b, const std::string &where)
{
    std::string spec;
    switch (b.media) {
    case GLR_MEDIA_IMAGE: spec = "image:" + absolute(b.path, where); break;
    case GLR_MEDIA_VIDEO: spec = "video:" + absolute(b.path, where) + (b.loop ? "" : ",loop=off"); break;
    case GLR_MEDIA_SOUND: spec = b.path ? "sound:" + absolute(b.path, where) : "sound"; break;
    case GLR_MEDIA_CUBEMAP: spec = "cubemap:" + absolute(b.path, where); break;
    case GLR_MEDIA_NONE:
        if (b.channel.kind == GLR_CHANNEL_BUFFER)
            spec = std::string("buffer:") + static_cast<char>('A' + b.channel.buffer);
        else if (b.channel.kind == GLR_CHANNEL_KEYBOARD)
            spec = "keyboard";
        else
            return {};
        break;
    }
    const char *const filters[] = {nullptr, "nearest", "linear", "mipmap"};
    const char *const wraps[] = {nullptr, "clamp", "repeat"};
    const char *const flips[] = {nullptr, "on", "off"};
    if (filters[b.channel.filter])
        spec += std::string(",filter=") + filters[b.channel.filter];
    if (wraps[b.channel.wrap])
        spec += std::string(",wrap=") + wraps[b.channel.wrap];
    if (flips[b.channel.vflip])
        spec += std::string(",vflip=") + flips[b.channel.vflip];
    return spec;
}

} // namespace

void glr_project::write(const std::string &dir) const
{
    if (!passes_[GLR_SCENE_IMAGE_PASS].present())
        glr::fail(-EINVAL, "the built-in scene is no project to write into %s", dir.c_str());
    auto text_of = [](const code &c) {
        return c.source ? *c.source : glr::read_text_file(c.path, "shader", GLR_SCENE_DEFAULT_MAX_SOURCE, nullptr);
    };
    // Everything is read and checked before the first file is made.
    std::string channels = "# PASS.channelN SPEC (glreader/shadertoy_project.h)\n";
    std::vector<std::pair<std::string, std::string>> files;
    if (common_.present())
        files.push_back({"common.glsl", text_of(common_)});
    if (sound_.present())
        files.push_back({"sound.glsl", text_of(sound_)});
    for (int p = 0; p <= GLR_SCENE_IMAGE_PASS; p++) {
        const pass_entry &pass = passes_[static_cast<size_t>(p)];
        if (!pass.present())
            continue;
        files.push_back({std::string(glr::project_pass_files[p]) + ".glsl", text_of(pass)});
        for (int c = 0; c < GLR_SCENE_CHANNELS; c++) {
            std::string target = std::string(glr::project_pass_files[p]) + ".channel" + std::to_string(c);
            std::string spec = spec_of(pass.channels[static_cast<size_t>(c)].binding, target);
            if (!spec.empty())
                channels += target + " " + spec + "\n";
        }
    }
    files.push_back({"channels", channels});
    make_empty_folder(dir);
    for (const auto &[name, text] : files)
        write_new_file(dir + "/" + name, text);
}
