"""glreader.join: the chunks of a render made in pieces joined into one output."""
from __future__ import annotations

import os
from typing import Any, Mapping, Optional, Sequence, Union

from . import _glreader
from .render import _options

PathLike = Union[str, "os.PathLike[str]"]


def join(chunks: Sequence[PathLike], output: PathLike, *, audio: Optional[PathLike] = None,
         audio_codec: Optional[str] = None, audio_bitrate: Optional[int] = None, container: Optional[str] = None,
         format_options: Union[None, str, Mapping[str, Any]] = None, overwrite: bool = False) -> dict:
    """Joins chunks (made by glreader.render(..., chunk=True) or glreader-export --frames A-B),
    in any order, into `output` by stream copy, as glreader-export join does.

    The chunks must be glreader's, made with the same settings, and cover one span of frames
    with no gap or overlap; otherwise ValueError says which, and nothing is written. The
    frames keep the timestamps a single pass gives them; audio (a sound file or URL) is
    encoded once over the whole length (audio_codec, audio_bitrate), so no join clicks.
    container and format_options ({"movflags": "+faststart"}) as ffmpeg takes them;
    overwrite replaces an existing output (default: FileExistsError).

    Returns the statistics: chunks, first_frame, frames, fps, packets, bytes_written,
    audio_samples_encoded, seconds.
    """
    if isinstance(chunks, (str, bytes, os.PathLike)):
        raise ValueError("chunks: a list of chunk files, not one path")
    names = [os.fspath(c) for c in chunks]
    if not names:
        raise ValueError("chunks: no chunk given")
    return _glreader.join({
        "chunks": names, "output": os.fspath(output), "container": container,
        "format_options": _options(format_options, "format_options"),
        "audio": os.fspath(audio) if audio is not None else None, "audio_codec": audio_codec,
        "audio_bitrate": audio_bitrate, "overwrite": overwrite,
    })
