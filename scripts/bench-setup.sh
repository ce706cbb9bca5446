#!/usr/bin/env bash
# What `glreader-bench compare` needs beyond the build: the real TurboPipe from PyPI (2.1.0,
# the version its rows name) with moderngl (its EGL context) and matplotlib (the chart), in a
# virtual environment at .venv in the checkout. Idempotent and quick once done.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh" python3-venv
venv="$root/.venv"
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
if ! "$venv/bin/python" -c 'import turbopipe, moderngl, matplotlib; assert turbopipe.__version__ == "2.1.0"' 2>/dev/null; then
  echo "bench-setup: installing turbopipe 2.1.0, moderngl and matplotlib into $venv" >&2
  "$venv/bin/pip" install -q --disable-pip-version-check turbopipe==2.1.0 moderngl matplotlib >&2
fi
"$venv/bin/python" -c 'import turbopipe; print("bench-setup: turbopipe", turbopipe.__version__)' >&2
