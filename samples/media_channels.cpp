#include "media_channels.hpp"

#include "glreader/shadertoy_media.h"

#include <array>
#include <stdexcept>

namespace sample {

struct media_channels::source {
    channel_spec::media kind;
    std::string path;
    AVFrame *picture = nullptr;             // image
    std::array<AVFrame *, 6> faces{};       // cube map
    glr_media_video video{};                // video
    glr_media_sound sound{};                // sound
    double time = 0;                        // the media time of what update() decoded last
    double analysed = -1;                   // sound: the time of the last analysis

    ~source()
    {
        av_frame_free(&picture);
        for (AVFrame *&f : faces)
            av_frame_free(&f);
        glr_media_video_close(&video);
        glr_media_sound_close(&sound);
    }

    // Decodes what the frame at `seconds` shows.
    void advance(double seconds)
    {
        char err[512] = "";
        if (kind == channel_spec::media::video) {
            if (glr_media_video_show(&video, seconds, &time, err, sizeof err) < 0)
                throw std::runtime_error(err);
        } else if (kind == channel_spec::media::sound && analysed != seconds) {
            glr_media_sound_analyse(&sound, seconds);
            analysed = seconds;
            time = seconds;
        }
    }
};

namespace {

glr_image image_of(const AVFrame *f, double time)
{
    return {f->width, f->height, 4, f->data[0], f->linesize[0], time};
}

} // namespace

media_channels::media_channels(const shadertoy_project &project, const std::string &audio_path)
{
    for (int pass = 0; pass <= GLR_SCENE_BUFFERS; pass++)
        for (int c = 0; c < GLR_SCENE_CHANNELS; c++) {
            const channel_spec &spec = project.passes[static_cast<size_t>(pass)].channels[static_cast<size_t>(c)];
            if (spec.source != channel_spec::media::none)
                bindings_[{pass, c}] = &open(spec, audio_path);
        }
}

media_channels::~media_channels() = default;

media_channels::source &media_channels::open(const channel_spec &spec, const std::string &audio_path)
{
    std::string path = spec.path;
    if (spec.source == channel_spec::media::sound && path.empty()) {
        if (audio_path.empty())
            throw std::runtime_error("a sound channel without a file takes the --audio file, and none was given");
        path = audio_path;
    }
    std::string key = std::to_string(static_cast<int>(spec.source)) + (spec.loop ? "+" : "-") + path;
    auto found = sources_.find(key);
    if (found != sources_.end())
        return *found->second;
    auto s = std::make_unique<source>();
    s->kind = spec.source;
    s->path = path;
    char err[512] = "";
    int ret = 0;
    switch (spec.source) {
    case channel_spec::media::image: ret = glr_media_load_image(path.c_str(), &s->picture, err, sizeof err); break;
    case channel_spec::media::video: ret = glr_media_video_open(&s->video, path.c_str(), spec.loop, err, sizeof err); break;
    case channel_spec::media::sound: ret = glr_media_sound_open(&s->sound, path.c_str(), err, sizeof err); break;
    case channel_spec::media::cubemap: {
        static const char *names[6] = {"px", "nx", "py", "ny", "pz", "nz"};
        for (size_t face = 0; face < 6 && ret >= 0; face++) {
            std::string file = path;
            file.replace(file.find("{}"), 2, names[face]);
            ret = glr_media_load_image(file.c_str(), &s->faces[face], err, sizeof err);
        }
        break;
    }
    case channel_spec::media::none: break;
    }
    if (ret < 0)
        throw std::runtime_error(err);
    return *(sources_[key] = std::move(s));
}

void media_channels::update(glr_scene *scene, double seconds)
{
    for (auto &entry : sources_)
        entry.second->advance(seconds);
    for (auto &[at, s] : bindings_) {
        int ret = 0;
        switch (s->kind) {
        case channel_spec::media::image:
            if (first_) {
                glr_image image = image_of(s->picture, 0);
                ret = glr_scene_set_channel_image(scene, at.first, at.second, &image);
            }
            break;
        case channel_spec::media::cubemap:
            if (first_) {
                std::array<glr_image, 6> faces;
                for (size_t f = 0; f < 6; f++)
                    faces[f] = image_of(s->faces[f], 0);
                ret = glr_scene_set_channel_cubemap(scene, at.first, at.second, faces.data());
            }
            break;
        case channel_spec::media::video: {
            glr_image image = image_of(s->video.rgba, s->time);
            ret = glr_scene_set_channel_image(scene, at.first, at.second, &image);
            break;
        }
        case channel_spec::media::sound: {
            glr_image image{GLR_SOUND_TEXTURE_WIDTH, 2, 1, s->sound.texture, GLR_SOUND_TEXTURE_WIDTH, s->time};
            ret = glr_scene_set_channel_image(scene, at.first, at.second, &image);
            break;
        }
        case channel_spec::media::none: break;
        }
        if (ret < 0)
            throw std::runtime_error(std::string(glr_last_error()) + " (" + s->path + ")");
    }
    first_ = false;
}

void media_channels::analyse_only(double seconds)
{
    for (auto &entry : sources_)
        if (entry.second->kind == channel_spec::media::sound)
            entry.second->advance(seconds);
}

float media_channels::sample_rate() const
{
    for (auto &entry : sources_)
        if (entry.second->kind == channel_spec::media::sound)
            return static_cast<float>(entry.second->sound.sample_rate);
    return 0;
}

} // namespace sample
