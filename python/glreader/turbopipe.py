"""A drop-in for TurboPipe, 1.x and 2.x: `import glreader.turbopipe as turbopipe`.

    turbopipe.pipe(data, fd)   # queue data's bytes for fd (a file descriptor, or a file)
    turbopipe.sync(data)       # wait until data's queued writes are out (2.x)
    turbopipe.done(data)       # the same, and data is forgotten (2.1)
    turbopipe.sync()           # wait for everything (1.x)
    turbopipe.close()          # everything out, every writer thread ended (1.x)
    turbopipe.close(fd)        # fd's writes out, its writer ended (2.0)

data is a moderngl.Buffer (or its .mglo, or memoryview(buffer.mglo) as TurboPipe 2.0's
README writes it), or any object with the buffer protocol: bytes, bytearray, memoryview,
numpy arrays. As TurboPipe: writes keep their order per fd, and
pipe() of memory whose earlier write is still queued waits for it. Unlike TurboPipe:
a moderngl.Buffer is read on the calling thread (its context is current there) and never
written from a mapping that has ended; other memory is held (the object kept alive) until
its bytes are out: for a pipe that means read by the reader, since the bytes go by
vmsplice(2) without a copy. A reader that went away raises BrokenPipeError on the next
call, and nothing is dropped silently.
"""
import contextlib
from typing import Any, Iterator, Optional, Union

from . import _glreader

__all__ = ["pipe", "sync", "done", "close"]


def pipe(data: Any, file: Union[int, Any]) -> None:
    """Queues data's bytes for the file descriptor (or file object) and returns."""
    with _unwrapped(data) as unwrapped:
        _glreader.tp_pipe(unwrapped, file)


def sync(data: Optional[Any] = None) -> None:
    """Waits until data's queued writes are out; without data, every queued write."""
    if data is None:
        _glreader.tp_sync_all()
    else:
        with _unwrapped(data) as unwrapped:
            _glreader.tp_sync(unwrapped)


def done(data: Any) -> None:
    """Says data will not be piped again: its writes are waited for, and it is let go."""
    with _unwrapped(data) as unwrapped:
        _glreader.tp_sync(unwrapped)


def close(file: Optional[Union[int, Any]] = None) -> None:
    """Waits for every write of file (every file, when None) and ends its writer thread.
    The file descriptor stays open: closing it is the caller's (the reader then sees its end)."""
    if file is None:
        _glreader.tp_close_all()
    else:
        _glreader.tp_close(file if isinstance(file, int) else file.fileno())


def _is_mglo(data: Any) -> bool:
    kind = type(data)
    return kind.__module__ == "mgl" and kind.__name__ == "Buffer"


class _Mglo:
    """moderngl's internal buffer (a Buffer's .mglo, which TurboPipe 1.x took), read as its
    Buffer is: through read(), never a mapping held past the call."""

    def __init__(self, mglo: Any) -> None:
        self.mglo = mglo

    def read(self) -> bytes:
        return self.mglo.read(-1, 0)


class _MappedMglo:
    """memoryview(buffer.mglo), as TurboPipe 2.0's README passes a buffer: a mapping of the
    GL buffer, which must end before the buffer is mapped or read into again. Its bytes are
    copied on this call's thread and the view released when the call returns, as TurboPipe
    2.0 releases it; its writes are found by the buffer, as a Buffer's are."""

    def __init__(self, view: memoryview) -> None:
        self.view = view
        self.mglo = view.obj

    def read(self) -> bytes:
        return bytes(self.view)


@contextlib.contextmanager
def _unwrapped(data: Any) -> Iterator[Any]:
    if _is_mglo(data):
        yield _Mglo(data)
    elif isinstance(data, memoryview) and _is_mglo(data.obj):
        try:
            yield _MappedMglo(data)
        finally:
            data.release()  # the mapping ends now, not when Python drops the view
    else:
        yield data
