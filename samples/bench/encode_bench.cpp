// glreader-bench encode [--sizes 720p,1080p] [--presets ultrafast,slow] [--runs 3]
//                       [--frames 60] [--json FILE]
//
// In-process encoding (glr_encoder: libx264 to yuv420p) against the same frames written
// to an `ffmpeg -f rawvideo -i -` child with the same settings, the classic way (write()
// on the render thread) and through glreader's pipe mode, and libx264 alone on ready
// yuv420p frames (the ceiling), interleaved.
#include "common.hpp"
#include "modes.hpp"

#include "scene.hpp"

#include "glreader/encoder.hpp"
#include "glreader/pipe.hpp"

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavutil/log.h>
#include <libswscale/swscale.h>
}

#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace bench {

namespace {

struct encode_case {
    size_spec size;
    std::string preset;
    std::vector<double> in_process_fps, classic_pipe_fps, pipe_mode_fps, encoder_only_fps, load;
};

// Frames rendered through a ring into glr_encoder (libx264 -> yuv420p, null muxer).
double run_in_process(sample::scene &scene, const encode_case &c, int frames)
{
    glr::ring ring = make_ring(c.size.width, c.size.height, GLR_FORMAT_BGRA8);
    glr_encoder_params ep{};
    ep.width = c.size.width;
    ep.height = c.size.height;
    ep.format = GLR_FORMAT_BGRA8;
    ep.codec = "libx264";
    ep.pix_fmt = "yuv420p";
    std::string options = "preset=" + c.preset;
    ep.codec_options = options.c_str();
    ep.container = "null";
    ep.output = "/dev/null";
    auto start = clock_type::now();
    glr::encoder enc(ep);
    auto submit = [&](glr::frame &&f) { enc.submit(std::move(f)); };
    for (int i = 0; i < frames; i++) {
        scene.draw(i, i / 30.0, 1 / 30.0);
        ring.capture(glr::framebuffer_source(scene.fbo()), i, submit);
    }
    ring.drain(submit);
    enc.finish();
    return frames / (ms_since(start) / 1000);
}

// The same frames written to `ffmpeg -f rawvideo -i -` with the same encoder settings:
// classic (write() of each frame on the render thread, the usual way) or through
// glreader's pipe mode (the leases go to the child without a copy, on a writer thread).
double run_pipe(sample::scene &scene, const encode_case &c, int frames, bool classic)
{
    glr::ring ring = make_ring(c.size.width, c.size.height, GLR_FORMAT_BGRA8, classic ? GLR_FLIP_GPU : GLR_FLIP_STRIDE);
    auto start = clock_type::now();
    glr::pipe pipe;
    glr::ffmpeg_child child(child_params(c.size, GLR_FORMAT_BGRA8),
                            {"-loglevel", "error", "-c:v", "libx264", "-preset", c.preset, "-pix_fmt", "yuv420p",
                             "-f", "null", "-"});
    auto to_child = [&](glr::frame &&f) {
        if (classic) // top row first, contiguous: one write per frame
            write_all(child.stdin_fd(), f.data(), static_cast<size_t>(f.stride()) * static_cast<size_t>(f.height()));
        else
            pipe.write(child.stdin_fd(), std::move(f));
    };
    for (int i = 0; i < frames; i++) {
        scene.draw(i, i / 30.0, 1 / 30.0);
        ring.capture(glr::framebuffer_source(scene.fbo()), i, to_child);
    }
    ring.drain(to_child);
    pipe.close(child.stdin_fd());
    child.finish();
    return frames / (ms_since(start) / 1000);
}

// The ceiling: libx264 alone, fed frames already in yuv420p.
double run_encoder_only(const std::vector<AVFrame *> &yuv, const encode_case &c)
{
    const AVCodec *codec = avcodec_find_encoder_by_name("libx264");
    AVCodecContext *ctx = avcodec_alloc_context3(codec);
    ctx->width = c.size.width;
    ctx->height = c.size.height;
    ctx->pix_fmt = AV_PIX_FMT_YUV420P;
    ctx->time_base = {1, 30};
    ctx->framerate = {30, 1};
    AVDictionary *options = nullptr;
    av_dict_set(&options, "preset", c.preset.c_str(), 0);
    auto start = clock_type::now();
    int rc = avcodec_open2(ctx, codec, &options);
    av_dict_free(&options);
    if (rc < 0)
        throw std::runtime_error("cannot open libx264");
    AVPacket *packet = av_packet_alloc();
    auto drain = [&] {
        while (avcodec_receive_packet(ctx, packet) == 0)
            av_packet_unref(packet);
    };
    for (size_t i = 0; i < yuv.size(); i++) {
        yuv[i]->pts = static_cast<int64_t>(i);
        avcodec_send_frame(ctx, yuv[i]);
        drain();
    }
    avcodec_send_frame(ctx, nullptr);
    drain();
    double fps = static_cast<double>(yuv.size()) / (ms_since(start) / 1000);
    av_packet_free(&packet);
    avcodec_free_context(&ctx);
    return fps;
}

// yuv420p copies of the frames the scene renders, converted once, untimed.
std::vector<AVFrame *> render_yuv_frames(sample::scene &scene, const size_spec &size, int frames)
{
    glr::ring ring = make_ring(size.width, size.height, GLR_FORMAT_BGRA8);
    SwsContext *sws = sws_getContext(size.width, size.height, AV_PIX_FMT_BGRA, size.width, size.height,
                                     AV_PIX_FMT_YUV420P, SWS_BICUBIC, nullptr, nullptr, nullptr);
    std::vector<AVFrame *> out;
    auto convert = [&](glr::frame &&f) {
        AVFrame *yuv = av_frame_alloc();
        yuv->width = size.width;
        yuv->height = size.height;
        yuv->format = AV_PIX_FMT_YUV420P;
        av_frame_get_buffer(yuv, 0);
        const uint8_t *src[4] = {f.data()};
        int src_stride[4] = {static_cast<int>(f.stride())};
        sws_scale(sws, src, src_stride, 0, size.height, yuv->data, yuv->linesize);
        out.push_back(yuv);
    };
    for (int i = 0; i < frames; i++) {
        scene.draw(i, i / 30.0, 1 / 30.0);
        ring.capture(glr::framebuffer_source(scene.fbo()), i, convert);
    }
    ring.drain(convert);
    sws_freeContext(sws);
    return out;
}

} // namespace

int bench_encode(int argc, char **argv)
{
    std::string presets = "ultrafast,slow";
    options o = parse_options(argc, argv, {"720p,1080p", "", 3, 60}, [&](const std::string &name, const std::string &v) {
        return name == "--presets" && (presets = v, true);
    });
    const std::string &sizes = o.sizes, &json = o.json;
    const int runs = o.runs, frames = o.frames;
    if (std::system("ffmpeg -version >/dev/null 2>&1") != 0)
        throw std::runtime_error("no ffmpeg on PATH to compare with (Debian: apt-get install ffmpeg)");
    av_log_set_level(AV_LOG_ERROR);

    glr::context ctx;
    std::vector<encode_case> cases;
    std::vector<std::string> preset_list = split(presets);
    for (const size_spec &s : parse_sizes(sizes))
        for (const std::string &p : preset_list)
            cases.push_back({s, p, {}, {}, {}, {}});
    std::fprintf(stderr, "glreader-bench encode on %s: %d runs x %d frames, interleaved\n",
                 ctx.renderer().c_str(), runs, frames);

    load_meter load;
    for (int run = 0; run < runs; run++) {
        for (encode_case &c : cases) {
            sample::scene scene(c.size.width, c.size.height, {cheap_scene_source, "", "bench scene"});
            std::vector<AVFrame *> yuv = render_yuv_frames(scene, c.size, frames);
            load.other_cpu_seconds();
            c.in_process_fps.push_back(run_in_process(scene, c, frames));
            c.classic_pipe_fps.push_back(run_pipe(scene, c, frames, true));
            c.pipe_mode_fps.push_back(run_pipe(scene, c, frames, false));
            c.encoder_only_fps.push_back(run_encoder_only(yuv, c));
            c.load.push_back(load.other_cpu_seconds());
            for (AVFrame *f : yuv)
                av_frame_free(&f);
        }
        std::fprintf(stderr, "  run %d/%d done\n", run + 1, runs);
    }

    std::printf("\nglreader-bench encode: libx264 -> yuv420p from BGRA frames, %s, %d runs x %d frames\n",
                ctx.renderer().c_str(), runs, frames);
    std::printf("fps as min / median / max of the runs; every path includes rendering a cheap scene and "
                "reading it back; other CPU s = CPU time of processes other than this one and its ffmpeg "
                "children\n\n");
    std::printf("| size | preset | in-process | classic pipe (write) | glreader pipe mode | in-process / classic "
                "(median) | in-process / pipe mode | encoder only (ceiling) | other CPU s (max) |\n"
                "|---|---|---|---|---|---|---|---|---|\n");
    for (const encode_case &c : cases) {
        summary a = summarize(c.in_process_fps), b = summarize(c.classic_pipe_fps), p = summarize(c.pipe_mode_fps),
                e = summarize(c.encoder_only_fps), l = summarize(c.load);
        std::printf("| %s | %s | %s | %s | %s | %.2fx | %.2fx | %s | %.2f |\n", c.size.name.c_str(), c.preset.c_str(),
                    min_median_max(a).c_str(), min_median_max(b).c_str(), min_median_max(p).c_str(),
                    a.median / b.median, a.median / p.median, min_median_max(e).c_str(), l.max);
    }
    std::vector<std::string> items;
    for (const encode_case &c : cases)
        items.push_back("{\"size\": \"" + c.size.name + "\", \"preset\": \"" + c.preset +
                        "\",\n     \"in_process\": " + json_summary(c.in_process_fps) +
                        ",\n     \"classic_pipe\": " + json_summary(c.classic_pipe_fps) +
                        ",\n     \"pipe_mode\": " + json_summary(c.pipe_mode_fps) +
                        ",\n     \"encoder_only\": " + json_summary(c.encoder_only_fps) +
                        ",\n     \"other_cpu_seconds\": " + json_summary(c.load) + "}");
    write_json(json, "encode", ctx.renderer(), runs,
               "\"frames_per_run\": " + std::to_string(frames) + ", \"unit\": \"fps\"", items);
    return 0;
}

} // namespace bench
