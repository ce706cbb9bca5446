#include "shadertoy_player.hpp"

#include <stdexcept>

namespace sample {

shadertoy_player::shadertoy_player(const shadertoy_options &options, int width, int height, glr_log *log)
    : media_(new glr_media_channels{}), clock_(options.clock)
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
    clock_.sample_rate = glr_media_channels_sample_rate(media_.get());
    glr_scene_params params{};
    params.width = width;
    params.height = height;
    glr_project_scene_params(project_.get(), &params);
    params.max_source_bytes = options.max_shader_bytes;
    try {
        scene_ = std::make_unique<scene>(params, log);
    } catch (...) {
        glr_media_channels_close(media_.get());
        throw;
    }
}

shadertoy_player::~shadertoy_player() { glr_media_channels_close(media_.get()); }

glr_scene_inputs shadertoy_player::inputs_of(int n) const
{
    glr_scene_inputs inputs{};
    if (glr_shadertoy_inputs(&clock_, n, &inputs) < 0)
        throw std::runtime_error(glr_last_error());
    return inputs;
}

void shadertoy_player::skip_to(int start)
{
    for (int n = 0; n < start; n++)
        glr_media_channels_analyse(media_.get(), inputs_of(n).time);
}

void shadertoy_player::upload(int n)
{
    inputs_ = inputs_of(n);
    char err[1024] = "";
    if (glr_media_channels_update(media_.get(), scene_->handle(), inputs_.time, err, sizeof err) < 0)
        throw std::runtime_error(err);
}

void shadertoy_player::render() { scene_->render(inputs_); }

} // namespace sample
