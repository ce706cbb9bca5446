// A render made in chunks (glreader-export --frames A-B) and joined (glreader-export join)
// is the single pass: the same frames byte for byte (FFV1, a feedback project whose chunks
// start mid-way), the same timestamps and sound (H.264 + AAC into MP4, the sound encoded
// once), keyframes where chunks start; chunks that do not join are refused with words and
// nothing is written.
#include "support/audio_files.hpp"
#include "support/counter_video.hpp"
#include "support/decoder.hpp"
#include "support/gl_test.hpp"
#include "support/process.hpp"

#include "glreader/frame_range.h"

#include <gtest/gtest.h>

extern "C" {
#include <libavformat/avformat.h>
}

#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

namespace {

int run_export(const std::vector<std::string> &args, std::string &log_text)
{
    return glr_test::run_logged(glr_test::built_program(GLREADER_EXPORT_PATH), args, glr_test::scratch_path("join_export.log"),
                                log_text);
}

bool exists(const std::string &path)
{
    struct stat st{};
    return stat(path.c_str(), &st) == 0;
}

// A stream's packets as the file holds them: pts and dts in the stream's time base, and
// whether each is a keyframe.
struct packet_list {
    std::vector<int64_t> pts, dts;
    std::vector<bool> key;
    AVRational time_base{0, 1};
};

packet_list packets_of(const std::string &path, AVMediaType type)
{
    packet_list list;
    AVFormatContext *in = nullptr;
    if (avformat_open_input(&in, path.c_str(), nullptr, nullptr) < 0)
        return list;
    avformat_find_stream_info(in, nullptr);
    int stream = av_find_best_stream(in, type, -1, -1, nullptr, 0);
    AVPacket *packet = av_packet_alloc();
    if (stream >= 0) {
        list.time_base = in->streams[stream]->time_base;
        while (av_read_frame(in, packet) >= 0) {
            if (packet->stream_index == stream) {
                list.pts.push_back(packet->pts);
                list.dts.push_back(packet->dts);
                list.key.push_back((packet->flags & AV_PKT_FLAG_KEY) != 0);
            }
            av_packet_unref(packet);
        }
    }
    av_packet_free(&packet);
    avformat_close_input(&in);
    return list;
}

void write(const std::string &path, const std::string &text) { std::ofstream(path) << text; }

// A feedback trail: Buffer A fades its own previous frame and adds a moving spot, so every
// frame depends on all before it; Image shows it.
std::string write_trail_project()
{
    std::string dir = glr_test::scratch_path("join_trail");
    mkdir(dir.c_str(), 0755);
    write(dir + "/bufferA.glsl",
          "void mainImage(out vec4 c, in vec2 p) {\n"
          "    vec2 spot = iResolution.xy * (0.5 + 0.35 * vec2(cos(iTime * 2.0), sin(iTime * 3.0)));\n"
          "    float old = texelFetch(iChannel0, ivec2(p), 0).r * 0.93;\n"
          "    c = vec4(max(old, smoothstep(6.0, 0.0, distance(p, spot))));\n"
          "}\n");
    write(dir + "/image.glsl",
          "void mainImage(out vec4 c, in vec2 p) {\n"
          "    float t = texelFetch(iChannel0, ivec2(p), 0).r;\n"
          "    c = vec4(t, t * t, fract(p.x / 17.0) * t, 1.0);\n"
          "}\n");
    write(dir + "/channels", "bufferA.channel0 buffer:A,filter=nearest\nimage.channel0 buffer:A,filter=nearest\n");
    return dir;
}

// A stateless picture that changes every frame (texture for x264's motion search).
std::string write_waves_shader()
{
    std::string path = glr_test::scratch_path("join_waves.frag");
    write(path, "void mainImage(out vec4 c, in vec2 p) {\n"
                "    vec2 uv = p / iResolution.xy;\n"
                "    c = vec4(0.5 + 0.5 * sin(uv.x * 9.0 + iTime * 4.0), uv.y, 0.5 + 0.5 * cos(uv.y * 7.0 - iTime), 1.0);\n"
                "}\n");
    return path;
}

// The feedback project's chunks, made out of order and each pre-rolled, join to the frames
// of one pass, byte for byte, with its timestamps.
TEST(export_join, chunks_of_a_feedback_project_join_to_the_single_pass_frames)
{
    std::string log;
    std::vector<std::string> common = {"--shader", write_trail_project(), "-s", "96x54", "-c", "ffv1", "-y"};
    auto with = [&](std::vector<std::string> more) {
        more.insert(more.begin(), common.begin(), common.end());
        return more;
    };
    std::string full = glr_test::scratch_path("join_full.mkv"), joined = glr_test::scratch_path("join_trail.mkv");
    ASSERT_EQ(run_export(with({"-n", "24", "-o", full}), log), 0) << log;
    const std::vector<std::pair<std::string, std::string>> ranges = {{"9-17", "b"}, {"17-24", "c"}, {"0-9", "a"}};
    std::vector<std::string> join = {"join"};
    for (const auto &[range, name] : ranges) {
        std::string chunk = glr_test::scratch_path("join_trail_" + name + ".nut");
        ASSERT_EQ(run_export(with({"--frames", range, "-o", chunk}), log), 0) << log;
        if (range != "0-9") { // the whole prefix, and what it cost
            EXPECT_NE(log.find("pre-rolling " + range.substr(0, range.find('-')) + " frames"), std::string::npos) << log;
            EXPECT_NE(log.find("pre-rolled " + range.substr(0, range.find('-')) + " frames in "), std::string::npos)
                << log;
        }
        join.push_back(chunk);
    }
    join.insert(join.end(), {"-o", joined, "-y"});
    ASSERT_EQ(run_export(join, log), 0) << log;
    EXPECT_NE(log.find("3 chunks, frames 0-24"), std::string::npos) << log;
    glr_test::decoded_video a = glr_test::decode_file(full), b = glr_test::decode_file(joined);
    ASSERT_EQ(a.frames.size(), 24u) << a.error;
    ASSERT_EQ(b.frames.size(), 24u) << b.error;
    for (size_t n = 0; n < a.frames.size(); n++) {
        EXPECT_EQ(b.frames[n].rgba, a.frames[n].rgba) << "frame " << n;
        EXPECT_EQ(b.frames[n].pts, a.frames[n].pts) << "frame " << n;
    }
    EXPECT_NE(a.frames[8].rgba, a.frames[9].rgba);
    packet_list pa = packets_of(full, AVMEDIA_TYPE_VIDEO), pb = packets_of(joined, AVMEDIA_TYPE_VIDEO);
    EXPECT_EQ(pb.pts, pa.pts);
    EXPECT_EQ(pb.dts, pa.dts);
}

// H.264 chunks (x264, B-frames) and one sound: the joined MP4 has the single pass's frame
// count, frame timestamps and decode order's timestamps, a keyframe where each chunk
// starts and where x264 put one, and the sound's packets, samples and timestamps of the
// single pass (one encode: no seam at a join).
TEST(export_join, h264_chunks_and_one_sound_join_as_the_single_pass_stamps_them)
{
    const int rate = 48000;
    std::vector<int16_t> samples(static_cast<size_t>(rate) * 2 * 2);
    for (size_t i = 0; i < samples.size(); i++)
        samples[i] = static_cast<int16_t>(std::lround(8000 * std::sin(2 * M_PI * 440.0 * static_cast<double>(i / 2) / rate)));
    std::string song = glr_test::write_wav("join_song.wav", rate, 2, samples);
    std::string log;
    // veryfast: B-frames (ultrafast has none), so decode order differs from frame order.
    std::vector<std::string> common = {"--shader", write_waves_shader(), "-s", "128x72", "-c", "libx264",
                                       "-preset", "veryfast", "-y"};
    auto with = [&](std::vector<std::string> more) {
        more.insert(more.begin(), common.begin(), common.end());
        return more;
    };
    std::string full = glr_test::scratch_path("join_full.mp4"), joined = glr_test::scratch_path("join_h264.mp4");
    ASSERT_EQ(run_export(with({"-n", "45", "--audio", song, "-o", full}), log), 0) << log;
    std::vector<std::string> join = {"join"};
    for (const char *range : {"30-45", "0-16", "16-30"}) {
        std::string chunk = glr_test::scratch_path(std::string("join_h264_") + range + ".mkv");
        ASSERT_EQ(run_export(with({"--frames", range, "-o", chunk}), log), 0) << log;
        join.push_back(chunk);
    }
    join.insert(join.end(), {"--audio", song, "-o", joined, "-y"});
    ASSERT_EQ(run_export(join, log), 0) << log;

    packet_list a = packets_of(full, AVMEDIA_TYPE_VIDEO), b = packets_of(joined, AVMEDIA_TYPE_VIDEO);
    ASSERT_EQ(a.pts.size(), 45u);
    ASSERT_EQ(b.pts.size(), 45u);
    ASSERT_EQ(av_cmp_q(a.time_base, b.time_base), 0);
    std::vector<int64_t> pa = a.pts, pb = b.pts;
    std::sort(pa.begin(), pa.end());
    std::sort(pb.begin(), pb.end());
    EXPECT_EQ(pb, pa) << "every frame once, at the single pass's time";
    EXPECT_EQ(b.dts, a.dts);
    int64_t frame = av_rescale_q(1, AVRational{1, 30}, b.time_base);
    for (size_t i = 0; i < b.pts.size(); i++) {
        bool chunk_start = b.pts[i] == 16 * frame || b.pts[i] == 30 * frame;
        if (chunk_start)
            EXPECT_TRUE(b.key[i]) << "a chunk starts on a keyframe, at " << b.pts[i];
        else if (b.key[i])
            EXPECT_TRUE(a.key[std::find(a.pts.begin(), a.pts.end(), b.pts[i]) - a.pts.begin()])
                << "a keyframe where x264 put none in the single pass, at " << b.pts[i];
    }
    packet_list sa = packets_of(full, AVMEDIA_TYPE_AUDIO), sb = packets_of(joined, AVMEDIA_TYPE_AUDIO);
    ASSERT_FALSE(sa.pts.empty());
    EXPECT_EQ(sb.pts, sa.pts) << "the sound's packets, as one encode makes them";
    glr_test::decoded_video v = glr_test::decode_file(joined);
    EXPECT_EQ(v.frames.size(), 45u) << v.error;
}

// A project with a Sound pass, at a rate whose frames do not hold whole samples
// (30000/1001 at 44.1 kHz): each chunk keeps its frames' samples as they rendered, and the
// join encodes them once, so the joined sound is the single pass's, sample for sample
// (FLAC), packet for packet (the container's own lossy codec); a chunk's sound codec is the
// join's to choose, and a chunk cut short of its samples is refused.
TEST(export_join, chunks_keep_their_sound_pass_and_join_to_the_single_pass_sound)
{
    std::string dir = glr_test::scratch_path("join_sweep");
    mkdir(dir.c_str(), 0755);
    write(dir + "/sound.glsl", "vec2 mainSound(int samp, float time) {\n"
                               "    return vec2(0.4 * sin(900.0 * time * time), 0.3 * sin(6.2831853 * 220.0 * time));\n"
                               "}\n");
    write(dir + "/image.glsl", "void mainImage(out vec4 c, in vec2 p) { c = vec4(fract(iTime), p.x / 64.0, 0.5, 1.0); }\n");
    std::string log;
    std::vector<std::string> common = {"--shader", dir, "-s", "64x36", "-r", "30000/1001", "-c", "ffv1", "-y"};
    auto with = [&](std::vector<std::string> more) {
        more.insert(more.begin(), common.begin(), common.end());
        return more;
    };
    std::string full_flac = glr_test::scratch_path("join_sweep_full.mkv"),
                full_own = glr_test::scratch_path("join_sweep_full_own.mkv");
    ASSERT_EQ(run_export(with({"-n", "47", "--audio-codec", "flac", "-o", full_flac}), log), 0) << log;
    ASSERT_EQ(run_export(with({"-n", "47", "-o", full_own}), log), 0) << log;
    std::vector<std::string> chunks;
    // Chunks that end where a frame's time falls past half a sample (frames 4 and 17): each
    // encoder pads its track to the rounded end, and the join takes only the frames' samples.
    for (const char *range : {"17-47", "0-4", "4-17"}) {
        chunks.push_back(glr_test::scratch_path(std::string("join_sweep_") + range + ".mkv"));
        ASSERT_EQ(run_export(with({"--frames", range, "-o", chunks.back()}), log), 0) << log;
    }
    auto join = [&](std::vector<std::string> more) {
        std::vector<std::string> args = {"join"};
        args.insert(args.end(), chunks.begin(), chunks.end());
        args.insert(args.end(), more.begin(), more.end());
        return run_export(args, log);
    };
    std::string joined_flac = glr_test::scratch_path("join_sweep.mkv"), joined_own = glr_test::scratch_path("join_sweep_own.mkv");
    ASSERT_EQ(join({"--audio-codec", "flac", "-o", joined_flac, "-y"}), 0) << log;
    EXPECT_TRUE(glr_test::in_step_with_the_pictures(glr_test::decode_sound(full_flac, 44100, 2))) << "the single pass";
    EXPECT_TRUE(glr_test::in_step_with_the_pictures(glr_test::decode_sound(joined_flac, 44100, 2))) << "the join";
    std::vector<int16_t> a = glr_test::decode_audio(full_flac, 44100, 2), b = glr_test::decode_audio(joined_flac, 44100, 2);
    ASSERT_GT(a.size(), 2u * 68000) << "47 frames at 30000/1001: 69068 samples";
    EXPECT_TRUE(b == a) << "the joined sound differs from the single pass's: " << b.size() << " samples against "
                        << a.size();
    // The codec the container chooses (Matroska's own, lossy), from chunks made without one.
    ASSERT_EQ(join({"-o", joined_own, "-y"}), 0) << log;
    packet_list pa = packets_of(full_own, AVMEDIA_TYPE_AUDIO), pb = packets_of(joined_own, AVMEDIA_TYPE_AUDIO);
    ASSERT_FALSE(pa.pts.empty());
    EXPECT_EQ(pb.pts, pa.pts) << "the sound's packets, as one encode makes them";

    std::string bad = glr_test::scratch_path("join_sweep_bad.mkv");
    EXPECT_EQ(run_export(with({"--frames", "0-4", "--audio-codec", "aac", "-o", bad}), log), 1) << log;
    EXPECT_NE(log.find("a chunk keeps the Sound pass as pcm_s16le"), std::string::npos) << log;
    std::string silent = glr_test::scratch_path("join_sweep_silent.mkv");
    ASSERT_EQ(run_export(with({"--frames", "47-50", "--no-audio", "-o", silent}), log), 0) << log;
    std::string out = glr_test::scratch_path("join_sweep_refused.mkv");
    std::remove(out.c_str());
    EXPECT_EQ(join({silent, "-o", out}), 1) << log;
    EXPECT_NE(log.find("no Sound pass against one"), std::string::npos) << log;
    EXPECT_EQ(run_export({"join", silent, "--audio-codec", "flac", "-o", out}, log), 1) << log;
    EXPECT_NE(log.find("the chunks keep no Sound pass"), std::string::npos) << log;
    // A chunk whose sound was cut (its last 100 samples gone), found once the join reads it:
    // named, and no output made whole from it.
    std::string cut = glr_test::scratch_path("join_sweep_cut.mkv");
    long long cut_end = glr_frame_first_sample(4, 44100, 30000, 1001) - 100;
    ASSERT_EQ(glr_test::wait_exit(glr_test::spawn("ffmpeg", {"-v", "error", "-y", "-i", chunks[1], "-map", "0", "-c:v",
                                                             "copy", "-af", "atrim=end_sample=" + std::to_string(cut_end),
                                                             "-c:a", "pcm_s16le", cut},
                                                   glr_test::scratch_path("join_sweep_cut.log"))),
              0);
    EXPECT_EQ(run_export({"join", chunks[0], cut, chunks[2], "-o", out}, log), 1) << log;
    EXPECT_NE(log.find("it was cut short"), std::string::npos) << log;
    std::remove(out.c_str());
    EXPECT_EQ(run_export({"join", chunks[0], cut, chunks[2], "--part", "-o", out}, log), 1) << log;
    EXPECT_FALSE(exists(out)) << "--part: the output appears only whole";
}

// Chunks that do not make one span, or are not glreader's, or differ, are refused naming
// the chunks, and no output is created.
// Chunks of frames 20-44 at 30000/1001 joined, held to what the test works out itself (no
// single pass of ours as the reference): 24 frames, frame k of the join the counter's
// frame 20 + k, stamped at k x 1001/30000 s (to Matroska's millisecond), in order.
TEST(export_join, a_join_is_the_frames_and_times_worked_out_by_hand)
{
    std::string log, shader = glr_test::write_counter_shader();
    std::vector<std::string> chunks;
    for (const char *range : {"31-44", "20-23", "23-31"}) {
        chunks.push_back(glr_test::scratch_path(std::string("join_counted_") + range + ".mkv"));
        ASSERT_EQ(run_export({"-y", "-s", "40x24", "-r", "30000/1001", "-c", "ffv1", "-pix_fmt", "bgra", "--shader", shader,
                              "--frames", range, "-o", chunks.back()},
                             log),
                  0)
            << log;
    }
    std::string joined = glr_test::scratch_path("join_counted.mkv");
    std::vector<std::string> args = {"join", "-y", "-o", joined};
    args.insert(args.end(), chunks.begin(), chunks.end());
    ASSERT_EQ(run_export(args, log), 0) << log;
    glr_test::expect_counted_frames(joined, 20, 24, 40, 24, 30000, 1001);
}

// The video stream's colour tags: range, primaries, transfer, matrix, chroma location.
std::vector<int> colour_tags_of(const std::string &path)
{
    std::vector<int> tags;
    AVFormatContext *in = nullptr;
    if (avformat_open_input(&in, path.c_str(), nullptr, nullptr) < 0)
        return tags;
    avformat_find_stream_info(in, nullptr);
    int stream = av_find_best_stream(in, AVMEDIA_TYPE_VIDEO, -1, -1, nullptr, 0);
    if (stream >= 0) {
        const AVCodecParameters *par = in->streams[stream]->codecpar;
        tags = {par->color_range, par->color_primaries, par->color_trc, par->color_space, par->chroma_location};
    }
    avformat_close_input(&in);
    return tags;
}

// Chunks in NUT, which keeps no colour tags (nor do FFV1's and VP9's own headers all of
// them), join into an output tagged as the single pass tags it, from the chunks' own tags:
// BT.709 limited with left siting for 4:2:0, and the colour asked for (BT.2020, full range).
TEST(export_join, chunks_in_nut_join_with_the_single_pass_s_colour_tags)
{
    std::string log;
    const std::string shader = write_waves_shader();
    struct pair {
        const char *codec, *output;
        std::vector<std::string> colour;
        std::vector<int> tags; // what a single pass tags, independently of it
    };
    std::vector<pair> pairs = {
        {"ffv1", "mkv", {"-pix_fmt", "yuv420p"}, {AVCOL_RANGE_MPEG, AVCOL_PRI_BT709, AVCOL_TRC_BT709, AVCOL_SPC_BT709, AVCHROMA_LOC_LEFT}},
        {"libvpx-vp9", "webm", {"-pix_fmt", "yuv420p"}, {AVCOL_RANGE_MPEG, AVCOL_PRI_BT709, AVCOL_TRC_BT709, AVCOL_SPC_BT709, AVCHROMA_LOC_LEFT}},
        {"ffv1", "mkv", {"-pix_fmt", "yuv444p", "-colorspace", "bt2020nc", "-color_primaries", "bt2020", "-color_trc", "bt2020-10", "-color_range", "pc"},
         {AVCOL_RANGE_JPEG, AVCOL_PRI_BT2020, AVCOL_TRC_BT2020_10, AVCOL_SPC_BT2020_NCL, AVCHROMA_LOC_UNSPECIFIED}},
    };
    // VP9 where the FFmpeg glreader-export links has it (the GPU bundle's has no libvpx; the
    // farm's test has VP9 into WebM in every run).
    if (!avcodec_find_encoder_by_name("libvpx-vp9"))
        pairs.erase(pairs.begin() + 1);
    for (const pair &p : pairs) {
        SCOPED_TRACE(std::string(p.codec) + " " + p.colour[1]);
        std::vector<std::string> common = {"-y", "-s", "64x36", "--shader", shader, "-c", p.codec};
        common.insert(common.end(), p.colour.begin(), p.colour.end());
        std::vector<std::string> chunks;
        for (const char *range : {"0-4", "4-8"}) {
            chunks.push_back(glr_test::scratch_path(std::string("colour_") + range + ".nut"));
            std::vector<std::string> args = common;
            args.insert(args.end(), {"--frames", range, "-o", chunks.back()});
            ASSERT_EQ(run_export(args, log), 0) << log;
        }
        std::string joined = glr_test::scratch_path(std::string("colour_joined.") + p.output),
                    single = glr_test::scratch_path(std::string("colour_single.") + p.output);
        ASSERT_EQ(run_export({"join", "-y", chunks[0], chunks[1], "-o", joined}, log), 0) << log;
        std::vector<std::string> args = common;
        args.insert(args.end(), {"-n", "8", "-o", single});
        ASSERT_EQ(run_export(args, log), 0) << log;
        EXPECT_EQ(colour_tags_of(single), p.tags) << "the single pass";
        EXPECT_EQ(colour_tags_of(joined), p.tags) << "the join";
    }
}

TEST(export_join, chunks_that_do_not_join_are_refused_and_nothing_is_written)
{
    std::string log;
    std::string waves = write_waves_shader();
    std::vector<std::string> common = {"--shader", waves, "-s", "64x36", "-c", "ffv1", "-y"};
    auto make = [&](const std::string &range, std::vector<std::string> more, const std::string &name) {
        std::string path = glr_test::scratch_path("join_bad_" + name);
        std::vector<std::string> args = common;
        args.insert(args.end(), more.begin(), more.end());
        if (!range.empty())
            args.insert(args.end(), {"--frames", range});
        args.insert(args.end(), {"-o", path});
        EXPECT_EQ(run_export(args, log), 0) << log;
        return path;
    };
    std::string a = make("0-5", {}, "a.mkv"), b = make("5-10", {}, "b.mkv"), c = make("10-15", {}, "c.mkv");
    std::string wide = make("5-10", {"-s", "80x36"}, "wide.mkv"), plain = make("", {"-n", "5"}, "plain.mkv");
    std::string out = glr_test::scratch_path("join_bad_out.mkv");
    std::remove(out.c_str());
    struct refusal {
        std::vector<std::string> chunks;
        std::string words;
    };
    for (const refusal &r : std::vector<refusal>{{{a, c}, "frames 5-10 are missing"},
                                                 {{a, b, b}, "overlaps"},
                                                 {{a, wide}, "other settings than"},
                                                 {{plain, b}, "is not a glreader chunk"},
                                                 {{a, glr_test::scratch_path("join_bad_none.mkv")}, "cannot be opened"}}) {
        std::vector<std::string> args = {"join"};
        args.insert(args.end(), r.chunks.begin(), r.chunks.end());
        args.insert(args.end(), {"-o", out});
        EXPECT_EQ(run_export(args, log), 1) << log;
        EXPECT_NE(log.find(r.words), std::string::npos) << log;
        EXPECT_FALSE(exists(out)) << r.words;
    }
    EXPECT_EQ(run_export({"--shader", waves, "--frames", "0-5", "-o", glr_test::scratch_path("join_bad.mp4"), "-y"}, log), 1);
    EXPECT_NE(log.find("Matroska (.mkv) or NUT"), std::string::npos) << log;
    EXPECT_EQ(run_export({"--shader", waves, "--frames", "5-5", "-o", glr_test::scratch_path("join_bad.mkv")}, log), 2);
    EXPECT_NE(log.find("--frames takes A-B"), std::string::npos) << log;
    EXPECT_EQ(run_export({"--shader", waves, "--frames", "0-5", "-t", "1", "-o", glr_test::scratch_path("x.mkv")}, log), 2);
    EXPECT_NE(log.find("--frames A-B gives the range"), std::string::npos) << log;
}

} // namespace
