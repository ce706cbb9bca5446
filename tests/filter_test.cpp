// The glreader lavfi source inside a patched ffmpeg (ffmpeg-patches/build.sh), run as a
// user runs it: real processes, real files, decoded back with the system's libavcodec.
// GLREADER_FFMPEG names the binary; CTest runs this suite once per release line.
#include "support/audio_files.hpp"
#include "support/option_edges.hpp"
#include "support/counter_video.hpp"
#include "support/decoder.hpp"
#include "support/gl_test.hpp"
#include "support/patched_ffmpeg.hpp"
#include "support/process.hpp"
#include "support/shadertoy_json_project.hpp"

#include <gtest/gtest.h>

#include <dlfcn.h>
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

namespace {

using glr_test::expect_failure_saying;
using glr_test::ffmpeg;
using glr_test::run;
using glr_test::run_result;

const std::string export_program = glr_test::built_program(GLREADER_EXPORT_PATH);

TEST(filter_test, renders_exactly_d_times_r_frames_pixel_exact)
{
    std::string shader = glr_test::write_counter_shader(), out = glr_test::scratch_path("counter.mkv");
    run_result r = ffmpeg({"-f", "lavfi", "-i", "glreader=format=rgba:shader=" + shader + ":s=40x24:r=25:d=2", "-c:v", "ffv1", out},
                          "counter");
    ASSERT_EQ(r.status, 0) << r.log;
    EXPECT_NE(r.log.find("OpenGL renderer: "), std::string::npos) << r.log;
    EXPECT_EQ(r.log.find("OpenGL renderer: "), r.log.rfind("OpenGL renderer: ")) << r.log;
    glr_test::expect_counter_video(out, 40, 24, 50);
    glr_test::decoded_video v = glr_test::decode_file(out);
    ASSERT_EQ(v.frames.size(), 50u) << v.error;
    for (size_t n = 0; n < v.frames.size(); n++) // frame n at n / 25 s
        ASSERT_EQ(v.frames[n].pts * v.time_base_num * 25, static_cast<int64_t>(n) * v.time_base_den) << "frame " << n;
    std::remove(out.c_str());
}

// start= and d= count as ffmpeg's rule says, worked out here (not taken from another of our
// front-ends): at 30000/1001 a second frame n starts at n x 1001/30000 s; start=1 falls on
// frame 30 (1.001 s, the first at or after it) and d=0.5 holds the frames that start less
// than 0.5 s after it, 30 + k with k x 1001/30000 < 0.5: 15 frames, each stamped from the
// first at k x 1001/30000 s.
TEST(filter_test, start_and_d_are_the_frames_ffmpeg_s_rule_counts_by_hand)
{
    std::string shader = glr_test::write_counter_shader(), out = glr_test::scratch_path("counted.mkv");
    run_result r = ffmpeg({"-f", "lavfi", "-i", "glreader=format=rgba:shader=" + shader + ":s=40x24:r=30000/1001:start=1:d=0.5",
                           "-c:v", "ffv1", out},
                          "counted");
    ASSERT_EQ(r.status, 0) << r.log;
    glr_test::expect_counted_frames(out, 30, 15, 40, 24, 30000, 1001);
    std::remove(out.c_str());
}

// Both files hold `frames` frames, the same pixels, and not all alike (so that a
// difference would show); they are removed after.
void expect_the_same_frames(const std::string &filtered, const std::string &exported, size_t frames)
{
    glr_test::decoded_video a = glr_test::decode_file(filtered), b = glr_test::decode_file(exported);
    ASSERT_EQ(a.error, "");
    ASSERT_EQ(b.error, "");
    ASSERT_EQ(a.frames.size(), frames);
    ASSERT_EQ(b.frames.size(), frames);
    EXPECT_FALSE(a.frames.front().rgba == a.frames.back().rgba) << "the frames change over time";
    for (size_t n = 0; n < frames; n++)
        ASSERT_TRUE(a.frames[n].rgba == b.frames[n].rgba) << "frame " << n << " differs from glreader-export's";
    std::remove(filtered.c_str());
    std::remove(exported.c_str());
}

TEST(filter_test, equals_glreader_export_of_the_same_scene)
{
    std::string filtered = glr_test::scratch_path("filtered.mkv"), exported = glr_test::scratch_path("exported.mkv");
    run_result f = ffmpeg({"-f", "lavfi", "-i", "glreader=format=rgba:s=160x90:r=25:d=2", "-c:v", "ffv1", filtered}, "filtered");
    ASSERT_EQ(f.status, 0) << f.log;
    run_result e = run(export_program, {"-s", "160x90", "-r", "25", "-t", "2", "-c", "ffv1", "-o", exported},
                       "exported");
    ASSERT_EQ(e.status, 0) << e.log;

    expect_the_same_frames(filtered, exported, 50);
}

// The frames ffmpeg's own testsrc gives for a duration and rate (lavfi's arguments).
size_t testsrc_frames(const std::string &duration, const std::string &rate)
{
    std::string out = glr_test::scratch_path("testsrc.nut");
    run_result t = ffmpeg({"-f", "lavfi", "-i", "testsrc=s=16x16:d=" + duration + ":r=" + rate, "-c:v", "ffv1", out},
                          "testsrc");
    EXPECT_EQ(t.status, 0) << t.log;
    size_t frames = glr_test::decode_file(out).frames.size();
    std::remove(out.c_str());
    return frames;
}

// A length and a start count as glreader-export counts them (glreader/frame_range.h), and a
// duration holds as many frames as ffmpeg's testsrc of that duration: the frames that start
// before it ends (d=0.1 at 25 fps: 3).
TEST(filter_test, lengths_and_starts_count_as_testsrc_and_glreader_export_count_them)
{
    std::string shader = glr_test::write_counter_shader();
    struct {
        const char *duration, *rate, *start;
    } table[] = {{"0.1", "25", "0"},     {"0.5", "30000/1001", "0"}, {"1.001", "30000/1001", "0"},
                 {"0.02", "30", "0"},    {"2.5", "24", "0"},         {"0.1", "25", "0.02"}};
    for (const auto &t : table) {
        std::string filtered = glr_test::scratch_path("range.mkv"), exported = glr_test::scratch_path("range_export.mkv");
        std::string what = std::string("d=") + t.duration + " r=" + t.rate + " start=" + t.start;
        run_result f = ffmpeg({"-f", "lavfi", "-i", "glreader=format=rgba:shader=" + shader + ":s=16x8:r=" + t.rate +
                                   ":d=" + t.duration + ":start=" + t.start, "-c:v", "ffv1", filtered}, "range");
        ASSERT_EQ(f.status, 0) << what << "\n" << f.log;
        run_result e = run(export_program, {"--shader", shader, "-s", "16x8", "-r", t.rate, "-t", t.duration, "-ss",
                                            t.start, "-c", "ffv1", "-o", exported}, "range_export");
        ASSERT_EQ(e.status, 0) << what << "\n" << e.log;
        glr_test::decoded_video a = glr_test::decode_file(filtered), b = glr_test::decode_file(exported);
        EXPECT_EQ(a.frames.size(), testsrc_frames(t.duration, t.rate)) << what;
        ASSERT_EQ(a.frames.size(), b.frames.size()) << what;
        for (size_t n = 0; n < a.frames.size(); n++)
            EXPECT_TRUE(a.frames[n].rgba == b.frames[n].rgba) << what << ": frame " << n << " is not glreader-export's";
        std::remove(filtered.c_str());
        std::remove(exported.c_str());
    }
}

// A project using every input and every kind of channel but the cube map: a feedback
// buffer that also hears the sound, a video, a picture, the spectrum and the wave.
std::string write_shadertoy_project()
{
    std::string dir = glr_test::scratch_path("project");
    mkdir(dir.c_str(), 0755);
    std::ofstream(dir + "/common.glsl") << "float level(sampler2D s, vec2 p) { return texelFetch(s, ivec2(p), 0).r; }\n";
    std::ofstream(dir + "/bufferA.glsl")
        << "void mainImage(out vec4 c, in vec2 p) {\n"
           "    c = vec4(level(iChannel0, p) + 1.0 + texture(iChannel1, vec2(p.x / iResolution.x, 0.25)).r);\n"
           "}\n";
    std::ofstream(dir + "/image.glsl")
        << "void mainImage(out vec4 c, in vec2 p) {\n"
           "    vec2 uv = p / iResolution.xy;\n"
           "    vec3 video = texture(iChannel1, uv).rgb, picture = texture(iChannel2, uv).rgb;\n"
           "    float spectrum = texture(iChannel3, vec2(uv.x, 0.25)).r, wave = texture(iChannel3, vec2(uv.x, 0.75)).r;\n"
           "    float inputs = fract(iTime * 0.37 + iTimeDelta + iFrameRate * 0.01 + iDate.w * 0.001 + iDate.z * 0.1 +\n"
           "                         iMouse.x * 0.01 + iMouse.w * 0.02 + iChannelTime[1] * 0.3 + iSampleRate * 1e-5 +\n"
           "                         iChannelResolution[1].x * 0.01);\n"
           "    c = vec4(0.5 * mix(video, picture, 0.5).r + 0.5 * spectrum,\n"
           "             0.5 * fract(level(iChannel0, p) / 64.0) + 0.5 * wave, inputs, 1.0);\n"
           "}\n";
    std::ofstream ppm(dir + "/picture.ppm", std::ios::binary);
    ppm << "P6\n4 2\n255\n";
    for (int i = 0; i < 8; i++)
        ppm << static_cast<char>(30 * i) << static_cast<char>(255 - 30 * i) << static_cast<char>(90);
    std::vector<int16_t> samples(44100 * 2);
    for (size_t i = 0; i < samples.size(); i++)
        samples[i] = static_cast<int16_t>(std::lround(12000 * std::sin(2 * M_PI * (300 + i / 100.0) * i / 44100.0)));
    std::string wav = glr_test::write_wav("project_sound.wav", 44100, 1, samples);
    std::ofstream(dir + "/channels") << "bufferA.channel0 buffer:A\n"
                                        "bufferA.channel1 sound\n"
                                        "image.channel0   buffer:A,filter=nearest\n"
                                        "image.channel1   video:" + glr_test::write_counter_channel_video() + "\n"
                                        "image.channel2   image:picture.ppm,filter=nearest\n"
                                        "image.channel3   sound:" + wav + "\n";
    return dir;
}

TEST(filter_test, a_shadertoy_project_gives_glreader_export_s_frames)
{
    std::string dir = write_shadertoy_project(), wav = glr_test::scratch_path("project_sound.wav");
    std::string filtered = glr_test::scratch_path("project_filtered.mkv");
    std::string exported = glr_test::scratch_path("project_exported.mkv");
    // In a filter graph the values' ',' and ':' are escaped.
    run_result f = ffmpeg({"-f", "lavfi", "-i",
                           "glreader=format=rgba:shader=" + dir + ":audio=" + wav +
                               ":mouse=3\\,4:date='2026-11-22T23\\:59\\:59':s=64x36:r=25:d=1.2",
                           "-c:v", "ffv1", filtered},
                          "project_filtered");
    ASSERT_EQ(f.status, 0) << f.log;
    run_result e = run(export_program,
                       {"-s", "64x36", "-r", "25", "-n", "30", "-c", "ffv1", "--shader", dir, "--audio", wav, "--mouse",
                        "3,4", "--date", "2026-11-22T23:59:59", "-f", "matroska", "-o", exported, "-y"},
                       "project_exported");
    ASSERT_EQ(e.status, 0) << e.log;

    expect_the_same_frames(filtered, exported, 30);

    // A Sound pass without sound=1: video only, and the filter says how to get the sound.
    std::ofstream(dir + "/sound.glsl") << "vec2 mainSound(int samp, float time) { return vec2(sin(time)); }\n";
    run_result with_sound = ffmpeg({"-f", "lavfi", "-i", "glreader=shader=" + dir + ":audio=" + wav + ":s=16x8:d=0.2",
                                    "-f", "null", "-"},
                                   "project_sound_pass");
    ASSERT_EQ(with_sound.status, 0) << with_sound.log;
    EXPECT_NE(with_sound.log.find("has a Sound pass (mainSound): sound=1 gives it as a second output"), std::string::npos)
        << with_sound.log;
}

// A Sound pass track as the test's own arithmetic says it must be: starting with the first
// picture, without a break, `frames` frames of `rate` samples a second at `fps`, and its
// right channel the pass's ramp (sample n: (n % 441) / 441 - 0.5) from sample `first` on.
void expect_sound_pass_track(const glr_test::decoded_sound &s, int rate, int fps, int frames, int64_t first)
{
    ASSERT_TRUE(glr_test::in_step_with_the_pictures(s));
    ASSERT_EQ(s.samples.size(), 2u * static_cast<size_t>(frames) * static_cast<size_t>(rate) / static_cast<size_t>(fps));
    for (size_t i = 0; i < s.samples.size() / 2; i++) {
        const int64_t n = first + static_cast<int64_t>(i);
        const double ramp = static_cast<double>(n % 441) / 441.0 - 0.5;
        ASSERT_NEAR(s.samples[2 * i + 1], ramp * 32768, 2) << "sample " << n << " of the Sound pass";
    }
}

// sound=1: the Sound pass as a second output, the samples glreader-export muxes (for a
// whole render, and from a start), with the pictures of a sound channel that hears it,
// each track where the pictures are and as the pass computes it; audio_rate is its rate
// and iSampleRate; a project without a Sound pass is refused.
TEST(filter_test, sound_gives_the_sound_pass_glreader_export_muxes)
{
    std::string dir = glr_test::scratch_path("sound_pass_project");
    mkdir(dir.c_str(), 0755);
    std::ofstream(dir + "/sound.glsl") << "vec2 mainSound(int samp, float time) {\n"
                                          "    return vec2(0.5 * sin(6.2831853 * 3000.0 * time), float(samp % 441) / 441.0 - 0.5);\n"
                                          "}\n";
    // Column x shows bin x of the sound texture's spectrum, and iSampleRate / 1000 in green.
    std::ofstream(dir + "/image.glsl") << "void mainImage(out vec4 c, in vec2 p) {\n"
                                          "    c = vec4(texelFetch(iChannel0, ivec2(int(p.x), 0), 0).r, iSampleRate / 1000.0 / 255.0, 0, 1);\n"
                                          "}\n";
    std::ofstream(dir + "/channels") << "image.channel0 sound\n";
    auto filter = [&](const std::string &options, const std::string &out) {
        return ffmpeg({"-f", "lavfi", "-i", "glreader=format=rgba:shader=" + dir + ":sound=1:s=256x2:r=20:" + options +
                                                " [out0][out1]",
                       "-map", "0:v", "-c:v", "ffv1", "-map", "0:a", "-c:a", "pcm_s16le", out},
                      "sound_filtered");
    };
    auto exported = [&](std::vector<std::string> options, const std::string &out) {
        options.insert(options.end(), {"-s", "256x2", "-r", "20", "-c", "ffv1", "-c:a", "flac", "--shader", dir, "-o",
                                       out, "-y"});
        return run(export_program, options, "sound_exported");
    };
    const int rate = 44100;
    std::string filtered = glr_test::scratch_path("sound_filtered.mkv"), whole = glr_test::scratch_path("sound_whole.mkv");
    run_result f = filter("d=1", filtered), e = exported({"-t", "1"}, whole);
    ASSERT_EQ(f.status, 0) << f.log;
    ASSERT_EQ(e.status, 0) << e.log;
    expect_sound_pass_track(glr_test::decode_sound(filtered, rate, 2), rate, 20, 20, 0);
    expect_sound_pass_track(glr_test::decode_sound(whole, rate, 2), rate, 20, 20, 0);
    std::vector<int16_t> heard = glr_test::decode_audio(filtered, rate, 2), track = glr_test::decode_audio(whole, rate, 2);
    ASSERT_EQ(track.size(), 2u * rate) << "a second of the Sound pass";
    EXPECT_TRUE(heard == track) << "the filter's samples are glreader-export's (" << heard.size() << " of "
                                << track.size() << ")";
    glr_test::decoded_video v = glr_test::decode_file(filtered);
    ASSERT_EQ(v.frames.size(), 20u) << v.error;
    EXPECT_EQ(v.frames[5].rgba[1], 44) << "iSampleRate is the Sound pass's rate";
    expect_the_same_frames(filtered, whole, 20); // the sound channel hears the same sound

    // From a start: the whole render's samples from its first frame's on.
    std::string from = glr_test::scratch_path("sound_from.mkv"), part = glr_test::scratch_path("sound_part.mkv");
    f = filter("start=0.25:d=0.5", from);
    e = exported({"-ss", "0.25", "-t", "0.5"}, part);
    ASSERT_EQ(f.status, 0) << f.log;
    ASSERT_EQ(e.status, 0) << e.log;
    expect_sound_pass_track(glr_test::decode_sound(from, rate, 2), rate, 20, 10, rate / 4); // from frame 5
    expect_sound_pass_track(glr_test::decode_sound(part, rate, 2), rate, 20, 10, rate / 4);
    heard = glr_test::decode_audio(from, rate, 2);
    const size_t skipped = 2 * static_cast<size_t>(rate) / 4;
    ASSERT_EQ(heard.size(), track.size() / 2);
    EXPECT_TRUE(std::equal(heard.begin(), heard.end(), track.begin() + static_cast<std::ptrdiff_t>(skipped)))
        << "the samples from 0.25 s on";
    EXPECT_TRUE(heard == glr_test::decode_audio(part, rate, 2)) << "glreader-export -ss's";
    expect_the_same_frames(from, part, 10);

    // audio_rate: the pass's rate and iSampleRate.
    std::string at_22050 = glr_test::scratch_path("sound_22050.mkv");
    f = filter("audio_rate=22050:d=0.2", at_22050);
    ASSERT_EQ(f.status, 0) << f.log;
    EXPECT_EQ(glr_test::decode_audio(at_22050, 22050, 2).size(), 2u * 22050 / 5) << "0.2 s at 22050 Hz";
    glr_test::decoded_video v22 = glr_test::decode_file(at_22050);
    ASSERT_EQ(v22.frames.size(), 4u) << v22.error;
    EXPECT_EQ(v22.frames[0].rgba[1], 22) << "iSampleRate is audio_rate";
    std::remove(at_22050.c_str());

    // No Sound pass to play.
    expect_failure_saying(ffmpeg({"-f", "lavfi", "-i", "glreader=sound=1:d=0.1 [out0][out1]", "-f", "null", "-"}, "no_sound"),
                          "sound=1: the shader has no Sound pass (mainSound) to play");
}

// docs/filters.md's rows of glreader-export's options (option_docs holds them to the table)
// name options the source has: each is in ffmpeg -h filter=glreader.
TEST(filter_test, the_options_that_do_glreader_export_s_work_are_the_source_s)
{
    run_result help = ffmpeg({"-h", "filter=glreader"}, "glreader_help");
    ASSERT_EQ(help.status, 0) << help.log;
    std::ifstream page(std::string(GLREADER_SOURCE_DIR) + "/docs/filters.md");
    std::string line;
    while (std::getline(page, line) && line != "### glreader-export's options in the source") {
    }
    ASSERT_TRUE(page.good()) << "docs/filters.md has no section of glreader-export's options";
    int named = 0;
    while (std::getline(page, line) && (line.empty() || line[0] != '#')) {
        if (line.rfind("| `", 0) != 0)
            continue;
        // "| `name` | `option`, `other`: why (...) |": the options named before a colon or a parenthesis.
        std::string cell = line.substr(line.find('|', 1) + 1);
        cell = cell.substr(0, std::min({cell.find(':'), cell.find(" ("), cell.rfind('|')}));
        for (size_t at = cell.find('`'); at != std::string::npos; at = cell.find('`', at + 1)) {
            size_t end = cell.find('`', at + 1);
            std::string option = cell.substr(at + 1, end - at - 1);
            EXPECT_NE(help.log.find("  " + option + " "), std::string::npos)
                << "docs/filters.md names " << option << ", which ffmpeg -h filter=glreader does not list";
            named++;
            at = end;
        }
    }
    EXPECT_GT(named, 25);
}

// The source's options that do a numeric row's work of glreader-export's table (filters.md
// maps them) hold at the row's ends, read from the table itself: its lowest and highest
// values taken, the nearest past each refused before any output, in FFmpeg's words. Two
// ends are the source's own, as filters.md says: a duration of 0 is endless (as testsrc's),
// and a size is bounded by the driver's limit (the scene refuses past it), not the table's.
TEST(filter_test, the_source_s_numeric_options_hold_at_the_table_s_ends)
{
    struct mapped {
        const char *row, *option;
        bool lowest; // the row's lowest end is the source's too
    };
    for (const mapped &m : {mapped{"fps", "r", true}, mapped{"duration", "d", false}, mapped{"start", "start", true},
                            mapped{"audio_rate", "audio_rate", true}, mapped{"depth", "depth", true}}) {
        const glr_export_option *row = glr_export_option_find(m.row);
        ASSERT_NE(row, nullptr) << m.row;
        const std::vector<glr_test::edge> edges = glr_test::edges_of(*row);
        ASSERT_EQ(edges.size(), 4u) << m.row;
        for (size_t i = 0; i < edges.size(); i++) {
            const glr_test::edge &e = edges[i];
            if (!m.lowest && (i == 0 || i == 2)) // the lowest and the one past it
                continue;
            SCOPED_TRACE(std::string(m.option) + "=" + e.text);
            run_result r = ffmpeg({"-f", "lavfi", "-i", "glreader=s=16x8:" + std::string(m.option) + "=" + e.text,
                                   "-frames:v", "1", "-f", "null", "-"},
                                  "edges");
            if (e.taken)
                EXPECT_EQ(r.status, 0) << r.log;
            else
                expect_failure_saying(r, "out of range");
        }
    }
}

// Shadertoy's JSON as the filter's shader=, its media from media=: glreader-export's frames.
TEST(filter_test, a_shadertoy_json_gives_glreader_export_s_frames)
{
    glr_test::shadertoy_json_project json = glr_test::write_shadertoy_json_project("filter_json");
    std::string filtered = glr_test::scratch_path("json_filtered.mkv"), exported = glr_test::scratch_path("json_exported.mkv");
    run_result f = ffmpeg({"-f", "lavfi", "-i", "glreader=format=rgba:shader=" + json.json + ":media=" + json.media +
                                                    ":s=16x8:r=25:d=0.4",
                           "-c:v", "ffv1", filtered},
                          "json_filtered");
    ASSERT_EQ(f.status, 0) << f.log;
    run_result e = run(export_program, {"-s", "16x8", "-r", "25", "-n", "10", "-c", "ffv1", "--shader", json.json,
                                        "--media", json.media, "-o", exported, "-y"},
                       "json_exported");
    ASSERT_EQ(e.status, 0) << e.log;
    expect_the_same_frames(filtered, exported, 10);

    expect_failure_saying(ffmpeg({"-f", "lavfi", "-i", "glreader=shader=" + json.json, "-f", "null", "-"}, "json_missing"),
                          "Image iChannel1: the texture /media/a/pic.ppm");
}

TEST(filter_test, channel_options_bind_the_image_pass_and_bad_ones_are_named)
{
    std::string shader = glr_test::scratch_path("channel.frag"), out = glr_test::scratch_path("channel.mkv");
    std::ofstream(shader) << "void mainImage(out vec4 c, in vec2 p) { c = texture(iChannel0, p / iResolution.xy); }\n";
    std::string picture = glr_test::scratch_path("red.ppm");
    std::ofstream(picture, std::ios::binary) << "P6\n1 1\n255\n" << static_cast<char>(200) << '\0' << '\0';
    run_result r = ffmpeg({"-f", "lavfi", "-i",
                           "glreader=format=rgba:shader=" + shader + ":channel0='image\\:" + picture + ",filter=nearest':s=8x4:d=0.1",
                           "-c:v", "ffv1", out},
                          "channel");
    ASSERT_EQ(r.status, 0) << r.log;
    glr_test::decoded_video v = glr_test::decode_file(out);
    ASSERT_EQ(v.error, "");
    ASSERT_FALSE(v.frames.empty());
    EXPECT_EQ(v.frames[0].rgba[0], 200);
    EXPECT_EQ(v.frames[0].rgba[1], 0);

    std::string missing = glr_test::scratch_path("missing.png");
    auto fails = [&](const std::string &options, const std::string &words) {
        expect_failure_saying(ffmpeg({"-f", "lavfi", "-i", "glreader=shader=" + shader + ":d=0.1:" + options,
                                      "-f", "null", "-"},
                                     "bad_channel"),
                              words);
    };
    fails("channel0='image\\:" + missing + "'", "cannot open the image " + missing);
    fails("channel0=picture", "channel0: unknown channel kind 'picture'");
    fails("channel0=sound", "the Image pass's iChannel0 is a sound without a file");
    fails("mouse=3", "mouse: the mouse needs X,Y or X,Y,CX,CY");
    fails("date=2026-02-30", "date: the date needs YYYY-MM-DD");
    // A lean build reads no MP3: it says which parts it lacks, not "Invalid data found". (A
    // complete build reads it: the docs' examples play one.)
    if (ffmpeg({"-hide_banner", "-demuxers"}, "demuxers").log.find(" mp3 ") == std::string::npos) {
        std::string mp3 = glr_test::scratch_path("song.mp3");
        std::ofstream(mp3, std::ios::binary) << "ID3\x04" << std::string(64, '\0'); // what the name says is enough
        fails("channel0=sound:audio=" + mp3,
              "cannot open the sound " + mp3 + ": this FFmpeg has no mp3 demuxer and no mp3 decoder (a lean build?");
    }
    std::string project = glr_test::scratch_path("no_image_project");
    mkdir(project.c_str(), 0755);
    expect_failure_saying(ffmpeg({"-f", "lavfi", "-i", "glreader=shader=" + project, "-f", "null", "-"}, "no_image"),
                          "has no image.glsl");
}

TEST(filter_test, every_format_depth_and_readback_gives_the_same_pixels)
{
    std::string shader = glr_test::write_counter_shader();
    for (std::string options : {"format=bgra", "format=rgb24", "format=rgba:depth=1", "format=rgba:depth=2",
                                "format=rgba:depth=16", "readback=sync", "readback=sync:format=rgb24"}) {
        SCOPED_TRACE(options);
        std::string out = glr_test::scratch_path("variant.mkv");
        run_result r = ffmpeg({"-f", "lavfi", "-i", "glreader=shader=" + shader + ":s=41x23:r=10:d=2:" + options,
                               "-c:v", "ffv1", out},
                              "variant");
        ASSERT_EQ(r.status, 0) << r.log;
        glr_test::expect_counter_video(out, 41, 23, 20);
        std::remove(out.c_str());
    }
}

TEST(filter_test, yuv_formats_are_the_gpu_conversion_byte_for_byte)
{
    // Frames converted on the GPU leave the filter as they are (raw frames: no conversion
    // in the graph): byte for byte what glreader-export's ring makes of the same frames, on
    // every depth (depth 1 lends nothing: every frame is a copy), and within a code value of
    // the conversion worked out on the CPU from the pattern's RGB (no code of ours shared).
    std::string shader = glr_test::write_counter_shader();
    for (const char *format : {"nv12", "yuv420p", "p010le", "yuv444p"}) {
        auto want = glr_test::counter_frames_converted(40, 24, 10, glr_format_from_name(format), {});
        const glr_color bt709{GLR_MATRIX_BT709, GLR_RANGE_LIMITED, 1, 1, GLR_CHROMA_LEFT}; // the source's defaults
        auto reference = glr_test::counter_frames_reference(40, 24, 10, glr_format_from_name(format), bt709);
        const int one_code = glr_format_get_info(glr_format_from_name(format))->bit_depth > 8 ? 4 : 1;
        for (const char *depth : {"1", "3"}) {
            SCOPED_TRACE(std::string(format) + " depth " + depth);
            std::string out = glr_test::scratch_path("yuv.raw");
            run_result r = ffmpeg({"-f", "lavfi", "-i",
                                   "glreader=shader=" + shader + ":s=40x24:r=10:d=1:format=" + format + ":depth=" + depth,
                                   "-f", "rawvideo", out},
                                  "yuv");
            ASSERT_EQ(r.status, 0) << r.log;
            EXPECT_EQ(glr_test::compare_raw_yuv(out, glr_format_from_name(format), 40, 24, want), "");
            EXPECT_EQ(glr_test::compare_raw_yuv(out, glr_format_from_name(format), 40, 24, reference, one_code), "");
            std::remove(out.c_str());
        }
    }
}

// The ffmpeg's major version, from `ffmpeg -version`.
int ffmpeg_major()
{
    run_result r = ffmpeg({"-version"}, "version");
    size_t at = r.log.find("ffmpeg version ");
    int major = at == std::string::npos ? 0 : std::atoi(r.log.c_str() + at + 15);
    // The tests a release takes are chosen by it: a version not read fails, not a guess.
    if (major < 5)
        ADD_FAILURE() << "ffmpeg -version says no release this suite knows:\n" << r.log;
    return major;
}

// Whether this ffmpeg was built with Vulkan (-hwaccels lists its device types): every lean
// build but 8.1's, which is built without it so that its refusal is tested
// (ffmpeg-patches/build.sh).
bool ffmpeg_has_vulkan()
{
    run_result r = ffmpeg({"-hwaccels"}, "hwaccels");
    return r.status == 0 && r.log.find("\nvulkan\n") != std::string::npos;
}

// Runs ffmpeg with way (its arguments before a raw output, hwdownload bringing the source's
// hardware frames back to memory) and expects want, the ring's bytes of the counter frames
// of format at width x height, every frame once and in order, and the summary saying they
// were converted into kind's frames ("Vulkan", "CUDA").
void expect_the_ring_s_bytes_through(const std::vector<std::string> &way, const char *format, int width, int height,
                                     const std::vector<glr_test::yuv_planes> &want, const std::string &kind)
{
    std::string command;
    for (const std::string &arg : way)
        command += " " + arg;
    SCOPED_TRACE(std::string(format) + ":" + command);
    std::string out = glr_test::scratch_path("hw_frames.raw");
    std::vector<std::string> args = {"-v", "verbose"};
    args.insert(args.end(), way.begin(), way.end());
    args.insert(args.end(), {"-f", "rawvideo", out});
    run_result r = ffmpeg(args, "hw_frames");
    ASSERT_EQ(r.status, 0) << r.log;
    EXPECT_NE(r.log.find(std::to_string(want.size()) + " frames of " + format + ", converted on the GPU into " + kind +
                         " frames, nothing read back"),
              std::string::npos)
        << r.log;
    EXPECT_EQ(glr_test::compare_raw_yuv(out, glr_format_from_name(format), width, height, want), "");
    std::remove(out.c_str());
}

// The end of the stream with the last frames still read back or converted, as on a GPU (a
// preload answers the fences' polls "not signalled"; the ffmpeg links the installed
// glreader, which has no test seam): the source waits for each, so every frame arrives, in
// order, with its bytes, read back and, where this ffmpeg has Vulkan, as Vulkan frames.
TEST(filter_test, the_end_of_the_stream_waits_for_the_frames_still_under_way)
{
    std::string shader = glr_test::write_counter_shader(), out = glr_test::scratch_path("in_flight.mkv");
    run_result r = ffmpeg({"-f", "lavfi", "-i", "glreader=format=rgba:shader=" + shader + ":s=40x24:r=25:d=1:depth=4",
                           "-c:v", "ffv1", out},
                          "in_flight", glr_test::fences_in_flight(1000000));
    ASSERT_EQ(r.status, 0) << r.log;
    EXPECT_GT(glr_test::polls_answered(r.log), 0) << "no frame was in flight:\n" << r.log;
    glr_test::expect_counter_video(out, 40, 24, 25);
    std::remove(out.c_str());
    if (!ffmpeg_has_vulkan())
        return;
    auto want = glr_test::counter_frames_converted(64, 32, 12, GLR_FORMAT_NV12, {});
    std::string raw = glr_test::scratch_path("in_flight.raw");
    run_result hw = ffmpeg({"-init_hw_device", "vulkan=vk", "-filter_hw_device", "vk", "-filter_complex",
                            "glreader=shader=" + shader + ":s=64x32:r=12:d=1:format=nv12:depth=3,hwdownload,format=nv12",
                            "-f", "rawvideo", raw},
                           "in_flight_hw", glr_test::fences_in_flight(1000000));
    ASSERT_EQ(hw.status, 0) << hw.log;
    EXPECT_GT(glr_test::polls_answered(hw.log), 0) << "no Vulkan frame was in flight:\n" << hw.log;
    EXPECT_EQ(glr_test::compare_raw_yuv(raw, GLR_FORMAT_NV12, 64, 32, want), "");
    std::remove(raw.c_str());
}

TEST(filter_test, hardware_frames_are_the_gpu_conversion_byte_for_byte_in_order)
{
    // Vulkan frames (lavapipe here, the Vulkan device behind llvmpipe's GL) where the graph
    // takes them: hwdownload copies them to memory, and they are byte for byte what the
    // ring makes of the same frames, every counter frame once and in order, at depths 1
    // and 4, an odd multiple of 16 across; on the graph's device (-filter_hw_device, with
    // the default hw_frames=auto) and on the filter's own (hw_frames=on); from 7.1 on also
    // through the lavfi device (-f lavfi -i), which passes hardware frames on there.
    if (!ffmpeg_has_vulkan()) {
        std::string out = glr_test::scratch_path("no_vulkan.nut");
        run_result r = ffmpeg({"-f", "lavfi", "-i", "glreader=s=64x32:d=0.2:hw_frames=on", "-c:v", "rawvideo", out},
                              "no_vulkan");
        expect_failure_saying(r, "hw_frames=on: this FFmpeg has no Vulkan (built without it)");
        struct stat st;
        EXPECT_NE(stat(out.c_str(), &st), 0) << "the output was created";
        return;
    }
    std::string shader = glr_test::write_counter_shader();
    const int width = 208, height = 118, frames = 24;
    for (const char *format : {"nv12", "p010le", "yuv444p"}) {
        auto want = glr_test::counter_frames_converted(width, height, frames, glr_format_from_name(format), {});
        std::string source = "glreader=shader=" + shader + ":s=208x118:r=24:d=1:format=" + format;
        std::string download = std::string(",hwdownload,format=") + format;
        std::vector<std::vector<std::string>> ways = {
            {"-init_hw_device", "vulkan=vk", "-filter_hw_device", "vk", "-filter_complex", source + ":depth=1" + download},
            {"-filter_complex", source + ":depth=4:hw_frames=on" + download},
        };
        if (ffmpeg_major() >= 7)
            ways.push_back({"-f", "lavfi", "-i", source + ":depth=2:hw_frames=on", "-vf", download.substr(1)});
        for (const auto &way : ways)
            expect_the_ring_s_bytes_through(way, format, width, height, want, "Vulkan");
    }
}

TEST(filter_test, hardware_frames_go_only_where_the_graph_takes_them_and_refusals_say_why)
{
    // With a Vulkan device given to the graph but an encoder on the CPU after the source
    // (FFV1, whose formats ffmpeg holds the graph to), auto reads back: the graph does not
    // take Vulkan frames.
    std::string out = glr_test::scratch_path("hw_auto.mkv");
    auto want = glr_test::counter_frames_converted(64, 32, 5, GLR_FORMAT_NV12, {});
    std::string shader = glr_test::write_counter_shader();
    if (ffmpeg_has_vulkan()) {
        run_result r = ffmpeg({"-v", "verbose", "-init_hw_device", "vulkan=vk", "-filter_hw_device", "vk",
                               "-filter_complex", "glreader=shader=" + shader + ":s=64x32:r=10:d=0.5:format=nv12",
                               "-c:v", "ffv1", out},
                              "hw_auto");
        ASSERT_EQ(r.status, 0) << r.log;
        EXPECT_NE(r.log.find("5 frames of nv12, converted on the GPU: "), std::string::npos) << r.log;
        // ffmpeg makes a -filter_complex graph twice (first to learn its pads): one GL
        // context for both, one renderer line.
        EXPECT_EQ(r.log.find("OpenGL renderer: "), r.log.rfind("OpenGL renderer: ")) << r.log;
        EXPECT_EQ(glr_test::compare_yuv_video(out, want), "");
        const std::string unused = "the hardware device vulkan is not used: the graph takes frames in memory, which "
                                   "are read back (hw_frames=on gives it Vulkan frames)";
        EXPECT_NE(r.log.find(unused), std::string::npos) << r.log;
        std::remove(out.c_str());
        // The device named on the source, through the lavfi device (which takes hardware
        // frames from 7.1 on) into an encoder on the CPU: frames in memory, the device said
        // unused once (a warning), and the graph made once (one renderer line).
        run_result lavfi = ffmpeg({"-f", "lavfi", "-i", "glreader=shader=" + shader + ":s=64x32:r=10:d=0.5:format=nv12:"
                                   "hw_device=vulkan", "-c:v", "ffv1", out},
                                  "hw_unused");
        ASSERT_EQ(lavfi.status, 0) << lavfi.log;
        EXPECT_EQ(glr_test::compare_yuv_video(out, want), "");
        EXPECT_NE(lavfi.log.find(unused), std::string::npos) << lavfi.log;
        EXPECT_EQ(lavfi.log.find(unused), lavfi.log.rfind(unused)) << "said more than once:\n" << lavfi.log;
        std::remove(out.c_str());
        // A device named that does not exist (':' escaped from the filter's own options).
        run_result named = ffmpeg({"-filter_complex", "glreader=hw_device='vulkan\\:no-such-gpu',hwdownload,format=nv12",
                                   "-f", "null", "-"},
                                  "hw_named");
        expect_failure_saying(named, "no Vulkan device named no-such-gpu");
    }
    // Refused at the source's start (-f lavfi: before the output exists), on every line.
    const std::vector<std::pair<std::string, std::string>> refused = {
        {"hw_device=vaapi", "hw_device=vaapi: this source writes Vulkan or CUDA frames, on a device named as -init_hw_device "
                            "names it"},
        {"format=rgba:hw_frames=on", "hw_frames=on: format=rgba is RGB, and hardware frames hold YUV"},
        {"readback=sync:hw_frames=on", "readback=sync reads frames back, hw_frames=on reads nothing back: pick one"},
    };
    for (const auto &[options, words] : refused) {
        SCOPED_TRACE(options);
        run_result r = ffmpeg({"-f", "lavfi", "-i", "glreader=s=64x32:d=0.2:" + options, "-c:v", "ffv1", out},
                              "hw_refused");
        expect_failure_saying(r, words);
        struct stat st;
        EXPECT_NE(stat(out.c_str(), &st), 0) << "the output was created";
    }
}

// What the source's CUDA frames need that this machine lacks, in the words of the refusal
// ("" where nothing is): CUDA in this FFmpeg, NVIDIA's driver, a GL context on a CUDA device
// (the renderer the source logged in log).
std::string cuda_missing(const std::string &log)
{
    if (ffmpeg({"-hwaccels"}, "hwaccels").log.find("\ncuda\n") == std::string::npos)
        return "this FFmpeg has no CUDA (built without it)";
    if (!dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL))
        return "no CUDA driver: Cannot load libcuda.so.1";
    size_t renderer = log.find("OpenGL renderer: ");
    if (renderer == std::string::npos || log.compare(renderer + 17, 6, "NVIDIA") != 0)
        return "the GL context runs on no CUDA device";
    return "";
}

TEST(filter_test, cuda_frames_are_the_gpu_conversion_byte_for_byte_or_refused_naming_what_is_missing)
{
    // CUDA frames (for NVENC) on the CUDA device behind the GL context: where they can
    // start, brought back by hwdownload they are byte for byte what the ring makes of the
    // same frames, all 24 in order, on the device hw_device names and on the graph's. Where
    // they cannot, the refusal names what is missing before the output exists, and the test
    // finds out on its own which piece this machine lacks, so a refusal for another reason
    // fails it. Here (no GPU) the driver is missing; the GPU bundle runs it on NVIDIA's.
    std::string shader = glr_test::write_counter_shader();
    std::string out = glr_test::scratch_path("cuda_frames.mkv");
    run_result probe = ffmpeg({"-f", "lavfi", "-i", "glreader=s=64x32:d=0.2:format=nv12:hw_frames=on:hw_device=cuda",
                               "-c:v", "ffv1", out},
                              "cuda_probe");
    std::string missing = cuda_missing(probe.log);
    if (!missing.empty()) {
        expect_failure_saying(probe, missing);
        struct stat st;
        EXPECT_NE(stat(out.c_str(), &st), 0) << "the output was created";
        return;
    }
    std::remove(out.c_str());
    const int width = 208, height = 118, frames = 24;
    for (const char *format : {"nv12", "p010le", "yuv444p"}) {
        auto want = glr_test::counter_frames_converted(width, height, frames, glr_format_from_name(format), {});
        std::string source = "glreader=shader=" + shader + ":s=208x118:r=24:d=1:format=" + format;
        std::string download = std::string(",hwdownload,format=") + format;
        const std::vector<std::vector<std::string>> ways = {
            {"-filter_complex", source + ":depth=4:hw_frames=on:hw_device=cuda" + download},
            {"-init_hw_device", "cuda=cu", "-filter_hw_device", "cu", "-filter_complex", source + ":depth=1" + download},
        };
        for (const auto &way : ways)
            expect_the_ring_s_bytes_through(way, format, width, height, want, "CUDA");
    }
}

TEST(filter_test, yuv_frames_and_streams_carry_the_colour_asked_for)
{
    // In a graph of ffmpeg's own (-filter_complex) on every line; through the lavfi
    // device (-f lavfi -i) from the 7.1 line on: 5.1's device passes no colour on.
    std::vector<std::vector<std::string>> ways = {{"-filter_complex"}};
    if (ffmpeg_major() >= 7)
        ways.push_back({"-f", "lavfi", "-i"});
    struct tag_case {
        std::string options, expected;
    };
    for (const tag_case &c : {tag_case{"format=nv12", "tv|bt709|bt709|bt709|left"},
                              tag_case{"format=yuv420p:matrix=bt601:range=pc:chroma_loc=center",
                                       "pc|smpte170m|smpte170m|smpte170m|center"},
                              tag_case{"format=nv12:matrix=bt2020:chroma_loc=center", "tv|bt2020nc|bt2020-10|bt2020|center"}})
        for (const auto &way : ways) {
            SCOPED_TRACE(c.options + " through " + way[0]);
            // libx264 takes these formats as they are: a conversion ffmpeg inserts in the
            // graph would drop the chroma location on the newer lines.
            std::string out = glr_test::scratch_path("tags.mp4"), probe = glr_test::scratch_path("tags_probe.txt");
            std::vector<std::string> args = way;
            args.push_back("glreader=s=64x48:r=10:d=0.5:" + c.options);
            args.insert(args.end(), {"-c:v", "libx264", out});
            run_result r = ffmpeg(args, "tags");
            ASSERT_EQ(r.status, 0) << r.log;
            ASSERT_EQ(glr_test::wait_exit(glr_test::spawn(
                          "ffprobe", {"-v", "error", "-select_streams", "v", "-show_entries",
                                      "stream=color_range,color_space,color_transfer,color_primaries,chroma_location",
                                      "-of", "csv=p=0:s=|", out},
                          probe)),
                      0);
            std::string shown = glr_test::slurp(probe);
            EXPECT_EQ(shown.substr(0, shown.find('\n')), c.expected);
            std::remove(out.c_str());
        }
}

// Without format=, the source offers every format the ring makes, yuv420p first: libx264
// gets 4:2:0 converted on the GPU and tagged BT.709 limited (not RGB, which it would encode
// as High 4:4:4 with no matrix), whichever way the source is used; an RGB-only encoder gets
// RGB read back as rendered.
TEST(filter_test, negotiates_its_format_with_the_encoder)
{
    std::vector<std::vector<std::string>> ways = {{"-filter_complex"}, {"-f", "lavfi", "-i"}};
    for (const auto &way : ways) {
        SCOPED_TRACE(way[0]);
        std::string out = glr_test::scratch_path("negotiated.mp4"), probe = glr_test::scratch_path("negotiated.txt");
        std::vector<std::string> args = {"-v", "verbose"};
        args.insert(args.end(), way.begin(), way.end());
        args.insert(args.end(), {"glreader=s=64x48:r=10:d=0.5", "-c:v", "libx264", out});
        run_result r = ffmpeg(args, "negotiated");
        ASSERT_EQ(r.status, 0) << r.log;
        EXPECT_NE(r.log.find("5 frames of yuv420p, converted on the GPU: bt709, tv range, left chroma"),
                  std::string::npos) << r.log;
        ASSERT_EQ(glr_test::wait_exit(glr_test::spawn(
                      "ffprobe", {"-v", "error", "-select_streams", "v", "-show_entries",
                                  "stream=pix_fmt,profile,color_range,color_space", "-of", "csv=p=0:s=|", out},
                      probe)),
                  0);
        std::string shown = glr_test::slurp(probe);
        shown = shown.substr(0, shown.find('\n'));
        // 5.1's lavfi device passes no colour on (-filter_complex keeps it on every line).
        EXPECT_EQ(shown, way[0] == "-f" && ffmpeg_major() < 7 ? "High|yuv420p|unknown|unknown"
                                                                : "High|yuv420p|tv|bt709");
        std::remove(out.c_str());
    }
    std::string raw = glr_test::scratch_path("negotiated.nut");
    run_result r = ffmpeg({"-v", "verbose", "-filter_complex", "glreader=s=64x48:r=10:d=0.5", "-c:v", "rawvideo",
                           "-pix_fmt", "bgra", raw},
                          "bgra");
    ASSERT_EQ(r.status, 0) << r.log;
    EXPECT_NE(r.log.find("5 frames of bgra, read back as rendered"), std::string::npos) << r.log;
    std::remove(raw.c_str());
}

// alpha= keeps the shader's alpha: the graph gets only formats with alpha (FFV1 takes
// yuva420p, converted on the GPU), and a format without it is refused.
TEST(filter_test, alpha_keeps_the_shader_s_alpha_and_negotiates_formats_with_it)
{
    std::string shader = glr_test::scratch_path("filter_alpha.frag"), out = glr_test::scratch_path("filter_alpha.mkv");
    std::ofstream(shader) << "void mainImage(out vec4 c, in vec2 p) { c = vec4(0.8, 0.4, 0.2, p.x / iResolution.x); }\n";
    run_result r = ffmpeg({"-v", "verbose", "-filter_complex", "glreader=shader=" + shader + ":alpha=straight:s=64x16:r=10:d=0.3",
                           "-c:v", "ffv1", out},
                          "filter_alpha");
    ASSERT_EQ(r.status, 0) << r.log;
    glr_test::decoded_video v = glr_test::decode_file(out);
    ASSERT_EQ(v.error, "");
    ASSERT_EQ(v.frames.size(), 3u);
    EXPECT_NE(v.pix_fmt.find('a'), std::string::npos) << v.pix_fmt << " carries alpha";
    for (int x = 2; x < 62; x += 5)
        EXPECT_NEAR(v.frames[0].rgba[static_cast<size_t>((8 * 64 + x) * 4 + 3)], std::lround((x + 0.5) / 64 * 255), 1)
            << "column " << x;
    std::remove(out.c_str());

    expect_failure_saying(ffmpeg({"-f", "lavfi", "-i", "glreader=alpha=straight:format=yuv420p:d=0.1", "-f", "null", "-"},
                                 "filter_alpha_bad"),
                          "format=yuv420p has no alpha, which alpha= keeps");
}

TEST(filter_test, duration_rounds_up_to_whole_frames_and_no_duration_runs_until_ffmpeg_stops)
{
    std::string shader = glr_test::write_counter_shader(), out = glr_test::scratch_path("short.mkv");
    run_result r = ffmpeg({"-f", "lavfi", "-i", "glreader=format=rgba:shader=" + shader + ":s=40x24:r=30:d=0.25", "-c:v", "ffv1", out},
                          "short");
    ASSERT_EQ(r.status, 0) << r.log;
    glr_test::expect_counter_video(out, 40, 24, 8); // 7.5 frames
    r = ffmpeg({"-f", "lavfi", "-i", "glreader=format=rgba:shader=" + shader + ":s=40x24", "-frames:v", "7", "-c:v", "ffv1", out},
               "endless");
    ASSERT_EQ(r.status, 0) << r.log;
    glr_test::expect_counter_video(out, 40, 24, 7);
    std::remove(out.c_str());
}

// start: the first frame is the exporter's --start-frame, at iTime = start; shader_src
// gives the frames of the same shader in a file; -h shows defaults a user can read.
TEST(filter_test, start_and_an_inline_shader_give_glreader_export_s_frames)
{
    std::string shader = glr_test::scratch_path("timed.frag");
    const std::string source = "void mainImage(out vec4 c, in vec2 p) {\n"
                               "    c = vec4(fract(iTime * 0.37 + p.x / iResolution.x), float(iFrame % 256) / 255.0,\n"
                               "             fract(iDate.w / 7.0), 1.0);\n"
                               "}\n";
    std::ofstream(shader) << source;
    std::string filtered = glr_test::scratch_path("started.mkv"), exported = glr_test::scratch_path("started_export.mkv");
    const std::string date = "'2026-01-02T03\\:04\\:05'";
    run_result f = ffmpeg({"-f", "lavfi", "-i", "glreader=format=rgba:shader=" + shader + ":s=32x16:r=25:start=2:d=0.4:date=" + date,
                           "-c:v", "ffv1", filtered}, "started");
    ASSERT_EQ(f.status, 0) << f.log;
    EXPECT_EQ(f.log.find("not a whole frame"), std::string::npos) << f.log;
    run_result e = run(export_program, {"-s", "32x16", "-r", "25", "-n", "10", "--start-frame", "50", "--shader",
                                              shader, "--date", "2026-01-02T03:04:05", "-c", "ffv1", "-o", exported},
                       "started_export");
    ASSERT_EQ(e.status, 0) << e.log;
    expect_the_same_frames(filtered, exported, 10);

    std::string file_frames = glr_test::scratch_path("from_file.mkv"), inline_frames = glr_test::scratch_path("inline.mkv");
    ASSERT_EQ(ffmpeg({"-f", "lavfi", "-i", "glreader=format=rgba:shader=" + shader + ":s=32x16:d=0.3:date=" + date, "-c:v", "ffv1",
                      file_frames}, "from_file").status, 0);
    run_result i = ffmpeg({"-f", "lavfi", "-i", "glreader=format=rgba:s=32x16:d=0.3:date=" + date + ":shader_src='" + source + "'",
                           "-c:v", "ffv1", inline_frames}, "inline");
    ASSERT_EQ(i.status, 0) << i.log;
    expect_the_same_frames(inline_frames, file_frames, 9);

    run_result between = ffmpeg({"-f", "lavfi", "-i", "glreader=s=16x16:r=25:start=0.01:d=0.1", "-f", "null", "-"},
                                "between");
    EXPECT_EQ(between.status, 0) << between.log;
    EXPECT_NE(between.log.find("start 0.01 s is not a whole frame at 25/1 fps: starting at frame 1"),
              std::string::npos) << between.log;

    run_result help = ffmpeg({"-h", "filter=glreader"}, "help");
    ASSERT_EQ(help.status, 0) << help.log;
    for (const char *option : {"start ", "shader_src ", "duration ", "channel0 ", "mouse ", "format "})
        EXPECT_NE(help.log.find(option), std::string::npos) << option << " missing from:\n" << help.log;
    EXPECT_EQ(help.log.find("-0.000001"), std::string::npos) << help.log;
    EXPECT_NE(help.log.find("0 for unlimited"), std::string::npos) << help.log;
}

TEST(filter_test, an_inline_shader_s_errors_count_its_own_lines)
{
    run_result r = ffmpeg({"-f", "lavfi", "-i",
                           "glreader=d=1:shader_src='void mainImage(out vec4 c, in vec2 p) {\n    c = vec4(1.0);\n"
                           "    c.x = nope;\n}\n'",
                           "-f", "null", "-"}, "inline_broken");
    // The compiler's words, located in the inline source (FFmpeg echoes the arguments, so
    // the identifier alone would prove nothing).
    expect_compile_error_at(r, "shader_src", 3, "nope");
    expect_failure_saying(ffmpeg({"-f", "lavfi", "-i", "glreader=d=1:shader=a.frag:shader_src='x'", "-f", "null", "-"},
                                 "both"),
                          "shader and shader_src both given: pick one");
    expect_failure_saying(ffmpeg({"-f", "lavfi", "-i", "glreader=d=1:start=-1", "-f", "null", "-"}, "negative_start"),
                          "for parameter 'start' out of range [0 - ");
}

// reverse keeps every frame until the end: the filter must lend copies, not stall.
TEST(filter_test, a_graph_that_keeps_every_frame_gets_them_all)
{
    std::string shader = glr_test::write_counter_shader(), out = glr_test::scratch_path("reversed.mkv");
    run_result r = ffmpeg({"-v", "verbose", "-f", "lavfi", "-i",
                           "glreader=format=rgba:shader=" + shader + ":s=40x24:r=25:d=2:depth=3,reverse", "-c:v", "ffv1", out},
                          "reversed");
    ASSERT_EQ(r.status, 0) << r.log;
    glr_test::decoded_video v = glr_test::decode_file(out);
    ASSERT_EQ(v.error, "");
    ASSERT_EQ(v.frames.size(), 50u);
    for (size_t i = 0; i < v.frames.size(); i++)
        ASSERT_EQ(glr_test::check_decoded(v.frames[i], 49 - i, 40, 24, false), "");
    EXPECT_NE(r.log.find("50 frames of rgba, read back as rendered"), std::string::npos) << r.log;
    std::remove(out.c_str());
}

// A filter_complex graph with threads, feeding two outputs: activate runs on the graph's
// threads, not the one that created the GL context.
TEST(filter_test, works_in_a_threaded_filter_graph_with_two_outputs)
{
    std::string shader = glr_test::write_counter_shader();
    std::string a = glr_test::scratch_path("a.mkv"), b = glr_test::scratch_path("b.nut");
    run_result r = ffmpeg({"-filter_complex_threads", "2", "-filter_complex",
                           "glreader=format=rgba:shader=" + shader + ":s=40x24:r=25:d=1,split[a][b]", "-map", "[a]", "-c:v", "ffv1",
                           a, "-map", "[b]", "-c:v", "ffv1", b},
                          "threaded");
    ASSERT_EQ(r.status, 0) << r.log;
    glr_test::expect_counter_video(a, 40, 24, 25);
    glr_test::expect_counter_video(b, 40, 24, 25);
    std::remove(a.c_str());
    std::remove(b.c_str());
}

// The 2x2 box average of an RGBA image.
std::vector<uint8_t> half_size(const std::vector<uint8_t> &rgba, int w, int h)
{
    std::vector<uint8_t> out(static_cast<size_t>(w / 2 * h / 2 * 4));
    for (int y = 0; y < h / 2; y++)
        for (int x = 0; x < w / 2; x++)
            for (int c = 0; c < 4; c++) {
                auto at = [&](int xx, int yy) { return rgba[static_cast<size_t>((yy * w + xx) * 4 + c)]; };
                int sum = at(2 * x, 2 * y) + at(2 * x + 1, 2 * y) + at(2 * x, 2 * y + 1) + at(2 * x + 1, 2 * y + 1);
                out[static_cast<size_t>((y * (w / 2) + x) * 4 + c)] = static_cast<uint8_t>((sum + 2) / 4);
            }
    return out;
}

TEST(filter_test, scale_format_and_libx264_make_a_playable_file_of_the_scene)
{
    std::string mp4 = glr_test::scratch_path("chain.mp4"), reference = glr_test::scratch_path("reference.mkv");
    run_result r = ffmpeg({"-f", "lavfi", "-i", "glreader=format=rgba:s=320x240:r=25:d=1,scale=160:120,format=yuv420p", "-c:v",
                           "libx264", "-preset", "ultrafast", mp4},
                          "chain");
    ASSERT_EQ(r.status, 0) << r.log;
    r = ffmpeg({"-f", "lavfi", "-i", "glreader=format=rgba:s=320x240:r=25:d=1", "-c:v", "ffv1", reference}, "reference");
    ASSERT_EQ(r.status, 0) << r.log;

    glr_test::decoded_video v = glr_test::decode_file(mp4), ref = glr_test::decode_file(reference);
    ASSERT_EQ(v.error, "");
    ASSERT_EQ(ref.error, "");
    EXPECT_EQ(v.codec, "h264");
    EXPECT_EQ(v.pix_fmt, "yuv420p");
    EXPECT_EQ(v.width, 160);
    EXPECT_EQ(v.height, 120);
    ASSERT_EQ(v.frames.size(), 25u);
    ASSERT_EQ(ref.frames.size(), 25u);
    // Each frame is the scene's frame, upright and in order; a lossy 4:2:0 encode of
    // a scaled image scores about 32 dB here, a flipped frame about 10.
    for (size_t n = 0; n < v.frames.size(); n++) {
        double psnr = glr_test::psnr_rgb(half_size(ref.frames[n].rgba, 320, 240), v.frames[n].rgba);
        EXPECT_GT(psnr, 25.0) << "frame " << n;
    }
    std::remove(mp4.c_str());
    std::remove(reference.c_str());
}

TEST(filter_test, a_missing_shader_file_is_named)
{
    std::string missing = glr_test::scratch_path("no_such_scene.frag");
    expect_failure_saying(ffmpeg({"-f", "lavfi", "-i", "glreader=shader=" + missing, "-f", "null", "-"}, "missing"),
                          "cannot read the Image pass's shader " + missing + ": No such file or directory");
}

// A shader path that names no text file fails at once, without reading what never ends.
TEST(filter_test, shader_paths_that_are_no_text_files_fail_at_once_in_little_memory)
{
    std::string dir = glr_test::scratch_path("a_directory"), large = glr_test::scratch_path("large.frag");
    ASSERT_EQ(mkdir(dir.c_str(), 0755), 0);
    std::ofstream(large) << std::string(5 << 20, ' ');
    struct hostile {
        std::string path, words;
    } cases[] = {{"/dev/zero", "/dev/zero is a character device: only regular files are read"},
                 {"/dev/urandom", "/dev/urandom is a character device"},
                 {dir, "the project " + dir + " has no image.glsl"},
                 {large, large + " is 5242880 bytes, more than the limit of 4194304 bytes"}};
    const char *ffmpeg_path = std::getenv("GLREADER_FFMPEG");
    ASSERT_NE(ffmpeg_path, nullptr);
    for (const hostile &c : cases) {
        // Within a bound: reading /dev/zero used to run to gigabytes; one that took more
        // than a gigabyte would fail to allocate and say so, not the words.
        run_result r = run("prlimit", glr_test::within_memory(size_t(1) << 30, ffmpeg_path,
                                                              {"-hide_banner", "-nostdin", "-f", "lavfi", "-i",
                                                               "glreader=shader=" + c.path, "-f", "null", "-"}),
                           "hostile");
        expect_failure_saying(r, c.words);
    }
    rmdir(dir.c_str());
    std::remove(large.c_str());
}

TEST(filter_test, a_shader_compile_error_names_file_and_line)
{
    std::string shader = glr_test::scratch_path("broken.frag");
    std::ofstream(shader) << "void mainImage(out vec4 c, in vec2 p) {\n    c = vec4(1.0);\n    c.x = nope;\n}\n";
    run_result r = ffmpeg({"-f", "lavfi", "-i", "glreader=shader=" + shader, "-f", "null", "-"}, "broken");
    expect_failure_saying(r, "Image pass (" + shader + ") does not compile");
    expect_compile_error_at(r, shader, 3, "nope");
}

TEST(filter_test, no_egl_is_said_so)
{
    // glvnd finds no vendor library: no EGL display of any platform can be had.
    run_result r = ffmpeg({"-f", "lavfi", "-i", "glreader=d=1", "-f", "null", "-"}, "no_egl",
                          {"__EGL_VENDOR_LIBRARY_FILENAMES=/nonexistent/egl_vendor.json"});
    expect_failure_saying(r, "no headless OpenGL context could be created");
    expect_failure_saying(r, "surfaceless");
}

TEST(filter_test, sizes_and_rates_it_cannot_render_are_named)
{
    expect_failure_saying(ffmpeg({"-f", "lavfi", "-i", "glreader=s=40000x40000:d=1", "-f", "null", "-"}, "huge"),
                          "size 40000x40000 is larger than this driver's limit");
    expect_failure_saying(ffmpeg({"-f", "lavfi", "-i", "glreader=s=0x10:d=1", "-f", "null", "-"}, "empty"),
                          "\"0x10\" as image size");
    expect_failure_saying(ffmpeg({"-f", "lavfi", "-i", "glreader=r=0:d=1", "-f", "null", "-"}, "still"),
                          "option value \"0\" as video rate"); // FFmpeg's parser refuses it
    expect_failure_saying(ffmpeg({"-f", "lavfi", "-i", "glreader=s=41x24:d=1:format=nv12", "-f", "null", "-"}, "odd"),
                          "41x24 cannot be converted to nv12");
    expect_failure_saying(
        ffmpeg({"-f", "lavfi", "-i", "glreader=s=40x24:d=1:format=nv12:readback=sync", "-f", "null", "-"}, "sync"),
        "readback=sync reads RGB formats only");
}

TEST(filter_test, require_hw_refuses_a_software_renderer)
{
    run_result probe = ffmpeg({"-f", "lavfi", "-i", "glreader=s=16x16:d=0.1", "-f", "null", "-"}, "probe");
    ASSERT_EQ(probe.status, 0) << probe.log;
    run_result r = ffmpeg({"-f", "lavfi", "-i", "glreader=s=16x16:d=0.1:require_hw=1", "-f", "null", "-"}, "hw");
    if (probe.log.find(", software)") != std::string::npos)
        expect_failure_saying(r, "require_hw: no hardware OpenGL renderer");
    else
        EXPECT_EQ(r.status, 0) << r.log;
}

} // namespace
