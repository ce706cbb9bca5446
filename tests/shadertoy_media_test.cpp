// glreader/utils/libav_media.h's decoders (its implementation header, compiled in place as
// the filter compiles it): Shadertoy's channels from real files, decoded with the system's
// FFmpeg: the sound texture's spectrum and wave, a video in step with the render's time
// (looping or holding), pictures, and errors that name the file.
#include "support/audio_files.hpp"
#include "support/counter_video.hpp"
#include "support/gl_test.hpp"
#include "support/process.hpp"

#define GLR_MEDIA_STATIC
#include "glreader/utils/libav_media.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

namespace {

std::vector<int16_t> tone(int rate, double seconds, double frequency, double from = 0)
{
    std::vector<int16_t> s(static_cast<size_t>(rate * seconds));
    for (size_t i = 0; i < s.size(); i++) {
        double t = static_cast<double>(i) / rate;
        s[i] = t < from ? 0 : static_cast<int16_t>(std::lround(16000 * std::sin(2 * M_PI * frequency * t)));
    }
    return s;
}

int peak_bin(const glr_media_sound &s)
{
    int best = 0;
    for (int i = 1; i < GLR_SOUND_TEXTURE_WIDTH; i++)
        if (s.texture[i] > s.texture[best])
            best = i;
    return best;
}

TEST(shadertoy_media, the_spectrum_row_peaks_at_the_tone_s_bin)
{
    for (int rate : {44100, 48000})
        for (double frequency : {440.0, 1000.0, 5000.0}) {
            std::string wav = glr_test::write_wav("tone.wav", rate, 2, [&] {
                std::vector<int16_t> mono = tone(rate, 1.0, frequency), stereo;
                for (int16_t v : mono)
                    stereo.insert(stereo.end(), {v, v});
                return stereo;
            }());
            glr_media_sound s;
            ASSERT_EQ(glr_media_sound_open(&s, wav.c_str()), 0) << glr_last_error();
            EXPECT_EQ(s.sample_rate, rate);
            ASSERT_EQ(glr_media_sound_analyse(&s, nullptr, 0.5), 0);
            int expected = static_cast<int>(std::lround(frequency * GLR_SOUND_FFT_SIZE / rate));
            EXPECT_NEAR(peak_bin(s), expected, 1) << frequency << " Hz at " << rate;
            EXPECT_GT(s.texture[peak_bin(s)], 200) << "a loud tone reads near the top of the dB range";
            EXPECT_LT(s.texture[expected + 40], 60) << "far from the tone the spectrum is low";
            glr_media_sound_close(&s);
        }
}

TEST(shadertoy_media, the_wave_row_is_the_512_samples_ending_at_the_frame)
{
    const int rate = 48000;
    std::vector<int16_t> samples(rate);
    for (size_t i = 0; i < samples.size(); i++) // a ramp: each sample says where it is
        samples[i] = static_cast<int16_t>(static_cast<int>(i % 4096) * 8 - 16384);
    std::string wav = glr_test::write_wav("ramp.wav", rate, 1, samples);
    glr_media_sound s;
    ASSERT_EQ(glr_media_sound_open(&s, wav.c_str()), 0) << glr_last_error();
    ASSERT_EQ(glr_media_sound_analyse(&s, nullptr, 0.25), 0);
    long end = rate / 4;
    for (int i = 0; i < GLR_SOUND_TEXTURE_WIDTH; i++) {
        double x = samples[static_cast<size_t>(end - GLR_SOUND_TEXTURE_WIDTH + i)] / 32768.0;
        EXPECT_EQ(s.texture[GLR_SOUND_TEXTURE_WIDTH + i], static_cast<int>(std::floor(128 * (1 + x)))) << i;
    }
    glr_media_sound_close(&s);
}

TEST(shadertoy_media, the_spectrum_of_a_frame_is_the_sound_just_before_it)
{
    // Silence, then a tone from 1.0 s: frames before 1.0 s see nothing, frames after see it.
    const int rate = 44100;
    std::string wav = glr_test::write_wav("late.wav", rate, 1, tone(rate, 2.0, 1000, 1.0));
    glr_media_sound s;
    ASSERT_EQ(glr_media_sound_open(&s, wav.c_str()), 0) << glr_last_error();
    int tone_bin = static_cast<int>(std::lround(1000.0 * GLR_SOUND_FFT_SIZE / rate));
    for (int frame = 0; frame < 60; frame++) {
        double t = frame / 30.0;
        ASSERT_EQ(glr_media_sound_analyse(&s, nullptr, t), 0);
        if (t < 1.0)
            EXPECT_EQ(s.texture[tone_bin], 0) << "frame " << frame;
        else if (t >= 1.0 + 2.0 * GLR_SOUND_FFT_SIZE / rate)
            EXPECT_GT(s.texture[tone_bin], 150) << "frame " << frame;
    }
    glr_media_sound_close(&s);
}

TEST(shadertoy_media, a_video_shows_frame_n_at_frame_n_s_time_then_loops_or_holds)
{
    std::string video = glr_test::write_counter_channel_video();
    for (int loop : {1, 0}) {
        glr_media_video v;
        ASSERT_EQ(glr_media_video_open(&v, video.c_str(), loop), 0) << glr_last_error();
        for (int step = 0; step < 35; step++) { // 0.05 s apart: twice per video frame
            double t = step * 0.05, shown_time = -1;
            ASSERT_EQ(glr_media_video_show(&v, t, &shown_time), 0) << glr_last_error();
            int frame = static_cast<int>(std::floor(t * 10 + 1e-9));
            int expected = loop ? frame % 10 : std::min(frame, 9);
            ASSERT_EQ(v.rgba->width, 8);
            EXPECT_EQ(v.rgba->data[0][0], expected * 20) << "t " << t << " loop " << loop;
            EXPECT_EQ(v.rgba->data[0][1], 7);
            EXPECT_NEAR(shown_time, loop ? std::fmod(t, 1.0) : t, 1e-9);
        }
        glr_media_video_close(&v);
    }
}

TEST(shadertoy_media, pictures_decode_exactly_and_bad_files_are_named)
{
    std::string ppm = glr_test::scratch_path("picture.ppm");
    {
        std::ofstream out(ppm, std::ios::binary);
        out << "P6\n3 2\n255\n";
        for (int i = 0; i < 6; i++)
            out << static_cast<char>(i * 40) << static_cast<char>(255 - i) << static_cast<char>(i);
    }
    AVFrame *rgba = nullptr;
    ASSERT_EQ(glr_media_load_image(ppm.c_str(), &rgba), 0) << glr_last_error();
    ASSERT_EQ(rgba->width, 3);
    ASSERT_EQ(rgba->height, 2);
    for (int i = 0; i < 6; i++) {
        const uint8_t *px = rgba->data[0] + (i / 3) * rgba->linesize[0] + (i % 3) * 4;
        EXPECT_EQ(px[0], i * 40);
        EXPECT_EQ(px[1], 255 - i);
        EXPECT_EQ(px[2], i);
        EXPECT_EQ(px[3], 255);
    }
    av_frame_free(&rgba);

    EXPECT_LT(glr_media_load_image("/nonexistent/noise.png", &rgba), 0);
    EXPECT_STREQ(glr_last_error(), "cannot open the image /nonexistent/noise.png: No such file or directory");
    std::string text = glr_test::scratch_path("not-a-picture.png");
    std::ofstream(text) << "this is no picture\n";
    EXPECT_LT(glr_media_load_image(text.c_str(), &rgba), 0);
    EXPECT_NE(std::string(glr_last_error()).find(text), std::string::npos) << glr_last_error();
    glr_media_sound s;
    EXPECT_LT(glr_media_sound_open(&s, ppm.c_str()), 0);
    EXPECT_NE(std::string(glr_last_error()).find("the sound " + ppm + " has no audio stream"), std::string::npos)
        << glr_last_error();
}

} // namespace
