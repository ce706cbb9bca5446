#!/usr/bin/env bash
# FFmpeg's own header check (make checkheaders) for the filters' headers in a patched
# build: each compiles on its own, as FFmpeg requires of every header in libavfilter/.
# Usage: ffmpeg_checkheaders.sh PATH/TO/BUILD/ffmpeg
set -euo pipefail
build=$(dirname "$1")
cd "$build"
for header in glreader_common glreader_compat; do
  target=libavfilter/$header.h.o # what checkheaders makes of it
  rm -f "$target"
  make "$target" >/dev/null || { echo "FAIL: libavfilter/$header.h does not compile on its own"; exit 1; }
  echo "ok: libavfilter/$header.h compiles on its own ($target)"
done
