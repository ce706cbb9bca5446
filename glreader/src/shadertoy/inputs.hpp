// A frame's Shadertoy inputs from the render's clock, and strict readers of the values
// users give for iMouse and iDate. Each throws glr::failure (-EINVAL) quoting bad input.
#pragma once

#include "glreader/shadertoy_project.h"

namespace glr {

void shadertoy_inputs(const glr_shadertoy_clock &clock, int frame, glr_scene_inputs &inputs);
void parse_mouse(const char *text, float mouse[4]);
long long parse_date(const char *text);

} // namespace glr
