#include "project_scene.hpp"

#include "gl_program.hpp"

namespace sample {

bool project_options::read(command_line &args)
{
    if (args.is("--shader")) {
        shader = args.value();
        return true;
    }
    if (args.is("--media")) {
        media = args.value();
        return true;
    }
    for (int c = 0; c < GLR_SCENE_CHANNELS; c++)
        if (args.is(("--channel" + std::to_string(c)).c_str())) {
            channels[static_cast<size_t>(c)] = args.value();
            return true;
        }
    return false;
}

glr::project project_options::load(glr_log *log) const
{
    glr::project project(shader.c_str(), log, media.empty() ? nullptr : media.c_str());
    for (int c = 0; c < GLR_SCENE_CHANNELS; c++) {
        const std::string &spec = channels[static_cast<size_t>(c)];
        std::string where = "--channel" + std::to_string(c);
        if (!spec.empty())
            project.bind(GLR_SCENE_IMAGE_PASS, c, spec.c_str(), where.c_str());
    }
    return project;
}

namespace {

glr_media_channels *open_media(const glr::project &project, const std::string &audio, glr_log *log)
{
    glr_media_channels *media = glr_media_channels_create(log, project.get(), audio.empty() ? nullptr : audio.c_str());
    if (!media)
        glr::detail::throw_create_failure("glr_media_channels_create");
    return media;
}

glr_player_params player_params(const glr::project &project, glr_media_channels *media, int width, int height,
                                frame_rate fps, glr_get_proc_address_fn loader, glr_channel_feeder &feeder)
{
    feeder = glr_media_channels_feeder(media);
    glr_player_params p{};
    p.width = width;
    p.height = height;
    p.fps_num = fps.num;
    p.fps_den = fps.den;
    p.project = project.get();
    p.feeder = &feeder; // copied by the player
    p.get_proc_address = loader;
    return p;
}

} // namespace

project_scene::project_scene(const project_options &options, int width, int height, frame_rate fps,
                             glr_get_proc_address_fn loader, const std::string &audio, glr_log *log)
    : project_(options.load(log)), media_(open_media(project_, audio, log)),
      player_([&] {
          glr_channel_feeder feeder{};
          return glr::player(player_params(project_, media_.get(), width, height, fps, loader, feeder), log);
      }())
{
    load_gl(gl_, loader ? loader : glr_context_get_proc_address);
}

} // namespace sample
