#!/usr/bin/env bash
# The main job, for now: installs what is missing, builds glreader, then renders an
# animated scene headless through the readback ring and prints the ring's statistics.
# Arguments go to glreader-capture (e.g. -s 1920x1080 -n 300 --format bgra).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
cmake -S "$root" -B "$root/build" -G Ninja >/dev/null
cmake --build "$root/build" >&2
mkdir -p "$root/out"
exec "$root/build/samples/glreader-capture" --ppm "$root/out/last-frame.ppm" "$@"
