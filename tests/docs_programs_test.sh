#!/usr/bin/env bash
# The programs of docs/library.md, built and run from the page's own text: every fenced
# block whose info string names a file ("cpp file=record.cpp") is written to that file in a
# scratch folder, against glreader installed there with `cmake --install` (which must put
# nothing of the Python package there); the page's build scripts run (CMake's find_package,
# then pkg-config), then its run script, with the environment the page names and no
# LD_LIBRARY_PATH, and each program's output must hold its 60 frames, with none of FFmpeg's
# info lines printed (they go through the page's glreader log, at warning level).
# Usage: docs_programs_test.sh SOURCE_DIR BUILD_DIR SCRATCH_DIR
set -euo pipefail
source=$1 build=$2 scratch=$3
page=$source/docs/library.md
rm -rf "$scratch"
mkdir -p "$scratch/prefix" "$scratch/program"
fail() { echo "FAIL: $*"; exit 1; }

cmake --install "$build" --prefix "$scratch/prefix" >/dev/null
# The page's blocks with a file name, each to its file.
python3 - "$page" "$scratch/program" <<'PY'
import re, sys
page, out = sys.argv[1], sys.argv[2]
blocks = re.findall(r"^```\w+ file=(\S+)\n(.*?)^```$", open(page).read(), re.S | re.M)
if not blocks:
    sys.exit("no block names a file in " + page)
for name, text in blocks:
    open(out + "/" + name, "w").write(text)
    print("from the page:", name)
PY
for script in build-with-cmake.sh build-with-pkg-config.sh run.sh CMakeLists.txt record.cpp record.c; do
  [ -f "$scratch/program/$script" ] || fail "docs/library.md has no block for $script"
done

# The C prefix holds nothing of the Python package (which pip installs).
[ ! -e "$scratch/prefix/glreader" ] || fail "cmake --install put the Python package in the C prefix: $scratch/prefix/glreader"

cd "$scratch/program"
# As the page says: the checkout at GLREADER; the prefix found by CMake and pkg-config, and
# by the programs through the rpath each build gives them (no LD_LIBRARY_PATH).
export GLREADER=$source
export CMAKE_PREFIX_PATH=$scratch/prefix PKG_CONFIG_PATH=$scratch/prefix/lib/pkgconfig
unset LD_LIBRARY_PATH
frames() { ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=codec_name,nb_read_frames -of csv=p=0 "$1"; }

# What a program says: its output, and FFmpeg's warnings at most (x264's settings and summary
# are info, under the log's level, and the trial open says nothing more).
quiet() { # LOG
  ! grep -q "libx264 @" "$1" || fail "the programs print FFmpeg's info lines: $(cat "$1")"
}

echo "== the page's CMake build"
bash -e build-with-cmake.sh
(cd build && bash -e ../run.sh 2> ../run-stderr.txt) || fail "run.sh: $(cat run-stderr.txt)"
quiet run-stderr.txt
[ "$(frames build/record.mp4)" = "h264,60" ] || fail "record.mp4 (CMake): $(frames build/record.mp4)"
[ "$(frames build/record-c.mkv)" = "h264,60" ] || fail "record-c.mkv (CMake): $(frames build/record-c.mkv)"
rm -rf build/record.mp4 build/record-c.mkv

echo "== the page's pkg-config build"
bash -e build-with-pkg-config.sh
bash -e run.sh 2> run-stderr.txt || fail "run.sh: $(cat run-stderr.txt)"
quiet run-stderr.txt
[ "$(frames record.mp4)" = "h264,60" ] || fail "record.mp4 (pkg-config): $(frames record.mp4)"
[ "$(frames record-c.mkv)" = "h264,60" ] || fail "record-c.mkv (pkg-config): $(frames record-c.mkv)"
echo "docs programs: 2 passed, 0 failed"
