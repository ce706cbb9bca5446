// glreader-export --alpha: the shader's alpha kept as transparency, decoded back from every
// kind of output that carries it (ProRes 4444 and QuickTime Animation in MOV, VP9 in WebM,
// FFV1 in Matroska, PNG), straight or premultiplied; alpha 1 without it; outputs that would
// lose it refused with words.
#include "support/decoder.hpp"
#include "support/gl_test.hpp"
#include "support/process.hpp"

#include <gtest/gtest.h>

extern "C" {
#include <libavcodec/avcodec.h>
}

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

namespace {

const std::string export_program = glr_test::built_program(GLREADER_EXPORT_PATH);
constexpr int width = 64, height = 16;

struct run_result {
    int status;
    std::string log;
};

run_result export_alpha(std::vector<std::string> args, const std::string &name)
{
    std::string shader = glr_test::scratch_path("alpha.frag");
    // Alpha rises left to right; the colour is the same everywhere.
    std::ofstream(shader) << "void mainImage(out vec4 c, in vec2 p) { c = vec4(0.8, 0.4, 0.2, p.x / iResolution.x); }\n";
    args.insert(args.begin(), {"--shader", shader, "-s", std::to_string(width) + "x" + std::to_string(height), "-y"});
    std::string log = glr_test::scratch_path(name + ".log");
    int status = glr_test::wait_exit(glr_test::spawn(export_program, args, log));
    return {status, glr_test::slurp(log)};
}

// The alpha the shader wrote at column x, in 8 bits.
int written_alpha(int x) { return static_cast<int>(std::lround((x + 0.5) / width * 255)); }

// Every decoded frame's alpha and colour along a row are what the shader wrote, within
// `tolerance` code values (lossy codecs), the colour premultiplied or not.
void expect_alpha(const glr_test::decoded_video &v, size_t frames, int tolerance, bool premultiplied)
{
    ASSERT_EQ(v.error, "");
    ASSERT_EQ(v.frames.size(), frames);
    for (size_t n = 0; n < v.frames.size(); n++)
        for (int x = 2; x < width - 2; x += 5) { // away from the edges, where 4:2:0 chroma mixes
            const uint8_t *px = &v.frames[n].rgba[static_cast<size_t>((height / 2 * width + x) * 4)];
            int a = written_alpha(x);
            double scale = premultiplied ? a / 255.0 : 1.0;
            SCOPED_TRACE("frame " + std::to_string(n) + ", column " + std::to_string(x));
            EXPECT_NEAR(px[3], a, tolerance);
            if (a > 40 || premultiplied) { // a lossy codec's colour under near-zero alpha is noise
                EXPECT_NEAR(px[0], 204 * scale, tolerance + 2);
                EXPECT_NEAR(px[1], 102 * scale, tolerance + 2);
                EXPECT_NEAR(px[2], 51 * scale, tolerance + 2);
            }
        }
}

bool has_encoder(const char *name) { return avcodec_find_encoder_by_name(name) != nullptr; }

} // namespace

TEST(export_alpha, each_container_s_codec_with_alpha_keeps_what_the_shader_wrote)
{
    struct output_case {
        std::string file;
        std::vector<std::string> options;
        const char *encoder, *pix_fmt, *decoder;
        int tolerance;
    };
    const output_case cases[] = {
        {"alpha.mov", {}, "prores_ks", "yuva444p10le", nullptr, 3}, // the container's codec with alpha
        {"alpha.webm", {}, "libvpx-vp9", "yuva420p", "libvpx-vp9", 8},
        {"alpha.mkv", {}, "ffv1", "bgra", nullptr, 0},
        {"alpha-yuva.mkv", {"-c", "ffv1", "--pix-fmt", "yuva444p"}, "ffv1", "yuva444p", nullptr, 2},
        {"alpha-qtrle.mov", {"-c", "qtrle"}, "qtrle", "argb", nullptr, 0},
    };
    for (const output_case &c : cases) {
        if (!has_encoder(c.encoder))
            continue; // this FFmpeg build lacks it; the choice among the rest is tested below
        SCOPED_TRACE(c.file);
        std::string out = glr_test::scratch_path(c.file);
        std::vector<std::string> args = c.options;
        args.insert(args.end(), {"--alpha", "-n", "3", "-o", out});
        run_result r = export_alpha(args, "alpha_" + c.file);
        ASSERT_EQ(r.status, 0) << r.log;
        EXPECT_NE(r.log.find(std::string(c.encoder) + " " + c.pix_fmt), std::string::npos) << r.log;
        expect_alpha(glr_test::decode_file(out, c.decoder), 3, c.tolerance, false);
    }

    std::string picture = glr_test::scratch_path("alpha.png");
    run_result r = export_alpha({"--alpha", "-n", "1", "-o", picture}, "alpha_png");
    ASSERT_EQ(r.status, 0) << r.log;
    EXPECT_NE(r.log.find("png rgba"), std::string::npos) << r.log;
    expect_alpha(glr_test::decode_file(picture), 1, 0, false);
}

TEST(export_alpha, premultiplied_colour_is_scaled_by_the_alpha)
{
    std::string out = glr_test::scratch_path("premultiplied.mkv");
    run_result r = export_alpha({"--premultiply", "-n", "2", "-o", out}, "premultiplied");
    ASSERT_EQ(r.status, 0) << r.log;
    expect_alpha(glr_test::decode_file(out), 2, 1, true);
}

TEST(export_alpha, without_alpha_it_is_one_even_in_a_format_that_has_it)
{
    std::string out = glr_test::scratch_path("opaque.mkv");
    run_result r = export_alpha({"-c", "ffv1", "--pix-fmt", "yuva420p", "-n", "2", "-o", out}, "opaque");
    ASSERT_EQ(r.status, 0) << r.log;
    glr_test::decoded_video v = glr_test::decode_file(out);
    ASSERT_EQ(v.error, "");
    ASSERT_EQ(v.frames.size(), 2u);
    for (int x = 0; x < width; x++)
        EXPECT_EQ(v.frames[0].rgba[static_cast<size_t>((height / 2 * width + x) * 4 + 3)], 255) << "column " << x;
}

TEST(export_alpha, outputs_that_would_lose_it_are_refused_with_words)
{
    struct refusal {
        std::vector<std::string> args;
        std::string says;
    } cases[] = {
        {{"-o", glr_test::scratch_path("lost.mp4")}, "the mp4 muxer keeps no alpha"},
        {{"-c", "libx264", "-o", glr_test::scratch_path("lost.mkv")}, "libx264 encodes no alpha; encoders with alpha"},
        {{"-c", "ffv1", "--pix-fmt", "yuv420p", "-o", glr_test::scratch_path("lost2.mkv")},
         "yuv420p has no alpha, which was asked to be kept"},
    };
    for (const refusal &c : cases) {
        std::vector<std::string> args = c.args;
        args.insert(args.end(), {"--alpha", "-n", "1"});
        run_result r = export_alpha(args, "refused");
        EXPECT_NE(r.status, 0) << c.says;
        EXPECT_NE(r.log.find(c.says), std::string::npos) << "want: " << c.says << "\ngot: " << r.log;
    }
}
