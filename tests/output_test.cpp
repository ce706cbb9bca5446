// glreader-av's output files: never destroyed unless asked (GLR_OUTPUT_NO_OVERWRITE, an
// exclusive create), and whole or not at all under their name (GLR_OUTPUT_PART).
#include "support/decoder.hpp"
#include "support/gl_test.hpp"
#include "support/pattern_scene.hpp"
#include "support/process.hpp"

#include "glreader/av/encoder.hpp"
#include "av/fault_injection.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <fstream>
#include <future>
#include <memory>
#include <string>
#include <thread>

namespace {

using glr_test::scratch_path;

constexpr int width = 48, height = 32;

// output must outlive the params (they keep the pointer).
glr_encoder_params params(const std::string &output, unsigned flags)
{
    glr_encoder_params p{};
    p.width = width;
    p.height = height;
    p.format = GLR_FORMAT_BGRA8; // ffv1 takes it as it is: lossless
    p.fps_num = 25;
    p.fps_den = 1;
    p.codec = "ffv1";
    p.container = "matroska";
    p.output = output.c_str();
    p.output_flags = flags;
    return p;
}

glr_encoder *create(const std::string &output, unsigned flags)
{
    glr_encoder_params p = params(output, flags);
    return glr_encoder_create(nullptr, &p);
}

bool exists(const std::string &path)
{
    struct stat st;
    return stat(path.c_str(), &st) == 0;
}

bool contains(const std::string &text, const std::string &part) { return text.find(part) != std::string::npos; }

// Creating an encoder with p fails with NULL and `code`; returns the message.
std::string create_fails(const glr_encoder_params &p, int code)
{
    glr_encoder *enc = glr_encoder_create(nullptr, &p);
    EXPECT_EQ(enc, nullptr);
    glr_encoder_destroy(&enc);
    EXPECT_EQ(glr_last_error_code(), code) << glr_last_error();
    return glr_last_error();
}

// "" when path holds exactly `frames` frames of the test pattern, else what differs.
std::string holds_pattern(const std::string &path, int frames)
{
    glr_test::decoded_video v = glr_test::decode_file(path);
    if (!v.error.empty())
        return path + ": " + v.error;
    if (v.frames.size() != static_cast<size_t>(frames))
        return path + " holds " + std::to_string(v.frames.size()) + " frames, not " + std::to_string(frames);
    for (int n = 0; n < frames; n++)
        if (std::string d = glr_test::check_decoded(v.frames[static_cast<size_t>(n)], static_cast<uint64_t>(n), width,
                                                    height, true);
            !d.empty())
            return path + ", frame " + std::to_string(n) + ": " + d;
    return "";
}

class encoder_outputs : public glr_test::gl_test {
protected:
    void SetUp() override
    {
        gl_test::SetUp();
        scene_ = std::make_unique<glr_test::pattern_scene>(glr_test::scene_options{width, height});
        ring_ = std::make_unique<glr::ring>(glr_test::ring_params(width, height, GLR_FORMAT_BGRA8));
    }

    // Renders `frames` pattern frames through a ring into enc (not finished).
    void encode(glr_encoder *enc, int frames)
    {
        auto submit = [&](glr::frame &&f) {
            glr_frame c = f.detach();
            glr_encoder_submit(enc, &c); // a failure is sticky: finish returns it
        };
        for (int n = 0; n < frames; n++) {
            scene_->draw(static_cast<uint64_t>(n));
            ring_->capture(scene_->source(), n, submit);
        }
        ring_->drain(submit);
    }

    // Made once the context is current; the ring outlives the encoders' leases.
    std::unique_ptr<glr_test::pattern_scene> scene_;
    std::unique_ptr<glr::ring> ring_;
};

TEST_F(encoder_outputs, an_existing_file_is_refused_and_kept_byte_for_byte)
{
    std::string path = scratch_path("kept.mkv");
    const std::string precious = "the user's own bytes\n";
    std::ofstream(path) << precious;
    for (unsigned flags : {unsigned(GLR_OUTPUT_NO_OVERWRITE), unsigned(GLR_OUTPUT_NO_OVERWRITE | GLR_OUTPUT_PART)}) {
        std::string m = create_fails(params(path, flags), -EEXIST);
        EXPECT_TRUE(contains(m, path + " already exists, and is kept as it is")) << m;
        EXPECT_EQ(glr_test::slurp(path), precious);
        EXPECT_FALSE(exists(path + ".part"));
    }
    // Without the flag, the file is replaced (as before): the flag is what keeps it.
    glr_encoder *enc = create(path, 0);
    ASSERT_NE(enc, nullptr) << glr_last_error();
    encode(enc, 2);
    EXPECT_EQ(glr_encoder_finish(enc), 0) << glr_last_error();
    glr_encoder_destroy(&enc);
    EXPECT_EQ(holds_pattern(path, 2), "");
    std::remove(path.c_str());
}

TEST_F(encoder_outputs, of_two_encoders_started_at_once_on_one_file_one_writes_it)
{
    std::string path = scratch_path("race.mkv");
    // Several rounds, so that the second encoder meets the first both before and after
    // the file exists: refused early, or by the exclusive create.
    for (int round = 0; round < 8; round++) {
        SCOPED_TRACE("round " + std::to_string(round));
        std::remove(path.c_str());
        std::promise<void> start;
        std::shared_future<void> go = start.get_future().share();
        struct attempt {
            glr_encoder *enc = nullptr;
            int code = 0;
            std::string message;
        } attempts[2];
        std::thread threads[2];
        for (attempt &a : attempts)
            threads[&a - attempts] = std::thread([&a, &path, go] {
                go.wait();
                a.enc = create(path, GLR_OUTPUT_NO_OVERWRITE);
                if (!a.enc) {
                    a.code = glr_last_error_code(); // this thread's last error
                    a.message = glr_last_error();
                }
            });
        start.set_value();
        for (std::thread &t : threads)
            t.join();
        ASSERT_NE(attempts[0].enc == nullptr, attempts[1].enc == nullptr)
            << "exactly one encoder opens the file: " << attempts[0].message << " / " << attempts[1].message;
        attempt &winner = attempts[0].enc ? attempts[0] : attempts[1], &loser = attempts[0].enc ? attempts[1] : attempts[0];
        EXPECT_EQ(loser.code, -EEXIST) << loser.message;
        EXPECT_TRUE(contains(loser.message, path) && contains(loser.message, "is kept as it is")) << loser.message;
        encode(winner.enc, 3);
        EXPECT_EQ(glr_encoder_finish(winner.enc), 0) << glr_last_error();
        glr_encoder_destroy(&winner.enc);
        ASSERT_EQ(holds_pattern(path, 3), "") << "the refused encoder touched the file";
    }
    std::remove(path.c_str());
}

TEST_F(encoder_outputs, a_part_file_takes_its_name_only_when_the_encode_succeeds)
{
    std::string path = scratch_path("whole.mkv"), part = path + ".part";
    std::remove(path.c_str());
    glr_encoder *enc = create(path, GLR_OUTPUT_NO_OVERWRITE | GLR_OUTPUT_PART);
    ASSERT_NE(enc, nullptr) << glr_last_error();
    encode(enc, 4);
    EXPECT_TRUE(exists(part));
    EXPECT_FALSE(exists(path)) << "the name is taken before the encode is whole";
    EXPECT_EQ(glr_encoder_finish(enc), 0) << glr_last_error();
    glr_encoder_destroy(&enc);
    EXPECT_FALSE(exists(part));
    EXPECT_EQ(holds_pattern(path, 4), "");

    // Over an existing file without NO_OVERWRITE: the old file stays whole until the new
    // one replaces it at once.
    enc = create(path, GLR_OUTPUT_PART);
    ASSERT_NE(enc, nullptr) << glr_last_error();
    encode(enc, 2);
    EXPECT_EQ(holds_pattern(path, 4), "") << "the older file changed before the new one was whole";
    EXPECT_EQ(glr_encoder_finish(enc), 0) << glr_last_error();
    glr_encoder_destroy(&enc);
    EXPECT_EQ(holds_pattern(path, 2), "");
    EXPECT_FALSE(exists(part));
    std::remove(path.c_str());
}

TEST_F(encoder_outputs, an_encode_that_fails_or_stops_short_leaves_the_part_file_and_the_name_alone)
{
    std::string path = scratch_path("short.mkv"), part = path + ".part";
    const std::string precious = "the older video\n";
    std::ofstream(path) << precious;

    // A failure mid-stream: the .part is finalized with what was encoded.
    glr_encoder *enc = create(path, GLR_OUTPUT_PART);
    ASSERT_NE(enc, nullptr) << glr_last_error();
    glr_internal_encoder_fail_after(enc, 2);
    encode(enc, 6);
    EXPECT_EQ(glr_encoder_finish(enc), GLR_ERROR_CODEC);
    glr_encoder_destroy(&enc);
    EXPECT_EQ(glr_test::slurp(path), precious);
    EXPECT_EQ(holds_pattern(part, 2), "");

    // Stopped short on purpose (a cancel): finalized, not renamed; the .part a run left is
    // written over.
    enc = create(path, GLR_OUTPUT_PART);
    ASSERT_NE(enc, nullptr) << glr_last_error();
    encode(enc, 3);
    EXPECT_EQ(glr_encoder_finish_incomplete(enc), 0) << glr_last_error();
    glr_encoder_destroy(&enc);
    EXPECT_EQ(glr_test::slurp(path), precious);
    EXPECT_EQ(holds_pattern(part, 3), "");

    // Abandoned without a finish (an exception unwinding through glr::encoder): the same.
    {
        glr::encoder abandoned(params(path, GLR_OUTPUT_PART));
        encode(abandoned.get(), 5);
    }
    EXPECT_EQ(glr_test::slurp(path), precious);
    EXPECT_EQ(holds_pattern(part, 5), "");
    std::remove(path.c_str());
    std::remove(part.c_str());
}

TEST_F(encoder_outputs, a_part_file_being_written_is_not_taken_by_a_second_encoder)
{
    std::string path = scratch_path("busy.mkv"), part = path + ".part";
    std::remove(path.c_str());
    glr_encoder *first = create(path, GLR_OUTPUT_PART);
    ASSERT_NE(first, nullptr) << glr_last_error();
    encode(first, 3);
    std::string m = create_fails(params(path, GLR_OUTPUT_PART), -EALREADY);
    EXPECT_TRUE(contains(m, part + " is being written by another encoder, which will rename it to " + path)) << m;
    EXPECT_EQ(glr_encoder_finish(first), 0) << glr_last_error();
    glr_encoder_destroy(&first);
    EXPECT_EQ(holds_pattern(path, 3), "") << "the refused encoder touched the .part";
    std::remove(path.c_str());
}

TEST_F(encoder_outputs, a_name_taken_while_the_part_file_was_written_is_kept)
{
    std::string path = scratch_path("appeared.mkv"), part = path + ".part";
    std::remove(path.c_str());
    glr_encoder *enc = create(path, GLR_OUTPUT_NO_OVERWRITE | GLR_OUTPUT_PART);
    ASSERT_NE(enc, nullptr) << glr_last_error();
    encode(enc, 3);
    const std::string other = "another writer's file\n";
    std::ofstream(path) << other;
    EXPECT_EQ(glr_encoder_finish(enc), -EEXIST);
    std::string m = glr_last_error();
    EXPECT_TRUE(contains(m, path + " appeared while this encoder wrote " + part)) << m;
    EXPECT_TRUE(contains(m, "the result stays in " + part)) << m;
    glr_encoder_destroy(&enc);
    EXPECT_EQ(glr_test::slurp(path), other);
    EXPECT_EQ(holds_pattern(part, 3), "");
    std::remove(path.c_str());
    std::remove(part.c_str());
}

TEST(encoder_output_flags, part_files_need_a_file_and_unknown_flags_are_refused)
{
    const std::string sequence = scratch_path("frame_%03d.png"), stdout_name = "-";
    glr_encoder_params p = params(stdout_name, GLR_OUTPUT_PART);
    EXPECT_TRUE(contains(create_fails(p, -EINVAL), "GLR_OUTPUT_PART writes a file and renames it, but - is a file "
                                                   "descriptor"));
    const std::string url = "udp://127.0.0.1:9"; // refused before any socket is made
    p = params(url, GLR_OUTPUT_PART);
    p.container = "mpegts";
    EXPECT_TRUE(contains(create_fails(p, -EINVAL), url + " is a URL"));
    p = params(sequence, GLR_OUTPUT_PART);
    p.container = nullptr;
    p.codec = "png";
    EXPECT_TRUE(contains(create_fails(p, -EINVAL), "is written by its muxer itself"));
    std::string path = scratch_path("flags.mkv");
    EXPECT_TRUE(contains(create_fails(params(path, 1u << 7), -EINVAL), "unknown output_flags 0x80"));
    EXPECT_FALSE(exists(path));
}

} // namespace
