#!/usr/bin/env bash
# Configures a build of this checkout in DIR, as every script here does: Ninja, and the
# compiler cache (ccache, scripts/ccache-env.sh) where it is installed, so that a build
# scripts/demo.sh made is the one scripts/test.sh --quick goes on with, compiling nothing
# again. --python adds the Python package (its build tools: scripts/python-env.sh).
# Usage: scripts/configure.sh DIR [--python] [CMAKE_ARGS...]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
[ $# -ge 1 ] || { echo "usage: $0 DIR [--python] [CMAKE_ARGS...]" >&2; exit 2; }
dir=$1
shift
args=(-G Ninja)
# shellcheck source=ccache-env.sh
. "$root/scripts/ccache-env.sh"
use_ccache "$root" && args+=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
if [ "${1:-}" = --python ]; then
  shift
  args+=(-DGLREADER_PYTHON=ON -DPython_EXECUTABLE="$("$root/scripts/python-env.sh")")
fi
exec cmake -S "$root" -B "$dir" "${args[@]}" "$@"
