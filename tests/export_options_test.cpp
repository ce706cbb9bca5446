// The export's option table (glreader/av/export_options.h): every option read from its
// text with its bounds, an unknown key refused with the nearest name, encoder options taken
// through to the encoder, and the params a front-end gets from the settings.
#include "glreader/av/export_options.h"
#include "glreader/av/export.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <set>
#include <string>

namespace {

struct settings_deleter {
    void operator()(glr_export_settings *s) const { glr_export_settings_destroy(&s); }
};
using settings_ptr = std::unique_ptr<glr_export_settings, settings_deleter>;

settings_ptr make() { return settings_ptr(glr_export_settings_create()); }

struct log_deleter {
    void operator()(glr_log *log) const { glr_log_destroy(&log); }
};

// A log that drops what it is told: the refusals are read from the last error.
std::unique_ptr<glr_log, log_deleter> quiet_log()
{
    glr_log_params params{};
    params.callback = [](void *, glr_log_level, const char *) {};
    return std::unique_ptr<glr_log, log_deleter>(glr_log_create(&params));
}

// The settings' params, or a failure naming the reason.
glr_export_params resolved(glr_export_settings *s)
{
    glr_export_params p{};
    int rc = glr_export_settings_resolve(s, quiet_log().get(), &p);
    EXPECT_EQ(rc, 0) << glr_last_error();
    return p;
}

TEST(export_options, names_and_spellings_are_unique_and_every_option_is_described)
{
    int n = 0;
    const glr_export_option *table = glr_export_options(&n);
    ASSERT_GT(n, 30);
    std::set<std::string> keys;
    for (int i = 0; i < n; i++) {
        const glr_export_option &o = table[i];
        SCOPED_TRACE(o.name);
        EXPECT_TRUE(keys.insert(o.name).second);
        for (const char *p = o.flags; *p;) {
            size_t len = std::strcspn(p, ",");
            std::string flag(p, len);
            EXPECT_EQ(flag[0], '-');
            EXPECT_TRUE(keys.insert(flag).second) << flag;
            EXPECT_EQ(glr_export_option_find(flag.c_str()), &o);
            p += len;
            while (*p == ',' || *p == ' ')
                p++;
        }
        EXPECT_EQ(glr_export_option_find(o.name), &o);
        EXPECT_GT(std::strlen(o.help), 10u);
        EXPECT_GT(std::strlen(o.fallback), 0u);
        EXPECT_GT(std::strlen(o.section), 0u);
        EXPECT_EQ(o.kind == GLR_EXPORT_OPTION_SWITCH, o.value[0] == '\0');
        EXPECT_EQ(o.kind == GLR_EXPORT_OPTION_CHOICE, o.choices != nullptr);
    }
    EXPECT_EQ(glr_export_option_find("-preset"), nullptr);
}

TEST(export_options, defaults_are_glreader_export_s)
{
    settings_ptr s = make();
    glr_export_params p = resolved(s.get());
    EXPECT_EQ(p.player.width, 1280);
    EXPECT_EQ(p.player.height, 720);
    EXPECT_EQ(p.player.fps_num, 30);
    EXPECT_EQ(p.player.fps_den, 1);
    EXPECT_EQ(p.player.first_frame, 0);
    EXPECT_EQ(p.frame_count, 150); // 5 s
    EXPECT_EQ(p.compile_timeout, GLR_EXPORT_DEFAULT_COMPILE_TIMEOUT);
    EXPECT_EQ(p.ring_depth, 3);
    EXPECT_EQ(p.encoder.queue_depth, 2);
    EXPECT_EQ(p.conversion, GLR_EXPORT_CONVERT_GPU);
    EXPECT_EQ(p.hw_frames, GLR_HW_FRAMES_AUTO);
    EXPECT_EQ(p.hw_device, nullptr);
    EXPECT_STREQ(p.encoder.output, "glreader-export.mp4");
    EXPECT_EQ(p.encoder.output_flags, GLR_OUTPUT_NO_OVERWRITE);
    EXPECT_EQ(p.encoder.codec_options, nullptr);
    EXPECT_EQ(p.encoder.color.matrix, GLR_MATRIX_BT709);
    EXPECT_EQ(p.encoder.color.range, GLR_RANGE_LIMITED);
    EXPECT_EQ(p.player.alpha, GLR_ALPHA_OPAQUE);
    EXPECT_EQ(p.player.max_source_bytes, GLR_SCENE_DEFAULT_MAX_SOURCE);
    ASSERT_NE(p.player.project, nullptr); // the built-in scene
}

TEST(export_options, every_kind_reads_its_text_into_the_params)
{
    settings_ptr s = make();
    const char *given[][2] = {{"-s", "640x360"},       {"-r", "29.97"},          {"-ss", "1"},
                              {"-t", "500ms"},         {"-c", "libx264"},        {"-pix_fmt", "yuv444p"},
                              {"--convert", "cpu"},    {"--ring-format", "bgra"}, {"--depth", "5"},
                              {"--queue", "7"},        {"--range", "pc"},        {"--matrix", "bt2020"},
                              {"--chroma-loc", "center"}, {"-metadata", "title=A: b"}, {"-metadata", "artist=C"},
                              {"-y", "1"},             {"--part", "true"},       {"--compile-timeout", "0"},
                              {"--max-shader-size", "16M"}, {"--premultiply", "1"}, {"--mouse", "10,20"},
                              {"-o", "out.mkv"},       {"--require-hw", "0"},    {"--hw-frames", "on"},
                              {"-init_hw_device", "vulkan=gpu:1"}};
    for (const auto &g : given)
        ASSERT_EQ(glr_export_settings_set(s.get(), g[0], g[1]), 0) << g[0] << " " << g[1] << ": " << glr_last_error();
    // As set, a switch as 1 or 0, a list's last entry; by any spelling.
    EXPECT_STREQ(glr_export_settings_get(s.get(), "size"), "640x360");
    EXPECT_STREQ(glr_export_settings_get(s.get(), "--part"), "1");
    EXPECT_STREQ(glr_export_settings_get(s.get(), "require_hw"), "0");
    EXPECT_STREQ(glr_export_settings_get(s.get(), "metadata"), "artist=C");
    EXPECT_EQ(glr_export_settings_get(s.get(), "audio"), nullptr);
    EXPECT_EQ(glr_export_settings_get(s.get(), "-preset"), nullptr);
    glr_export_params p = resolved(s.get());
    EXPECT_EQ(p.player.width, 640);
    EXPECT_EQ(p.player.height, 360);
    EXPECT_EQ(p.player.fps_num, 30000);
    EXPECT_EQ(p.player.fps_den, 1001);
    EXPECT_EQ(p.player.first_frame, 30);   // the first at or after 1 s: 1.001
    EXPECT_EQ(p.frame_count, 15);          // starting within 0.5 s
    EXPECT_STREQ(p.encoder.codec, "libx264");
    EXPECT_STREQ(p.encoder.pix_fmt, "yuv444p");
    EXPECT_EQ(p.conversion, GLR_EXPORT_CONVERT_CPU);
    EXPECT_EQ(p.ring_format, GLR_FORMAT_BGRA8);
    EXPECT_EQ(p.ring_depth, 5);
    EXPECT_EQ(p.encoder.queue_depth, 7);
    EXPECT_EQ(p.encoder.color.range, GLR_RANGE_FULL);
    EXPECT_EQ(p.encoder.color.matrix, GLR_MATRIX_BT2020_NCL);
    EXPECT_EQ(p.encoder.color.chroma, GLR_CHROMA_CENTER);
    ASSERT_NE(p.encoder.metadata, nullptr);
    EXPECT_STREQ(p.encoder.metadata[0], "title=A: b");
    EXPECT_STREQ(p.encoder.metadata[1], "artist=C");
    EXPECT_EQ(p.encoder.metadata[2], nullptr);
    EXPECT_EQ(p.encoder.output_flags, GLR_OUTPUT_PART);
    EXPECT_LT(p.compile_timeout, 0); // 0: never
    EXPECT_EQ(p.player.max_source_bytes, 16u << 20);
    EXPECT_EQ(p.player.alpha, GLR_ALPHA_PREMULTIPLIED);
    EXPECT_EQ(p.player.mouse[0], 10.0f);
    EXPECT_EQ(p.player.mouse[1], 20.0f);
    EXPECT_STREQ(p.encoder.output, "out.mkv");
    EXPECT_EQ(p.context.require_hw, 0);
    EXPECT_EQ(p.hw_frames, GLR_HW_FRAMES_ON);
    EXPECT_STREQ(p.hw_device, "vulkan=gpu:1"); // ffmpeg's spelling, read by the recorder (TYPE=NAME:DEVICE)
}

TEST(export_options, values_out_of_kind_or_bounds_are_refused_naming_the_option_as_spelled)
{
    struct refusal {
        const char *key, *value, *words;
    } refusals[] = {
        {"-s", "0x10", "-s needs WIDTHxHEIGHT like 1280x720, each a whole number from 1 to 32768, not '0x10'"},
        {"size", "640", "size needs WIDTHxHEIGHT"},
        {"-r", "0", "-r needs a frame rate from 1/1000 to 1000 frames a second"},
        {"-r", "5000", "-r needs a frame rate from 1/1000 to 1000"},
        {"-t", "0", "-t needs a time like 2.5, 500ms or 01:30, from 0.001 to 1000000 seconds, not '0'"},
        {"duration", "soon", "duration needs a time"},
        {"-n", "1.5", "-n needs a whole number from 1 to 2147483647, not '1.5'"},
        {"--depth", "65", "--depth needs a whole number from 1 to 64"},
        {"--convert", "gpu2", "--convert takes gpu or cpu, not 'gpu2'"},
        {"-b:a", "fast", "-b:a needs bits per second like 192000"},
        {"--alpha", "yes", "--alpha takes 1, 0, true or false"},
        {"-metadata", "=x", "-metadata takes KEY=VALUE"},
        {"--matrix", "x", "--matrix takes bt709, bt601 or bt2020, not 'x'"},
        {"--mouse", "1", "--mouse: "},
        {"--date", "tomorrow", "--date: "},
        {"--compile-timeout", "-1", "--compile-timeout needs a number like 1.5 or 3/2, from 0 to 1000000"},
        {"--hw-frames", "yes", "--hw-frames takes auto, on or off, not 'yes'"},
        {"-init_hw_device", "opencl:0", "-init_hw_device opencl:0: hardware frames are Vulkan's or CUDA's here"},
        {"-init_hw_device", "cuda:0,primary_ctx=1", "device options (,KEY=VALUE) are not taken"},
        {"hw_device", "vulkan:0,debug=1", "hw_device vulkan:0,debug=1: device options (,KEY=VALUE) are not taken"},
    };
    for (const refusal &r : refusals) {
        settings_ptr s = make();
        EXPECT_EQ(glr_export_settings_set(s.get(), r.key, r.value), -EINVAL) << r.key << " " << r.value;
        EXPECT_NE(std::string(glr_last_error()).find(r.words), std::string::npos)
            << r.key << " " << r.value << ": " << glr_last_error();
        EXPECT_FALSE(glr_export_settings_has(s.get(), r.key));
    }
}

TEST(export_options, an_unknown_key_is_refused_with_the_nearest_name_in_the_key_s_spelling)
{
    settings_ptr s = make();
    struct unknown {
        const char *key, *words;
    } unknowns[] = {
        {"-tt", "unknown option -tt: neither glreader's nor an encoder's (did you mean -t?)"},
        {"durration", "unknown option durration: neither glreader's nor an encoder's (did you mean duration?)"},
        {"--pix_fmt", "(did you mean --pix-fmt?)"},
        {"pixfmt", "(did you mean pix_fmt?)"},
        {"--compile-timout", "(did you mean --compile-timeout?)"},
        {"-b:x", "unknown option -b:x"},
        {"zzzzzzzzzz", "unknown option zzzzzzzzzz: neither glreader's nor an encoder's"},
    };
    for (const unknown &u : unknowns) {
        EXPECT_EQ(glr_export_settings_set(s.get(), u.key, "1"), -ENOENT) << u.key;
        EXPECT_NE(std::string(glr_last_error()).find(u.words), std::string::npos) << glr_last_error();
    }
    EXPECT_EQ(std::string(glr_last_error()).find("did you mean"), std::string::npos) << glr_last_error();
}

TEST(export_options, encoder_options_the_table_lacks_go_to_the_encoder_as_ffmpeg_spells_them)
{
    settings_ptr s = make();
    ASSERT_EQ(glr_export_settings_set(s.get(), "-preset", "ultrafast"), 0) << glr_last_error();
    ASSERT_EQ(glr_export_settings_set(s.get(), "crf", "20"), 0) << glr_last_error();
    ASSERT_EQ(glr_export_settings_set(s.get(), "-b:v", "2M"), 0) << glr_last_error();
    ASSERT_EQ(glr_export_settings_set(s.get(), "--tune", "animation"), 0) << glr_last_error();
    ASSERT_EQ(glr_export_settings_set(s.get(), "-x264-params", "keyint=60:min-keyint=60"), 0) << glr_last_error();
    ASSERT_EQ(glr_export_settings_set(s.get(), "--codec-options", "g=30"), 0) << glr_last_error();
    glr_export_params p = resolved(s.get());
    ASSERT_NE(p.encoder.codec_options, nullptr);
    EXPECT_STREQ(p.encoder.codec_options, "g=30:preset=ultrafast:crf=20:b=2M:tune=animation:"
                                          "x264-params=keyint\\=60\\:min-keyint\\=60");
    // The encoder reads them back as given: a trial open with libx264 takes them all.
    p.encoder.codec = "libx264";
    p.encoder.container = "null";
    p.encoder.width = p.player.width;
    p.encoder.height = p.player.height;
    p.encoder.fps_num = p.player.fps_num;
    p.encoder.fps_den = p.player.fps_den;
    glr_encoder_plan plan{};
    EXPECT_EQ(glr_encoder_check(quiet_log().get(), &p.encoder, &plan), 0) << glr_last_error();
    // One the chosen encoder lacks is refused before a frame renders, by the job's create.
    settings_ptr other = make();
    ASSERT_EQ(glr_export_settings_set(other.get(), "-c", "ffv1"), 0);
    ASSERT_EQ(glr_export_settings_set(other.get(), "-f", "null"), 0);
    ASSERT_EQ(glr_export_settings_set(other.get(), "-preset", "slow"), 0);
    glr_export_params q = resolved(other.get());
    EXPECT_EQ(glr_export_create(quiet_log().get(), &q), nullptr);
    EXPECT_NE(std::string(glr_last_error()).find("has no option 'preset'"), std::string::npos) << glr_last_error();
}

// glr_export_settings_check refuses what is wrong before any file is opened; resolve
// refuses that and what the project tells.
TEST(export_options, options_that_need_each_other_are_refused_together)
{
    struct pair {
        const char *a, *va, *b, *vb, *words;
    } pairs[] = {
        {"--audio-offset", "1", "-y", "1", "place the sound of --audio, which is missing"},
        {"-an", "1", "-c:a", "aac", "-an asks for no sound track, and another option shapes one"},
        {"-b:a", "128k", "-y", "1", "and the project has no Sound pass"},
        {"-t", "1", "-n", "3", "(duration, frames and end) each say how long to render"},
        {"-ss", "1", "--start-frame", "3", "give one"},
    };
    for (const pair &c : pairs) {
        settings_ptr s = make();
        ASSERT_EQ(glr_export_settings_set(s.get(), c.a, c.va), 0) << glr_last_error();
        ASSERT_EQ(glr_export_settings_set(s.get(), c.b, c.vb), 0) << glr_last_error();
        // Without a file to open, all but the project's own question are usage errors.
        bool needs_project = std::strstr(c.words, "Sound pass") != nullptr;
        EXPECT_EQ(glr_export_settings_check(s.get()), needs_project ? 0 : -EINVAL) << c.a << " " << c.b;
        glr_export_params p{};
        EXPECT_EQ(glr_export_settings_resolve(s.get(), quiet_log().get(), &p), -EINVAL) << c.a << " " << c.b;
        EXPECT_NE(std::string(glr_last_error()).find(c.words), std::string::npos) << glr_last_error();
    }
}

} // namespace
