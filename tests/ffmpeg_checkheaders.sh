#!/usr/bin/env bash
# FFmpeg's own header check (make checkheaders) for the filters' headers in a patched
# build: each compiles on its own, as FFmpeg requires of every header in libavfilter/.
# And the seam between the two projects: the ffmpeg takes no private glreader symbol
# (glr_priv_), only the public C ABI (the media glue it compiles in included).
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
private=$(nm -D --undefined-only "$1" | grep -o 'glr_priv_[a-z_]*' | sort -u || true)
[ -z "$private" ] || { echo "FAIL: $1 takes glreader's private symbols: $private"; exit 1; }
echo "ok: $1 takes only glreader's public symbols"
