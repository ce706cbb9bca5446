"""glreader.Recorder in moderngl's own context: frames decoded pixel for pixel as moderngl
reads them, a frame counter through the GPU YUV path decoded in order and upright, sound
pushed from numpy (at its pts, after a gap) or muxed from a file sample for sample, progress
after each write, pipe, URL and overwritten outputs, moderngl rendering on and its GL
state read back untouched, misuse refused with words, and an OpenGL 3.3 context told how
to get 4.3 (or to convert on the CPU)."""
import os
import socket
import subprocess
import sys
import threading

import moderngl
import numpy
import pytest

import glreader
from conftest import CounterScene, decode_frames, decode_sound, ffmpeg_has_device_type, gl_state

WIDTH, HEIGHT = 64, 32


@pytest.fixture
def scene():
    s = CounterScene(WIDTH, HEIGHT)
    yield s
    s.ctx.release()


def test_frames_are_moderngl_s_pixels_exactly(tmp_path, scene):
    out = tmp_path / "exact.mkv"
    expected = []
    with glreader.Recorder(out, (WIDTH, HEIGHT), codec="ffv1") as rec:
        for n in range(12):
            scene.draw(n)
            expected.append(scene.upright())
            rec.write(scene.fbo if n % 2 else scene.texture)  # a framebuffer or its texture
    assert rec.stats["frames_encoded"] == 12
    assert decode_frames(str(out), WIDTH, HEIGHT) == expected


def test_the_gpu_yuv_path_keeps_every_frame_in_order_and_upright(tmp_path, scene):
    out = tmp_path / "counter.mp4"
    rec = glreader.Recorder(out, (WIDTH, HEIGHT), fps=25, codec="libx264", codec_options={"crf": 0, "preset": "ultrafast"})
    for n in range(0, 240, 8):
        scene.draw(n)
        rec.write(scene.fbo)
    stats = rec.close()
    assert stats["gpu_convert"] and stats["ring_format"] == "yuv420p", stats
    assert stats["zero_copy_frames"] + stats["copied_frames"] == 30 and stats["converted_frames"] == 0
    assert all(stats[stage]["count"] > 0 for stage in ("capture", "readback", "encode"))
    frames = decode_frames(str(out), WIDTH, HEIGHT)
    assert [round(f[0] / 8) for f in frames] == list(range(30)), "every frame, in order"
    top, bottom = frames[0][2], frames[0][(HEIGHT - 1) * WIDTH * 4 + 2]
    assert top > bottom, "upright: blue grows upwards in GL, so the top row is the bluest"
    assert rec.close() == stats, "closing again gives the same statistics"


def test_sound_pushed_from_numpy_is_muxed_whole(tmp_path, scene):
    out = tmp_path / "sound.mkv"
    rate = 48000
    pushed = []
    with glreader.Recorder(out, (WIDTH, HEIGHT), fps=25, codec="ffv1", audio_codec="flac", audio_rate=rate) as rec:
        for n in range(25):
            scene.draw(n)
            rec.write(scene.fbo)
            t = numpy.arange(n * rate // 25, (n + 1) * rate // 25) / rate
            tone = (0.25 * numpy.sin(2 * numpy.pi * 440 * t)).astype(numpy.float32)
            pushed.append(numpy.repeat(tone, 2))  # interleaved stereo
            rec.write_audio(pushed[-1])
    assert rec.stats["audio_samples_encoded"] == rate
    # FLAC keeps what it is given (at its 16 bits a sample): the pushed samples, in order.
    muxed, pushed = decode_sound(str(out), rate), numpy.concatenate(pushed)
    assert muxed.shape == pushed.shape, f"{muxed.shape[0] // 2} samples muxed, {pushed.shape[0] // 2} pushed"
    assert numpy.abs(muxed - pushed).max() <= 1 / 32768, "the muxed sound is the pushed sound within 16 bits"


def test_moderngl_renders_on_as_before_after_captures(tmp_path, scene):
    scene.draw(3)
    # State that no default has: a guest that sets its own and does not put the host's back
    # changes one of these.
    scene.ctx.enable(moderngl.BLEND | moderngl.CULL_FACE)
    scene.ctx.scissor = (1, 2, 30, 20)
    scene.ctx.viewport = (3, 1, 40, 20)
    texture = scene.ctx.texture((4, 4), 4)
    texture.use(location=2)
    pixels = scene.ctx.buffer(reserve=64)
    pixels.bind_to_storage_buffer(0)
    scene.fbo.use()
    before = gl_state()
    with glreader.Recorder(tmp_path / "state.mkv", (WIDTH, HEIGHT), codec="ffv1") as rec:
        rec.write(scene.fbo)
        assert gl_state() == before, "a capture leaves the host's GL state as it was"
        scene.ctx.disable(moderngl.BLEND | moderngl.CULL_FACE)
        scene.ctx.scissor = None
        scene.ctx.viewport = (0, 0, WIDTH, HEIGHT)
        # No rebinding: the framebuffer, program and vertex array moderngl set are in force.
        scene.program["frame"] = 77
        scene.vao.render(moderngl.TRIANGLE_STRIP)
        assert scene.fbo.read(components=4)[0] == 77
        rec.write(scene.fbo)
        during = gl_state()
    assert gl_state() == during, "closing the recorder leaves the host's GL state as it was"


def test_misuse_is_refused_with_words(tmp_path, scene, capfd, caplog):
    kept = tmp_path / "kept.mp4"
    kept.write_bytes(b"precious")
    with pytest.raises(FileExistsError, match="already exists: overwrite=True replaces it"):
        glreader.Recorder(kept, (WIDTH, HEIGHT))
    assert kept.read_bytes() == b"precious"
    capfd.readouterr()
    with pytest.raises(ValueError, match="'nope' is no video encoder"):
        glreader.Recorder(tmp_path / "a.mp4", (WIDTH, HEIGHT), codec="nope")
    said = capfd.readouterr().err + "".join(r.getMessage() for r in caplog.records)
    assert "'nope'" not in said, f"the error is the exception, not a printed line as well: {said}"
    with pytest.raises(ValueError):
        glreader.Recorder(tmp_path / "b.mp4", (0, HEIGHT))

    rec = glreader.Recorder(tmp_path / "c.mkv", (WIDTH, HEIGHT), codec="ffv1")
    with pytest.raises(ValueError, match="Framebuffer or Texture"):
        rec.write("not a framebuffer")
    with pytest.raises(ValueError, match="no pushed sound"):
        rec.write_audio(numpy.zeros(4, numpy.float32))
    scene.draw(0)
    rec.write(scene.fbo)
    caught = []

    def elsewhere():
        try:
            rec.write(scene.fbo)
        except ValueError as e:
            caught.append(str(e))

    other = threading.Thread(target=elsewhere)
    other.start()
    other.join(timeout=60)
    assert caught and "another thread" in caught[0]
    rec.close()
    with pytest.raises(ValueError, match="closed"):
        rec.write(scene.fbo)


def test_hardware_frames_are_the_readback_s_frames_with_nothing_read_back(tmp_path, scene):
    # Vulkan frames on lavapipe (the device behind llvmpipe's GL context), each copied to
    # memory for FFV1, an encoder on the CPU: the same bytes as the ring's readback.
    def record(name, **hw):
        out = tmp_path / name
        with glreader.Recorder(out, (WIDTH, HEIGHT), codec="ffv1", pix_fmt="yuv420p", **hw) as rec:
            for n in range(0, 192, 8):
                scene.draw(n)
                rec.write(scene.fbo)
        return rec.stats, decode_frames(str(out), WIDTH, HEIGHT)

    # Every FFmpeg this suite runs with has Vulkan (as vulkan_frames_test requires): one
    # without is a failure here, not a refusal to pass on.
    assert ffmpeg_has_device_type("vulkan"), "the FFmpeg loaded has no Vulkan"
    hw_stats, hw_frames = record("hw.mkv", hw_frames="on", hw_device="vulkan")
    assert hw_stats["hw_frames"] and hw_stats["transferred_frames"] == 24 and hw_stats["frames_encoded"] == 24, hw_stats
    assert hw_stats["zero_copy_frames"] + hw_stats["copied_frames"] + hw_stats["converted_frames"] == 0, hw_stats
    assert hw_stats["capture"]["count"] == 24 and hw_stats["readback"]["count"] == 0, "nothing read back"
    read_stats, read_frames = record("read.mkv", hw_frames="off")
    assert not read_stats["hw_frames"] and read_stats["transferred_frames"] == 0, read_stats
    assert [round(f[0] / 8) for f in hw_frames] == list(range(24)), "every frame, in order"
    assert hw_frames == read_frames
    auto_stats, _ = record("auto.mkv")
    assert not auto_stats["hw_frames"], "auto reads back for an encoder on the CPU"


def test_hardware_frames_refusals_say_what_is_wrong(tmp_path, scene):
    out = tmp_path / "never.mkv"
    for hw, error, words in (({"hw_frames": "always"}, ValueError, "hw_frames"),
                             ({"hw_device": "opencl"}, ValueError, "Vulkan's or CUDA's here"),
                             ({"hw_frames": "on", "gpu_convert": False}, ValueError, "give one"),
                             ({"hw_frames": "on", "hw_device": "vulkan:no-such-gpu"}, glreader.Error,
                              "hardware frames cannot start: no Vulkan device named no-such-gpu")):
        with pytest.raises(error, match=words):
            glreader.Recorder(out, (WIDTH, HEIGHT), codec="ffv1", pix_fmt="yuv420p", **hw)
        assert not out.exists(), f"{hw}: refused before the output exists"


def test_no_current_context_is_an_error_not_a_crash(tmp_path):
    rec = glreader.Recorder(tmp_path / "nothing.mkv", (WIDTH, HEIGHT), codec="ffv1")
    caught = []

    def without_context():  # a new thread has no GL context current
        try:
            rec.write(0)
        except glreader.Error as e:
            caught.append(e)

    worker = threading.Thread(target=without_context)
    worker.start()
    worker.join(timeout=60)
    assert caught, "refused"
    assert "context" in str(caught[0]).lower(), str(caught[0])
    rec.close()


# A context of OpenGL 3.3 (what moderngl asks for, and what NVIDIA then gives; Mesa is told
# to report it), in a process of its own: the GPU conversion is refused, saying what to
# change in Python, and gpu_convert=False records on the CPU.
OLD_CONTEXT = """
import sys, moderngl, glreader
ctx = moderngl.create_standalone_context(backend="egl")
print(ctx.version_code, flush=True)
fbo = ctx.simple_framebuffer((64, 48))
with glreader.Recorder(sys.argv[1], (64, 48), codec="libx264") as rec:
    try:
        rec.write(fbo)
    except glreader.Error as error:
        print(error, flush=True)
with glreader.Recorder(sys.argv[2], (64, 48), codec="libx264", gpu_convert=False) as rec:
    for _ in range(3):
        rec.write(fbo)
"""


def test_an_opengl_3_3_context_is_told_how_to_get_4_3_or_to_convert_on_the_cpu(tmp_path):
    refused, cpu = tmp_path / "refused.mp4", tmp_path / "cpu.mp4"
    done = subprocess.run([sys.executable, "-c", OLD_CONTEXT, str(refused), str(cpu)], capture_output=True, text=True,
                          timeout=120, env=dict(os.environ, MESA_GL_VERSION_OVERRIDE="3.3"))
    assert done.returncode == 0, done.stderr[-3000:]
    version, message = done.stdout.splitlines()[:2]
    assert version == "330"
    assert "needs compute shaders" in message and "require=430" in message and "gpu_convert=False" in message, message
    assert len(decode_frames(str(cpu), 64, 48)) == 3


def test_a_sound_file_progress_and_pushed_sound_with_a_gap(tmp_path, scene):
    rate = 48000
    song = tmp_path / "song.flac"
    subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", f"sine=frequency=330:duration=1:sample_rate={rate}",
                    "-ac", "2", str(song)], check=True, timeout=60)
    out, seen = tmp_path / "song.mkv", []
    with glreader.Recorder(out, (WIDTH, HEIGHT), fps=25, codec="ffv1", audio=song, audio_codec="flac",
                           progress=seen.append) as rec:
        for n in range(25):
            scene.draw(n)
            rec.write(scene.fbo)
    assert len(seen) == 25 and all(s["frames_written"] == n + 1 for n, s in enumerate(seen)), "after each write()"
    muxed, original = decode_sound(str(out), rate), decode_sound(str(song), rate)
    assert muxed.shape == original.shape and (muxed == original).all(), "the file's sound, sample for sample"

    # pts: the second half second pushed at its place; the first is silence.
    gap = tmp_path / "gap.mkv"
    half = rate // 2
    tone = numpy.repeat((0.25 * numpy.sin(numpy.arange(half) * 0.05)).astype(numpy.float32), 2)
    with glreader.Recorder(gap, (WIDTH, HEIGHT), fps=25, codec="ffv1", audio_codec="flac", audio_rate=rate) as rec:
        for n in range(25):
            scene.draw(n)
            rec.write(scene.fbo)
        rec.write_audio(tone, pts=half)
    sound = decode_sound(str(gap), rate)
    assert sound.shape[0] == 2 * rate
    assert not sound[:2 * half].any(), "silence before the pushed samples' pts"
    assert numpy.abs(sound[2 * half:] - tone).max() <= 1 / 32768


def test_pipe_and_url_outputs_and_overwrite(tmp_path, scene):
    expected = []
    def record(output, **options):
        expected.clear()
        with glreader.Recorder(output, (WIDTH, HEIGHT), codec="ffv1", container="nut", **options) as rec:
            for n in range(5):
                scene.draw(n)
                expected.append(scene.upright())
                rec.write(scene.fbo)

    def drain(stream, into):
        into.write(stream.read())

    read, write = os.pipe()
    piped = tmp_path / "piped.nut"
    with open(piped, "wb") as f, os.fdopen(read, "rb") as reader:
        worker = threading.Thread(target=drain, args=(reader, f))
        worker.start()
        record(f"pipe:{write}")
        os.close(write)
        worker.join(timeout=60)
    assert decode_frames(str(piped), WIDTH, HEIGHT) == expected, "pipe:N"

    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(60)
    received = tmp_path / "received.nut"

    def receive():
        connection, _ = server.accept()
        with connection, open(received, "wb") as f:
            connection.settimeout(60)
            while chunk := connection.recv(1 << 16):
                f.write(chunk)

    worker = threading.Thread(target=receive)
    worker.start()
    try:
        record(f"tcp://127.0.0.1:{server.getsockname()[1]}")
        worker.join(timeout=60)
    finally:
        server.close()
    assert decode_frames(str(received), WIDTH, HEIGHT) == expected, "a URL"

    kept = tmp_path / "kept.nut"
    kept.write_bytes(b"old")
    record(kept, overwrite=True)
    assert decode_frames(str(kept), WIDTH, HEIGHT) == expected, "overwrite=True replaces the file"
