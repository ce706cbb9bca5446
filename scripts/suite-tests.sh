#!/usr/bin/env bash
# The tests of one test program of a build, as its tests/suites.txt says to list them (see
# tests/CMakeLists.txt), one name a line, sorted: the list the GPU bundle carries for it
# (gpu-check.sh fails unless exactly these pass there) and what tests/gpu_bundle_test.sh
# compares the bundle's with.
#
#   scripts/suite-tests.sh BUILD_DIR NAME
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(realpath "$1") name=$2
read -r _ kind arg < <(awk -v name="$name" '$1 == name' "$build/tests/suites.txt") ||
  { echo "suite-tests.sh: $build/tests/suites.txt has no $name" >&2; exit 1; }
case "$kind" in
  gtest) "$build/tests/$name" --gtest_list_tests | awk '/^[^ ]/ { suite = $1 } /^  [^ ]/ { print suite $1 }' ;;
  capi) echo "$name" ;; # one program counting its own checks
  cases) tr , '\n' <<<"$arg" ;;
  # Node ids relative to the checkout (--rootdir), as the bundle's copy gives them too.
  pytest) (cd "$root" && PYTHONPATH=$build/python "$arg" -m pytest --collect-only -q -p no:cacheprovider --rootdir=. \
             python/tests --ignore=python/tests/farm | grep '::') ;;
  *) echo "suite-tests.sh: $name is a suite of kind '$kind', which lists no tests here" >&2; exit 1 ;;
esac | sort
