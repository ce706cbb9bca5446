// The programs' numbers, read by one strict parser (samples/command_line): the readers
// themselves, then every numeric option of every program run as a user runs it, with
// values that must work and values that must be refused with a message naming the option.
#include "command_line.hpp"

#include "glreader/av/export_options.h"

#include "support/audio_files.hpp"
#include "support/option_edges.hpp"
#include "support/gl_test.hpp"
#include "support/process.hpp"

#include <gtest/gtest.h>

#include <climits>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

TEST(program_options, integers_are_whole_numbers_without_overflow)
{
    long long n = 0;
    EXPECT_TRUE(sample::parse_integer("42", n));
    EXPECT_EQ(n, 42);
    EXPECT_TRUE(sample::parse_integer("-7", n));
    EXPECT_EQ(n, -7);
    EXPECT_TRUE(sample::parse_integer("9223372036854775807", n));
    EXPECT_EQ(n, LLONG_MAX);
    for (const char *bad : {"", "-", "0.5", "1e10", "inf", "nan", " 3", "3 ", "12abc", "+3", "0x10",
                            "9223372036854775808", "99999999999999999999"})
        EXPECT_FALSE(sample::parse_integer(bad, n)) << "'" << bad << "'";
}

TEST(program_options, decimals_and_fractions_are_plain)
{
    double x = 0;
    EXPECT_TRUE(sample::parse_decimal("1.5", x));
    EXPECT_DOUBLE_EQ(x, 1.5);
    EXPECT_TRUE(sample::parse_decimal("-0.25", x));
    EXPECT_DOUBLE_EQ(x, -0.25);
    EXPECT_TRUE(sample::parse_decimal(".5", x));
    EXPECT_DOUBLE_EQ(x, 0.5);
    EXPECT_TRUE(sample::parse_decimal("3/2", x));
    EXPECT_DOUBLE_EQ(x, 1.5);
    EXPECT_TRUE(sample::parse_decimal("7", x));
    EXPECT_DOUBLE_EQ(x, 7);
    for (const char *bad : {"", ".", "1.", "1e3", "inf", "-inf", "nan", "0x1p3", " 1", "1.5s", "1/0", "1/", "/2",
                            "1/2/3", "1..2", "--1"})
        EXPECT_FALSE(sample::parse_decimal(bad, x)) << "'" << bad << "'";
}

TEST(program_options, byte_sizes_read_as_people_read_them)
{
    EXPECT_EQ(sample::byte_size(0), "0 B");
    EXPECT_EQ(sample::byte_size(812), "812 B");
    EXPECT_EQ(sample::byte_size(43210), "43.2 kB") << "not 0.0 MB";
    EXPECT_EQ(sample::byte_size(999999), "1.00 MB");
    EXPECT_EQ(sample::byte_size(12400000), "12.4 MB");
    EXPECT_EQ(sample::byte_size(3100000000ULL), "3.10 GB");
}

TEST(program_options, sizes_are_two_whole_numbers)
{
    int w = 0, h = 0;
    EXPECT_TRUE(sample::parse_size("1280x720", w, h));
    EXPECT_EQ(w, 1280);
    EXPECT_EQ(h, 720);
    for (const char *bad : {"", "x", "1280x", "x720", "320x240abc", "99999999999x2", "0x10", "10x0", "-5x5",
                            "320*240", "1.5x2", "320 x 240", "1280x720x3"})
        EXPECT_FALSE(sample::parse_size(bad, w, h)) << "'" << bad << "'";
}

// A good value of an option, with what else it needs: the run's exit status and a text
// its output (and, for the exporter, its --stats-json) shows only when the value was
// read as meant.
struct good_value {
    std::vector<std::string> args; // the value first
    std::string shows;
    int status = 0;
};

// One numeric option of one program: each good value runs and shows its effect; each bad
// one exits with 2 and a message naming the option and the value.
struct numeric_option {
    std::string program;
    std::vector<std::string> base; // the arguments every run has, before the option
    std::string option;
    std::vector<good_value> good;
    std::vector<std::string> bad;
};

std::string program_name(const std::string &path) { return path.substr(path.rfind('/') + 1); }

// A shader of `bytes` bytes (a long comment, then a plain mainImage).
std::string write_padded_shader(size_t bytes)
{
    std::string body = "\nvoid mainImage(out vec4 c, in vec2 f) { c = vec4(1.0); }\n";
    std::string path = glr_test::scratch_path("padded.frag");
    std::ofstream(path) << "//" << std::string(bytes - body.size() - 2, 'x') << body;
    return path;
}

// A shader that compiles (on Mesa: renders its first frame) for far longer than 0.01 s.
std::string write_long_compile_shader()
{
    std::ostringstream text;
    text << "void mainImage(out vec4 c, in vec2 f) {\n    float x = f.x * 0.001, s = 0.0;\n";
    for (int i = 0; i < 3000; i++)
        text << "    { float y = sin(x * 1." << i % 997 << " + " << i % 13 << ".0); s += y * cos(s); }\n";
    text << "    c = vec4(s, s, s, 1.0);\n}\n";
    std::string path = glr_test::scratch_path("long_compile.frag");
    std::ofstream(path) << text.str();
    return path;
}

TEST(program_options, every_numeric_option_takes_good_values_and_names_itself_refusing_bad_ones)
{
    const std::string exporter = glr_test::built_program(GLREADER_EXPORT_PATH),
                      pipe = glr_test::built_program(GLREADER_PIPE_PATH),
                      capture = glr_test::built_program(GLREADER_CAPTURE_PATH),
                      bench = glr_test::built_program(GLREADER_BENCH_PATH);
    const std::string sound = glr_test::write_wav("options_sound.wav", 48000, 1, std::vector<int16_t>(48000, 1000));
    const std::string shader_70k = write_padded_shader(70000), long_compile = write_long_compile_shader();
    const std::vector<std::string> count_bad = {"0.5", "1e10", "inf", "12abc", "", "0", "-1", "99999999999"};
    const std::vector<std::string> rate_bad = {"0", "-30", "1000000", "inf", "29.97abc", "30/0", "1e3", ""};
    const std::vector<std::string> size_bad = {"320x240abc", "99999999999x2", "0x10", "x", "320*240", "-5x5",
                                               "40000x16", ""};
    const std::vector<std::string> seconds_bad = {"inf", "nan", "1e3", "abc", "0",    "-2",  "1.5x",
                                                  "2000000", "1:60", "1:2:3:4", "1:-5", "0:0:0", ""};
    const std::string stats = glr_test::scratch_path("options_stats.json");
    const std::vector<std::string> export_base = {"-f", "null", "--stats-json", stats},
                                   pipe_tail = {"--", "-f", "null", "-"};

    std::vector<numeric_option> table = {
        {exporter, export_base, "-s", {{{"16x8", "-n", "1"}, "wrote 1 frames (16x8, "}}, size_bad},
        {exporter, export_base, "-r",
         {{{"29.97", "-n", "1", "-s", "16x8"}, "30000/1001 fps"},
          {{"30000/1001", "-n", "1", "-s", "16x8"}, "30000/1001 fps"},
          {{"0.5", "-n", "1", "-s", "16x8"}, "(16x8, 1/2 fps"},
          {{"ntsc", "-n", "1", "-s", "16x8"}, "30000/1001 fps"}},
         rate_bad},
        {exporter, export_base, "-t",
         {{{"1.5", "-s", "16x8", "-r", "2"}, "wrote 3 frames"},
          {{"1/2", "-s", "16x8", "-r", "4"}, "wrote 2 frames"},
          {{"1.5s", "-s", "16x8", "-r", "2"}, "wrote 3 frames"},
          {{"500ms", "-s", "16x8", "-r", "4"}, "wrote 2 frames"},
          {{"0:01.5", "-s", "16x8", "-r", "2"}, "wrote 3 frames"}},
         seconds_bad},
        {exporter, export_base, "-ss",
         {{{"2", "-s", "16x8", "-r", "4", "-n", "1"}, "\"start_frame\": 8,"},
          {{"00:01:00", "-s", "16x8", "-n", "1"}, "\"start_frame\": 1800,"}},
         {"-1", "inf", "abc", "1:60", ""}},
        {exporter, export_base, "-to",
         {{{"3", "-s", "16x8", "-r", "2", "-ss", "1"}, "wrote 4 frames"}, {{"0:02", "-s", "16x8", "-r", "2"}, "wrote 4 frames"}},
         {"0", "-1", "inf", "abc", ""}},
        {exporter, export_base, "-frames:v", {{{"2", "-s", "16x8"}, "wrote 2 frames"}}, count_bad},
        {exporter, export_base, "-b:a",
         {{{"96k", "--audio", sound, "-s", "16x8", "-n", "2"}, "\"audio_bit_rate\": 96000,"}},
         {"12abc", "0", "inf", ""}},
        {exporter, export_base, "-n", {{{"2", "-s", "16x8"}, "wrote 2 frames"}}, count_bad},
        {exporter, export_base, "--depth", {{{"1", "-s", "16x8", "-n", "2"}, "\"ring_depth\": 1,"}},
         {"0", "65", "1e10", "2.5", "-1", ""}},
        {exporter, export_base, "--queue", {{{"1", "-s", "16x8", "-n", "2"}, "\"encoder_queue\": 1,"}},
         {"0", "65", "1e10", "2.5", ""}},
        {exporter, export_base, "--start-frame", {{{"5", "-s", "16x8", "-n", "1"}, "\"start_frame\": 5,"}},
         {"-1", "0.5", "1e10", "x", ""}},
        {exporter, export_base, "--max-shader-size",
         {{{"64k", "--shader", shader_70k, "-s", "16x8", "-n", "1"}, "more than the limit of 65536 bytes", 1},
          {{"16M", "--shader", shader_70k, "-s", "16x8", "-n", "1"}, "wrote 1 frames"}},
         {"0", "2G", "1e6", "-4k", "12abc", "inf", ""}},
        {exporter, export_base, "--compile-timeout",
         {{{"0", "-s", "16x8", "-n", "1"}, "wrote 1 frames"},
          {{"0.01", "--shader", long_compile, "-s", "16x8", "-n", "1"}, "for over 0.01 s: giving up", 1}},
         {"-1", "inf", "nan", "1e3", "5s", "2000000", ""}},
        {exporter, export_base, "--audio-bitrate",
         {{{"96k", "--audio", sound, "-s", "16x8", "-n", "2"}, "\"audio_bit_rate\": 96000,"}},
         {"12abc", "0", "1e6", "inf", "-96k", "20M", ""}},
        {exporter, export_base, "--audio-offset",
         {{{"-0.25", "--audio", sound, "-s", "16x8", "-n", "2"}, "\"audio_offset\": -0.25,"}},
         {"inf", "nan", "1e3", "0.5s", "2000000", ""}},
        {pipe, {}, "-s", {{{"16x8", "-n", "2", "--", "-f", "null", "-"}, "2 frames 16x8 "}}, size_bad},
        {pipe, {"-s", "16x8"}, "-r",
         {{{"29.97", "-n", "2", "--", "-f", "null", "-"}, "at 30000/1001 fps"},
          {{"0.5", "-n", "2", "--", "-f", "null", "-"}, "at 1/2 fps"}},
         rate_bad},
        {pipe, {"-s", "16x8"}, "-t", {{{"0.5", "-r", "4", "--", "-f", "null", "-"}, "2 frames 16x8 "}}, seconds_bad},
        {pipe, {"-s", "16x8"}, "-n", {{{"2", "--", "-f", "null", "-"}, "2 frames 16x8 "}}, count_bad},
        {pipe, {"-s", "16x8", "-n", "2"}, "--depth", {{{"1", "--", "-f", "null", "-"}, "ring depth 1,"}},
         {"0", "65", "1e10", "2.5", ""}},
        {capture, {}, "-s", {{{"16x8", "-n", "2"}, "2 frames 16x8 "}}, size_bad},
        {capture, {"-s", "16x8"}, "-n", {{{"2"}, "frames captured 2, acquired 2, released 2"}}, count_bad},
        {capture, {"-s", "16x8", "-n", "2"}, "-r", {{{"12.5"}, "at 25/2 fps"}}, rate_bad},
        {capture, {"-s", "16x8", "-n", "2"}, "--depth", {{{"1"}, ", depth 1, path"}}, {"0", "65", "1e10", "2.5", ""}},
        {bench, {"ring", "--sizes", "16x8"}, "--runs", {{{"2", "--frames", "2"}, "2 runs x 2 frames"}},
         {"0", "1.5", "1e3", "1001", ""}},
        {bench, {"ring", "--sizes", "16x8", "--runs", "1"}, "--frames", {{{"3"}, "1 runs x 3 frames"}},
         {"0", "1.5", "inf", "x", ""}},
        {bench, {"ring", "--runs", "1", "--frames", "2"}, "--sizes", {{{"16x8"}, "| 16x8 |"}},
         {"16x8x", "0x8", "16*8", "40000x8"}},
        {bench, {"filter"}, "--depth", {}, {"0", "17", "2.5", ""}},
        {bench, {"compare"}, "--seconds", {}, {"inf", "0", "1e3", "abc"}},
        {bench, {"compare"}, "--buffers", {}, {"0", "1,x", "1.5", "65"}},
    };
#ifdef GLREADER_VIEWER_PATH
    const std::string viewer = glr_test::built_program(GLREADER_VIEWER_PATH);
    // Good values need a display: the viewer's own test runs it under Xvfb.
    table.push_back({viewer, {}, "-s", {}, size_bad});
    table.push_back({viewer, {}, "-r", {}, rate_bad});
    table.push_back({viewer, {}, "-n", {}, count_bad});
#endif

    const std::string log = glr_test::scratch_path("options.log");
    for (const numeric_option &o : table) {
        const std::string name = program_name(o.program);
        for (const good_value &good : o.good) {
            std::vector<std::string> args = o.base;
            args.push_back(o.option);
            args.insert(args.end(), good.args.begin(), good.args.end());
            std::remove(stats.c_str());
            // Shaders compile afresh (no driver disk cache): --compile-timeout's limit is
            // reached by a compile, not skipped by a cache hit.
            int rc = glr_test::wait_exit(glr_test::spawn(o.program, args, log, glr_test::no_shader_disk_cache));
            std::string text = glr_test::slurp(log) + glr_test::slurp(stats);
            EXPECT_EQ(rc, good.status) << name << " " << o.option << " " << good.args.front() << ":\n" << text;
            EXPECT_NE(text.find(good.shows), std::string::npos)
                << name << " " << o.option << " " << good.args.front() << " does not show '" << good.shows << "':\n"
                << text;
        }
        for (const std::string &bad : o.bad) {
            std::vector<std::string> args = o.base;
            args.insert(args.end(), {o.option, bad});
            if (o.program == pipe)
                args.insert(args.end(), pipe_tail.begin(), pipe_tail.end());
            int rc = glr_test::wait_exit(glr_test::spawn(o.program, args, log));
            std::string text = glr_test::slurp(log);
            EXPECT_EQ(rc, 2) << name << " " << o.option << " '" << bad << "':\n" << text;
            EXPECT_NE(text.find(name + ": " + o.option), std::string::npos)
                << name << " " << o.option << " '" << bad << "' does not name the option:\n" << text;
            EXPECT_NE(text.find("'" + bad + "'"), std::string::npos)
                << name << " " << o.option << " '" << bad << "' does not quote the value:\n" << text;
        }
    }
    for (const std::string &path : {sound, shader_70k, long_compile, stats})
        std::remove(path.c_str());
}

// Every numeric row of the export's table holds at both ends, read from the row itself: its
// lowest and highest values are taken and the nearest past each refused, by the library's
// settings and by glreader-export alike, the refusal in the same words (the option as each
// spells it) and a usage error (2) on the command line. A bound loosened at either end, or
// a front-end's reader that bounds otherwise, fails here.
TEST(program_options, every_numeric_row_takes_its_bounds_and_refuses_past_both_ends_in_every_front_end)
{
    const std::string exporter = glr_test::built_program(GLREADER_EXPORT_PATH), log = glr_test::scratch_path("edges.log");
    int count = 0, rows = 0;
    const glr_export_option *table = glr_export_options(&count);
    for (int i = 0; i < count; i++) {
        const glr_export_option &o = table[i];
        const std::vector<glr_test::edge> edges = glr_test::edges_of(o);
        if (edges.empty())
            continue;
        rows++;
        const std::string flag = std::string(o.flags).substr(0, std::string(o.flags).find(','));
        for (const glr_test::edge &e : edges) {
            SCOPED_TRACE(std::string(o.name) + " " + e.text);
            glr_export_settings *s = glr_export_settings_create();
            int rc = glr_export_settings_set(s, o.name, e.text.c_str());
            const std::string words = rc < 0 ? glr_last_error() : "";
            glr_export_settings_destroy(&s);
            EXPECT_EQ(rc == 0, e.taken) << words;
            // The command line: a value taken lets the next option be read (and refused as
            // unknown), so nothing renders.
            EXPECT_EQ(glr_test::wait_exit(glr_test::spawn(exporter, {flag, e.text, "--no-such-option"}, log)), 2);
            const std::string said = glr_test::slurp(log);
            if (e.taken) {
                EXPECT_NE(said.find("unknown option --no-such-option"), std::string::npos) << said;
            } else {
                ASSERT_EQ(words.rfind(std::string(o.name) + " needs ", 0), 0u) << words;
                EXPECT_NE(said.find("glreader-export: " + flag + words.substr(std::strlen(o.name))), std::string::npos)
                    << "not the library's words (" << words << "):\n" << said;
            }
        }
    }
    EXPECT_GE(rows, 13) << "numeric rows of the table";
}

// Every option of the export's table, in every spelling, is taken by every program that
// renders, or refused with the program's reason naming it (never "unknown option"); a
// program's help lists the ones it leaves out. A value, then -h: a program that takes the
// option reads its value (or refuses a bad one, naming the option) and then shows its help.
TEST(program_options, every_program_that_renders_takes_each_table_option_or_says_why_not)
{
    std::vector<std::string> programs = {GLREADER_EXPORT_PATH, GLREADER_PIPE_PATH, GLREADER_CAPTURE_PATH};
#ifdef GLREADER_VIEWER_PATH
    programs.push_back(GLREADER_VIEWER_PATH);
#endif
    int count = 0;
    const glr_export_option *table = glr_export_options(&count);
    ASSERT_GT(count, 40);
    int refused = 0;
    for (const std::string &path : programs) {
        std::string program = glr_test::built_program(path), log = glr_test::scratch_path("table_option.log");
        std::string name = program.substr(program.rfind('/') + 1);
        for (int i = 0; i < count; i++) {
            std::stringstream flags(table[i].flags);
            for (std::string flag; std::getline(flags, flag, ',');) {
                flag.erase(0, flag.find_first_not_of(' '));
                std::vector<std::string> args = {flag};
                if (table[i].kind != GLR_EXPORT_OPTION_SWITCH)
                    args.push_back("1");
                args.push_back("-h");
                int status = glr_test::wait_exit(glr_test::spawn(program, args, log));
                std::string said = glr_test::slurp(log);
                EXPECT_TRUE(status == 0 || status == 2) << name << " " << flag << ": status " << status << "\n" << said;
                EXPECT_EQ(said.find("unknown option"), std::string::npos) << name << " " << flag << ":\n" << said;
                if (status == 2) {
                    EXPECT_NE(said.find(name + ": " + flag), std::string::npos) << name << " " << flag << ":\n" << said;
                    refused++;
                }
            }
        }
    }
    EXPECT_GT(refused, 20) << "the pipe, the capture and the viewer leave options out, saying why";
}

// Every program says its version and the library's, and the help says how.
TEST(program_options, every_program_says_its_version)
{
    char expected[64];
    std::snprintf(expected, sizeof expected, " %d.%d.%d (libglreader ", GLR_VERSION_MAJOR, GLR_VERSION_MINOR,
                  GLR_VERSION_PATCH);
    for (const std::string &path : {std::string(GLREADER_EXPORT_PATH), std::string(GLREADER_PIPE_PATH),
                                    std::string(GLREADER_CAPTURE_PATH), std::string(GLREADER_BENCH_PATH)}) {
        std::string program = glr_test::built_program(path), log = glr_test::scratch_path("version.log");
        std::string name = program.substr(program.rfind('/') + 1);
        ASSERT_EQ(glr_test::wait_exit(glr_test::spawn(program, {"--version"}, log)), 0) << glr_test::slurp(log);
        EXPECT_EQ(glr_test::slurp(log).rfind(name + expected, 0), 0u) << glr_test::slurp(log);
        ASSERT_EQ(glr_test::wait_exit(glr_test::spawn(program, {"--help"}, log)), 0);
        EXPECT_NE(glr_test::slurp(log).find("--version"), std::string::npos) << name;
    }
}

// What the pipe sample once truncated: 29.97 became 29, and 0.5 became 60.
TEST(program_options, pipe_sample_writes_the_rate_given)
{
    const std::string pipe = glr_test::built_program(GLREADER_PIPE_PATH);
    for (const auto &[rate, expected] : std::vector<std::pair<std::string, std::string>>{{"29.97", "30000/1001"},
                                                                                          {"0.5", "1/2"}}) {
        std::string out = glr_test::scratch_path("rate.mkv"), log = glr_test::scratch_path("rate.log"),
                    probe = glr_test::scratch_path("rate_probe.txt");
        ASSERT_EQ(glr_test::wait_exit(glr_test::spawn(pipe, {"-s", "16x8", "-r", rate, "-n", "3", "--", "-c:v", "ffv1",
                                                             "-y", out},
                                                      log)),
                  0)
            << glr_test::slurp(log);
        ASSERT_EQ(glr_test::wait_exit(glr_test::spawn(
                      "ffprobe", {"-v", "error", "-show_entries", "stream=r_frame_rate", "-of", "csv=p=0", out}, probe)),
                  0);
        EXPECT_EQ(glr_test::slurp(probe), expected + "\n") << "-r " << rate;
        std::remove(out.c_str());
    }
}

} // namespace
