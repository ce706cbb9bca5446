#!/usr/bin/env python3
"""One Python cell of `glreader-bench compare`.

Draws the benchmark's scene into a moderngl EGL framebuffer and moves the frames by one
engine:
  turbopipe            the real TurboPipe (PyPI): fbo.read_into(buffer), turbopipe.pipe(buffer,
                       fd) to an `ffmpeg -f rawvideo -i - ARGS` child; N buffers, each synced
                       before it is read into again (TurboPipe's README loop)
  glreader.turbopipe   the same loop, the same lines, with `import glreader.turbopipe`
  glreader.Recorder    recorder.write(fbo): no buffer, no child; GPU YUV and the in-process
                       encoder (--codec, --codec-options, --pix-fmt: the same work as ARGS)
--render draws the scene anew every frame (iTime advancing): the whole path, render included.
Without it the scene is drawn once and only the readback and hand-off repeat; with
--no-readback too, the first frame is read once and the same buffers are piped again
(TurboPipe's transport alone, its own README benchmark).
Prints "fps N", "frames N", "cpu_seconds S" (this process's threads and the ffmpeg child's)
and "stage NAME MS" lines: milliseconds per frame spent in each step of the loop, and
"render_alone", one frame's drawing timed on its own before the run (glFinish after each),
which is what the rasterizer alone costs (on llvmpipe, the CPU's). ARGS follow "--".
"""
import argparse
import importlib
import resource
import subprocess
import sys
import time

import moderngl

SCENE = """
#version 330
uniform vec3 iResolution;
uniform float iTime;
out vec4 colour;
void mainImage(out vec4 c, in vec2 p) {
    vec2 uv = p / iResolution.xy;
    c = vec4(uv, 0.5 + 0.5 * sin(iTime * 3.0 + uv.x * 10.0), 1.0);
}
void main() { mainImage(colour, gl_FragCoord.xy); }
"""

FULLSCREEN = """
#version 330
void main() {
    vec2 p = vec2(float((gl_VertexID & 1) << 2) - 1.0, float((gl_VertexID & 2) << 1) - 1.0);
    gl_Position = vec4(p, 0.0, 1.0);
}
"""

ENGINES = ("turbopipe", "glreader.turbopipe", "glreader.Recorder")


class Stages:
    """Seconds spent in each named step of the loop."""

    def __init__(self) -> None:
        self.seconds: dict = {}

    def timed(self, name: str, step, *args) -> None:
        start = time.perf_counter()
        step(*args)
        self.seconds[name] = self.seconds.get(name, 0.0) + time.perf_counter() - start


class Scene:
    def __init__(self, ctx: moderngl.Context, width: int, height: int) -> None:
        self.fbo = ctx.simple_framebuffer((width, height), components=4)
        self.program = ctx.program(vertex_shader=FULLSCREEN, fragment_shader=SCENE)
        self.program["iResolution"].value = (width, height, 1.0)
        self.vao = ctx.vertex_array(self.program, [])

    def draw(self, n: int) -> None:
        self.fbo.use()
        self.program["iTime"].value = n / 60.0
        self.vao.render(moderngl.TRIANGLES, vertices=3)


def render_alone_ms(ctx: moderngl.Context, scene: Scene, frames: int = 10) -> float:
    start = time.perf_counter()
    for n in range(frames):
        scene.draw(n)
        ctx.finish()
    return (time.perf_counter() - start) * 1000 / frames


def pipe_loop(o, ctx, scene, more, stages) -> int:
    """TurboPipe's README loop, with whichever module o.engine names."""
    turbopipe = importlib.import_module(o.engine)
    buffers = [ctx.buffer(reserve=o.width * o.height * 4) for _ in range(o.buffers)]
    views = [buffer.mglo for buffer in buffers]  # TurboPipe 2.1 takes its buffer protocol
    for buffer in buffers:
        scene.fbo.read_into(buffer)
    command = [o.ffmpeg, "-hide_banner", "-loglevel", "error", "-f", "rawvideo", "-pix_fmt", "rgba",
               "-video_size", f"{o.width}x{o.height}", "-framerate", "60", "-i", "-", *o.ffmpeg_args]
    ffmpeg = subprocess.Popen(command, stdin=subprocess.PIPE)
    fd = ffmpeg.stdin.fileno()
    done = 0
    while more(done):
        i = done % len(buffers)
        if o.render:
            stages.timed("draw", scene.draw, done)
        stages.timed("sync", turbopipe.sync, views[i])
        if not o.no_readback:
            stages.timed("read_back", scene.fbo.read_into, buffers[i])
        stages.timed("pipe", turbopipe.pipe, views[i], fd)
        done += 1

    def finish() -> None:
        for view in views:
            turbopipe.sync(view)
        ffmpeg.stdin.close()
        if ffmpeg.wait() != 0:
            raise SystemExit(f"ffmpeg exited with status {ffmpeg.returncode}")
        for view in views:
            turbopipe.done(view)

    stages.timed("finish", finish)
    return done


def recorder_loop(o, ctx, scene, more, stages) -> int:
    import glreader

    recorder = glreader.Recorder("/dev/null", (o.width, o.height), fps=60, codec=o.codec, pix_fmt=o.pix_fmt,
                                 codec_options=o.codec_options or None, container="null", overwrite=True)
    done = 0
    while more(done):
        if o.render:
            stages.timed("draw", scene.draw, done)
        stages.timed("write", recorder.write, scene.fbo)
        done += 1
    stats = {}
    stages.timed("finish", lambda: stats.update(recorder.close()))
    if stats["frames_encoded"] != done:
        raise SystemExit(f"the recorder encoded {stats['frames_encoded']} of {done} frames")
    return done


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--engine", choices=ENGINES, default="turbopipe")
    parser.add_argument("--width", type=int, required=True)
    parser.add_argument("--height", type=int, required=True)
    parser.add_argument("--buffers", type=int, default=1)
    parser.add_argument("--frames", type=int, default=600)
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--ffmpeg", default="ffmpeg")
    parser.add_argument("--render", action="store_true")
    parser.add_argument("--no-readback", action="store_true")
    parser.add_argument("--codec", default="wrapped_avframe")
    parser.add_argument("--codec-options", default="")
    parser.add_argument("--pix-fmt", default="yuv420p")
    parser.add_argument("args", nargs=argparse.REMAINDER)
    o = parser.parse_args()
    o.ffmpeg_args = o.args[1:] if o.args[:1] == ["--"] else o.args
    if o.engine == "glreader.Recorder" and (o.no_readback or not o.render):
        parser.error("the Recorder reads back what it is given each frame: use it with --render")

    # The loaders' sonames (a machine without GL development packages has no libGL.so), and
    # OpenGL 4.3 for the Recorder's GPU conversion (moderngl asks for 3.3, which NVIDIA gives).
    ctx = moderngl.create_standalone_context(backend="egl", require=430, libgl="libGL.so.1", libegl="libEGL.so.1")
    scene = Scene(ctx, o.width, o.height)
    scene.draw(0)
    stage_ms = {"render_alone": render_alone_ms(ctx, scene)}
    stages = Stages()
    start = time.perf_counter()
    cpu_start = time.process_time()  # every thread of this process: writers, encoder, driver

    def more(done: int) -> bool:
        return done < o.frames and (done < 5 or time.perf_counter() - start < o.seconds)

    done = (recorder_loop if o.engine == "glreader.Recorder" else pipe_loop)(o, ctx, scene, more, stages)
    elapsed = time.perf_counter() - start
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = time.process_time() - cpu_start + children.ru_utime + children.ru_stime
    print(f"fps {done / elapsed:.3f}")
    print(f"frames {done}")
    print(f"cpu_seconds {cpu:.4f}")
    stage_ms.update({name: seconds * 1000 / done for name, seconds in stages.seconds.items()})
    for name, ms in stage_ms.items():
        print(f"stage {name} {ms:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
