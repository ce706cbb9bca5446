#!/usr/bin/env bash
# A second ffmpeg-patches/build.sh LINE finds its cached build: it says so, builds
# nothing, and prints the same ffmpeg path. The flavour (lean, full, asan) is the one of the
# build folder EXPECTED_PATH lies in (CACHE/LINE-FLAVOUR-KEY/build/ffmpeg).
# Usage: ffmpeg_build_cached.sh LINE EXPECTED_PATH
set -euo pipefail
line=$1 expected=$2
root=$(cd "$(dirname "$0")/.." && pwd)
folder=$(basename "$(dirname "$(dirname "$expected")")")
flavour=${folder#"$line"-}
flavour=${flavour%-*}
# The cache that build lies in (the checkout's build-ffmpeg/, or scripts/test.sh's).
GLREADER_FFMPEG_CACHE=$(dirname "$(dirname "$(dirname "$expected")")")
export GLREADER_FFMPEG_CACHE
options=("--$flavour")
log=$(mktemp)
trap 'rm -f "$log"' EXIT
path=$("$root/ffmpeg-patches/build.sh" "$line" "${options[@]}" 2>"$log" | tail -n 1)
cat "$log"
grep -q "is already built" "$log" || { echo "FAIL: build.sh $line ${options[*]} did not use its cache"; exit 1; }
! grep -q "compiling with" "$log" || { echo "FAIL: build.sh $line ${options[*]} compiled FFmpeg again"; exit 1; }
[ "$path" = "$expected" ] || { echo "FAIL: printed '$path', expected '$expected'"; exit 1; }
echo "build.sh $line ${options[*]}: cached build found"
