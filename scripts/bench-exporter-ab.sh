#!/usr/bin/env bash
# Two glreader-export builds against each other, interleaved (A, B, A, B...), on the same
# export: fps (frames / wall seconds of the whole process) as min / median / max, CPU
# seconds per frame (user + system of the process and its threads), and B's median fps as
# a ratio of A's. Used to check that a change to the exporter costs no speed.
#
#   scripts/bench-exporter-ab.sh OLD_EXPORTER NEW_EXPORTER [RUNS] [-- EXPORTER ARGS...]
#
# Default args: a 1280x720 libx264 (ultrafast) export of 300 frames of the built-in scene.
# Each run writes to a scratch file, removed after.
set -euo pipefail
if [ $# -lt 2 ]; then
  echo "usage: $0 OLD_EXPORTER NEW_EXPORTER [RUNS] [-- EXPORTER ARGS...]" >&2
  exit 2
fi
a=$1 b=$2
shift 2
runs=5
if [ $# -gt 0 ] && [ "$1" != "--" ]; then
  runs=$1
  shift
fi
[ "${1:-}" = "--" ] && shift
args=("$@")
[ ${#args[@]} -gt 0 ] || args=(-s 1280x720 -n 300 -c libx264 --preset ultrafast)
frames=300
for ((i = 0; i < ${#args[@]}; i++)); do
  [ "${args[$i]}" = "-n" ] && frames=${args[$((i + 1))]}
done
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
: >"$scratch/results"
for ((run = 1; run <= runs; run++)); do
  for which in A B; do
    exe=$a
    [ $which = B ] && exe=$b
    /usr/bin/time -f "%e %U %S" -o "$scratch/time" "$exe" "${args[@]}" -y -o "$scratch/out.mkv" 2>"$scratch/log" ||
      { cat "$scratch/log" >&2; exit 1; }
    echo "$which $(cat "$scratch/time")" >>"$scratch/results"
  done
  echo "run $run/$runs done" >&2
done
python3 - "$scratch/results" "$frames" "$a" "$b" "${args[*]}" <<'PY'
import statistics, sys
rows = [line.split() for line in open(sys.argv[1])]
frames = int(sys.argv[2])
fps, cpu = {"A": [], "B": []}, {"A": [], "B": []}
for which, wall, user, system in rows:
    fps[which].append(frames / float(wall))
    cpu[which].append((float(user) + float(system)) / frames)
print(f"glreader-export A = {sys.argv[3]}, B = {sys.argv[4]}: {sys.argv[5]}, {len(fps['A'])} interleaved runs each")
print("| build | fps min / median / max | CPU s per frame (median) |")
print("|---|---|---|")
for w in "AB":
    f = sorted(fps[w])
    print(f"| {w} | {f[0]:.1f} / {statistics.median(f):.1f} / {f[-1]:.1f} | {statistics.median(cpu[w]):.4f} |")
print(f"B / A median fps: {statistics.median(fps['B']) / statistics.median(fps['A']):.3f}; "
      f"CPU per frame: {statistics.median(cpu['B']) / statistics.median(cpu['A']):.3f}")
PY
