"""glreader.Ring: frames of the caller's GL context read back asynchronously and lent to
Python without a copy, for code that reads every frame (reinforcement-learning
environments, dataset rendering)."""
from __future__ import annotations

from typing import Any, Optional, Sequence

from . import _glreader
from ._glreader import Frame, Plane
from .recorder import _source
from .render import _size

__all__ = ["Ring", "Frame", "Plane"]


class Ring:
    """A ring of read-back slots in the GL context current on the calling thread.

        ring = glreader.Ring((640, 480), format="rgba")
        for step in range(1000):
            render(step)
            if not ring.capture(fbo):        # every slot holds a frame not taken yet
                use(ring.acquire()); ...
            frame = ring.acquire(timeout=0)  # the oldest frame read back, or None
            if frame:
                with frame:
                    pixels = numpy.asarray(frame)   # (480, 640, 4) uint8, a view of the slot
                    learn(pixels)

    capture() starts a readback (a fence, no stall) and returns; acquire() hands out the
    oldest frame once its GPU work is done. An RGB frame (rgba, bgra, rgb24) is itself a
    read-only (height, width, channels) buffer, top row first; a YUV frame (nv12, yuv420p,
    p010le, yuv444p, yuva420p, yuva444p, yuva444p10le, converted on the GPU) gives each
    plane as frame.plane(i), (rows, samples per row). release() (or leaving the with block)
    gives the slot back, and refuses (BufferError) while a view of its memory is alive, so
    nothing ever reads a slot the ring reuses. The ring is used from the thread that made it.
    """

    def __init__(self, size: Sequence[int], format: str = "rgba", depth: int = 3) -> None:
        width, height = _size(size)
        if not (isinstance(depth, int) and 1 <= depth <= 64):
            raise ValueError(f"depth: {depth!r} is outside 1..64")
        self._core = _glreader.RingCore(width, height, format, depth)
        self._pts = 0

    def capture(self, source: Any) -> bool:
        """Starts the readback of a moderngl Framebuffer or Texture (or a GL framebuffer
        name); False when every slot holds a frame not acquired yet (acquire one first)."""
        started = self._core.capture(*_source(source), self._pts)
        self._pts += started
        return started

    def acquire(self, timeout: Optional[float] = None) -> Optional[Frame]:
        """The oldest frame read back, waiting up to timeout seconds (None: until it is);
        None when nothing was captured, or nothing was ready in time. frame.pts is its
        capture's number, from 0."""
        return self._core.acquire(-1.0 if timeout is None else float(timeout))

    def close(self) -> None:
        """Frees the ring's GL objects (its context current). Frames still lent stay valid
        until released."""
        self._core.close()

    def __enter__(self) -> "Ring":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
