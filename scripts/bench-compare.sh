#!/usr/bin/env bash
# glreader against TurboPipe on this machine, in one command: installs what is missing,
# builds, runs `glreader-bench compare` (every size, ffmpeg output and buffer count, runs
# interleaved, plus a row under a competing CPU load) and draws the chart. Leaves
# out/compare.md (the table), out/compare.json and out/compare.png. Arguments go to
# glreader-bench compare (e.g. --sizes 1080p --outputs null --runs 5).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/bench-setup.sh"
cmake -S "$root" -B "$root/build" -G Ninja >/dev/null
cmake --build "$root/build" >&2
mkdir -p "$root/out"
"$root/build/samples/glreader-bench" compare --json "$root/out/compare.json" "$@" | tee "$root/out/compare.md"
"$root/.venv/bin/python" "$root/samples/bench/chart.py" "$root/out/compare.json" "$root/out/compare.png"
echo "$root/out/compare.png"
