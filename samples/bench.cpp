// glreader-bench: side-by-side measurements, interleaved in one run so that every ratio
// compares numbers taken under the same machine conditions.
//
//   glreader-bench ring [--sizes 720p,1080p,2160p] [--runs 5] [--frames 60] [--json FILE]
//
// ring: per frame, at each size, (1) a memcpy of one frame between two warm buffers (the
// floor for a software rasterizer), (2) a synchronous glReadPixels into client memory,
// (3) the ring: capture + acquire + release. Every cell is measured `runs` times, the
// methods interleaved; each cell reports min / median / max of its per-run means. Then
// the render-thread stall (time inside capture) while a consumer thread reads every frame.
// Each run also records the machine's load: CPU time spent by other processes.
#include "frame_worker.hpp"
#include "scene.hpp"

#include "glreader/encoder.hpp"
#include "glreader/glreader.hpp"

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavutil/log.h>
#include <libswscale/swscale.h>
}

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

using clock_type = std::chrono::steady_clock;

double ms_since(clock_type::time_point start)
{
    return std::chrono::duration<double, std::milli>(clock_type::now() - start).count();
}

// CPU time used by every process but this one (and its children) since the last call, in
// seconds: the benchmark's measure of how loaded the machine was while it ran.
class load_meter {
public:
    load_meter() { sample(); }
    double other_cpu_seconds()
    {
        double total = total_, self = self_;
        sample();
        return std::max(0.0, (total_ - total) - (self_ - self));
    }

private:
    void sample()
    {
        double ticks = static_cast<double>(sysconf(_SC_CLK_TCK));
        std::ifstream stat("/proc/stat");
        std::string cpu;
        unsigned long long user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0,
                           steal = 0;
        stat >> cpu >> user >> nice >> system >> idle >> iowait >> irq >> softirq >> steal;
        total_ = static_cast<double>(user + nice + system + irq + softirq + steal) / ticks;
        std::ifstream self_stat("/proc/self/stat");
        std::string line;
        std::getline(self_stat, line);
        // Fields after the command name (which may contain spaces) start after ')'.
        std::istringstream fields(line.substr(line.rfind(')') + 2));
        std::string skip;
        for (int i = 3; i < 14; i++)
            fields >> skip;
        // Our own time and that of children we waited for (the ffmpeg child of the pipe runs).
        unsigned long long utime = 0, stime = 0, cutime = 0, cstime = 0;
        fields >> utime >> stime >> cutime >> cstime;
        self_ = static_cast<double>(utime + stime + cutime + cstime) / ticks;
    }
    double total_ = 0, self_ = 0;
};

struct size_spec {
    std::string name;
    int width, height;
};

struct summary {
    double min, median, max;
};

summary summarize(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return {v.front(), v[v.size() / 2], v.back()};
}

struct ring_results {
    size_spec size;
    std::vector<double> memcpy_ms, sync_ms, ring_ms;
    std::vector<double> stall_p50, stall_p99, load;
};

// One measurement of each method at one size: per-frame means in milliseconds.
void measure_once(sample::scene &scene, glr::ring &ring, glr::ring &stall_ring, ring_results &r, int frames,
                  std::vector<uint8_t> &a, std::vector<uint8_t> &b, std::vector<uint8_t> &client,
                  load_meter &load)
{
    const GladGLContext &gl = scene.gl();
    const int w = r.size.width, h = r.size.height;
    load.other_cpu_seconds();

    auto start = clock_type::now();
    for (int i = 0; i < frames; i++) {
        // Alternate the direction so neither buffer stays hot in cache for the next copy.
        if (i & 1)
            std::memcpy(b.data(), a.data(), a.size());
        else
            std::memcpy(a.data(), b.data(), a.size());
    }
    r.memcpy_ms.push_back(ms_since(start) / frames);

    // Rendering is not what is measured: each frame is drawn and finished first.
    double sync_total = 0;
    gl.BindFramebuffer(GL_READ_FRAMEBUFFER, scene.fbo());
    gl.PixelStorei(GL_PACK_ALIGNMENT, 4);
    for (int i = 0; i < frames; i++) {
        scene.draw(i, i / 60.0, 1 / 60.0);
        gl.Finish();
        auto t = clock_type::now();
        gl.ReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, client.data());
        sync_total += ms_since(t);
    }
    r.sync_ms.push_back(sync_total / frames);

    double ring_total = 0;
    glr_source source = glr::framebuffer_source(scene.fbo());
    for (int i = 0; i < frames; i++) {
        scene.draw(i, i / 60.0, 1 / 60.0);
        gl.Finish();
        auto t = clock_type::now();
        ring.try_capture(source, i);
        ring.acquire(UINT64_MAX); // the frame is released as the optional goes away
        ring_total += ms_since(t);
    }
    r.ring_ms.push_back(ring_total / frames);

    // Stall: the render thread's time blocked in capture while a consumer thread reads
    // every frame. Timed here per call, so each run has its own percentiles.
    {
        // Reads every byte of each frame, as an encoder would, then releases it.
        std::vector<uint8_t> scratch(static_cast<size_t>(w) * 4);
        sample::frame_worker consumer([&](const glr::frame &f) {
            for (int y = 0; y < f.height(); y++)
                std::memcpy(scratch.data(), f.row(y), scratch.size());
        });
        auto hand_off = [&](glr::frame &&f) { consumer.push(std::move(f)); };
        std::vector<double> stalls;
        for (int i = 0; i < frames; i++) {
            scene.draw(i, i / 60.0, 1 / 60.0);
            gl.Finish();
            for (;;) {
                auto t = clock_type::now();
                bool captured = stall_ring.try_capture(source, i);
                stalls.push_back(ms_since(t));
                if (captured)
                    break;
                if (auto f = stall_ring.acquire(UINT64_MAX))
                    hand_off(std::move(*f));
            }
            while (auto f = stall_ring.acquire(0))
                hand_off(std::move(*f));
        }
        stall_ring.drain(hand_off);
        consumer.finish();
        std::sort(stalls.begin(), stalls.end());
        r.stall_p50.push_back(stalls[stalls.size() / 2]);
        r.stall_p99.push_back(stalls[std::min(stalls.size() - 1, stalls.size() * 99 / 100)]);
    }
    r.load.push_back(load.other_cpu_seconds());
}

std::vector<size_spec> parse_sizes(const std::string &list)
{
    std::vector<size_spec> out;
    std::stringstream in(list);
    std::string item;
    while (std::getline(in, item, ',')) {
        if (item == "720p") out.push_back({item, 1280, 720});
        else if (item == "1080p") out.push_back({item, 1920, 1080});
        else if (item == "2160p") out.push_back({item, 3840, 2160});
        else {
            int w = 0, h = 0;
            if (std::sscanf(item.c_str(), "%dx%d", &w, &h) != 2 || w <= 0 || h <= 0)
                throw std::runtime_error("unknown size " + item + " (use 720p, 1080p, 2160p or WxH)");
            out.push_back({item, w, h});
        }
    }
    return out;
}

std::string json_array(const std::vector<double> &v)
{
    std::string out = "[";
    for (size_t i = 0; i < v.size(); i++)
        out += (i ? ", " : "") + std::to_string(v[i]);
    return out + "]";
}

std::string json_summary(const std::vector<double> &v)
{
    summary s = summarize(v);
    char text[256];
    std::snprintf(text, sizeof text, "{\"min\": %.4f, \"median\": %.4f, \"max\": %.4f, \"runs\": %s}",
                  s.min, s.median, s.max, json_array(v).c_str());
    return text;
}

// Options every mode takes; `presets` only where the mode names it as an extra.
struct bench_options {
    std::string sizes, presets, json;
    int runs, frames;
};

bench_options parse_bench_options(int argc, char **argv, bench_options o, bool takes_presets)
{
    for (int i = 0; i < argc; i++) {
        std::string a = argv[i];
        if (i + 1 >= argc)
            throw std::runtime_error("unknown option or missing value: " + a);
        if (a == "--sizes") o.sizes = argv[++i];
        else if (a == "--presets" && takes_presets) o.presets = argv[++i];
        else if (a == "--runs") o.runs = std::max(1, std::atoi(argv[++i]));
        else if (a == "--frames") o.frames = std::max(1, std::atoi(argv[++i]));
        else if (a == "--json") o.json = argv[++i];
        else throw std::runtime_error("unknown option " + a);
    }
    return o;
}

// A BGRA ring of the given size, as both modes read frames back.
glr::ring bgra_ring(int width, int height, glr_flip flip = GLR_FLIP_STRIDE)
{
    glr_ring_params rp{};
    rp.width = width;
    rp.height = height;
    rp.format = GLR_FORMAT_BGRA8;
    rp.flip = flip;
    return glr::ring(rp);
}

int bench_ring(int argc, char **argv)
{
    bench_options o = parse_bench_options(argc, argv, {"720p,1080p,2160p", "", "", 5, 60}, false);
    const std::string &sizes = o.sizes, &json = o.json;
    const int runs = o.runs, frames = o.frames;

    glr::context ctx;
    std::vector<ring_results> results;
    for (const size_spec &s : parse_sizes(sizes))
        results.push_back({s, {}, {}, {}, {}, {}, {}});
    std::fprintf(stderr, "glreader-bench ring on %s: %d runs x %d frames per cell, interleaved\n",
                 ctx.renderer().c_str(), runs, frames);

    load_meter load;
    struct per_size {
        std::unique_ptr<sample::scene> scene;
        std::unique_ptr<glr::ring> ring, stall_ring;
        std::vector<uint8_t> a, b, client;
    };
    std::vector<per_size> state;
    for (const ring_results &r : results) {
        per_size p;
        size_t bytes = static_cast<size_t>(r.size.width) * static_cast<size_t>(r.size.height) * 4;
        p.scene = std::make_unique<sample::scene>(r.size.width, r.size.height);
        glr_ring_params params{};
        params.width = r.size.width;
        params.height = r.size.height;
        p.ring = std::make_unique<glr::ring>(params);
        p.stall_ring = std::make_unique<glr::ring>(params);
        // Filled once so every page is mapped before anything is timed.
        p.a.assign(bytes, 1);
        p.b.assign(bytes, 2);
        p.client.assign(bytes, 3);
        state.push_back(std::move(p));
    }
    for (int run = 0; run < runs; run++) {
        for (size_t i = 0; i < results.size(); i++) {
            per_size &p = state[i];
            measure_once(*p.scene, *p.ring, *p.stall_ring, results[i], frames, p.a, p.b, p.client, load);
        }
        std::fprintf(stderr, "  run %d/%d done\n", run + 1, runs);
    }

    std::printf("\nglreader-bench ring: %s, RGBA8, %d runs x %d frames, interleaved\n",
                ctx.renderer().c_str(), runs, frames);
    std::printf("ms per frame as min / median / max of the runs; load = CPU seconds used by other "
                "processes during a run\n\n");
    std::printf("| size | memcpy | glReadPixels (sync) | ring (capture+acquire+release) | ring / sync "
                "(median) | stall p50 | stall p99 | load (max) |\n");
    std::printf("|---|---|---|---|---|---|---|---|\n");
    for (const ring_results &r : results) {
        summary m = summarize(r.memcpy_ms), s = summarize(r.sync_ms), g = summarize(r.ring_ms);
        summary p50 = summarize(r.stall_p50), p99 = summarize(r.stall_p99), l = summarize(r.load);
        std::printf("| %s | %.3f / %.3f / %.3f | %.3f / %.3f / %.3f | %.3f / %.3f / %.3f | %.2fx | "
                    "%.3f | %.3f | %.2f s |\n",
                    r.size.name.c_str(), m.min, m.median, m.max, s.min, s.median, s.max, g.min,
                    g.median, g.max, g.median / s.median, p50.median, p99.median, l.max);
    }

    if (!json.empty()) {
        std::ofstream out(json);
        if (!out)
            throw std::runtime_error("cannot write " + json);
        out << "{\n  \"bench\": \"ring\",\n  \"renderer\": \"" << ctx.renderer() << "\",\n"
            << "  \"cpus\": " << std::thread::hardware_concurrency() << ",\n  \"runs\": " << runs
            << ",\n  \"frames_per_run\": " << frames << ",\n  \"unit\": \"ms per frame\",\n"
            << "  \"results\": [\n";
        for (size_t i = 0; i < results.size(); i++) {
            const ring_results &r = results[i];
            out << "    {\"size\": \"" << r.size.name << "\", \"width\": " << r.size.width
                << ", \"height\": " << r.size.height << ",\n     \"memcpy\": " << json_summary(r.memcpy_ms)
                << ",\n     \"sync_readpixels\": " << json_summary(r.sync_ms)
                << ",\n     \"ring\": " << json_summary(r.ring_ms)
                << ",\n     \"stall_p50\": " << json_summary(r.stall_p50)
                << ",\n     \"stall_p99\": " << json_summary(r.stall_p99)
                << ",\n     \"other_cpu_seconds\": " << json_summary(r.load) << "}"
                << (i + 1 < results.size() ? "," : "") << "\n";
        }
        out << "  ]\n}\n";
        if (!out)
            throw std::runtime_error("cannot write " + json);
        std::printf("\nwrote %s\n", json.c_str());
    }
    return 0;
}


// ---- encode: in-process encoding against the same frames piped to an ffmpeg child ----

// A cheap scene, so that rendering (the same on both sides) weighs little next to encoding.
const char *bench_scene_source = R"(void mainImage(out vec4 c, in vec2 p) {
    vec2 uv = p / iResolution.xy;
    c = vec4(uv, 0.5 + 0.5 * sin(iTime * 3.0 + uv.x * 10.0), 1.0);
}
)";

struct encode_case {
    size_spec size;
    std::string preset;
    std::vector<double> in_process_fps, pipe_fps, encoder_only_fps, load;
};

// Frames rendered through a ring into glr_encoder (libx264 -> yuv420p, null muxer).
double run_in_process(sample::scene &scene, const encode_case &c, int frames)
{
    glr::ring ring = bgra_ring(c.size.width, c.size.height);
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

// The same frames written to `ffmpeg -f rawvideo -i -` with the same encoder settings.
double run_pipe(sample::scene &scene, const encode_case &c, int frames)
{
    std::string size = std::to_string(c.size.width) + "x" + std::to_string(c.size.height);
    std::string command = "exec ffmpeg -hide_banner -loglevel error -f rawvideo -pix_fmt bgra -s " + size +
                          " -r 30 -i - -c:v libx264 -preset " + c.preset + " -pix_fmt yuv420p -f null -";
    // Top row first in memory: one contiguous write per frame.
    glr::ring ring = bgra_ring(c.size.width, c.size.height, GLR_FLIP_GPU);
    auto start = clock_type::now();
    FILE *child = popen(command.c_str(), "w");
    if (!child)
        throw std::runtime_error("cannot start ffmpeg: " + std::string(std::strerror(errno)));
    bool ok = true;
    auto write_frame = [&](glr::frame &&f) {
        size_t bytes = static_cast<size_t>(f.stride()) * static_cast<size_t>(f.height());
        ok = ok && std::fwrite(f.data(), 1, bytes, child) == bytes;
    };
    for (int i = 0; i < frames; i++) {
        scene.draw(i, i / 30.0, 1 / 30.0);
        ring.capture(glr::framebuffer_source(scene.fbo()), i, write_frame);
    }
    ring.drain(write_frame);
    int status = pclose(child);
    if (!ok || status != 0)
        throw std::runtime_error("the ffmpeg child failed (exit status " + std::to_string(status) + ")");
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
    glr::ring ring = bgra_ring(size.width, size.height);
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

int bench_encode(int argc, char **argv)
{
    bench_options o = parse_bench_options(argc, argv, {"720p,1080p", "ultrafast,slow", "", 3, 60}, true);
    const std::string &sizes = o.sizes, &presets = o.presets, &json = o.json;
    const int runs = o.runs, frames = o.frames;
    if (std::system("ffmpeg -version >/dev/null 2>&1") != 0)
        throw std::runtime_error("no ffmpeg on PATH to compare with (Debian: apt-get install ffmpeg)");
    av_log_set_level(AV_LOG_ERROR);

    glr::context ctx;
    std::vector<encode_case> cases;
    std::vector<std::string> preset_list;
    {
        std::stringstream in(presets);
        std::string p;
        while (std::getline(in, p, ','))
            preset_list.push_back(p);
    }
    for (const size_spec &s : parse_sizes(sizes))
        for (const std::string &p : preset_list)
            cases.push_back({s, p, {}, {}, {}, {}});
    std::fprintf(stderr, "glreader-bench encode on %s: %d runs x %d frames, interleaved\n",
                 ctx.renderer().c_str(), runs, frames);

    load_meter load;
    for (int run = 0; run < runs; run++) {
        for (encode_case &c : cases) {
            sample::scene scene(c.size.width, c.size.height, bench_scene_source, "bench scene");
            std::vector<AVFrame *> yuv = render_yuv_frames(scene, c.size, frames);
            load.other_cpu_seconds();
            c.in_process_fps.push_back(run_in_process(scene, c, frames));
            c.pipe_fps.push_back(run_pipe(scene, c, frames));
            c.encoder_only_fps.push_back(run_encoder_only(yuv, c));
            c.load.push_back(load.other_cpu_seconds());
            for (AVFrame *f : yuv)
                av_frame_free(&f);
        }
        std::fprintf(stderr, "  run %d/%d done\n", run + 1, runs);
    }

    std::printf("\nglreader-bench encode: libx264 -> yuv420p from BGRA frames, %s, %d runs x %d frames\n",
                ctx.renderer().c_str(), runs, frames);
    std::printf("fps as min / median / max of the runs; in-process and pipe both include rendering a "
                "cheap scene and reading it back; other CPU s = CPU time of processes other than this "
                "one and its ffmpeg children\n\n");
    std::printf("| size | preset | in-process | pipe to ffmpeg child | in-process / pipe (median) | "
                "encoder only (ceiling) | other CPU s (max) |\n|---|---|---|---|---|---|---|\n");
    for (const encode_case &c : cases) {
        summary a = summarize(c.in_process_fps), b = summarize(c.pipe_fps), e = summarize(c.encoder_only_fps),
                l = summarize(c.load);
        std::printf("| %s | %s | %.1f / %.1f / %.1f | %.1f / %.1f / %.1f | %.2fx | %.1f / %.1f / %.1f | %.2f |\n",
                    c.size.name.c_str(), c.preset.c_str(), a.min, a.median, a.max, b.min, b.median, b.max,
                    a.median / b.median, e.min, e.median, e.max, l.max);
    }
    if (!json.empty()) {
        std::ofstream out(json);
        out << "{\n  \"bench\": \"encode\",\n  \"renderer\": \"" << ctx.renderer() << "\",\n  \"runs\": " << runs
            << ",\n  \"frames_per_run\": " << frames << ",\n  \"unit\": \"fps\",\n  \"results\": [\n";
        for (size_t i = 0; i < cases.size(); i++) {
            const encode_case &c = cases[i];
            out << "    {\"size\": \"" << c.size.name << "\", \"preset\": \"" << c.preset
                << "\",\n     \"in_process\": " << json_summary(c.in_process_fps)
                << ",\n     \"pipe\": " << json_summary(c.pipe_fps)
                << ",\n     \"encoder_only\": " << json_summary(c.encoder_only_fps)
                << ",\n     \"other_cpu_seconds\": " << json_summary(c.load) << "}"
                << (i + 1 < cases.size() ? "," : "") << "\n";
        }
        out << "  ]\n}\n";
        if (!out)
            throw std::runtime_error("cannot write " + json);
        std::printf("\nwrote %s\n", json.c_str());
    }
    return 0;
}

} // namespace

int main(int argc, char **argv)
{
    std::string mode = argc > 1 ? argv[1] : "";
    try {
        if (mode == "ring")
            return bench_ring(argc - 2, argv + 2);
        if (mode == "encode")
            return bench_encode(argc - 2, argv + 2);
        std::fprintf(stderr, "usage: glreader-bench ring [--sizes 720p,1080p,2160p] [--runs N] [--frames N] "
                             "[--json FILE]\n"
                             "       glreader-bench encode [--sizes 720p,1080p] [--presets ultrafast,slow] "
                             "[--runs N] [--frames N] [--json FILE]\n");
        return 2;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "glreader-bench: %s\n", e.what());
        return 1;
    }
}
