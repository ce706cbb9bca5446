"""glreader.farm on real Ray clusters started here and stopped after, with Ray's files in a
scratch folder, inside a network namespace that has loopback alone (tests/python_farm_test.sh
runs this file there: Ray binds every interface it has, so only a namespace keeps it off
the machine's own address): a feedback project rendered in chunks equals the single
pass; a rerun reuses finished chunks, and a changed project none; H.264 and AAC keep the
single pass's timestamps, keyframes, samples and sync; a worker killed mid-chunk is
retried and the output is still whole; chunks run on both nodes of a two-node cluster;
without a codec the output gets its container's own, and an impossible pair is refused
before any chunk renders; a GPU chunk asks for the EGL device of Ray's GPU; every option of
the command line reaches the render as glreader-export's same option does (pixels, sound,
x264's recorded settings), and --shared-work writes the chunks in --work; bad input is
refused. A chunk held mid-render (hold_chunk.py) is killed or cancelled however fast the
machine renders."""
import contextlib
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile

import numpy
import pytest

import glreader
from conftest import decode_frames, decode_sound, frame_times, inputs_shader

import ray

import glreader.farm as farm

# A trail: every frame depends on the ones before. WORK makes each frame slower.
BUFFER = """void mainImage(out vec4 c, in vec2 p) {
    vec2 spot = iResolution.xy * (0.5 + 0.35 * vec2(cos(iTime * 2.0), sin(iTime * 3.0)));
    float wave = 0.0;
    for (int i = 0; i < WORK; i++) wave += sin(p.x * 0.01 + float(i) * 0.37 + iTime) * 1e-4;
    float old = texelFetch(iChannel0, ivec2(p), 0).r * 0.93;
    c = vec4(max(old, smoothstep(6.0, 0.0, distance(p, spot))) + wave * 1e-3);
}
"""
IMAGE = """void mainImage(out vec4 c, in vec2 p) {
    float t = texelFetch(iChannel0, ivec2(p), 0).r;
    c = vec4(t, t * t, fract(p.x / 17.0) * t, 1.0);
}
"""


def trail_project(folder, work):
    folder.mkdir()
    (folder / "bufferA.glsl").write_text(BUFFER.replace("WORK", str(work)))
    (folder / "image.glsl").write_text(IMAGE)
    (folder / "channels").write_text("bufferA.channel0 buffer:A,filter=nearest\nimage.channel0 buffer:A,filter=nearest\n")
    return folder


def listening(ports_of_protocol=("tcp", "tcp6")):
    """The (address, port) of every listening TCP socket on this machine."""
    found = set()
    for table in ports_of_protocol:
        with open(f"/proc/net/{table}") as f:
            for row in f.read().splitlines()[1:]:
                fields = row.split()
                if fields[3] == "0A":
                    address, port = fields[1].split(":")
                    found.add((address, int(port, 16)))
    return found


LOOPBACK = {"0100007F", "00000000000000000000000001000000", "0000000000000000FFFF00000100007F"}
WILDCARD = {"00000000", "00000000000000000000000000000000"}  # in this namespace: loopback alone


def interfaces():
    with open("/proc/net/dev") as f:
        return {row.split(":")[0].strip() for row in f.read().splitlines()[2:]}


def test_this_network_namespace_has_loopback_alone():
    assert interfaces() == {"lo"}, (f"the network interfaces here are {sorted(interfaces())}: run this file through "
                                    "tests/python_farm_test.sh, which gives it a namespace of its own")


# Ray starts once per process: a cluster of its own, and an address nothing answers on,
# are tried in a child process (in the same scratch folder and namespace).
TWO_NODES = """
import json, sys
import ray
from ray.cluster_utils import Cluster
import glreader.farm as farm
project, out, bad = sys.argv[1:4]
try:
    farm.render(project, bad, frames=4, chunks=2, address="127.0.0.1:1", progress=False)
    unreachable = "no error"
except ConnectionError as error:
    unreachable = str(error)
cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
cluster.add_node(num_cpus=1)
try:
    ray.init(address=cluster.address, logging_level="error", log_to_driver=False)
    cluster.wait_for_nodes()
    stats = farm.render(project, out, frames=24, chunks=4, size=(64, 36), codec="ffv1", progress=False)
finally:
    ray.shutdown()
    cluster.shutdown()
print(json.dumps({"nodes": stats["nodes"], "unreachable": unreachable}))
"""


def test_chunks_run_on_both_nodes_of_a_two_node_cluster_and_an_unreachable_one_is_refused(tmp_path):
    # First in this file, before the local cluster: a cluster's shutdown stops every Ray
    # process of the machine, which would end a driver still connected to another.
    project = trail_project(tmp_path / "two", 200)
    out, bad = tmp_path / "two.mkv", tmp_path / "bad.mkv"
    # A session of its own: the cluster's shutdown signals its whole process group, and the
    # SIGTERM handler Ray gave this process would end the test run.
    with ray_scratch() as env:
        child = subprocess.run([sys.executable, "-c", TWO_NODES, str(project), str(out), str(bad)], env=env,
                               capture_output=True, text=True, timeout=300, start_new_session=True)
    assert child.returncode == 0, child.stderr[-3000:]
    result = json.loads(child.stdout.strip().splitlines()[-1])
    # Not Ray's whim: each node has one CPU, which a chunk takes, and the farm spreads its
    # chunks (SPREAD), so the second chunk can only start on the other node.
    assert result["nodes"] == 2, result
    assert len(decode_frames(str(out), 64, 36)) == 24
    assert "cannot reach the Ray cluster at 127.0.0.1:1" in result["unreachable"], result
    assert not bad.exists()


def test_the_command_line_renders_in_chunks_and_refuses_with_words(tmp_path):
    # Before the local cluster below: the command starts and stops a cluster of its own.
    shader = tmp_path / "s.frag"
    shader.write_text("void mainImage(out vec4 c, in vec2 p) { c = vec4(p.x / 32.0, fract(iTime), 0.5, 1); }\n")
    single, joined = tmp_path / "single.mkv", tmp_path / "farm.mkv"
    glreader.render(shader, single, size=(32, 32), frames=6, codec="ffv1", progress=False)
    command = [sys.executable, "-m", "glreader.farm", "--shader", str(shader), "-s", "32x32", "-n", "6", "-c", "ffv1"]
    with ray_scratch() as env:
        done = subprocess.run(command + ["--chunks", "2", "-o", str(joined)], env=env, capture_output=True, text=True,
                              timeout=300)
        assert done.returncode == 0, done.stderr[-3000:]
        assert "glreader.farm: 6 frames in 2 chunks (2 rendered, 0 reused, 0 retried)" in done.stderr, done.stderr
        # stderr is no terminal: lines, not a bar, and one while Ray starts.
        lines = done.stderr.splitlines()
        assert lines[0] == "glreader.farm: starting Ray (a few seconds)", done.stderr
        assert "glreader.farm: 2 of 2 chunks done, 6 of 6 frames" in lines, done.stderr
        assert "\r" not in done.stderr, done.stderr
        assert decode_frames(str(joined), 32, 32) == decode_frames(str(single), 32, 32)
        refused = subprocess.run(command + ["--chunk-frames", "0", "-o", str(tmp_path / "no.mkv")], env=env,
                                 capture_output=True, text=True, timeout=300)
    assert refused.returncode == 1 and "chunk_frames: 0 is not a whole number >= 1" in refused.stderr, refused.stderr
    assert len(refused.stderr.splitlines()) == 1, refused.stderr
    assert not (tmp_path / "no.mkv").exists()
    version = subprocess.run([sys.executable, "-m", "glreader.farm", "--version"], capture_output=True, text=True,
                             timeout=300)
    assert version.returncode == 0 and version.stdout == f"python -m glreader.farm {glreader.__version__}\n", version
    existing = subprocess.run(command + ["--chunks", "2", "-o", str(joined)], capture_output=True, text=True,
                              timeout=300)
    assert existing.returncode == 1 and f"{joined} already exists: -y overwrites it" in existing.stderr, \
        existing.stderr


def x264_settings(path):
    """The options string x264 writes into its stream ("cabac=1 ref=1 ... crf=21.0 ...")."""
    data = open(path, "rb").read()
    at = data.index(b"x264 - core")
    return data[at:data.index(b"\0", at)].decode("ascii", "replace")


def test_every_command_line_option_reaches_the_render_as_glreader_export_s_does(tmp_path):
    # Before the local cluster below: each command starts and stops a cluster of its own.
    (shader, picture), song = inputs_shader(tmp_path), tmp_path / "song.wav"
    subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=2:sample_rate=48000",
                    "-ac", "2", str(song)], check=True, timeout=60)
    scene = ["--shader", str(shader), "-s", "32x16", "-r", "25", "-ss", "0.18", "-t", "0.42", "--channel0",
             f"image:{picture}", "--mouse", "10,20", "--date", "2026-01-02T03:04:05", "--alpha", "-c", "ffv1",
             "--audio", str(song), "-c:a", "flac", "-f", "matroska", "--format-options", "write_crc32=0"]
    farmed, single, work = tmp_path / "farm.bin", tmp_path / "single.mkv", tmp_path / "work"
    with ray_scratch() as env:
        done = subprocess.run([sys.executable, "-m", "glreader.farm", *scene, "--chunk-frames", "4", "--work",
                               str(work), "--shared-work", "--retries", "1", "--gpus-per-chunk", "0", "-y", "-o",
                               str(farmed)], env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-3000:]
        # -ss half a frame past frame 4 starts at frame 5; -t 10.5 frames long holds 11 (as
        # glreader-export counts them, and ffmpeg's testsrc).
        assert "11 frames in 3 chunks (3 rendered" in done.stderr, done.stderr
        assert sorted(n for n in os.listdir(work) if n.startswith("chunk-")) == \
            ["chunk-000000005-000000009.nut", "chunk-000000009-000000013.nut", "chunk-000000013-000000016.nut"], \
            "--shared-work: the chunks written in --work, frames 5 to 16 (-ss 0.18 -t 0.42 at 25 fps)"
        subprocess.run([os.environ["GLREADER_EXPORT"], *scene, "-o", str(single)], check=True, capture_output=True,
                       timeout=120)
        assert decode_frames(str(farmed), 32, 16) == decode_frames(str(single), 32, 16), "glreader-export's frames"
        farm_sound, export_sound = (decode_sound(str(path), 48000) for path in (farmed, single))
        # Within one 16-bit step: the join's sound path and the exporter's (which starts the
        # file at the range's start through a negative offset) round differently.
        assert farm_sound.shape == export_sound.shape and numpy.abs(farm_sound - export_sound).max() <= 1.5 / 32768, \
            "glreader-export's sound"
        # The encoder's options, as x264 records them in its stream.
        h264 = tmp_path / "x264.mkv"
        done = subprocess.run([sys.executable, "-m", "glreader.farm", "--shader", str(shader), "-s", "32x16", "-n",
                               "8", "--chunks", "2", "-c", "libx264", "-preset", "veryfast", "-crf", "21", "-g", "6",
                               "-tune", "animation", "-pix_fmt", "yuv444p", "--codec-options", "aq-mode=2",
                               "-metadata", "title=Farmed", "--part", "-o", str(h264)], env=env, capture_output=True,
                              text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-3000:]
        assert not os.path.exists(f"{h264}.part"), "--part: renamed once whole"
        assert subprocess.run(["ffprobe", "-v", "error", "-show_entries", "format_tags=title", "-of", "csv=p=0",
                               str(h264)], capture_output=True, text=True, check=True, timeout=60).stdout.strip() == \
            "Farmed", "-metadata reaches the joined output"
        settings = x264_settings(h264)
        for option in ("crf=21.0", "keyint=6", "aq=2:", "deblock=1:1:1", "subme=2"):  # tune, preset: deblock, subme
            assert option in settings, f"{option} not in x264's settings: {settings}"
        assert subprocess.run(["ffprobe", "-v", "error", "-show_entries", "stream=pix_fmt", "-of", "csv=p=0",
                               str(h264)], capture_output=True, text=True, check=True, timeout=60).stdout.strip() == \
            "yuv444p"
        rate = tmp_path / "bitrate.mkv"
        done = subprocess.run([sys.executable, "-m", "glreader.farm", "--shader", str(shader), "-s", "32x16", "-n",
                               "4", "--chunks", "1", "-c", "libx264", "-b:v", "300k", "-o", str(rate)], env=env,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-3000:]
        assert "bitrate=300" in x264_settings(rate), x264_settings(rate)
        # --start-frame and --premultiply, against glreader-export's.
        premultiplied, exported = tmp_path / "premultiplied.mkv", tmp_path / "premultiplied-export.mkv"
        other = ["--shader", str(shader), "-s", "32x16", "--start-frame", "5", "-n", "4", "--premultiply", "-c", "ffv1",
                 "--date", "2026-01-02T03:04:05"]  # (without --date, iDate is the clock's)
        done = subprocess.run([sys.executable, "-m", "glreader.farm", *other, "--chunks", "2", "-o",
                               str(premultiplied)], env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-3000:]
        subprocess.run([os.environ["GLREADER_EXPORT"], *other, "-o", str(exported)], check=True, capture_output=True,
                       timeout=120)
        assert decode_frames(str(premultiplied), 32, 16) == decode_frames(str(exported), 32, 16)
    # --address: a cluster that is not there is refused with words, and nothing is written.
    unreachable = subprocess.run([sys.executable, "-m", "glreader.farm", "--shader", str(shader), "-n", "4",
                                  "--chunks", "2", "--address", "127.0.0.1:1", "-o", str(tmp_path / "no.mkv")],
                                 capture_output=True, text=True, timeout=300)
    assert unreachable.returncode == 1, unreachable.stderr[-3000:]
    assert "cannot reach the Ray cluster at 127.0.0.1:1" in unreachable.stderr, unreachable.stderr[-3000:]
    assert not (tmp_path / "no.mkv").exists()


@contextlib.contextmanager
def ray_scratch():
    """An environment that puts Ray's session files and token in a scratch folder (short:
    Ray's socket paths must fit 107 bytes), removed afterwards, and tells Ray to keep to
    127.0.0.1 (RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0; Ray 2.60 still binds every interface it
    has, which is why the namespace is the guarantee and the tests check the sockets)."""
    assert interfaces() == {"lo"}, "Ray would listen on the machine's own address: see tests/python_farm_test.sh"
    scratch = tempfile.mkdtemp(prefix="glr-ray-", dir="/tmp")
    os.makedirs(os.path.join(scratch, "ray"))
    os.makedirs(os.path.join(scratch, "home"))
    try:
        # hold_chunk (beside this file), the workers' setup hook, holds an attempt when the
        # file GLR_FARM_TEST_HOLD names exists.
        path = os.pathsep.join(filter(None, (os.path.dirname(__file__), os.environ.get("PYTHONPATH"))))
        yield dict(os.environ, HOME=os.path.join(scratch, "home"), RAY_TMPDIR=scratch,
                   RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER="0", PYTHONPATH=path,
                   GLR_FARM_TEST_HOLD=os.path.join(scratch, "hold"))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


HOLD_HOOK = {"worker_process_setup_hook": "hold_chunk.hold_one_attempt"}


def held_worker():
    """The process id of the chunk attempt hold_chunk holds, once one is held; None before."""
    try:
        with open(os.environ["GLR_FARM_TEST_HOLD"] + ".claimed") as f:
            return int(f.read())
    except FileNotFoundError:
        return None


def hold_a_chunk():
    hold = os.environ["GLR_FARM_TEST_HOLD"]
    with contextlib.suppress(FileNotFoundError):
        os.remove(hold + ".claimed")  # an earlier test's
    open(hold, "x").close()


def kill_held_worker(killed):
    """A farm progress callback that kills the held attempt's worker (SIGKILL: the task's
    worker dies mid-chunk) once, when the farm knows that worker too (its report reaches the
    progress actor on its own time), and records its pid in `killed`."""

    def progress(status):
        pid = held_worker()
        if pid in status["worker_pids"].values() and not killed:
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)

    return progress


def test_hardware_frames_that_cannot_start_are_refused_before_ray_starts(tmp_path, monkeypatch):
    # Before the local cluster below: a cluster of this machine is one the farm would start.
    # No machine has a 100th CUDA device; this one has no CUDA driver either.
    def no_ray(*args, **kwargs):
        raise AssertionError("Ray was started")

    monkeypatch.setattr(ray, "init", no_ray)
    shader = tmp_path / "s.frag"
    shader.write_text("void mainImage(out vec4 c, in vec2 p) { c = vec4(p.x / 64.0); }\n")
    work = tmp_path / "work"
    with pytest.raises(glreader.Error, match="hardware frames cannot start: "):
        farm.render(shader, tmp_path / "out.mkv", frames=4, chunks=2, size=(64, 36), codec="ffv1", pix_fmt="yuv420p",
                    hw_frames="on", hw_device="cuda:99", work=work, progress=False)
    assert not (tmp_path / "out.mkv").exists()
    assert not work.exists() or os.listdir(work) == [], "refused before any chunk rendered"


@pytest.fixture(scope="module")
def local_ray():
    """One local Ray cluster for the tests below (Ray starts once per process), on loopback,
    shut down after. Yields the listening sockets from before it."""
    with ray_scratch() as env:
        saved = dict(os.environ)
        # One GPU claimed, numbered 97, that no machine has (a GPU machine's CUDA sees none
        # through it): Ray hands it out as it would a real one.
        os.environ.update(env, CUDA_VISIBLE_DEVICES="97")
        before = listening()
        ray.init(num_cpus=2, num_gpus=1, include_dashboard=False, logging_level="error", log_to_driver=False,
                 runtime_env=HOLD_HOOK)
        try:
            yield before
        finally:
            ray.shutdown()
            os.environ.clear()
            os.environ.update(saved)


def test_a_feedback_project_in_chunks_equals_the_single_pass_and_a_rerun_reuses_them(tmp_path, local_ray):
    project = trail_project(tmp_path / "trail", 4)
    single, joined, work = tmp_path / "single.mkv", tmp_path / "farm.mkv", tmp_path / "work"
    common = dict(size=(64, 36), codec="ffv1")
    glreader.render(project, single, frames=30, progress=False, **common)
    opened = listening() - local_ray
    assert opened, "the cluster listens somewhere"
    assert all(address in LOOPBACK | WILDCARD for address, _ in opened), f"a cluster socket off loopback: {opened}"
    seen = []
    stats = farm.render(project, joined, frames=30, chunks=3, work=work, progress=seen.append, **common)
    assert (stats["chunks"], stats["frames"], stats["chunks_rendered"], stats["chunks_reused"]) == (3, 30, 3, 0)
    assert decode_frames(str(joined), 64, 36) == decode_frames(str(single), 64, 36)
    assert seen and seen[-1]["state"] == "ended" and seen[-1]["frames_done"] == 30
    again = farm.render(project, joined, frames=30, chunks=3, work=work, overwrite=True, progress=False, **common)
    assert (again["chunks_rendered"], again["chunks_reused"]) == (0, 3), "the manifest's chunks are reused"
    assert decode_frames(str(joined), 64, 36) == decode_frames(str(single), 64, 36)
    # A changed pass is a changed project: nothing of the old one is reused. The project
    # travels to the tasks zipped, so the workers render what the folder holds now.
    (project / "image.glsl").write_text(IMAGE.replace("t * t", "1.0 - t"))
    glreader.render(project, single, frames=30, progress=False, overwrite=True, **common)
    changed = farm.render(project, joined, frames=30, chunks=3, work=work, overwrite=True, progress=False, **common)
    assert (changed["chunks_rendered"], changed["chunks_reused"]) == (3, 0)
    assert decode_frames(str(joined), 64, 36) == decode_frames(str(single), 64, 36)


def test_a_worker_killed_mid_chunk_is_retried_and_the_output_is_whole(tmp_path, local_ray):
    project = trail_project(tmp_path / "trail", 4)
    single, joined = tmp_path / "single.mkv", tmp_path / "farm.mkv"
    common = dict(size=(96, 54), codec="ffv1")
    glreader.render(project, single, frames=60, progress=False, **common)
    hold_a_chunk()
    killed = []
    stats = farm.render(project, joined, frames=60, chunks=2, progress=kill_held_worker(killed), **common)
    assert killed, "no attempt was held"
    assert stats["retried"] == 1
    assert decode_frames(str(joined), 96, 54) == decode_frames(str(single), 96, 54)


def test_a_shadertoy_json_s_media_travel_to_the_chunks(tmp_path, local_ray):
    media = tmp_path / "media"
    media.mkdir()
    subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc2=s=32x16", "-frames:v", "1",
                    str(media / "pic.png")], check=True, timeout=60)
    project = tmp_path / "picture.json"
    project.write_text(json.dumps({"Shader": {"ver": "0.1", "info": {"id": "m3d1", "name": "picture"}, "renderpass": [
        {"type": "image", "name": "Image", "outputs": [{"id": "4dfGRr", "channel": 0}],
         "inputs": [{"id": "XdX3Rn", "ctype": "texture", "channel": 0, "src": "/media/a/pic.png"}],
         "code": "void mainImage(out vec4 c, in vec2 p) {\n"
                 "    c = texture(iChannel0, fract(p / iResolution.xy + vec2(float(iFrame) / 8.0, 0.0)));\n}"}]}}))
    single, joined = tmp_path / "single.mkv", tmp_path / "farm.mkv"
    common = dict(size=(32, 16), codec="ffv1", media=media)
    glreader.render(project, single, frames=8, progress=False, **common)
    farm.render(project, joined, frames=8, chunks=2, progress=False, **common)
    frames = decode_frames(str(joined), 32, 16)
    assert frames == decode_frames(str(single), 32, 16), "the single pass's frames: the chunks found the picture"
    assert len(set(frames)) == 8, "the picture, moving"


def test_a_chunk_whose_worker_dies_more_often_than_retries_allow_fails_the_render_naming_it(tmp_path, local_ray):
    project = trail_project(tmp_path / "trail", 4)
    out, work = tmp_path / "out.mkv", tmp_path / "work"
    hold_a_chunk()
    killed = []
    with pytest.raises(glreader.Error, match=r"glreader\.farm: chunk chunk-0+\d+-0+\d+\.nut \(frames \d+\.\.\d+\) failed"):
        farm.render(project, out, frames=20, chunks=2, retries=0, work=work, size=(32, 16), codec="ffv1",
                    progress=kill_held_worker(killed))
    assert killed, "no attempt was held"
    assert not out.exists(), "no output from a render with a chunk missing"


# Connects to the running cluster (as a job with the holding hook); once a chunk is held,
# tells the test which worker processes run its chunks, then ends as Ctrl-C ends it.
CANCELLED = """
import json, os, sys
import ray
import glreader.farm as farm
project, out, work, hook = sys.argv[1:5]
ray.init(address="auto", runtime_env=json.loads(hook), logging_level="error", log_to_driver=False)
held = os.environ["GLR_FARM_TEST_HOLD"] + ".claimed"
told = []
def progress(status):
    pid = int(open(held).read()) if os.path.exists(held) else None
    # The farm knows the held worker too, and the other chunk is done: Ctrl-C then lands while
    # one chunk is certainly rendering and none is finishing (whose result, coming back as
    # its task is cancelled, Ray's bookkeeping can fail on).
    if pid in status["worker_pids"].values() and status["chunks_done"] >= 1 and not told:
        told.append(True)
        print(json.dumps(sorted(status["worker_pids"].values())), flush=True)
try:
    farm.render(project, out, frames=60, chunks=2, size=(96, 54), codec="ffv1", work=work, shared_work=True,
                progress=progress)
except KeyboardInterrupt:
    sys.exit(130)
"""


def test_ctrl_c_stops_every_chunk_and_writes_nothing(tmp_path, local_ray):
    project = trail_project(tmp_path / "trail", 4)
    out, work = tmp_path / "cancelled.mkv", tmp_path / "work"
    hold_a_chunk()
    child = subprocess.Popen([sys.executable, "-c", CANCELLED, str(project), str(out), str(work), json.dumps(HOLD_HOOK)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        ready, _, _ = select.select([child.stdout], [], [], 120)
        assert ready, "no chunk was seen held"
        workers = json.loads(child.stdout.readline())
        assert held_worker() in workers, workers
        child.send_signal(signal.SIGINT)
        assert child.wait(timeout=120) == 130, child.stderr.read()[-3000:]
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert not out.exists()
    assert [name for name in os.listdir(work) if ".part" in name] == [], "an attempt's partial chunk was left"
    for pid in workers:  # the chunks' workers were stopped, not left rendering
        try:
            ended = os.pidfd_open(pid)
        except ProcessLookupError:
            continue
        try:
            assert select.select([ended], [], [], 60)[0], f"worker {pid} still runs"
        finally:
            os.close(ended)


def test_bad_input_is_refused_and_nothing_is_written(tmp_path, local_ray):
    shader = tmp_path / "s.frag"
    shader.write_text("void mainImage(out vec4 c, in vec2 p) { c = vec4(p.x / 64.0); }\n")
    out = tmp_path / "out.mkv"
    with pytest.raises(ValueError, match="give chunks"):
        farm.render(shader, out, frames=10, chunks=2, chunk_frames=5)
    with pytest.raises(ValueError, match="the farm sets it"):
        farm.render(shader, out, frames=10, chunks=2, chunk=True)
    out.write_bytes(b"mine")
    with pytest.raises(FileExistsError, match="already exists: overwrite=True replaces it"):
        farm.render(shader, out, frames=10, chunks=2, progress=False)
    assert out.read_bytes() == b"mine"
    assert farm.split(0, 10, chunks=3) == [(0, 3), (3, 3), (6, 4)]
    assert farm.split(5, 10, chunk_frames=4) == [(5, 4), (9, 4), (13, 2)]


def probe(path, stream, section, fields):
    """ffprobe's values of fields in each entry of section ("frames", "streams") of stream ("v", "a")."""
    out = subprocess.run(["ffprobe", "-v", "error", "-select_streams", stream, "-show_entries",
                          f"{section.rstrip('s')}={','.join(fields)}", "-of", "json", str(path)],
                         check=True, capture_output=True, text=True, timeout=60).stdout
    return [tuple(entry.get(f) for f in fields) for entry in json.loads(out)[section]]


def test_h264_and_aac_from_the_farm_have_the_single_pass_s_frames_timestamps_and_sound(tmp_path, local_ray):
    song = tmp_path / "song.wav"
    subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=1.5:sample_rate=48000",
                    "-ac", "2", str(song)], check=True, timeout=60)
    shader = tmp_path / "moving.frag"
    shader.write_text("void mainImage(out vec4 c, in vec2 p) { c = vec4(fract(p.x / 64.0 + iTime), p.y / 36.0, 0.5, 1); }\n")
    common = dict(size=(64, 36), codec="libx264", audio=song, audio_codec="aac")
    single, joined = tmp_path / "single.mp4", tmp_path / "farm.mp4"
    glreader.render(shader, single, frames=36, progress=False, **common)
    stats = farm.render(shader, joined, frames=36, chunks=3, progress=False, **common)
    assert stats["chunks"] == 3

    frames = probe(single, "v", "frames", ("pts", "pts_time", "key_frame"))
    farm_frames = probe(joined, "v", "frames", ("pts", "pts_time", "key_frame"))
    assert len(farm_frames) == 36, "no frame dropped or repeated"
    assert [f[0] for f in farm_frames] == [f[0] for f in frames], "the single pass's timestamps"
    chunk_starts = {0, 12, 24}
    single_keys = {i for i, f in enumerate(frames) if f[2] == 1}
    assert {i for i, f in enumerate(farm_frames) if f[2] == 1} <= chunk_starts | single_keys
    assert all(farm_frames[i][2] == 1 for i in chunk_starts), "every chunk starts on a keyframe"

    def samples(path):
        return subprocess.run(["ffmpeg", "-v", "error", "-i", str(path), "-map", "0:a", "-f", "s16le", "-"],
                              check=True, capture_output=True, timeout=60).stdout

    assert len(samples(joined)) == len(samples(single)), "the single pass's sample count: one AAC encode, no seams"
    assert samples(joined) == samples(single), "the single pass's sound, sample for sample"
    # The sound is one stream over the whole; at each join, the video frame's time against
    # the sound's start is the single pass's.
    audio_start = float(probe(joined, "a", "streams", ("start_time",))[0][0])
    single_audio_start = float(probe(single, "a", "streams", ("start_time",))[0][0])
    for start in sorted(chunk_starts):
        offset = float(farm_frames[start][1]) - audio_start
        assert abs(offset - (float(frames[start][1]) - single_audio_start)) <= 0.001, f"out of sync at frame {start}"
    decoded = subprocess.run(["ffmpeg", "-v", "warning", "-i", str(joined), "-f", "null", "-"], capture_output=True,
                             text=True, timeout=60)
    assert decoded.returncode == 0 and decoded.stderr == "", decoded.stderr


def test_a_project_s_sound_pass_and_sound_channels_are_the_single_pass_s(tmp_path, local_ray):
    # A Sound pass at a rate whose frames hold no whole number of samples, which the Image
    # pass sees through a sound channel: each chunk keeps its frames' samples and the join
    # encodes them once, so picture and sound are a single pass's. With a sound file, the
    # chunks' sound channels hear the file (shipped with the tasks), as a single pass's do.
    project = tmp_path / "sweep"
    project.mkdir()
    (project / "sound.glsl").write_text("vec2 mainSound(int samp, float time) {\n"
                                        "    return vec2(0.4 * sin(900.0 * time * time), 0.3 * sin(1382.3 * time));\n"
                                        "}\n")
    (project / "image.glsl").write_text("void mainImage(out vec4 c, in vec2 p) {\n"
                                        "    c = vec4(texelFetch(iChannel0, ivec2(p.x * 4.0, 1), 0).r, p.y / 36.0, 0.5, 1);\n"
                                        "}\n")
    (project / "channels").write_text("image.channel0 sound\n")
    common = dict(size=(64, 36), fps="30000/1001", codec="ffv1", audio_codec="flac")
    single, joined = tmp_path / "single.mkv", tmp_path / "farm.mkv"
    glreader.render(project, single, frames=25, progress=False, **common)
    assert farm.render(project, joined, frames=25, chunks=3, progress=False, **common)["chunks"] == 3
    assert decode_frames(str(joined), 64, 36) == decode_frames(str(single), 64, 36), "the sound channel's pictures"
    farm_sound, single_sound = decode_sound(str(joined), 44100), decode_sound(str(single), 44100)
    # The samples of 25 frames at 30000/1001 fps, counted here: those that start before the
    # 25th frame's end, 25 * 1001 * 44100 / 30000 = 36786.75 rounded up.
    assert farm_sound.size == 2 * 36787, farm_sound.size
    assert numpy.array_equal(farm_sound, single_sound), "the Sound pass's samples"

    song = tmp_path / "song.wav"
    subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "sine=frequency=300:duration=1:sample_rate=48000",
                    "-ac", "2", str(song)], check=True, timeout=60)
    glreader.render(project, single, frames=25, audio=song, overwrite=True, progress=False, **common)
    farm.render(project, joined, frames=25, chunks=3, audio=song, overwrite=True, progress=False, **common)
    assert decode_frames(str(joined), 64, 36) == decode_frames(str(single), 64, 36), "the file's, heard by the channel"
    assert numpy.array_equal(decode_sound(str(joined), 48000), decode_sound(str(single), 48000)), "the file's sound"


def test_without_a_codec_the_output_gets_its_container_s_own_and_an_impossible_pair_is_refused_first(tmp_path,
                                                                                                      local_ray):
    # As glreader-export and glreader.render choose: H.264 for MP4, VP9 (and Opus) for WebM;
    # never the chunks' container's own (NUT's MPEG-4 Part 2).
    shader = tmp_path / "s.frag"
    shader.write_text("void mainImage(out vec4 c, in vec2 p) { c = vec4(p.x / 64.0, fract(iTime), 0.5, 1); }\n")
    song = tmp_path / "song.wav"
    subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=1", "-ac", "2",
                    str(song)], check=True, timeout=60)
    for name, video, sound in (("farm.mp4", "h264", None), ("farm.webm", "vp9", "opus")):
        out = tmp_path / name
        farm.render(shader, out, frames=8, chunks=2, size=(64, 36), audio=song if sound else None, progress=False)
        single = tmp_path / f"single-{name}"
        glreader.render(shader, single, frames=8, size=(64, 36), audio=song if sound else None, progress=False)
        for stream, codec in (("v", video), ("a", sound)):
            if codec:
                assert probe(out, stream, "streams", ("codec_name",)) == [(codec,)], name
                assert probe(single, stream, "streams", ("codec_name",)) == [(codec,)], "the single pass's choice"
        assert len(probe(out, "v", "frames", ("pts",))) == 8
    work = tmp_path / "work"
    for bad, words in ((dict(codec="libx264"), "the webm muxer cannot hold h264"),
                       (dict(audio=song, audio_codec="aac"), "the webm muxer cannot hold aac")):
        with pytest.raises(ValueError, match=words):
            farm.render(shader, tmp_path / "no.webm", frames=8, chunks=2, size=(64, 36), work=work, progress=False,
                        **bad)
        assert not (tmp_path / "no.webm").exists()
        assert not work.exists() or os.listdir(work) == [], "refused before any chunk rendered"


def test_a_range_in_chunks_is_the_frames_ffmpeg_s_rule_counts_by_hand(tmp_path, local_ray):
    # Worked out here, not taken from glreader-export: at 30000/1001 frames a second, start
    # 1.0 falls on frame 30 (1.001 s) and duration 0.5 holds 15 frames (k x 1001/30000 <
    # 0.5), in 4 chunks of 3 or 4, each stamped from the first, k x 1001/30000 s (to
    # Matroska's millisecond).
    shader = tmp_path / "counter.frag"
    shader.write_text("void mainImage(out vec4 c, in vec2 p) { c = vec4(float(iFrame % 256) / 255.0, 0, 0, 1); }\n")
    out = tmp_path / "range.mkv"
    stats = farm.render(shader, out, fps="30000/1001", start=1.0, duration=0.5, chunks=4, size=(32, 16), codec="ffv1",
                        progress=False)
    assert (stats["first_frame"], stats["frames"], stats["chunks"]) == (30, 15, 4), stats
    assert [f[0] for f in decode_frames(str(out), 32, 16)] == list(range(30, 45))
    times = frame_times(str(out))
    assert len(times) == 15 and all(abs(t - k * 1001 / 30000) <= 0.0005 + 1e-9 for k, t in enumerate(times)), times


COLOUR = ("color_range", "color_space", "color_transfer", "color_primaries", "chroma_location")


@pytest.mark.parametrize("name,codec,pix_fmt,tags", [
    ("farm.mp4", "libx264", None, ("tv", "bt709", "bt709", "bt709", "left")),
    ("farm.webm", "libvpx-vp9", None, ("tv", "bt709", "bt709", "bt709", "left")),
    ("farm.mkv", "ffv1", "yuv420p", ("tv", "bt709", "bt709", "bt709", "left")),
])
def test_the_output_carries_the_single_pass_s_colour_tags(tmp_path, local_ray, name, codec, pix_fmt, tags):
    # The chunks are NUT, which keeps no colour tags (nor do VP9's and FFV1's headers all of
    # them): the join tags the output as the single pass does, from the chunks' own tags.
    shader = tmp_path / "s.frag"
    shader.write_text("void mainImage(out vec4 c, in vec2 p) { c = vec4(p.x / 64.0, fract(iTime), 0.5, 1); }\n")
    options = dict(frames=6, size=(64, 36), codec=codec, progress=False, **({"pix_fmt": pix_fmt} if pix_fmt else {}))
    farm.render(shader, tmp_path / name, chunks=2, **options)
    glreader.render(shader, tmp_path / f"single-{name}", **options)
    assert probe(tmp_path / f"single-{name}", "v", "streams", COLOUR) == [tags], "the single pass's tags"
    assert probe(tmp_path / name, "v", "streams", COLOUR) == [tags]


def test_a_gpu_chunk_asks_for_the_egl_device_of_the_gpu_ray_gave_it(tmp_path, local_ray):
    # The cluster claims GPU 97, which no machine has: Ray gives it to the chunk (narrowing
    # CUDA_VISIBLE_DEVICES to it), the chunk asks for the EGL device CUDA numbers 0, and no
    # EGL device is that one (llvmpipe's is no CUDA device; an NVIDIA GPU is hidden from
    # CUDA by the list), which it says: never a silent render on another device.
    shader = tmp_path / "s.frag"
    shader.write_text("void mainImage(out vec4 c, in vec2 p) { c = vec4(p.x / 32.0); }\n")
    out = tmp_path / "gpu.mkv"
    with pytest.raises(glreader.Error, match=r"chunk chunk-0+-0+4\.nut \(frames 0\.\.3\) failed: .*"
                                             r"GLR_EGL_DEVICE=cuda:0: no such EGL device"):
        farm.render(shader, out, frames=4, chunks=1, gpus_per_chunk=1, size=(32, 32), codec="ffv1", progress=False)
    assert not out.exists()


@pytest.mark.parametrize("gpu, visible, device", [
    (3, None, "cuda:3"),     # no list: CUDA numbers every GPU, as Ray does
    ("5", "5", "cuda:0"),    # Ray narrowed the list to the task's GPU
    ("5", "3,5", "cuda:1"),  # RAY_EXPERIMENTAL_NOSET_CUDA_VISIBLE_DEVICES: the whole list
    ("GPU-1a", "GPU-0f, GPU-1a", "cuda:1"),  # listed by UUID
])
def test_a_gpus_egl_device_is_cudas_number_for_it_in_the_process(gpu, visible, device):
    assert farm.cluster.egl_device_of_gpu(gpu, visible) == device


def test_a_gpu_that_cuda_visible_devices_hides_is_refused():
    with pytest.raises(RuntimeError, match="Ray gave GPU 2, which CUDA_VISIBLE_DEVICES=0,1 does not list"):
        farm.cluster.egl_device_of_gpu(2, "0,1")
