"""glreader.render: the library's export job from Python. Frames decoded and compared with
glreader-export's of the same project, every option's effect in the output (as
glreader-export's same option), ranges exact, errors as Python's exceptions with the
library's words (a reader gone: BrokenPipeError), progress (a bar with progress=True), Ctrl-C
finalizing the output, messages through logging."""
import inspect
import logging
import os
import re
import signal

import numpy
import pytest

import glreader
from conftest import REPO, decode_frames, decode_sound, export_program, ffmpeg_has_device_type, frame_times, inputs_shader

import subprocess

# Frame n shows n in red and its column in green: any frame out of place, lost or repeated
# shows, and so would a picture upside down (green grows to the right, blue upwards).
# Red counts the frames modulo 256: a render stopped from its progress callback may have
# rendered hundreds by then (many in the 10 ms between reports).
COUNTER = """void mainImage(out vec4 c, in vec2 p) {
    c = vec4(float(iFrame % 256) / 255.0, floor(p.x) / 255.0, floor(p.y) / 255.0, 1.0);
}
"""


@pytest.fixture
def counter(tmp_path):
    path = tmp_path / "counter.frag"
    path.write_text(COUNTER)
    return path


def test_version_is_the_library_s():
    with open(os.path.join(REPO, "CMakeLists.txt")) as f:
        version = re.search(r"project\(glreader VERSION ([0-9.]+)", f.read()).group(1)
    assert glreader.__version__ == version


def test_frames_are_glreader_export_s_and_in_order(tmp_path, counter):
    ours, theirs = tmp_path / "ours.mkv", tmp_path / "theirs.mkv"
    stats = glreader.render(counter, ours, size=(32, 16), fps=25, frames=12, codec="ffv1", progress=False)
    assert stats["stop"] == "complete" and stats["frames_encoded"] == 12
    subprocess.run([export_program(), "--shader", str(counter), "-s", "32x16", "-r", "25", "-n", "12", "-c", "ffv1",
                    "-o", str(theirs)], check=True, capture_output=True, timeout=120)
    frames = decode_frames(str(ours), 32, 16)
    assert frames == decode_frames(str(theirs), 32, 16)
    assert [f[0] for f in frames] == list(range(12)), "frame n shows n: none lost, none repeated"
    top_left = frames[0][0:4]
    assert top_left[1] == 0 and top_left[2] == 15, "upright: the top row is y = 15"


def test_a_range_is_the_frames_ffmpeg_s_rule_counts_by_hand(tmp_path, counter):
    # Worked out here, not taken from another front-end: at 30000/1001 frames a second,
    # frame n starts at n x 1001/30000 s. start=1.0 falls on frame 30 (1.001 s, the first
    # at or after it); duration=0.5 holds the frames that start less than 0.5 s after it,
    # 30 + k with k x 1001/30000 < 0.5: k < 14.985, 15 frames; end=2.0 the frames before
    # 2.0 s: up to 59 (59 x 1001/30000 = 1.968 s), 30 frames. Each is stamped from the
    # first: k x 1001/30000 s (to Matroska's millisecond).
    for length, count in ((dict(duration=0.5), 15), (dict(end="2.0"), 30)):
        out = tmp_path / f"range-{count}.mkv"
        glreader.render(counter, out, size=(32, 16), fps="30000/1001", start=1.0, codec="ffv1", progress=False,
                        **length)
        frames = decode_frames(str(out), 32, 16)
        assert [f[0] for f in frames] == list(range(30, 30 + count)), length
        times = frame_times(str(out))
        assert len(times) == count and all(abs(t - k * 1001 / 30000) <= 0.0005 + 1e-9 for k, t in enumerate(times)), times


def test_a_range_of_a_stateful_json_project_is_the_full_render_s(tmp_path, shaders):
    json = os.path.join(shaders, "trail.json")
    full, part = tmp_path / "full.mkv", tmp_path / "part.mkv"
    glreader.render(json, full, size=(48, 32), frames=10, codec="ffv1", progress=False)
    stats = glreader.render(json, part, size=(48, 32), frames=4, first_frame=6, codec="ffv1", progress=False)
    assert stats["preroll_frames"] == 6, "its buffer reads its own last frame: pre-rolled"
    assert decode_frames(str(part), 48, 32) == decode_frames(str(full), 48, 32)[6:]


def test_a_sound_pass_and_duration(tmp_path, shaders):
    out = tmp_path / "chime.mkv"
    stats = glreader.render(os.path.join(shaders, "chime"), out, size=(64, 36), fps="30000/1001", duration=1.0,
                            codec="ffv1", audio_codec="flac", progress=False)
    assert stats["frames_encoded"] == 30  # 1 s at 29.97 fps, rounded
    # Its sound lasts as long as its pictures, worked out by hand: 30 x 1001/30000 s = 1.001 s,
    # at 44100 Hz 44144.1 samples, of which 44144 whole.
    assert stats["audio_encoder"] == "flac" and stats["audio_samples_encoded"] == 44144
    # The Sound pass's samples are glreader-export's, sample for sample (FLAC is lossless).
    theirs = tmp_path / "theirs.mkv"
    subprocess.run([export_program(), "--shader", os.path.join(shaders, "chime"), "-s", "64x36", "-r", "30000/1001",
                    "-n", "30", "-c", "ffv1", "-c:a", "flac", "-o", str(theirs)], check=True, capture_output=True,
                   timeout=120)
    ours, exported = decode_sound(str(out), 44100), decode_sound(str(theirs), 44100)
    assert ours.shape[0] // 2 == stats["audio_samples_encoded"]
    assert ours.shape == exported.shape and (ours == exported).all(), "the Sound pass is glreader-export's"
    assert numpy.abs(ours).max() > 0.01, "the chime sounds"


def test_errors_are_python_s_exceptions_with_the_library_s_words(tmp_path, counter):
    kept = tmp_path / "kept.mkv"
    kept.write_bytes(b"precious")
    with pytest.raises(FileExistsError) as e:
        glreader.render(counter, kept, frames=2, progress=False)
    assert e.value.errno == 17 and str(e.value).endswith(f"{kept} already exists: overwrite=True replaces it"), \
        "in Python's words, not the C library's"
    assert kept.read_bytes() == b"precious", "untouched"

    with pytest.raises(FileNotFoundError, match="/nonexistent/shader.frag"):
        glreader.render("/nonexistent/shader.frag", tmp_path / "a.mkv", frames=2, progress=False)
    with pytest.raises(ValueError, match="'nope' is no video encoder"):
        glreader.render(counter, tmp_path / "b.mkv", frames=2, codec="nope", progress=False)
    with pytest.raises(ValueError, match="unknown channel kind 'picture'"):
        glreader.render(counter, tmp_path / "c.mkv", frames=2, channels={0: "picture:x.png"}, progress=False)
    for bad in (dict(size=(0, 10)), dict(fps=0), dict(frames=0), dict(frames=2, duration=1), dict(alpha="maybe"),
                dict(first_frame=-1), dict(mouse=(1,))):
        with pytest.raises(ValueError):
            glreader.render(counter, tmp_path / "d.mkv", progress=False, **{"frames": 2, **bad})

    broken = tmp_path / "broken.frag"
    broken.write_text("void mainImage(out vec4 c, in vec2 p) {\n    c = vec4(missing_value);\n}\n")
    with pytest.raises(glreader.Error) as e:
        glreader.render(broken, tmp_path / "e.mkv", frames=2, progress=False)
    assert f"{broken}:2:" in str(e.value), "the author's file and line"
    assert e.value.code == -1009  # GLR_ERROR_SHADER
    assert not (tmp_path / "e.mkv").exists(), "nothing written"


def test_progress_reports_and_its_exception_stops_the_render_with_the_file_finalized(tmp_path, counter):
    seen = []
    out = tmp_path / "progress.mkv"
    glreader.render(counter, out, size=(32, 16), frames=20, codec="ffv1", progress=seen.append,
                    progress_interval=0.01)
    assert seen[-1]["state"] == "ended" and seen[-1]["frames_rendered"] == 20
    assert [s["frames_rendered"] for s in seen] == sorted(s["frames_rendered"] for s in seen)

    class Enough(Exception):
        pass

    def stop_at_three(stats):
        if stats["frames_rendered"] >= 3:
            raise Enough

    out = tmp_path / "stopped.mkv"
    with pytest.raises(Enough):
        glreader.render(counter, out, size=(32, 16), frames=100000, codec="ffv1", progress=stop_at_three,
                        progress_interval=0.01)
    frames = decode_frames(str(out), 32, 16)
    assert 3 <= len(frames) < 100000 and [f[0] for f in frames] == [n % 256 for n in range(len(frames))]


def test_ctrl_c_cancels_and_finalizes_what_was_rendered(tmp_path, counter):
    out = tmp_path / "interrupted.mkv"

    def interrupt_at_five(stats):
        if stats["frames_rendered"] >= 5:
            os.kill(os.getpid(), signal.SIGINT)

    with pytest.raises(KeyboardInterrupt):
        glreader.render(counter, out, size=(32, 16), frames=100000, codec="ffv1", progress=interrupt_at_five,
                        progress_interval=0.01)
    frames = decode_frames(str(out), 32, 16)
    assert 5 <= len(frames) < 100000, "the output keeps the frames rendered, and plays"


# Lengths and starts every front-end counts alike (glreader/frame_range.h): (fps, options
# for glreader.render, the same for glreader-export).
RANGES = [
    (25, dict(duration=0.1), ["-t", "0.1"]),  # 2.5 frames: 3, as testsrc=d=0.1:r=25 gives
    ("30000/1001", dict(duration=0.5), ["-t", "0.5"]),
    ("30000/1001", dict(duration=1.001), ["-t", "1.001"]),
    (30, dict(duration=0.02), ["-t", "0.02"]),
    (24, dict(duration="2.5"), ["-t", "2.5"]),
    (25, dict(start=0.02, duration="100ms"), ["-ss", "0.02", "-t", "100ms"]),  # -ss at half a frame
    (25, dict(start="0:00.01", end=0.3), ["-ss", "0:00.01", "-to", "0.3"]),
    ("ntsc", dict(first_frame=3, frames=4), ["--start-frame", "3", "-n", "4"]),
]


@pytest.mark.parametrize("fps,ours,theirs", RANGES)
def test_lengths_and_starts_count_as_glreader_export_counts_them(tmp_path, counter, fps, ours, theirs):
    mine, exported = tmp_path / "render.mkv", tmp_path / "export.mkv"
    glreader.render(counter, mine, size=(16, 8), fps=fps, codec="ffv1", progress=False, **ours)
    subprocess.run([export_program(), "--shader", str(counter), "-s", "16x8", "-r", str(fps), *theirs, "-c", "ffv1",
                    "-o", str(exported)], check=True, capture_output=True, timeout=120)
    frames = decode_frames(str(mine), 16, 8)
    assert frames == decode_frames(str(exported), 16, 8), "glreader-export's frames, from the same first one"


def test_times_and_rates_are_read_as_glreader_export_reads_them():
    # In the library's words, as glreader-export and the farm say them (the table's rows).
    with pytest.raises(ValueError, match="duration needs a time like 2.5, 500ms or 01:30, from 0.001 to 1000000 "
                                         "seconds, not '2 s'"):
        glreader.render(None, "never.mkv", duration="2 s")
    with pytest.raises(ValueError, match="start needs a time like 2.5, 500ms or 01:30, from 0 to 1000000 seconds, "
                                         "not '-1'"):
        glreader.render(None, "never.mkv", start=-1.0, frames=2)
    with pytest.raises(ValueError, match=r"-t, -n and -to \(duration, frames and end\) each say how long"):
        glreader.render(None, "never.mkv", duration=1, end=2)
    with pytest.raises(ValueError, match="start and first_frame both say where to start"):
        glreader.render(None, "never.mkv", start=1, first_frame=3, frames=2)
    with pytest.raises(ValueError, match="fps needs a frame rate from 1/1000 to 1000 frames a second, like 30, 29.97, "
                                         "30000/1001 or ntsc, not '29,97'"):
        glreader.render(None, "never.mkv", fps="29,97", frames=2)
    with pytest.raises(ValueError, match="compile_timeout needs a number like 1.5 or 3/2, from 0 to 1000000, not '-1'"):
        glreader.render(None, "never.mkv", compile_timeout=-1, frames=2)
    assert not os.path.exists("never.mkv")


def test_every_option_of_the_library_s_table_is_a_keyword_with_glreader_export_s_default():
    """render's own keywords are the table's names with the table's defaults; the rest of the
    table (and the encoder's options) come through **options: none is left out."""
    table = {o["name"]: o for o in glreader.export_options()}
    assert {"duration", "frames", "depth", "convert", "compile_timeout", "matrix", "metadata"} <= set(table)
    parameters = inspect.signature(glreader.render).parameters
    assert parameters["options"].kind is inspect.Parameter.VAR_KEYWORD
    as_python = {"1280x720": (1280, 720), "off": False, "0": 0, "30": 30, "120": 120}
    spelled_by_render = {"shader", "output", "alpha"}  # positional, or alpha's True/"premultiplied"
    for name, p in parameters.items():
        if name not in table or name in spelled_by_render:
            continue
        fallback = table[name]["default"]
        if p.default is not None:  # None is not passed on: the table's default holds
            assert as_python.get(fallback, fallback) == p.default, f"{name}: {p.default!r}, table {fallback!r}"
    for name in ("channel0", "channel1", "channel2", "channel3"):
        assert name in table  # render's channels={N: SPEC} gives them


def test_options_beyond_render_s_keywords_reach_the_library_and_the_encoder(tmp_path):
    out = tmp_path / "tagged.mkv"
    glreader.render(None, out, size=(64, 36), frames=3, progress=False, codec="libx264", depth=2, queue=1,
                    convert="cpu", matrix="bt601", metadata={"title": "From Python"}, crf=30, preset="ultrafast",
                    tune="animation")
    probe = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "format_tags=title:stream=color_space,nb_frames",
                            "-of", "default=nw=1", str(out)], check=True, capture_output=True, text=True,
                           timeout=60).stdout
    assert "TAG:title=From Python" in probe and "color_space=smpte170m" in probe, probe
    with pytest.raises(ValueError, match=r"unknown option durration: .* \(did you mean duration\?\)"):
        glreader.render(None, tmp_path / "never.mkv", durration=2)
    with pytest.raises(ValueError, match=r"unknown option crff: neither glreader's nor an encoder's"):
        glreader.render(None, tmp_path / "never.mkv", crff=2)
    with pytest.raises(ValueError, match="depth needs a whole number from 1 to 64, not '0'"):
        glreader.render(None, tmp_path / "never.mkv", depth=0)
    with pytest.raises(ValueError, match="encoder ffv1 has no option 'preset'"):
        glreader.render(None, tmp_path / "never.mkv", codec="ffv1", preset="slow", frames=2, progress=False)
    assert not os.path.exists(tmp_path / "never.mkv")


def test_hardware_frames_give_the_readback_s_frames(tmp_path, caplog):
    # Vulkan frames (lavapipe here) through the table's hw_frames and hw_device, copied to
    # memory for FFV1: glreader-export's --hw-frames on -init_hw_device vulkan.
    # Every FFmpeg this suite runs with has Vulkan (as vulkan_frames_test requires): one
    # without is a failure here, not a refusal to pass on.
    assert ffmpeg_has_device_type("vulkan"), "the FFmpeg loaded has no Vulkan"
    outputs = {}
    for use in ("on", "off"):
        outputs[use] = tmp_path / f"{use}.mkv"
        stats = glreader.render(None, outputs[use], size=(64, 36), frames=4, codec="ffv1", pix_fmt="yuv420p",
                                progress=False, hw_frames=use, hw_device="vulkan")
        assert stats["transferred_frames"] == (4 if use == "on" else 0), stats
        assert stats["hardware_frames"] == 0 and stats["frames_encoded"] == 4, stats
    assert decode_frames(str(outputs["on"]), 64, 36) == decode_frames(str(outputs["off"]), 64, 36)
    # auto, the default, for an encoder on the CPU: read back, and the device named is said
    # to be unused, once.
    caplog.set_level(logging.WARNING, logger="glreader")
    stats = glreader.render(None, tmp_path / "auto.mkv", size=(64, 36), frames=4, codec="ffv1", pix_fmt="yuv420p",
                            progress=False, hw_device="vulkan")
    assert stats["transferred_frames"] == 0, stats
    unused = [r.getMessage() for r in caplog.records if r.name == "glreader" and "not used" in r.getMessage()]
    assert unused == ["the hardware device vulkan is not used: ffv1 encodes frames in memory, which are read back "
                      "(hardware frames, asked for with hw_frames on, would only be copied to memory for it)"], unused


def test_messages_go_to_logging(tmp_path, shaders, caplog):
    caplog.set_level(logging.INFO, logger="glreader")
    glreader.render(os.path.join(shaders, "chime"), tmp_path / "poster.png", size=(64, 36), frames=1,
                    progress=False)
    assert any("holds no sound" in r.getMessage() for r in caplog.records if r.name == "glreader"), caplog.text


def ffprobe(path, entries, stream="v:0"):
    """ffprobe's values of the stream's entries ("codec_name,pix_fmt"), in order."""
    out = subprocess.run(["ffprobe", "-v", "error", "-select_streams", stream, "-show_entries", f"stream={entries}",
                          "-of", "default=nw=1:nk=1", str(path)], check=True, capture_output=True, text=True,
                         timeout=60).stdout
    return out.split()


def test_each_option_reaches_the_output_as_glreader_export_s_does(tmp_path):
    shader, picture = inputs_shader(tmp_path)
    ours, theirs = tmp_path / "ours.mkv", tmp_path / "theirs.mkv"
    glreader.render(shader, ours, size=(32, 16), frames=3, codec="ffv1", mouse=(10, 20), date="2026-01-02T03:04:05",
                    alpha=True, channels={0: f"image:{picture}"}, progress=False)
    subprocess.run([export_program(), "--shader", str(shader), "-s", "32x16", "-n", "3", "-c", "ffv1", "--mouse",
                    "10,20", "--date", "2026-01-02T03:04:05", "--alpha", "--channel0", f"image:{picture}", "-o",
                    str(theirs)], check=True, capture_output=True, timeout=120)
    frames = decode_frames(str(ours), 32, 16)
    assert frames == decode_frames(str(theirs), 32, 16), "glreader-export's frames for the same options"
    pixel = frames[0][4 * 32 * 8:4 * 32 * 8 + 4]  # row 8 from the top, column 0
    assert (pixel[0], pixel[1]) == (10, 20), "iMouse"
    assert pixel[2] == round(245 / 60 * 255 % 255), "iDate: 03:04:05 is 11045 s, 5 s into its minute"
    assert ffprobe(ours, "pix_fmt") == ["bgra"], "alpha kept: FFV1's format with alpha, as glreader-export's"
    assert frames[0][4 * 31 + 3] > 240 and frames[0][3] < 16, "the alpha, from 0 on the left to 1 on the right"
    bottom = frames[0][4 * 32 * 15:]
    assert len(set(bottom[i:i + 3] for i in range(0, len(bottom), 4))) > 2, "iChannel0's picture on the bottom rows"

    # pix_fmt, container, format_options, audio_bitrate; no_audio; shader=None.
    song = tmp_path / "song.wav"
    subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=1", str(song)],
                   check=True, timeout=60)
    mp4 = tmp_path / "out.bin"
    glreader.render(shader, mp4, size=(32, 16), frames=6, codec="libx264", pix_fmt="yuv444p", container="mp4",
                    format_options={"movflags": "+faststart"}, audio=song, audio_bitrate=48000, progress=False)
    assert ffprobe(mp4, "codec_name,pix_fmt") == ["h264", "yuv444p"]
    data = mp4.read_bytes()
    assert data[4:8] == b"ftyp" and data.index(b"moov") < data.index(b"mdat"), "an MP4 with movflags=+faststart"
    assert ffprobe(mp4, "codec_name", "a:0") == ["aac"]
    assert abs(int(ffprobe(mp4, "bit_rate", "a:0")[0]) - 48000) < 12000, "the sound at about 48 kb/s"
    project = tmp_path / "sounding"  # a Sound pass that no channel hears
    project.mkdir()
    (project / "image.glsl").write_text("void mainImage(out vec4 c, in vec2 p) { c = vec4(0.5); }\n")
    (project / "sound.glsl").write_text("vec2 mainSound(int samp, float time) { return vec2(sin(6.28 * 440.0 * time)); }\n")
    sounding, silent = tmp_path / "sounding.mkv", tmp_path / "silent.mkv"
    glreader.render(project, sounding, size=(32, 16), frames=3, codec="ffv1", progress=False)
    assert ffprobe(sounding, "codec_type", "a") == ["audio"], "the Sound pass is the sound track"
    glreader.render(project, silent, size=(32, 16), frames=3, codec="ffv1", no_audio=True, progress=False)
    assert ffprobe(silent, "codec_type", "a") == [], "no_audio: not even the Sound pass's"
    builtin, exported = tmp_path / "builtin.mkv", tmp_path / "builtin-export.mkv"
    glreader.render(None, builtin, size=(32, 16), frames=3, codec="ffv1", progress=False)
    subprocess.run([export_program(), "-s", "32x16", "-n", "3", "-c", "ffv1", "-o", str(exported)], check=True,
                   capture_output=True, timeout=120)
    assert decode_frames(str(builtin), 32, 16) == decode_frames(str(exported), 32, 16), "the built-in scene"


def test_progress_true_draws_a_bar_and_a_reader_that_goes_away_is_broken_pipe(tmp_path, counter, capfd):
    glreader.render(counter, tmp_path / "bar.mkv", size=(32, 16), frames=4, codec="ffv1", progress=True)
    err = capfd.readouterr().err
    assert "4/4 frames" in err and "[" in err, f"a progress bar on stderr: {err!r}"
    read, write = os.pipe()
    os.close(read)  # the reader went away before the first frame
    try:
        with pytest.raises(BrokenPipeError):
            glreader.render(counter, f"pipe:{write}", size=(32, 16), frames=30, codec="ffv1", container="nut",
                            progress=False)
    finally:
        os.close(write)


def _plain(x):
    """A number as the table's readers take it: plain digits, at most six decimals."""
    text = f"{x:.6f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def table_edges(row):
    """A numeric row's edges, from the row itself: (text, taken) for its lowest and highest
    values and the nearest past each, as its kind writes them (tests/program_options_test.cpp
    tries the same on the command line)."""
    lo, hi = row["min"], row["max"]
    kind = row["kind"]
    if kind in ("integer", "bits", "bytes"):
        return [(_plain(lo), True), (_plain(hi), True), (_plain(lo - 1), False), (_plain(hi + 1), False)]
    if kind in ("number", "time"):
        return [(_plain(lo), True), (_plain(hi), True), (_plain(lo - 1e-6), False), (_plain(hi + 1e-6), False)]
    if kind == "rate":
        return [(f"1/{_plain(1 / lo)}", True), (_plain(hi), True), (f"1/{_plain(1 / lo + 1)}", False),
                (_plain(hi + 1), False)]
    if kind == "size":
        return [(f"{_plain(lo)}x{_plain(lo)}", True), (f"{_plain(hi)}x{_plain(hi)}", True),
                (f"{_plain(lo - 1)}x{_plain(lo)}", False), (f"{_plain(hi + 1)}x{_plain(lo)}", False)]
    return []


def test_every_numeric_row_takes_its_bounds_and_refuses_past_both_ends(tmp_path):
    # glreader.render, every numeric row of the table by its keyword, in Python's types: the
    # row's edges taken (the render then stops at the output that exists, before a frame),
    # and the values past them refused in the library's words, as glreader-export says them.
    existing = tmp_path / "existing.mkv"
    existing.write_bytes(b"mine")
    rows = [row for row in glreader.export_options() if table_edges(row)]
    assert len(rows) >= 13, [row["name"] for row in rows]
    for row in rows:
        name = row["name"]
        for text, taken in table_edges(row):
            if row["kind"] == "size":
                value = tuple(int(v) for v in text.split("x"))
            elif row["kind"] in ("integer", "bits", "bytes"):
                value = int(text)
            elif row["kind"] == "number":
                value = float(text)
            else:
                value = text
            try:
                glreader.render(None, existing, progress=False, **{name: value})
                raise AssertionError(f"{name}={value!r} rendered over an existing file")
            except ValueError as error:
                said = str(error)
            except (FileExistsError, glreader.Error) as error:
                said = str(error)
            if taken:
                assert not said.startswith(f"{name} needs "), f"{name}={value!r}: {said}"
            else:
                assert said.startswith(f"{name} needs ") and said.endswith(f", not '{text}'"), f"{name}={value!r}: {said}"
    assert existing.read_bytes() == b"mine"
