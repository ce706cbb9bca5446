"""glreader.farm's API: a range split into chunks, rendered on Ray (cluster.py), kept in a
work folder with their manifest (storage.py) and joined into one output."""
from __future__ import annotations

import inspect
import os
import shutil
import sys
import tempfile
import time
from typing import Any, Callable, Dict, List, Optional, Tuple, Union

from .. import _glreader
from ..join import join
from ..render import _output_options, _range, _rate, render as _render_frames
from .cluster import chunk_result, chunk_task, check_reachable, progress_actor, ray_module
from .storage import Manifest, Packed

PathLike = Union[str, "os.PathLike[str]"]


def _render_defaults() -> Dict[str, Any]:
    """glreader.render's defaults, which a chunk renders with where the caller gave none."""
    return {name: p.default for name, p in inspect.signature(_render_frames).parameters.items()
            if p.default is not inspect.Parameter.empty}


def split(first: int, frames: int, *, chunks: Optional[int] = None,
          chunk_frames: Optional[int] = None) -> List[Tuple[int, int]]:
    """The ranges (first frame, frame count) of `frames` frames from `first`: `chunks` of them,
    as even as whole frames allow, or `chunk_frames` each (the last one shorter)."""
    if (chunks is None) == (chunk_frames is None):
        raise ValueError("give chunks (how many) or chunk_frames (frames in each), one of them")
    if chunks is not None:
        if isinstance(chunks, bool) or not isinstance(chunks, int) or chunks < 1:
            raise ValueError(f"chunks: {chunks!r} is not a whole number >= 1")
        chunks = min(chunks, frames)
        bounds = [first + frames * i // chunks for i in range(chunks + 1)]
    else:
        if isinstance(chunk_frames, bool) or not isinstance(chunk_frames, int) or chunk_frames < 1:
            raise ValueError(f"chunk_frames: {chunk_frames!r} is not a whole number >= 1")
        bounds = list(range(first, first + frames, chunk_frames)) + [first + frames]
    return [(a, b - a) for a, b in zip(bounds, bounds[1:])]


def _try_hardware_frames_here(fps: Any, render_options: Dict[str, Any]) -> None:
    """Hardware frames asked for of a cluster started on this machine: one small frame made
    here as a chunk would make it, so that what every chunk would refuse (no CUDA driver, an
    FFmpeg without the kind) is refused before Ray starts."""
    tried = {k: render_options[k] for k in ("codec", "pix_fmt", "hw_frames", "hw_device", "codec_options")
             if k in render_options}
    with tempfile.TemporaryDirectory(prefix="glreader-farm-") as folder:
        _render_frames(None, os.path.join(folder, "hardware-frames.nut"), frames=1, size=(64, 64), fps=fps,
                       progress=False, **tried)


class _Bar:
    def __call__(self, s: dict) -> None:
        if s["state"] == "starting":
            sys.stderr.write("glreader.farm: starting Ray...")
            sys.stderr.flush()
            return
        width = 30
        filled = width * s["frames_done"] // max(s["frames"], 1)
        eta = f"ETA {s['eta_seconds']:.0f} s" if s["eta_seconds"] is not None else ""
        sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {s['frames_done']}/{s['frames']} frames "
                         f"{s['fps']:.1f} fps {eta}; chunks {s['chunks_done']}/{s['chunks']} done, "
                         f"{s['chunks_running']} running, {s['retried']} retried ")
        if s["state"] == "ended":
            sys.stderr.write("\n")
        sys.stderr.flush()


def render(shader: Optional[PathLike], output: PathLike, *, frames: Optional[int] = None,
           duration: Optional[Union[float, str]] = None, end: Optional[Union[float, str]] = None,
           first_frame: int = 0, start: Optional[Union[float, str]] = None, fps: Any = 30, chunks: Optional[int] = None,
           chunk_frames: Optional[int] = None, address: Optional[str] = None, gpus_per_chunk: float = 0,
           work: Optional[PathLike] = None, shared_work: bool = False, retries: int = 3,
           audio: Optional[PathLike] = None, audio_codec: Optional[str] = None, audio_bitrate: Optional[int] = None,
           audio_offset: float = 0, audio_keep_longer: bool = False, metadata: Any = None, part: bool = False,
           container: Optional[str] = None, format_options: Any = None, overwrite: bool = False,
           progress: Union[None, bool, Callable[[dict], None]] = None, **render_options: Any) -> dict:
    """Renders shader (a .frag, project folder or Shadertoy JSON) to output in chunks on Ray.

    The range, as glreader.render and glreader-export count it: first_frame or start (a
    time), and frames, duration or end (a time; default 5 s), at fps.
    chunks: how many chunks; or chunk_frames: frames in each. address: a Ray cluster
    ("ray://host:10001", "host:6379", "auto"); None starts a local cluster on this machine
    (or uses the one ray.init() already made). gpus_per_chunk: GPUs Ray gives each chunk.
    work: the folder for the chunks and their manifest (default: a new temporary folder,
    removed after); a rerun with the same arguments and work renders only missing chunks.
    shared_work: every node sees `work` (a shared disk): chunks are written there, not sent
    back through the object store. retries: attempts Ray makes again when a worker dies.
    audio (with audio_codec, audio_bitrate, audio_offset, audio_keep_longer), container,
    format_options, metadata, overwrite, part: the
    output, as glreader.join takes them. Any other keyword (size, codec, codec_options,
    pix_fmt, channels, media, mouse, date, ...) goes to each chunk's glreader.render.
    progress: a callable given a dict (frames_done, frames, fps, eta_seconds, chunks,
    chunks_done, chunks_running, retried, state, worker_pids) once before a cluster it starts
    starts (state "starting"), then about twice a second ("rendering") and at the end
    ("ended"); True draws a bar; None draws one on a terminal.

    Ctrl-C cancels every task and leaves no output (the finished chunks stay in a given
    work folder). Returns the join's statistics with the farm's: chunks_rendered,
    chunks_reused, retried, nodes (that rendered chunks), seconds.
    """
    fps_num, fps_den = _rate(fps)
    first_frame, frames = _range(fps_num, fps_den, frames=frames, duration=duration, end=end,
                                 first_frame=first_frame, start=start)
    for reserved in ("first_frame", "frames", "chunk", "progress", "output", "overwrite"):
        if reserved in render_options:
            raise ValueError(f"{reserved}: the farm sets it for each chunk")
    ranges = split(first_frame, frames, chunks=chunks, chunk_frames=chunk_frames)
    output = os.fspath(output)
    if shared_work and work is None:
        raise ValueError("shared_work: name the shared folder as work")
    # The output's encoder as a single pass chooses it (the container's own codec when none
    # is named), checked with its sound against the container (and an existing output
    # refused) before any chunk renders; the chunks (NUT) are encoded with it by name, not
    # with NUT's own default.
    chosen = {**_render_defaults(), **render_options}
    plan = _glreader.check_output(_output_options(
        output, fps=fps, container=container, format_options=format_options, audio=audio, audio_codec=audio_codec,
        audio_bitrate=audio_bitrate, overwrite=overwrite,
        **{k: chosen[k] for k in ("size", "codec", "pix_fmt", "codec_options", "alpha")}))
    render_options = dict(render_options, codec=plan["video_encoder"])
    ray = ray_module()  # after what can be refused without it: a user without Ray hears of the input first
    if render_options.get("hw_frames") == "on" and address is None and not ray.is_initialized():
        _try_hardware_frames_here(fps, render_options)
    # The project, its media and the sound file travel with the tasks: no node needs the
    # caller's disk (a sound URL each node reads itself). The chunks hear what a single
    # pass's sound channels hear: the sound file (which the join encodes once), or else the
    # project's Sound pass, which each chunk keeps as it rendered for the join to encode.
    packed = Packed(os.fspath(shader)) if shader is not None else None
    options = dict(render_options, fps=(f"{fps_num}/{fps_den}"))
    inputs = {}
    media = options.pop("media", None)
    if media is not None:
        inputs["media"] = Packed(os.fspath(media))
    if audio is not None:
        if "://" in os.fspath(audio):
            options["audio"] = os.fspath(audio)
        else:
            inputs["audio"] = Packed(os.fspath(audio))

    temporary = work is None
    work = tempfile.mkdtemp(prefix="glreader-farm-") if temporary else os.path.abspath(os.fspath(work))
    os.makedirs(work, exist_ok=True)
    manifest = Manifest(work, {"shader": packed.digest if packed else None, "options": options,
                                **{option: p.digest for option, p in inputs.items()}, "first": first_frame,
                                "frames": frames, "ranges": ranges})
    names = [f"chunk-{first:09d}-{first + count:09d}.nut" for first, count in ranges]
    reused = [n for n in names if manifest.finished(n, work)]
    if progress is None:
        progress = sys.stderr.isatty()
    show = _Bar() if progress is True else progress or None

    started_here = not ray.is_initialized()
    if started_here:
        if show:  # Ray takes seconds to start
            show(_status({"frames": {}, "retried": 0, "workers": {}}, {}, reused_frames_of(names, ranges, reused),
                         reused_frames_of(names, ranges, reused), frames, len(names), 0.0, "starting"))
        try:
            check_reachable(address)
            ray.init(address=address, include_dashboard=False, logging_level="error", log_to_driver=False)
        except Exception as error:  # Ray's own errors name the address it could not reach
            if temporary:
                shutil.rmtree(work, ignore_errors=True)
            if isinstance(error, ConnectionError):
                raise
            raise ConnectionError(f"glreader.farm: cannot reach the Ray cluster at {address or 'a new local one'}: "
                                  f"{error}") from None
    start = time.monotonic()
    pending: Dict[Any, Tuple[str, int, int]] = {}
    try:
        tracker = progress_actor(ray)
        # Once into the object store, whatever the number of chunks.
        shader_ref = ray.put(packed) if packed else None
        inputs_ref = ray.put(inputs)
        # SPREAD: chunks go to every node, not to the head first (a farm wants them all).
        task = chunk_task(ray).options(max_retries=retries, num_gpus=gpus_per_chunk, retry_exceptions=False,
                                        scheduling_strategy="SPREAD")
        for name, (first, count) in zip(names, ranges):
            if name not in reused:
                pending[task.remote(shader_ref, inputs_ref, first, count, options, work if shared_work else None,
                                    name, tracker)] = (name, first, count)
        rendered = len(pending)
        reused_frames = reused_frames_of(names, ranges, reused)
        done_frames = 0
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1, timeout=0.5)
            for ref in ready:
                name, first, count = pending.pop(ref)
                data, sha256 = chunk_result(ray, ref, name, first, count)
                path = os.path.join(work, name)
                if data is not None:
                    with open(path + ".new", "wb") as f:
                        f.write(data)
                    os.replace(path + ".new", path)
                manifest.record(name, first, count, sha256)
                done_frames += count
            if show:  # the progress actor is asked only when someone looks
                show(_status(ray.get(tracker.snapshot.remote()), pending, done_frames + reused_frames, reused_frames,
                             frames, len(names), time.monotonic() - start, "rendering"))
        stats = join([os.path.join(work, n) for n in names], output, audio=audio, audio_codec=audio_codec,
                     audio_bitrate=audio_bitrate, audio_offset=audio_offset, audio_keep_longer=audio_keep_longer,
                     container=container, format_options=format_options, metadata=metadata, overwrite=overwrite,
                     part=part)
        snapshot = ray.get(tracker.snapshot.remote())
        stats.update(chunks_rendered=rendered, chunks_reused=len(reused), retried=snapshot["retried"],
                     nodes=len({node for _, node in snapshot["workers"].values()}), seconds=time.monotonic() - start)
        if show:
            show(_status(snapshot, {}, frames, reused_frames, frames, len(names), stats["seconds"], "ended"))
        return stats
    except BaseException:
        # Only the chunks still running: a forced cancel of a task whose result is already
        # coming back trips Ray's own task bookkeeping ("Tried to complete task that was not
        # pending"), which ends the whole process.
        if pending:
            finished, _ = ray.wait(list(pending), num_returns=len(pending), timeout=0)
            for ref in set(pending) - set(finished):
                ray.cancel(ref, force=True)
        # Until their workers are gone (bounded): then no attempt writes into work again,
        # and what the killed ones left there goes.
        ray.wait(list(pending), num_returns=len(pending), timeout=10)
        if shared_work:
            for name, _, _ in pending.values():
                for left in os.listdir(work):
                    if left.startswith(f".{name}.") and ".part" in left:
                        os.remove(os.path.join(work, left))
        raise
    finally:
        if started_here:
            ray.shutdown()
        if temporary:
            shutil.rmtree(work, ignore_errors=True)


def reused_frames_of(names: List[str], ranges: List[Tuple[int, int]], reused: List[str]) -> int:
    return sum(count for name, (_, count) in zip(names, ranges) if name in reused)


def _status(snapshot: dict, pending: dict, frames_done_chunks: int, reused_frames: int, frames: int, chunks: int,
            elapsed: float, state: str) -> dict:
    running = {name for name, _, _ in pending.values()}
    in_flight = sum(snapshot["frames"].get(name, 0) for name in running)
    done = min(frames, frames_done_chunks + in_flight)
    rendered = done - reused_frames
    fps = rendered / elapsed if elapsed > 0 else 0.0
    return {"frames_done": done, "frames": frames, "fps": fps,
            "eta_seconds": (frames - done) / fps if fps > 0 else None, "chunks": chunks,
            "chunks_done": chunks - len(running), "chunks_running": len(running), "retried": snapshot["retried"],
            "state": state, "worker_pids": {n: w[0] for n, w in snapshot["workers"].items() if n in running}}
