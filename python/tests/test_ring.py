"""glreader.Ring from Python: frames lent without a copy (numpy views of the mapped slot),
upright and exact against moderngl's own read; YUV planes converted on the GPU (NV12's and
P010's shapes and samples too); acquire's finite timeout; the
release rules that keep Python from ever reading a recycled slot; a full ring and another
thread refused with words."""
import gc
import threading

import moderngl
import numpy
import pytest

import glreader

WIDTH, HEIGHT = 32, 16


@pytest.fixture
def ctx():
    context = moderngl.create_standalone_context(backend="egl", require=430)  # the GPU conversion's 4.3
    yield context
    context.release()


def framebuffer(ctx, colour):
    fbo = ctx.simple_framebuffer((WIDTH, HEIGHT), components=4)
    fbo.use()
    fbo.clear(*colour)
    return fbo


def gradient(ctx):
    """A framebuffer whose pixel (x, y) is (x, y, x + y, 255), y counted from the bottom."""
    texture = ctx.texture((WIDTH, HEIGHT), 4)
    fbo = ctx.framebuffer(color_attachments=[texture])
    pixels = numpy.zeros((HEIGHT, WIDTH, 4), numpy.uint8)
    pixels[..., 0] = numpy.arange(WIDTH)[None, :]
    pixels[..., 1] = numpy.arange(HEIGHT)[:, None]
    pixels[..., 2] = pixels[..., 0] + pixels[..., 1]
    pixels[..., 3] = 255
    texture.write(pixels.tobytes())  # row 0 is GL's bottom row
    return fbo, pixels


def test_rgba_frames_are_views_of_the_slot_upright_and_exact(ctx):
    fbo, pixels = gradient(ctx)
    ring = glreader.Ring((WIDTH, HEIGHT), format="rgba")
    for _ in range(3):
        assert ring.capture(fbo)
    for n in range(3):
        with ring.acquire() as frame:
            assert (frame.width, frame.height, frame.format, frame.pts) == (WIDTH, HEIGHT, "rgba", n)
            view = numpy.asarray(frame)
            assert view.shape == (HEIGHT, WIDTH, 4) and not view.flags.writeable
            assert numpy.array_equal(view, pixels[::-1]), "top row first"
            del view
    assert ring.acquire(timeout=0) is None, "nothing left"
    ring.close()


def test_yuv_planes_come_converted_on_the_gpu(ctx):
    fbo = framebuffer(ctx, (0.5, 0.5, 0.5, 1.0))
    ring = glreader.Ring((WIDTH, HEIGHT), format="yuv420p")
    ring.capture(fbo)
    with ring.acquire() as frame:
        assert frame.planes == 3
        y, u, v = (numpy.asarray(frame.plane(i)) for i in range(3))
        assert y.shape == (HEIGHT, WIDTH) and u.shape == v.shape == (HEIGHT // 2, WIDTH // 2)
        # BT.709, limited range: grey 128 (0.5 of 255 stored as 128) is Y 126, U = V = 128.
        assert abs(int(y.mean()) - 126) <= 1 and int(u.mean()) == 128 and int(v.mean()) == 128
        with pytest.raises(BufferError, match="planes"):
            memoryview(frame)  # (numpy.asarray would make an object array of it instead)
        del y, u, v
    ring.close()


def test_a_frame_goes_back_only_when_no_view_is_alive(ctx):
    fbo = framebuffer(ctx, (1.0, 0.0, 0.0, 1.0))
    ring = glreader.Ring((WIDTH, HEIGHT), format="bgra", depth=2)
    ring.capture(fbo)
    frame = ring.acquire()
    view = numpy.asarray(frame)
    assert view[0, 0].tolist() == [0, 0, 255, 255], "B, G, R, A"
    with pytest.raises(BufferError, match="alive"):
        frame.release()
    del view
    gc.collect()
    frame.release()
    assert frame.released
    with pytest.raises(BufferError, match="released"):
        memoryview(frame)
    with pytest.raises(ValueError, match="released"):
        frame.plane(0)
    frame.release()  # again: nothing happens


def test_a_full_ring_and_another_thread_are_refused(ctx):
    fbo = framebuffer(ctx, (0.0, 1.0, 0.0, 1.0))
    ring = glreader.Ring((WIDTH, HEIGHT), depth=2)
    assert ring.capture(fbo) and ring.capture(fbo)
    assert not ring.capture(fbo), "every slot holds a frame not taken yet"
    ring.acquire().release()
    assert ring.capture(fbo)
    caught = []
    worker = threading.Thread(target=lambda: caught.append(pytest.raises(ValueError, ring.acquire)))
    worker.start()
    worker.join(timeout=60)
    assert caught and "another thread" in str(caught[0].value)
    with pytest.raises(ValueError, match="unknown format 'argb'"):
        glreader.Ring((WIDTH, HEIGHT), format="argb")
    ring.close()
    with pytest.raises(ValueError, match="closed"):
        ring.capture(fbo)


@pytest.mark.parametrize("fmt, dtype, grey", [("nv12", numpy.uint8, (126, 128)), ("p010le", numpy.uint16, (504, 512))])
def test_nv12_and_p010_planes_have_their_shapes_and_samples(ctx, fmt, dtype, grey):
    fbo = framebuffer(ctx, (0.5, 0.5, 0.5, 1.0))
    ring = glreader.Ring((WIDTH, HEIGHT), format=fmt)
    ring.capture(fbo)
    with ring.acquire() as frame:
        assert frame.planes == 2
        y, uv = numpy.asarray(frame.plane(0)), numpy.asarray(frame.plane(1))
        assert y.dtype == uv.dtype == dtype
        # (rows, samples per row): the chroma plane's rows hold U and V by turns.
        assert y.shape == (HEIGHT, WIDTH) and uv.shape == (HEIGHT // 2, WIDTH)
        if dtype == numpy.uint16:
            # P010: 10 bits in the high bits of 16, the low 6 zero (grey is 126 and 128 in
            # 8 bits, times 4 in 10).
            assert not (y & 0x3F).any() and not (uv & 0x3F).any(), "the low 6 bits are 0"
            y, uv = y >> 6, uv >> 6
        # BT.709, limited range: grey 128 of 255.
        assert abs(int(y.mean()) - grey[0]) <= (4 if dtype == numpy.uint16 else 1)
        assert int(uv[:, 0::2].mean()) == int(uv[:, 1::2].mean()) == grey[1], "U and V"
        del y, uv
    ring.close()


def test_acquire_with_a_finite_timeout(ctx):
    ring = glreader.Ring((WIDTH, HEIGHT))
    assert ring.acquire(timeout=30) is None, "nothing was captured: None at once, nothing could come"
    fbo = framebuffer(ctx, (0.0, 0.0, 1.0, 1.0))
    ring.capture(fbo)
    frame = ring.acquire(timeout=30)
    assert frame is not None and numpy.asarray(frame)[0, 0].tolist() == [0, 0, 255, 255]
    frame.release()
    assert ring.acquire(timeout=0.5) is None
    ring.close()
