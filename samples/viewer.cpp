// glreader-viewer: shows a scene in a GLFW window and records what the window shows while
// it runs. The host owns the GL context (GLFW, GLX or EGL underneath); glreader only gets
// glfwGetProcAddress and reads the window's back buffer through the ring before each swap.
//
//   glreader-viewer [-s 1280x720] [-r 60] [-n FRAMES] [-c CODEC] [--shader FILE|DIR]
//                   [--channel0..3 SPEC] [-o FILE] [-y]
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

#include "glreader/encoder.hpp"
#include "glreader/glreader.hpp"

#include <GLFW/glfw3.h>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavutil/log.h>
}

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace {

struct options {
    int width = 1280, height = 720;
    sample::frame_rate fps{60, 1};
    int frames = 0; // 0: until the window closes
    std::string codec, output;
    sample::project_options project; // --shader, --channelN
    bool overwrite = false;
};

const std::string usage_text =
    std::string("usage: glreader-viewer [-s WxH] [-r FPS] [-n FRAMES] [-c CODEC] [--shader FILE|DIR]\n"
                "         [--channel0..3 SPEC] [-o FILE] [-y]\n"
                "  (-y overwrites an existing file, which is refused otherwise)\n") +
    sample::project_usage;

options parse(int argc, char **argv)
{
    options o;
    sample::command_line args(argc, argv, usage_text.c_str());
    while (args.next()) {
        if (args.is("-s"))
            args.size(o.width, o.height);
        else if (args.is("-r"))
            o.fps = args.rate();
        else if (args.is("-n"))
            o.frames = args.count(1, INT_MAX);
        else if (args.is("-c"))
            o.codec = args.value();
        else if (o.project.read(args))
            continue;
        else if (args.is("-o"))
            o.output = args.value();
        else if (args.is("-y"))
            o.overwrite = true;
        else
            args.fail("unknown option " + args.option());
    }
    if (o.codec.empty())
        o.codec = avcodec_find_encoder_by_name("libx264") ? "libx264" : "ffv1";
    if (o.output.empty())
        o.output = o.codec == "libx264" ? "glreader-viewer.mp4" : "glreader-viewer.mkv";
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
    av_log_set_level(AV_LOG_WARNING);
    sample::catch_stop_signals();
    try {
        glfw_window w(o.width, o.height, "glreader viewer: recording to " + o.output);
        auto loader = reinterpret_cast<glr_get_proc_address_fn>(glfwGetProcAddress);
        int fb_width = 0, fb_height = 0;
        glfwGetFramebufferSize(w.window, &fb_width, &fb_height); // differs on HiDPI screens

        sample::program_log log = sample::make_program_log(); // errors reach the user once
        sample::project_scene scene(o.project, fb_width, fb_height, o.fps, loader, "", log.get());
        const GladGLContext &gl = scene.gl();

        glr_ring_params rp{};
        rp.width = fb_width;
        rp.height = fb_height;
        rp.format = GLR_FORMAT_BGRA8;
        rp.get_proc_address = loader; // the host's loader: glreader keeps its own table
        glr::ring ring(rp, log.get());
        glr_encoder_params ep{};
        ep.width = fb_width;
        ep.height = fb_height;
        ep.format = rp.format;
        ep.fps_num = o.fps.num;
        ep.fps_den = o.fps.den;
        ep.codec = o.codec.c_str();
        ep.output = o.output.c_str();
        ep.output_flags = o.overwrite ? 0 : GLR_OUTPUT_NO_OVERWRITE;
        glr::encoder enc(ep, log.get());
        auto record = [&](glr::frame &&f) { enc.submit(std::move(f)); };
        std::fprintf(stderr, "glreader-viewer: recording to %s (Esc, q, closing the window, Ctrl-C or SIGTERM stop "
                             "and finalize it)\n",
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
            ring.capture(glr::framebuffer_source(0), frame, record);
            glfwSwapBuffers(w.window);
            glfwPollEvents();
            if (glfwGetKey(w.window, GLFW_KEY_ESCAPE) == GLFW_PRESS || glfwGetKey(w.window, GLFW_KEY_Q) == GLFW_PRESS)
                glfwSetWindowShouldClose(w.window, GLFW_TRUE);
            frame++;
        }
        ring.drain(record);
        enc.finish();
        std::printf("recorded %llu frames (%dx%d, %d/%d fps, %s) to %s\n",
                    static_cast<unsigned long long>(enc.stats().frames_encoded), fb_width, fb_height,
                    o.fps.num, o.fps.den, o.codec.c_str(), o.output.c_str());
        return sample::stop_status();
    } catch (const std::exception &e) {
        std::fprintf(stderr, "glreader-viewer: %s\n", e.what());
        return 1;
    }
}
