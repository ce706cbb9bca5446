#include "shadertoy_player.hpp"

#include <cstring>
#include <stdexcept>

namespace sample {

shadertoy_player::shadertoy_player(const shadertoy_options &options, int width, int height, glr_log *log)
    : media_(new glr_media_channels{})
{
    project_.reset(glr_project_load(log, options.shader.c_str()));
    if (!project_)
        throw std::runtime_error(glr_last_error());
    for (int c = 0; c < GLR_SCENE_CHANNELS; c++) {
        const std::string &spec = options.channels[static_cast<size_t>(c)];
        std::string where = "--channel" + std::to_string(c);
        if (!spec.empty() && glr_project_bind(project_.get(), GLR_SCENE_IMAGE_PASS, c, spec.c_str(), where.c_str()) < 0)
            throw std::runtime_error(glr_last_error());
    }
    char err[1024] = "";
    if (glr_media_channels_open(media_.get(), project_.get(), options.audio.empty() ? nullptr : options.audio.c_str(),
                                err, sizeof err) < 0)
        throw std::runtime_error(err);
    glr_channel_feeder feeder = glr_media_channels_feeder(media_.get());
    glr_player_params params{};
    params.width = width;
    params.height = height;
    params.fps_num = options.fps_num;
    params.fps_den = options.fps_den;
    params.project = project_.get();
    params.feeder = &feeder;
    params.first_frame = options.first_frame;
    std::memcpy(params.mouse, options.mouse, sizeof params.mouse);
    params.date = options.date.empty() ? nullptr : options.date.c_str();
    params.max_source_bytes = options.max_shader_bytes;
    player_.reset(glr_player_create(log, &params));
    if (!player_) {
        glr_media_channels_close(media_.get());
        throw std::runtime_error(glr_last_error());
    }
}

shadertoy_player::~shadertoy_player()
{
    player_.reset(); // before the media it reads
    glr_media_channels_close(media_.get());
}

void shadertoy_player::render_next()
{
    if (glr_player_render_next(player_.get()) < 0)
        throw std::runtime_error(glr_last_error());
}

glr_player_stats shadertoy_player::stats() const
{
    glr_player_stats s{};
    glr_player_get_stats(player_.get(), &s);
    return s;
}

} // namespace sample
