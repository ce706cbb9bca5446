#!/usr/bin/env bash
# Regenerates the patch series after plugin/ changed: applies each line's series to its
# exact FFmpeg release, replaces the filter's copy with plugin/'s files, and writes the
# series back with git format-patch. Usage: ffmpeg-patches/refresh.sh [LINE...] (all lines
# when none is named). Other changes to a series: edit its tree the same way and commit.
set -euo pipefail
. "$(dirname "$0")/common.sh"

[ $# -gt 0 ] || set -- $(lines)
for line in "$@"; do
  read_release "$line"
  tree=$cache/refresh-$line
  unpack_tree "$tree"
  apply_series "$tree"
  cp "$root"/plugin/*.[ch] "$tree/libavfilter/"
  git -C "$tree" add -A
  if git -C "$tree" diff --cached --quiet; then
    say "$line: the series already carries plugin/ as it is"
  else
    git -C "$tree" -c user.name=glreader -c user.email=glreader@localhost commit -q --amend --no-edit
    rm -f "$patches_dir/$line"/*.patch
    git -C "$tree" format-patch -q --no-signature --zero-commit -o "$patches_dir/$line" "HEAD~${#series[@]}"
    say "$line: series rewritten with plugin/'s files"
  fi
  rm -rf "$tree"
done
