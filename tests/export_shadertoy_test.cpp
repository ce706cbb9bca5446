// glreader-export rendering Shadertoy projects as a user runs it: buffers with feedback,
// channels from files, the sound texture next to the muxed sound, --start-frame and
// byte-identical reruns, and errors that name what is wrong.
#include "support/audio_files.hpp"
#include "support/counter_video.hpp"
#include "support/decoder.hpp"
#include "support/gl_test.hpp"
#include "support/process.hpp"
#include "support/shadertoy_json_project.hpp"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

namespace {

int run_export(const std::vector<std::string> &args, std::string &log_text)
{
    return glr_test::run_logged(glr_test::built_program(GLREADER_EXPORT_PATH), args, glr_test::scratch_path("shadertoy_export.log"),
                                log_text);
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
                c = glr_test::scratch_path("run_from_7.mkv"), d = glr_test::scratch_path("run_from_0.28_s.mkv"), log;
    std::vector<std::string> common = {"-s", "32x16", "-r", "25", "-c", "ffv1", "--shader", shader,
                                       "--date", "2026-01-02T03:04:05", "-y"};
    auto with = [&](std::vector<std::string> more) {
        std::vector<std::string> args = common;
        args.insert(args.end(), more.begin(), more.end());
        return args;
    };
    ASSERT_EQ(run_export(with({"-n", "10", "-o", a}), log), 0) << log;
    ASSERT_EQ(run_export(with({"-n", "10", "-o", b}), log), 0) << log;
    ASSERT_EQ(run_export(with({"-n", "3", "--start-frame", "7", "-o", c}), log), 0) << log;
    ASSERT_EQ(run_export(with({"-t", "0.12", "-ss", "0.28", "-o", d}), log), 0) << log; // frames 7, 8, 9 at 25 fps
    glr_test::decoded_video va = glr_test::decode_file(a), vb = glr_test::decode_file(b), vc = glr_test::decode_file(c),
                            vd = glr_test::decode_file(d);
    ASSERT_EQ(va.frames.size(), 10u);
    ASSERT_EQ(vb.frames.size(), 10u);
    ASSERT_EQ(vc.frames.size(), 3u);
    for (size_t n = 0; n < 10; n++)
        EXPECT_EQ(va.frames[n].rgba, vb.frames[n].rgba) << "frame " << n;
    ASSERT_EQ(vd.frames.size(), 3u);
    for (size_t n = 0; n < 3; n++) {
        EXPECT_EQ(vc.frames[n].rgba, va.frames[7 + n].rgba) << "frame " << 7 + n << " rendered alone";
        EXPECT_EQ(vd.frames[n].rgba, va.frames[7 + n].rgba) << "frame " << 7 + n << " from -ss";
    }
    EXPECT_NE(va.frames[0].rgba, va.frames[1].rgba);
}

// The number after "key": in a flat JSON text, -1 when absent.
long long json_number(const std::string &json, const std::string &key)
{
    size_t at = json.find("\"" + key + "\":");
    return at == std::string::npos ? -1 : std::atoll(json.c_str() + at + key.size() + 3);
}

// A range [N, N + K) of a project with state (a feedback buffer that sums, frame after
// frame, what a sound and a video channel show) is byte for byte the same frames of a full
// render: the frames before N are pre-rolled, and the run says how many. A stateless
// shader needs none.
TEST(export_shadertoy, a_range_of_a_stateful_project_is_the_full_render_s_frames)
{
    const int rate = 48000, first = 9, count = 4;
    std::vector<int16_t> samples(rate);
    for (size_t i = 0; i < samples.size(); i++) // a rising tone: every frame hears another spectrum
        samples[i] = static_cast<int16_t>(std::lround(9000 * std::sin(2 * M_PI * (500.0 + 2000.0 * i / rate) * i / rate)));
    std::string dir = make_project("stateful");
    std::rename(glr_test::write_wav("stateful.wav", rate, 1, samples).c_str(), (dir + "/song.wav").c_str());
    std::rename(glr_test::write_counter_channel_video().c_str(), (dir + "/clip.mkv").c_str());
    write(dir + "/bufferA.glsl",
          "void mainImage(out vec4 c, in vec2 p) {\n"
          "    vec2 uv = p / iResolution.xy;\n"
          "    vec4 last = texture(iChannel0, uv);\n"
          "    float heard = texture(iChannel1, vec2(uv.x, 0.25)).r, seen = texture(iChannel2, uv).r;\n"
          "    c = vec4(fract(last.r * 1.618 + heard), fract(last.g + seen * 0.31), last.b + 1.0, 1.0);\n"
          "}\n");
    write(dir + "/image.glsl",
          "void mainImage(out vec4 c, in vec2 p) {\n"
          "    vec4 a = texture(iChannel0, p / iResolution.xy);\n"
          "    c = vec4(a.rg, a.b / 255.0, 1.0);\n"
          "}\n");
    write(dir + "/channels", "bufferA.channel0 buffer:A\n"
                             "bufferA.channel1 sound\n"
                             "bufferA.channel2 video:clip.mkv\n"
                             "image.channel0 buffer:A,filter=nearest\n");
    std::string full = glr_test::scratch_path("stateful_full.mkv"), range = glr_test::scratch_path("stateful_range.mkv"),
                stats = glr_test::scratch_path("stateful_stats.json"), log;
    std::vector<std::string> common = {"-s", "32x16", "-r", "20", "-c", "ffv1", "--shader", dir, "--audio",
                                       dir + "/song.wav", "--date", "2026-01-02", "-y", "--stats-json", stats};
    auto with = [&](std::vector<std::string> more) {
        more.insert(more.begin(), common.begin(), common.end());
        return more;
    };
    ASSERT_EQ(run_export(with({"-n", std::to_string(first + count), "-o", full}), log), 0) << log;
    EXPECT_EQ(json_number(glr_test::slurp(stats), "preroll_frames"), 0);
    ASSERT_EQ(run_export(with({"-n", std::to_string(count), "--start-frame", std::to_string(first), "-o", range}), log),
              0)
        << log;
    EXPECT_EQ(json_number(glr_test::slurp(stats), "preroll_frames"), first) << glr_test::slurp(stats);
    EXPECT_NE(log.find("pre-rolling " + std::to_string(first) + " frames"), std::string::npos) << log;
    glr_test::decoded_video vf = glr_test::decode_file(full), vr = glr_test::decode_file(range);
    ASSERT_EQ(vf.frames.size(), static_cast<size_t>(first + count)) << vf.error;
    ASSERT_EQ(vr.frames.size(), static_cast<size_t>(count)) << vr.error;
    for (int n = 0; n < count; n++)
        EXPECT_EQ(vr.frames[static_cast<size_t>(n)].rgba, vf.frames[static_cast<size_t>(first + n)].rgba)
            << "frame " << first + n << " of the range differs from the full render's";
    // The frames differ from each other (the state moves), so equal frames prove something.
    EXPECT_NE(vf.frames[first].rgba, vf.frames[first + 1].rgba);
    EXPECT_EQ(vf.frames[first].rgba[2], first + 1) << "Buffer A counted the frames before it";

    // The same shader's Image pass alone, with no buffer: no state, no pre-roll.
    std::string stateless = glr_test::scratch_path("stateless_range.mkv");
    write(dir + "/channels", "image.channel0 sound\n");
    std::remove((dir + "/bufferA.glsl").c_str());
    ASSERT_EQ(run_export(with({"-n", "2", "--start-frame", std::to_string(first), "-o", stateless}), log), 0) << log;
    EXPECT_EQ(json_number(glr_test::slurp(stats), "preroll_frames"), 0) << glr_test::slurp(stats);
    EXPECT_EQ(log.find("pre-rolling"), std::string::npos) << log;
    for (const std::string &path : {full, range, stateless, stats})
        std::remove(path.c_str());
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

// A project's Sound pass, rendered on the GPU, is the video's sound track: every sample is
// the formula's (worked out here on the CPU, with float time as the pass has it), a range
// has the whole track's samples from its start on, a sound channel hears the track, and
// -an leaves it out.
TEST(export_shadertoy, a_sound_pass_is_the_sound_track_and_its_sound_channels_hear_it)
{
    const int rate = 44100, fps = 20, frames = 15, first = 5;
    std::string dir = make_project("sound_pass");
    write(dir + "/common.glsl", "const float TAU = 6.2831853;\n");
    write(dir + "/sound.glsl", "vec2 mainSound(int samp, float time) {\n"
                               "    return vec2(0.5 * sin(TAU * 3000.0 * time), float(samp % 441) / 441.0 - 0.5);\n"
                               "}\n");
    // Column x shows bin x of the sound texture's spectrum, and iSampleRate / 1000 in green.
    write(dir + "/image.glsl",
          "void mainImage(out vec4 c, in vec2 p) {\n"
          "    c = vec4(texelFetch(iChannel0, ivec2(int(p.x), 0), 0).r, iSampleRate / 1000.0 / 255.0, 0, 1);\n"
          "}\n");
    write(dir + "/channels", "image.channel0 sound\n");
    std::string whole = glr_test::scratch_path("sound_pass.mkv"), range = glr_test::scratch_path("sound_range.mkv"),
                silent = glr_test::scratch_path("sound_none.mkv"), log;
    std::vector<std::string> common = {"-s", "512x2", "-r", std::to_string(fps), "-c", "ffv1", "--shader", dir, "-y"};
    auto with = [&](std::vector<std::string> more, bool lossless_sound = true) {
        more.insert(more.begin(), common.begin(), common.end());
        if (lossless_sound)
            more.insert(more.end(), {"-c:a", "flac"});
        return more;
    };
    ASSERT_EQ(run_export(with({"-n", std::to_string(frames), "-o", whole}), log), 0) << log;
    EXPECT_NE(log.find("audio: the Sound pass's, encoded"), std::string::npos) << log;

    EXPECT_TRUE(glr_test::in_step_with_the_pictures(glr_test::decode_sound(whole, rate, 2)));
    std::vector<int16_t> track = glr_test::decode_audio(whole, rate, 2);
    const size_t samples = static_cast<size_t>(rate) * frames / fps;
    ASSERT_EQ(track.size(), 2 * samples) << "the track lasts as long as the video";
    int worst_sine = 0, worst_ramp = 0;
    for (size_t i = 0; i < samples; i++) {
        const size_t block = 512 * 512;
        float t = static_cast<float>(static_cast<double>(i / block * block) / rate) +
                  static_cast<float>(i % block) / static_cast<float>(rate);
        float phase = (6.2831853f * 3000.0f) * t;
        int left = static_cast<int>(std::lround(0.5 * std::sin(static_cast<double>(phase)) * 32767.5 - 0.5));
        int right = static_cast<int>(std::lround(((i % 441) / 441.0 - 0.5) * 32767.5 - 0.5));
        worst_sine = std::max(worst_sine, std::abs(track[2 * i] - left));
        worst_ramp = std::max(worst_ramp, std::abs(track[2 * i + 1] - right));
    }
    // sin's precision is the GPU's (NVIDIA's: 0.002 at 14,000 radians); one sample's time
    // off would be off by thousands.
    EXPECT_LE(worst_sine, 256) << "every sample is the formula's, in 16 bits, within the GPU's float sine";
    EXPECT_LE(worst_ramp, 2) << "the sample numbers (a step of the ramp is 74 units or more)";

    glr_test::decoded_video v = glr_test::decode_file(whole);
    ASSERT_EQ(v.frames.size(), static_cast<size_t>(frames)) << v.error;
    const std::vector<uint8_t> &px = v.frames[10].rgba;
    int loudest = 0;
    for (int x = 0; x < 512; x++)
        if (px[static_cast<size_t>(x) * 4] > px[static_cast<size_t>(loudest) * 4])
            loudest = x;
    EXPECT_NEAR(loudest, std::lround(3000.0 * 2048 / rate), 1) << "the sound channel hears the 3 kHz tone";
    EXPECT_EQ(px[1], 44) << "iSampleRate is the Sound pass's rate";

    // -ar: the Sound pass at another rate, which iSampleRate says.
    std::string at_22050 = glr_test::scratch_path("sound_22050.mkv");
    ASSERT_EQ(run_export(with({"-n", "4", "-ar", "22050", "-o", at_22050}), log), 0) << log;
    EXPECT_EQ(glr_test::decode_audio(at_22050, 22050, 2).size(), 2u * 22050 * 4 / fps) << "4 frames of samples at 22050 Hz";
    glr_test::decoded_video v22 = glr_test::decode_file(at_22050);
    ASSERT_EQ(v22.frames.size(), 4u) << v22.error;
    EXPECT_EQ(v22.frames[0].rgba[1], 22) << "iSampleRate is -ar's rate";
    std::remove(at_22050.c_str());

    // A range: the whole track's samples from its first frame on, and the same pictures.
    ASSERT_EQ(run_export(with({"-n", std::to_string(frames - first), "--start-frame", std::to_string(first), "-o",
                               range}),
                         log),
              0)
        << log;
    EXPECT_TRUE(glr_test::in_step_with_the_pictures(glr_test::decode_sound(range, rate, 2)));
    std::vector<int16_t> part = glr_test::decode_audio(range, rate, 2);
    const size_t skipped = static_cast<size_t>(rate) * first / fps;
    ASSERT_EQ(part.size(), track.size() - 2 * skipped);
    EXPECT_TRUE(std::equal(part.begin(), part.end(), track.begin() + static_cast<std::ptrdiff_t>(2 * skipped)))
        << "the range's samples are the whole render's";
    glr_test::decoded_video vr = glr_test::decode_file(range);
    ASSERT_EQ(vr.frames.size(), static_cast<size_t>(frames - first)) << vr.error;
    EXPECT_EQ(vr.frames[5].rgba, v.frames[first + 5].rgba) << "the sound channel hears the same track";

    // A picture holds no sound: the channel still hears the Sound pass.
    std::string poster = glr_test::scratch_path("sound_poster.png");
    ASSERT_EQ(run_export({"-s", "512x2", "-r", std::to_string(fps), "--shader", dir, "-y", "-v", "info", "-n", "1",
                          "--start-frame", "10", "-o", poster},
                         log),
              0)
        << log;
    EXPECT_NE(log.find("holds no sound: the Sound pass is only heard by the sound channels without a file"), std::string::npos)
        << log;
    glr_test::decoded_video picture = glr_test::decode_file(poster);
    ASSERT_EQ(picture.frames.size(), 1u) << picture.error;
    EXPECT_EQ(picture.frames[0].rgba, v.frames[10].rgba) << "frame 10 as the video shows it";
    std::remove(poster.c_str());

    // -an: no sound track (and no Sound pass for a sound channel to hear).
    ASSERT_NE(run_export(with({"-n", "3", "-an", "-o", silent}, false), log), 0);
    EXPECT_NE(log.find("is a sound without a file, and no audio was given"), std::string::npos) << log;
    write(dir + "/channels", "");
    ASSERT_EQ(run_export(with({"-n", "3", "-an", "-o", silent}, false), log), 0) << log;
    EXPECT_TRUE(glr_test::decode_audio(silent, rate, 2).empty()) << "no sound track with -an";
    EXPECT_EQ(glr_test::decode_file(silent).frames.size(), 3u);
    for (const std::string &path : {whole, range, silent})
        std::remove(path.c_str());
}

// Shadertoy's JSON straight in (support/shadertoy_json_project.hpp): buffers by their ids,
// pictures upright and repeating by Shadertoy's defaults, cube maps by Shadertoy's face
// names, from the media folder. --to-project writes it as a folder, which renders the same.
TEST(export_shadertoy, a_shadertoy_json_renders_upright_and_as_its_written_folder)
{
    glr_test::shadertoy_json_project json = glr_test::write_shadertoy_json_project("export_json");
    std::string from_json = glr_test::scratch_path("json.mkv"), from_folder = glr_test::scratch_path("folder.mkv"), log;
    std::vector<std::string> common = {"-s", "16x8", "-n", "4", "-c", "ffv1", "-y"};
    auto with = [&](std::vector<std::string> args) {
        args.insert(args.begin(), common.begin(), common.end());
        return args;
    };
    ASSERT_EQ(run_export(with({"--shader", json.json, "--media", json.media, "-o", from_json}), log), 0) << log;
    glr_test::decoded_video v = glr_test::decode_file(from_json);
    ASSERT_EQ(v.error, "");
    ASSERT_EQ(v.frames.size(), 4u);
    for (size_t n = 0; n < v.frames.size(); n++) {
        const uint8_t *left = &v.frames[n].rgba[(3 * 16 + 5) * 4], *right = &v.frames[n].rgba[(3 * 16 + 12) * 4];
        EXPECT_EQ(left[0], n + 1) << "frame " << n << ": Buffer A's count, read through id 257";
        EXPECT_EQ(left[1], 200) << "frame " << n << ": the picture's top row is at the top (vflip on)";
        EXPECT_EQ(left[2], 200) << "frame " << n << ": below the picture is its top again (wrap repeat)";
        EXPECT_EQ(right[0], 10) << "frame " << n << ": +X is sky.ppm";
        EXPECT_EQ(right[1], 20) << "frame " << n << ": -X is sky_1.ppm";
        EXPECT_EQ(right[2], 30) << "frame " << n << ": +Y is sky_2.ppm";
    }

    // After the Quick start, the default output (glreader-export.mp4, here in the working
    // folder) exists: --to-project writes no output, so it neither refuses nor touches it.
    const char *default_output = "glreader-export.mp4";
    bool placed = access(default_output, F_OK) != 0;
    if (placed)
        write(default_output, "mine");
    std::string before = glr_test::slurp(default_output);
    std::string project = glr_test::scratch_path("json_project");
    int wrote = run_export({"--shader", json.json, "--media", json.media, "--to-project", project}, log);
    EXPECT_EQ(glr_test::slurp(default_output), before);
    if (placed)
        std::remove(default_output);
    ASSERT_EQ(wrote, 0) << log;
    EXPECT_NE(log.find("wrote the project into " + project), std::string::npos) << log;
    std::string channels = glr_test::slurp(project + "/channels");
    EXPECT_NE(channels.find("image.channel1 image:" + json.media + "/pic.ppm\n"), std::string::npos)
        << "Shadertoy's defaults are the spec's own: " << channels;
    EXPECT_NE(channels.find("image.channel2 cubemap:" + json.media + "/sky{_}.ppm\n"), std::string::npos) << channels;
    ASSERT_EQ(run_export(with({"--shader", project, "-o", from_folder}), log), 0) << log;
    glr_test::decoded_video folder = glr_test::decode_file(from_folder);
    ASSERT_EQ(folder.frames.size(), v.frames.size());
    for (size_t n = 0; n < v.frames.size(); n++)
        EXPECT_EQ(folder.frames[n].rgba, v.frames[n].rgba) << "frame " << n << ": the folder renders the same";

    EXPECT_NE(run_export({"--shader", json.json, "--media", json.media, "--to-project", project}, log), 0);
    EXPECT_NE(log.find("already holds files"), std::string::npos) << log;
    EXPECT_NE(run_export(with({"--shader", json.json, "-o", from_json}), log), 0);
    EXPECT_NE(log.find("Image iChannel1: the texture /media/a/pic.ppm"), std::string::npos) << log;
    EXPECT_NE(log.find("Image iChannel2: the cube map /media/a/sky.ppm"), std::string::npos) << log;
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
