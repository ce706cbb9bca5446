// glreader-bench encode [--sizes 720p,1080p] [--presets ultrafast,slow] [--runs 3]
//                       [--frames 60] [--json FILE]
//
// libx264 to yuv420p, every way glreader can feed it, interleaved: in-process from BGRA
// frames (libswscale converts on the CPU) and from YUV converted on the GPU (yuv420p
// leases encoded without a copy), and converted on the GPU into Vulkan hardware frames
// (--hw-frames on: nothing read back, FFmpeg copies each to memory for libx264, an encoder
// on the CPU; lavapipe's "GPU" memory on a machine without one); an `ffmpeg -f rawvideo -i -` child with the same
// settings, fed the classic way (write() on the render thread), through glreader's pipe
// mode with BGRA, and with NV12 converted on the GPU; and libx264 alone on ready yuv420p
// frames, the ceiling. Each gives fps, CPU milliseconds per frame over every process
// (this one, its GL driver's threads, the ffmpeg children), the bytes moved from the GPU to
// memory (read back, or transferred by FFmpeg) and, for the export job's rows, the render
// thread's median time issuing a frame's capture (waits for a free slot left out).
// The in-process rows run the export job itself (glr_export: glreader-export's engine),
// timed whole. The in-process GPU path also runs with an AAC track from a sound file, and into real
// outputs (MPEG-TS): a file, a pipe and a loopback TCP socket read by threads of this
// process that throw the bytes away. An audio-reactive Shadertoy scene runs with that
// track twice: its iChannel0 empty, and fed the same file's sound texture, as
// glreader-export --audio does (the analysis and uploads are the difference).
#include "common.hpp"
#include "modes.hpp"

#include "scene.hpp"

#include "glreader/av/export.hpp"
#include "glreader/av/hw_frames.h"
#include "glreader/pipe.hpp"

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavutil/log.h>
#include <libswscale/swscale.h>
}

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <thread>

namespace bench {

namespace {

enum class method {
    in_process_rgba,
    in_process_gpu_yuv,
    in_process_hw_frames,
    in_process_gpu_yuv_audio,
    shadertoy_silent,
    shadertoy_sound,
    to_file,
    to_pipe,
    to_tcp,
    classic_pipe,
    pipe_mode_rgba,
    pipe_mode_gpu_yuv,
    encoder_only
};
const method methods[] = {method::in_process_rgba, method::in_process_gpu_yuv, method::in_process_hw_frames,
                          method::in_process_gpu_yuv_audio,
                          method::shadertoy_silent, method::shadertoy_sound,
                          method::to_file,         method::to_pipe,            method::to_tcp,
                          method::classic_pipe,    method::pipe_mode_rgba,     method::pipe_mode_gpu_yuv,
                          method::encoder_only};

const char *method_name(method m)
{
    switch (m) {
    case method::in_process_rgba: return "in-process, BGRA + swscale";
    case method::in_process_gpu_yuv: return "in-process, GPU yuv420p";
    case method::in_process_hw_frames: return "in-process, GPU yuv420p into Vulkan frames, transferred";
    case method::in_process_gpu_yuv_audio: return "in-process, GPU yuv420p + AAC track";
    case method::shadertoy_silent: return "audio-reactive scene + AAC track, iChannel0 empty";
    case method::shadertoy_sound: return "audio-reactive scene + AAC track, iChannel0 the sound";
    case method::to_file: return "in-process, GPU yuv420p, MPEG-TS to a file";
    case method::to_pipe: return "in-process, GPU yuv420p, MPEG-TS to a pipe";
    case method::to_tcp: return "in-process, GPU yuv420p, MPEG-TS to loopback TCP";
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
    case method::in_process_hw_frames: return "in_process_hw_frames_transferred";
    case method::in_process_gpu_yuv_audio: return "in_process_gpu_yuv_audio";
    case method::shadertoy_silent: return "shadertoy_audio_track_no_sound_channel";
    case method::shadertoy_sound: return "shadertoy_audio_track_sound_channel";
    case method::to_file: return "in_process_gpu_yuv_mpegts_file";
    case method::to_pipe: return "in_process_gpu_yuv_mpegts_pipe";
    case method::to_tcp: return "in_process_gpu_yuv_mpegts_tcp";
    case method::classic_pipe: return "classic_pipe";
    case method::pipe_mode_rgba: return "pipe_mode_rgba";
    case method::pipe_mode_gpu_yuv: return "pipe_mode_gpu_yuv";
    case method::encoder_only: return "encoder_only";
    }
    return "?";
}

// The format each method moves from the GPU to memory (0: none, the frames are ready): read
// back, or (hardware frames) transferred by FFmpeg for an encoder on the CPU.
glr_format to_memory_format(method m)
{
    switch (m) {
    case method::in_process_gpu_yuv:
    case method::in_process_hw_frames:
    case method::in_process_gpu_yuv_audio:
    case method::shadertoy_silent:
    case method::shadertoy_sound:
    case method::to_file:
    case method::to_pipe:
    case method::to_tcp: return GLR_FORMAT_I420;
    case method::pipe_mode_gpu_yuv: return GLR_FORMAT_NV12;
    case method::encoder_only: return static_cast<glr_format>(0);
    default: return GLR_FORMAT_BGRA8;
    }
}

struct encode_case {
    size_spec size;
    std::string preset;
    std::vector<std::vector<double>> fps, cpu_ms, capture_ms; // per method, per run (capture: the export job's)
    std::vector<double> load;
    std::vector<double> channel_ms; // per run: the sound channel's analysis and upload, ms per frame
};

// A reader on another thread that takes whatever arrives and throws it away, at the end
// of a pipe or of a loopback TCP connection: the outputs glreader-av writes to.
class sink_reader {
public:
    // pipe: the write end is fd(); tcp: the URL to connect to is url().
    explicit sink_reader(bool tcp)
    {
        if (!tcp) {
            int fds[2];
            if (pipe2(fds, O_CLOEXEC) != 0)
                throw std::runtime_error("cannot make a pipe");
            read_fd_ = fds[0], write_fd_ = fds[1];
            thread_ = std::thread([this] { drain(read_fd_); });
            return;
        }
        listen_fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t size = sizeof address;
        if (listen_fd_ < 0 || bind(listen_fd_, reinterpret_cast<sockaddr *>(&address), size) != 0 ||
            listen(listen_fd_, 1) != 0 || getsockname(listen_fd_, reinterpret_cast<sockaddr *>(&address), &size) != 0)
            throw std::runtime_error("cannot listen on 127.0.0.1");
        url_ = "tcp://127.0.0.1:" + std::to_string(ntohs(address.sin_port));
        thread_ = std::thread([this] {
            int connection = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
            if (connection >= 0) {
                drain(connection);
                close(connection);
            }
        });
    }
    ~sink_reader()
    {
        if (write_fd_ >= 0)
            close(write_fd_); // the reader sees its end
        if (thread_.joinable())
            thread_.join();
        if (read_fd_ >= 0)
            close(read_fd_);
        if (listen_fd_ >= 0)
            close(listen_fd_);
    }
    sink_reader(const sink_reader &) = delete;
    sink_reader &operator=(const sink_reader &) = delete;

    std::string output() const { return url_.empty() ? "pipe:" + std::to_string(write_fd_) : url_; }
    // The pipe's writer is done: the reader may end.
    void writer_done()
    {
        if (write_fd_ >= 0)
            close(write_fd_);
        write_fd_ = -1;
    }

private:
    static void drain(int fd)
    {
        std::vector<char> buffer(1 << 20);
        while (read(fd, buffer.data(), buffer.size()) > 0) {
        }
    }

    int read_fd_ = -1, write_fd_ = -1, listen_fd_ = -1;
    std::string url_;
    std::thread thread_;
};

// An audio-reactive scene: the spectrum as bars, the wave as a line.
const char *const audio_reactive_source = R"(void mainImage(out vec4 c, in vec2 p) {
    vec2 uv = p / iResolution.xy;
    float level = texture(iChannel0, vec2(uv.x, 0.25)).r, wave = texture(iChannel0, vec2(uv.x, 0.75)).r;
    c = vec4(step(uv.y, level), smoothstep(0.02, 0.0, abs(uv.y - wave)), 0.5 + 0.5 * sin(iTime), 1.0);
}
)";

// A project of one Shadertoy shader file, with iChannel0 bound to the sound or not.
glr::project load_project(const std::string &shader_file, bool sound_channel)
{
    glr::project project(shader_file.c_str());
    if (sound_channel)
        project.bind(GLR_SCENE_IMAGE_PASS, 0, "sound", "bench");
    return project;
}

class runner {
public:
    runner(sample::scene &scene, const encode_case &c, int frames, const std::string &sound,
           const std::string &scene_shader, const std::string &reactive_shader)
        : scene_(scene), c_(c), frames_(frames), sound_(sound), scene_project_(load_project(scene_shader, false)),
          silent_(load_project(reactive_shader, false)), reactive_(load_project(reactive_shader, true))
    {
    }

    std::pair<int, double> run(method m, const std::vector<AVFrame *> &yuv)
    {
        auto start = clock_type::now();
        switch (m) {
        case method::in_process_rgba: in_process(GLR_FORMAT_BGRA8); break;
        case method::in_process_gpu_yuv: in_process(GLR_FORMAT_I420); break;
        case method::in_process_hw_frames: in_process(GLR_FORMAT_I420, nullptr, false, nullptr, true); break;
        case method::in_process_gpu_yuv_audio: in_process(GLR_FORMAT_I420, nullptr, true); break;
        case method::shadertoy_silent: in_process(GLR_FORMAT_I420, nullptr, true, silent_.get()); break;
        case method::shadertoy_sound: in_process(GLR_FORMAT_I420, nullptr, true, reactive_.get()); break;
        case method::to_file: {
            std::string path = "/tmp/glreader-bench-" + std::to_string(getpid()) + ".ts";
            in_process(GLR_FORMAT_I420, path.c_str());
            std::remove(path.c_str());
            break;
        }
        case method::to_pipe:
        case method::to_tcp: {
            sink_reader reader(m == method::to_tcp);
            in_process(GLR_FORMAT_I420, reader.output().c_str());
            reader.writer_done();
            break;
        }
        case method::classic_pipe: pipe(GLR_FORMAT_BGRA8, true); break;
        case method::pipe_mode_rgba: pipe(GLR_FORMAT_BGRA8, false); break;
        case method::pipe_mode_gpu_yuv: pipe(GLR_FORMAT_NV12, false); break;
        case method::encoder_only: encoder_only(yuv); break;
        }
        return {frames_, ms_since(start) / 1000};
    }

private:
    // An export job (glr_export, what glreader-export runs) of the bench scene or a
    // Shadertoy project, its frames read back as `format` (BGRA: libswscale converts them),
    // or converted into hardware frames (--hw-frames on), into libx264 -> yuv420p: the null
    // muxer, or MPEG-TS into output; with a sound file's AAC track beside them. Timed whole:
    // its GL context, compile and output included.
    void in_process(glr_format format, const char *output = nullptr, bool audio = false,
                    const glr_project *project = nullptr, bool hw_frames = false)
    {
        glr_export_params p{};
        p.player.width = c_.size.width;
        p.player.height = c_.size.height;
        p.player.project = project ? project : scene_project_.get();
        p.player.date = "2026-01-01"; // every run the same
        p.frame_count = frames_;
        p.conversion = format == GLR_FORMAT_BGRA8 ? GLR_EXPORT_CONVERT_CPU : GLR_EXPORT_CONVERT_GPU;
        p.hw_frames = hw_frames ? GLR_HW_FRAMES_ON : GLR_HW_FRAMES_OFF;
        glr_encoder_params &ep = p.encoder;
        ep.codec = "libx264";
        ep.pix_fmt = "yuv420p";
        std::string options = "preset=" + c_.preset;
        ep.codec_options = options.c_str();
        ep.container = output ? "mpegts" : "null";
        ep.output = output ? output : "/dev/null";
        ep.audio.input = audio || project == reactive_.get() ? sound_.c_str() : nullptr;
        glr::export_job job(p);
        if (job.run() < 0)
            throw std::runtime_error(glr_last_error());
        glr_export_stats s = job.stats();
        if (project == reactive_.get())
            channel_ms_ = s.player.channels.mean_ms;
        if (s.encoder.frames_encoded != static_cast<uint64_t>(frames_))
            throw std::runtime_error("the export job encoded " + std::to_string(s.encoder.frames_encoded) + " frames");
        if (hw_frames && (s.encoder.transferred_frames != s.encoder.frames_encoded || s.ring.readback.count != 0))
            throw std::runtime_error("the hardware frames were not all transferred, or frames were read back");
        if (!hw_frames && format != GLR_FORMAT_BGRA8 &&
            s.encoder.zero_copy_frames + s.encoder.copied_frames != s.encoder.frames_encoded)
            throw std::runtime_error("the GPU yuv420p frames were converted on the CPU");
        // The render thread's own work for a frame (the conversion or copy issued, the fence,
        // the host's GL state kept), without its waits for a free slot: the ring's readback
        // figure; hardware frames' capture, which returns -EBUSY instead of waiting.
        capture_ms_ = hw_frames ? s.ring.stall.p50_ms : s.ring.readback.p50_ms;
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
    const std::string &sound_;
    glr::project scene_project_, silent_, reactive_;

public:
    double channel_ms_ = 0; // the sound channel's analysis and upload, ms per frame
    double capture_ms_ = -1; // the last export job's median time in capture (-1: not an export job's row)
};

// A WAV of a 440 Hz tone, seconds long, for the audio row; deleted by the caller.
std::string write_tone(double seconds)
{
    std::string path = "/tmp/glreader-bench-" + std::to_string(getpid()) + ".wav";
    const int rate = 48000, channels = 2;
    auto samples = static_cast<uint32_t>(seconds * rate);
    std::FILE *out = std::fopen(path.c_str(), "wb");
    if (!out)
        throw std::runtime_error("cannot write " + path);
    auto put = [&](uint32_t v, int bytes) {
        for (int i = 0; i < bytes; i++)
            std::fputc(static_cast<int>((v >> (8 * i)) & 0xff), out);
    };
    uint32_t data = samples * channels * 2;
    std::fputs("RIFF", out);
    put(36 + data, 4);
    std::fputs("WAVEfmt ", out);
    put(16, 4), put(1, 2), put(channels, 2), put(rate, 4), put(rate * channels * 2, 4), put(channels * 2, 2), put(16, 2);
    std::fputs("data", out);
    put(data, 4);
    for (uint32_t i = 0; i < samples; i++) {
        auto v = static_cast<uint16_t>(static_cast<int16_t>(8000 * std::sin(2 * 3.14159265358979 * 440 * i / rate)));
        put(v, 2), put(v, 2);
    }
    std::fclose(out);
    return path;
}

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
            for (int y = 0; y < f.rows(p); y++)
                std::copy_n(f.row(y, p), f.row_bytes(p),
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

size_t to_memory_bytes(method m, const size_spec &size)
{
    glr_format f = to_memory_format(m);
    return f ? glr_format_frame_bytes(f, size.width, size.height) : 0;
}

// Why hardware frames cannot start in the current GL context (no Vulkan in this FFmpeg, no
// device GL shares memory with); "" when they can.
std::string hardware_frames_missing()
{
    glr_hw_frames_params p{};
    p.kind = GLR_HW_VULKAN;
    p.frame.width = 64;
    p.frame.height = 64;
    p.frame.format = GLR_FORMAT_I420;
    glr_hw_frames *frames = glr_hw_frames_create(nullptr, &p);
    if (!frames)
        return glr_last_error();
    glr_hw_frames_destroy(&frames);
    return "";
}

} // namespace

int bench_encode(int argc, char **argv)
{
    std::string presets = "ultrafast,slow";
    options o = parse_options(argc, argv, {"720p,1080p", "", 3, 60}, [&](sample::command_line &args) {
        return args.is("--presets") && (presets = args.value(), true);
    });
    const std::string &sizes = o.sizes, &json = o.json;
    const int runs = o.runs, frames = o.frames;
    if (std::system("ffmpeg -version >/dev/null 2>&1") != 0)
        throw std::runtime_error("no ffmpeg on PATH to compare with (Debian: apt-get install ffmpeg)");
    av_log_set_level(AV_LOG_ERROR);

    glr::context ctx;
    std::vector<method> run_methods(std::begin(methods), std::end(methods));
    std::string missing = hardware_frames_missing();
    if (!missing.empty()) {
        std::fprintf(stderr, "glreader-bench encode: hardware frames cannot start here, so their row is left out: %s\n",
                     missing.c_str());
        run_methods.erase(std::find(run_methods.begin(), run_methods.end(), method::in_process_hw_frames));
    }
    std::vector<encode_case> cases;
    const size_t method_count = run_methods.size();
    for (const size_spec &s : parse_sizes(sizes))
        for (const std::string &p : split(presets))
            cases.push_back({s, p, std::vector<std::vector<double>>(method_count),
                             std::vector<std::vector<double>>(method_count),
                             std::vector<std::vector<double>>(method_count), {}, {}});
    std::fprintf(stderr, "glreader-bench encode on %s: %d runs x %d frames, interleaved\n", ctx.renderer().c_str(),
                 runs, frames);

    std::string sound = write_tone(frames / 30.0 + 1);
    std::string reactive_shader = "/tmp/glreader-bench-" + std::to_string(getpid()) + ".frag";
    std::string scene_shader = "/tmp/glreader-bench-scene-" + std::to_string(getpid()) + ".frag";
    if (!(std::ofstream(reactive_shader) << audio_reactive_source) || !(std::ofstream(scene_shader) << cheap_scene_source))
        throw std::runtime_error("cannot write the bench's shaders in /tmp");
    load_meter load;
    for (int run = 0; run < runs; run++) {
        for (encode_case &c : cases) {
            sample::scene scene(c.size.width, c.size.height, {cheap_scene_source, "", "bench scene"});
            std::vector<AVFrame *> yuv = render_yuv_frames(scene, c.size, frames);
            runner r(scene, c, frames, sound, scene_shader, reactive_shader);
            load.other_cpu_seconds();
            for (size_t m = 0; m < method_count; m++) {
                r.capture_ms_ = -1;
                run_cost cost = measure([&] { return r.run(run_methods[m], yuv); });
                c.fps[m].push_back(cost.fps);
                c.cpu_ms[m].push_back(cost.cpu_ms_per_frame);
                if (r.capture_ms_ >= 0)
                    c.capture_ms[m].push_back(r.capture_ms_);
                // Each cell as it ends: a run cut short still says how far it came.
                std::fprintf(stderr, "    %s %s, %s: %.1f fps\n", c.size.name.c_str(), c.preset.c_str(),
                             method_name(run_methods[m]), cost.fps);
            }
            c.load.push_back(load.other_cpu_seconds());
            c.channel_ms.push_back(r.channel_ms_);
            for (AVFrame *f : yuv)
                av_frame_free(&f);
        }
        std::fprintf(stderr, "  run %d/%d done\n", run + 1, runs);
    }

    std::printf("\nglreader-bench encode: libx264 -> yuv420p, %s, %d runs x %d frames\n", ctx.renderer().c_str(), runs,
                frames);
    std::printf("fps as min / median / max of the runs; CPU ms per frame (median) over every process (this one "
                "with its GL driver's threads, and the ffmpeg children); every path but the ceiling renders a "
                "cheap scene and moves it from the GPU to memory (read back, or transferred from hardware frames "
                "for libx264, an encoder on the CPU: on a GPU encoder they would stay on the GPU); capture ms = the "
                "render thread's median time issuing a frame's capture (conversion or copy, fence, the host's GL "
                "state; waits for a free slot left out), for the export job's rows; other CPU s = CPU time of "
                "unrelated processes during the case\n\n");
    std::printf("| size | preset | method | fps | CPU ms/frame | to memory/frame | capture ms | fps vs ceiling | "
                "other CPU s |\n|---|---|---|---|---|---|---|---|---|\n");
    for (const encode_case &c : cases) {
        double ceiling = summarize(c.fps[method_count - 1]).median;
        for (size_t m = 0; m < method_count; m++) {
            summary f = summarize(c.fps[m]), cpu = summarize(c.cpu_ms[m]);
            size_t bytes = to_memory_bytes(run_methods[m], c.size);
            char capture[32] = "-";
            if (!c.capture_ms[m].empty())
                std::snprintf(capture, sizeof capture, "%.3f", summarize(c.capture_ms[m]).median);
            std::printf("| %s | %s | %s | %s | %.1f | %s | %s | %.2fx | %.2f |\n", c.size.name.c_str(),
                        c.preset.c_str(), method_name(run_methods[m]), min_median_max(f).c_str(), cpu.median,
                        bytes ? (std::to_string(bytes / 1024) + " KiB").c_str() : "-", capture, f.median / ceiling,
                        summarize(c.load).max);
        }
    }
    // The costs the outputs-and-sound work promises to keep small, read off the medians.
    auto median_of = [&](const encode_case &c, method m) {
        return summarize(c.fps[static_cast<size_t>(std::find(run_methods.begin(), run_methods.end(), m) -
                                                   run_methods.begin())]).median;
    };
    std::printf("\n");
    for (const encode_case &c : cases)
        std::printf("%s %s: with an AAC track %.2fx the fps without; the sound channel's analysis and upload "
                    "%.3f ms a frame, %.1f%% of a frame of the audio-reactive export (whose picture, and so x264's "
                    "work, differs from the empty channel's: %.2fx its fps); MPEG-TS to a pipe %.2fx, to loopback "
                    "TCP %.2fx the fps to a file\n",
                    c.size.name.c_str(), c.preset.c_str(),
                    median_of(c, method::in_process_gpu_yuv_audio) / median_of(c, method::in_process_gpu_yuv),
                    summarize(c.channel_ms).median,
                    100 * summarize(c.channel_ms).median * median_of(c, method::shadertoy_sound) / 1000,
                    median_of(c, method::shadertoy_sound) / median_of(c, method::shadertoy_silent),
                    median_of(c, method::to_pipe) / median_of(c, method::to_file),
                    median_of(c, method::to_tcp) / median_of(c, method::to_file));
    std::remove(sound.c_str());
    std::remove(reactive_shader.c_str());
    std::remove(scene_shader.c_str());

    std::vector<std::string> items;
    for (const encode_case &c : cases) {
        std::string item = "{\"size\": \"" + c.size.name + "\", \"preset\": \"" + c.preset +
                           "\", \"other_cpu_seconds\": " + json_summary(c.load) +
                           ", \"sound_channel_ms_per_frame\": " + json_summary(c.channel_ms);
        for (size_t m = 0; m < method_count; m++) {
            bool transferred = run_methods[m] == method::in_process_hw_frames;
            size_t bytes = to_memory_bytes(run_methods[m], c.size);
            item += ",\n     \"" + std::string(method_key(run_methods[m])) + "\": {\"fps\": " + json_summary(c.fps[m]) +
                    ", \"cpu_ms_per_frame\": " + json_summary(c.cpu_ms[m]) +
                    ", \"readback_bytes_per_frame\": " + std::to_string(transferred ? 0 : bytes) +
                    ", \"transferred_bytes_per_frame\": " + std::to_string(transferred ? bytes : 0) +
                    (c.capture_ms[m].empty() ? "" : ", \"capture_ms_p50\": " + json_summary(c.capture_ms[m])) + "}";
        }
        items.push_back(item + "}");
    }
    write_json(json, "encode", ctx, runs, "\"frames_per_run\": " + std::to_string(frames), items);
    return 0;
}

} // namespace bench
