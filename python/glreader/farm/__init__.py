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
from .api import render, split
from .command_line import NOT_TAKEN, main

__all__ = ["render", "split", "main", "NOT_TAKEN"]
