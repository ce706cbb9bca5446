#include "shadertoy/shadertoy_json.hpp"

#include "error.hpp"

#include <nlohmann/json.hpp>

#include <cerrno>

namespace glr::shadertoy {

namespace {

using json = nlohmann::json;

// Deeper than any Shadertoy file nests (6 levels), shallow enough to refuse a hostile one
// before it costs anything.
constexpr int max_depth = 32;
// Shadertoy has at most 7 passes (Image, Common, Buffer A..D, Cube A, Sound) and 4 inputs.
constexpr size_t max_passes = 16, max_inputs = 4;

// Shadertoy's ids of a buffer's output (and of an input that reads it): the site's
// strings and the older numbers. Index 4 is Cube A.
const char *const buffer_ids[] = {"4dXGR8", "XsXGR8", "4sXGR8", "XdfGR8", "4dX3Rr"};
const int buffer_numbers[] = {257, 258, 259, 260, 41};
const char *const buffer_names[] = {"Buffer A", "Buffer B", "Buffer C", "Buffer D", "Cube A"};

std::string describe_value(const json &v)
{
    std::string text = v.dump();
    return text.size() > 40 ? std::string(v.type_name()) : text;
}

class reader {
public:
    explicit reader(const std::string &file) : file_(file) {}

    [[noreturn]] void bad(const std::string &at, const std::string &why) const
    {
        fail(-EINVAL, "%s: %s: %s", file_.c_str(), at.c_str(), why.c_str());
    }

    const json &object(const json &v, const std::string &at) const
    {
        if (!v.is_object())
            bad(at, "an object, not " + describe_value(v));
        return v;
    }

    const json &array(const json &v, const std::string &at, size_t most) const
    {
        if (!v.is_array())
            bad(at, "an array, not " + describe_value(v));
        if (v.size() > most)
            bad(at, "holds " + std::to_string(v.size()) + " entries; Shadertoy has at most " + std::to_string(most));
        return v;
    }

    // A string member; `required` false: empty when absent.
    std::string text(const json &o, const char *key, const std::string &at, bool required) const
    {
        auto it = o.find(key);
        if (it == o.end()) {
            if (required)
                bad(at, std::string("has no \"") + key + "\"");
            return {};
        }
        if (!it->is_string())
            bad(at + "." + key, "a string, not " + describe_value(*it));
        return it->get<std::string>();
    }

    // A string or a number member, as text (ids and dates are either).
    std::string text_or_number(const json &o, const char *key, const std::string &at) const
    {
        auto it = o.find(key);
        if (it == o.end())
            return {};
        if (it->is_number_integer())
            return std::to_string(it->get<long long>());
        return text(o, key, at, false);
    }

    // "true"/"false" or a boolean; -1 when absent.
    int flag(const json &o, const char *key, const std::string &at) const
    {
        auto it = o.find(key);
        if (it == o.end())
            return -1;
        if (it->is_boolean())
            return it->get<bool>();
        if (it->is_string() && (*it == "true" || *it == "false"))
            return *it == "true";
        bad(at + "." + key, "true or false, not " + describe_value(*it));
    }

    // A buffer's index from an id ("4dXGR8" or 257); -1 for an id of no buffer.
    int buffer_of(const json &id) const
    {
        for (int i = 0; i < 5; i++)
            if ((id.is_string() && id == buffer_ids[i]) || (id.is_number_integer() && id == buffer_numbers[i]))
                return i;
        return -1;
    }

    json_input input(const json &v, const std::string &at) const
    {
        object(v, at);
        json_input in;
        auto channel = v.find("channel");
        if (channel == v.end() || !channel->is_number_integer() || *channel < 0 || *channel > 3)
            bad(at + ".channel", channel == v.end() ? "missing (0..3)" : "0..3, not " + describe_value(*channel));
        in.channel = channel->get<int>();
        in.kind = v.contains("ctype") ? text(v, "ctype", at, true) : text(v, "type", at, true);
        in.media = v.contains("src") ? text(v, "src", at, true) : text(v, "filepath", at, false);
        if (in.kind == "buffer") {
            auto id = v.find("id");
            if (id == v.end() || (in.buffer = buffer_of(*id)) < 0)
                bad(at + ".id", id == v.end() ? "missing: which buffer the input reads"
                                              : describe_value(*id) + " names no buffer (Buffer A..D: 4dXGR8, "
                                                                      "XsXGR8, 4sXGR8, XdfGR8 or 257..260)");
        } else if (in.kind == "texture" || in.kind == "cubemap" || in.kind == "video" || in.kind == "music" ||
                   in.kind == "volume") {
            if (in.media.empty())
                bad(at, "a " + in.kind + " input needs its file (\"src\" or \"filepath\")");
        } else if (in.kind != "keyboard" && in.kind != "musicstream" && in.kind != "mic" && in.kind != "webcam") {
            bad(at + ".type", "unknown input kind '" + in.kind +
                                  "' (texture, cubemap, volume, video, music, musicstream, mic, webcam, keyboard, buffer)");
        }
        auto sampler = v.find("sampler");
        if (sampler != v.end()) {
            std::string s = at + ".sampler";
            object(*sampler, s);
            in.filter = text(*sampler, "filter", s, false);
            if (!in.filter.empty() && in.filter != "nearest" && in.filter != "linear" && in.filter != "mipmap")
                bad(s + ".filter", "nearest, linear or mipmap, not '" + in.filter + "'");
            in.wrap = text(*sampler, "wrap", s, false);
            if (!in.wrap.empty() && in.wrap != "clamp" && in.wrap != "repeat")
                bad(s + ".wrap", "clamp or repeat, not '" + in.wrap + "'");
            in.vflip = flag(*sampler, "vflip", s);
            in.srgb = flag(*sampler, "srgb", s) == 1;
        }
        return in;
    }

    json_pass pass(const json &v, const std::string &at) const
    {
        object(v, at);
        json_pass p;
        p.type = text(v, "type", at, true);
        if (p.type != "image" && p.type != "buffer" && p.type != "common" && p.type != "sound" && p.type != "cubemap")
            bad(at + ".type", "unknown pass type '" + p.type + "' (image, buffer, common, sound, cubemap)");
        p.name = text(v, "name", at, false);
        p.code = text(v, "code", at, true);
        if (p.type == "buffer" || p.type == "cubemap") {
            // The output's id says which buffer; files without one name it.
            auto outputs = v.find("outputs");
            if (outputs != v.end()) {
                array(*outputs, at + ".outputs", max_inputs);
                for (size_t i = 0; i < outputs->size() && p.buffer < 0; i++) {
                    std::string o = at + ".outputs[" + std::to_string(i) + "]";
                    const json &output = object((*outputs)[i], o);
                    auto id = output.find("id");
                    if (id != output.end() && (p.buffer = buffer_of(*id)) < 0)
                        bad(o + ".id", describe_value(*id) + " names no buffer");
                }
            }
            for (int i = 0; i < 5 && p.buffer < 0; i++)
                if (p.name == buffer_names[i])
                    p.buffer = i;
            if (p.buffer < 0)
                bad(at, "a " + p.type + " pass with neither an output id nor a name saying which buffer it is");
            if ((p.type == "cubemap") != (p.buffer == 4))
                bad(at, "a " + p.type + " pass writes " + buffer_names[p.buffer]);
        }
        if (p.name.empty())
            p.name = p.type == "image" ? "Image" : p.type == "common" ? "Common" : p.type == "sound" ? "Sound"
                                                                                                    : buffer_names[p.buffer];
        auto inputs = v.find("inputs");
        if (inputs != v.end() && !inputs->is_null()) {
            array(*inputs, at + ".inputs", max_inputs);
            for (size_t i = 0; i < inputs->size(); i++)
                p.inputs.push_back(input((*inputs)[i], at + ".inputs[" + std::to_string(i) + "]"));
        }
        return p;
    }

    json_shader shader(const json &v, const std::string &at) const
    {
        object(v, at);
        json_shader s;
        auto info = v.find("info");
        if (info != v.end()) {
            object(*info, at + ".info");
            s.id = text_or_number(*info, "id", at + ".info");
            s.name = text(*info, "name", at + ".info", false);
            s.author = text(*info, "username", at + ".info", false);
        }
        auto passes = v.find("renderpass");
        if (passes == v.end())
            bad(at, "has no \"renderpass\": not a Shadertoy shader");
        array(*passes, at + ".renderpass", max_passes);
        bool image = false;
        for (size_t i = 0; i < passes->size(); i++) {
            std::string p = at + ".renderpass[" + std::to_string(i) + "]";
            s.passes.push_back(pass((*passes)[i], p));
            const json_pass &added = s.passes.back();
            for (size_t j = 0; j + 1 < s.passes.size(); j++)
                if (s.passes[j].type == added.type && (added.type != "buffer" || s.passes[j].buffer == added.buffer))
                    bad(p, "a second " + added.name + " pass");
            image = image || added.type == "image";
        }
        if (!image)
            bad(at + ".renderpass", "has no image pass");
        return s;
    }

private:
    const std::string &file_;
};

json parse(const std::string &text, const reader &r)
{
    try {
        return json::parse(text, [&](int depth, json::parse_event_t, json &) {
            if (depth > max_depth)
                r.bad("the document", "nests deeper than " + std::to_string(max_depth) + " levels: no Shadertoy file");
            return true;
        });
    } catch (const json::parse_error &e) {
        std::string why = e.what();
        size_t bracket = why.find("] ");
        r.bad("not JSON", bracket == std::string::npos ? why : why.substr(bracket + 2));
    }
}

} // namespace

json_shader read_shadertoy_json(const std::string &text, const std::string &file, const std::string &pick)
{
    reader r(file);
    json document = parse(text, r);
    // The API wraps the shader: {"Shader": {...}}; an export is the shader or an array.
    std::vector<std::pair<const json *, std::string>> shaders;
    if (document.is_object() && document.contains("Shader"))
        shaders.push_back({&document["Shader"], "Shader"});
    else if (document.is_array())
        for (size_t i = 0; i < document.size(); i++)
            shaders.push_back({&document[i], "[" + std::to_string(i) + "]"});
    else if (document.is_object())
        shaders.push_back({&document, "the shader"});
    else
        r.bad("the document", "a Shadertoy shader (an object) or an array of them, not " + describe_value(document));
    if (shaders.empty())
        r.bad("the document", "an empty array: no shader");

    // Only the shader picked is read whole: one broken entry of a collection spoils no other.
    auto id_of = [&](const json &v, const std::string &at) {
        auto info = v.is_object() ? v.find("info") : v.end();
        return info != v.end() && info->is_object() ? r.text_or_number(*info, "id", at + ".info") : std::string();
    };
    if (shaders.size() == 1 && (pick.empty() || id_of(*shaders[0].first, shaders[0].second) == pick))
        return r.shader(*shaders[0].first, shaders[0].second);
    std::string list;
    for (const auto &[at, where] : shaders) {
        std::string id = id_of(*at, where);
        if (!pick.empty() && id == pick)
            return r.shader(*at, where);
        auto info = at->is_object() ? at->find("info") : at->end();
        std::string name = info != at->end() && info->is_object() ? r.text(*info, "name", where + ".info", false) : "";
        list += "\n  " + (id.empty() ? std::string("(no id)") : id) + (name.empty() ? "" : " '" + name + "'");
    }
    if (pick.empty())
        r.bad("the document", "holds " + std::to_string(shaders.size()) + " shaders; pick one as FILE#ID:" + list);
    r.bad("the document", "holds no shader with the id '" + pick + "'; it holds:" + list);
}

} // namespace glr::shadertoy
