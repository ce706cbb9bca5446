#!/usr/bin/env bash
# Builds the complete (distribution-like) patched ffmpeg of a release line, build.sh's
# default, and checks what it is for (tests/full_ffmpeg_test.sh). scripts/test.sh runs the
# same check through ctest for the newest line; the build takes about eight times the lean
# one's (docs/building-ffmpeg.md).
# Usage: scripts/test-full-ffmpeg.sh [LINE]   (default: 9.0)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
line=${1:-9.0}
ffmpeg=$("$root/ffmpeg-patches/build.sh" "$line" | tail -n 1)
# Bounded: a hang fails the check instead of stalling CI.
timeout 900 "$root/tests/full_ffmpeg_test.sh" "$ffmpeg"
