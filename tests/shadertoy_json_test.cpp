// Shadertoy's JSON read as a project (glreader/shadertoy_project.h): the API's and the
// site's shapes, every pass and input bound as Shadertoy binds them, Shadertoy's media found
// in a media folder or named when missing, hostile files refused with the field named, and
// a project written out as a folder that reads back the same. No GL: rendering a JSON is
// export_shadertoy_test's.
#include "support/gl_test.hpp"

#include "glreader/shadertoy_project.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sys/stat.h>

#include <cerrno>
#include <fstream>
#include <string>

namespace {

using json = nlohmann::json;

struct project_ptr {
    glr_project *p;
    ~project_ptr() { glr_project_destroy(&p); }
};

std::string folder(const std::string &name)
{
    std::string dir = glr_test::scratch_path(name);
    mkdir(dir.c_str(), 0755);
    return dir;
}

std::string write(const std::string &path, const std::string &text)
{
    std::ofstream(path, std::ios::binary) << text;
    return path;
}

json input(int channel, const char *type, json id, const char *file, json sampler = nullptr)
{
    json in = {{"id", id}, {"type", type}, {"channel", channel}, {"filepath", file}};
    if (!sampler.is_null())
        in["sampler"] = sampler;
    return in;
}

json sampler(const char *filter, const char *wrap, const char *vflip)
{
    return {{"filter", filter}, {"wrap", wrap}, {"vflip", vflip}, {"srgb", "false"}, {"internal", "byte"}};
}

// The site's export of a shader: Common, Buffer A reading itself and a texture, Buffer B
// (named only by its output id) reading A, Image reading B, the keyboard and music.
json site_shader(const char *id)
{
    json image = {{"type", "image"}, {"name", "Image"}, {"code", "void mainImage(out vec4 c, in vec2 p) { c = vec4(1); }"},
                  {"outputs", {{{"id", "4dfGRr"}, {"channel", 0}}}},
                  {"inputs",
                   {input(0, "buffer", "XsXGR8", "/media/previz/buffer01.png", sampler("nearest", "clamp", "true")),
                    input(1, "keyboard", "4dXGRr", "/presets/tex00.jpg"),
                    input(3, "music", "4sXGRn", "/media/a/song.mp3", sampler("linear", "clamp", "true"))}}};
    json buffer_a = {{"type", "buffer"}, {"name", "Buffer A"}, {"code", "void mainImage(out vec4 c, in vec2 p) { c = vec4(0.5); }"},
                     {"outputs", {{{"id", "4dXGR8"}, {"channel", 0}}}},
                     {"inputs",
                      {input(0, "buffer", "4dXGR8", "/media/previz/buffer00.png", sampler("linear", "clamp", "true")),
                       input(2, "texture", "XdX3Rn", "/media/a/noise.png", sampler("mipmap", "repeat", "false"))}}};
    json buffer_b = {{"type", "buffer"}, {"name", ""}, {"code", "void mainImage(out vec4 c, in vec2 p) { c = vec4(0.25); }"},
                     {"outputs", {{{"id", 258}, {"channel", 0}}}},
                     {"inputs", {input(1, "buffer", 257, "/media/previz/buffer00.png")}}};
    json common = {{"type", "common"}, {"name", "Common"}, {"code", "float shared_value() { return 1.0; }"},
                   {"inputs", json::array()}, {"outputs", json::array()}};
    json sound = {{"type", "sound"}, {"name", "Sound"},
                  {"code", "vec2 mainSound(int samp, float time) { return vec2(sin(6.2831 * 440.0 * time)); }"},
                  {"inputs", json::array()}, {"outputs", json::array()}};
    return {{"ver", "0.1"},
            {"info", {{"id", id}, {"name", std::string("shader ") + id}, {"username", "someone"}}},
            {"renderpass", {image, common, buffer_a, buffer_b, sound}}};
}

std::string error_of(const std::string &path, const char *media = nullptr)
{
    glr_project_params params{};
    params.path = path.c_str();
    params.media_dir = media;
    project_ptr project{glr_project_open(nullptr, &params)};
    return project.p ? "" : glr_last_error();
}

} // namespace

TEST(shadertoy_json, the_site_s_export_binds_every_pass_and_input_as_shadertoy_does)
{
    std::string dir = folder("site"), media = folder("site_media");
    mkdir((media + "/media").c_str(), 0755);
    mkdir((media + "/media/a").c_str(), 0755);
    write(media + "/media/a/noise.png", "(a picture)"); // laid out as the site has it
    write(media + "/song.mp3", "(a song)");              // by its name alone
    std::string file = write(dir + "/shader.json", json::array({site_shader("abc123")}).dump(2));

    glr_project_params params{};
    params.path = file.c_str();
    params.media_dir = media.c_str();
    project_ptr project{glr_project_open(nullptr, &params)};
    ASSERT_TRUE(project.p) << glr_last_error();

    glr_scene_params sp{};
    glr_project_scene_params(project.p, &sp);
    ASSERT_NE(sp.source, nullptr);
    EXPECT_NE(std::string(sp.source).find("vec4(1)"), std::string::npos);
    EXPECT_EQ(sp.source_path, nullptr);
    EXPECT_EQ(std::string(sp.source_name), file + " [Image]") << "errors name the file and the pass";
    EXPECT_NE(std::string(sp.common_source).find("shared_value"), std::string::npos);
    EXPECT_NE(std::string(sp.buffers[0].source).find("0.5"), std::string::npos);
    EXPECT_NE(std::string(sp.buffers[1].source).find("0.25"), std::string::npos) << "Buffer B by its output id 258";
    EXPECT_EQ(std::string(sp.buffers[1].source_name), file + " [Buffer B]");
    EXPECT_EQ(sp.buffers[2].source, nullptr);
    EXPECT_EQ(glr_project_has_sound_pass(project.p), 1);
    ASSERT_NE(sp.sound_source, nullptr);
    EXPECT_NE(std::string(sp.sound_source).find("mainSound"), std::string::npos);
    EXPECT_EQ(std::string(sp.sound_name), file + " [Sound]");

    const glr_channel_binding *b = glr_project_binding(project.p, GLR_SCENE_IMAGE_PASS, 0);
    EXPECT_EQ(b->channel.kind, GLR_CHANNEL_BUFFER);
    EXPECT_EQ(b->channel.buffer, 1);
    EXPECT_EQ(b->channel.filter, GLR_FILTER_NEAREST);
    EXPECT_EQ(glr_project_binding(project.p, GLR_SCENE_IMAGE_PASS, 1)->channel.kind, GLR_CHANNEL_KEYBOARD);
    EXPECT_EQ(glr_project_binding(project.p, GLR_SCENE_IMAGE_PASS, 2)->channel.kind, GLR_CHANNEL_NONE);
    b = glr_project_binding(project.p, GLR_SCENE_IMAGE_PASS, 3);
    EXPECT_EQ(b->media, GLR_MEDIA_SOUND);
    ASSERT_NE(b->path, nullptr);
    EXPECT_EQ(std::string(b->path), media + "/song.mp3");
    EXPECT_EQ(b->channel.vflip, GLR_VFLIP_OFF) << "the sound texture's rows are never flipped";

    b = glr_project_binding(project.p, 0, 0);
    EXPECT_EQ(b->channel.kind, GLR_CHANNEL_BUFFER);
    EXPECT_EQ(b->channel.buffer, 0) << "Buffer A reads itself";
    b = glr_project_binding(project.p, 0, 2);
    EXPECT_EQ(b->media, GLR_MEDIA_IMAGE);
    EXPECT_EQ(std::string(b->path), media + "/media/a/noise.png");
    EXPECT_EQ(b->channel.filter, GLR_FILTER_MIPMAP);
    EXPECT_EQ(b->channel.wrap, GLR_WRAP_REPEAT);
    EXPECT_EQ(b->channel.vflip, GLR_VFLIP_OFF) << "the JSON's vflip false";
    b = glr_project_binding(project.p, 1, 1);
    EXPECT_EQ(b->channel.buffer, 0) << "Buffer B reads A by its old number 257";
}

TEST(shadertoy_json, the_api_s_shape_and_a_collection_s_pick)
{
    std::string dir = folder("api");
    write(dir + "/noise.png", "(beside the JSON)");
    write(dir + "/song.mp3", "(beside the JSON)");
    // The API: {"Shader": ...}, inputs as ctype and src.
    json shader = site_shader("api1");
    for (json &pass : shader["renderpass"])
        for (json &in : pass["inputs"]) {
            in["ctype"] = in["type"];
            in["src"] = in["filepath"];
            in.erase("type");
            in.erase("filepath");
        }
    std::string api = write(dir + "/api.json", json{{"Shader", shader}}.dump());
    project_ptr from_api{glr_project_load(nullptr, api.c_str())};
    ASSERT_TRUE(from_api.p) << glr_last_error();
    EXPECT_EQ(std::string(glr_project_binding(from_api.p, 0, 2)->path), dir + "/noise.png");

    std::string many = write(dir + "/many.json", json::array({site_shader("one"), site_shader("two")}).dump());
    std::string error = error_of(many);
    EXPECT_NE(error.find("holds 2 shaders; pick one as FILE#ID:\n  one 'shader one'\n  two 'shader two'"),
              std::string::npos)
        << error;
    project_ptr picked{glr_project_load(nullptr, (many + "#two").c_str())};
    EXPECT_TRUE(picked.p) << glr_last_error();
    error = error_of(many + "#three");
    EXPECT_NE(error.find("no shader with the id 'three'"), std::string::npos) << error;
}

TEST(shadertoy_json, missing_media_are_named_with_the_input_and_the_file_to_supply)
{
    std::string dir = folder("missing"), media = folder("missing_media");
    std::string file = write(dir + "/shader.json", json::array({site_shader("m")}).dump());
    std::string error = error_of(file, media.c_str());
    EXPECT_EQ(glr_last_error_code(), -ENOENT);
    EXPECT_NE(error.find("needs Shadertoy's own media"), std::string::npos) << error;
    EXPECT_NE(error.find("Buffer A iChannel2: the texture /media/a/noise.png"), std::string::npos) << error;
    EXPECT_NE(error.find("--media FOLDER"), std::string::npos) << error;
    EXPECT_NE(error.find("looked in " + media + ", " + dir), std::string::npos) << error;
    // Music that is not here plays the render's own sound track instead: not an error.
    EXPECT_EQ(error.find("song.mp3"), std::string::npos) << error;

    write(media + "/noise.png", "(a picture)");
    EXPECT_EQ(error_of(file, media.c_str()), "");
    project_ptr project{[&] {
        glr_project_params params{};
        params.path = file.c_str();
        params.media_dir = media.c_str();
        return glr_project_open(nullptr, &params);
    }()};
    ASSERT_TRUE(project.p);
    EXPECT_EQ(glr_project_binding(project.p, GLR_SCENE_IMAGE_PASS, 3)->path, nullptr)
        << "the music's file is not here: the host's sound";
}

TEST(shadertoy_json, what_glreader_cannot_render_is_named)
{
    std::string dir = folder("unsupported");
    json shader = site_shader("u");
    shader["renderpass"][0]["inputs"].push_back(input(2, "webcam", "4dX3Rn", ""));
    shader["renderpass"].push_back({{"type", "cubemap"}, {"name", "Cube A"}, {"code", "void mainCubemap() {}"},
                                    {"outputs", {{{"id", "4dX3Rr"}, {"channel", 0}}}}});
    write(dir + "/noise.png", "x");
    std::string error = error_of(write(dir + "/shader.json", shader.dump()));
    EXPECT_EQ(glr_last_error_code(), -ENOTSUP);
    EXPECT_NE(error.find("Image iChannel2: a webcam"), std::string::npos) << error;
    EXPECT_NE(error.find("the Cube A pass"), std::string::npos) << error;
}

TEST(shadertoy_json, malformed_and_hostile_files_are_refused_naming_the_field)
{
    std::string dir = folder("hostile");
    std::string good = site_shader("h").dump();
    json wrong_channel = site_shader("h"), wrong_code = site_shader("h"), nowhere = site_shader("h"),
         bad_filter = site_shader("h"), no_image = site_shader("h"), twice = site_shader("h"),
         huge = site_shader("h"), bad_kind = site_shader("h");
    wrong_channel["renderpass"][0]["inputs"][0]["channel"] = "x";
    wrong_code["renderpass"][2]["code"] = 5;
    nowhere["renderpass"][0]["inputs"][0]["id"] = "zzzzzz";
    bad_filter["renderpass"][2]["inputs"][1]["sampler"]["filter"] = "cubic";
    no_image["renderpass"].erase(0);
    twice["renderpass"].push_back(twice["renderpass"][0]);
    for (int i = 0; i < 100; i++)
        huge["renderpass"].push_back(huge["renderpass"][1]);
    bad_kind["renderpass"][0]["inputs"][1]["type"] = "hologram";
    std::string deep(200, '[');
    struct {
        std::string text, says;
    } cases[] = {
        {good.substr(0, good.size() / 2), "not JSON: parse error at line 1"},
        {"", "not JSON"},
        {"42", "the document: a Shadertoy shader (an object) or an array of them, not 42"},
        {"[]", "an empty array: no shader"},
        {"{\"ver\": \"0.1\"}", "has no \"renderpass\": not a Shadertoy shader"},
        {wrong_channel.dump(), "the shader.renderpass[0].inputs[0].channel: 0..3, not \"x\""},
        {wrong_code.dump(), "the shader.renderpass[2].code: a string, not 5"},
        {nowhere.dump(), "the shader.renderpass[0].inputs[0].id: \"zzzzzz\" names no buffer"},
        {bad_filter.dump(), "renderpass[2].inputs[1].sampler.filter: nearest, linear or mipmap, not 'cubic'"},
        {no_image.dump(), "the shader.renderpass: has no image pass"},
        {twice.dump(), "the shader.renderpass[5]: a second Image pass"},
        {huge.dump(), "the shader.renderpass: holds 105 entries; Shadertoy has at most 16"},
        {bad_kind.dump(), "inputs[1].type: unknown input kind 'hologram'"},
        {deep, "nests deeper than 32 levels"},
    };
    for (const auto &c : cases) {
        std::string file = write(dir + "/bad.json", c.text);
        std::string error = error_of(file);
        EXPECT_EQ(glr_last_error_code(), -EINVAL) << c.says;
        EXPECT_EQ(error.rfind(file + ": ", 0), 0u) << "names the file: " << error;
        EXPECT_NE(error.find(c.says), std::string::npos) << c.text.substr(0, 80) << "\n -> " << error;
    }
    EXPECT_NE(error_of(dir + "/absent.json").find("cannot"), std::string::npos) << error_of(dir + "/absent.json");
    EXPECT_EQ(glr_last_error_code(), -ENOENT);
}

TEST(shadertoy_json, a_project_written_as_a_folder_reads_back_the_same)
{
    std::string dir = folder("written");
    write(dir + "/noise.png", "x");
    write(dir + "/song.mp3", "x");
    std::string file = write(dir + "/shader.json", site_shader("w").dump());
    project_ptr project{glr_project_load(nullptr, file.c_str())};
    ASSERT_TRUE(project.p) << glr_last_error();
    std::string out = glr_test::scratch_path("written_project");
    ASSERT_EQ(glr_project_write(project.p, out.c_str()), 0) << glr_last_error();

    project_ptr back{glr_project_load(nullptr, out.c_str())};
    ASSERT_TRUE(back.p) << glr_last_error();
    glr_scene_params sp{};
    glr_project_scene_params(back.p, &sp);
    EXPECT_EQ(std::string(sp.source_path), out + "/image.glsl");
    EXPECT_EQ(std::string(sp.common_path), out + "/common.glsl");
    EXPECT_EQ(std::string(sp.buffers[1].source_path), out + "/bufferB.glsl");
    EXPECT_EQ(sp.buffers[2].source_path, nullptr);
    EXPECT_EQ(std::string(sp.sound_path), out + "/sound.glsl") << "the Sound pass";
    EXPECT_EQ(glr_project_has_sound_pass(back.p), 1);
    std::ifstream image(out + "/image.glsl");
    EXPECT_EQ(std::string(std::istreambuf_iterator<char>(image), {}),
              "void mainImage(out vec4 c, in vec2 p) { c = vec4(1); }");
    for (int pass = 0; pass <= GLR_SCENE_IMAGE_PASS; pass++)
        for (int c = 0; c < GLR_SCENE_CHANNELS; c++) {
            const glr_channel_binding *a = glr_project_binding(project.p, pass, c), *b = glr_project_binding(back.p, pass, c);
            SCOPED_TRACE("pass " + std::to_string(pass) + " channel " + std::to_string(c));
            EXPECT_EQ(a->channel.kind, b->channel.kind);
            EXPECT_EQ(a->channel.buffer, b->channel.buffer);
            EXPECT_EQ(a->channel.filter, b->channel.filter);
            EXPECT_EQ(a->channel.wrap, b->channel.wrap);
            EXPECT_EQ(a->channel.vflip, b->channel.vflip);
            EXPECT_EQ(a->media, b->media);
            EXPECT_EQ(a->path ? std::string(a->path) : "", b->path ? std::string(b->path) : "");
        }

    // Never over what exists.
    EXPECT_EQ(glr_project_write(project.p, out.c_str()), -EEXIST);
    EXPECT_NE(std::string(glr_last_error()).find("already holds files"), std::string::npos) << glr_last_error();
}
