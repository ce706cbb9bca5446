// How far apart two names are, for "did you mean ...?": the edits (a letter added, dropped
// or changed) that turn one into the other (Levenshtein's distance).
#pragma once

#include <cstddef>
#include <string>

namespace glr {

size_t edit_distance(const std::string &a, const std::string &b);

} // namespace glr
