#include "decoder.hpp"
#include "pattern_scene.hpp"

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/imgutils.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>
}

#include <cmath>
#include <memory>

namespace glr_test {

decoded_video decode_file(const std::string &path)
{
    decoded_video out;
    AVFormatContext *fmt = nullptr;
    if (avformat_open_input(&fmt, path.c_str(), nullptr, nullptr) < 0) {
        out.error = "cannot open " + path;
        return out;
    }
    std::unique_ptr<AVFormatContext, void (*)(AVFormatContext *)> fmt_guard(
        fmt, [](AVFormatContext *f) { avformat_close_input(&f); });
    avformat_find_stream_info(fmt, nullptr);
    int index = av_find_best_stream(fmt, AVMEDIA_TYPE_VIDEO, -1, -1, nullptr, 0);
    if (index < 0) {
        out.error = "no video stream in " + path;
        return out;
    }
    AVStream *stream = fmt->streams[index];
    const AVCodec *codec = avcodec_find_decoder(stream->codecpar->codec_id);
    AVCodecContext *ctx = avcodec_alloc_context3(codec);
    std::unique_ptr<AVCodecContext, void (*)(AVCodecContext *)> ctx_guard(
        ctx, [](AVCodecContext *c) { avcodec_free_context(&c); });
    avcodec_parameters_to_context(ctx, stream->codecpar);
    if (avcodec_open2(ctx, codec, nullptr) < 0) {
        out.error = "cannot open the decoder";
        return out;
    }
    out.codec = codec->name;
    out.width = ctx->width;
    out.height = ctx->height;
    out.time_base_num = stream->time_base.num;
    out.time_base_den = stream->time_base.den;
    const char *space = av_color_space_name(ctx->colorspace);
    const char *range = av_color_range_name(ctx->color_range);
    out.color_space = space ? space : "";
    out.color_range = range ? range : "";
    const char *pix_fmt_name = av_get_pix_fmt_name(ctx->pix_fmt);
    out.pix_fmt = pix_fmt_name ? pix_fmt_name : "";

    AVPacket *packet = av_packet_alloc();
    AVFrame *frame = av_frame_alloc();
    SwsContext *sws = nullptr;
    auto drain = [&] {
        while (avcodec_receive_frame(ctx, frame) == 0) {
            // Exact for RGB sources (a swizzle); YUV is converted as the file is tagged.
            sws = sws_getCachedContext(sws, frame->width, frame->height,
                                       static_cast<AVPixelFormat>(frame->format), frame->width,
                                       frame->height, AV_PIX_FMT_RGBA, SWS_BICUBIC | SWS_ACCURATE_RND,
                                       nullptr, nullptr, nullptr);
            // Convert as the file is tagged (swscale assumes BT.601 otherwise), so a wrong
            // tag written by the encoder shows up as wrong colours.
            const AVPixFmtDescriptor *desc = av_pix_fmt_desc_get(static_cast<AVPixelFormat>(frame->format));
            if (!(desc->flags & AV_PIX_FMT_FLAG_RGB)) {
                int matrix = frame->colorspace == AVCOL_SPC_UNSPECIFIED ? SWS_CS_DEFAULT : frame->colorspace;
                sws_setColorspaceDetails(sws, sws_getCoefficients(matrix),
                                         frame->color_range == AVCOL_RANGE_JPEG,
                                         sws_getCoefficients(SWS_CS_DEFAULT), 1, 0, 1 << 16, 1 << 16);
            }
            decoded_frame d;
            d.pts = frame->best_effort_timestamp;
            d.rgba.resize(static_cast<size_t>(frame->width) * static_cast<size_t>(frame->height) * 4);
            uint8_t *dst[4] = {d.rgba.data()};
            int dst_stride[4] = {frame->width * 4};
            sws_scale(sws, frame->data, frame->linesize, 0, frame->height, dst, dst_stride);
            out.frames.push_back(std::move(d));
        }
    };
    while (av_read_frame(fmt, packet) >= 0) {
        if (packet->stream_index == index && avcodec_send_packet(ctx, packet) == 0)
            drain();
        av_packet_unref(packet);
    }
    avcodec_send_packet(ctx, nullptr);
    drain();
    sws_freeContext(sws);
    av_frame_free(&frame);
    av_packet_free(&packet);
    return out;
}

double psnr_rgb(const std::vector<uint8_t> &a, const std::vector<uint8_t> &b)
{
    double sum = 0;
    size_t count = 0;
    for (size_t i = 0; i + 3 < a.size() && i + 3 < b.size(); i += 4) {
        for (size_t c = 0; c < 3; c++) {
            double d = double(a[i + c]) - double(b[i + c]);
            sum += d * d;
            count++;
        }
    }
    if (count == 0 || sum == 0)
        return 100;
    return 10 * std::log10(255.0 * 255.0 / (sum / double(count)));
}

std::string check_decoded(const decoded_frame &d, uint64_t n, int width, int height, bool with_alpha)
{
    for (int y = 0; y < height; y++) {
        for (int x = 0; x < width; x++) {
            auto want = pattern(n, x, y);
            const uint8_t *got = &d.rgba[(static_cast<size_t>(y) * static_cast<size_t>(width) + static_cast<size_t>(x)) * 4];
            for (int c = 0; c < (with_alpha ? 4 : 3); c++)
                if (got[c] != want[static_cast<size_t>(c)])
                    return "frame " + std::to_string(n) + " pixel (" + std::to_string(x) + "," +
                           std::to_string(y) + ") channel " + std::to_string(c) + " is " +
                           std::to_string(got[c]) + ", expected " + std::to_string(want[static_cast<size_t>(c)]);
        }
    }
    return "";
}

} // namespace glr_test
