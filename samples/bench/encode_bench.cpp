// glreader-bench encode [--sizes 720p,1080p] [--presets ultrafast,slow] [--runs 3]
//                       [--frames 60] [--json FILE]
//
// libx264 to yuv420p, every way glreader can feed it, interleaved: in-process from BGRA
// frames (libswscale converts on the CPU) and from YUV converted on the GPU (yuv420p
// leases encoded without a copy); an `ffmpeg -f rawvideo -i -` child with the same
// settings, fed the classic way (write() on the render thread), through glreader's pipe
// mode with BGRA, and with NV12 converted on the GPU; and libx264 alone on ready yuv420p
// frames, the ceiling. Each gives fps, CPU milliseconds per frame over every process
// (this one, its GL driver's threads, the ffmpeg children) and the bytes read back.
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

enum class method { in_process_rgba, in_process_gpu_yuv, classic_pipe, pipe_mode_rgba, pipe_mode_gpu_yuv, encoder_only };
const method methods[] = {method::in_process_rgba,  method::in_process_gpu_yuv, method::classic_pipe,
                          method::pipe_mode_rgba,   method::pipe_mode_gpu_yuv,  method::encoder_only};

const char *method_name(method m)
{
    switch (m) {
    case method::in_process_rgba: return "in-process, BGRA + swscale";
    case method::in_process_gpu_yuv: return "in-process, GPU yuv420p";
    case method::classic_pipe: return "classic pipe (write), BGRA";
    case method::pipe_mode_rgba: return "glreader pipe mode, BGRA";
    case method::pipe_mode_gpu_yuv: return "glreader pipe mode, GPU nv12";
    case method::encoder_only: return "libx264 alone (ceiling)";
    }
    return "?";
}

const char *method_key(method m)
{
    switch (m) {
    case method::in_process_rgba: return "in_process_rgba";
    case method::in_process_gpu_yuv: return "in_process_gpu_yuv";
    case method::classic_pipe: return "classic_pipe";
    case method::pipe_mode_rgba: return "pipe_mode_rgba";
    case method::pipe_mode_gpu_yuv: return "pipe_mode_gpu_yuv";
    case method::encoder_only: return "encoder_only";
    }
    return "?";
}

// The format each method reads back (0: none, the frames are ready).
glr_format readback_format(method m)
{
    switch (m) {
    case method::in_process_gpu_yuv: return GLR_FORMAT_I420;
    case method::pipe_mode_gpu_yuv: return GLR_FORMAT_NV12;
    case method::encoder_only: return static_cast<glr_format>(0);
    default: return GLR_FORMAT_BGRA8;
    }
}

struct encode_case {
    size_spec size;
    std::string preset;
    std::vector<std::vector<double>> fps, cpu_ms; // per method, per run
    std::vector<double> load;
};

class runner {
public:
    runner(sample::scene &scene, const encode_case &c, int frames) : scene_(scene), c_(c), frames_(frames) {}

    std::pair<int, double> run(method m, const std::vector<AVFrame *> &yuv)
    {
        auto start = clock_type::now();
        switch (m) {
        case method::in_process_rgba: in_process(GLR_FORMAT_BGRA8); break;
        case method::in_process_gpu_yuv: in_process(GLR_FORMAT_I420); break;
        case method::classic_pipe: pipe(GLR_FORMAT_BGRA8, true); break;
        case method::pipe_mode_rgba: pipe(GLR_FORMAT_BGRA8, false); break;
        case method::pipe_mode_gpu_yuv: pipe(GLR_FORMAT_NV12, false); break;
        case method::encoder_only: encoder_only(yuv); break;
        }
        return {frames_, ms_since(start) / 1000};
    }

private:
    // Frames rendered through a ring into glr_encoder (libx264 -> yuv420p, null muxer).
    void in_process(glr_format format)
    {
        glr::ring ring = make_ring(c_.size.width, c_.size.height, format);
        glr_encoder_params ep{};
        ep.width = c_.size.width;
        ep.height = c_.size.height;
        ep.format = format;
        ep.codec = "libx264";
        ep.pix_fmt = "yuv420p";
        std::string options = "preset=" + c_.preset;
        ep.codec_options = options.c_str();
        ep.container = "null";
        ep.output = "/dev/null";
        glr::encoder enc(ep);
        auto submit = [&](glr::frame &&f) { enc.submit(std::move(f)); };
        for (int i = 0; i < frames_; i++) {
            scene_.draw(i, i / 30.0, 1 / 30.0);
            ring.capture(glr::framebuffer_source(scene_.fbo()), i, submit);
        }
        ring.drain(submit);
        enc.finish();
        glr_encoder_stats s = enc.stats();
        if (format != GLR_FORMAT_BGRA8 && s.zero_copy_frames + s.copied_frames != static_cast<uint64_t>(frames_))
            throw std::runtime_error("the GPU yuv420p frames were converted on the CPU");
    }

    // The same frames written to `ffmpeg -f rawvideo -i -` with the same encoder settings:
    // classic (write() of each frame on the render thread, the usual way) or through
    // glreader's pipe mode (the leases go to the child without a copy, on a writer thread).
    void pipe(glr_format format, bool classic)
    {
        glr::ring ring = make_ring(c_.size.width, c_.size.height, format, classic ? GLR_FLIP_GPU : GLR_FLIP_STRIDE);
        glr::pipe pipe;
        glr::ffmpeg_child child(child_params(c_.size, format),
                                {"-loglevel", "error", "-c:v", "libx264", "-preset", c_.preset, "-pix_fmt", "yuv420p",
                                 "-f", "null", "-"});
        auto to_child = [&](glr::frame &&f) {
            if (classic) // top row first, contiguous: one write per frame
                write_all(child.stdin_fd(), f.data(), static_cast<size_t>(f.stride()) * static_cast<size_t>(f.height()));
            else
                pipe.write(child.stdin_fd(), std::move(f));
        };
        for (int i = 0; i < frames_; i++) {
            scene_.draw(i, i / 30.0, 1 / 30.0);
            ring.capture(glr::framebuffer_source(scene_.fbo()), i, to_child);
        }
        ring.drain(to_child);
        pipe.close(child.stdin_fd());
        child.finish();
    }

    // The ceiling: libx264 alone, fed frames already in yuv420p, threads as glr_encoder's.
    void encoder_only(const std::vector<AVFrame *> &yuv)
    {
        const AVCodec *codec = avcodec_find_encoder_by_name("libx264");
        AVCodecContext *ctx = avcodec_alloc_context3(codec);
        ctx->width = c_.size.width;
        ctx->height = c_.size.height;
        ctx->pix_fmt = AV_PIX_FMT_YUV420P;
        ctx->time_base = {1, 30};
        ctx->framerate = {30, 1};
        ctx->thread_count = 0;
        AVDictionary *options = nullptr;
        av_dict_set(&options, "preset", c_.preset.c_str(), 0);
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
        av_packet_free(&packet);
        avcodec_free_context(&ctx);
    }

    sample::scene &scene_;
    const encode_case &c_;
    int frames_;
};

// yuv420p copies of the frames the scene renders, converted once, untimed.
std::vector<AVFrame *> render_yuv_frames(sample::scene &scene, const size_spec &size, int frames)
{
    glr::ring ring = make_ring(size.width, size.height, GLR_FORMAT_I420);
    std::vector<AVFrame *> out;
    auto copy = [&](glr::frame &&f) {
        AVFrame *yuv = av_frame_alloc();
        yuv->width = size.width;
        yuv->height = size.height;
        yuv->format = AV_PIX_FMT_YUV420P;
        av_frame_get_buffer(yuv, 0);
        for (int p = 0; p < 3; p++)
            for (int y = 0; y < glr_format_plane_rows(f.format(), p, size.height); y++)
                std::copy_n(f.row(y, p), glr_format_plane_row_bytes(f.format(), p, size.width),
                            yuv->data[p] + static_cast<ptrdiff_t>(y) * yuv->linesize[p]);
        out.push_back(yuv);
    };
    for (int i = 0; i < frames; i++) {
        scene.draw(i, i / 30.0, 1 / 30.0);
        ring.capture(glr::framebuffer_source(scene.fbo()), i, copy);
    }
    ring.drain(copy);
    return out;
}

size_t readback_bytes(method m, const size_spec &size)
{
    glr_format f = readback_format(m);
    return f ? glr_format_frame_bytes(f, size.width, size.height) : 0;
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
    const size_t method_count = std::size(methods);
    for (const size_spec &s : parse_sizes(sizes))
        for (const std::string &p : split(presets))
            cases.push_back({s, p, std::vector<std::vector<double>>(method_count),
                             std::vector<std::vector<double>>(method_count), {}});
    std::fprintf(stderr, "glreader-bench encode on %s: %d runs x %d frames, interleaved\n", ctx.renderer().c_str(),
                 runs, frames);

    load_meter load;
    for (int run = 0; run < runs; run++) {
        for (encode_case &c : cases) {
            sample::scene scene(c.size.width, c.size.height, {cheap_scene_source, "", "bench scene"});
            std::vector<AVFrame *> yuv = render_yuv_frames(scene, c.size, frames);
            runner r(scene, c, frames);
            load.other_cpu_seconds();
            for (size_t m = 0; m < method_count; m++) {
                run_cost cost = measure([&] { return r.run(methods[m], yuv); });
                c.fps[m].push_back(cost.fps);
                c.cpu_ms[m].push_back(cost.cpu_ms_per_frame);
            }
            c.load.push_back(load.other_cpu_seconds());
            for (AVFrame *f : yuv)
                av_frame_free(&f);
        }
        std::fprintf(stderr, "  run %d/%d done\n", run + 1, runs);
    }

    std::printf("\nglreader-bench encode: libx264 -> yuv420p, %s, %d runs x %d frames\n", ctx.renderer().c_str(), runs,
                frames);
    std::printf("fps as min / median / max of the runs; CPU ms per frame (median) over every process (this one "
                "with its GL driver's threads, and the ffmpeg children); every path but the ceiling renders a "
                "cheap scene and reads it back; other CPU s = CPU time of unrelated processes during the case\n\n");
    std::printf("| size | preset | method | fps | CPU ms/frame | read back/frame | fps vs ceiling | other CPU s |\n"
                "|---|---|---|---|---|---|---|---|\n");
    for (const encode_case &c : cases) {
        double ceiling = summarize(c.fps[method_count - 1]).median;
        for (size_t m = 0; m < method_count; m++) {
            summary f = summarize(c.fps[m]), cpu = summarize(c.cpu_ms[m]);
            size_t bytes = readback_bytes(methods[m], c.size);
            std::printf("| %s | %s | %s | %s | %.1f | %s | %.2fx | %.2f |\n", c.size.name.c_str(), c.preset.c_str(),
                        method_name(methods[m]), min_median_max(f).c_str(), cpu.median,
                        bytes ? (std::to_string(bytes / 1024) + " KiB").c_str() : "-", f.median / ceiling,
                        summarize(c.load).max);
        }
    }
    std::vector<std::string> items;
    for (const encode_case &c : cases) {
        std::string item = "{\"size\": \"" + c.size.name + "\", \"preset\": \"" + c.preset +
                           "\", \"other_cpu_seconds\": " + json_summary(c.load);
        for (size_t m = 0; m < method_count; m++)
            item += ",\n     \"" + std::string(method_key(methods[m])) + "\": {\"fps\": " + json_summary(c.fps[m]) +
                    ", \"cpu_ms_per_frame\": " + json_summary(c.cpu_ms[m]) +
                    ", \"readback_bytes_per_frame\": " + std::to_string(readback_bytes(methods[m], c.size)) + "}";
        items.push_back(item + "}");
    }
    write_json(json, "encode", ctx.renderer(), runs, "\"frames_per_run\": " + std::to_string(frames), items);
    return 0;
}

} // namespace bench
