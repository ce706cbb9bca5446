#include "gl/shadertoy_source.hpp"

#include <regex>
#include <string>
#include <set>
#include <sstream>

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
    case entry_point: return {"glreader's main() (is mainImage defined?)", local};
    default: return {"glreader's Shadertoy prelude", local};
    }
}

std::string line_directive(section s) { return "#line " + std::to_string(s * section_span + 1) + "\n"; }

} // namespace

std::string fragment_source(const pass_source &pass)
{
    std::ostringstream s;
    s << "#version 330 core\n" << line_directive(prelude)
      << "#define HW_PERFORMANCE 1\n"
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
        s << line_directive(common_section) << pass.common << "\n";
    s << line_directive(pass_body) << pass.body << "\n";
    s << line_directive(entry_point)
      << "void main() {\n"
         "    vec4 c = vec4(0.0, 0.0, 0.0, 1.0);\n"
         "    mainImage(c, gl_FragCoord.xy);\n"
      << (pass.image_pass ? "    glr_colour = vec4(c.rgb, 1.0);\n" : "    glr_colour = c;\n") << "}\n";
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
        if (std::regex_match(line, m, mesa)) {
            message = m[4];
            place at = place_of(std::stol(m[2]), pass);
            located = at.name + ":" + std::to_string(at.line) + ":" + m[3].str() + ": " + message;
        } else if (std::regex_match(line, m, nvidia)) {
            message = m[3];
            place at = place_of(std::stol(m[2]), pass);
            located = at.name + ":" + std::to_string(at.line) + ": " + message;
        }
        // Mesa lists every overload after "candidates are:", a line each, indented.
        if (in_candidates && message.find("error:    ") == 0)
            continue;
        in_candidates = false;
        size_t candidates = located.find("; candidates are:");
        if (candidates != std::string::npos) {
            located.erase(candidates);
            in_candidates = true;
        }
        if (located.empty() || !seen.insert(located).second)
            continue;
        out += located + "\n";
    }
    while (!out.empty() && out.back() == '\n')
        out.pop_back();
    return out;
}

} // namespace glr::shadertoy
