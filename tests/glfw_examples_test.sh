#!/bin/bash
# GLFW's own examples record themselves pixel-exact: gears (fixed-function lighting, depth
# test, culling) and splitview (the scissor test left on with a quarter of the window as
# its box), built unchanged from GLFW's Debian source, run on a
# virtual display with tests/support/swap_recorder.cpp preloaded, which records each frame
# through glreader rings before the program swaps and compares it with the window.
# Usage: glfw_examples_test.sh SWAP_RECORDER.so
#        glfw_examples_test.sh --fetch   (setup: fetch GLFW's source into the cache, so that
#                                         the test itself runs offline)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
say() { echo "glfw_examples_test: $*" >&2; }
die() { say "error: $*"; exit 1; }
# shellcheck source=../scripts/debian-source.sh
. "$root/scripts/debian-source.sh"

# GLFW 3.3.8, the release Debian 12 ships (its examples need no newer GL than 2.1).
cache=${GLREADER_SOURCE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/glreader-sources}
tarball=$(fetch_debian_source glfw3 3.3.8 f30f42e05f11e5fc62483e513b0488d5bceeab7d9c5da0ffe2252ad81816c713 \
  bookworm "$cache" glfw)
[ "${1:-}" = --fetch ] && exit 0
recorder=$1

work=$(mktemp -d)
xvfb=
cleanup() {
  [ -n "$xvfb" ] && kill "$xvfb" 2>/dev/null && wait "$xvfb" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
tar -xzf "$tarball" -C "$work"
glfw=$work/glfw-3.3.8
for example in gears splitview; do
  cc -O1 -w -I"$glfw/deps" "$glfw/examples/$example.c" "$glfw/deps/glad_gl.c" -o "$work/$example" -lglfw -lm ||
    die "building GLFW's $example failed"
done

# Xvfb names its display on the FIFO once it is ready: read waits for that (10 s at most).
mkfifo "$work/display"
Xvfb -displayfd 3 -screen 0 640x480x24 -nolisten tcp 3>"$work/display" 2>"$work/xvfb.log" &
xvfb=$!
read -r -t 10 number <"$work/display" || die "Xvfb named no display: $(cat "$work/xvfb.log")"

status=0
for run in "gears 12" "splitview 1"; do
  read -r example wanted <<<"$run"
  report=$work/$example.report
  DISPLAY=:$number LD_PRELOAD=$recorder GLR_RECORD_FRAMES=$wanted GLR_RECORD_REPORT=$report \
    timeout 120 "$work/$example" 2>"$work/$example.log" || {
    say "$example exited with $?: $(cat "$work/$example.log")"; status=1; continue; }
  [ -f "$report" ] || { say "$example wrote no report: $(cat "$work/$example.log")"; status=1; continue; }
  read -r _ frames _ matched <"$report"
  if [ "$frames" -lt "$wanted" ] || [ "$matched" != "$frames" ]; then
    say "$example: $matched of $frames frames recorded exactly (wanted $wanted):"
    cat "$work/$example.log" >&2
    status=1
  else
    say "$example: all $frames frames recorded exactly"
  fi
done
exit $status
