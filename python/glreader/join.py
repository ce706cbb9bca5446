"""glreader.join: the chunks of a render made in pieces joined into one output."""
from __future__ import annotations

import os
from typing import Any, Mapping, Optional, Sequence, Union

from . import _glreader
from .render import _options

PathLike = Union[str, "os.PathLike[str]"]


def join(chunks: Sequence[PathLike], output: PathLike, *, audio: Optional[PathLike] = None,
         audio_codec: Optional[str] = None, audio_bitrate: Optional[int] = None, audio_offset: float = 0,
         audio_keep_longer: bool = False, container: Optional[str] = None,
         format_options: Union[None, str, Mapping[str, Any]] = None,
         metadata: Union[None, Mapping[str, Any], Sequence[str]] = None, overwrite: bool = False,
         part: bool = False) -> dict:
    """Joins chunks (made by glreader.render(..., chunk=True) or glreader-export --frames A-B),
    in any order, into `output` by stream copy, as glreader-export join does.

    The chunks must be glreader's, made with the same settings, and cover one span of frames
    with no gap or overlap; otherwise ValueError says which, and nothing is written. The
    frames keep the timestamps a single pass gives them; audio (a sound file or URL), or
    else the project's Sound pass that the chunks kept, is encoded once over the whole
    length (audio_codec, audio_bitrate), so no join clicks;
    audio_offset starts it that many seconds after the video (below 0 cuts its start),
    audio_keep_longer keeps a sound longer than the video whole. container and
    format_options ({"movflags": "+faststart"}) as ffmpeg takes them; metadata: the file's
    tags ({"title": "T"} or ["title=T"]); overwrite replaces an existing output (default:
    FileExistsError); part writes OUTPUT.part and renames it once the output is whole.

    Returns the statistics: chunks, first_frame, frames, fps, packets, bytes_written,
    audio_samples_encoded, seconds.
    """
    if isinstance(chunks, (str, bytes, os.PathLike)):
        raise ValueError("chunks: a list of chunk files, not one path")
    names = [os.fspath(c) for c in chunks]
    if not names:
        raise ValueError("chunks: no chunk given")
    if isinstance(metadata, Mapping):
        tags = [f"{k}={v}" for k, v in metadata.items()]
    elif metadata is None or isinstance(metadata, str):
        tags = [metadata] if metadata else []
    else:
        tags = [str(entry) for entry in metadata]
    for tag in tags:
        if "=" not in tag or tag.startswith("="):
            raise ValueError(f"metadata: {tag!r} is not KEY=VALUE")
    if not isinstance(audio_offset, (int, float)) or isinstance(audio_offset, bool):
        raise ValueError(f"audio_offset: {audio_offset!r} is not a number of seconds")
    return _glreader.join({
        "chunks": names, "output": os.fspath(output), "container": container,
        "format_options": _options(format_options, "format_options"),
        "audio": os.fspath(audio) if audio is not None else None, "audio_codec": audio_codec,
        "audio_bitrate": audio_bitrate, "audio_offset": float(audio_offset),
        "audio_keep_longer": bool(audio_keep_longer), "metadata": tags, "overwrite": overwrite, "part": bool(part),
    })
