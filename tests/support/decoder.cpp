#include "decoder.hpp"
#include "pattern_scene.hpp"

#include <gtest/gtest.h>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/hwcontext.h>
#include <libavutil/imgutils.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>
}

#include <cmath>
#include <memory>

namespace glr_test {

namespace {

// The code values of a decoded YUV frame, whatever its layout (planar, interleaved, 8 to
// 16 bits), from the pixel format's own description.
yuv_planes yuv_planes_of(const AVFrame *frame, const AVPixFmtDescriptor *desc)
{
    yuv_planes out;
    out.width = frame->width;
    out.height = frame->height;
    out.chroma_width = -((-frame->width) >> desc->log2_chroma_w);
    out.chroma_height = -((-frame->height) >> desc->log2_chroma_h);
    auto read = [&](int c, int x, int y) {
        const AVComponentDescriptor &comp = desc->comp[c];
        const uint8_t *p = frame->data[comp.plane] + static_cast<ptrdiff_t>(y) * frame->linesize[comp.plane] +
                           x * comp.step + comp.offset;
        int value = comp.depth > 8 ? (p[0] | p[1] << 8) : p[0];
        return (value >> comp.shift) & ((1 << comp.depth) - 1);
    };
    for (int y = 0; y < out.height; y++)
        for (int x = 0; x < out.width; x++)
            out.y.push_back(read(0, x, y));
    for (int y = 0; y < out.chroma_height; y++)
        for (int x = 0; x < out.chroma_width; x++) {
            out.u.push_back(read(1, x, y));
            out.v.push_back(read(2, x, y));
        }
    return out;
}

} // namespace

decoded_video decode_file(const std::string &path, const char *decoder)
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
    const AVCodec *codec =
        decoder ? avcodec_find_decoder_by_name(decoder) : avcodec_find_decoder(stream->codecpar->codec_id);
    if (!codec) {
        out.error = std::string("no decoder ") + (decoder ? decoder : "for the stream");
        return out;
    }
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
    const char *primaries = av_color_primaries_name(ctx->color_primaries);
    const char *trc = av_color_transfer_name(ctx->color_trc);
    const char *chroma = av_chroma_location_name(ctx->chroma_sample_location);
    out.color_space = space ? space : "";
    out.color_range = range ? range : "";
    out.color_primaries = primaries ? primaries : "";
    out.color_trc = trc ? trc : "";
    out.chroma_location = chroma ? chroma : "";
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
            if (!(desc->flags & AV_PIX_FMT_FLAG_RGB) && desc->nb_components >= 3)
                d.yuv = yuv_planes_of(frame, desc);
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

void expect_pattern_video(const std::string &path, int frames, int width, int height, bool with_alpha)
{
    decoded_video v = decode_file(path);
    ASSERT_EQ(v.error, "");
    ASSERT_EQ(v.frames.size(), static_cast<size_t>(frames));
    for (int n = 0; n < frames; n++)
        ASSERT_EQ(check_decoded(v.frames[static_cast<size_t>(n)], static_cast<uint64_t>(n), width, height, with_alpha), "")
            << "frame " << n;
}

std::vector<std::vector<uint8_t>> hw_planes_in_memory(const AVFrame *frame, glr_format format, int width, int height)
{
    std::unique_ptr<AVFrame, void (*)(AVFrame *)> sw(av_frame_alloc(), [](AVFrame *f) { av_frame_free(&f); });
    int err = av_hwframe_transfer_data(sw.get(), frame, 0);
    EXPECT_EQ(err, 0) << "av_hwframe_transfer_data";
    std::vector<std::vector<uint8_t>> planes;
    if (err < 0)
        return planes;
    for (int p = 0; p < glr_format_get_info(format)->planes; p++) {
        int rows = glr_format_plane_rows(format, p, height);
        size_t row_bytes = glr_format_plane_row_bytes(format, p, width);
        std::vector<uint8_t> bytes;
        for (int r = 0; r < rows; r++) {
            const uint8_t *row = sw->data[p] + static_cast<ptrdiff_t>(r) * sw->linesize[p];
            bytes.insert(bytes.end(), row, row + row_bytes);
        }
        planes.push_back(std::move(bytes));
    }
    return planes;
}

} // namespace glr_test
