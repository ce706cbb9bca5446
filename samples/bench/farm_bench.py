"""What rendering in chunks costs on this machine (glreader.farm): the fixed cost of one
chunk (process start, GL context, compile, encoder, as glreader-export --frames pays it,
and as a Ray task pays it), the join's speed, and one pass against the farm with 1 and 2
workers. Every figure is min / median / max of interleaved runs, with CPU seconds next to
the wall clock. A benchmark, not a test: its tables go to docs/performance.md.

Ray binds every interface it finds; run it where loopback is all there is:

    unshare --net sh -c 'ip link set lo up && PYTHONPATH=build/python \\
        GLREADER_EXPORT=build/samples/glreader-export python samples/bench/farm_bench.py --out docs/bench'
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import glreader

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SHADER = os.path.join(REPO, "samples", "shaders", "plasma.frag")

# One farm run in a process of its own (Ray starts once per process): a local cluster of
# `workers` CPUs, the render, and what it took with and without the cluster's start.
FARM_RUN = """
import json, sys, time
started = time.monotonic()
import ray, glreader.farm as farm
workers, args = int(sys.argv[1]), json.loads(sys.argv[2])
ray.init(num_cpus=workers, include_dashboard=False, logging_level="error", log_to_driver=False)
up = time.monotonic()
stats = farm.render(**args)
ray.shutdown()
print(json.dumps({"render_seconds": stats["seconds"], "cluster_start_seconds": up - started}))
"""


def machine_cpu():
    """CPU seconds every process of the machine has used: Ray's workers are no children of
    the process that waits for a farm run, so its own count would miss them."""
    with open("/proc/stat") as f:
        fields = [int(v) for v in f.readline().split()[1:]]
    idle = fields[3] + fields[4]  # idle, iowait
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def timed(command, env=None):
    """(wall seconds, the machine's CPU seconds, stdout) of a child process."""
    cpu, start = machine_cpu(), time.monotonic()
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=900)
    if done.returncode != 0:
        sys.exit(f"farm_bench: {command[:3]}... failed:\n{done.stderr[-2000:]}")
    return time.monotonic() - start, machine_cpu() - cpu, done.stdout


def spread(values):
    return {"min": min(values), "median": statistics.median(values), "max": max(values)}


def cell(s, digits=2):
    return " / ".join(f"{s[k]:.{digits}f}" for k in ("min", "median", "max"))


def chunk_fixed_cost(export, scratch, runs, size):
    """glreader-export --frames over 1 frame and over 31: the fixed cost is the first
    less a frame's share of their difference."""
    out = os.path.join(scratch, "fixed.nut")
    base = [export, "--shader", SHADER, "-s", size, "-c", "libx264", "--preset", "ultrafast", "-o", out, "-y", "-v",
            "error"]
    fixed, per_frame, cpu_fixed = [], [], []
    for _ in range(runs):
        one, one_cpu, _ = timed(base + ["--frames", "100-101"])
        many, many_cpu, _ = timed(base + ["--frames", "100-131"])
        frame = (many - one) / 30
        fixed.append(one - frame)
        per_frame.append(frame)
        cpu_fixed.append(one_cpu - (many_cpu - one_cpu) / 30)
    return {"fixed_seconds": spread(fixed), "fixed_cpu_seconds": spread(cpu_fixed),
            "seconds_per_frame": spread(per_frame), "size": size}


def farm_env(scratch):
    home = os.path.join(scratch, "home")
    os.makedirs(home, exist_ok=True)
    return dict(os.environ, RAY_TMPDIR=scratch, HOME=home, RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER="0")


def farm_run(scratch, workers, args):
    wall, cpu, out = timed([sys.executable, "-c", FARM_RUN, str(workers), json.dumps(args)], env=farm_env(scratch))
    result = json.loads(out.strip().splitlines()[-1])
    return dict(result, wall_seconds=wall, cpu_seconds=cpu)


def ray_chunk_cost(scratch, runs, size):
    """Four one-frame chunks on one worker, each a Ray task in a fresh worker process: the
    render's seconds over four (the join of four tiny chunks is a few milliseconds)."""
    per_chunk = []
    for i in range(runs):
        args = dict(shader=SHADER, output=os.path.join(scratch, f"tiny{i}.mkv"), frames=4, chunks=4,
                    size=[int(v) for v in size.split("x")],
                    codec="libx264", codec_options="preset=ultrafast", progress=False, overwrite=True)
        per_chunk.append(farm_run(scratch, 1, args)["render_seconds"] / 4)
    return {"seconds": spread(per_chunk), "size": size}


def join_speed(scratch, runs):
    """Four 1080p rawvideo chunks (the join copies packets whatever the codec), joined."""
    chunks = []
    for first in range(0, 64, 16):
        path = os.path.join(scratch, f"raw-{first}.nut")
        glreader.render(SHADER, path, size=(1920, 1080), first_frame=first, frames=16, codec="rawvideo",
                        pix_fmt="yuv420p", chunk=True, progress=False)
        chunks.append(path)
    size = sum(os.path.getsize(c) for c in chunks)
    rates, cpu_seconds = [], []
    for _ in range(runs):
        out = os.path.join(scratch, "joined.nut")
        cpu, start = machine_cpu(), time.monotonic()
        glreader.join(chunks, out, overwrite=True)
        seconds = time.monotonic() - start
        rates.append(size / seconds / 1e6)
        cpu_seconds.append(machine_cpu() - cpu)
        os.remove(out)
    for c in chunks:
        os.remove(c)
    return {"bytes": size, "mb_per_second": spread(rates), "cpu_seconds": spread(cpu_seconds)}


def scaling(scratch, runs, size, frames):
    """One pass (glreader.render in a process of its own) against the farm's two chunks on
    one worker and on two, interleaved."""
    width, height = (int(v) for v in size.split("x"))
    common = dict(shader=SHADER, size=(width, height), frames=frames, codec="libx264",
                  codec_options="preset=ultrafast", progress=False, overwrite=True)
    one_pass = ("import json, sys, glreader; a = json.loads(sys.argv[1]); shader = a.pop('shader'); "
                "out = a.pop('output'); glreader.render(shader, out, **a)")
    rows = {"one pass": [], "farm, 1 worker": [], "farm, 2 workers": []}
    for i in range(runs):
        out = os.path.join(scratch, f"pass{i}.mkv")
        wall, cpu, _ = timed([sys.executable, "-c", one_pass, json.dumps(dict(common, output=out))])
        rows["one pass"].append({"wall_seconds": wall, "render_seconds": wall, "cpu_seconds": cpu})
        for workers in (1, 2):
            args = dict(common, output=os.path.join(scratch, f"farm{workers}-{i}.mkv"), chunks=2)
            rows[f"farm, {workers} worker{'s' if workers > 1 else ''}"].append(farm_run(scratch, workers, args))
    summary = {}
    for name, results in rows.items():
        summary[name] = {k: spread([r[k] for r in results]) for k in ("wall_seconds", "render_seconds", "cpu_seconds")}
        summary[name]["cpu_seconds_per_frame"] = spread([r["cpu_seconds"] / frames for r in results])
    base = summary["one pass"]["wall_seconds"]["median"]
    for name in summary:
        summary[name]["speedup_median"] = base / summary[name]["render_seconds"]["median"]
    return {"size": size, "frames": frames, "rows": summary}


def estimate(ray_chunk, join_rate, per_frame_seconds, bitrate_mb_per_second, workers):
    """A 10-minute 1080p60 render (36,000 frames) on `workers` workers, one chunk each: a
    chunk's fixed cost as a Ray task (its worker's start, the context, compile and encoder),
    its share of the frames, then the join of the whole output."""
    frames = 36000
    one_pass = frames * per_frame_seconds
    output_mb = 600 * bitrate_mb_per_second
    farm = ray_chunk + frames / workers * per_frame_seconds + output_mb / join_rate
    return {"workers": workers, "one_pass_seconds": one_pass, "farm_seconds": farm, "speedup": one_pass / farm}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="runs of each measurement (default 3)")
    parser.add_argument("--size", default="1280x720", help="the scaling runs' frame size (default 1280x720)")
    parser.add_argument("--frames", type=int, default=240, help="the scaling runs' length (default 240)")
    parser.add_argument("--out", help="a folder for farm.json and farm.md (default: print only)")
    o = parser.parse_args()
    export = os.environ.get("GLREADER_EXPORT") or shutil.which("glreader-export")
    if not export:
        sys.exit("farm_bench: GLREADER_EXPORT names glreader-export (build/samples/glreader-export)")
    with open("/proc/net/dev") as f:
        interfaces = {row.split(":")[0].strip() for row in f.read().splitlines()[2:]}
    if interfaces != {"lo"}:
        sys.exit(f"farm_bench: Ray would listen on {sorted(interfaces - {'lo'})}: run it in a network namespace "
                 "with loopback alone (see the header of this file)")
    scratch = tempfile.mkdtemp(prefix="glr-farm-bench-", dir="/tmp")
    try:
        result = {"cpus": os.cpu_count(), "runs": o.runs}
        print("farm_bench: the fixed cost of a chunk (glreader-export --frames, 1080p)", file=sys.stderr)
        result["chunk"] = chunk_fixed_cost(export, scratch, o.runs, "1920x1080")
        print("farm_bench: a chunk as a Ray task", file=sys.stderr)
        result["ray_chunk"] = ray_chunk_cost(scratch, o.runs, "1920x1080")
        print("farm_bench: the join", file=sys.stderr)
        result["join"] = join_speed(scratch, o.runs)
        print(f"farm_bench: one pass against the farm ({o.size}, {o.frames} frames)", file=sys.stderr)
        result["scaling"] = scaling(scratch, o.runs, o.size, o.frames)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    ray_chunk = result["ray_chunk"]["seconds"]["median"]
    join_rate = result["join"]["mb_per_second"]["median"]
    # 1080p60 at 12 Mb/s (1.5 MB/s), as a streaming service would take it; the frame costs of
    # llvmpipe here and of a GPU that renders and encodes a frame in 5 ms.
    result["estimates"] = {
        name: [estimate(ray_chunk, join_rate, per_frame, 1.5, w) for w in (10, 100)]
        for name, per_frame in (("this machine's frame", result["chunk"]["seconds_per_frame"]["median"]),
                                ("a 5 ms frame", 0.005))}
    text = report(result)
    print(text)
    if o.out:
        os.makedirs(o.out, exist_ok=True)
        with open(os.path.join(o.out, "farm.json"), "w") as f:
            json.dump(result, f, indent=1)
        with open(os.path.join(o.out, "farm.md"), "w") as f:
            f.write(text)


def report(r):
    c, rc, j, s = r["chunk"], r["ray_chunk"], r["join"], r["scaling"]
    lines = [f"farm_bench: {r['cpus']} CPUs, {r['runs']} runs of each, interleaved; min / median / max", "",
             "CPU seconds are the whole machine's (Ray's processes included).", "",
             "| what | seconds | CPU seconds |", "|---|---|---|",
             f"| a chunk's fixed cost, glreader-export --frames ({c['size']}) | {cell(c['fixed_seconds'])} | "
             f"{cell(c['fixed_cpu_seconds'])} |",
             f"| a frame of that chunk | {cell(c['seconds_per_frame'], 4)} | |",
             f"| a one-frame chunk as a Ray task ({rc['size']}, fresh worker) | {cell(rc['seconds'])} | |",
             "", f"The join: {j['bytes'] / 1e6:.0f} MB of 1080p chunks at {cell(j['mb_per_second'], 0)} MB/s "
             f"({cell(j['cpu_seconds'])} CPU seconds).", "",
             f"One pass against the farm, {s['size']}, {s['frames']} frames, libx264 ultrafast, two chunks:", "",
             "| run | wall seconds | render seconds (no cluster start) | CPU seconds per frame | speed-up (median) |",
             "|---|---|---|---|---|"]
    for name, row in s["rows"].items():
        lines.append(f"| {name} | {cell(row['wall_seconds'])} | {cell(row['render_seconds'])} | "
                     f"{cell(row['cpu_seconds_per_frame'], 4)} | {row['speedup_median']:.2f}x |")
    lines += ["", "A 10-minute 1080p60 render (36,000 frames, 12 Mb/s), one chunk a worker, from these costs:", "",
              "| frame cost | workers | one pass | farm | speed-up |", "|---|---|---|---|---|"]
    for name, rows in r["estimates"].items():
        for e in rows:
            lines.append(f"| {name} | {e['workers']} | {e['one_pass_seconds']:.0f} s | {e['farm_seconds']:.1f} s | "
                         f"{e['speedup']:.1f}x |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
