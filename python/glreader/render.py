"""glreader.render: a Shadertoy shader, project folder or JSON rendered to any output."""
from __future__ import annotations

import fractions
import math
import os
import sys
from typing import Any, Callable, Mapping, Optional, Sequence, Tuple, Union

from . import _glreader

PathLike = Union[str, "os.PathLike[str]"]
Progress = Callable[[dict], None]

_ALPHA = {False: 0, None: 0, "opaque": 0, True: 1, "straight": 1, "premultiplied": 2}


def _rate(fps: Union[int, float, str, fractions.Fraction]) -> Tuple[int, int]:
    """A frame rate as the library reads glreader-export's -r: 30, 29.97 (30000/1001),
    "30000/1001", "ntsc", Fraction(60, 1); from 1/1000 to 1000 frames a second."""
    if isinstance(fps, fractions.Fraction):
        text = f"{fps.numerator}/{fps.denominator}"
    elif isinstance(fps, float) and math.isfinite(fps):
        text = f"{fps:.6f}".rstrip("0").rstrip(".")  # as written, six decimals at most
    elif isinstance(fps, (int, str)) and not isinstance(fps, bool):
        text = str(fps)
    else:
        raise ValueError(f"fps: {fps!r} is no frame rate (30, 29.97, '30000/1001', 'ntsc')")
    _glreader.check_export_option("fps", text)  # read and bounded by the table's row, in its words
    return _glreader.parse_rate(text)


def _time_us(value: Union[int, float, str], name: str) -> int:
    """A time in seconds (2.5) or as ffmpeg writes one ("500ms", "1:30.5"), in microseconds,
    read and bounded by the library's table as glreader-export reads -t, -ss and -to."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise ValueError(f"{name}: {value!r} is not a time (2.5, '500ms', '1:30.5')")
    text = _text(value)
    _glreader.check_export_option(name, text)
    return _glreader.parse_time(text)


def _checked(name: str, value: Any) -> None:
    """value of the table's option name, read and bounded by its row (ValueError in the
    library's words: the words glreader-export and the farm say)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise ValueError(f"{name}: {value!r} is not a {'whole ' if name in ('frames', 'first_frame') else ''}number")
    _glreader.check_export_option(name, _text(value))


def _range(fps_num: int, fps_den: int, *, frames: Optional[int], duration: Optional[Union[float, str]],
           end: Optional[Union[float, str]], first_frame: int, start: Optional[Union[float, str]]) -> Tuple[int, int]:
    """(first frame, count) by the library's rule, as glreader-export's --start-frame, -ss, -n,
    -t and -to give them (glreader/frame_range.h): a time falls on the first frame at or
    after it, a duration holds the frames that start within it; without a length, the
    library's default, 5 s."""
    _checked("first_frame", first_frame)
    if frames is not None:
        _checked("frames", frames)
    if start is not None and first_frame:
        raise ValueError("start and first_frame both say where to start: give one")
    lengths = {name: _time_us(value, name) for name, value in (("duration", duration), ("end", end)) if value is not None}
    start_us = _time_us(start, "start") if start is not None else 0
    return _glreader.frame_range(fps_num, fps_den, start_us=start_us, start_frame=first_frame,
                                 duration_us=lengths.get("duration", 0), end_us=lengths.get("end", 0),
                                 frames=frames or 0)


def _size(size: Sequence[int]) -> Tuple[int, int]:
    try:
        width, height = (int(v) for v in size)
    except (TypeError, ValueError):
        raise ValueError(f"size: {size!r} is no (width, height)") from None
    _glreader.check_export_option("size", f"{width}x{height}")  # bounded by the table's row
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


def render(
    shader: Optional[PathLike],
    output: PathLike,
    *,
    size: Sequence[int] = (1280, 720),
    fps: Union[int, float, str, fractions.Fraction] = 30,
    frames: Optional[int] = None,
    duration: Optional[Union[float, str]] = None,
    end: Optional[Union[float, str]] = None,
    first_frame: int = 0,
    start: Optional[Union[float, str]] = None,
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
    compile_timeout: float = 120,
    progress: Union[None, bool, Progress] = None,
    progress_interval: float = 0.1,
    **options: Any,
) -> dict:
    """Renders a Shadertoy shader (.frag), project folder or Shadertoy JSON to `output`.

    As glreader-export does, through the same engine (the library's export job): frames
    [first_frame, first_frame + frames) exactly as a render from 0 gives them (a project
    with state is pre-rolled), read back through glreader's ring (converted to the
    encoder's YUV on the GPU) and encoded in-process. `shader` None renders the built-in
    scene.

    size: (width, height). fps: 30, 29.97, "30000/1001", "ntsc" or a Fraction. The range
    as glreader-export counts it: first_frame, or start (-ss), a time that falls on the
    first frame at or after it; and frames, or duration (-t: the frames that start within
    it), or end (-to), a time (default 5 s). Times are seconds (2.5) or as ffmpeg writes
    them ("500ms", "1:30.5"). audio: a sound file or URL muxed in step (and heard by sound
    channels); without it a project's Sound pass is the sound track (audio_rate: its
    sample rate; no_audio: none). channels: {0: "image:noise.png", 1: "sound"} binds the
    Image pass's channels as glreader-export's --channelN does. media: where a Shadertoy
    JSON's media are. codec, pix_fmt, codec_options ({"preset": "slow", "crf": 18}),
    container, format_options, audio_codec, audio_bitrate: as ffmpeg takes them. mouse:
    iMouse (x, y[, cx, cy]); date: iDate at frame 0, "YYYY-MM-DD[THH:MM:SS]" UTC. alpha:
    True or "straight", or "premultiplied", keeps the shader's alpha. overwrite: replace an
    existing file (default: FileExistsError, the file untouched). chunk: the output is one
    chunk of a longer render, for glreader.join (as glreader-export --frames A-B makes one:
    timestamps on the whole timeline, joinable encoder settings, the Sound pass as it
    rendered for the join to encode, .mkv or .nut). compile_timeout: seconds the shaders may take to compile (and a first frame without
    pre-roll to render), as glreader-export's --compile-timeout; 0: no limit.

    options: any other option of glreader-export's, by its name in the library's table
    (glreader.export_options() lists them: depth=4, convert="cpu", matrix="bt601",
    part=True, metadata={"title": "T"}...), or of the video encoder, as ffmpeg takes it
    (crf=18, preset="slow", tune="animation"), checked against the encoder before a frame
    renders. An unknown name is a ValueError naming the nearest known one.

    progress: a callable given the statistics (a dict) every progress_interval seconds
    and at the end, on this thread; True draws a bar on stderr; None draws one when stderr
    is a terminal. Ctrl-C cancels the render: the output is finalized with the frames
    rendered, and KeyboardInterrupt goes on. An exception from the callable cancels the
    render the same way, and is raised.

    Returns the final statistics. Raises ValueError (an option), FileNotFoundError,
    FileExistsError, BrokenPipeError (a reader that went away) or glreader.Error.
    """
    fps_num, fps_den = _rate(fps)
    first_frame, frames = _range(fps_num, fps_den, frames=frames, duration=duration, end=end,
                                 first_frame=first_frame, start=start)
    given: dict = {}
    for channel, spec in (channels or {}).items():
        if not isinstance(channel, int) or not 0 <= channel <= 3 or not isinstance(spec, str):
            raise ValueError(f"channels: {channel!r}: {spec!r} is not N: 'SPEC' with N 0..3")
        given[f"channel{channel}"] = spec
    if mouse is not None:
        if isinstance(mouse, str) or len(mouse) not in (2, 4):
            raise ValueError(f"mouse: {mouse!r} is not (x, y) or (x, y, cx, cy)")
        mouse = ",".join(repr(float(v)) for v in mouse)  # the library reads it as --mouse does
    _checked("compile_timeout", compile_timeout)
    if progress is None:
        progress = sys.stderr.isatty()
    callback = _Bar() if progress is True else progress or None
    checked = _output_options(output, size=size, fps=fps, codec=codec, pix_fmt=pix_fmt, codec_options=codec_options,
                              container=container, format_options=format_options, audio=audio,
                              audio_codec=audio_codec, audio_bitrate=audio_bitrate, alpha=alpha, overwrite=overwrite)
    given.update({
        "shader": os.fspath(shader) if shader is not None else None,
        "media": os.fspath(media) if media is not None else None,
        "output": checked["output"],
        "size": f"{checked['width']}x{checked['height']}",
        "fps": f"{fps_num}/{fps_den}",
        "first_frame": first_frame,
        "frames": frames,
        "codec": codec,
        "pix_fmt": pix_fmt,
        "codec_options": checked["codec_options"],
        "container": container,
        "format_options": checked["format_options"],
        "audio": checked["audio"],
        "audio_codec": audio_codec,
        "audio_bitrate": audio_bitrate,
        "audio_rate": audio_rate,
        "no_audio": no_audio,
        "mouse": mouse,
        "date": date,
        "alpha": checked["alpha"] == 1,
        "premultiply": checked["alpha"] == 2,
        "overwrite": overwrite,
        "chunk": chunk,
        "compile_timeout": compile_timeout,
    })
    return _glreader.run_export(_option_texts(given, options), callback, progress_interval)


def export_options() -> list:
    """The export's options as the library's table names them, one dict each: name (render's
    keyword), flags (glreader-export's spellings), value, kind, min, max, choices, default,
    help and section. render takes every one; glreader-export and the farm's command line
    spell them by their flags."""
    return _glreader.export_options()


def _text(value: Any) -> str:
    """A value as the library's option table reads it: switches 1 or 0, numbers as written."""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float):
        return f"{value:.6f}".rstrip("0").rstrip(".") if math.isfinite(value) else repr(value)
    return os.fspath(value) if isinstance(value, os.PathLike) else str(value)


def _option_texts(given: Mapping[str, Any], options: Mapping[str, Any]) -> list:
    """(key, text) pairs for the library's table: render's own keywords that were given (None
    and off left to the table's defaults), then the caller's other options; metadata as a
    mapping or a sequence of "KEY=VALUE" gives one pair an entry."""
    pairs = [(key, _text(value)) for key, value in given.items() if value is not None and value is not False]
    for key, value in options.items():
        if key == "metadata" and isinstance(value, Mapping):
            pairs += [("metadata", f"{k}={v}") for k, v in value.items()]
        elif key == "metadata" and isinstance(value, (list, tuple)):
            pairs += [("metadata", str(entry)) for entry in value]
        else:
            pairs.append((key, _text(value)))
    return pairs


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
