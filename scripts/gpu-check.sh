#!/usr/bin/env bash
# glreader's GPU validation run. It lives in a bundle made by scripts/gpu-bundle.sh and
# runs on the machine under test, from any directory; that machine needs glibc, its GL
# driver and dpkg-deb (to unpack the carried GL/EGL loaders), nothing else.
#
#   gpu-check.sh RESULTS_DIR [--quick] [--require-gpu] [--jobs N] [--stages LIST] [--suites LIST]
#
# It prints the GL renderer and the EGL platform, then runs the benchmarks first, so that a
# short loan still brings their figures back: glreader-bench ring (readback, and the render
# thread's stall p50/p99 from 1000 captures a run, with the GPU idle and with the frame's
# drawing queued), compare at 1080p (pipe mode and in-process against TurboPipe, with the
# Python rows: TurboPipe 2.1, glreader.turbopipe and glreader.Recorder over the whole path,
# in the CPython 3.11 the bundle carries), encode (BGRA and YUV converted on the GPU) and
# filter (the glshader filter, async and sync; over yuv420p, converted on the GPU and on the
# CPU, and which of the two yuv_input=auto takes there). Then every suite of the bundle's
# tests/SUITES on that GL (N at a time, default: one per CPU, each under a time limit): the
# gtest programs, capi_test, export_job_test case by case, and the Python package's pytest
# suite in the carried CPython; it fails unless every suite of SUITES ran and exactly the
# tests of its list (tests/NAME.list) passed. Every stage has a time limit, so that a full
# check fits one 10-minute command. Into RESULTS_DIR it writes:
#   summary.md   the machine, the GL, each suite's counts and the benchmarks' tables,
#                written anew after each stage (a check cut short keeps what it found)
#   tests.json   each suite's status, counts and time
#   info.json, ring.json, encode.json, filter.json, compare.json   glreader-bench's JSON
#   tests.log    every suite's whole output
# When the renderer rasterizes in software (llvmpipe) the results say that they are not
# GPU results; with --require-gpu it then stops at once. --quick: small sizes and one run
# of a few frames, for CI's check that the bundle works (tests/gpu_bundle_test.sh).
# --stages ring,compare,encode,filter,suites (default: all) and --suites NAME,NAME (default:
# every suite of the bundle) run part of the check: what a session with little device
# time left reruns (the summary says which stages ran).
# Exit status: 0 when every suite and benchmark passed, 1 when one failed, 2 when it
# refused to run (no GPU with --require-gpu, bad arguments, no GL at all).
set -uo pipefail
bundle=$(cd "$(dirname "$0")" && pwd)

say() { echo "gpu-check: $*" >&2; }
refuse() { say "error: $*"; exit 2; }

results="" quick=0 require_gpu=0 jobs=$(nproc) stages=ring,compare,encode,filter,suites only_suites=""
stage_names='(ring|compare|suites|encode|filter)'
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=1 ;;
    --require-gpu) require_gpu=1 ;;
    --jobs) [[ ${2:-} =~ ^[1-9][0-9]*$ ]] || refuse "--jobs needs a positive whole number"; jobs=$2; shift ;;
    --stages) [[ ${2:-} =~ ^$stage_names(,$stage_names)*$ ]] ||
                refuse "--stages takes a comma-separated list of ring, compare, encode, filter, suites"
              stages=$2; shift ;;
    --suites) [[ ${2:-} =~ ^[a-z_]+(,[a-z_]+)*$ ]] || refuse "--suites takes a comma-separated list of suite names"
              only_suites=$2; shift ;;
    -*) refuse "unknown option $1" ;;
    *) [ -z "$results" ] || refuse "one results folder only (have $results, then $1)"; results=$1 ;;
  esac
  shift
done
[ -n "$results" ] || refuse "usage: $0 RESULTS_DIR [--quick] [--require-gpu] [--jobs N] [--stages LIST] [--suites LIST]"
wants() { [[ ",$stages," == *",$1,"* ]]; }
mkdir -p "$results" && results=$(cd "$results" && pwd) || refuse "cannot create $results"
work=$(mktemp -d "${TMPDIR:-/tmp}/glreader-gpu-check.XXXXXX") || refuse "cannot create a scratch folder"
trap 'rm -rf "$work"' EXIT

# The carried loaders (glvnd) are used even where the machine has its own, so that what
# CI checks here is what a bare machine gets.
command -v dpkg-deb >/dev/null || refuse "dpkg-deb is needed to unpack $bundle/loaders/*.deb"
for deb in "$bundle"/loaders/*.deb; do
  dpkg-deb -x "$deb" "$work/loaders" || refuse "cannot unpack $deb"
done
gl_path=$work/loaders/usr/lib/x86_64-linux-gnu
# moderngl's EGL backend (glcontext) opens libGL.so and libEGL.so, names only -dev packages give.
ln -s libGL.so.1 "$gl_path/libGL.so" && ln -s libEGL.so.1 "$gl_path/libEGL.so" || refuse "cannot link the GL loaders"
# NVIDIA's container runtime mounts the driver under /usr/local/nvidia: its libraries,
# and a glvnd vendor file where glvnd does not look by itself.
nvidia=/usr/local/nvidia
for dir in "$nvidia/lib64" "$nvidia/lib"; do [ -d "$dir" ] && gl_path+=":$dir"; done
if [ -z "${__EGL_VENDOR_LIBRARY_FILENAMES:-}${__EGL_VENDOR_LIBRARY_DIRS:-}" ] &&
   [ -f "$nvidia/share/glvnd/egl_vendor.d/10_nvidia.json" ] &&
   ! ls /usr/share/glvnd/egl_vendor.d/*nvidia* /etc/glvnd/egl_vendor.d/*nvidia* >/dev/null 2>&1; then
  export __EGL_VENDOR_LIBRARY_FILENAMES=$nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
fi
# Vulkan's loader (carried) finds NVIDIA's driver through an ICD file. A container given
# the driver's libraries but no such file gets one naming the library that holds NVIDIA's
# Vulkan driver, so that Vulkan frames run there on the GPU GL runs on.
if [ -z "${VK_ICD_FILENAMES:-}${VK_DRIVER_FILES:-}" ] &&
   ! ls /usr/share/vulkan/icd.d/nvidia* /etc/vulkan/icd.d/nvidia* >/dev/null 2>&1; then
  if [ -f "$nvidia/share/vulkan/icd.d/nvidia_icd.json" ]; then
    export VK_ICD_FILENAMES=$nvidia/share/vulkan/icd.d/nvidia_icd.json
  elif ldconfig -p 2>/dev/null | grep -q 'libGLX_nvidia\.so\.0' || ls "$nvidia"/lib*/libGLX_nvidia.so.0 >/dev/null 2>&1; then
    printf '{ "file_format_version": "1.0.0", "ICD": { "library_path": "libGLX_nvidia.so.0", "api_version": "1.3.0" } }\n' \
      >"$work/nvidia_icd.json"
    export VK_ICD_FILENAMES=$work/nvidia_icd.json
    say "no Vulkan ICD file for NVIDIA's driver: using one written for libGLX_nvidia.so.0"
  fi
fi
export LD_LIBRARY_PATH=$gl_path${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# The bundle's ffmpeg and ffprobe for the tests, the pipe mode's child and the benchmarks.
export PATH=$bundle/bin:$PATH GLREADER_FFMPEG=$bundle/bin/ffmpeg
[ $quick = 1 ] && export GLR_TEST_FRAMES=${GLR_TEST_FRAMES:-30}

say "bundle: $(head -n 1 "$bundle/BUILD"); machine: $(uname -m), $(nproc) CPUs, $(ldd --version | head -n 1)"
needed=$(sed -n 's/^needs glibc \([0-9.]*\).*/\1/p' "$bundle/BUILD")
have=$(getconf GNU_LIBC_VERSION | cut -d' ' -f2)
[ "$(printf '%s\n' "$needed" "$have" | sort -V | head -n 1)" = "$needed" ] ||
  refuse "this machine's glibc is $have; the bundle needs $needed or newer (build it on an older system)"
if ! timeout -k 10 120 "$bundle/bin/glreader-bench" info --json "$results/info.json" >"$work/bench-info.txt" 2>"$work/info.err"; then
  cat "$work/info.err" >&2
  refuse "glreader-bench info failed: no OpenGL context, or a library missing (the lines above say which)"
fi
grep ': ' "$work/bench-info.txt" >"$work/info.txt"
sed 's/^/gpu-check:   /' "$work/info.txt" >&2
info() { sed -n "s/^$1: //p" "$work/info.txt"; }
renderer=$(info renderer)
if [ "$(info 'software rasterizer')" = yes ]; then
  verdict="**Not GPU results.** The renderer is $renderer, a software rasterizer: these figures say nothing about a GPU."
  [ $require_gpu = 0 ] || refuse "the renderer is $renderer, a software rasterizer, and --require-gpu was given"
  say "the renderer is $renderer, a software rasterizer: these will not be GPU results"
else
  verdict="GPU results: $renderer, EGL platform $(info 'EGL platform'), ring path $(info 'ring path')."
fi
# On a GPU the suites must run where glreader is meant to: the EGL device platform and the
# persistent-map + fences path. Anything else fails the check, whatever the suites say.
failed=0
if [ "$(info 'software rasterizer')" = no ] &&
   { [ "$(info 'EGL platform')" != device ] || [ "$(info 'ring path')" != persistent-map+fences ]; }; then
  failed=1
  verdict+=" **FAILED: a GPU should give the EGL device platform and the persistent-map+fences path.**"
  say "FAILED: on a GPU, expected EGL platform 'device' and ring path 'persistent-map+fences'"
fi

# The summary, written anew after each stage: a check cut short keeps what it found.
write_summary() {
  {
    echo "# glreader GPU check, $(date -u +%Y-%m-%d)"
    echo
    echo "$verdict"
    echo
    echo "- machine: $(uname -m), $(nproc) CPUs, $(ldd --version | head -n 1)$(command -v nvidia-smi >/dev/null &&
          nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null |
          head -n 1 | sed 's/^/; nvidia-smi: /')"
    sed 's/^/- /' "$work/info.txt"
    sed 's/^/- bundle: /' "$bundle/BUILD"
    echo "- mode: $([ $quick = 1 ] && echo "quick (CI: tiny sizes, one run)" || echo full); stages: $stages$(
          [ -n "$only_suites" ] && echo "; suites: $only_suites")"
    echo
    echo "## Test suites"
    echo
    echo "| suite | result | passed | failed | skipped | seconds |"
    echo "|---|---|---|---|---|---|"
    if [ -n "$suite_rows" ]; then printf '%s' "$suite_rows"; else echo "| (not run yet) | | | | | |"; fi
    echo
    echo "## Benchmarks"
    printf '%s' "$tables"
  } >"$results/summary.md"
}

# The benchmarks first, one after the other (they time the machine), each keeping its
# tables: what a GPU run is for, and what a short loan must bring back. Then the suites
# (their failures tell what breaks there).
suite_rows="" tables=""
if [ $quick = 1 ]; then
  ring_limit=600 suite_limit=900 late_limit=600 compare_limit=600
  ring_args=(--sizes 320x180 --runs 1 --frames 8 --stall-captures 100)
  encode_args=(--sizes 320x180 --presets ultrafast --runs 1 --frames 8)
  filter_args=(--sizes 320x180 --runs 1 --frames 8)
  compare_args=(--sizes 320x180 --outputs null --buffers 1 --runs 1 --frames 8 --no-load-row)
else
  ring_limit=90 suite_limit=210 late_limit=75 compare_limit=90
  # Sized so that the whole check fits one 10-minute command on a lent machine (each stage
  # bounded: the limits add up to 9 minutes, the stages take less, and a check cut short
  # keeps what it found); ultrafast only: slower presets time libx264 on the CPU.
  ring_args=(--sizes 720p,1080p,2160p --runs 2 --frames 60 --stall-captures 1000)
  encode_args=(--sizes 720p,1080p --presets ultrafast --runs 2 --frames 60)
  filter_args=(--sizes 720p,1080p --runs 2 --frames 60)
  compare_args=(--sizes 1080p --outputs null --buffers 1 --runs 3 --seconds 1 --no-load-row)
fi
bench() { # LIMIT_SECONDS MODE ARGS...
  local limit=$1 mode=$2 start=$SECONDS
  shift
  say "glreader-bench $* (at most $limit s)"
  if (cd "$work" && timeout -k 10 "$limit" "$bundle/bin/glreader-bench" "$@" --json "$results/$mode.json") \
       >"$work/bench-$mode.md" 2>"$work/bench-$mode.err"; then
    tables+=$'\n'"### glreader-bench $*"$'\n'"$(grep -v '^wrote ' "$work/bench-$mode.md")"$'\n'
    say "  done in $((SECONDS - start)) s"
  else
    local status=$?
    failed=1
    tail -n 20 "$work/bench-$mode.err" >&2
    # What it printed before it failed or ran out of time: its progress and any table.
    tables+=$'\n'"### glreader-bench $*: FAILED (exit $status$([ $status = 124 ] && echo ", over $limit s"))"
    tables+=$'\n\n```\n'"$(tail -n 40 "$work/bench-$mode.err")"$'\n```\n'"$(grep -v '^wrote ' "$work/bench-$mode.md")"$'\n'
    say "  FAILED (exit $status)"
  fi
  write_summary
}
wants ring && bench "$ring_limit" ring "${ring_args[@]}"

# The carried CPython 3.11 (the machine's own Python may be any version), with the carried
# packages: glreader's (its module finds the bundle's libraries), moderngl, TurboPipe.
for deb in "$bundle"/python/debs/*.deb; do
  dpkg-deb -x "$deb" "$work/python" || refuse "cannot unpack $deb"
done
export PYTHONPATH=$bundle/python PYTHONNOUSERSITE=1 PYTHONDONTWRITEBYTECODE=1
wants compare &&
  bench "$compare_limit" compare --python "$work/python/usr/bin/python3.11" --python-cell "$bundle/python/python_cell.py" \
    "${compare_args[@]}"
unset PYTHONPATH PYTHONNOUSERSITE PYTHONDONTWRITEBYTECODE
wants encode && bench "$late_limit" encode "${encode_args[@]}"
wants filter && bench "$late_limit" filter --ffmpeg "$bundle/bin/ffmpeg" "${filter_args[@]}"

# The suites of tests/SUITES (NAME KIND [CASES]), N at a time, each from the scratch folder
# with its output in its own log, each bounded in time (a hang fails that suite, with
# status 124, and the run goes on). Each writes the names of the tests that passed.
declare -A kind_of=() cases_of=()
suites=()
while read -r name kind arg; do
  suites+=("$name"); kind_of[$name]=$kind; cases_of[$name]=${arg:-}
done <"$bundle/tests/SUITES"
if [ -n "$only_suites" ]; then
  IFS=, read -r -a named <<<"$only_suites"
  for suite in "${named[@]}"; do
    [ -n "${kind_of[$suite]:-}" ] || refuse "--suites: the bundle has no suite $suite (it has: ${suites[*]})"
  done
  suites=("${named[@]}")
fi
wants suites || suites=()
# The Python suite's packages that travel as wheels (numpy unpacked is 73 MB), unpacked here.
if [[ " ${suites[*]} " == *" python_package "* ]]; then
  "$work/python/usr/bin/python3.11" -c 'import sys, tarfile, zipfile
for path in sys.argv[2:]:
    (tarfile.open(path) if path.endswith(".tar.xz") else zipfile.ZipFile(path)).extractall(sys.argv[1])' \
    "$work/site" "$bundle"/python/wheels/* ||
    refuse "cannot unpack the Python suite's wheels"
fi
run_suite() { # NAME
  local name=$1 start=$SECONDS status=0 log=$work/$1.log passed=$work/$1.passed
  case "${kind_of[$name]}" in
    gtest)
      (cd "$work" && timeout -k 10 "$suite_limit" "$bundle/bin/$name") >"$log" 2>&1 || status=$?
      sed -n 's/^\[       OK \] \([^ ]*\) ([0-9]* ms)$/\1/p' "$log" >"$passed"
      grep -c '^\[  FAILED  \] .* ([0-9]* ms)$' "$log" >"$work/$name.failures"
      grep -c '^\[  SKIPPED \] .* ([0-9]* ms)$' "$log" >"$work/$name.skipped" ;;
    capi) # one program: "capi: N passed, M failed"
      (cd "$work" && timeout -k 10 "$suite_limit" "$bundle/bin/$name") >"$log" 2>&1 || status=$?
      grep -q '^capi: [1-9][0-9]* passed, 0 failed$' "$log" && [ $status = 0 ] && echo "$name" >"$passed"
      sed -n 's/^capi: .* \([0-9]*\) failed$/\1/p' "$log" >"$work/$name.failures" ;;
    cases) # a process per case: "CASE: passed"
      local case failures=0
      IFS=, read -r -a run_cases <<<"${cases_of[$name]}"
      for case in "${run_cases[@]}"; do
        local case_status=0
        echo "=== $name $case" >>"$log"
        (cd "$work" && timeout -k 10 "$suite_limit" "$bundle/bin/$name" "$case") >>"$log" 2>&1 || case_status=$?
        if [ $case_status = 0 ]; then echo "$case" >>"$passed"; else failures=$((failures + 1)) status=$case_status; fi
      done
      echo $failures >"$work/$name.failures" ;;
    pytest) # in the carried CPython, from the bundle's copy of the checkout's files
      (cd "$bundle/repo" &&
       PYTHONPATH=$bundle/python:$work/site PYTHONNOUSERSITE=1 PYTHONDONTWRITEBYTECODE=1 \
       GLREADER_EXPORT=$bundle/bin/glreader-export TMPDIR=$work \
       timeout -k 10 "$suite_limit" "$work/python/usr/bin/python3.11" -m pytest -v -p no:cacheprovider --rootdir=. \
         python/tests --ignore=python/tests/farm) >"$log" 2>&1 || status=$?
      sed -n 's/^\(python\/tests\/[^ ]*\) PASSED.*/\1/p' "$log" >"$passed"
      grep -cE '^python/tests/[^ ]* (FAILED|ERROR)' "$log" >"$work/$name.failures"
      grep -cE '^python/tests/[^ ]* SKIPPED' "$log" >"$work/$name.skipped" ;;
    *) echo "the bundle's SUITES gives $name the kind '${kind_of[$name]}', which gpu-check.sh does not run" >"$log"
       status=2 ;;
  esac
  touch "$passed"
  echo "$status $((SECONDS - start))" >"$work/$name.status"
}
[ ${#suites[@]} = 0 ] || say "running ${#suites[@]} test suites, $jobs at a time"
running=0
for suite in "${suites[@]}"; do
  if [ $running -ge "$jobs" ]; then wait -n; running=$((running - 1)); fi
  run_suite "$suite" &
  running=$((running + 1))
done
wait

: >"$results/tests.log"
suite_json=""
for suite in "${suites[@]}"; do
  read -r status seconds <"$work/$suite.status"
  log=$work/$suite.log
  passed=$(wc -l <"$work/$suite.passed")
  failures=$(cat "$work/$suite.failures" 2>/dev/null) skipped=$(cat "$work/$suite.skipped" 2>/dev/null)
  failures=${failures:-0} skipped=${skipped:-0}
  # Every test the build listed passed, and no other: a test skipped, compiled out or
  # never reached (a crash) is a difference.
  missing=$(comm -3 <(sort "$bundle/tests/$suite.list") <(sort "$work/$suite.passed") | tr -d '\t' | head -n 5 |
            paste -sd ' ')
  # A suite that ran nothing, or crashed, has failed whatever it counted.
  if [ "$status" != 0 ] || [ "$failures" != 0 ] || [ "$passed" = 0 ]; then
    failed=1; outcome="FAILED (exit $status$([ "$status" = 124 ] && echo ", over ${suite_limit} s")${missing:+; not passed: $missing})"
  elif [ -n "$missing" ]; then
    failed=1; outcome="FAILED (not as listed: $missing)"
  else
    outcome=passed
  fi
  say "  $suite: $outcome, $passed passed, $failures failed, $skipped skipped, ${seconds} s"
  { echo "===== $suite: $outcome"; cat "$log"; } >>"$results/tests.log"
  suite_rows+="| $suite | $outcome | $passed | $failures | $skipped | $seconds |"$'\n'
  suite_json+="${suite_json:+,}"$'\n'"    {\"suite\": \"$suite\", \"exit\": $status, \"passed\": $passed, \"failed\": $failures, \"skipped\": $skipped, \"seconds\": $seconds}"
done
[ ${#suites[@]} = 0 ] || printf '{\n  "software": %s,\n  "suites": [%s\n  ]\n}\n' \
  "$([ "$(info 'software rasterizer')" = yes ] && echo true || echo false)" "$suite_json" >"$results/tests.json"

write_summary

say "results in $results (summary.md)"
[ $failed = 0 ] || { say "some suites or benchmarks FAILED: see $results/summary.md and tests.log"; exit 1; }
say "every suite and benchmark passed"
