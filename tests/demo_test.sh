#!/usr/bin/env bash
# The README's first command as a new user runs it, from a folder of their own:
# scripts/demo.sh writes glreader-export.mp4 there (5 seconds of the built-in scene at
# 1280x720, H.264), prints its full path and the per-stage latencies; a second run refuses
# to overwrite it and leaves it as it was; options go to glreader-export (the README's
# example, shortened); demo.sh then scripts/test.sh --quick compile nothing twice.
# scripts/test.sh runs it after the build it uses (build/) is made.
# Usage: tests/demo_test.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/glreader-demo.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "demo_test: FAIL: $*" >&2; exit 1; }
probe() { # FILE ENTRIES: ffprobe's values of the video stream's ENTRIES, one per line
  ffprobe -v error -select_streams v:0 -count_frames -show_entries "stream=$2" -of default=nw=1:nk=1 "$1"
}

cd "$work"
timeout 600 "$root/scripts/demo.sh" >out.txt 2>err.txt || fail "scripts/demo.sh exited with $?: $(tail -n 20 err.txt)"
[ -f glreader-export.mp4 ] || fail "no glreader-export.mp4 in the folder it ran from"
grep -q "^wrote 150 frames (1280x720, 30/1 fps, libx264 yuv420p) to $work/glreader-export.mp4: " err.txt ||
  fail "its full path is not said: $(cat err.txt)"
grep -q "stage (ms per frame) *p50 *p95 *p99" err.txt || fail "no table of per-stage latencies: $(cat err.txt)"
[ ! -s out.txt ] || fail "messages on stdout, which is for media: $(cat out.txt)"
got=$(probe glreader-export.mp4 codec_name,width,height,r_frame_rate,nb_read_frames | paste -sd' ')
[ "$got" = "h264 1280 720 30/1 150" ] || fail "not 5 s of 1280x720 H.264 at 30 fps: $got"

before=$(sha256sum glreader-export.mp4)
if timeout 600 "$root/scripts/demo.sh" >again.txt 2>again-err.txt; then fail "a second run overwrote the file"; fi
grep -q -- "-y" again-err.txt || fail "the refusal does not say how to overwrite (-y): $(cat again-err.txt)"
[ "$(sha256sum glreader-export.mp4)" = "$before" ] || fail "the refused run changed glreader-export.mp4"

timeout 600 "$root/scripts/demo.sh" --shader "$root/samples/shaders/plasma.frag" -t 0.5 -o plasma.mp4 \
  >plasma.txt 2>plasma-err.txt || fail "the README's example exited with $?: $(tail -n 20 plasma-err.txt)"
got=$(probe plasma.mp4 codec_name,nb_read_frames | paste -sd' ')
[ "$got" = "h264 15" ] || fail "plasma.mp4 is not 15 H.264 frames: $got"

# Nothing compiled twice: demo.sh's configuring of the build scripts/test.sh made changes
# nothing in it; and in the README's order (scripts/demo.sh, then scripts/test.sh --quick),
# --quick's configuring of demo.sh's build keeps every compile as it was (ninja compiles an
# object again when its command changed; a program is linked again, compiling nothing).
# Both configure through scripts/configure.sh.
cmake --build "$root/build" >build.txt || fail "building again: $(tail -n 20 build.txt)"
! grep -q "Building" build.txt || fail "demo.sh's configuring made the build compile again: $(grep -m 5 Building build.txt)"
"$root/scripts/configure.sh" "$work/configured" >/dev/null # as scripts/demo.sh does
ninja -C "$work/configured" -t compdb >demo.json
"$root/scripts/configure.sh" "$work/configured" --python >/dev/null # as scripts/test.sh --quick does
ninja -C "$work/configured" -t compdb >quick.json
again=$(python3 - demo.json quick.json <<'PY'
import json, sys
demo, quick = ({e["output"]: e["command"] for e in json.load(open(p))} for p in sys.argv[1:3])
print("\n".join(o for o, command in demo.items() if o.endswith(".o") and o in quick and quick[o] != command))
PY
)
[ -z "$again" ] || fail "scripts/test.sh --quick would compile again what scripts/demo.sh compiled: $again"
echo "demo_test: scripts/demo.sh as the README says: ok"
