#!/usr/bin/env bash
# Installs the built glreader into a scratch prefix, then builds and runs a consumer
# against it twice: with CMake's find_package and with pkg-config, as FFmpeg's configure
# will. Usage: run.sh BUILD_DIR SCRATCH_DIR
set -euo pipefail
build=$1
scratch=$2
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$scratch"
prefix=$scratch/prefix

cmake --install "$build" --prefix "$prefix" >/dev/null
# The installed .pc names the prefix chosen at configure time; point pkg-config here.
pcdir=$(dirname "$(find "$prefix" -name glreader.pc)")
sed -i "s|^prefix=.*|prefix=$prefix|" "$pcdir/glreader.pc"
libdir=$(dirname "$(find "$prefix" -name 'libglreader.so' | head -n1)")

echo "== find_package(glreader)"
cmake -S "$here/consumer" -B "$scratch/cmake" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$scratch/cmake" >/dev/null
LD_LIBRARY_PATH=$libdir "$scratch/cmake/consumer"
LD_LIBRARY_PATH=$libdir "$scratch/cmake/consumer_cpp"

echo "== pkg-config --cflags --libs glreader"
flags=$(PKG_CONFIG_PATH=$pcdir pkg-config --cflags --libs glreader)
echo "flags: $flags"
# shellcheck disable=SC2086
cc -std=c99 -Wall -Wextra -Werror "$here/consumer/consumer.c" $flags -o "$scratch/consumer_pc"
LD_LIBRARY_PATH=$libdir "$scratch/consumer_pc"
echo "package: 2 passed, 0 failed"
