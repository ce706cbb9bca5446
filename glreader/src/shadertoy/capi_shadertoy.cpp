// The C ABI of glreader/shadertoy_project.h and glreader/player.h.
#include "glreader/player.h"
#include "glreader/shadertoy_project.h"

#include "error.hpp"
#include "guarded.hpp"
#include "inputs.hpp"
#include "player.hpp"
#include "project.hpp"

#include <cerrno>

namespace {

void need(const void *pointer, const char *call, const char *argument)
{
    if (!pointer)
        glr::fail(-EINVAL, "%s: %s is NULL", call, argument);
}

// Calls that take no log keep their error as the thread's last one without logging it:
// the host shows it where the bad value came from.
template <typename Body>
int quietly(Body &&body)
{
    return glr::guarded_with([](int code, const char *message) { glr_priv_report_error(nullptr, code, message, 0); }, body);
}

} // namespace

extern "C" {

glr_project *glr_project_load(glr_log *log, const char *path)
{
    glr_project_params params{};
    params.path = path;
    return glr_project_open(log, &params);
}

glr_project *glr_project_open(glr_log *log, const struct glr_project_params *params)
{
    glr_project *project = nullptr;
    glr::guarded(log, [&] {
        need(params, "glr_project_open", "params");
        project = new glr_project(params->path ? params->path : "", params->media_dir ? params->media_dir : "", log);
        return 0;
    });
    return project;
}

int glr_project_write(const glr_project *project, const char *dir)
{
    return quietly([&] {
        need(project, "glr_project_write", "project");
        need(dir, "glr_project_write", "dir");
        project->write(dir);
        return 0;
    });
}

int glr_project_bind(glr_project *project, int pass, int channel, const char *spec, const char *where)
{
    return quietly([&] {
        need(project, "glr_project_bind", "project");
        need(spec, "glr_project_bind", "spec");
        project->bind(pass, channel, spec, where ? where : glr::format("channel %d", channel), "");
        return 0;
    });
}

const struct glr_channel_binding *glr_project_binding(const glr_project *project, int pass, int channel)
{
    return project ? project->binding(pass, channel) : nullptr;
}

void glr_project_scene_params(const glr_project *project, struct glr_scene_params *params)
{
    if (project && params)
        project->scene_params(*params);
}

int glr_project_has_sound_pass(const glr_project *project) { return project && project->has_sound_pass(); }

void glr_project_destroy(glr_project **project)
{
    if (!project || !*project)
        return;
    delete *project;
    *project = nullptr;
}

int glr_shadertoy_inputs(const struct glr_shadertoy_clock *clock, int frame, struct glr_scene_inputs *inputs)
{
    return quietly([&] {
        need(clock, "glr_shadertoy_inputs", "clock");
        need(inputs, "glr_shadertoy_inputs", "inputs");
        glr::shadertoy_inputs(*clock, frame, *inputs);
        return 0;
    });
}

int glr_shadertoy_parse_mouse(const char *text, float mouse[4])
{
    return quietly([&] {
        need(text, "glr_shadertoy_parse_mouse", "text");
        need(mouse, "glr_shadertoy_parse_mouse", "mouse");
        glr::parse_mouse(text, mouse);
        return 0;
    });
}

int glr_shadertoy_parse_date(const char *text, long long *seconds)
{
    return quietly([&] {
        need(text, "glr_shadertoy_parse_date", "text");
        need(seconds, "glr_shadertoy_parse_date", "seconds");
        *seconds = glr::parse_date(text);
        return 0;
    });
}

glr_player *glr_player_create(glr_log *log, const struct glr_player_params *params)
{
    glr_player *player = nullptr;
    glr::guarded(log, [&] {
        need(params, "glr_player_create", "params");
        player = new glr_player(log, *params);
        return 0;
    });
    return player;
}

int glr_player_render_next(glr_player *player)
{
    if (!player)
        return quietly([] {
            glr::fail(-EINVAL, "glr_player_render_next: player is NULL");
            return 0;
        });
    return glr::guarded(player->log(), [&] {
        player->render_next();
        return 0;
    });
}

int glr_player_sound_rate(const glr_player *player) { return player ? player->sound_rate() : 0; }

long long glr_player_sound_sample(const glr_player *player, long long frame)
{
    return player ? player->sound_sample(frame) : -1;
}

int glr_player_render_sound(glr_player *player, long long first_sample, int count, int16_t *stereo)
{
    if (!player)
        return quietly([] {
            glr::fail(-EINVAL, "glr_player_render_sound: player is NULL");
            return 0;
        });
    return glr::guarded(player->log(), [&] {
        player->render_sound(first_sample, count, stereo);
        return 0;
    });
}

int glr_player_frame(const glr_player *player) { return player ? player->frame() : -1; }

int glr_player_preroll(const glr_player *player) { return player ? player->preroll() : 0; }

void glr_player_get_stats(const glr_player *player, struct glr_player_stats *stats)
{
    if (player && stats)
        *stats = player->stats();
}

struct glr_scene_inputs glr_player_inputs(const glr_player *player)
{
    return player ? player->inputs() : glr_scene_inputs{};
}

struct glr_source glr_player_source(const glr_player *player)
{
    return player ? glr_scene_source(player->scene()) : glr_source{};
}

glr_scene *glr_player_scene(glr_player *player) { return player ? player->scene() : nullptr; }

void glr_player_destroy(glr_player **player)
{
    if (!player || !*player)
        return;
    delete *player;
    *player = nullptr;
}

} // extern "C"
