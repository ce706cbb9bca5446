// glreader-bench ring [--sizes 720p,1080p,2160p] [--runs 5] [--frames 60] [--json FILE]
//
// Per frame, at each size, (1) a memcpy of one frame between two warm buffers (the floor
// for a software rasterizer), (2) a synchronous glReadPixels into client memory, (3) the
// ring: capture + acquire + release. Every cell is measured `runs` times, the methods
// interleaved; each cell reports min / median / max of its per-run means. Then the
// render-thread stall (time inside capture) while a consumer thread reads every frame,
// with the GPU idle and with the frame's drawing still queued, from --stall-captures
// captures a run (1000 by default: a p99 of fewer is one frame's worst case).
// Each run also records the machine's load: CPU time spent by other processes.
#include "common.hpp"
#include "modes.hpp"

#include "frame_worker.hpp"
#include "scene.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>

namespace bench {

namespace {

// Per run: the median and 99th percentile of the render thread's time in capture.
struct stall_percentiles {
    std::vector<double> p50, p99;
};

struct ring_results {
    size_spec size;
    std::vector<double> memcpy_ms, sync_ms, ring_ms;
    stall_percentiles stall_idle, stall_queued;
    std::vector<double> load;
    // What a capture spends on the host's GL state (glr_ring_stats.host_state), per path.
    glr_latency state_rgba{}, state_nv12{};
    glr_latency stall_nv12{};
};

// A ring of format captures the scene's frame `frames` times; its stats.
glr_ring_stats ring_stats_of(sample::scene &scene, glr_format format, int width, int height, int frames)
{
    glr_ring_params params{};
    params.width = width;
    params.height = height;
    params.format = format;
    glr::ring ring(params);
    for (int i = 0; i < frames; i++) {
        scene.draw(i, i / 30.0, 1 / 30.0);
        ring.capture(glr::framebuffer_source(scene.fbo()), i, [](glr::frame &&) {});
    }
    ring.drain([](glr::frame &&) {});
    return ring.stats();
}

// One measurement of each method at one size: per-frame means in milliseconds.
void measure_once(sample::scene &scene, glr::ring &ring, glr::ring &stall_ring, ring_results &r, int frames,
                  int stall_captures, std::vector<uint8_t> &a, std::vector<uint8_t> &b, std::vector<uint8_t> &client,
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
    // every frame, timed per call so each run has its own percentiles. Once with the GPU
    // idle (the frame finished first) and once with the frame's drawing still queued, as
    // a renderer captures: there the capture must not wait for the drawing.
    for (bool queued : {false, true}) {
        // Reads every byte of each frame, as an encoder would, then releases it.
        std::vector<uint8_t> scratch(static_cast<size_t>(w) * 4);
        sample::frame_worker consumer([&](const glr::frame &f) {
            for (int y = 0; y < f.height(); y++)
                std::memcpy(scratch.data(), f.row(y), scratch.size());
        });
        auto hand_off = [&](glr::frame &&f) { consumer.push(std::move(f)); };
        std::vector<double> stalls;
        for (int i = 0; i < stall_captures; i++) {
            scene.draw(i, i / 60.0, 1 / 60.0);
            if (!queued)
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
        stall_percentiles &p = queued ? r.stall_queued : r.stall_idle;
        p.p50.push_back(stalls[stalls.size() / 2]);
        p.p99.push_back(stalls[std::min(stalls.size() - 1, stalls.size() * 99 / 100)]);
    }
    r.load.push_back(load.other_cpu_seconds());
}

} // namespace

int bench_ring(int argc, char **argv)
{
    int stall_captures = 1000;
    options o = parse_options(argc, argv, {"720p,1080p,2160p", "", 5, 60}, [&](sample::command_line &args) {
        if (!args.is("--stall-captures"))
            return false;
        stall_captures = args.count(100, 1000000);
        return true;
    });
    const std::string &sizes = o.sizes, &json = o.json;
    const int runs = o.runs, frames = o.frames;

    glr::context ctx;
    std::vector<ring_results> results;
    for (const size_spec &s : parse_sizes(sizes))
        results.push_back({s, {}, {}, {}, {}, {}, {}, {}, {}, {}});
    std::fprintf(stderr,
                 "glreader-bench ring on %s (EGL %s): %d runs x %d frames per cell, %d captures per stall run, "
                 "interleaved\n",
                 ctx.renderer().c_str(), ctx.platform().c_str(), runs, frames, stall_captures);

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
            measure_once(*p.scene, *p.ring, *p.stall_ring, results[i], frames, stall_captures, p.a, p.b, p.client, load);
            // Each cell as it ends: a run cut short still says how far it came.
            std::fprintf(stderr, "    %s: ring %.3f ms, glReadPixels %.3f ms a frame\n", results[i].size.name.c_str(),
                         results[i].ring_ms.back(), results[i].sync_ms.back());
        }
        std::fprintf(stderr, "  run %d/%d done\n", run + 1, runs);
    }
    // The state handling's cost, from the rings' own figures: the RGBA path (blits and
    // glReadPixels) and the NV12 one (a compute pass too, so more state).
    for (size_t i = 0; i < results.size(); i++) {
        ring_results &r = results[i];
        std::fprintf(stderr, "  %s: the host state's cost, NV12\n", r.size.name.c_str());
        r.state_rgba = state[i].ring->stats().host_state;
        glr_ring_stats nv12 = ring_stats_of(*state[i].scene, GLR_FORMAT_NV12, r.size.width, r.size.height, frames);
        r.state_nv12 = nv12.host_state;
        r.stall_nv12 = nv12.stall;
    }

    const std::string path = state.front().stall_ring->stats().path;
    std::printf("\nglreader-bench ring: %s (EGL %s, ring %s), RGBA8, %d runs x %d frames, interleaved\n",
                ctx.renderer().c_str(), ctx.platform().c_str(), path.c_str(), runs, frames);
    std::printf("ms per frame as min / median / max of the runs; stall = the render thread's time in "
                "capture (median of the runs' p50 and p99, each run's from %d captures), with the GPU idle and with the frame's drawing "
                "still queued; load = CPU seconds used by other processes during a run\n\n",
                stall_captures);
    std::printf("| size | memcpy | glReadPixels (sync) | ring (capture+acquire+release) | ring / sync "
                "(median) | stall p50 / p99, idle | stall p50 / p99, queued | load (max) |\n");
    std::printf("|---|---|---|---|---|---|---|---|\n");
    for (const ring_results &r : results) {
        summary m = summarize(r.memcpy_ms), s = summarize(r.sync_ms), g = summarize(r.ring_ms);
        summary l = summarize(r.load);
        std::printf("| %s | %.3f / %.3f / %.3f | %.3f / %.3f / %.3f | %.3f / %.3f / %.3f | %.2fx | "
                    "%.3f / %.3f | %.3f / %.3f | %.2f s |\n",
                    r.size.name.c_str(), m.min, m.median, m.max, s.min, s.median, s.max, g.min,
                    g.median, g.max, g.median / s.median, summarize(r.stall_idle.p50).median,
                    summarize(r.stall_idle.p99).median, summarize(r.stall_queued.p50).median,
                    summarize(r.stall_queued.p99).median, l.max);
    }
    std::printf("\nThe host's GL state around each capture (saved, set for glreader's commands, restored; "
                "glr_ring_stats.host_state), microseconds per capture over every capture above (RGBA) or %d "
                "more (NV12):\n\n", frames);
    std::printf("| size | RGBA p50 / p99 | share of the RGBA capture's p50 | NV12 p50 / p99 | share of the NV12 "
                "capture's p50 |\n|---|---|---|---|---|\n");
    for (const ring_results &r : results)
        std::printf("| %s | %.1f / %.1f | %.1f %% | %.1f / %.1f | %.1f %% |\n", r.size.name.c_str(),
                    r.state_rgba.p50_ms * 1000, r.state_rgba.p99_ms * 1000,
                    100.0 * r.state_rgba.p50_ms / summarize(r.stall_idle.p50).median, r.state_nv12.p50_ms * 1000,
                    r.state_nv12.p99_ms * 1000, 100.0 * r.state_nv12.p50_ms / r.stall_nv12.p50_ms);

    std::vector<std::string> items;
    for (const ring_results &r : results)
        items.push_back("{\"size\": \"" + r.size.name + "\", \"width\": " + std::to_string(r.size.width) +
                        ", \"height\": " + std::to_string(r.size.height) + ",\n     \"memcpy\": " +
                        json_summary(r.memcpy_ms) + ",\n     \"sync_readpixels\": " + json_summary(r.sync_ms) +
                        ",\n     \"ring\": " + json_summary(r.ring_ms) + ",\n     \"stall_p50\": " +
                        json_summary(r.stall_idle.p50) + ",\n     \"stall_p99\": " +
                        json_summary(r.stall_idle.p99) + ",\n     \"stall_queued_p50\": " +
                        json_summary(r.stall_queued.p50) + ",\n     \"stall_queued_p99\": " +
                        json_summary(r.stall_queued.p99) + ",\n     \"host_state_us_rgba\": {\"p50\": " +
                        std::to_string(r.state_rgba.p50_ms * 1000) + ", \"p99\": " +
                        std::to_string(r.state_rgba.p99_ms * 1000) + "}, \"host_state_us_nv12\": {\"p50\": " +
                        std::to_string(r.state_nv12.p50_ms * 1000) + ", \"p99\": " +
                        std::to_string(r.state_nv12.p99_ms * 1000) + "}" +
                        ",\n     \"other_cpu_seconds\": " + json_summary(r.load) + "}");
    write_json(json, "ring", ctx, runs,
               "\"frames_per_run\": " + std::to_string(frames) +
                   ", \"stall_captures_per_run\": " + std::to_string(stall_captures) + ", \"ring_path\": \"" + path +
                   "\", \"unit\": \"ms per frame\"",
               items);
    return 0;
}

} // namespace bench
