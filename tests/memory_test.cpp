// Bounded memory: a long render through the ring into the encoder must not grow the
// process. (Not run under AddressSanitizer, whose quarantine holds freed memory on purpose.)
#include "support/gl_test.hpp"
#include "support/pattern_scene.hpp"

#include "glreader/av/encoder.hpp"

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

namespace {

long resident_kib()
{
    std::ifstream statm("/proc/self/statm");
    long size = 0, resident = 0;
    statm >> size >> resident;
    return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

using memory_test = glr_test::gl_test;

TEST_F(memory_test, resident_size_stays_flat_over_5000_frames)
{
    // RGBA converted by libswscale, and NV12 from the GPU lent to the encoder: libx264
    // keeps frames in its lookahead either way, the busiest paths.
    for (glr_format format : {GLR_FORMAT_RGBA8, GLR_FORMAT_NV12}) {
        SCOPED_TRACE(glr_format_name(format));
        bool with_audio = format == GLR_FORMAT_NV12; // and a PCM track, AAC-encoded beside it
        const int w = 64, h = 48, frames = 5000;
        std::string path = ::testing::TempDir() + "glr_memory_" + std::to_string(getpid()) + ".mkv";
        glr_test::pattern_scene scene({w, h});
        glr_ring_params rp = glr_test::ring_params(w, h, format);
        glr::ring ring(rp);
        glr_encoder_params ep{};
        ep.width = w;
        ep.height = h;
        ep.format = format;
        ep.codec = "libx264";
        ep.pix_fmt = format == GLR_FORMAT_NV12 ? "nv12" : nullptr;
        ep.codec_options = "preset=ultrafast";
        ep.output = path.c_str();
        if (with_audio) {
            ep.audio.sample_rate = 48000;
            ep.audio.channels = 2;
            ep.audio.codec = "aac";
        }
        glr::encoder enc(ep);
        auto submit = [&](glr::frame &&f) { enc.submit(std::move(f)); };
        std::vector<float> sound(1600 * 2, 0.25f); // a 30 fps frame's worth of samples

        std::vector<long> samples;
        for (int n = 0; n < frames; n++) {
            scene.draw(static_cast<uint64_t>(n));
            if (with_audio)
                enc.submit_audio(sound.data(), 1600, int64_t{1600} * n);
            ring.capture(scene.source(), n, submit);
            if (n % 500 == 499)
                samples.push_back(resident_kib());
        }
        ring.drain(submit);
        enc.finish();
        EXPECT_EQ(enc.stats().frames_encoded, static_cast<uint64_t>(frames));
        if (with_audio)
            EXPECT_EQ(enc.stats().audio_samples_encoded, uint64_t{1600} * frames);
        // After warm-up (pools filled, encoder at steady state), nothing may grow.
        long baseline = samples[1];
        for (size_t i = 2; i < samples.size(); i++)
            EXPECT_LT(samples[i] - baseline, 2048) << "resident size grew from " << baseline << " KiB to "
                                                   << samples[i] << " KiB by frame " << (i + 1) * 500;
        std::remove(path.c_str());
    }
}

} // namespace
