#!/usr/bin/env bash
# The test suite. Usage: scripts/test.sh [--quick | --no-sanitizers]
#
# Whole (no option; what CI runs, .ci/run): installs what is missing, builds a lean patched
# ffmpeg of every release line in ffmpeg-patches/ and the complete (default) one of the
# newest line (all cached outside the clone), configures the complete one of every other
# line, builds, runs every test (the lavfi filters'
# against each lean ffmpeg; the complete one runs every ffmpeg and glreader-export command
# of the README and docs/, and what a distribution's ffmpeg is for), applies every one
# of its deliberate bugs to the checkout, each of which must fail its own test
# (scripts/mutation-check.sh; restored after), builds the GPU
# validation bundle and runs it here on llvmpipe as a bare machine would
# (tests/gpu_bundle_test.sh), then builds everything again under AddressSanitizer+UBSan and
# runs the whole suite there (but the packaging and memory-growth checks, meaningless in
# that build; the filters' tests inside an AddressSanitizer ffmpeg of the newest line; then
# a use-after-free and a leak planted where only a sanitizer sees them), the
# ring, encoder and pipe tests under ThreadSanitizer, and every text parser under libFuzzer
# for 20 seconds each (scripts/fuzz.sh).
# Every build but the sanitizers' has the Python package (python/), whose pytest suite runs
# with the rest; whole and --no-sanitizers also build it as `pip install .` does and use it
# from a fresh virtual environment (tests/python_package_test.sh), and build the wheel that
# carries FFmpeg and use it where the system's FFmpeg is hidden (tests/python_wheel_test.sh).
# --quick: the library and the programs only: every test but the FFmpeg filters' and the
# docs' commands, without sanitizers and without building any FFmpeg (for a change to one
# file; about six minutes from a fresh clone).
# --no-sanitizers: the whole suite's stages before the sanitizers.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# FFmpeg's builds (about 20 minutes of them) live outside the checkout, so a fresh clone on
# a machine that built the same releases, hooks, plugin/ and headers before reuses them.
# The cached ffmpegs load the glreader library this checkout installs there: one run at a
# time uses the cache.
export GLREADER_FFMPEG_CACHE=${GLREADER_FFMPEG_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/glreader-ffmpeg}
# Compiled objects are kept outside the checkout as well (ccache: a hit only for the same
# preprocessed source, flags and compiler). A run builds glreader eight times over (plain,
# the Python package's, the bundle's, the wheel's, two with ASan, TSan's, the fuzzers'), and a
# fresh clone rebuilds each from scratch: cached, what a commit left alone compiles once.
# shellcheck source=ccache-env.sh
. "$root/scripts/ccache-env.sh"
if use_ccache "$root"; then
  export CMAKE_C_COMPILER_LAUNCHER=ccache CMAKE_CXX_COMPILER_LAUNCHER=ccache
fi
mode=${1:-whole}
case "$mode" in
  whole|--quick|--no-sanitizers) ;;
  *) echo "usage: scripts/test.sh [--quick | --no-sanitizers]" >&2; exit 2 ;;
esac

newest=$(basename "$(dirname "$(ls -d "$root"/ffmpeg-patches/*/RELEASE | sort -V | tail -n 1)")")

# The run's clock (setup's minutes included), and its budget: CI ends a run at 90 minutes,
# so every stage runs under a limit of its own and within what is left of 85 minutes. A
# stage that hangs ends the run here first, saying which.
export GLREADER_TEST_STARTED=${GLREADER_TEST_STARTED:-$(date +%s)}
budget=$((85 * 60))
elapsed() { echo $(($(date +%s) - GLREADER_TEST_STARTED)); }

# A stage's heading in the log, with the minutes the run has taken so far.
stage() { echo "== $1 (at $(($(elapsed) / 60)) min)" >&2; }

bounded() { # SECONDS COMMAND [ARGS...]: COMMAND, stopped after SECONDS or at the budget's end
  local seconds=$1 left=$((budget - $(elapsed))) status=0; shift
  ((seconds <= left)) || seconds=$left
  ((seconds > 0)) || { echo "test.sh: the run's $((budget / 60)) minutes are spent; not started: $*" >&2; return 124; }
  timeout -k 30 "$seconds" "$@" || status=$?
  [ "$status" != 124 ] || echo "test.sh: stopped after $seconds s (its limit, or the run's): $*" >&2
  return "$status"
}

configure_and_build() { # SECONDS DIR [--python] [cmake args...]
  local seconds=$1 dir=$2; shift 2
  bounded 120 "$root/scripts/configure.sh" "$root/$dir" "$@" >/dev/null
  bounded "$seconds" cmake --build "$root/$dir"
}

# Whether ctest's arguments select FLOOR tests or more in DIR: a stage never passes empty,
# nor with a suite gone from the build (each stage's floor is written beside it, a little
# under the tests it runs today).
selects_at_least() { # FLOOR DIR [ctest args...]
  local floor=$1 dir=$2 count; shift 2
  count=$(ctest --test-dir "$root/$dir" -N "$@" | sed -n 's/^Total Tests: //p')
  ((${count:-0} >= floor)) && return 0
  echo "test.sh: ctest $* selects ${count:-0} tests in $dir, under the stage's floor of $floor: a suite is gone" >&2
  return 1
}

# ctest in DIR, FLOOR tests at least (and none is an error); when tests fail, they run once
# more alone at the very end, their output in full, so that a log kept only in part (CI
# keeps its tail) still shows why.
run_tests() { # SECONDS DIR FLOOR [ctest args...]
  local seconds=$1 dir=$2 floor=$3; shift 3
  selects_at_least "$floor" "$dir" "$@" || return 1
  bounded "$seconds" ctest --test-dir "$root/$dir" --no-tests=error --output-on-failure "$@" && return 0
  local status=$?
  echo "== the failing tests in $dir once more, one at a time" >&2
  bounded 900 ctest --test-dir "$root/$dir" --rerun-failed --output-on-failure -j 1 2>&1 | tail -n 400 >&2 || true
  return "$status"
}

# Everything the stages take from the network: Debian's packages, the Python environment,
# FFmpeg's sources and the packages each flavour builds with, the GPU bundle's wheels and
# packages, GLFW's source for its examples' test.
# Each step bounded, as the stages are: a mirror that stops answering ends the run, saying so.
setup() {
  if [ "$mode" = --quick ]; then # what its stages use, and no more
    bounded 1200 "$root/scripts/setup.sh"
    bounded 1200 "$root/scripts/python-env.sh" >/dev/null
    bounded 600 "$root/tests/glfw_examples_test.sh" --fetch
    return
  fi
  # With the packages scripts/fuzz.sh and scripts/gpu-bundle.sh ask for.
  bounded 1200 "$root/scripts/setup.sh" clang-14 libfuzzer-14-dev libclang-rt-14-dev patchelf
  bounded 1200 "$root/scripts/python-env.sh" --ray-wheels >/dev/null # the wheels `pip install ".[ray]"` takes
  bounded 900 "$root/scripts/gpu-bundle.sh" --fetch
  bounded 600 "$root/tests/glfw_examples_test.sh" --fetch
  local release
  for release in "$root"/ffmpeg-patches/*/RELEASE; do # the complete flavour's packages: the most
    bounded 900 "$root/ffmpeg-patches/build.sh" "$(basename "$(dirname "$release")")" --fetch-only >/dev/null
  done
  bounded 900 "$root/ffmpeg-patches/build.sh" "$newest" --bundle --fetch-only >/dev/null # and the bundle flavour's
}

# The stages, offline after setup (see the end). They run without the lock's descriptor: a
# process a test leaves behind must never hold the cache from the next run, as a display
# server whose xvfb-run died in its clean-up once did.
run_stages() {
  echo "== Mesa: $(dpkg-query -W -f '${Package} ${Version}; ' libegl-mesa0 libgl1-mesa-dri 2>/dev/null)" >&2
  # The Python package's build tools and pytest (a virtual environment outside the clone).
  python=$("$root/scripts/python-env.sh")

  if [ "$mode" = --quick ]; then
    stage "build and run the library's and the programs' tests (no FFmpeg builds, no sanitizers)"
    configure_and_build 1200 build --python
    run_tests 1200 build 535 -j "$(nproc)" -LE filter
    stage "the README's first command, as a new user runs it (tests/demo_test.sh)"
    bounded 600 "$root/tests/demo_test.sh"
    stage "all quick tests passed"
    return
  fi

  stage "patched ffmpeg of each release line (ffmpeg-patches/build.sh --lean)"
  patched=()
  for release in "$root"/ffmpeg-patches/*/RELEASE; do
    line=$(basename "$(dirname "$release")")
    patched+=("$line=$(bounded 900 "$root/ffmpeg-patches/build.sh" "$line" --lean | tail -n 1)")
  done

  stage "the complete ffmpeg of the newest line (ffmpeg-patches/build.sh's default)"
  complete=$(bounded 1200 "$root/ffmpeg-patches/build.sh" "$newest" | tail -n 1)
  # The README offers the complete build of every line: each older one configures, with
  # both filters and the external libraries its release knows (half a minute each).
  stage "the complete build of each older line configures (ffmpeg-patches/build.sh --configure-only)"
  for release in "$root"/ffmpeg-patches/*/RELEASE; do
    line=$(basename "$(dirname "$release")")
    [ "$line" = "$newest" ] ||
      bounded 300 "$root/ffmpeg-patches/build.sh" "$line" --configure-only | tail -n 1 | grep -qx configured
  done

  stage "build and run all tests"
  configure_and_build 1200 build --python -DGLREADER_PATCHED_FFMPEG="$(IFS=';'; echo "${patched[*]}")" \
    -DGLREADER_COMPLETE_FFMPEG="$complete"
  run_tests 1500 build 690 -j "$(nproc)"
  stage "the README's first command, as a new user runs it (tests/demo_test.sh)"
  bounded 600 "$root/tests/demo_test.sh"

  # Every mutation, each of which must fail the one test named for it (its tests first pass
  # unmutated).
  stage "mutations, each caught by its test (scripts/mutation-check.sh --in-place build)"
  bounded 1500 "$root/scripts/mutation-check.sh" --in-place "$root/build"

  stage "the Python package as pip installs it (tests/python_package_test.sh)"
  bounded 900 "$root/tests/python_package_test.sh" "$python"

  stage "the GPU validation bundle, run here on llvmpipe (scripts/gpu-bundle.sh, tests/gpu_bundle_test.sh)"
  bundle=$(bounded 1200 "$root/scripts/gpu-bundle.sh" | tail -n 1)
  bounded 1200 "$root/tests/gpu_bundle_test.sh" "$bundle" "$root/build"

  stage "the Python wheel that carries FFmpeg, where FFmpeg is not (scripts/python-wheel.sh, tests/python_wheel_test.sh)"
  wheel=$(bounded 1200 "$root/scripts/python-wheel.sh" "$root/build/wheelhouse" | tail -n 1)
  bounded 600 "$root/tests/python_wheel_test.sh" "$wheel"

  if [ "$mode" = whole ]; then
    stage "all tests under AddressSanitizer + UndefinedBehaviorSanitizer"
    # The filters' tests too, in an ffmpeg of the newest line built with AddressSanitizer
    # around a glreader built with AddressSanitizer+UBSan (ffmpeg-patches/build.sh --asan).
    asan_ffmpeg=$(bounded 1200 "$root/ffmpeg-patches/build.sh" "$newest" --asan | tail -n 1)
    # The Python package too: its pytest suite in Debian's python with ASan's runtime preloaded.
    configure_and_build 1500 build-asan --python -DGLREADER_SANITIZE=address,undefined \
      -DGLREADER_PATCHED_FFMPEG="$newest=$asan_ffmpeg"
    # intercept_tls_get_addr=0: GCC 12's LeakSanitizer, tracking dynamic TLS through
    # __tls_get_addr, records a block with a bogus start under glibc 2.36 in some process
    # layouts (27 TLS modules: Mesa, LLVM, FFmpeg), and its scan then dies on it ("Tracer
    # caught signal 11"; glreader-capture did, with one project path and not another). glibc
    # allocates those blocks with malloc and reaches them from the thread's dtv: scanned still.
    export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:intercept_tls_get_addr=0 \
      UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
    selects_at_least 565 build-asan
    if ! bounded 1800 ctest --test-dir "$root/build-asan" --no-tests=error --output-on-failure -j "$(nproc)" \
         --output-junit "$root/build-asan/asan.xml"; then
      # LeakSanitizer's stop-the-world scan can itself fail while Mesa's threads come and go
      # ("LeakSanitizer has encountered a fatal error", after every assertion passed and with
      # no report of a leak or an error). Such tests, and only those, run once more, and the
      # log says so; any other failure fails the stage at once.
      scan_failures=$(python3 "$root/tests/lsan_scan_failures.py" "$root/build-asan/asan.xml")
      if [ -z "$scan_failures" ]; then
        echo "== the failing tests in build-asan once more, one at a time" >&2
        bounded 900 ctest --test-dir "$root/build-asan" --rerun-failed --output-on-failure -j 1 2>&1 |
          tail -n 400 >&2 || true
        exit 1
      fi
      echo "== LeakSanitizer's own scan failed (not a leak) in: $scan_failures; those run once more" >&2
      bounded 900 ctest --test-dir "$root/build-asan" --no-tests=error --output-on-failure -j "$(nproc)" \
        -R "$scan_failures"
    fi
    unset ASAN_OPTIONS UBSAN_OPTIONS
    stage "the sanitizers' mutations: a use-after-free and a leak only a sanitizer sees (scripts/mutation-check.sh --asan)"
    bounded 600 "$root/scripts/mutation-check.sh" --asan "$root/build-asan" "$asan_ffmpeg"

    stage "ring, encoder and pipe tests under ThreadSanitizer"
    configure_and_build 900 build-tsan -DGLREADER_SANITIZE=thread -DGLREADER_BUILD_SAMPLES=OFF
    # detect_deadlocks=0: Mesa's JIT holds more nested locks than TSan's detector tracks.
    # ignore_noninstrumented_modules=1: FFmpeg's and Mesa's own memory accesses through
    # intercepted calls are not checked (they are not instrumented); see tests/tsan.supp.
    TSAN_OPTIONS="suppressions=$root/tests/tsan.supp detect_deadlocks=0 halt_on_error=1 ignore_noninstrumented_modules=1" \
      GLR_TEST_FRAMES=60 run_tests 900 build-tsan 438 -L 'ring|encoder|pipe' -j "$(nproc)"

    stage "every text parser under libFuzzer, ASan and UBSan, 20 s each (scripts/fuzz.sh 20)"
    bounded 900 "$root/scripts/fuzz.sh" 20
  fi
  stage "all tests passed"
}

# The stages run in a network namespace whose only interface is loopback (as root, or a
# user namespace's root): no stage can reach the network, so none depends on it, and none
# can listen on the machine's own address. This script again, inside it; the lock stays
# with the outer one.
if [ "${GLREADER_TEST_STAGES_OFFLINE:-}" = 1 ]; then
  run_stages
  exit
fi
mkdir -p "$GLREADER_FFMPEG_CACHE"
exec 9>"$GLREADER_FFMPEG_CACHE/.lock"
if ! flock -n 9; then # bounded, as every wait here: another run ends within its own 85 minutes
  echo "test.sh: waiting for another run that uses $GLREADER_FFMPEG_CACHE" >&2
  flock -w $((budget + 600)) 9 || { echo "test.sh: another run held $GLREADER_FFMPEG_CACHE past its budget" >&2; exit 1; }
  GLREADER_TEST_STARTED=$(date +%s) # this run's budget from now
fi
stage "setup: what the stages need from the network (Debian packages, Python, FFmpeg's sources, wheels)"
setup 9>&-
namespace=(--net)
[ "$(id -u)" = 0 ] || namespace+=(--map-root-user)
stage "the stages, offline: in a network namespace with loopback alone"
GLREADER_TEST_STAGES_OFFLINE=1 unshare "${namespace[@]}" sh -c 'ip link set lo up && exec "$0" "$@"' \
  "$root/scripts/test.sh" "$mode" 9>&-
