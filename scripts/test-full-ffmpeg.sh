#!/usr/bin/env bash
# Builds the full (distribution-like) patched ffmpeg of a release line and checks what it
# is for (tests/full_ffmpeg_test.sh). scripts/test.sh runs it for the newest line; the
# build takes about four times the lean one's (see the README).
# Usage: scripts/test-full-ffmpeg.sh [LINE]   (default: 9.0)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
line=${1:-9.0}
ffmpeg=$("$root/ffmpeg-patches/build.sh" "$line" | tail -n 1)
# Bounded: a hang fails the check instead of stalling CI.
timeout 900 "$root/tests/full_ffmpeg_test.sh" "$ffmpeg"
