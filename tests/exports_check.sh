#!/usr/bin/env bash
# The shipped libraries export glreader's public C API and nothing else: every dynamic
# symbol they define is a glr_ function declared in an installed header (glreader/ and its
# folders: glreader/av/ holds glreader-av's newer ones), or one of the
# private exports (glr_priv_*) declared in glreader/src/priv.h for glreader's own libraries,
# and none is a test seam (glr_internal_*), which only the -testing builds carry.
# Usage: exports_check.sh INCLUDE_DIR LIBGLREADER LIBGLREADER_AV LIBGLREADER_TESTING
set -euo pipefail
include=$1
shift 1
testing=${*: -1}
failed=0
for lib in "${@:1:$#-1}"; do
  symbols=$(nm -D --defined-only "$lib" | awk '{print $3}' | sed 's/@.*//' | sort -u)
  [ -n "$symbols" ] || { echo "FAIL: $lib exports nothing"; failed=1; }
  for s in $symbols; do
    if [[ $s != glr_* || $s == glr_internal_* ]]; then
      echo "FAIL: $lib exports $s, which is not public glreader API"; failed=1
    elif [[ $s == glr_priv_* ]]; then
      grep -qE "\b$s\(" "$include"/../src/priv.h || { echo "FAIL: $lib exports $s, which priv.h does not declare"; failed=1; }
    elif ! grep -rqE --include='*.h' "\b$s\(" "$include"/glreader; then
      echo "FAIL: $lib exports $s, which no installed header declares"; failed=1
    fi
  done
  echo "$(basename "$lib"): $(echo "$symbols" | wc -w) symbols checked"
done
# The check can fail: the test build of the core does carry the syscall seam.
# (nm's output taken whole first: `nm | grep -q` under pipefail fails when grep's early exit
# kills nm with SIGPIPE.)
testing_symbols=$(nm -D --defined-only "$testing")
if ! grep -q glr_internal_pipe_set_syscalls <<<"$testing_symbols"; then
  echo "FAIL: $testing lacks the test seam the tests need"; failed=1
fi
[ $failed = 0 ] && echo "exports: 1 passed, 0 failed" || { echo "exports: 0 passed, 1 failed"; exit 1; }
