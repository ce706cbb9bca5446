// The glshader filter inside a patched ffmpeg (ffmpeg-patches/build.sh), run as a user
// runs it over video files: real processes, decoded back with the system's libavcodec
// and compared pixel for pixel. GLREADER_FFMPEG names the binary; CTest runs this suite
// once per release line. The documentation's examples of both filters run here too, from
// the filters.texi of the tree that binary was built from.
#include "support/audio_files.hpp"
#include "support/counter_video.hpp"
#include "support/decoder.hpp"
#include "support/gl_test.hpp"
#include "support/patched_ffmpeg.hpp"
#include "support/process.hpp"

#include <gtest/gtest.h>

#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

using glr_test::expect_failure_saying;
using glr_test::ffmpeg;
using glr_test::run_result;

const char *identity_source = "void mainImage(out vec4 c, in vec2 p) { c = texture(iChannel0, p / iResolution.xy); }\n";

std::string write_shader(const std::string &name, const std::string &source)
{
    std::string path = glr_test::scratch_path(name);
    std::ofstream(path) << source;
    return path;
}

// `frames` frames of the shader in `shader_path` at `size` and `rate`, rendered by the
// glreader source into a lossless file.
std::string render_video(const std::string &name, const std::string &shader_path, const std::string &size,
                         const std::string &rate, int frames)
{
    std::string out = glr_test::scratch_path(name + ".mkv");
    run_result r = ffmpeg({"-f", "lavfi", "-i", "glreader=format=rgba:shader=" + shader_path + ":s=" + size + ":r=" + rate,
                           "-frames:v", std::to_string(frames), "-c:v", "ffv1", out},
                          name);
    EXPECT_EQ(r.status, 0) << r.log;
    return out;
}

std::string counter_video(const std::string &name, const std::string &size, const std::string &rate, int frames)
{
    return render_video(name, glr_test::write_counter_shader(), size, rate, frames);
}

glr_test::decoded_video decoded(const std::string &path)
{
    glr_test::decoded_video v = glr_test::decode_file(path);
    EXPECT_EQ(v.error, "") << path;
    return v;
}

TEST(glshader_test, an_identity_shader_gives_back_its_input_pixel_exact)
{
    std::string in = counter_video("identity_in", "40x24", "25", 20), shader = write_shader("identity.frag", identity_source);
    // Every way through: the async path at several depths, the sync one, an inline source.
    for (const std::string options : {"shader=" + shader, "shader=" + shader + ":depth=1",
                                      "shader=" + shader + ":depth=8", "shader=" + shader + ":transfer=sync",
                                      "shader_src='" + std::string(identity_source) + "'"}) {
        std::string out = glr_test::scratch_path("identity_out.mkv");
        run_result r = ffmpeg({"-i", in, "-vf", "glshader=" + options, "-c:v", "ffv1", out}, "identity");
        ASSERT_EQ(r.status, 0) << options << "\n" << r.log;
        SCOPED_TRACE(options);
        // ffmpeg makes the graph twice (first to learn its pads): one GL context for both,
        // one renderer line.
        EXPECT_NE(r.log.find("OpenGL renderer: "), std::string::npos) << r.log;
        EXPECT_EQ(r.log.find("OpenGL renderer: "), r.log.rfind("OpenGL renderer: ")) << r.log;
        glr_test::expect_counter_video(out, 40, 24, 20);
        std::remove(out.c_str());
    }
}

// A cross-fade over the inputs' common second: frame 0 is input 0's, the last is input 1's.
TEST(glshader_test, a_crossfade_starts_at_input_0_and_ends_at_input_1)
{
    std::string a = counter_video("fade_a", "40x24", "25", 25);
    std::string b = render_video("fade_b",
                                 write_shader("gradient.frag", "void mainImage(out vec4 c, in vec2 p) {\n"
                                                               "    c = vec4(p / iResolution.xy, fract(iTime), 1.0);\n"
                                                               "}\n"),
                                 "40x24", "25", 25);
    std::string fade = write_shader("fade.frag", "void mainImage(out vec4 c, in vec2 p) {\n"
                                                 "    vec2 uv = p / iResolution.xy;\n"
                                                 "    c = mix(texture(iChannel0, uv), texture(iChannel1, uv),\n"
                                                 "            clamp(iTime / 0.96, 0.0, 1.0));\n"
                                                 "}\n");
    std::string out = glr_test::scratch_path("fade.mkv");
    for (const char *threads : {"1", "3"}) {
        run_result r = ffmpeg({"-filter_complex_threads", threads, "-i", a, "-i", b, "-filter_complex",
                               "[0:v][1:v]glshader=inputs=2:shader=" + fade, "-c:v", "ffv1", out},
                              "fade");
        ASSERT_EQ(r.status, 0) << r.log;
        glr_test::decoded_video va = decoded(a), vb = decoded(b), vo = decoded(out);
        ASSERT_EQ(vo.frames.size(), 25u) << "threads " << threads;
        ASSERT_FALSE(va.frames.empty());
        ASSERT_FALSE(vb.frames.empty());
        EXPECT_TRUE(vo.frames.front().rgba == va.frames.front().rgba) << "frame 0 is input 0's, threads " << threads;
        EXPECT_TRUE(vo.frames.back().rgba == vb.frames.back().rgba) << "frame 24 is input 1's, threads " << threads;
        EXPECT_FALSE(vo.frames[12].rgba == va.frames[12].rgba || vo.frames[12].rgba == vb.frames[12].rgba)
            << "frame 12 mixes both, threads " << threads;
    }
    for (const std::string &f : {a, b, out})
        std::remove(f.c_str());
}

// The first input (20x12, 5 fps, 2 s) drives; the second (8x6, 10 fps, 1 s, frame k of
// red 20 k) shows its latest frame at or before each driving frame, then what eof_action
// says. The shader writes the second input's red, width and height.
TEST(glshader_test, inputs_of_other_sizes_and_rates_follow_the_first_then_eof_action)
{
    std::string main_input = counter_video("driver", "20x12", "5", 10), second = glr_test::write_counter_channel_video();
    std::string probe = write_shader("probe.frag", "void mainImage(out vec4 c, in vec2 p) {\n"
                                                   "    c = vec4(texelFetch(iChannel1, ivec2(0), 0).r,\n"
                                                   "             iChannelResolution[1].xy / 255.0, 1.0);\n"
                                                   "}\n");
    struct expectation {
        std::string options;
        size_t frames;
        bool black_after_end;
    };
    for (const expectation &e : {expectation{"", 10, false}, expectation{":eof_action=repeat", 10, false},
                                 expectation{":eof_action=pass", 10, true}, expectation{":eof_action=endall", 5, false},
                                 expectation{":shortest=1", 5, false}}) {
        SCOPED_TRACE(e.options);
        std::string out = glr_test::scratch_path("follow.mkv");
        run_result r = ffmpeg({"-i", main_input, "-i", second, "-filter_complex",
                               "[0:v][1:v]glshader=inputs=2:shader=" + probe + e.options, "-c:v", "ffv1", out},
                              "follow");
        ASSERT_EQ(r.status, 0) << r.log;
        glr_test::decoded_video v = decoded(out);
        ASSERT_EQ(v.frames.size(), e.frames);
        EXPECT_EQ(v.width, 20);
        EXPECT_EQ(v.height, 12);
        for (size_t n = 0; n < v.frames.size(); n++) {
            // Driving frame n is at n / 5 s; the second input's frame k at k / 10 s, its end at 1 s.
            int k = static_cast<int>(n) * 2 < 9 ? static_cast<int>(n) * 2 : 9;
            int red = n >= 5 && e.black_after_end ? 0 : 20 * k;
            const std::vector<uint8_t> &px = v.frames[n].rgba;
            EXPECT_EQ(px[0], red) << "frame " << n;
            EXPECT_EQ(px[1], 8) << "iChannelResolution[1].x, frame " << n;
            EXPECT_EQ(px[2], 6) << "iChannelResolution[1].y, frame " << n;
        }
        std::remove(out.c_str());
    }
    std::remove(main_input.c_str());
}

// format=yuv420p converts on the GPU exactly as the glreader source does: the identity
// over a counter video equals the source's YUV frames of the counter shader. The stream
// carries the colour asked for.
TEST(glshader_test, yuv_output_is_the_sources_gpu_conversion_tagged)
{
    std::string in = counter_video("yuv_in", "40x24", "25", 10), shader = write_shader("identity.frag", identity_source);
    std::string out = glr_test::scratch_path("yuv_out.mkv"), source = glr_test::scratch_path("yuv_source.mkv");
    run_result r = ffmpeg({"-i", in, "-vf", "glshader=shader=" + shader + ":format=yuv420p", "-c:v", "ffv1", out},
                          "yuv_out");
    ASSERT_EQ(r.status, 0) << r.log;
    r = ffmpeg({"-f", "lavfi", "-i", "glreader=shader=" + glr_test::write_counter_shader() + ":s=40x24:r=25:format=yuv420p",
                "-frames:v", "10", "-c:v", "ffv1", source},
               "yuv_source");
    ASSERT_EQ(r.status, 0) << r.log;
    glr_test::decoded_video a = decoded(out), b = decoded(source);
    ASSERT_EQ(a.frames.size(), 10u);
    ASSERT_EQ(b.frames.size(), 10u);
    EXPECT_EQ(a.pix_fmt, "yuv420p");
    for (size_t n = 0; n < 10; n++)
        EXPECT_TRUE(a.frames[n].yuv.y == b.frames[n].yuv.y && a.frames[n].yuv.u == b.frames[n].yuv.u &&
                    a.frames[n].yuv.v == b.frames[n].yuv.v)
            << "frame " << n;

    // libx264 takes the frames as they are, so the tags are the filter's.
    std::string tagged = glr_test::scratch_path("yuv_tagged.mp4"), probe = glr_test::scratch_path("yuv_tagged.txt");
    r = ffmpeg({"-i", in, "-vf", "glshader=shader=" + shader + ":format=yuv420p:matrix=bt601:range=pc:chroma_loc=center",
                "-c:v", "libx264", tagged},
               "yuv_tagged");
    ASSERT_EQ(r.status, 0) << r.log;
    ASSERT_EQ(glr_test::wait_exit(glr_test::spawn(
                  "ffprobe", {"-v", "error", "-select_streams", "v", "-show_entries",
                              "stream=color_range,color_space,color_transfer,color_primaries,chroma_location", "-of",
                              "csv=p=0:s=|", tagged},
                  probe)),
              0);
    std::string shown = glr_test::slurp(probe);
    EXPECT_EQ(shown.substr(0, shown.find('\n')), "pc|smpte170m|smpte170m|smpte170m|center");
    for (const std::string &f : {in, out, source, tagged})
        std::remove(f.c_str());
}

// A decoded video reaches the filter in its own format, and the output takes its family. A yuv420p clip into libx264 comes out yuv420p, tagged BT.709
// limited, converted on the GPU again, close to the clip (the identity loses no more than
// rounding and the chroma's resampling), whether the input became RGB on the CPU or the GPU
// (the default: the faster for the renderer); an RGB clip comes out RGB.
TEST(glshader_test, a_yuv_clip_stays_yuv_and_an_rgb_one_rgb)
{
    // A smooth, moderately saturated clip: its colours stay inside RGB's cube through the
    // round trip (4:2:0 chroma interpolated across a saturated edge may leave it, and be
    // clipped, as it would in any converter).
    std::string smooth = write_shader("smooth.frag", "void mainImage(out vec4 c, in vec2 p) {\n"
                                                     "    vec2 uv = p / iResolution.xy;\n"
                                                     "    c = vec4(0.3 + 0.4 * uv.x, 0.3 + 0.4 * uv.y, 0.5 + 0.2 * sin(iTime), 1.0);\n"
                                                     "}\n");
    std::string clip = glr_test::scratch_path("yuv_clip.mkv"), shader = write_shader("identity.frag", identity_source);
    // Tagged BT.709 on every line: through ffmpeg's own graph (5.1's lavfi device drops the tags,
    // and an untagged clip this small reads as BT.601, as players read it).
    run_result r = ffmpeg({"-filter_complex", "glreader=shader=" + smooth + ":s=64x48:r=10:d=1:format=yuv420p", "-c:v",
                           "ffv1", clip},
                          "yuv_clip");
    ASSERT_EQ(r.status, 0) << r.log;
    std::string out = glr_test::scratch_path("yuv_clip_out.mkv"), mp4 = glr_test::scratch_path("yuv_clip_out.mp4");
    glr_test::decoded_video in = decoded(clip);
    // The input becomes RGB where that is faster: with libswscale on a software renderer,
    // whose compute pass is several times slower, on the GPU on a hardware one; either way
    // asked for by yuv_input. Each gives the clip back.
    for (std::string where : {"", "gpu", "cpu"}) {
        SCOPED_TRACE("yuv_input=" + where);
        r = ffmpeg({"-v", "verbose", "-i", clip, "-vf", "glshader=shader=" + shader + (where.empty() ? "" : ":yuv_input=" + where),
                    "-c:v", "ffv1", "-y", out},
                   "yuv_identity");
        ASSERT_EQ(r.status, 0) << r.log;
        bool software = r.log.find(", software)") != std::string::npos;
        std::string chosen = where.empty() ? (software ? "cpu" : "gpu") : where;
        EXPECT_NE(r.log.find(chosen == "cpu" ? "input 0: yuv420p, converted to RGB on the CPU (libswscale)"
                                             : "input 0: yuv420p, converted to RGB on the GPU"),
                  std::string::npos)
            << r.log;
        if (where.empty() && software)
            EXPECT_NE(r.log.find("the renderer is a software one, whose GPU pass is slower"), std::string::npos) << r.log;
        EXPECT_NE(r.log.find("10 frames of yuv420p, converted on the GPU: bt709, tv range, left chroma"),
                  std::string::npos)
            << "the output still the input's format: " << r.log;
        glr_test::decoded_video back = decoded(out);
        ASSERT_EQ(back.frames.size(), 10u);
        EXPECT_EQ(back.pix_fmt, "yuv420p");
        for (size_t n = 0; n < back.frames.size(); n++) {
            const auto &a = in.frames[n].yuv, &b = back.frames[n].yuv;
            ASSERT_EQ(a.y.size(), b.y.size());
            int worst = 0, worst_chroma = 0;
            for (size_t i = 0; i < a.y.size(); i++)
                worst = std::max(worst, std::abs(a.y[i] - b.y[i]));
            for (size_t i = 0; i < a.u.size(); i++)
                worst_chroma = std::max({worst_chroma, std::abs(a.u[i] - b.u[i]), std::abs(a.v[i] - b.v[i])});
            EXPECT_LE(worst, 2) << "luma of frame " << n;
            EXPECT_LE(worst_chroma, 3) << "chroma of frame " << n;
        }
    }

    r = ffmpeg({"-i", clip, "-vf", "glshader=shader=" + shader, "-c:v", "libx264", mp4}, "yuv_x264");
    ASSERT_EQ(r.status, 0) << r.log;
    std::string probe = glr_test::scratch_path("yuv_clip.txt");
    ASSERT_EQ(glr_test::wait_exit(glr_test::spawn("ffprobe", {"-v", "error", "-select_streams", "v", "-show_entries",
                                                              "stream=profile,pix_fmt,color_range,color_space", "-of",
                                                              "csv=p=0:s=|", mp4},
                                                  probe)),
              0);
    std::string shown = glr_test::slurp(probe);
    EXPECT_EQ(shown.substr(0, shown.find('\n')), "High|yuv420p|tv|bt709");

    std::string rgb_clip = counter_video("rgb_clip", "40x24", "25", 5), rgb_out = glr_test::scratch_path("rgb_out.mkv");
    r = ffmpeg({"-v", "verbose", "-i", rgb_clip, "-vf", "glshader=shader=" + shader, "-c:v", "ffv1", rgb_out}, "rgb");
    ASSERT_EQ(r.status, 0) << r.log;
    EXPECT_NE(r.log.find("5 frames of bgra, read back as rendered"), std::string::npos) << r.log;
    for (const std::string &f : {clip, out, mp4, rgb_clip, rgb_out})
        std::remove(f.c_str());
}

TEST(glshader_test, bad_options_and_shaders_are_named)
{
    std::string in = counter_video("bad_in", "16x16", "25", 2), out = glr_test::scratch_path("bad.mkv");
    auto fails = [&](const std::string &graph, const std::string &words) {
        expect_failure_saying(ffmpeg({"-i", in, "-vf", graph, "-f", "null", "-"}, "bad"), words);
    };
    fails("glshader", "no shader: give shader=FILE or shader_src=SOURCE");
    fails("glshader=shader=a.frag:shader_src='x'", "shader and shader_src both given: pick one");
    fails("glshader=shader=" + glr_test::scratch_path("nowhere.frag"),
          "cannot read the Image pass's shader " + glr_test::scratch_path("nowhere.frag"));
    // FFmpeg's own words for options out of their declared range or set of names.
    fails("glshader=inputs=5:shader_src='x'", "for parameter 'inputs' out of range [1 - 4]");
    fails("glshader=shader_src='x':eof_action=sometimes", "Undefined constant or missing '(' in 'sometimes'");
    fails("glshader=shader_src='x':format=nv12:transfer=sync", "transfer=sync reads RGB formats only");
    run_result r = ffmpeg({"-i", in, "-vf",
                           "glshader=shader_src='void mainImage(out vec4 c, in vec2 p) {\n    c = vec4(1.0);\n"
                           "    c.x = nope;\n}\n'",
                           "-f", "null", "-"},
                          "broken");
    expect_compile_error_at(r, "shader_src", 3, "nope");
    std::string broken = write_shader("broken_filter.frag", "void mainImage(out vec4 c, in vec2 p) {\n\n    c = oops;\n}\n");
    expect_failure_saying(ffmpeg({"-i", in, "-vf", "glshader=shader=" + broken, "-f", "null", "-"}, "broken_file"),
                          broken + ":3:");
    std::remove(in.c_str());
}

TEST(glshader_test, is_listed_with_its_options)
{
    run_result filters = ffmpeg({"-filters"}, "filters");
    ASSERT_EQ(filters.status, 0) << filters.log;
    EXPECT_NE(filters.log.find(" glshader "), std::string::npos) << filters.log;
    EXPECT_NE(filters.log.find(" glreader "), std::string::npos) << filters.log;
    run_result help = ffmpeg({"-h", "filter=glshader"}, "help");
    ASSERT_EQ(help.status, 0) << help.log;
    for (const char *option : {"inputs ", "shader ", "shader_src ", "eof_action ", "shortest ", "transfer ", "format "})
        EXPECT_NE(help.log.find(option), std::string::npos) << option << " missing from:\n" << help.log;
    EXPECT_NE(help.log.find("dynamic (depending on the options)"), std::string::npos) << help.log;
}

// The @example blocks of a filters.texi section, unescaped.
std::vector<std::string> examples_of(const std::string &texi, const std::string &section)
{
    std::vector<std::string> found;
    size_t start = texi.find("@section " + section + "\n");
    EXPECT_NE(start, std::string::npos) << "filters.texi has no section " << section;
    if (start == std::string::npos)
        return found;
    size_t end = texi.find("\n@section ", start + 1);
    std::string text = texi.substr(start, end - start);
    for (size_t at = text.find("@example\n"); at != std::string::npos; at = text.find("@example\n", at + 1)) {
        size_t body = at + 9, stop = text.find("@end example", body);
        std::string example = text.substr(body, stop - body), plain;
        for (size_t i = 0; i < example.size(); i++)
            if (example[i] == '@' && i + 1 < example.size())
                plain += example[++i]; // @{ @} @@
            else
                plain += example[i];
        found.push_back(plain);
    }
    return found;
}

// A texinfo file with each "@include NAME" line replaced by that file of its folder, as
// makeinfo reads it ("" with a failure when a file is missing).
std::string texi_with_includes(const std::string &path)
{
    std::ifstream file(path);
    EXPECT_TRUE(file.good()) << "no " << path;
    std::string folder = path.substr(0, path.rfind('/') + 1), text, line;
    while (std::getline(file, line))
        text += line.rfind("@include ", 0) == 0 ? texi_with_includes(folder + line.substr(9)) : line + "\n";
    return text;
}

// Every example of both filters' documentation runs as written, in a folder holding the
// files it names, but for three frames at most (-frames:v before the output file). The
// documentation is the filters.texi of the tree the ffmpeg was built from, with the
// sections glreader's hooks include there from plugin/.
TEST(glshader_test, the_documentation_s_examples_run)
{
    const char *ffmpeg_path = std::getenv("GLREADER_FFMPEG");
    ASSERT_NE(ffmpeg_path, nullptr);
    std::string binary(ffmpeg_path);
    std::stringstream texi;
    texi << texi_with_includes(binary.substr(0, binary.rfind('/')) + "/../src/doc/filters.texi");

    std::string dir = glr_test::scratch_path("examples");
    mkdir(dir.c_str(), 0755);
    mkdir((dir + "/viz").c_str(), 0755);
    std::ofstream(dir + "/scene.frag") << glr_test::slurp(glr_test::write_counter_shader());
    std::ofstream(dir + "/viz/image.glsl") << "void mainImage(out vec4 c, in vec2 p) {\n"
                                              "    c = vec4(texture(iChannel0, vec2(p.x / iResolution.x, 0.25)).rrr, 1.0);\n"
                                              "}\n";
    std::ofstream(dir + "/viz/channels") << "image.channel0 sound\n";
    mkdir((dir + "/chime").c_str(), 0755); // a project with a Sound pass its sound channel hears
    std::ofstream(dir + "/chime/sound.glsl") << "vec2 mainSound(int samp, float time) { return vec2(0.3 * sin(6.2831853 * 440.0 * time)); }\n";
    std::ofstream(dir + "/chime/image.glsl") << "void mainImage(out vec4 c, in vec2 p) {\n"
                                                "    c = vec4(texture(iChannel0, vec2(p.x / iResolution.x, 0.75)).rrr, 1.0);\n"
                                                "}\n";
    std::ofstream(dir + "/chime/channels") << "image.channel0 sound\n";
    std::ofstream(dir + "/grade.frag") << "void mainImage(out vec4 c, in vec2 p) {\n"
                                          "    c = vec4(pow(texture(iChannel0, p / iResolution.xy).rgb, vec3(0.8)), 1.0);\n"
                                          "}\n";
    std::vector<int16_t> samples(44100);
    for (size_t i = 0; i < samples.size(); i++)
        samples[i] = static_cast<int16_t>(std::lround(9000 * std::sin(2 * M_PI * 440.0 * i / 44100.0)));
    std::rename(glr_test::write_wav("example_song.wav", 44100, 1, samples).c_str(), (dir + "/song.wav").c_str());
    for (const char *name : {"in", "a", "b"})
        std::rename(counter_video(std::string("example_") + name, "64x36", "25", 10).c_str(),
                    (dir + "/" + name + ".mkv").c_str());

    std::vector<std::string> commands = examples_of(texi.str(), "glreader");
    for (const std::string &example : examples_of(texi.str(), "glshader")) {
        if (example.rfind("ffmpeg ", 0) == 0)
            commands.push_back(example);
        else // the shader an example names
            std::ofstream(dir + "/transition.frag") << example;
    }
    ASSERT_GE(commands.size(), 8u);
    for (std::string command : commands) {
        while (!command.empty() && command.back() == '\n')
            command.pop_back();
        size_t output = command.rfind(' ');
        std::string script = "cd '" + dir + "' && '" + binary + "' -hide_banner -nostdin -y" + command.substr(6, output - 6) +
                             " -frames:v 3" + command.substr(output);
        run_result r = glr_test::run("/bin/sh", {"-c", script}, "example");
        EXPECT_EQ(r.status, 0) << command << "\n" << r.log;
        // What it wrote decodes to the frames asked for, and they show something (not one
        // flat colour, as a shader that failed quietly would give).
        std::string out = dir + "/" + command.substr(output + 1);
        glr_test::decoded_video v = glr_test::decode_file(out);
        EXPECT_EQ(v.error, "") << command;
        EXPECT_EQ(v.frames.size(), 3u) << command;
        bool varied = false;
        for (const auto &frame : v.frames)
            for (size_t i = 4; i < frame.rgba.size() && !varied; i += 4)
                varied = !std::equal(frame.rgba.begin() + static_cast<std::ptrdiff_t>(i),
                                     frame.rgba.begin() + static_cast<std::ptrdiff_t>(i) + 3, frame.rgba.begin());
        EXPECT_TRUE(varied) << command << ": every pixel of " << out << " is the same colour";
        std::remove(out.c_str());
    }
}

} // namespace

