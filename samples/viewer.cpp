// glreader-viewer: shows a scene in a GLFW window and records what the window shows while
// it runs. The host owns the GL context (GLFW, GLX or EGL underneath); glreader only gets
// glfwGetProcAddress and reads the window's back buffer through the ring before each swap.
//
//   glreader-viewer [-s 1280x720] [-r 60] [-n FRAMES] [-c CODEC] [--shader FILE|DIR]
//                   [--channel0..3 SPEC] [-o FILE] [-y] [-v LEVEL]
//
// An existing file is never overwritten without -y (the file is created exclusively).
// Esc or Q (or closing the window), or a first Ctrl-C or SIGTERM stops; the recording is
// then finalized (a second signal exits at once). -n stops by itself after that many
// frames. Frames are timed by their index (1/FPS apart), so the
// recording is smooth whatever the display's pace.
#include "command_line.hpp"
#include "program_log.hpp"
#include "project_scene.hpp"
#include "stop_signals.hpp"

#include "glreader/av/recorder.h"
#include "glreader/glreader.hpp"

#include <GLFW/glfw3.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

struct options {
    int width = 1280, height = 720;
    sample::frame_rate fps{60, 1};
    sample::length_options length; // -n, -t, -to
    int frames = 0;                // ...counted once the rate is known; 0: until the window closes
    std::string codec, pix_fmt, codec_options, output = "glreader-viewer.mp4";
    sample::project_options project; // --shader, --channelN
    bool overwrite = false;
    sample::verbosity verbosity = sample::verbosity::warning;
};

// glreader-export's options the window has no use for, and why.
std::vector<sample::left_out> viewer_leaves_out()
{
    const std::string from_zero = "the window plays the scene from frame 0, as Shadertoy's page does";
    const std::string live = "the window plays iMouse released and iDate as now, Shadertoy's defaults (glreader-export "
                             "fixes them so that reruns match)";
    const std::string no_sound = "the recording is the window's picture alone: mux a sound afterwards (ffmpeg -i "
                                 "take.mp4 -i song.flac -c copy out.mkv)";
    const std::string plain_file = "the recording is one plain file, its container from -o's name";
    const std::string recorder = "the recorder chooses the ring's format and the colour from the encoder, as "
                                 "glreader-export does by default";
    const std::string hw = "the window's recording reads its frames back; hardware frames are glreader-export's "
                           "(--hw-frames) for now";
    return {{"start", from_zero},
            {"first_frame", from_zero},
            {"mouse", live},
            {"date", live},
            {"max_shader_size", "the window reads shaders of up to 4M, glreader-export's default"},
            {"compile_timeout", "the window's own thread compiles, and nothing else could give up on it"},
            {"require_hw", "the window's OpenGL is the display's, which GLFW chooses"},
            {"alpha", "a window's back buffer has no alpha to keep"},
            {"premultiply", "a window's back buffer has no alpha to keep"},
            {"Sound", no_sound},
            {"container", plain_file},
            {"format_options", plain_file},
            {"metadata", plain_file},
            {"part", plain_file},
            {"chunk", plain_file},
            {"convert", recorder},
            {"ring_format", recorder},
            {"matrix", recorder},
            {"color_range", recorder},
            {"chroma_loc", recorder},
            {"depth", recorder},
            {"queue", recorder},
            {"hw_frames", hw},
            {"hw_device", hw}};
}

sample::program_help help()
{
    using namespace sample;
    return {"glreader-viewer",
            "[OPTIONS]",
            "Shows a scene in a GLFW window and records exactly what the window shows while it runs: GLFW owns "
            "the OpenGL context, glreader reads the back buffer through its ring before each swap and encodes "
            "in-process. Esc, Q, closing the window, Ctrl-C or SIGTERM stop and finalize the recording. Without a "
            "display, run it under xvfb-run -a.",
            {{"What to show",
              {doc::shader, doc::media, doc::channels, doc::size,
               doc::rate.with_default("60, a window's refresh (glreader-export's 30)"),
               exported("duration").with_default("until the window closes"),
               doc::frames.with_default("until the window closes"),
               exported("end").with_default("until the window closes")}},
             {"Recording",
              {doc::codec, exported("pix_fmt"), exported("codec_options"),
               doc::output.with_default("glreader-viewer.mp4"), doc::overwrite}},
             {"Messages", {doc::verbosity}}},
            {"glreader-viewer --shader samples/shaders/plasma.frag -o plasma.mp4", "xvfb-run -a glreader-viewer -n 120 -c ffv1 -o take.mkv"},
            viewer_leaves_out()};
}

options parse(int argc, char **argv)
{
    options o;
    sample::command_line args(argc, argv, help());
    while (args.next()) {
        if (args.is("-s"))
            args.size(o.width, o.height);
        else if (args.is("-r"))
            o.fps = args.rate();
        else if (o.length.read(args))
            continue;
        else if (args.is("-c") || args.is("-c:v"))
            o.codec = args.value();
        else if (args.is("--pix-fmt") || args.is("-pix_fmt"))
            o.pix_fmt = args.value();
        else if (args.is("--codec-options"))
            o.codec_options = args.value();
        else if (args.verbosity_option(o.verbosity))
            continue;
        else if (o.project.read(args))
            continue;
        else if (args.is("-o"))
            o.output = args.value();
        else if (args.is("-y"))
            o.overwrite = true;
        else
            args.unknown();
    }
    o.frames = o.length.frames_at(o.fps, 0, args);
    args.refuse_existing(o.output, o.overwrite);
    return o;
}

// GLFW's window and context, released in the right order.
struct glfw_window {
    GLFWwindow *window = nullptr;
    glfw_window(int width, int height, const std::string &title)
    {
        glfwSetErrorCallback([](int, const char *text) { std::fprintf(stderr, "GLFW: %s\n", text); });
        if (!glfwInit())
            throw std::runtime_error("GLFW could not start (is there a display? try xvfb-run)");
        glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
        glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
        glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
        glfwWindowHint(GLFW_RESIZABLE, GLFW_FALSE);
        window = glfwCreateWindow(width, height, title.c_str(), nullptr, nullptr);
        if (!window) {
            glfwTerminate();
            throw std::runtime_error("GLFW could not open a window with an OpenGL 3.3 core context");
        }
        glfwMakeContextCurrent(window);
    }
    ~glfw_window()
    {
        glfwDestroyWindow(window);
        glfwTerminate();
    }
};

} // namespace

int main(int argc, char **argv)
{
    options o = parse(argc, argv);
    sample::catch_stop_signals();
    try {
        glfw_window w(o.width, o.height, "glreader viewer: recording to " + o.output);
        auto loader = reinterpret_cast<glr_get_proc_address_fn>(glfwGetProcAddress);
        int fb_width = 0, fb_height = 0;
        glfwGetFramebufferSize(w.window, &fb_width, &fb_height); // differs on HiDPI screens

        sample::program_log log(o.verbosity); // errors reach the user once
        sample::project_scene scene(o.project, fb_width, fb_height, o.fps, loader, "", log.get());
        const GladGLContext &gl = scene.gl();

        // The window's back buffer through a recorder: the encoder's own YUV made on the GPU
        // where the ring makes it, an output that stalls waited for.
        glr_recorder_params rp{};
        glr_encoder_params &ep = rp.encoder;
        ep.width = fb_width;
        ep.height = fb_height;
        ep.fps_num = o.fps.num;
        ep.fps_den = o.fps.den;
        ep.codec = o.codec.empty() ? nullptr : o.codec.c_str();
        ep.pix_fmt = o.pix_fmt.empty() ? nullptr : o.pix_fmt.c_str();
        ep.codec_options = o.codec_options.empty() ? nullptr : o.codec_options.c_str();
        ep.output = o.output.c_str();
        ep.output_flags = o.overwrite ? 0 : GLR_OUTPUT_NO_OVERWRITE;
        rp.ring.get_proc_address = loader; // the host's loader: glreader keeps its own table
        std::unique_ptr<glr_recorder, void (*)(glr_recorder *)> rec(glr_recorder_create(log.get(), &rp),
                                                                     [](glr_recorder *r) { glr_recorder_destroy(&r); });
        if (!rec)
            throw glr::error(glr_last_error_code(), glr_last_error());
        const glr_source window{GLR_SOURCE_FRAMEBUFFER, 0, 0, 0, 0};
        if (log.shows_progress())
            std::fprintf(stderr, "glreader-viewer: recording to %s (Esc, q, closing the window, Ctrl-C or SIGTERM "
                                 "stop and finalize it)\n",
                         o.output.c_str());

        int frame = 0;
        while (!glfwWindowShouldClose(w.window) && (o.frames == 0 || frame < o.frames) && !sample::stop_signal()) {
            scene.render_next();
            // Show it: copy the scene into the window's back buffer...
            gl.BindFramebuffer(GL_READ_FRAMEBUFFER, scene.fbo());
            gl.BindFramebuffer(GL_DRAW_FRAMEBUFFER, 0);
            gl.BlitFramebuffer(0, 0, fb_width, fb_height, 0, 0, fb_width, fb_height,
                               GL_COLOR_BUFFER_BIT, GL_NEAREST);
            // ...record exactly what the window will show, then show it.
            if (glr_recorder_capture(rec.get(), &window, frame) < 0)
                throw glr::error(glr_last_error_code(), glr_last_error());
            glfwSwapBuffers(w.window);
            glfwPollEvents();
            if (glfwGetKey(w.window, GLFW_KEY_ESCAPE) == GLFW_PRESS || glfwGetKey(w.window, GLFW_KEY_Q) == GLFW_PRESS)
                glfwSetWindowShouldClose(w.window, GLFW_TRUE);
            frame++;
        }
        if (glr_recorder_finish(rec.get()) < 0)
            throw glr::error(glr_last_error_code(), glr_last_error());
        glr_recorder_stats s{};
        glr_recorder_get_stats(rec.get(), &s);
        std::printf("recorded %llu frames (%dx%d, %d/%d fps, %s %s) to %s\n",
                    static_cast<unsigned long long>(s.encoder.frames_encoded), fb_width, fb_height, o.fps.num,
                    o.fps.den, s.plan.video_encoder, s.plan.pix_fmt, o.output.c_str());
        return sample::stop_status();
    } catch (const std::exception &e) {
        std::fprintf(stderr, "glreader-viewer: %s\n", e.what());
        return 1;
    }
}
