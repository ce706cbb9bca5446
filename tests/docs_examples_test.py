#!/usr/bin/env python3
"""Every ffmpeg and glreader-export command, and every Python example, of the README and
docs/ runs as written.

A fenced ```sh block that calls ffmpeg or glreader-export is run whole, with bash (set -e,
pipefail), from a scratch folder holding the files the docs name (the repository's
samples/shaders/, and song.mp3, song.flac, clip.mp4, a.mp4, b.mp4, noise.png made here,
trail.json and shader.json: the sample's, shadertoy-media/), with the
complete ffmpeg and the built glreader-export first on the PATH. The HTML comments under
the block say what it must produce, and are checked with ffprobe:

    <!-- expect OUTPUT: video=h264 pix_fmt=yuv420p size=1280x720 frames=150 color=bt709/tv
                        audio=aac title=... files=30 json=key:value -->
    <!-- expect fails: words the failure must say -->

A ```python block that uses glreader runs whole with the built package (--python,
--pythonpath), checked the same way; one that cannot run as written (it calls the reader's
own drawing, or is an hour of a GPU's work) says so under it, and is not run:

    <!-- sketch: why it does not run as written -->

A runnable block without an expectation, a Python block with neither an expectation nor a
sketch's reason, an expectation under no runnable block, a
block that leaves a file no expectation names, or two blocks that write the same output
(a user who runs both meets "already exists"), fails the test. A background receiver (a
line ending in '&' that listens on a loopback port) is waited for until its port is bound
before the next line runs. Each block has a time limit and a network namespace of its own
(loopback only); its outputs are removed after it.

Usage: docs_examples_test.py --ffmpeg PATH --export PATH --root SOURCE_DIR [--python PATH --pythonpath DIR]
"""
import argparse
import fnmatch
import glob
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile

BLOCK = re.compile(r"^```(\w*)([^\n]*)\n(.*?)^```[ \t]*\n((?:[ \t]*<!-- (?:expect |sketch:).*?-->[ \t]*\n)*)",
                   re.S | re.M)
EXPECT = re.compile(r"<!-- expect (.*?)-->", re.S)
SKETCH = re.compile(r"<!-- sketch:(.*?)-->", re.S)
COMMAND = re.compile(r"(^|[|&;(]\s*)(ffmpeg|glreader-export)\s", re.M)
BLOCK_SECONDS = 300

# Waits until a loopback port is bound (UDP) or listening (TCP), by /proc/net: the event a
# sender must wait for, under a deadline.
WAIT_BOUND = r'''
glr_wait_bound() { # PROTOCOL PORT
  python3 - "$1" "$2" <<'PY'
import sys, time
protocol, port = sys.argv[1], int(sys.argv[2])
deadline = time.monotonic() + 60
while time.monotonic() < deadline:
    for table in ("/proc/net/%s" % protocol, "/proc/net/%s6" % protocol):
        try:
            rows = open(table).read().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            fields = row.split()
            if int(fields[1].split(":")[1], 16) == port and (protocol == "udp" or fields[3] == "0A"):
                sys.exit(0)
    time.sleep(0.05)  # pace: the interval of a poll under a deadline
sys.exit("port %d/%s was never bound" % (port, protocol))
PY
}
'''


def blocks_of(path):
    """The runnable blocks of a page: (line, language, script, [expectations]); a Python
    block marked a sketch is left out, one unmarked and without expectations kept (to fail)."""
    text = open(path).read()
    found = []
    for m in BLOCK.finditer(text):
        lang, info, body, comments = m.group(1), m.group(2), m.group(3), m.group(4)
        line = text.count("\n", 0, m.start()) + 1
        expects = [e.strip() for e in EXPECT.findall(comments)]
        sketch = [r.strip() for r in SKETCH.findall(comments)]
        runnable = (lang == "sh" and "file=" not in info and COMMAND.search(body)) or \
                   (lang == "python" and "glreader" in body)
        if sketch and (expects or lang != "python" or not all(sketch)):
            found.append((line, lang, None, ["(a sketch is a Python block with a reason, and no expectation)"]))
        elif runnable and not sketch:
            found.append((line, lang, body, expects))
        elif expects:
            found.append((line, lang, None, expects))  # an expectation under nothing to run
    # Expectations standing alone, under no block at all.
    covered = sum(len(b[3]) for b in found if b[3] and not b[3][0].startswith("(a sketch"))
    if len(EXPECT.findall(text)) != covered:
        found.append((0, None, None, ["(an expect comment not right under a block)"]))
    return found


def shared_outputs(pages, root):
    """Outputs that two blocks write: a user who runs both, in one folder as the docs run
    from the checkout's root, meets "already exists" at the second. One line each."""
    writer, clashes = {}, []
    for page in pages:
        for line, _, script, expects in blocks_of(page):
            where = "%s:%d" % (os.path.relpath(page, root), line)
            for e in expects:
                target = e.partition(":")[0].strip()
                if script is None or e.startswith("fails:"):
                    continue
                if target in writer:
                    clashes.append("%s writes %s, as %s does: give each block outputs of its own" % (
                        where, target, writer[target]))
                else:
                    writer[target] = where
    return clashes


def with_waits(script):
    """The block's lines, a wait for the port after each background receiver."""
    lines = []
    for line in script.splitlines():
        lines.append(line)
        if line.rstrip().endswith("&"):
            port = re.search(r"(tcp|udp)://127\.0\.0\.1:(\d+)", line)
            if port:
                lines.append("glr_wait_bound %s %s" % (port.group(1), port.group(2)))
    return "\n".join(lines) + "\n"


def files_under(folder):
    out = set()
    for base, dirs, files in os.walk(folder, followlinks=False):
        dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(base, d))]
        for f in files:
            out.add(os.path.relpath(os.path.join(base, f), folder))
    return out


class checker:
    def __init__(self, ffprobe, folder):
        self.ffprobe, self.folder = ffprobe, folder

    def probe(self, path, select, entries, extra=()):
        args = [self.ffprobe, "-v", "error"]
        if select:
            args += ["-select_streams", select]
        args += list(extra) + ["-show_entries", entries, "-of", "csv=p=0:s=/", path]
        r = subprocess.run(args, cwd=self.folder, capture_output=True, text=True, timeout=120)
        return r.stdout.strip().split("\n")[0] if r.returncode == 0 else "(ffprobe failed: %s)" % r.stderr.strip()

    def check(self, target, wants):
        """Problems with the file `target` against wants (key, value), as sentences."""
        problems = []
        paths = [target]
        if "%" in target:  # a numbered pattern: its files
            paths = sorted(glob.glob(os.path.join(self.folder, re.sub(r"%0?\d*d", "*", target))))
            paths = [os.path.relpath(p, self.folder) for p in paths]
        if not paths or not os.path.exists(os.path.join(self.folder, paths[0])):
            return ["%s was not written" % target]
        first = paths[0]
        for key, value in wants:
            if key == "video":
                got = self.probe(first, "v:0", "stream=codec_name")
            elif key == "audio":
                got = self.probe(first, "a:0", "stream=codec_name")
            elif key == "pix_fmt":
                got = self.probe(first, "v:0", "stream=pix_fmt")
            elif key == "size":
                got = self.probe(first, "v:0", "stream=width,height").replace("/", "x")
            elif key == "color":  # space/range (ffprobe prints its fields in its own order)
                got = "%s/%s" % (self.probe(first, "v:0", "stream=color_space"),
                                 self.probe(first, "v:0", "stream=color_range"))
            elif key == "frames":
                got = self.probe(first, "v:0", "stream=nb_read_frames", ["-count_frames"])
            elif key == "title":
                got = self.probe(first, "", "format_tags=title")
            elif key == "files":
                got = str(len(paths))
            elif key == "json":
                name, wanted = value.split(":", 1)
                try:
                    got_value = json.load(open(os.path.join(self.folder, first))).get(name)
                except (OSError, ValueError) as e:
                    got_value = "(unreadable: %s)" % e
                got, value = "%s:%s" % (name, got_value), "%s:%s" % (name, wanted)
            else:
                problems.append("unknown expectation %s=%s" % (key, value))
                continue
            if got != value:
                problems.append("%s %s is %r, the docs say %r" % (target, key, got, value))
        return problems


def make_fixtures(ffmpeg, folder, root):
    os.symlink(os.path.join(os.path.abspath(root), "samples"), os.path.join(folder, "samples"))
    made = [
        ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100:duration=6", "-ac", "2", "-c:a", "libmp3lame",
         "song.mp3"],
        ["-f", "lavfi", "-i", "testsrc2=s=640x360:r=25:d=3", "-c:v", "libx264", "-pix_fmt", "yuv420p", "clip.mp4"],
        ["-f", "lavfi", "-i", "testsrc2=s=640x360:r=25:d=2", "-c:v", "libx264", "-pix_fmt", "yuv420p", "a.mp4"],
        ["-f", "lavfi", "-i", "smptebars=s=640x360:r=25:d=2", "-c:v", "libx264", "-pix_fmt", "yuv420p", "b.mp4"],
        ["-f", "lavfi", "-i", "color=c=gray:s=256x256,noise=alls=100:allf=t", "-frames:v", "1", "noise.png"],
    ]
    for args in made:
        subprocess.run([ffmpeg, "-v", "error", "-nostdin", "-y"] + args, cwd=folder, check=True, timeout=120)
    # The Python examples' Shadertoy JSONs (the sample, under the names the docs give) and
    # a media folder, and their lossless song.
    trail = os.path.join(os.path.abspath(root), "samples", "shaders", "trail.json")
    os.symlink(trail, os.path.join(folder, "trail.json"))
    shutil.copy(trail, os.path.join(folder, "shader.json"))
    os.mkdir(os.path.join(folder, "shadertoy-media"))
    subprocess.run([ffmpeg, "-v", "error", "-nostdin", "-y", "-i", "song.mp3", "song.flac"], cwd=folder, check=True,
                   timeout=120)


# Each block runs in a network namespace of its own whose only interface is loopback: the
# pages' fixed ports (a TCP and a UDP receiver) can collide with nothing on the machine,
# and nothing a block runs reaches the network. Root makes the namespace directly; another
# user gets one inside a user namespace.
NAMESPACE = ["unshare", "--net"] + ([] if os.getuid() == 0 else ["--map-root-user"])


def run_block(lang, script, folder, env, python):
    """Runs a block (a shell's, or Python's with python); (exit status, what it printed)."""
    if lang == "python":
        command = ["sh", "-c", 'ip link set lo up && exec "$0" -c "$1"', python, script]
    else:
        command = ["bash", "-c", "ip link set lo up\nset -eo pipefail\n" + WAIT_BOUND + with_waits(script)]
    p = subprocess.Popen(NAMESPACE + command, cwd=folder, env=env, stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        out, _ = p.communicate(timeout=BLOCK_SECONDS)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, _ = p.communicate()
        return 124, out + "\n(killed after %d s)" % BLOCK_SECONDS
    return p.returncode, out


def main():
    a = argparse.ArgumentParser()
    a.add_argument("--ffmpeg", required=True)
    a.add_argument("--export", required=True)
    a.add_argument("--root", required=True)
    a.add_argument("--python", help="the Python that runs the Python examples")
    a.add_argument("--pythonpath", help="where it finds the built glreader package")
    args = a.parse_args()
    ffprobe = os.path.join(os.path.dirname(args.ffmpeg), "ffprobe")
    pages = [os.path.join(args.root, "README.md")] + sorted(glob.glob(os.path.join(args.root, "docs", "*.md")))

    folder = tempfile.mkdtemp(prefix="glr_docs_")
    tools = os.path.join(folder, ".tools")
    os.mkdir(tools)
    for name, target in (("ffmpeg", args.ffmpeg), ("ffprobe", ffprobe), ("glreader-export", args.export)):
        os.symlink(os.path.abspath(target), os.path.join(tools, name))
    env = dict(os.environ, PATH=tools + os.pathsep + os.environ.get("PATH", ""), PYTHONDONTWRITEBYTECODE="1")
    if args.pythonpath:
        env["PYTHONPATH"] = os.path.abspath(args.pythonpath)
    make_fixtures(args.ffmpeg, folder, args.root)
    check = checker(ffprobe, folder)

    failures, blocks, checks = shared_outputs(pages, args.root), 0, 0
    for page in pages:
        name = os.path.relpath(page, args.root)
        for line, lang, script, expects in blocks_of(page):
            where = "%s:%d" % (name, line)
            if lang == "python" and script is not None and not expects:
                failures.append("%s: a Python example neither run (<!-- expect ... -->) nor marked "
                                "<!-- sketch: why -->" % where)
                continue
            if lang == "python" and script is not None and not args.python:
                failures.append("%s: a Python example, and no --python to run it" % where)
                continue
            if script is None:
                failures.append("%s: %s, under no command block to run" % (where, expects))
                continue
            if not expects:
                failures.append("%s: a command block says nothing of what it produces (<!-- expect ... -->)" % where)
                continue
            blocks += 1
            before = files_under(folder)
            status, out = run_block(lang, script, folder, env, args.python)
            made = files_under(folder) - before
            fails = [e[len("fails:"):].strip() for e in expects if e.startswith("fails:")]
            problems = []
            if fails:
                if status == 0:
                    problems.append("it was to fail, and succeeded")
                problems += ["it does not say %r" % w for w in fails if w not in out]
            elif status != 0:
                problems.append("it failed (exit status %d)" % status)
            else:
                named = set()
                for e in expects:
                    target, _, rest = e.partition(":")
                    wants = [tuple(kv.split("=", 1)) for kv in rest.split()]
                    if any(len(w) != 2 for w in wants):
                        problems.append("unreadable expectation: %s" % e)
                        continue
                    problems += check.check(target.strip(), wants)
                    checks += len(wants)
                    pattern = re.sub(r"%0?\d*d", "*", target.strip())
                    named |= {f for f in made if fnmatch.fnmatch(f, pattern)}
                leftover = sorted(made - named)
                if leftover:
                    problems.append("it left files no expectation names: %s" % ", ".join(leftover))
            for f in made:
                os.remove(os.path.join(folder, f))
            if problems:
                failures.append("%s:\n%s\n  %s\n  its output, last lines:\n    %s" % (
                    where, script.rstrip(), "\n  ".join(problems), "\n    ".join(out.strip().split("\n")[-15:])))
            else:
                print("ok: %s (%s)" % (where, "; ".join(expects)))
    shutil.rmtree(folder, ignore_errors=True)
    for f in failures:
        print("FAIL: " + f)
    print("docs examples: %d blocks, %d checks; %d failed" % (blocks, checks, len(failures)))
    return 1 if failures or blocks == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
