#include "scene/shadertoy_source.hpp"

#include <algorithm>
#include <regex>
#include <string>
#include <set>
#include <sstream>
#include <vector>

namespace glr::shadertoy {

namespace {

// Each section starts at a line number of its own ("#line N"), so a line in the log tells
// whose it is. (Mesa reports every line as source string 0 whatever "#line L S" says, so
// source string numbers cannot carry it.) The pass's own lines count from 1 unchanged.
constexpr long section_span = 1000000;
enum section { pass_body = 0, common_section = 1, entry_point = 2, prelude = 3 };

struct place {
    std::string name;
    long line;
};

place place_of(long line, const pass_source &pass)
{
    long local = line % section_span;
    switch (line / section_span) {
    case pass_body: return {pass.body_name, local};
    case common_section: return {pass.common_name, local};
    case entry_point: return {"glreader's main()", local};
    default: return {"glreader's Shadertoy prelude", local};
    }
}

std::string line_directive(section s) { return "#line " + std::to_string(s * section_span + 1) + "\n"; }

// The GLSL version glreader's first line asks for, unless an author asks for more.
constexpr int base_version = 330;

// An author's "#version N [profile]" line (shaders written for desktop GL carry one; only
// the source's first line may): blanked, so the line count stays, and a desktop version
// above base_version raises `version`, the one glreader's own first line asks for.
std::string without_version_line(const std::string &text, int &version)
{
    static const std::regex directive(R"(^[ \t]*#[ \t]*version[ \t]+(\d+)(?:[ \t]+(\w+))?[ \t]*\r?$)");
    std::istringstream lines(text);
    std::string out;
    std::smatch m;
    for (std::string line; std::getline(lines, line);) {
        if (std::regex_match(line, m, directive)) {
            if (m[2] != "es")
                version = std::max(version, std::stoi(m[1]));
            line.clear();
        }
        out += line + "\n";
    }
    return out;
}

// What glreader knows to differ between Shadertoy (WebGL 2, GLSL ES 3.00) and the desktop
// GLSL it compiles, keyed by words of a compiler's error.
struct difference {
    std::regex error;
    const char *hint;
};

const std::vector<difference> &differences()
{
    static const std::vector<difference> known = {
        {std::regex(R"((un)?pack(Half|Snorm|Unorm)2x16)"),
         "GLSL ES 3.00's packing functions need GLSL 4.20 or GL_ARB_shading_language_packing, which this OpenGL "
         "driver lacks"},
        {std::regex(R"(\b(texture2D|texture2DLod|textureCube|texture2DProj|gl_FragColor)\b)"),
         "WebGL 1's names, which GLSL ES 3.00 (Shadertoy's since 2017) has not: texture2D and textureCube are "
         "texture(), texture2DLod is textureLod(), and mainImage writes fragColor, not gl_FragColor"},
    };
    return known;
}

// The errors with, under the first whose Shadertoy difference glreader knows, that
// difference.
std::string with_shadertoy_difference(const std::string &errors)
{
    std::istringstream lines(errors);
    std::string out;
    bool told = false;
    for (std::string line; std::getline(lines, line);) {
        out += (out.empty() ? "" : "\n") + line;
        for (const difference &d : differences())
            if (!told && std::regex_search(line, d.error)) {
                out += std::string("\n(a difference from Shadertoy: ") + d.hint + ")";
                told = true;
            }
    }
    return out;
}

bool is_blank(const std::string &text) { return text.find_first_not_of(" \t\r\n") == std::string::npos; }

} // namespace

namespace {

// Shadertoy's inputs, the Common section and the pass's body, numbered by section; the
// entry point follows.
std::string sections(const pass_source &pass)
{
    int version = base_version;
    std::string common = without_version_line(pass.common, version), body = without_version_line(pass.body, version);
    std::ostringstream s;
    s << "#version " << version << " core\n" << line_directive(prelude)
      // GLSL ES 3.00's packing built-ins (packHalf2x16 and its kin), which desktop GLSL
      // has only from 4.20 on, through the extension every GL 4 driver offers.
      << "#if __VERSION__ < 420\n"
         "#extension GL_ARB_shading_language_packing : enable\n"
         "#endif\n"
         "#define HW_PERFORMANCE 1\n"
         "#define iGlobalTime iTime\n" // its name before 2017, in Kodi's visualizers and old posts
         "uniform vec3 iResolution;\n"
         "uniform float iTime;\n"
         "uniform float iTimeDelta;\n"
         "uniform float iFrameRate;\n"
         "uniform int iFrame;\n"
         "uniform float iChannelTime[4];\n"
         "uniform vec3 iChannelResolution[4];\n"
         "uniform vec4 iMouse;\n"
         "uniform vec4 iDate;\n"
         "uniform float iSampleRate;\n";
    for (int i = 0; i < 4; i++)
        s << "uniform " << (pass.cube_channels[static_cast<size_t>(i)] ? "samplerCube" : "sampler2D")
          << " iChannel" << i << ";\n";
    s << "out vec4 glr_colour;\n";
    if (!pass.common.empty())
        s << line_directive(common_section) << common << "\n";
    s << line_directive(pass_body) << body << "\n";
    s << line_directive(entry_point);
    return s.str();
}

} // namespace

std::string fragment_source(const pass_source &pass)
{
    std::ostringstream s;
    s << sections(pass)
      << "void main() {\n"
         "    vec4 c = vec4(0.0, 0.0, 0.0, 1.0);\n"
         "    mainImage(c, gl_FragCoord.xy);\n"
      << (!pass.image_pass || pass.alpha == GLR_ALPHA_STRAIGHT ? "    glr_colour = c;\n"
          : pass.alpha == GLR_ALPHA_PREMULTIPLIED         ? "    glr_colour = vec4(c.rgb * clamp(c.a, 0.0, 1.0), c.a);\n"
                                                          : "    glr_colour = vec4(c.rgb, 1.0);\n")
      << "}\n";
    return s.str();
}

std::string sound_source(const pass_source &pass)
{
    // Shadertoy's mainSound took only the time before 2020.
    static const std::regex time_only(R"(vec2\s+mainSound\s*\(\s*(in\s+)?float\b)");
    bool old_form = std::regex_search(pass.body, time_only);
    std::ostringstream s;
    s << sections(pass)
      << "uniform int glr_first_sample;\n"
         "uniform float glr_first_time;\n" // first_sample / rate, in double on the CPU
         "uniform int glr_block_width;\n"
         "void main() {\n"
         "    int local = int(gl_FragCoord.y) * glr_block_width + int(gl_FragCoord.x);\n"
         "    float t = glr_first_time + float(local) / iSampleRate;\n"
      << (old_form ? "    vec2 y = mainSound(t);\n" : "    vec2 y = mainSound(glr_first_sample + local, t);\n")
      << "    // Each channel as 16 bits over two bytes, as Shadertoy stores a sample.\n"
         "    vec2 v = floor((0.5 + 0.5 * clamp(y, -1.0, 1.0)) * 65535.0 + 0.5);\n"
         "    vec2 high = floor(v / 256.0), low = v - 256.0 * high;\n"
         "    glr_colour = vec4(low.x, high.x, low.y, high.y) / 255.0;\n"
         "}\n";
    return s.str();
}

std::string locate_errors(const std::string &log, const pass_source &pass)
{
    static const std::regex mesa(R"(^(\d+):(\d+)\((\d+)\): (.*)$)"), nvidia(R"(^(\d+)\((\d+)\) : (.*)$)");
    std::istringstream lines(log);
    std::string line, out;
    std::set<std::string> seen;
    bool in_candidates = false;
    for (std::smatch m; std::getline(lines, line);) {
        std::string located = line, message = line;
        long at_line = -1;
        if (std::regex_match(line, m, mesa)) {
            message = m[4];
            at_line = std::stol(m[2]);
            place at = place_of(at_line, pass);
            located = at.name + ":" + std::to_string(at.line) + ":" + m[3].str() + ": " + message;
        } else if (std::regex_match(line, m, nvidia)) {
            message = m[3];
            at_line = std::stol(m[2]);
            place at = place_of(at_line, pass);
            located = at.name + ":" + std::to_string(at.line) + ": " + message;
        }

        // Mesa lists every overload after "candidates are:", a line each, indented.
        if (in_candidates && message.find("error:    ") == 0)
            continue;
        in_candidates = false;
        size_t candidates = located.find("; candidates are:");
        if (candidates != std::string::npos) {
            located.erase(candidates);
            message.erase(message.find("; candidates are:"));
            in_candidates = true;
        }
        // An error in glreader's main() is the author's missing (or misdeclared) mainImage.
        if (at_line >= 0 && at_line / section_span == entry_point)
            located = pass.body_name + ": " + message + " (glreader's main() calls mainImage(out vec4 fragColor, in "
                      "vec2 fragCoord); " + (is_blank(pass.body) ? "the file is empty)" : "this file defines none of that form)");
        if (located.empty() || !seen.insert(located).second)
            continue;
        out += located + "\n";
    }
    while (!out.empty() && out.back() == '\n')
        out.pop_back();
    return with_shadertoy_difference(out);
}

} // namespace glr::shadertoy
