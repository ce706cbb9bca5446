#!/usr/bin/env bash
# A wheel of the Python package that installs where FFmpeg is not: built against the
# bundle's FFmpeg 5.1 (ffmpeg-patches/build.sh 5.1 --bundle: FFmpeg's own components,
# libx264 and zlib, nothing else; cached), then `auditwheel repair` copies the libraries
# it loads (libav*, libsw*, libx264, and theirs) into the wheel and points the extension
# at them. glibc, and the GL/EGL libraries and GPU drivers (loaded at run time, never
# linked), come from the system. x264 is GPL: so is the wheel as a whole (the README says
# what it carries).
#
#   scripts/python-wheel.sh [OUT]     # -> OUT/glreader-VERSION-cp311-cp311-manylinux_*.whl (default dist/)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/dist}
python=$("$root/scripts/python-env.sh")
say() { echo "python-wheel: $*" >&2; }

ffmpeg=$("$root/ffmpeg-patches/build.sh" 5.1 --bundle | tail -n 1)
prefix=$(dirname "$(dirname "$ffmpeg")")
work=$(mktemp -d "${TMPDIR:-/tmp}/glreader-wheel.XXXXXX")
trap 'rm -rf "$work"' EXIT

# A build folder of its own: the checkout's (pyproject.toml's build-dir) found the system's FFmpeg.
say "building against $prefix"
PKG_CONFIG_PATH=$prefix/lib/pkgconfig LD_LIBRARY_PATH=$prefix/lib \
  "$python" -m pip wheel --no-build-isolation --no-deps --disable-pip-version-check -q -w "$work/plain" \
    --config-settings=build-dir="$work/build" "$root" \
  >"$work/build.log" 2>&1 || { tail -n 60 "$work/build.log" >&2; exit 1; }
say "carrying its libraries (auditwheel repair)"
mkdir -p "$out"
PATH=$(dirname "$python"):$PATH LD_LIBRARY_PATH=$prefix/lib "$python" -m auditwheel repair --plat "manylinux_2_36_x86_64" -w "$out" \
  "$work"/plain/glreader-*.whl >"$work/repair.log" 2>&1 || { tail -n 40 "$work/repair.log" >&2; exit 1; }
wheel=$(ls -t "$out"/glreader-*manylinux*.whl | head -n 1)
say "$(du -h "$wheel" | cut -f1) $wheel"
echo "$wheel"
