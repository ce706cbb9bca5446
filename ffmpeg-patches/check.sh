#!/usr/bin/env bash
# Fails when a series' copy of the filter differs from plugin/, the single source of the
# filter: every file of plugin/ must be created by each series with the same bytes.
# Usage: ffmpeg-patches/check.sh (needs git, not the FFmpeg sources). Fix: refresh.sh.
set -euo pipefail
. "$(dirname "$0")/common.sh"

status=0
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
for line in $(lines); do
  read_release "$line"
  out=$scratch/$line
  mkdir -p "$out"
  includes=()
  for f in "$root"/plugin/*.[ch]; do includes+=(--include="libavfilter/$(basename "$f")"); done
  for patch in "${series[@]}"; do
    (cd "$out" && git apply "${includes[@]}" "$patch") || { say "$line: $(basename "$patch") does not apply"; status=1; }
  done
  for f in "$root"/plugin/*.[ch]; do
    copy=$out/libavfilter/$(basename "$f")
    if [ ! -f "$copy" ]; then
      say "$line: the series does not add libavfilter/$(basename "$f")"; status=1
    elif ! diff -u "$f" "$copy" >&2; then
      say "$line: the series' libavfilter/$(basename "$f") differs from plugin/ (run ffmpeg-patches/refresh.sh)"; status=1
    fi
  done
done
[ $status -eq 0 ] && say "every series carries plugin/ exactly"
exit $status
