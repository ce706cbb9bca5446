#!/usr/bin/env bash
# Runs the farm's pytest file (python/tests/farm) in a network namespace of its own whose
# only interface is loopback: Ray binds every interface it finds, and a test must never
# listen on, or connect to, the machine's own address. Root makes the namespace directly;
# another user gets one inside a user namespace.
# Usage: tests/python_farm_test.sh PYTHON TESTS_DIR   (ctest runs it, PYTHONPATH set)
set -euo pipefail
[ $# = 2 ] || { echo "usage: $0 PYTHON TESTS_DIR" >&2; exit 2; }
command -v unshare >/dev/null && command -v ip >/dev/null ||
  { echo "python_farm_test: needs unshare (util-linux) and ip (iproute2)" >&2; exit 1; }
args=(--net)
[ "$(id -u)" = 0 ] || args+=(--map-root-user)
exec unshare "${args[@]}" sh -c 'ip link set lo up && exec "$0" -m pytest -q -p no:cacheprovider "$1"' "$1" "$2"
