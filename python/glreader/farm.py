"""glreader.farm: one render split into frame-range chunks, rendered as Ray tasks (on this
machine or a Ray cluster), and joined into one output.

    import glreader.farm
    glreader.farm.render("trail.json", "film.mp4", size=(1920, 1080), fps=60, duration=600,
                         chunks=16, codec="libx264", audio="song.flac")

Each chunk is glreader.render(..., first_frame=A, frames=N, chunk=True) in a Ray task, in
a fresh worker process: it renders exactly the single pass's frames (a stateful project
pre-rolls), retried by Ray when its worker dies, on the GPU Ray gave it (GLR_EGL_DEVICE).
The project travels zipped through Ray's object store; a chunk comes back the same way, or
is written straight into `work` when that folder is shared by every node. glreader.join
then joins the chunks by stream copy, the sound encoded once: the output has the single
pass's frames, timestamps and sound, its pixels too with a lossless codec (a lossy one
starts each chunk on a keyframe, so its pictures differ slightly from a single pass's).
Without a codec, the output's container picks one as for a single pass (H.264 for .mp4,
VP9 for .webm), checked before any chunk renders. A manifest in `work` records each
finished chunk with its range and hash: a rerun with the same arguments and folder renders
only what is missing. `python -m glreader.farm --help` is the same from a shell. Needs `pip install
glreader[ray]`.
"""
from __future__ import annotations

import hashlib
import inspect
import io
import json
import os
import shutil
import socket
import sys
import tempfile
import time
import uuid
import zipfile
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

from . import _glreader
from ._glreader import Error
from .join import join
from .render import _output_options, _range, _rate, render as _render_frames

PathLike = Union[str, "os.PathLike[str]"]
MANIFEST = "manifest.json"


def _ray():
    try:
        import ray
    except ImportError:
        raise ImportError("glreader.farm needs Ray: pip install glreader[ray] (or pip install ray)") from None
    return ray


def _render_defaults() -> Dict[str, Any]:
    """glreader.render's defaults, which a chunk renders with where the caller gave none."""
    return {name: p.default for name, p in inspect.signature(_render_frames).parameters.items()
            if p.default is not inspect.Parameter.empty}


def _check_reachable(address: Optional[str], seconds: float = 5.0) -> None:
    """Refuses, within seconds, a cluster address nothing answers on (Ray itself retries for
    minutes). None, "auto" and "local" are Ray's own to resolve."""
    if not address or address in ("auto", "local"):
        return
    host_port = address.split("://", 1)[-1]
    host, _, port = host_port.rpartition(":")
    try:
        socket.create_connection((host.strip("[]") or "127.0.0.1", int(port)), timeout=seconds).close()
    except (OSError, ValueError) as error:
        raise ConnectionError(f"glreader.farm: cannot reach the Ray cluster at {address}: {error}") from None


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


def _digest(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


class _Manifest:
    """work/manifest.json: the settings the chunks were made with, and each chunk done."""

    def __init__(self, work: str, settings: dict) -> None:
        self.path = os.path.join(work, MANIFEST)
        self.key = hashlib.sha256(json.dumps(settings, sort_keys=True, default=str).encode()).hexdigest()
        self.done: Dict[str, dict] = {}
        try:
            with open(self.path) as f:
                saved = json.load(f)
            if saved.get("settings") == self.key:
                self.done = saved.get("chunks", {})
        except (OSError, ValueError):
            pass

    def finished(self, name: str, work: str) -> bool:
        entry = self.done.get(name)
        path = os.path.join(work, name)
        return bool(entry) and os.path.exists(path) and _digest(path) == entry["sha256"]

    def record(self, name: str, first: int, frames: int, sha256: str) -> None:
        self.done[name] = {"first_frame": first, "frames": frames, "sha256": sha256}
        temporary = self.path + ".new"
        with open(temporary, "w") as f:
            json.dump({"settings": self.key, "chunks": self.done}, f, indent=1, sort_keys=True)
        os.replace(temporary, self.path)  # a crash leaves the old manifest or the new one


class _Packed:
    """A shader file, project folder or media folder, zipped, so that a node that cannot see
    the caller's disk renders it too; digest: a hash of its files' names and bytes."""

    def __init__(self, path: str) -> None:
        if not os.path.exists(path):
            raise FileNotFoundError(f"{path}: no such file or folder")
        self.name = os.path.basename(os.path.normpath(path))
        files = []
        if os.path.isdir(path):
            for root, _, names in os.walk(path):
                files += [os.path.join(root, n) for n in names]
        else:
            files = [path]
        digest, data = hashlib.sha256(), io.BytesIO()
        with zipfile.ZipFile(data, "w", zipfile.ZIP_DEFLATED) as z:
            for file in sorted(files):
                inside = os.path.relpath(file, os.path.dirname(os.path.normpath(path)))
                with open(file, "rb") as f:
                    content = f.read()
                digest.update(f"{inside}\0{len(content)}\0".encode() + content)
                z.writestr(inside, content)
        self.data, self.digest = data.getvalue(), digest.hexdigest()

    def unpack(self, folder: str) -> str:
        with zipfile.ZipFile(io.BytesIO(self.data)) as z:
            z.extractall(folder)
        return os.path.join(folder, self.name)


def _egl_device_of_gpu(gpu: Union[int, str], visible: Optional[str]) -> str:
    """GLR_EGL_DEVICE for the GPU Ray gave a task: CUDA's number for it in this process, which
    NVIDIA's EGL also gives each device. CUDA numbers the GPUs CUDA_VISIBLE_DEVICES lists in
    its order (Ray narrows it to the task's GPU, or leaves the whole list under
    RAY_EXPERIMENTAL_NOSET_CUDA_VISIBLE_DEVICES); with none listed, Ray's id is CUDA's."""
    if not visible:
        return f"cuda:{int(gpu)}"
    listed = [entry.strip() for entry in visible.split(",")]
    if str(gpu) not in listed:
        raise RuntimeError(f"Ray gave GPU {gpu}, which CUDA_VISIBLE_DEVICES={visible} does not list")
    return f"cuda:{listed.index(str(gpu))}"


def _render_chunk(shader: Optional["_Packed"], media: Optional["_Packed"], first: int, frames: int, options: dict,
                 shared: Optional[str], name: str, progress) -> Tuple[Optional[bytes], str]:
    """One chunk, in a Ray worker; its progress goes to the progress actor."""
    import ray
    attempt = uuid.uuid4().hex
    worker = (os.getpid(), ray.get_runtime_context().get_node_id())
    progress.report.remote(name, attempt, worker, 0)
    gpus = ray.get_gpu_ids()
    if gpus:
        os.environ["GLR_EGL_DEVICE"] = _egl_device_of_gpu(gpus[0], os.environ.get("CUDA_VISIBLE_DEVICES"))

    def report(stats: dict) -> None:
        progress.report.remote(name, attempt, worker, stats["frames_rendered"])

    # Per attempt, published by rename: a killed worker leaves no chunk that looks whole.
    scratch = tempfile.mkdtemp(prefix="glreader-chunk-")
    folder = shared or scratch
    partial = os.path.join(folder, f".{name}.{attempt}.part{os.path.splitext(name)[1]}")
    try:
        if media is not None:
            options = dict(options, media=media.unpack(scratch))
        _render_frames(shader.unpack(scratch) if shader else None, partial, first_frame=first, frames=frames,
                       chunk=True, progress=report, progress_interval=0.25, **options)
        sha256 = _digest(partial)
        if shared:
            os.replace(partial, os.path.join(shared, name))
            return None, sha256
        with open(partial, "rb") as f:
            return f.read(), sha256
    finally:
        if os.path.exists(partial):
            os.remove(partial)
        shutil.rmtree(scratch, ignore_errors=True)


def _chunk_task(ray):
    """The Ray task that renders one chunk. A function of this module, so that workers
    import it (and what it calls) from glreader, not from a pickled copy. max_calls=1: each
    chunk in a fresh worker process (as Ray does for GPU tasks), so that no GL context or
    driver state outlives its chunk, and each chunk is placed anew (a reused worker would
    take the next chunk on the same node)."""
    return ray.remote(max_calls=1)(_render_chunk)


def _progress_actor(ray):
    @ray.remote(num_cpus=0)
    class Progress:
        """Frames rendered by each chunk's latest attempt, and how many attempts each had."""

        def __init__(self) -> None:
            self.frames: Dict[str, int] = {}
            self.attempts: Dict[str, set] = {}
            self.workers: Dict[str, tuple] = {}  # chunk: (pid, node id) of its latest attempt

        def report(self, name: str, attempt: str, worker: tuple, frames: int) -> None:
            self.attempts.setdefault(name, set()).add(attempt)
            self.frames[name] = frames
            self.workers[name] = worker

        def snapshot(self) -> dict:
            return {"frames": dict(self.frames), "retried": sum(len(a) - 1 for a in self.attempts.values()),
                    "workers": dict(self.workers)}

    return Progress.remote()


class _Bar:
    def __call__(self, s: dict) -> None:
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
    chunks_done, chunks_running, retried, state, worker_pids) about twice a second; True
    draws a bar; None draws one on a terminal.

    Ctrl-C cancels every task and leaves no output (the finished chunks stay in a given
    work folder). Returns the join's statistics with the farm's: chunks_rendered,
    chunks_reused, retried, nodes (that rendered chunks), seconds.
    """
    ray = _ray()
    fps_num, fps_den = _rate(fps)
    first_frame, frames = _range(fps_num, fps_den, frames=frames, duration=duration, end=end,
                                 first_frame=first_frame, start=start)
    for reserved in ("first_frame", "frames", "chunk", "progress", "output", "overwrite", "no_audio"):
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
    # The project and its media travel with the tasks: no node needs the caller's disk.
    packed = _Packed(os.fspath(shader)) if shader is not None else None
    options = dict(render_options, fps=(f"{fps_num}/{fps_den}"), no_audio=True)
    media = options.pop("media", None)
    packed_media = _Packed(os.fspath(media)) if media is not None else None

    temporary = work is None
    work = tempfile.mkdtemp(prefix="glreader-farm-") if temporary else os.path.abspath(os.fspath(work))
    os.makedirs(work, exist_ok=True)
    manifest = _Manifest(work, {"shader": packed.digest if packed else None, "options": options,
                                "media": packed_media.digest if packed_media else None, "first": first_frame,
                                "frames": frames, "ranges": ranges})
    names = [f"chunk-{first:09d}-{first + count:09d}.nut" for first, count in ranges]
    reused = [n for n in names if manifest.finished(n, work)]
    if progress is None:
        progress = sys.stderr.isatty()
    show = _Bar() if progress is True else progress or None

    started_here = not ray.is_initialized()
    if started_here:
        try:
            _check_reachable(address)
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
        tracker = _progress_actor(ray)
        # Once into the object store, whatever the number of chunks.
        shader_ref = ray.put(packed) if packed else None
        media_ref = ray.put(packed_media) if packed_media else None
        # SPREAD: chunks go to every node, not to the head first (a farm wants them all).
        task = _chunk_task(ray).options(max_retries=retries, num_gpus=gpus_per_chunk, retry_exceptions=False,
                                        scheduling_strategy="SPREAD")
        for name, (first, count) in zip(names, ranges):
            if name not in reused:
                pending[task.remote(shader_ref, media_ref, first, count, options, work if shared_work else None,
                                    name, tracker)] = (name, first, count)
        rendered = len(pending)
        reused_frames = sum(count for name, (_, count) in zip(names, ranges) if name in reused)
        done_frames = 0
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1, timeout=0.5)
            for ref in ready:
                name, first, count = pending.pop(ref)
                data, sha256 = _chunk_result(ray, ref, name, first, count)
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
        for ref in pending:
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


def _chunk_result(ray, ref, name: str, first: int, count: int) -> Tuple[Optional[bytes], str]:
    """A chunk task's bytes and hash; its failure raised as glreader.Error (or the cause's
    own type: ValueError, FileNotFoundError), naming the chunk, not as Ray's wrapper."""
    try:
        return ray.get(ref)
    except ray.exceptions.RayTaskError as error:
        cause = error.cause if isinstance(error.cause, Exception) else None
        where = f"glreader.farm: chunk {name} (frames {first}..{first + count - 1}) failed"
        if isinstance(cause, (ValueError, OSError)):
            raise type(cause)(f"{where}: {cause}") from None
        raise Error(f"{where}: {cause if cause is not None else error}") from None
    except ray.exceptions.RayError as error:  # its worker died more often than retries allow
        raise Error(f"glreader.farm: chunk {name} (frames {first}..{first + count - 1}) failed: {error}") from None


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


# glreader-export's options that the farm's command line leaves out, and why; every other
# option of the library's table is taken by its spellings (tests/farm checks both).
NOT_TAKEN = {
    "chunk": "the farm makes the chunks",
    "no_audio": "the chunks have no sound: the output's is --audio's, encoded once by the join",
    "audio_rate": "a Sound pass is not rendered by the farm: the output's sound is --audio's",
}
# Those the join takes (the output's container and sound), as glreader.farm.render does.
JOIN_OPTIONS = ("audio", "audio_codec", "audio_bitrate", "audio_offset", "audio_keep_longer", "container",
                "format_options", "metadata", "overwrite", "part")


def _command_line():
    import argparse

    parser = argparse.ArgumentParser(
        prog="python -m glreader.farm", allow_abbrev=False,
        description="Renders a Shadertoy shader, project folder or JSON in frame-range chunks on Ray (a local "
                    "cluster, or --address) and joins them into OUTPUT; as glreader-export --frames A-B and "
                    "glreader-export join, scheduled. Takes glreader-export's options (and any option of the video "
                    "encoder: -preset, -crf, -b:v...), but " + "; ".join(f"{n}: {why}" for n, why in NOT_TAKEN.items()) + ".")
    parser.add_argument("--version", action="version", version=f"%(prog)s {_glreader.__version__}")
    farm = parser.add_argument_group("The farm")
    farm.add_argument("-o", dest="output", required=True, help="the joined output")
    split_by = farm.add_mutually_exclusive_group(required=True)
    split_by.add_argument("--chunks", type=int, help="how many chunks")
    split_by.add_argument("--chunk-frames", type=int, help="frames in each chunk")
    farm.add_argument("--address", help="a Ray cluster's address (default: a local cluster on this machine)")
    farm.add_argument("--gpus-per-chunk", type=float, default=0, help="GPUs Ray gives each chunk (default 0)")
    farm.add_argument("--work", help="the chunks' folder and manifest; a rerun reuses finished chunks")
    farm.add_argument("--shared-work", action="store_true", help="--work is on a disk every node shares")
    farm.add_argument("--retries", type=int, default=3, help="attempts again when a worker dies (default 3)")
    sections: Dict[str, Any] = {}
    for o in _glreader.export_options():
        if o["name"] in NOT_TAKEN or o["name"] == "output":  # -o: the farm's own, required
            continue
        if o["section"] not in sections:
            sections[o["section"]] = parser.add_argument_group(o["section"])
        words = f"{o['help']} (default: {o['default']})".replace("%", "%%")
        if o["name"] in ("channel1", "channel2", "channel3"):
            words = argparse.SUPPRESS  # as --channel0 says
        flags = o["flags"].split(", ")
        if o["kind"] == "switch":
            sections[o["section"]].add_argument(*flags, dest=o["name"], action="store_true", default=None, help=words)
        elif o["kind"] == "list":
            sections[o["section"]].add_argument(*flags, dest=o["name"], metavar=o["value"], action="append",
                                                help=words)
        else:
            sections[o["section"]].add_argument(*flags, dest=o["name"], metavar=o["value"], help=words)
    return parser


def _split_encoder_options(parser, argv: Sequence[str]) -> Tuple[List[str], List[Tuple[str, str]]]:
    """argv without the encoder's options (any -NAME VALUE that names no option of the farm
    or of glreader-export, as ffmpeg takes them), and those options. Taken out before argparse,
    which would read -crf as -c rf and -tune as -t une."""
    takes_value = {flag: action.nargs != 0 for flag, action in parser._option_string_actions.items()}
    left_out = {flag: o["name"] for o in _glreader.export_options() if o["name"] in NOT_TAKEN
                for flag in o["flags"].split(", ")}
    kept: List[str] = []
    encoder: List[Tuple[str, str]] = []
    at = 0
    while at < len(argv):
        arg = argv[at]
        if arg in takes_value or not arg.startswith("-") or len(arg) < 2:
            kept += argv[at:at + 2] if takes_value.get(arg) else [arg]
            at += 2 if takes_value.get(arg) else 1
            continue
        if arg in left_out:
            parser.error(f"{arg}: not taken by the farm: {NOT_TAKEN[left_out[arg]]}")
        if at + 1 >= len(argv):
            _glreader.check_export_option(arg, "")  # an unknown one says so, with the nearest
            parser.error(f"{arg} needs a value")
        _glreader.check_export_option(arg, argv[at + 1])
        encoder.append((arg, argv[at + 1]))
        at += 2
    return kept, encoder


def _bits(text: str) -> int:
    """Bits a second as the table writes them: 192000, 192k, 1.5M."""
    scale = {"k": 1e3, "M": 1e6, "G": 1e9}.get(text[-1:], 1)
    return round(float(text[:-1] if scale != 1 else text) * scale)


def main(argv: Optional[Sequence[str]] = None) -> int:
    """python -m glreader.farm: glreader-export's options, with the farm's."""
    parser = _command_line()
    try:
        kept, encoder = _split_encoder_options(parser, list(sys.argv[1:] if argv is None else argv))
        given = {name: value for name, value in vars(parser.parse_args(kept)).items() if value is not None}
        # Every option read by the library's table first, in glreader-export's words.
        for o in _glreader.export_options():
            if o["name"] in given and o["name"] not in NOT_TAKEN and o["kind"] != "switch":
                values = given[o["name"]] if o["kind"] == "list" else [given[o["name"]]]
                for value in values:
                    _glreader.check_export_option(o["flags"].split(", ")[0], value)
    except ValueError as error:
        parser.error(str(error))
    farm = {name: given.pop(name) for name in ("output", "chunks", "chunk_frames", "address", "gpus_per_chunk", "work",
                                               "shared_work", "retries") if name in given}
    join_options = {name: given.pop(name) for name in JOIN_OPTIONS if name in given}
    if "audio_bitrate" in join_options:
        join_options["audio_bitrate"] = _bits(join_options["audio_bitrate"])
    if "audio_offset" in join_options:
        join_options["audio_offset"] = float(join_options["audio_offset"])
    # render's keywords in Python's types; the rest as the table's text.
    if "size" in given:
        given["size"] = tuple(int(v) for v in given["size"].split("x"))
    for name in ("frames", "first_frame"):
        if name in given:
            given[name] = int(given[name])
    if "compile_timeout" in given:
        given["compile_timeout"] = float(given["compile_timeout"])
    if "mouse" in given:
        given["mouse"] = [float(v) for v in given["mouse"].split(",")]
    alpha = "premultiplied" if given.pop("premultiply", None) else "straight" if given.pop("alpha", None) else False
    channels = {n: given.pop(f"channel{n}") for n in range(4) if f"channel{n}" in given}
    shader = given.pop("shader", None)
    for flag, value in encoder:  # -b:v as ffmpeg's b, -preset as preset
        given[flag.lstrip("-").split(":")[0]] = value
    output = farm.pop("output")
    try:
        stats = render(shader, output, **farm, **join_options, **given, channels=channels or None, alpha=alpha)
    except KeyboardInterrupt:
        print("glreader.farm: cancelled; no output written", file=sys.stderr)
        return 130
    except FileExistsError:  # in the command line's words: -y, not overwrite=True
        print(f"glreader.farm: {output} already exists: -y overwrites it", file=sys.stderr)
        return 1
    except (ValueError, OSError, ConnectionError, Error) as error:
        print(f"glreader.farm: {error}" if not str(error).startswith("glreader.farm:") else str(error),
              file=sys.stderr)
        return 1
    print(f"glreader.farm: {stats['frames']} frames in {stats['chunks']} chunks ({stats['chunks_rendered']} rendered, "
          f"{stats['chunks_reused']} reused, {stats['retried']} retried) into {output} in {stats['seconds']:.1f} s",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
