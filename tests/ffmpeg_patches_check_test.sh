#!/usr/bin/env bash
# ffmpeg-patches/check.sh fails, with words, for each way the hooks and plugin/ can part:
# a hook that no longer applies, a patch that would add a file not on the list, a file of
# plugin/ the patch does not carry, a source the Makefile does not build, a filter
# allfilters.c does not declare. Each case breaks a copy of ffmpeg-patches/ and plugin/,
# and runs the copy's check.sh on the newest line (whose release sources build.sh cached).
# Usage: ffmpeg_patches_check_test.sh SOURCE_DIR
set -euo pipefail
source_dir=$1
export GLREADER_FFMPEG_CACHE=${GLREADER_FFMPEG_CACHE:-$source_dir/build-ffmpeg}
line=$(basename "$(dirname "$(ls -d "$source_dir"/ffmpeg-patches/*/RELEASE | sort -V | tail -n 1)")")
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
passed=0 failed=0

fresh_copy() {
  rm -rf "$scratch/root"
  mkdir -p "$scratch/root/scripts"
  cp -r "$source_dir/ffmpeg-patches" "$source_dir/plugin" "$scratch/root/"
  cp "$source_dir/scripts/debian-source.sh" "$scratch/root/scripts/" # common.sh's fetcher
}

# CASE WORDS: check.sh on the copy as it is now must exit non-zero and say WORDS.
expect_failure() {
  local case=$1 words=$2
  if "$scratch/root/ffmpeg-patches/check.sh" "$line" >"$scratch/log" 2>&1; then
    echo "FAIL: $case: check.sh passed"; cat "$scratch/log"; failed=$((failed + 1))
  elif ! grep -qF "$words" "$scratch/log"; then
    echo "FAIL: $case: check.sh failed without saying '$words':"; cat "$scratch/log"; failed=$((failed + 1))
  else
    echo "ok: $case: $(grep -F "$words" "$scratch/log" | head -n 1)"; passed=$((passed + 1))
  fi
}

fresh_copy
if ! "$scratch/root/ffmpeg-patches/check.sh" "$line" >"$scratch/log" 2>&1; then
  echo "FAIL: check.sh fails on an unchanged copy:"; cat "$scratch/log"; exit 1
fi
passed=1
hooks=$scratch/root/ffmpeg-patches/$line/hooks.patch

# A context line of the Makefile hunk that the release does not have.
sed -i '0,/^ OBJS-\$(CONFIG_GEQ_FILTER)/s//&_CHANGED/' "$hooks"
expect_failure "a hook that no longer applies" "the hooks no longer apply to FFmpeg"

# The stray file that once shipped inside a patch.
fresh_copy
printf '%s\n' 'diff --git a/patcheck.tmp b/patcheck.tmp' 'new file mode 100644' '--- /dev/null' \
  '+++ b/patcheck.tmp' '@@ -0,0 +1 @@' '+left over' >>"$hooks"
expect_failure "a hook that adds a file" "the patch would add patcheck.tmp, which is not on the list"

fresh_copy
echo '/* a new source */' >"$scratch/root/plugin/vf_glextra.c"
expect_failure "a file of plugin/ the patch does not add" "plugin/vf_glextra.c is not among the files the patch adds"

fresh_copy
sed -i 's/^+\(OBJS-\$(CONFIG_GLSHADER_FILTER) *+= \)vf_glshader\.o /+\1/' "$hooks"
expect_failure "a source the Makefile does not build" "libavfilter/Makefile does not build libavfilter/vf_glshader.c"

fresh_copy
sed -i 's/^const GLR_FILTER_TYPE ff_vf_glshader = {$/const GLR_FILTER_TYPE ff_vf_glshader2 = {/' \
  "$scratch/root/plugin/vf_glshader.c"
expect_failure "a filter allfilters.c does not declare" "libavfilter/allfilters.c does not declare ff_vf_glshader2"

echo "ffmpeg_patches_check_test: $passed passed, $failed failed"
[ $failed = 0 ]
