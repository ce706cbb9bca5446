#!/usr/bin/env bash
# Regenerates the patch series after plugin/ changed: applies each line's series to its
# exact FFmpeg release, replaces the filter's copy with plugin/'s files, and writes the
# series back with git format-patch.
#
#   ffmpeg-patches/refresh.sh [--keep] [LINE...]     (every line when none is named)
#
# --keep leaves each tree in build-ffmpeg/refresh-LINE, a git repository with the series
# as commits, for changes to the rest of a series (configure, Makefile, docs): edit,
# `git commit --amend`, and write the series back with
# `git format-patch --zero-commit --no-signature -o ffmpeg-patches/LINE HEAD~1`.
set -euo pipefail
. "$(dirname "$0")/common.sh"

keep=0
[ "${1:-}" = "--keep" ] && { keep=1; shift; }
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
    # The filter's files belong to the series' last commit.
    git -C "$tree" -c user.name=glreader -c user.email=glreader@localhost commit -q --amend --no-edit
    rm -f "$patches_dir/$line"/*.patch
    git -C "$tree" format-patch -q --no-signature --zero-commit -o "$patches_dir/$line" "HEAD~${#series[@]}"
    say "$line: series rewritten with plugin/'s files"
  fi
  if [ $keep = 1 ]; then say "$line: tree kept in $tree"; else rm -rf "$tree"; fi
done
