"""glreader.join and render(chunk=True): a stateful project rendered in chunks, out of order,
joins to the single pass's frames; chunks that do not join raise ValueError naming why,
and nothing is written."""
import os

import numpy
import pytest

import glreader
from conftest import decode_frames, decode_sound


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


def test_the_join_takes_tags_a_part_name_and_places_the_sound(tmp_path, shaders):
    """metadata, part, audio_offset and audio_keep_longer, as glreader-export join takes them
    (the farm's command line passes them to it)."""
    import subprocess

    shader = os.path.join(shaders, "plasma.frag")
    common = dict(size=(32, 16), codec="ffv1", progress=False, fps=25)
    chunks = [tmp_path / "a.nut", tmp_path / "b.nut"]
    glreader.render(shader, chunks[0], first_frame=0, frames=5, chunk=True, **common)
    glreader.render(shader, chunks[1], first_frame=5, frames=5, chunk=True, **common)
    song = tmp_path / "song.wav"
    subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=2:sample_rate=48000",
                    str(song)], check=True, timeout=60)

    def probe(path, entries):
        return subprocess.run(["ffprobe", "-v", "error", "-show_entries", entries, "-of", "default=nw=1", str(path)],
                              check=True, capture_output=True, text=True, timeout=60).stdout

    out = tmp_path / "tagged.mkv"
    glreader.join(chunks, out, metadata={"title": "Joined"}, part=True, audio=song, audio_codec="flac",
                  audio_offset=0.2)
    assert not (tmp_path / "tagged.mkv.part").exists() and out.exists(), "part: renamed once whole"
    assert "TAG:title=Joined" in probe(out, "format_tags=title")
    sound = numpy.abs(decode_sound(str(out), 48000)).reshape(-1, 2).max(axis=1)
    assert sound[:int(0.19 * 48000)].max() == 0 and sound[int(0.21 * 48000):int(0.3 * 48000)].max() > 0.05, \
        "audio_offset: 0.2 s of silence, then the sine (ffmpeg's at 1/8)"
    longer = tmp_path / "longer.mkv"
    glreader.join(chunks, longer, audio=song, audio_codec="flac", audio_keep_longer=True)
    assert float(probe(longer, "format=duration").split("=")[1]) > 1.9, "the 2 s sound kept whole past 0.4 s of video"
    with pytest.raises(ValueError, match="metadata: 'title' is not KEY=VALUE"):
        glreader.join(chunks, tmp_path / "never.mkv", metadata=["title"])
