#include "audio_files.hpp"

#include "gl_test.hpp"
#include "process.hpp"

extern "C" {
#include <libavformat/avformat.h>
}

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>

namespace glr_test {

namespace {

void put(std::ofstream &out, uint32_t value, int bytes)
{
    for (int i = 0; i < bytes; i++)
        out.put(static_cast<char>((value >> (8 * i)) & 0xff));
}

} // namespace

std::string write_wav(const std::string &name, int sample_rate, int channels, const std::vector<int16_t> &samples)
{
    std::string path = scratch_path(name);
    std::ofstream out(path, std::ios::binary);
    auto data_bytes = static_cast<uint32_t>(samples.size() * 2);
    out.write("RIFF", 4);
    put(out, 36 + data_bytes, 4);
    out.write("WAVEfmt ", 8);
    put(out, 16, 4);
    put(out, 1, 2); // PCM
    put(out, static_cast<uint32_t>(channels), 2);
    put(out, static_cast<uint32_t>(sample_rate), 4);
    put(out, static_cast<uint32_t>(sample_rate * channels * 2), 4);
    put(out, static_cast<uint32_t>(channels * 2), 2);
    put(out, 16, 2);
    out.write("data", 4);
    put(out, data_bytes, 4);
    for (int16_t s : samples)
        put(out, static_cast<uint16_t>(s), 2);
    return path;
}

std::vector<int16_t> decode_audio(const std::string &path, int sample_rate, int channels)
{
    std::string raw = scratch_path("decoded_audio.raw"), log = scratch_path("decoded_audio.txt");
    int rc = wait_exit(spawn("ffmpeg", {"-v", "error", "-y", "-i", path, "-map", "0:a:0", "-f", "s16le", "-ac",
                                        std::to_string(channels), "-ar", std::to_string(sample_rate), raw},
                             log));
    std::vector<int16_t> out;
    if (rc != 0)
        return out;
    std::ifstream in(raw, std::ios::binary);
    std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (size_t i = 0; i + 1 < bytes.size(); i += 2)
        out.push_back(static_cast<int16_t>(static_cast<uint8_t>(bytes[i]) | (static_cast<uint8_t>(bytes[i + 1]) << 8)));
    std::remove(raw.c_str());
    return out;
}

double played_priming_seconds(const std::string &path)
{
    if (avformat_version() >= AV_VERSION_INT(61, 0, 0))
        return 0;
    AVFormatContext *format = nullptr;
    if (avformat_open_input(&format, path.c_str(), nullptr, nullptr) < 0)
        return 0;
    double seconds = 0;
    int index = av_find_best_stream(format, AVMEDIA_TYPE_AUDIO, -1, -1, nullptr, 0);
    if (index >= 0 && std::strstr(format->iformat->name, "matroska")) {
        const AVCodecParameters *audio = format->streams[index]->codecpar;
        if (audio->codec_id == AV_CODEC_ID_AAC && audio->sample_rate > 0)
            seconds = 1024.0 / audio->sample_rate;
    }
    avformat_close_input(&format);
    return seconds;
}

} // namespace glr_test
