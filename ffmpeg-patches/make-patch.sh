#!/usr/bin/env bash
# Writes the single self-contained patch that adds glreader's filters to one FFmpeg
# release (for a release asset, or for ffmpeg-devel): the line's hooks and plugin/'s
# sources and docs, as one `git format-patch` commit on the exact release. Prints the
# patch's path as the last line on stdout.
#
#   ffmpeg-patches/make-patch.sh LINE [OUT] [--source DIR|TARBALL] [--keep-tree DIR]
#
# OUT defaults to build-ffmpeg/glreader-ffmpeg-VERSION.patch (or $GLREADER_FFMPEG_CACHE/).
# --keep-tree DIR leaves the tree there, a git repository whose last commit is glreader's:
# to change a hook (a new FFmpeg line, say), edit configure, the Makefile, allfilters.c or
# filters.texi in it, then write the hooks back with
#   git -C DIR diff HEAD~1 -- configure doc/filters.texi libavfilter/Makefile libavfilter/allfilters.c
# (after the few lines of words that open ffmpeg-patches/LINE/hooks.patch).
set -euo pipefail
. "$(dirname "$0")/common.sh"

usage() { die "usage: $0 LINE [OUT] [--source DIR|TARBALL] [--keep-tree DIR]   (lines: $(lines))"; }
[ $# -ge 1 ] || usage
read_release "$1"; shift
out="" source="" keep=""
while [ $# -gt 0 ]; do
  case "$1" in
    --source) [ $# -ge 2 ] || usage; source=$(realpath "$2"); shift 2 ;;
    --keep-tree) [ $# -ge 2 ] || usage; keep=$(realpath -m "$2"); shift 2 ;;
    -*) usage ;;
    *) [ -z "$out" ] || usage; out=$(realpath -m "$1"); shift ;;
  esac
done
[ -n "$out" ] || out=$cache/glreader-ffmpeg-$version.patch

tree=${keep:-$(mktemp -d)}
[ -n "$keep" ] || trap 'rm -rf "$tree"' EXIT
unpack_tree "$tree" "$source"
apply_glreader "$tree"
commit_glreader "$tree"
mkdir -p "$(dirname "$out")"
git -C "$tree" format-patch -q --stdout --no-signature --zero-commit HEAD~1 >"$out"
say "FFmpeg $version: $(grep -c '^diff --git' "$out") files in $out"
[ -z "$keep" ] || say "tree kept in $tree"
echo "$out"
