"""glreader.join and render(chunk=True): a stateful project rendered in chunks, out of order,
joins to the single pass's frames; chunks that do not join raise ValueError naming why,
and nothing is written."""
import os

import pytest

import glreader
from conftest import decode_frames


def test_a_stateful_project_in_chunks_joins_to_the_single_pass(tmp_path, shaders):
    json = os.path.join(shaders, "trail.json")
    common = dict(size=(48, 32), codec="ffv1", progress=False)
    full = tmp_path / "full.mkv"
    glreader.render(json, full, frames=14, **common)
    chunks = []
    for first, frames in ((9, 5), (0, 4), (4, 5)):
        chunk = tmp_path / f"chunk-{first}.nut"
        stats = glreader.render(json, chunk, first_frame=first, frames=frames, chunk=True, **common)
        assert stats["preroll_frames"] == first
        assert (stats["preroll_seconds"] > 0) == (first > 0), "what the pre-roll cost, when there was one"
        chunks.append(chunk)
    joined = tmp_path / "joined.mkv"
    stats = glreader.join(chunks, joined)
    assert (stats["chunks"], stats["first_frame"], stats["frames"], stats["fps"]) == (3, 0, 14, (30, 1))
    assert decode_frames(str(joined), 48, 32) == decode_frames(str(full), 48, 32)
    with pytest.raises(FileExistsError, match="already exists: overwrite=True replaces it"):
        glreader.join(chunks, joined)


def test_chunks_that_do_not_join_raise_and_write_nothing(tmp_path, shaders):
    shader = os.path.join(shaders, "plasma.frag")
    common = dict(size=(32, 16), codec="ffv1", progress=False)
    a, c, plain = tmp_path / "a.mkv", tmp_path / "c.mkv", tmp_path / "plain.mkv"
    glreader.render(shader, a, first_frame=0, frames=3, chunk=True, **common)
    glreader.render(shader, c, first_frame=6, frames=3, chunk=True, **common)
    glreader.render(shader, plain, frames=3, **common)
    out = tmp_path / "out.mkv"
    with pytest.raises(ValueError, match="frames 3-6 are missing"):
        glreader.join([a, c], out)
    with pytest.raises(ValueError, match="is not a glreader chunk"):
        glreader.join([plain], out)
    with pytest.raises(FileNotFoundError):
        glreader.join([a, tmp_path / "none.mkv"], out)
    with pytest.raises(ValueError, match="a list of chunk files"):
        glreader.join(str(a), out)
    with pytest.raises(ValueError, match="Matroska"):
        glreader.render(shader, tmp_path / "chunk.mp4", frames=3, chunk=True, size=(32, 16), progress=False)
    assert not out.exists()
