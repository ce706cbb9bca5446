#!/usr/bin/env bash
# Proves, for each FFmpeg line (or those named), on its exact release:
# - the line's hooks apply (git apply takes no hunk whose context does not match);
# - the whole patch make-patch.sh writes adds exactly glreader_files (common.sh) and
#   changes exactly hooked_files, nothing else (a stray file, a forgotten one);
# - plugin/ and the tree built from the hooks agree: every file of plugin/ is one the
#   patch adds, each copy is plugin/'s byte for byte, libavfilter's Makefile builds every
#   source, allfilters.c declares every filter the sources define, and filters.texi
#   includes every section.
# Usage: ffmpeg-patches/check.sh [LINE...]   (the release sources are fetched as build.sh
# fetches them, and cached)
set -euo pipefail
. "$(dirname "$0")/common.sh"

[ $# -gt 0 ] || set -- $(lines)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
status=0

check_line() { # LINE: says each failure, returns non-zero after any
  read_release "$1"
  local tree=$scratch/$line patch=$scratch/$line.patch failed=0 file
  fail() { say "$line: $*"; failed=1; }
  unpack_tree "$tree" >/dev/null
  # apply_glreader dies when a hook does not apply: in a subshell, so the other checks and
  # lines still run and say theirs.
  (apply_glreader "$tree") || { say "$line: the hooks no longer apply to FFmpeg $version"; return 1; }
  commit_glreader "$tree"
  git -C "$tree" format-patch -q --stdout --no-signature --zero-commit HEAD~1 >"$patch"

  # What the patch does, against what it is meant to do.
  local expected actual
  expected=$( { printf 'A\t%s\n' "${glreader_files[@]}"; printf 'M\t%s\n' "${hooked_files[@]}"; } | sort)
  actual=$(git -C "$tree" diff --name-status HEAD~1 HEAD | sort)
  while IFS=$'\t' read -r what path; do
    [ -n "$path" ] && fail "the patch would $( [ "$what" = A ] && echo add || echo change) $path, which is not on the list (common.sh)"
  done < <(comm -13 <(echo "$expected") <(echo "$actual"))
  while IFS=$'\t' read -r what path; do
    [ -n "$path" ] && fail "the patch does not $( [ "$what" = A ] && echo add || echo change) $path"
  done < <(comm -23 <(echo "$expected") <(echo "$actual"))
  [ "$(grep -c '^diff --git' "$patch")" = $(( ${#glreader_files[@]} + ${#hooked_files[@]} )) ] ||
    fail "the written patch holds $(grep -c '^diff --git' "$patch") files, not $(( ${#glreader_files[@]} + ${#hooked_files[@]} ))"

  # plugin/ against the tree. (No `printf | grep -q` under pipefail: grep's early exit can
  # kill printf with SIGPIPE, and the pipeline then fails for a file that is listed.)
  local added=" ${glreader_files[*]##*/} "
  for file in "$root"/plugin/*; do
    local name; name=$(basename "$file")
    [[ $added == *" $name "* ]] || fail "plugin/$name is not among the files the patch adds (glreader_files in common.sh)"
  done
  for file in "${glreader_files[@]}"; do
    cmp -s "$root/plugin/$(basename "$file")" "$tree/$file" || fail "$file differs from plugin/$(basename "$file")"
    case $file in
      *.c) grep -qE "^OBJS-\\\$\(CONFIG_[A-Z_]+_FILTER\).*\b$(basename "$file" .c)\.o\b" "$tree/libavfilter/Makefile" ||
             fail "libavfilter/Makefile does not build $file" ;;
      *.texi) grep -qx "@include $(basename "$file")" "$tree/doc/filters.texi" ||
                fail "doc/filters.texi does not include $(basename "$file")" ;;
    esac
  done
  local filter
  for filter in $(sed -n 's/^const GLR_FILTER_TYPE \(ff_[a-z0-9_]*\) = {$/\1/p' "$root"/plugin/*.c); do
    grep -qE "^extern const (AVFilter|FFFilter) $filter;" "$tree/libavfilter/allfilters.c" ||
      fail "libavfilter/allfilters.c does not declare $filter"
  done
  [ $failed = 0 ] && say "$line: the hooks apply to FFmpeg $version; the patch adds plugin/ and changes the hooked files, nothing else"
  return $failed
}

for l in "$@"; do
  check_line "$l" || status=1
done
[ $status -eq 0 ] && say "every line checked: $*"
exit $status
