"""What every test of the Python package shares: a time limit per test (a hang ends the
run with every thread's traceback, never waits forever), decoding with the system's
ffmpeg, and a moderngl scene that draws a frame counter."""
import faulthandler
import os
import subprocess
import sys

import pytest

TEST_SECONDS = 120
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(autouse=True)
def time_limit():
    faulthandler.dump_traceback_later(TEST_SECONDS, exit=True, file=sys.stderr)
    yield
    faulthandler.cancel_dump_traceback_later()


@pytest.fixture
def shaders():
    return os.path.join(REPO, "samples", "shaders")


def decode_frames(path, width, height):
    """Every frame of path's video as RGBA bytes, in order."""
    raw = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-f", "rawvideo", "-pix_fmt", "rgba", "-"],
                         check=True, capture_output=True, timeout=60).stdout
    size = width * height * 4
    assert len(raw) % size == 0, f"{path}: {len(raw)} bytes are no whole number of {width}x{height} frames"
    return [raw[i:i + size] for i in range(0, len(raw), size)]


def decode_sound(path, rate):
    """The first sound track of path as interleaved stereo float32 samples at rate (as
    decoded, not resampled: rate names what the track holds)."""
    import numpy

    raw = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-map", "0:a:0", "-f", "f32le", "-ac", "2", "-ar",
                          str(rate), "-"], check=True, capture_output=True, timeout=60).stdout
    return numpy.frombuffer(raw, numpy.float32)


def export_program():
    program = os.environ.get("GLREADER_EXPORT")
    assert program, "GLREADER_EXPORT names the glreader-export the tests compare with (ctest sets it)"
    return program


COUNTER = """
#version 330
out vec4 colour;
uniform int frame;
void main() { colour = vec4(float(frame) / 255.0, gl_FragCoord.x / 255.0, gl_FragCoord.y / 255.0, 1.0); }
"""
QUAD = """
#version 330
in vec2 corner;
void main() { gl_Position = vec4(corner, 0.0, 1.0); }
"""


class CounterScene:
    """A moderngl standalone context (EGL) drawing frame n as (n, x, y, 255) into a
    framebuffer of its own texture: red counts frames, green the column, blue the row from
    the bottom."""

    def __init__(self, width, height):
        import moderngl
        import numpy

        self.moderngl = moderngl
        self.width, self.height = width, height
        # 4.3, for the GPU conversion: NVIDIA gives the 3.3 moderngl asks for by default,
        # Mesa its newest whatever is asked.
        self.ctx = moderngl.create_standalone_context(backend="egl", require=430)
        self.program = self.ctx.program(vertex_shader=QUAD, fragment_shader=COUNTER)
        quad = self.ctx.buffer(numpy.array([-1, -1, 1, -1, -1, 1, 1, 1], numpy.float32).tobytes())
        self.vao = self.ctx.vertex_array(self.program, [(quad, "2f", "corner")])
        self.texture = self.ctx.texture((width, height), 4)
        self.fbo = self.ctx.framebuffer(color_attachments=[self.texture])

    def draw(self, n):
        self.fbo.use()
        self.program["frame"] = n
        self.vao.render(self.moderngl.TRIANGLE_STRIP)

    def upright(self):
        """The framebuffer as moderngl reads it (bottom row first), top row first."""
        rows, size = self.fbo.read(components=4), self.width * 4
        return b"".join(rows[y * size:(y + 1) * size] for y in reversed(range(self.height)))
