// glreader/shadertoy_project.h: projects and channel specs as every host reads them, the
// strict readers of mouse and date values, and each frame's inputs from the clock; and
// glr_media_channels opening a project's files (no GL: nothing is uploaded here).
#include "support/audio_files.hpp"
#include "support/gl_test.hpp"

#define GLR_MEDIA_STATIC // reads the decoders' own fields
#include "glreader/utils/libav_media.h"

#include <gtest/gtest.h>

#include <sys/stat.h>

#include <cerrno>
#include <ctime>
#include <fstream>
#include <string>

namespace {

struct project_ptr {
    glr_project *p;
    ~project_ptr() { glr_project_destroy(&p); }
};

std::string make_project(const std::string &name, const std::string &channels,
                         std::initializer_list<const char *> passes = {"image"})
{
    std::string dir = glr_test::scratch_path(name);
    mkdir(dir.c_str(), 0755);
    for (const char *pass : passes)
        std::ofstream(dir + "/" + pass + ".glsl") << "void mainImage(out vec4 c, in vec2 p) { c = vec4(1); }\n";
    std::ofstream(dir + "/channels") << channels;
    return dir;
}

std::string load_error(const std::string &path)
{
    project_ptr project{glr_project_load(nullptr, path.c_str())};
    return project.p ? "" : glr_last_error();
}

TEST(shadertoy_project, a_directory_binds_every_pass_s_channels_with_paths_from_the_project)
{
    std::string dir = make_project("full", "# comment\n"
                                           "image.channel0 buffer:A\n"
                                           "  image.channel3   video:clip.mp4,loop=off,filter=nearest # why\n"
                                           "bufferA.channel1 image:/abs/noise.png,wrap=clamp,vflip=off\n"
                                           "bufferB.channel2 sound\n",
                                   {"image", "common", "bufferA", "bufferB"});
    project_ptr project{glr_project_load(nullptr, dir.c_str())};
    ASSERT_TRUE(project.p) << glr_last_error();

    const glr_channel_binding *b = glr_project_binding(project.p, GLR_SCENE_IMAGE_PASS, 0);
    EXPECT_EQ(b->channel.kind, GLR_CHANNEL_BUFFER);
    EXPECT_EQ(b->channel.buffer, 0);
    EXPECT_EQ(b->media, GLR_MEDIA_NONE);
    b = glr_project_binding(project.p, GLR_SCENE_IMAGE_PASS, 3);
    EXPECT_EQ(b->media, GLR_MEDIA_VIDEO);
    EXPECT_EQ(std::string(b->path), dir + "/clip.mp4");
    EXPECT_EQ(b->loop, 0);
    EXPECT_EQ(b->channel.filter, GLR_FILTER_NEAREST);
    b = glr_project_binding(project.p, 0, 1);
    EXPECT_EQ(std::string(b->path), "/abs/noise.png");
    EXPECT_EQ(b->channel.wrap, GLR_WRAP_CLAMP);
    EXPECT_EQ(b->channel.vflip, GLR_VFLIP_OFF);
    b = glr_project_binding(project.p, 1, 2);
    EXPECT_EQ(b->media, GLR_MEDIA_SOUND);
    EXPECT_EQ(b->path, nullptr) << "a sound without a file takes the host's audio";
    EXPECT_EQ(b->channel.filter, GLR_FILTER_LINEAR);
    EXPECT_EQ(glr_project_binding(project.p, 5, 0), nullptr);
    EXPECT_EQ(glr_project_binding(project.p, 0, 4), nullptr);

    glr_scene_params params{};
    params.width = 7;
    glr_project_scene_params(project.p, &params);
    EXPECT_EQ(params.width, 7) << "what the project does not know stays";
    EXPECT_EQ(std::string(params.source_path), dir + "/image.glsl");
    EXPECT_EQ(std::string(params.common_path), dir + "/common.glsl");
    EXPECT_EQ(std::string(params.buffers[1].source_path), dir + "/bufferB.glsl");
    EXPECT_EQ(params.buffers[2].source_path, nullptr);
    EXPECT_EQ(params.channels[0].kind, GLR_CHANNEL_BUFFER);
    EXPECT_EQ(params.buffers[0].channels[1].kind, GLR_CHANNEL_TEXTURE);

    // A spec given by the host replaces the project's, relative paths as they are.
    ASSERT_EQ(glr_project_bind(project.p, GLR_SCENE_IMAGE_PASS, 3, "image:here.png", "--channel3"), 0);
    EXPECT_EQ(std::string(glr_project_binding(project.p, GLR_SCENE_IMAGE_PASS, 3)->path), "here.png");
}

TEST(shadertoy_project, a_file_or_nothing_is_the_image_pass_alone)
{
    project_ptr file{glr_project_load(nullptr, "/some/shader.frag")};
    ASSERT_TRUE(file.p);
    glr_scene_params params{};
    glr_project_scene_params(file.p, &params);
    EXPECT_EQ(std::string(params.source_path), "/some/shader.frag");
    EXPECT_EQ(params.buffers[0].source_path, nullptr);

    project_ptr builtin{glr_project_load(nullptr, nullptr)};
    ASSERT_TRUE(builtin.p);
    glr_scene_params none{};
    glr_project_scene_params(builtin.p, &none);
    EXPECT_EQ(none.source_path, nullptr);
    EXPECT_EQ(glr_project_bind(builtin.p, GLR_SCENE_IMAGE_PASS, 0, "keyboard", nullptr), 0)
        << "the built-in scene's channels can be bound too";
}

TEST(shadertoy_project, bad_projects_and_specs_say_where_and_why)
{
    std::string empty = glr_test::scratch_path("no_image");
    mkdir(empty.c_str(), 0755);
    EXPECT_NE(load_error(empty).find("has no image.glsl"), std::string::npos) << load_error(empty);
    EXPECT_EQ(glr_last_error_code(), -ENOENT);

    struct {
        const char *line, *says;
    } cases[] = {
        {"image.channel4 keyboard", "'image.channel4' is not PASS.channelN"},
        {"imagex.channel0 keyboard", "'imagex.channel0' is not PASS.channelN"},
        {"bufferC.channel0 keyboard", "the project has no bufferC.glsl"},
        {"image.channel0", "an empty channel"},
        {"image.channel0 picture:x.png", "unknown channel kind 'picture'"},
        {"image.channel0 image", "image needs a file"},
        {"image.channel0 buffer:E", "buffer takes A, B, C or D, not 'E'"},
        {"image.channel0 cubemap:sky.png", "cubemap needs a pattern with {}"},
        {"image.channel0 image:x.png,filter=cubic", "filter takes nearest, linear or mipmap, not 'cubic'"},
        {"image.channel0 image:x.png,vflip=maybe", "vflip takes on or off, not 'maybe'"},
        {"image.channel0 image:x.png,loop=off", "unknown channel option 'loop=off'"},
    };
    for (const auto &c : cases) {
        std::string dir = make_project("bad", std::string("\n") + c.line + "\n");
        std::string error = load_error(dir);
        EXPECT_NE(error.find(dir + "/channels:2: "), std::string::npos) << c.line << ": " << error;
        EXPECT_NE(error.find(c.says), std::string::npos) << c.line << ": " << error;
    }

    project_ptr project{glr_project_load(nullptr, nullptr)};
    EXPECT_EQ(glr_project_bind(project.p, GLR_SCENE_IMAGE_PASS, 4, "keyboard", "channel4"), -EINVAL);
    EXPECT_NE(std::string(glr_last_error()).find("channel4: no pass 4 or channel 4"), std::string::npos)
        << glr_last_error();
    EXPECT_EQ(glr_project_bind(project.p, 0, 0, "keyboard", "--x"), -EINVAL);
    EXPECT_NE(std::string(glr_last_error()).find("the project has no bufferA.glsl"), std::string::npos);
}

TEST(shadertoy_project, mouse_and_date_are_read_strictly)
{
    float m[4] = {9, 9, 9, 9};
    ASSERT_EQ(glr_shadertoy_parse_mouse("10,20.5", m), 0);
    EXPECT_EQ(m[0], 10.0f);
    EXPECT_EQ(m[1], 20.5f);
    EXPECT_EQ(m[2], 10.0f);
    EXPECT_EQ(m[3], -20.5f) << "held down since before the first frame";
    ASSERT_EQ(glr_shadertoy_parse_mouse("1,2,-3,4e1", m), 0);
    EXPECT_EQ(m[3], 40.0f);
    for (const char *bad : {"", "1", "1,2,3", "1,2,3,4,5", "1,2x", "1,,2", "1,2,", " 1,2", "1, 2", "nan,1",
                            "inf,1", "1e99,1", "0x,1"}) {
        EXPECT_EQ(glr_shadertoy_parse_mouse(bad, m), -EINVAL) << "'" << bad << "'";
        EXPECT_NE(std::string(glr_last_error()).find("'" + std::string(bad) + "'"), std::string::npos);
    }

    long long seconds = 0;
    ASSERT_EQ(glr_shadertoy_parse_date("2026-11-22", &seconds), 0);
    EXPECT_EQ(seconds, 1795305600LL);
    ASSERT_EQ(glr_shadertoy_parse_date("2024-02-29T23:59:58", &seconds), 0);
    EXPECT_EQ(seconds, 1709251198LL);
    for (const char *bad : {"", "2026-11-2", "2026-1-22", "2026-02-30", "2025-02-29", "2026-13-01",
                            "2026-11-22T24:00:00", "2026-11-22T12:60:00", "2026-11-22 12:00:00", "2026-11-22x",
                            "2026-11-22T12:00:00Z", "+026-11-22"}) {
        EXPECT_EQ(glr_shadertoy_parse_date(bad, &seconds), -EINVAL) << "'" << bad << "'";
        EXPECT_NE(std::string(glr_last_error()).find("'" + std::string(bad) + "'"), std::string::npos);
    }
}

TEST(shadertoy_project, a_frame_s_inputs_follow_the_clock)
{
    glr_shadertoy_clock clock{};
    clock.fps_num = 30000;
    clock.fps_den = 1001;
    clock.mouse[0] = 5;
    clock.date_start = 1795305600LL + 86399; // 23:59:59 UTC: frame 30 is the next day
    clock.sample_rate = 48000;
    glr_scene_inputs in{};
    ASSERT_EQ(glr_shadertoy_inputs(&clock, 30, &in), 0);
    EXPECT_EQ(in.frame, 30);
    EXPECT_DOUBLE_EQ(in.time, 30 * 1001.0 / 30000);
    EXPECT_DOUBLE_EQ(in.time_delta, 1001.0 / 30000);
    EXPECT_DOUBLE_EQ(in.frame_rate, 30000.0 / 1001);
    EXPECT_EQ(in.mouse[0], 5.0f);
    EXPECT_EQ(in.sample_rate, 48000.0f);
    EXPECT_EQ(in.date[0], 2026.0f);
    EXPECT_EQ(in.date[1], 10.0f) << "November is month 10";
    EXPECT_EQ(in.date[2], 23.0f);
    EXPECT_NEAR(in.date[3], in.time - 1, 1e-4) << "seconds into the new day";

    clock.fps_den = 0;
    EXPECT_EQ(glr_shadertoy_inputs(&clock, 0, &in), -EINVAL);
    EXPECT_EQ(glr_shadertoy_inputs(nullptr, 0, &in), -EINVAL);
}

TEST(shadertoy_project, media_channels_open_each_file_once_and_name_what_fails)
{
    std::string wav = glr_test::write_wav("project_tone.wav", 44100, 1, std::vector<int16_t>(4410, 100));
    std::string dir = make_project("media", "image.channel0 sound:" + wav + "\nimage.channel1 sound:" + wav +
                                                "\nbufferA.channel0 sound\n",
                                   {"image", "bufferA"});
    project_ptr project{glr_project_load(nullptr, dir.c_str())};
    ASSERT_TRUE(project.p) << glr_last_error();
    glr_media_channels *media = glr_media_channels_create(nullptr, project.p, nullptr);
    EXPECT_EQ(media, nullptr);
    EXPECT_NE(std::string(glr_last_error()).find("the Buffer A pass's iChannel0 is a sound without a file"),
              std::string::npos)
        << glr_last_error();
    media = glr_media_channels_create(nullptr, project.p, wav.c_str());
    ASSERT_NE(media, nullptr) << glr_last_error();
    EXPECT_EQ(media->source_count, 1) << "one file behind three channels is decoded once";
    EXPECT_EQ(media->binding_count, 3);
    EXPECT_EQ(glr_media_channels_sample_rate(media), 44100.0f);
    glr_media_channels_destroy(&media);
    EXPECT_EQ(media, nullptr);

    ASSERT_EQ(glr_project_bind(project.p, GLR_SCENE_IMAGE_PASS, 2, ("image:" + dir + "/missing.png").c_str(), "c2"),
              0);
    EXPECT_EQ(glr_media_channels_create(nullptr, project.p, wav.c_str()), nullptr);
    EXPECT_NE(std::string(glr_last_error()).find(dir + "/missing.png"), std::string::npos) << glr_last_error();
}

} // namespace
