"""What every test of the Python package shares: a time limit per test (a hang ends the
run with every thread's traceback, never waits forever), decoding with the system's
ffmpeg, what the FFmpeg glreader loaded was built with, a moderngl scene that draws a
frame counter, and a check of every refusal pytest.raises catches: no library function's
name in what the user is told."""
import ctypes
import faulthandler
import os
import re
import subprocess
import sys

import pytest

TEST_SECONDS = 120
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


LIBRARY_NAME = re.compile(r"(^|: |\] )glr_[a-z0-9_]+: ")


def assert_user_words(message):
    """A glreader function's name is for the library's debug log: no message a user is shown
    opens with one, nor with one after a prefix of ours or FFmpeg's."""
    for line in message.splitlines():
        assert not LIBRARY_NAME.search(line), f"a user is told a library function's name: {line}"


def _raises_in_user_words(*args, **kwargs):
    """pytest.raises, and every refusal it catches is checked with assert_user_words: so each
    refusal the suite triggers is."""
    raised = _pytest_raises(*args, **kwargs)
    if len(args) > 1:  # the form that calls a function: the exception is caught already
        assert_user_words(str(raised.value))
        return raised

    class Checked:
        def __enter__(self):
            return raised.__enter__()

        def __exit__(self, kind, value, traceback):
            caught = raised.__exit__(kind, value, traceback)
            if caught and value is not None:
                assert_user_words(str(value))
            return caught

    return Checked()


_pytest_raises = pytest.raises
pytest.raises = _raises_in_user_words


@pytest.fixture(autouse=True)
def time_limit():
    faulthandler.dump_traceback_later(TEST_SECONDS, exit=True, file=sys.stderr)
    yield
    faulthandler.cancel_dump_traceback_later()


def ffmpeg_has_device_type(name):
    """Whether the libavutil glreader's module loaded (the system's, or the GPU bundle's) was
    built with hardware device type name ("vulkan"): asked of FFmpeg itself, not of glreader."""
    import glreader  # noqa: F401 (loads the module, and with it its libavutil)
    with open("/proc/self/maps") as maps:
        paths = {line.split()[-1] for line in maps if "/libavutil.so" in line}
    assert len(paths) == 1, f"one libavutil loaded, not {paths}"
    avutil = ctypes.CDLL(paths.pop())
    wanted = avutil.av_hwdevice_find_type_by_name(name.encode())
    kind = avutil.av_hwdevice_iterate_types(0)
    while kind != 0:
        if kind == wanted:
            return True
        kind = avutil.av_hwdevice_iterate_types(kind)
    return False


@pytest.fixture
def shaders():
    return os.path.join(REPO, "samples", "shaders")


def frame_times(path):
    """The video frames' timestamps of path, in seconds, in order (ffprobe's)."""
    import json

    shown = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
                            "frame=best_effort_timestamp_time", "-of", "json", path],
                           check=True, capture_output=True, text=True, timeout=60).stdout
    return [float(f["best_effort_timestamp_time"]) for f in json.loads(shown)["frames"]]


def decode_frames(path, width, height):
    """Every frame of path's video as RGBA bytes, in order."""
    raw = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-f", "rawvideo", "-pix_fmt", "rgba", "-"],
                         check=True, capture_output=True, timeout=60).stdout
    size = width * height * 4
    assert len(raw) % size == 0, f"{path}: {len(raw)} bytes are no whole number of {width}x{height} frames"
    return [raw[i:i + size] for i in range(0, len(raw), size)]


def sound_timing(path):
    """When path's first sound track plays, from its decoded frames' timestamps: (start,
    breaks, precision) in seconds: its first frame's time after the first picture's (after
    the file's start in a file of sound alone), the times of frames that do not follow the
    one before (gaps, overlaps), and one tick of its time base (Matroska's millisecond),
    within which a timestamp says where a frame plays."""
    import json

    shown = json.loads(subprocess.run(
        ["ffprobe", "-v", "error", "-show_entries", "stream=index,codec_type,start_time,time_base,sample_rate",
         "-of", "json", path], check=True, capture_output=True, text=True, timeout=60).stdout)["streams"]
    sound = next(s for s in shown if s["codec_type"] == "audio")
    picture = next((s for s in shown if s["codec_type"] == "video"), None)
    origin = float(picture["start_time"]) if picture else min(float(s["start_time"]) for s in shown)
    frames = json.loads(subprocess.run(
        ["ffprobe", "-v", "error", "-select_streams", f"{sound['index']}", "-show_entries",
         "frame=best_effort_timestamp_time,nb_samples", "-of", "json", path],
        check=True, capture_output=True, text=True, timeout=60).stdout)["frames"]
    numerator, denominator = (int(v) for v in sound["time_base"].split("/"))
    precision = max(numerator / denominator, 1 / int(sound["sample_rate"]))
    breaks, end = [], None
    for f in frames:
        at = float(f["best_effort_timestamp_time"])
        if end is not None and abs(at - end) > precision:
            breaks.append(at - origin)
        end = at + int(f["nb_samples"]) / int(sound["sample_rate"])
    return float(frames[0]["best_effort_timestamp_time"]) - origin, breaks, precision


def decode_sound(path, rate, starts=0.0):
    """The first sound track of path as interleaved stereo float32 samples at rate (as
    decoded, not resampled: rate names what the track holds), on the file's timeline: its
    timestamps place it (silence before a late start). Asserts that it plays `starts` seconds
    after the first picture, without a break, so that no comparison of sound can pass a
    track out of step with the pictures."""
    import numpy

    start, breaks, precision = sound_timing(path)
    assert abs(start - starts) <= precision, f"{path}: the sound starts at {start} s, not {starts} s"
    assert not breaks, f"{path}: the sound breaks at {breaks[:3]} s"
    raw = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-map", "0:a:0", "-af",
                          "aresample=async=1:min_hard_comp=0.002:first_pts=0", "-f", "f32le", "-ac", "2", "-ar",
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


def gl_state():
    """The current context's state that a guest could change, read back through GL itself
    (libGL's dispatch reaches the context moderngl made current): bindings, pixel storage,
    the viewport, scissor, blending and the texture units. A dict of name: values."""
    import ctypes

    gl = ctypes.CDLL("libGL.so.1")
    gl.glIsEnabled.restype = ctypes.c_ubyte

    def ints(pname, n=1):
        values = (ctypes.c_int * 4)(-7, -7, -7, -7)
        gl.glGetIntegerv(pname, values)
        return tuple(values[:n])

    names = {"read framebuffer": 0x8CAA, "draw framebuffer": 0x8CA6, "read buffer": 0x0C02,
             "draw buffer 0": 0x8825, "renderbuffer": 0x8CA7, "pack buffer": 0x88ED, "unpack buffer": 0x88EF,
             "array buffer": 0x8894, "element array buffer": 0x8895, "uniform buffer": 0x8A28,
             "program": 0x8B8D, "vertex array": 0x85B5, "active texture": 0x84E0,
             "pack alignment": 0x0D05, "pack row length": 0x0D02, "pack skip rows": 0x0D03,
             "pack skip pixels": 0x0D04, "unpack alignment": 0x0CF5, "unpack row length": 0x0CF2,
             "blend src rgb": 0x80C9, "blend dst rgb": 0x80C8, "clamp read colour": 0x891C}
    state = {name: ints(pname) for name, pname in names.items()}
    state["viewport"] = ints(0x0BA2, 4)
    state["scissor box"] = ints(0x0C10, 4)
    for name, cap in (("scissor test", 0x0C11), ("blend", 0x0BE2), ("framebuffer srgb", 0x8DB9),
                      ("depth test", 0x0B71), ("cull face", 0x0B44), ("stencil test", 0x0B90), ("dither", 0x0BD0)):
        state[name] = gl.glIsEnabled(cap)
    active = state["active texture"][0]
    for unit in range(4):
        gl.glActiveTexture(0x84C0 + unit)
        state[f"unit {unit} 2d"] = ints(0x8069)
        state[f"unit {unit} sampler"] = ints(0x8919)
    gl.glActiveTexture(active)
    assert gl.glGetError() == 0, "the state was read without a GL error"
    return state


# iMouse, iDate, iTime and iChannel0 in the picture, and an alpha that varies: the options
# that feed the shader show in its pixels (frame 0 shows iDate alone in blue).
INPUTS = """void mainImage(out vec4 c, in vec2 p) {
    vec4 picture = texture(iChannel0, p / iResolution.xy);
    c = vec4(iMouse.x / 255.0, iMouse.y / 255.0, fract(iDate.w / 60.0 + iTime), p.x / iResolution.x);
    if (p.y < 4.0) c.rgb = picture.rgb;
}
"""


def inputs_shader(folder):
    """INPUTS written as folder/inputs.frag, and a picture for its iChannel0
    (folder/noise.png); their paths."""
    shader, picture = folder / "inputs.frag", folder / "noise.png"
    shader.write_text(INPUTS)
    subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc2=s=16x8", "-frames:v", "1", str(picture)],
                   check=True, timeout=60)
    return shader, picture
