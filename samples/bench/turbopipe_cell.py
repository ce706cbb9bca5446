#!/usr/bin/env python3
"""One TurboPipe cell of `glreader-bench compare`.

Reads RGBA frames back from a moderngl EGL framebuffer (drawn once with the benchmark's
scene) into N moderngl buffers in turn and hands each to the real TurboPipe (PyPI), which
writes it to an `ffmpeg -f rawvideo -i - ARGS` child: TurboPipe's own README loop.
With --no-readback the first frame is read once and the same buffers are piped again
(TurboPipe's transport alone). Prints "fps N" on the last line. ARGS follow "--".
"""
import argparse
import resource
import subprocess
import sys
import time

import moderngl
import turbopipe

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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--width", type=int, required=True)
    parser.add_argument("--height", type=int, required=True)
    parser.add_argument("--buffers", type=int, default=1)
    parser.add_argument("--frames", type=int, default=600)
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--ffmpeg", default="ffmpeg")
    parser.add_argument("--no-readback", action="store_true")
    parser.add_argument("args", nargs=argparse.REMAINDER)
    o = parser.parse_args()
    ffmpeg_args = o.args[1:] if o.args[:1] == ["--"] else o.args

    ctx = moderngl.create_standalone_context(backend="egl")
    fbo = ctx.simple_framebuffer((o.width, o.height), components=4)
    fbo.use()
    program = ctx.program(vertex_shader=FULLSCREEN, fragment_shader=SCENE)
    program["iResolution"].value = (o.width, o.height, 1.0)
    ctx.vertex_array(program, []).render(moderngl.TRIANGLES, vertices=3)
    buffers = [ctx.buffer(reserve=o.width * o.height * 4) for _ in range(o.buffers)]
    # TurboPipe 2.1 takes any object with the buffer protocol: moderngl exposes it on mglo.
    views = [buffer.mglo for buffer in buffers]
    for buffer in buffers:
        fbo.read_into(buffer)

    command = [o.ffmpeg, "-hide_banner", "-loglevel", "error", "-f", "rawvideo", "-pix_fmt", "rgba",
               "-video_size", f"{o.width}x{o.height}", "-framerate", "60", "-i", "-", *ffmpeg_args]
    ffmpeg = subprocess.Popen(command, stdin=subprocess.PIPE)
    fd = ffmpeg.stdin.fileno()
    start = time.perf_counter()
    cpu_start = time.process_time()  # this process's threads, TurboPipe's writer included
    done = 0
    while done < o.frames and (done < 5 or time.perf_counter() - start < o.seconds):
        i = done % len(buffers)
        turbopipe.sync(views[i])
        if not o.no_readback:
            fbo.read_into(buffers[i])
        turbopipe.pipe(views[i], fd)
        done += 1
    for view in views:
        turbopipe.sync(view)
    ffmpeg.stdin.close()
    status = ffmpeg.wait()
    elapsed = time.perf_counter() - start
    ffmpeg_usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = time.process_time() - cpu_start + ffmpeg_usage.ru_utime + ffmpeg_usage.ru_stime
    for view in views:
        turbopipe.done(view)
    if status != 0:
        print(f"ffmpeg exited with status {status}", file=sys.stderr)
        return 1
    print(f"fps {done / elapsed:.3f}")
    print(f"frames {done}")
    print(f"cpu_seconds {cpu:.4f}")  # the loop's, plus the whole ffmpeg child's
    return 0


if __name__ == "__main__":
    sys.exit(main())
