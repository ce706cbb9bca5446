#!/usr/bin/env bash
# Fuzzes every text glreader reads from a user with libFuzzer, under AddressSanitizer and
# UndefinedBehaviorSanitizer: Shadertoy's JSON, a project's channels file, channel specs,
# --mouse and --date, the programs' numbers, a chunk's tag (glr_join reads it from a
# user's file) and GLR_EGL_DEVICE (fuzz/*_fuzzer.cpp).
# Usage: scripts/fuzz.sh [SECONDS [TARGET...]]
#   SECONDS: how long each target runs after replaying its corpus (default 60; the test
#            suite gives each 20). TARGET: shadertoy_json, channels_file, channel_spec,
#            mouse_date, program_numbers, chunk_tag, egl_device (default: all).
# Each target first replays its seeds (fuzz/corpus/TARGET, from the tests' cases and any
# input that once failed) and what earlier runs found (build-fuzz/corpus/TARGET), then
# mutates them. Any crash, leak, sanitizer report or input that takes over 10 s fails the
# run; the input is kept in build-fuzz/artifacts/TARGET/ and the log says how to replay it.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-60}
[ $# -gt 0 ] && shift
case "$seconds" in '' | *[!0-9]*) echo "usage: scripts/fuzz.sh [SECONDS [TARGET...]]" >&2; exit 2 ;; esac
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(shadertoy_json channels_file channel_spec mouse_date program_numbers chunk_tag egl_device)

"$root/scripts/setup.sh" clang-14 libfuzzer-14-dev libclang-rt-14-dev
build="$root/build-fuzz"
CC=clang-14 CXX=clang++-14 cmake -S "$root" -B "$build" -G Ninja -DGLREADER_FUZZ=ON \
  -DGLREADER_SANITIZE=address,undefined -DGLREADER_BUILD_SAMPLES=OFF -DGLREADER_BUILD_TESTS=OFF >/dev/null
cmake --build "$build" --target glreader_fuzzers

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
failed=()
for target in "${targets[@]}"; do
  program="$build/fuzz/${target}_fuzzer"
  [ -x "$program" ] || { echo "fuzz: no target $target (see scripts/fuzz.sh's usage)" >&2; exit 2; }
  mkdir -p "$build/corpus/$target" "$build/artifacts/$target"
  echo "fuzz: $target for $seconds s" >&2
  # The first corpus folder takes what this run finds; the seeds are only read.
  if "$program" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
      -artifact_prefix="$build/artifacts/$target/" -print_final_stats=1 \
      "$build/corpus/$target" "$root/fuzz/corpus/$target" >"$build/$target.log" 2>&1; then
    grep -E "^(Done|stat::number_of_executed_units)" "$build/$target.log" | sed "s/^/fuzz:   /" >&2 || true
  else
    tail -n 60 "$build/$target.log" >&2
    echo "fuzz: $target FAILED; the input: $(ls -t "$build/artifacts/$target" | head -n 1); replay it with" \
         "$program $build/artifacts/$target/FILE, then add it to fuzz/corpus/$target and a test" >&2
    failed+=("$target")
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: failed: ${failed[*]}" >&2
  exit 1
fi
echo "fuzz: every target ran $seconds s without a crash, leak or hang" >&2
