#!/usr/bin/env bash
# The main job: installs what is missing, builds glreader, then renders the built-in
# animated scene headless and encodes it in-process into glreader-export.mp4 in the current
# directory (H.264: MP4's own codec, as ffmpeg picks it), and prints the file's full path.
# Arguments go to glreader-export (e.g. -s 1920x1080 -t 10,
# --shader samples/shaders/plasma.frag, -c ffv1 -o lossless.mkv).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
# As scripts/test.sh configures it: --quick goes on with this build, compiling nothing again.
"$root/scripts/configure.sh" "$root/build" >/dev/null
# shellcheck source=ccache-env.sh
. "$root/scripts/ccache-env.sh"
use_ccache "$root" || true # ccache's settings, for the compiles
cmake --build "$root/build" >&2
exec "$root/build/samples/glreader-export" "$@"
