#include "scene.hpp"

#include "gl_program.hpp"

#include "glreader/glreader.hpp"

namespace sample {

namespace {

glr_scene_params single_pass(int width, int height, const shader_spec &shader, glr_get_proc_address_fn loader)
{
    glr_scene_params p{};
    p.width = width;
    p.height = height;
    p.source = shader.text.empty() ? nullptr : shader.text.c_str();
    p.source_path = shader.path.empty() ? nullptr : shader.path.c_str();
    p.source_name = shader.name.empty() ? nullptr : shader.name.c_str();
    p.get_proc_address = loader;
    return p;
}

} // namespace

scene::scene(int width, int height, const shader_spec &shader, glr_get_proc_address_fn loader, glr_log *log)
    : scene(single_pass(width, height, shader, loader), log)
{
}

scene::scene(const glr_scene_params &params, glr_log *log)
{
    load_gl(gl_, params.get_proc_address ? params.get_proc_address : glr_context_get_proc_address);
    scene_ = glr_scene_create(log, &params);
    if (!scene_)
        glr::detail::throw_create_failure("glr_scene_create");
}

void scene::render(const glr_scene_inputs &inputs)
{
    glr::detail::check(glr_scene_render(scene_, &inputs), "glr_scene_render");
}

void scene::draw(int frame, double seconds, double delta)
{
    glr::detail::check(glr_scene_draw(scene_, frame, seconds, delta), "glr_scene_draw");
}

} // namespace sample
