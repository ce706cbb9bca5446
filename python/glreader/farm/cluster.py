"""glreader.farm on Ray: reaching the cluster, the task that renders one chunk in a fresh
worker (on the GPU Ray gave it), the actor that gathers the chunks' progress, and a chunk's
result or failure in glreader's words."""
from __future__ import annotations

import os
import shutil
import socket
import tempfile
import uuid
from typing import Dict, Optional, Tuple, Union

from .._glreader import Error
from ..render import render as _render_frames
from .storage import Packed, digest


def ray_module():
    try:
        import ray
    except ImportError:
        raise ImportError("glreader.farm needs Ray: pip install glreader[ray] (or pip install ray)") from None
    return ray


def check_reachable(address: Optional[str], seconds: float = 5.0) -> None:
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


def egl_device_of_gpu(gpu: Union[int, str], visible: Optional[str]) -> str:
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


def render_chunk(shader: Optional[Packed], inputs: Dict[str, Packed], first: int, frames: int, options: dict,
                 shared: Optional[str], name: str, progress) -> Tuple[Optional[bytes], str]:
    """One chunk, in a Ray worker; its progress goes to the progress actor. inputs: the
    options whose files travel with the task (media, audio), unpacked here."""
    import ray
    attempt = uuid.uuid4().hex
    worker = (os.getpid(), ray.get_runtime_context().get_node_id())
    progress.report.remote(name, attempt, worker, 0)
    gpus = ray.get_gpu_ids()
    if gpus:
        os.environ["GLR_EGL_DEVICE"] = egl_device_of_gpu(gpus[0], os.environ.get("CUDA_VISIBLE_DEVICES"))

    def report(stats: dict) -> None:
        progress.report.remote(name, attempt, worker, stats["frames_rendered"])

    # Per attempt, published by rename: a killed worker leaves no chunk that looks whole.
    scratch = tempfile.mkdtemp(prefix="glreader-chunk-")
    folder = shared or scratch
    partial = os.path.join(folder, f".{name}.{attempt}.part{os.path.splitext(name)[1]}")
    try:
        options = dict(options, **{option: packed.unpack(scratch) for option, packed in inputs.items()})
        _render_frames(shader.unpack(scratch) if shader else None, partial, first_frame=first, frames=frames,
                       chunk=True, progress=report, progress_interval=0.25, **options)
        sha256 = digest(partial)
        if shared:
            os.replace(partial, os.path.join(shared, name))
            return None, sha256
        with open(partial, "rb") as f:
            return f.read(), sha256
    finally:
        if os.path.exists(partial):
            os.remove(partial)
        shutil.rmtree(scratch, ignore_errors=True)


def chunk_task(ray):
    """The Ray task that renders one chunk. A function of this module, so that workers
    import it (and what it calls) from glreader, not from a pickled copy. max_calls=1: each
    chunk in a fresh worker process (as Ray does for GPU tasks), so that no GL context or
    driver state outlives its chunk, and each chunk is placed anew (a reused worker would
    take the next chunk on the same node)."""
    return ray.remote(max_calls=1)(render_chunk)


def progress_actor(ray):
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


def chunk_result(ray, ref, name: str, first: int, count: int) -> Tuple[Optional[bytes], str]:
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
