"""glreader.Recorder: the caller's own frames (a moderngl framebuffer or texture, in the GL
context current on the calling thread) encoded in-process, without a pipe."""
from __future__ import annotations

import fractions
import os
from typing import Any, Callable, Mapping, Optional, Sequence, Union

from . import _glreader
from .render import _options, _rate, _size

PathLike = Union[str, "os.PathLike[str]"]


def _source(frame: Any) -> tuple:
    """(kind, GL name) of what write() takes: 0 a framebuffer, 1 a texture (glr_source_kind)."""
    if isinstance(frame, bool):
        raise ValueError(f"write: {frame!r} is no framebuffer or texture")
    if isinstance(frame, int):
        return 0, frame
    kind = type(frame).__name__
    if kind == "Framebuffer" and hasattr(frame, "glo"):
        return 0, frame.glo
    if kind == "Texture" and hasattr(frame, "glo"):
        return 1, frame.glo
    raise ValueError(f"write: a moderngl Framebuffer or Texture, or a GL framebuffer name, not {kind}")


_HW_FRAMES = {"auto": 0, "off": 1, "on": 2}  # glr_hw_frames_use


def _hardware_frames(use: str, device: Optional[str], gpu_convert: bool) -> int:
    """glr_hw_frames_use, with use and device checked by the export's option table in its
    words, as glreader.render's hw_frames and hw_device are."""
    for key, value in (("hw_frames", use), ("hw_device", device)):
        if value is not None:
            if not isinstance(value, str):
                raise ValueError(f"{key}: {value!r} is not a string")
            _glreader.check_export_option(key, value)
    if not gpu_convert:
        if use == "on":
            raise ValueError("gpu_convert=False reads frames back and hw_frames='on' reads none back: give one")
        use = "off"
    return _HW_FRAMES[use]


class Recorder:
    """Encodes the caller's frames in-process, straight from the GPU.

        with glreader.Recorder("out.mp4", size=(1920, 1080), fps=60, audio="song.flac") as rec:
            for n in range(600):
                render(n)            # into fbo, with moderngl or any GL
                rec.write(fbo)       # returns without waiting for the GPU

    Each write() starts the frame's readback through glreader's ring (a fence, no stall),
    converted on the GPU to the encoder's YUV when the encoder wants YUV; frames read back
    go to the encoder's own thread, which encodes and writes. The GL state the host relies
    on (bindings, viewport, program, pack alignment, framebuffer) is the same after every
    call as before. Calls come from the thread whose context was current at the first
    write(); close() (or leaving the with block) drains the ring and finishes the file.

    output: a path, "-", "pipe:N", a URL or an image sequence, as glreader-export's -o.
    size: (width, height) of the frames. fps: 30, 29.97, "30000/1001", a Fraction. codec,
    pix_fmt, codec_options ({"preset": "slow"}), container, format_options: as ffmpeg.
    audio: a sound file muxed in step; or audio_rate (and audio_channels, 2) for float32
    samples pushed with write_audio(). overwrite: replace an existing file (default:
    FileExistsError, the file untouched). gpu_convert=False reads back RGBA and converts
    on the CPU. hw_frames: "auto" converts on the GPU straight into the hardware frames of
    an encoder that takes them (CUDA, Vulkan), reading nothing back; "on" does so for any
    encoder (one on the CPU gets each frame copied to memory by FFmpeg) or raises saying
    what is missing; "off" always reads back. hw_device: their kind and device as ffmpeg's
    -init_hw_device spells them ("vulkan", "vulkan:1", "cuda", "cuda:0"); default: the
    kind the encoder takes (CUDA for NVENC), on the device behind the GL context, which
    must be current when the Recorder is made.
    progress: called with the statistics after each write().
    """

    def __init__(self, output: PathLike, size: Sequence[int], *, fps: Union[int, float, str, fractions.Fraction] = 30,
                 codec: Optional[str] = None, pix_fmt: Optional[str] = None,
                 codec_options: Union[None, str, Mapping[str, Any]] = None, container: Optional[str] = None,
                 format_options: Union[None, str, Mapping[str, Any]] = None, audio: Optional[PathLike] = None,
                 audio_codec: Optional[str] = None, audio_bitrate: Optional[int] = None,
                 audio_rate: Optional[int] = None, audio_channels: int = 2, overwrite: bool = False,
                 gpu_convert: bool = True, hw_frames: str = "auto", hw_device: Optional[str] = None,
                 progress: Optional[Callable[[dict], None]] = None) -> None:
        width, height = _size(size)
        hw_use = _hardware_frames(hw_frames, hw_device, gpu_convert)
        fps_num, fps_den = _rate(fps)
        if audio is not None and audio_rate is not None:
            raise ValueError("audio (a file) and audio_rate (pushed samples) both give the sound: give one")
        if audio_rate is not None and not (isinstance(audio_rate, int) and 8000 <= audio_rate <= 384000):
            raise ValueError(f"audio_rate: {audio_rate!r} is outside 8000..384000")
        if not (isinstance(audio_channels, int) and 1 <= audio_channels <= 8):
            raise ValueError(f"audio_channels: {audio_channels!r} is outside 1..8")
        self._progress = progress
        self._core = _glreader.RecorderCore({
            "output": os.fspath(output), "width": width, "height": height, "fps_num": fps_num, "fps_den": fps_den,
            "codec": codec, "pix_fmt": pix_fmt, "codec_options": _options(codec_options, "codec_options"),
            "container": container, "format_options": _options(format_options, "format_options"),
            "audio": os.fspath(audio) if audio is not None else None, "audio_codec": audio_codec,
            "audio_bitrate": audio_bitrate, "audio_rate": audio_rate,
            "audio_channels": audio_channels if audio_rate is not None else None,
            "overwrite": overwrite, "gpu_convert": gpu_convert, "hw_frames": hw_use, "hw_device": hw_device,
        })

    def write(self, frame: Any) -> None:
        """Starts the readback of a moderngl Framebuffer or Texture (or a GL framebuffer
        name) as the next frame, and returns without waiting for the GPU."""
        self._core.write(*_source(frame))
        if self._progress is not None:
            self._progress(self._core.stats())

    def write_audio(self, samples: Any, pts: Optional[int] = None) -> None:
        """Pushes interleaved float32 samples (a numpy array, an array('f'), any buffer of
        floats) at audio_rate; pts: the first one's sample number (default: after the last)."""
        view = memoryview(samples)
        if view.format != "f":
            raise ValueError(f"write_audio: float32 samples, not format {view.format!r}")
        self._core.write_audio(view.tobytes(), -1 if pts is None else pts)

    def close(self) -> dict:
        """Reads back the frames on their way, finishes the encode and the file; returns the
        statistics. Again: the same statistics."""
        return self._core.close()

    @property
    def stats(self) -> dict:
        """Frames written and encoded, bytes, zero-copy and converted frames, hardware frames
        (hw_frames: True when frames went as hardware frames; hardware_frames encoded as
        they are, transferred_frames copied to memory), and the stages' p50/p95/p99
        (capture, readback, fence wait, submit wait, encode, write) in ms."""
        return self._core.stats()

    def __enter__(self) -> "Recorder":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
