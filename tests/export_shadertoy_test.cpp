// glreader-export rendering Shadertoy projects as a user runs it: buffers with feedback,
// channels from files, the sound texture next to the muxed sound, --start-frame and
// byte-identical reruns, and errors that name what is wrong.
#include "support/audio_files.hpp"
#include "support/decoder.hpp"
#include "support/gl_test.hpp"
#include "support/process.hpp"

#include <gtest/gtest.h>

#include <sys/stat.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

namespace {

int run_export(const std::vector<std::string> &args, std::string &log_text)
{
    std::string log = glr_test::scratch_path("shadertoy_export.log");
    int rc = glr_test::wait_exit(glr_test::spawn(glr_test::built_program(GLREADER_EXPORT_PATH), args, log));
    log_text = glr_test::slurp(log);
    return rc;
}

std::string make_project(const std::string &name)
{
    std::string dir = glr_test::scratch_path(name);
    mkdir(dir.c_str(), 0755);
    return dir;
}

void write(const std::string &path, const std::string &text) { std::ofstream(path) << text; }

// Buffer A counts frames (it reads its own previous frame); Buffer B reads A this frame;
// Image shows B's count in red and iFrame in green, on a picture channel's blue.
std::string write_counting_project()
{
    std::string dir = make_project("counting");
    write(dir + "/common.glsl", "float value(sampler2D s, vec2 p) { return texelFetch(s, ivec2(p), 0).r; }\n");
    write(dir + "/bufferA.glsl", "void mainImage(out vec4 c, in vec2 p) { c = vec4(value(iChannel0, p) + 1.0); }\n");
    write(dir + "/bufferB.glsl", "void mainImage(out vec4 c, in vec2 p) { c = vec4(value(iChannel0, p)); }\n");
    write(dir + "/image.glsl",
          "void mainImage(out vec4 c, in vec2 p) {\n"
          "    c = vec4(value(iChannel1, p) / 255.0, float(iFrame) / 255.0, texture(iChannel2, vec2(0.5)).b, 1.0);\n"
          "}\n");
    std::ofstream ppm(dir + "/blue.ppm", std::ios::binary);
    ppm << "P6\n2 2\n255\n";
    for (int i = 0; i < 4; i++)
        ppm << static_cast<char>(0) << static_cast<char>(0) << static_cast<char>(77);
    write(dir + "/channels",
          "# pass.channel spec\n"
          "bufferA.channel0 buffer:A\n"
          "bufferB.channel0 buffer:A,filter=nearest\n"
          "image.channel1   buffer:B,filter=nearest\n"
          "image.channel2   image:blue.ppm,filter=nearest\n");
    return dir;
}

TEST(export_shadertoy, a_project_s_feedback_buffer_counts_frames_in_pass_order)
{
    std::string dir = write_counting_project(), out = glr_test::scratch_path("counting.mkv"), log;
    ASSERT_EQ(run_export({"-s", "16x8", "-n", "12", "-c", "ffv1", "--shader", dir, "-o", out, "-y"}, log), 0) << log;
    glr_test::decoded_video v = glr_test::decode_file(out);
    ASSERT_EQ(v.error, "");
    ASSERT_EQ(v.frames.size(), 12u);
    for (size_t n = 0; n < v.frames.size(); n++) {
        const uint8_t *px = &v.frames[n].rgba[(3 * 16 + 5) * 4];
        EXPECT_EQ(px[0], n + 1) << "frame " << n; // A counted n + 1 frames, B read it this frame
        EXPECT_EQ(px[1], n) << "frame " << n;
        EXPECT_EQ(px[2], 77) << "frame " << n;
    }
}

TEST(export_shadertoy, reruns_are_byte_identical_and_a_start_frame_renders_that_frame)
{
    // A stateless shader that uses time, the frame and the date.
    std::string shader = glr_test::scratch_path("stateless.frag");
    write(shader, "void mainImage(out vec4 c, in vec2 p) {\n"
                  "    c = vec4(fract(iTime * 0.37 + p.x / iResolution.x), float(iFrame % 256) / 255.0,\n"
                  "             fract(iDate.w / 7.0), 1.0);\n"
                  "}\n");
    std::string a = glr_test::scratch_path("run_a.mkv"), b = glr_test::scratch_path("run_b.mkv"),
                c = glr_test::scratch_path("run_from_7.mkv"), log;
    std::vector<std::string> common = {"-s", "32x16", "-c", "ffv1", "--shader", shader, "--date", "2026-01-02T03:04:05",
                                       "-y"};
    auto with = [&](std::vector<std::string> more) {
        std::vector<std::string> args = common;
        args.insert(args.end(), more.begin(), more.end());
        return args;
    };
    ASSERT_EQ(run_export(with({"-n", "10", "-o", a}), log), 0) << log;
    ASSERT_EQ(run_export(with({"-n", "10", "-o", b}), log), 0) << log;
    ASSERT_EQ(run_export(with({"-n", "3", "--start-frame", "7", "-o", c}), log), 0) << log;
    glr_test::decoded_video va = glr_test::decode_file(a), vb = glr_test::decode_file(b), vc = glr_test::decode_file(c);
    ASSERT_EQ(va.frames.size(), 10u);
    ASSERT_EQ(vb.frames.size(), 10u);
    ASSERT_EQ(vc.frames.size(), 3u);
    for (size_t n = 0; n < 10; n++)
        EXPECT_EQ(va.frames[n].rgba, vb.frames[n].rgba) << "frame " << n;
    for (size_t n = 0; n < 3; n++)
        EXPECT_EQ(vc.frames[n].rgba, va.frames[7 + n].rgba) << "frame " << 7 + n << " rendered alone";
    EXPECT_NE(va.frames[0].rgba, va.frames[1].rgba);
}

TEST(export_shadertoy, the_sound_channel_hears_the_muxed_audio)
{
    const int rate = 48000;
    std::vector<int16_t> samples(rate * 2);
    for (size_t i = 0; i < samples.size(); i++)
        samples[i] = static_cast<int16_t>(std::lround(12000 * std::sin(2 * M_PI * 3000.0 * i / rate)));
    std::string wav = glr_test::write_wav("tone3k.wav", rate, 1, samples);
    std::string shader = glr_test::scratch_path("spectrum.frag");
    // Column x shows bin x of the spectrum, and iSampleRate / 1000 in green.
    write(shader, "void mainImage(out vec4 c, in vec2 p) {\n"
                  "    c = vec4(texelFetch(iChannel0, ivec2(int(p.x), 0), 0).r, iSampleRate / 1000.0 / 255.0, 0, 1);\n"
                  "}\n");
    std::string out = glr_test::scratch_path("spectrum.mkv"), log;
    ASSERT_EQ(run_export({"-s", "512x2", "-n", "15", "-c", "ffv1", "--shader", shader, "--audio", wav, "--channel0",
                          "sound", "-o", out, "-y"},
                         log),
              0)
        << log;
    glr_test::decoded_video v = glr_test::decode_file(out);
    ASSERT_EQ(v.frames.size(), 15u);
    const std::vector<uint8_t> &px = v.frames[10].rgba;
    int best = 0;
    for (int x = 0; x < 512; x++)
        if (px[static_cast<size_t>(x) * 4] > px[static_cast<size_t>(best) * 4])
            best = x;
    EXPECT_NEAR(best, std::lround(3000.0 * 2048 / rate), 1);
    EXPECT_EQ(px[1], 48);
    EXPECT_FALSE(glr_test::decode_audio(out, rate, 1).empty()) << "the same sound is muxed";
}

TEST(export_shadertoy, bad_projects_and_channels_are_named)
{
    std::string log, out = glr_test::scratch_path("never.mkv");
    std::string shader = glr_test::scratch_path("plain.frag");
    write(shader, "void mainImage(out vec4 c, in vec2 p) { c = texture(iChannel0, p); }\n");
    auto fails_saying = [&](std::vector<std::string> args, const std::string &words) {
        args.insert(args.end(), {"-n", "2", "-s", "16x16", "-o", out});
        EXPECT_NE(run_export(args, log), 0) << words;
        EXPECT_NE(log.find(words), std::string::npos) << "want: " << words << "\ngot: " << log;
        struct stat st;
        EXPECT_NE(stat(out.c_str(), &st), 0) << "nothing is written";
    };
    fails_saying({"--shader", shader, "--channel0", "image:/nonexistent/noise.png"},
                 "cannot open the image /nonexistent/noise.png: No such file or directory");
    fails_saying({"--shader", shader, "--channel0", "picture:x.png"}, "--channel0: unknown channel kind 'picture'");
    fails_saying({"--shader", shader, "--channel0", "image:x.png,filter=blurry"},
                 "filter takes nearest, linear or mipmap, not 'blurry'");
    fails_saying({"--shader", shader, "--channel4", "keyboard"}, "unknown option --channel4");
    fails_saying({"--shader", shader, "--channel0", "sound"}, "is a sound without a file, and no audio was given");

    std::string dir = write_counting_project();
    write(dir + "/channels", "image.channel0 buffer:C\n");
    fails_saying({"--shader", dir}, "Image iChannel0 reads Buffer C, which has no source");
    write(dir + "/channels", "bufferC.channel0 keyboard\n");
    fails_saying({"--shader", dir}, dir + "/channels:1: binds a channel of bufferC, but the project has no bufferC.glsl");
    write(dir + "/channels", "\n\nimage.channel7 keyboard\n");
    fails_saying({"--shader", dir}, dir + "/channels:3: 'image.channel7' is not PASS.channelN");
    write(dir + "/channels", "");
    write(dir + "/bufferB.glsl", "void mainImage(out vec4 c, in vec2 p) {\n    c = vec4(missing_value);\n}\n");
    fails_saying({"--shader", dir}, "Buffer B pass (" + dir + "/bufferB.glsl) does not compile:\n" + dir +
                                        "/bufferB.glsl:2:");
    std::remove((dir + "/image.glsl").c_str());
    fails_saying({"--shader", dir}, "the project " + dir + " has no image.glsl");
}

} // namespace
