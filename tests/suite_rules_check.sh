#!/usr/bin/env bash
# The suite's own rules, checked on its sources and its ctest registration:
# - no elapsed-time assertion (a test claims behaviour, never speed);
# - no "until-pass" rerun anywhere (tests/, scripts/, .ci/);
# - no sleep as synchronisation: every sleep in tests/ is marked "pace:" (a slow reader,
#   a paused consumer: the stimulus under test) and every other wait is on an event;
# - no loop without an end condition ("for (;;)", "while (true)"): waits have deadlines;
# - every ctest test of BUILD_DIR has a TIMEOUT;
# - every test program of tests/CMakeLists.txt is listed (glr_suite), so that the GPU
#   bundle carries it or says why not.
# Usage: suite_rules_check.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
source_dir=$1 build_dir=$2
cd "$source_dir"
failed=0
matches() { grep "$@" || true; } # grep, where no match is the good outcome
violation() { # WHAT LINES: fails the check when LINES is not empty
  local lines=$2
  [ -z "$lines" ] && return 0
  echo "FAIL: $1:"
  echo "$lines" | sed 's/^/  /'
  failed=1
}

test_sources=(tests/*.cpp tests/*.c tests/*.py tests/support/*.cpp tests/support/*.hpp python/tests/*.py python/tests/farm/*.py)
mapfile -t test_scripts < <(ls tests/*.sh tests/package/*.sh | grep -v suite_rules_check.sh)

violation "elapsed-time assertions" "$(matches -nE \
  '(EXPECT|ASSERT)_(LT|LE|GT|GE|TRUE|FALSE)\(.*(steady_clock|system_clock|high_resolution_clock|elapsed|::now\(\))' \
  "${test_sources[@]}")"
violation "elapsed-time checks in test scripts" "$(matches -nE '\$SECONDS|date \+%s' "${test_scripts[@]}")"
violation "reruns until a test passes" "$(matches -rnE 'until-pass|repeat[= ]+until' tests scripts .ci --exclude=suite_rules_check.sh)"
violation "sleeps in tests not marked 'pace:' (wait for an event instead)" "$(matches -nE 'sleep_for|usleep|nanosleep|\bsleep\(' "${test_sources[@]}" | matches -v 'pace:')"
violation "sleeps in test scripts not marked 'pace:'" "$(matches -nE '(^|[;&|[:space:]])sleep [0-9]' "${test_scripts[@]}" | matches -v 'pace:')"
violation "loops without an end condition" "$(matches -nE 'for \(;;\)|while \((true|1)\)' "${test_sources[@]}")"

programs=$(sed -n 's/^ *add_executable(\([a-z_]*\) .*/\1/p' tests/CMakeLists.txt | sort -u)
listed=$(sed -n 's/^ *glr_suite(\([a-z_]*\) .*/\1/p' tests/CMakeLists.txt python/CMakeLists.txt | sort -u)
violation "test programs not listed with glr_suite (tests/CMakeLists.txt)" "$(comm -23 <(echo "$programs") <(echo "$listed"))"

# ctest's view: PRE_TEST discovery lists the gtest suites' tests as ctest runs them.
ctest --test-dir "$build_dir" --show-only=json-v1 >"$build_dir/suite_rules_tests.json"
python3 - "$build_dir/suite_rules_tests.json" <<'PY' || failed=1
import json, sys
tests = json.load(open(sys.argv[1]))["tests"]
untimed = [t["name"] for t in tests
           if not any(p["name"] == "TIMEOUT" and float(p["value"]) > 0 for p in t.get("properties", []))]
for name in untimed:
    print("FAIL: no TIMEOUT: " + name)
print(f"{len(tests)} ctest tests, {len(tests) - len(untimed)} with a TIMEOUT")
sys.exit(1 if untimed or not tests else 0)
PY
[ $failed = 0 ] && echo "the suite keeps its rules"
exit $failed
