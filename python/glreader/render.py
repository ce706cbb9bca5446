"""glreader.render: a Shadertoy shader, project folder or JSON rendered to any output."""
from __future__ import annotations

import fractions
import os
import sys
from typing import Any, Callable, Mapping, Optional, Sequence, Tuple, Union

from . import _glreader

PathLike = Union[str, "os.PathLike[str]"]
Progress = Callable[[dict], None]

_ALPHA = {False: 0, None: 0, "opaque": 0, True: 1, "straight": 1, "premultiplied": 2}


def _rate(fps: Union[int, float, str, fractions.Fraction]) -> Tuple[int, int]:
    """A frame rate as a fraction: 30, 29.97 (30000/1001), "30000/1001", Fraction(60, 1)."""
    if isinstance(fps, bool):
        raise ValueError(f"fps: {fps!r} is no frame rate")
    if isinstance(fps, float) and abs(fps * 1001 / 1000 - round(fps * 1001 / 1000)) < 1e-6 and fps % 1:
        rate = fractions.Fraction(round(fps * 1001 / 1000) * 1000, 1001)  # NTSC's rates
    else:
        try:
            rate = fractions.Fraction(fps).limit_denominator(1001)
        except (TypeError, ValueError, ZeroDivisionError):
            raise ValueError(f"fps: {fps!r} is no frame rate (30, 29.97, '30000/1001')") from None
    if rate <= 0 or rate > 1000:
        raise ValueError(f"fps: {fps!r} is outside 0..1000 frames a second")
    return rate.numerator, rate.denominator


def _size(size: Sequence[int]) -> Tuple[int, int]:
    try:
        width, height = (int(v) for v in size)
    except (TypeError, ValueError):
        raise ValueError(f"size: {size!r} is no (width, height)") from None
    if not (0 < width <= 16384 and 0 < height <= 16384):
        raise ValueError(f"size: {width}x{height} is outside 1..16384 each way")
    return width, height


def _options(value: Union[None, str, Mapping[str, Any]], name: str) -> Optional[str]:
    """Codec or muxer options as FFmpeg's "k=v:k=v", from a string or a mapping."""
    if value is None or isinstance(value, str):
        return value
    if not isinstance(value, Mapping):
        raise ValueError(f"{name}: a mapping or 'k=v:k=v', not {type(value).__name__}")
    return ":".join(f"{k}={v}" for k, v in value.items())


class _Bar:
    """A one-line progress bar on a terminal's stderr."""

    def __init__(self) -> None:
        self.shown = False

    def __call__(self, stats: dict) -> None:
        total = max(stats["frame_count"], 1)
        done = stats["frames_rendered"]
        width = 30
        filled = width * done // total
        fps = done / stats["elapsed_seconds"] if stats["elapsed_seconds"] > 0 else 0.0
        line = f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} frames, {fps:.1f} fps ({stats['state']})"
        sys.stderr.write(line)
        self.shown = True
        if stats["state"] == "ended":
            sys.stderr.write("\n")
        sys.stderr.flush()


def _frame_count(frames: Optional[int], duration: Optional[float], fps_num: int, fps_den: int) -> int:
    """How many frames: `frames`, or `duration` seconds at the rate (default 5 s)."""
    if frames is not None and duration is not None:
        raise ValueError("frames and duration both say how long: give one")
    if frames is None:
        seconds = 5.0 if duration is None else float(duration)
        if not seconds > 0:
            raise ValueError(f"duration: {duration!r} is not a positive number of seconds")
        frames = max(1, round(seconds * fps_num / fps_den))
    if isinstance(frames, bool) or not isinstance(frames, int) or frames <= 0:
        raise ValueError(f"frames: {frames!r} is not a positive whole number")
    return frames


def render(
    shader: Optional[PathLike],
    output: PathLike,
    *,
    size: Sequence[int] = (1280, 720),
    fps: Union[int, float, str, fractions.Fraction] = 30,
    frames: Optional[int] = None,
    duration: Optional[float] = None,
    first_frame: int = 0,
    audio: Optional[PathLike] = None,
    channels: Optional[Mapping[int, str]] = None,
    media: Optional[PathLike] = None,
    codec: Optional[str] = None,
    pix_fmt: Optional[str] = None,
    codec_options: Union[None, str, Mapping[str, Any]] = None,
    container: Optional[str] = None,
    format_options: Union[None, str, Mapping[str, Any]] = None,
    audio_codec: Optional[str] = None,
    audio_bitrate: Optional[int] = None,
    audio_rate: Optional[int] = None,
    no_audio: bool = False,
    mouse: Optional[Sequence[float]] = None,
    date: Optional[str] = None,
    alpha: Union[bool, str] = False,
    overwrite: bool = False,
    chunk: bool = False,
    progress: Union[None, bool, Progress] = None,
    progress_interval: float = 0.1,
) -> dict:
    """Renders a Shadertoy shader (.frag), project folder or Shadertoy JSON to `output`.

    As glreader-export does, through the same engine (the library's export job): frames
    [first_frame, first_frame + frames) exactly as a render from 0 gives them (a project
    with state is pre-rolled), read back through glreader's ring (converted to the
    encoder's YUV on the GPU) and encoded in-process. `shader` None renders the built-in
    scene.

    size: (width, height). fps: 30, 29.97, "30000/1001" or a Fraction. frames, or duration
    in seconds (default 5 s). audio: a sound file or URL muxed in step (and heard by sound
    channels); without it a project's Sound pass is the sound track (audio_rate: its
    sample rate; no_audio: none). channels: {0: "image:noise.png", 1: "sound"} binds the
    Image pass's channels as glreader-export's --channelN does. media: where a Shadertoy
    JSON's media are. codec, pix_fmt, codec_options ({"preset": "slow", "crf": 18}),
    container, format_options, audio_codec, audio_bitrate: as ffmpeg takes them. mouse:
    iMouse (x, y[, cx, cy]); date: iDate at frame 0, "YYYY-MM-DD[THH:MM:SS]" UTC. alpha:
    True or "straight", or "premultiplied", keeps the shader's alpha. overwrite: replace an
    existing file (default: FileExistsError, the file untouched). chunk: the output is one
    chunk of a longer render, for glreader.join (as glreader-export --frames A-B makes one:
    timestamps on the whole timeline, joinable encoder settings, no sound track, .mkv or
    .nut).

    progress: a callable given the statistics (a dict) every progress_interval seconds
    and at the end, on this thread; True draws a bar on stderr; None draws one when stderr
    is a terminal. Ctrl-C cancels the render: the output is finalized with the frames
    rendered, and KeyboardInterrupt goes on. An exception from the callable cancels the
    render the same way, and is raised.

    Returns the final statistics. Raises ValueError (an option), FileNotFoundError,
    FileExistsError, BrokenPipeError (a reader that went away) or glreader.Error.
    """
    fps_num, fps_den = _rate(fps)
    frames = _frame_count(frames, duration, fps_num, fps_den)
    if isinstance(first_frame, bool) or not isinstance(first_frame, int) or first_frame < 0:
        raise ValueError(f"first_frame: {first_frame!r} is not a whole number >= 0")
    bound = []
    for channel, spec in (channels or {}).items():
        if not isinstance(channel, int) or not 0 <= channel <= 3 or not isinstance(spec, str):
            raise ValueError(f"channels: {channel!r}: {spec!r} is not N: 'SPEC' with N 0..3")
        bound.append((channel, spec))
    if mouse is not None:
        if isinstance(mouse, str) or len(mouse) not in (2, 4):
            raise ValueError(f"mouse: {mouse!r} is not (x, y) or (x, y, cx, cy)")
        mouse = ",".join(repr(float(v)) for v in mouse)  # the library reads it as --mouse does
    if progress is None:
        progress = sys.stderr.isatty()
    callback = _Bar() if progress is True else progress or None
    options = _output_options(output, size=size, fps=fps, codec=codec, pix_fmt=pix_fmt, codec_options=codec_options,
                              container=container, format_options=format_options, audio=audio,
                              audio_codec=audio_codec, audio_bitrate=audio_bitrate, alpha=alpha, overwrite=overwrite)
    options.update({
        "project": os.fspath(shader) if shader is not None else "",
        "media": os.fspath(media) if media is not None else None,
        "channels": bound,
        "first_frame": first_frame,
        "frames": frames,
        "audio_rate": audio_rate,
        "no_audio": no_audio,
        "mouse": mouse,
        "date": date,
        "chunk": bool(chunk),
    })
    return _glreader.run_export(options, callback, progress_interval)


def _output_options(output: PathLike, *, size: Sequence[int], fps: Any, codec: Optional[str], pix_fmt: Optional[str],
                    codec_options: Any, container: Optional[str], format_options: Any, audio: Optional[PathLike],
                    audio_codec: Optional[str], audio_bitrate: Optional[int], alpha: Union[bool, str],
                    overwrite: bool) -> dict:
    """What render's frames are and where and how they are encoded, checked and in the
    library's terms: the part of its options that glreader.farm checks its output with."""
    width, height = _size(size)
    fps_num, fps_den = _rate(fps)
    if alpha not in _ALPHA:
        raise ValueError(f"alpha: {alpha!r} (False, True, 'straight' or 'premultiplied')")
    return {
        "width": width,
        "height": height,
        "fps_num": fps_num,
        "fps_den": fps_den,
        "output": os.fspath(output),
        "codec": codec,
        "pix_fmt": pix_fmt,
        "codec_options": _options(codec_options, "codec_options"),
        "container": container,
        "format_options": _options(format_options, "format_options"),
        "audio": os.fspath(audio) if audio is not None else None,
        "audio_codec": audio_codec,
        "audio_bitrate": audio_bitrate,
        "alpha": _ALPHA[alpha],
        "overwrite": overwrite,
    }
