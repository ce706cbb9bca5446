"""glreader.turbopipe as TurboPipe's users run it: writes in order per fd from bytes,
bytearray, memoryview, numpy and moderngl buffers; pipe() waiting for memory still queued;
sync, done, close in their 1.x and 2.x forms; TurboPipe 2.0's README loop on
memoryview(buffer.mglo), every frame's bytes; moderngl render loops into a real ffmpeg (one
buffer never synced; ShaderFlow's export loop and its finish, which closes stdin as soon as
sync(buffer) returned), every frame decoded in order; a reader that dies raising
BrokenPipeError, never killing the interpreter."""
import subprocess

import moderngl
import numpy
import pytest

import glreader.turbopipe as turbopipe
from conftest import CounterScene, decode_frames


@pytest.fixture
def cat(tmp_path):
    """A reader child that copies its standard input to a file."""
    out = tmp_path / "read.bin"
    with open(out, "wb") as sink:
        child = subprocess.Popen(["cat"], stdin=subprocess.PIPE, stdout=sink)
    yield child, out
    if child.poll() is None:
        child.stdin.close()
        child.wait(timeout=60)


def finish(child):
    turbopipe.sync()
    child.stdin.close()
    assert child.wait(timeout=60) == 0


def test_writes_keep_their_order_whatever_holds_the_bytes(cat):
    child, out = cat
    pieces = [bytes([n]) * 100_000 for n in range(8)]
    objects = [pieces[0], bytearray(pieces[1]), memoryview(pieces[2]), numpy.frombuffer(pieces[3], numpy.uint8),
               pieces[4], bytearray(pieces[5]), memoryview(bytearray(pieces[6])), numpy.full(100_000, 7, numpy.uint8)]
    for data in objects:
        turbopipe.pipe(data, child.stdin.fileno())
    finish(child)
    assert out.read_bytes() == b"".join(pieces)


def test_the_same_memory_waits_for_its_last_write_and_sync_finds_it_by_address(cat):
    child, out = cat
    frame = bytearray(1 << 20)
    for n in range(6):
        frame[:] = bytes([n]) * len(frame)  # after sync: the bytes are the reader's already
        turbopipe.pipe(frame, child.stdin)  # a file object, as TurboPipe 1.0 took it
        turbopipe.sync(memoryview(frame))   # another view of the same memory
    turbopipe.pipe(frame, child.stdin.fileno())
    turbopipe.pipe(frame, child.stdin.fileno())  # waits for the write before it
    turbopipe.done(frame)
    finish(child)
    data = out.read_bytes()
    assert [data[n << 20] for n in range(8)] == [0, 1, 2, 3, 4, 5, 5, 5]


def test_closing_one_fd_and_all_of_them(tmp_path):
    outs = [tmp_path / f"{n}.bin" for n in range(2)]
    children = []
    for out in outs:
        with open(out, "wb") as sink:
            children.append(subprocess.Popen(["cat"], stdin=subprocess.PIPE, stdout=sink))
    turbopipe.pipe(b"a" * 1000, children[0].stdin.fileno())
    turbopipe.pipe(b"b" * 1000, children[1].stdin.fileno())
    turbopipe.close(children[0].stdin.fileno())  # 2.0: that fd's writes out
    children[0].stdin.close()
    assert children[0].wait(timeout=60) == 0 and outs[0].read_bytes() == b"a" * 1000
    turbopipe.close()  # 1.x: everything out, every writer ended
    children[1].stdin.close()
    assert children[1].wait(timeout=60) == 0 and outs[1].read_bytes() == b"b" * 1000


def test_a_dead_reader_raises_broken_pipe_and_the_rest_goes_on(tmp_path):
    dead = subprocess.Popen(["true"], stdin=subprocess.PIPE)
    dead.wait(timeout=60)
    with pytest.raises(BrokenPipeError, match="EPIPE"):
        for _ in range(64):  # the first write may land before the error is known
            turbopipe.pipe(b"x" * 65536, dead.stdin.fileno())
            turbopipe.sync()
    dead.stdin.close()
    # A new reader, most likely on the number the dead one's pipe had: it starts afresh.
    out = tmp_path / "after.bin"
    with open(out, "wb") as sink:
        child = subprocess.Popen(["cat"], stdin=subprocess.PIPE, stdout=sink)
    turbopipe.pipe(b"still here", child.stdin.fileno())
    finish(child)
    assert out.read_bytes() == b"still here"


def test_shaderflows_export_loop_then_its_finish_delivers_every_frame(tmp_path):
    # ShaderFlow's ExportingHelper: two buffers; per frame sync(buffer), fbo.read_into(buffer),
    # pipe(buffer, fd); at the end sync and release each buffer, then close ffmpeg's stdin at
    # once. Nothing may still be on its way when sync(buffer) returns, or the close loses it.
    width, height, frames = 64, 32, 30
    scene = CounterScene(width, height)
    buffers = [scene.ctx.buffer(reserve=width * height * 4) for _ in range(2)]
    out = tmp_path / "shaderflow.mkv"
    ffmpeg = subprocess.Popen(["ffmpeg", "-v", "error", "-f", "rawvideo", "-pix_fmt", "rgba", "-s", f"{width}x{height}",
                               "-i", "-", "-c:v", "ffv1", "-y", str(out)], stdin=subprocess.PIPE)
    fileno = ffmpeg.stdin.fileno()
    for n in range(frames):
        scene.draw(n)
        buffer = buffers[n % len(buffers)]
        turbopipe.sync(buffer)
        scene.fbo.read_into(buffer, components=4)
        turbopipe.pipe(buffer, fileno)
    for buffer in buffers:
        turbopipe.sync(buffer)
        buffer.release()
    ffmpeg.stdin.close()
    assert ffmpeg.wait(timeout=120) == 0
    decoded = decode_frames(str(out), width, height)
    assert [f[0] for f in decoded] == list(range(frames)), "every frame, in order"
    scene.ctx.release()


def test_turbopipe_2_readme_loop_on_memoryviews_of_the_buffer_delivers_every_frame(cat):
    # TurboPipe 2.0's README and examples: sync(memoryview(buffer.mglo)), read_into(buffer),
    # pipe(memoryview(buffer.mglo), fd), and its shorter form without the sync. Each view is
    # a mapping of the buffer: held past the call, the next mapping or read_into fails.
    child, out = cat
    width, height, frames = 64, 32, 12
    scene = CounterScene(width, height)
    buffer = scene.ctx.buffer(reserve=width * height * 4)
    fileno = child.stdin.fileno()
    expected = []
    for n in range(frames):
        scene.draw(n)
        if n < frames // 2:
            turbopipe.sync(memoryview(buffer.mglo))
        scene.fbo.read_into(buffer, components=4)
        expected.append(scene.fbo.read(components=4))
        turbopipe.pipe(memoryview(buffer.mglo), fileno)
    turbopipe.sync(memoryview(buffer.mglo))
    child.stdin.close()
    assert child.wait(timeout=60) == 0
    data, size = out.read_bytes(), width * height * 4
    assert len(data) == frames * size, "every frame whole"
    for n in range(frames):
        assert data[n * size:(n + 1) * size] == expected[n], f"frame {n}'s bytes"
    assert [expected[n][0] for n in range(frames)] == list(range(frames))
    buffer.write(b"\x05" * size)  # the buffer is the caller's again: no mapping left open
    assert buffer.read()[:4] == b"\x05" * 4
    scene.ctx.release()


def test_a_moderngl_loop_into_ffmpeg_delivers_every_frame_in_order(tmp_path):
    width, height, frames = 64, 32, 24
    scene = CounterScene(width, height)
    buffer = scene.ctx.buffer(reserve=width * height * 4)
    out = tmp_path / "moderngl.mkv"
    ffmpeg = subprocess.Popen(["ffmpeg", "-v", "error", "-f", "rawvideo", "-pix_fmt", "rgba", "-s", f"{width}x{height}",
                               "-i", "-", "-c:v", "ffv1", "-y", str(out)], stdin=subprocess.PIPE)
    for n in range(frames):  # one buffer, read into and piped, never synced: the next pipe() waits
        scene.draw(n)
        scene.fbo.read_into(buffer, components=4)
        turbopipe.pipe(buffer, ffmpeg.stdin.fileno())
    turbopipe.sync()
    ffmpeg.stdin.close()
    assert ffmpeg.wait(timeout=120) == 0
    decoded = decode_frames(str(out), width, height)
    assert [f[0] for f in decoded] == list(range(frames)), "every frame, in order"
    # moderngl renders on as before: the pipe left its buffer and state alone.
    scene.program["frame"] = 200
    scene.vao.render(moderngl.TRIANGLE_STRIP)
    assert scene.fbo.read(components=4)[0] == 200
    assert buffer.read()[0] == frames - 1
    scene.ctx.release()
