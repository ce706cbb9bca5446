#!/usr/bin/env bash
# `pip install .` as a user runs it: the package built from this checkout (a wheel, with
# the build tools of PYTHON's environment), installed into a fresh virtual environment of
# Debian's python3 with no other package, then imported from there (not from the source
# tree) and used: its version is the library's, and glreader.render writes a video whose
# frames the system's ffmpeg decodes as the shader drew them. A second build compiles
# nothing (the build folder is kept). Then `pip install ".[ray]"` (from the wheels setup
# fetched: no network) adds Ray, with which glreader.farm imports and splits a render.
#
#   tests/python_package_test.sh PYTHON   (scripts/python-env.sh gives it)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
python=${1:?usage: $0 PYTHON}
work=$(mktemp -d "${TMPDIR:-/tmp}/glreader-pip.XXXXXX")
trap 'rm -rf "$work"' EXIT
say() { echo "python_package_test: $*" >&2; }

build_wheel() {
  (cd "$work" && "$python" -m pip wheel --no-build-isolation --no-deps --disable-pip-version-check -q \
     -w "$work/wheels" "$root") >"$work/build.log" 2>&1 || { tail -n 60 "$work/build.log" >&2; exit 1; }
}
say "building the wheel (pip wheel .)"
build_wheel
# The build folder is kept (pyproject.toml's build-dir): building again, as `pip install
# ".[ray]"` after `pip install .` does, compiles nothing.
touch "$work/before-again"
say "building it again: nothing is compiled"
build_wheel
again=$(find "$root"/build-python -name '*.o' -newer "$work/before-again" | head -n 3)
[ -z "$again" ] || { echo "python_package_test: FAIL: a second pip wheel compiled again: $again" >&2; exit 1; }
/usr/bin/python3 -m venv "$work/venv"
"$work/venv/bin/pip" install -q --no-index --disable-pip-version-check "$work"/wheels/glreader-*.whl
cd "$work"
"$work/venv/bin/python" - "$root" <<'PY'
import os, re, subprocess, sys

root = sys.argv[1]
import glreader

where = os.path.dirname(glreader.__file__)
assert where.startswith(sys.prefix), f"glreader comes from {where}, not the fresh environment {sys.prefix}"
with open(os.path.join(root, "CMakeLists.txt")) as f:
    version = re.search(r"project\(glreader VERSION ([0-9.]+)", f.read()).group(1)
assert glreader.__version__ == version, (glreader.__version__, version)
with open("counter.frag", "w") as f:
    f.write("void mainImage(out vec4 c, in vec2 p) { c = vec4(float(iFrame) / 255.0, 0.0, 0.0, 1.0); }\n")
stats = glreader.render("counter.frag", "counter.mkv", size=(16, 8), frames=5, codec="ffv1", progress=False)
assert stats["frames_encoded"] == 5, stats
raw = subprocess.run(["ffmpeg", "-v", "error", "-i", "counter.mkv", "-f", "rawvideo", "-pix_fmt", "rgba", "-"],
                     check=True, capture_output=True).stdout
frames = [raw[i:i + 16 * 8 * 4] for i in range(0, len(raw), 16 * 8 * 4)]
assert [f[0] for f in frames] == [0, 1, 2, 3, 4], [f[0] for f in frames]
print(f"python_package_test: glreader {glreader.__version__} from {where}: 5 frames as drawn")
PY
say 'pip install ".[ray]": Ray beside it, for glreader.farm'
ray_wheels=$("$root/scripts/python-env.sh" --ray-wheels)
"$work/venv/bin/pip" install -q --no-index --disable-pip-version-check --find-links "$work/wheels" \
  --find-links "$ray_wheels" "glreader[ray]"
"$work/venv/bin/python" - <<'PY'
import ray
import glreader.farm as farm

major, minor = (int(n) for n in ray.__version__.split(".")[:2])
assert (major, minor) >= (2, 60), ray.__version__
assert farm.split(0, 10, chunks=3) == [(0, 3), (3, 3), (6, 4)]
print(f"python_package_test: glreader[ray]: Ray {ray.__version__}, glreader.farm imports")
PY
