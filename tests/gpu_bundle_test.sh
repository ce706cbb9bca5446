#!/usr/bin/env bash
# Checks the GPU validation bundle (scripts/gpu-bundle.sh) here, on llvmpipe, the way a
# bare machine runs it: a copy in a temporary folder, run from another folder, with
# LD_LIBRARY_PATH empty and the system's FFmpeg (its libraries, ffmpeg, ffprobe) hidden
# behind empty files in a private mount namespace. It proves that:
# - gpu-check.sh --quick passes every suite and benchmark and writes all its results, the
#   benchmark's Python rows included (the carried CPython 3.11, moderngl, TurboPipe and
#   glreader package);
# - those results say they are not GPU results, and --require-gpu refuses llvmpipe;
# - the bundle stays under 60 MiB;
# - with BUILD (the main build, which has GLFW): the bundle carries every suite of BUILD's
#   tests/suites.txt that needs no display, each listing the tests that suite lists in BUILD
#   (scripts/suite-tests.sh) but the viewer's (they need a display); a copy of the bundle
#   without one suite, or without one test of a suite's list, fails that comparison; and
#   gpu-check.sh ran every suite of the bundle and checked each one's passes against its list.
# Usage: tests/gpu_bundle_test.sh BUNDLE [BUILD]   (scripts/test.sh runs it)
set -euo pipefail

fail() { echo "gpu_bundle_test: FAILED: $*" >&2; exit 1; }

# Inside the namespace: hide the system's FFmpeg, show that it is hidden, run the check.
if [ "${1:-}" = --inside ]; then
  bundle=$2 results=$3
  while IFS= read -r -d '' file; do mount --bind /dev/null "$file"; done < <(
    find /usr/lib/x86_64-linux-gnu -maxdepth 1 -type f \
      \( -name 'libav*.so*' -o -name 'libsw*.so*' -o -name 'libpostproc.so*' \) -print0
    for program in /usr/bin/ffmpeg /usr/bin/ffprobe; do [ -e "$program" ] && printf '%s\0' "$program"; done)
  if /usr/bin/ffmpeg -version >/dev/null 2>&1 ||
     python3 -c 'import ctypes; ctypes.CDLL("libavcodec.so.59")' 2>/dev/null; then
    fail "the system's FFmpeg is still usable inside the namespace"
  fi
  cd "$(dirname "$results")"
  exec env LD_LIBRARY_PATH= "$bundle/gpu-check.sh" "$results" --quick
fi

[ $# -ge 1 ] && [ -x "$1/gpu-check.sh" ] || fail "usage: $0 BUNDLE [BUILD] (BUNDLE: a folder made by scripts/gpu-bundle.sh)"
root=$(cd "$(dirname "$0")/.." && pwd)
# The first difference between BUNDLE's suites and lists and BUILD's; fails on one.
compare_with_build() { # BUNDLE BUILD
  local name difference
  difference=$(comm -3 <(awk '$2 ~ /^(gtest|capi|cases|pytest)$/ { print $1 }' "$2/tests/suites.txt" | sort) \
                       <(awk '{ print $1 }' "$1/tests/SUITES" | sort) | tr -d '\t' | paste -sd ' ')
  [ -z "$difference" ] || { echo "the bundle's suites and $2's differ in: $difference"; return 1; }
  while read -r name _; do
    difference=$(comm -3 <(sort "$1/tests/$name.list") \
                         <("$root/scripts/suite-tests.sh" "$2" "$name" | grep -v '^viewer_test\.') |
                 tr -d '\t' | head -n 5 | paste -sd ' ')
    [ -z "$difference" ] || { echo "$name lists other tests in the bundle than in $2: $difference"; return 1; }
  done <"$1/tests/SUITES"
}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cp -a "$1" "$scratch/moved-bundle"
mkdir "$scratch/elsewhere"
bundle=$scratch/moved-bundle results=$scratch/elsewhere/results

if [ $# -ge 2 ]; then
  why=$(compare_with_build "$bundle" "$2") || fail "$why"
  # The comparison fails for a suite left out and for a test left out of a suite's list.
  cp -a "$bundle" "$scratch/short-bundle"
  first=$(head -n 1 "$bundle/tests/SUITES" | cut -d' ' -f1)
  sed -i 1d "$scratch/short-bundle/tests/SUITES"
  why=$(compare_with_build "$scratch/short-bundle" "$2") && fail "a bundle without $first passed the comparison"
  [[ $why == *"differ in: $first"* ]] || fail "a bundle without $first failed the comparison for another reason: $why"
  cp "$bundle/tests/SUITES" "$scratch/short-bundle/tests/SUITES"
  sed -i 1d "$scratch/short-bundle/tests/$first.list"
  why=$(compare_with_build "$scratch/short-bundle" "$2") && fail "a bundle whose $first lacks a test passed the comparison"
  [[ $why == "$first lists other tests"* ]] || fail "a bundle whose $first lacks a test failed for another reason: $why"
  rm -rf "$scratch/short-bundle"
fi

mib=$(( $(du -sb "$bundle" | cut -f1) / 1048576 ))
[ "$mib" -lt 60 ] || fail "the bundle is $mib MiB (at most 59)"

unshare_args=(--mount --propagation private)
[ "$(id -u)" = 0 ] || unshare_args+=(--map-root-user)
status=0
unshare "${unshare_args[@]}" "$0" --inside "$bundle" "$results" || status=$?
if [ $status != 0 ]; then
  # What failed, in the suites' own words: each failed suite's section of tests.log.
  python3 - "$results" >&2 <<'PY' || true
import json, os, sys
results = sys.argv[1]
log = open(os.path.join(results, "tests.log"), errors="replace").read()
sections = log.split("===== ")
for suite in json.load(open(os.path.join(results, "tests.json")))["suites"]:
    if suite["exit"] != 0 or suite["failed"]:
        for section in sections:
            if section.startswith(suite["suite"] + ":"):
                print(f"== {suite['suite']}, the end of its output in tests.log:\n===== " + section[-6000:])
PY
  fail "gpu-check.sh --quick exited with $status (its results: $(cat "$results/summary.md" 2>/dev/null))"
fi

for file in summary.md tests.json tests.log info.json ring.json compare.json encode.json filter.json; do
  [ -s "$results/$file" ] || fail "gpu-check.sh wrote no $file"
done
for file in "$results"/*.json; do python3 -m json.tool "$file" >/dev/null || fail "$file is not JSON"; done
grep -q '^\*\*Not GPU results.\*\* The renderer is llvmpipe' "$results/summary.md" ||
  fail "summary.md does not say that llvmpipe results are not GPU results"
python3 - "$results" "$bundle" <<'EOF' || fail "the results are not what the bundle should give"
import json, sys
results = sys.argv[1]
load = lambda name: json.load(open(f"{results}/{name}"))
tests = load("tests.json")
assert tests["software"] is True, "tests.json does not say the renderer is software"
names = sorted(s["suite"] for s in tests["suites"])
carried = sorted(line.split()[0] for line in open(f"{sys.argv[2]}/tests/SUITES"))
assert names == carried, f"the suites that ran, {names}, are not the bundle's, {carried}"
for s in tests["suites"]:
    assert s["exit"] == 0 and s["failed"] == 0 and s["passed"] > 0, f"suite {s}"
info = load("info.json")
assert info["software"] is True and info["renderer"].startswith("llvmpipe"), info
assert info["ring_path"] == "persistent-map+fences", info["ring_path"]
ring = load("ring.json")["results"][0]
for key in ("stall_p99", "stall_queued_p99"):
    assert ring[key]["runs"], f"ring.json has no {key}"
assert load("encode.json")["results"] and load("filter.json")["results"], "a benchmark has no results"
# The Python rows ran in the carried CPython 3.11 with the carried packages, and moved frames.
compare = load("compare.json")["results"][0]
for key in ("turbopipe", "python_turbopipe", "python_glreader_turbopipe", "python_glreader_recorder_gpu_yuv420p"):
    assert compare[key]["median"] > 0, f"compare.json: {key} moved no frame"
assert compare["python_glreader_recorder_gpu_yuv420p_write_ms_per_frame"]["runs"], "no stage times for the Recorder"
EOF

refused=0
env LD_LIBRARY_PATH= "$bundle/gpu-check.sh" "$scratch/refused" --require-gpu 2>"$scratch/refused.log" || refused=$?
[ $refused = 2 ] && grep -q 'software rasterizer, and --require-gpu was given' "$scratch/refused.log" ||
  fail "--require-gpu on llvmpipe exited with $refused: $(cat "$scratch/refused.log")"
echo "gpu_bundle_test: passed (bundle $mib MiB)" >&2
