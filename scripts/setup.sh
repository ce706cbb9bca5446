#!/usr/bin/env bash
# Installs every system package glreader needs to build, test and run its samples on
# Debian 12, and any extra packages named as arguments (scripts/bench-setup.sh does).
# Idempotent: when everything is present it only checks and returns.
set -euo pipefail

packages=(
  cmake ninja-build g++ pkg-config  # build
  ccache                            # scripts/test.sh's compiled objects, kept between runs
  python3-glad                      # GL/EGL loader generator, run at configure time
  libegl1 libegl-mesa0 libgl1-mesa-dri libglvnd0  # EGL + Mesa (llvmpipe) for headless GL
  mesa-utils                        # eglinfo, to diagnose which EGL platforms work
  libgtest-dev                      # GoogleTest
  nlohmann-json3-dev                # JSON (the exporter's statistics)
  libavcodec-dev libavformat-dev libavutil-dev libswscale-dev libswresample-dev  # glreader-av (FFmpeg 5.1)
  libglfw3-dev                      # the recording viewer sample
  libgl-dev                         # GL/glcorearb.h, for docs/library.md's C program
  xvfb xauth                        # a display for the viewer (Xvfb in its tests, xvfb-run for users)
  ffmpeg                            # the ffmpeg child of pipe mode's tests, samples and benchmarks
  python3-dev python3-venv          # the Python package (python/): its headers, its virtual environments
  libvulkan-dev mesa-vulkan-drivers  # Vulkan headers + lavapipe: hardware frames (AV_PIX_FMT_VULKAN) tested on the CPU
  libffmpeg-nvenc-dev               # FFmpeg's ffnvcodec headers: CUDA frames, CUDA loaded at run time (no toolkit)
  iproute2 util-linux               # ip and unshare: tests (and scripts/test.sh's stages) in loopback-only namespaces
  "$@"
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages present" >&2
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "setup: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
  sudo="sudo"
fi
echo "setup: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q >&2
$sudo apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
