#!/usr/bin/env bash
# Installs the built glreader into a scratch prefix with `cmake --install --prefix`, checks
# that no installed header names a private glr_priv_ symbol, runs
# the installed glreader-export from there (no LD_LIBRARY_PATH: it finds its libraries
# itself), then builds and runs a consumer against the installed files, as they are, twice:
# with CMake's find_package and with pkg-config, as FFmpeg's configure will; and checks
# that a host project building glreader with add_subdirectory installs none of it unless
# it sets GLREADER_INSTALL.
# Usage: run.sh BUILD_DIR SCRATCH_DIR with-programs|without-programs
#   (whether the build installs the programs: with them, a missing one fails the test)
set -euo pipefail
[ $# = 3 ] && [[ $3 == with-programs || $3 == without-programs ]] ||
  { echo "usage: $0 BUILD_DIR SCRATCH_DIR with-programs|without-programs" >&2; exit 2; }
build=$1
scratch=$2
programs=$3
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$scratch"
prefix=$scratch/prefix

cmake --install "$build" --prefix "$prefix" >/dev/null
# The installed headers name no private symbol: what they declare and call (the FFmpeg
# glue compiled into other projects among them) is glreader's public C ABI.
if grep -rn "glr_priv_" "$prefix/include"; then
  echo "package: an installed header declares or calls a private glr_priv_ symbol (above)"; exit 1
fi
pcdir=$(dirname "$(find "$prefix" -name glreader.pc)")
libdir=$(dirname "$(find "$prefix" -name 'libglreader.so' | head -n1)")

if [ "$programs" = with-programs ]; then
  [ -x "$prefix/bin/glreader-export" ] || { echo "package: no glreader-export was installed in $prefix/bin"; exit 1; }
  echo "== the installed glreader-export, from another directory"
  (cd "$scratch" && env -u LD_LIBRARY_PATH "$prefix/bin/glreader-export" -s 32x16 -n 3 -c ffv1 -o installed.mkv)
  got=$(ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=codec_name,width,height,nb_read_frames \
    -of csv=p=0 "$scratch/installed.mkv" 2>&1 || true)
  [ "$got" = "ffv1,32,16,3" ] || { echo "package: the installed glreader-export did not write 3 32x16 FFV1 frames: $got"; exit 1; }
fi

echo "== find_package(glreader)"
cmake -S "$here/consumer" -B "$scratch/cmake" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$scratch/cmake" >/dev/null
LD_LIBRARY_PATH=$libdir "$scratch/cmake/consumer"
LD_LIBRARY_PATH=$libdir "$scratch/cmake/consumer_cpp"

echo "== pkg-config --cflags --libs glreader"
flags=$(PKG_CONFIG_PATH=$pcdir pkg-config --cflags --libs glreader)
case "$flags" in *"$prefix"*) ;; *) echo "package: glreader.pc does not point into $prefix: $flags"; exit 1 ;; esac
echo "flags: $flags"
av_flags=$(PKG_CONFIG_PATH=$pcdir pkg-config --cflags --libs glreader-av)
case "$av_flags" in *"$prefix"*) ;; *) echo "package: glreader-av.pc does not point into $prefix: $av_flags"; exit 1 ;; esac
# shellcheck disable=SC2086
cc -std=c99 -Wall -Wextra -Werror "$here/consumer/consumer.c" $flags -o "$scratch/consumer_pc"
LD_LIBRARY_PATH=$libdir "$scratch/consumer_pc"
echo "== add_subdirectory(glreader) in a host project: nothing installed unless asked"
# Configured only: the install rules are written at configure time.
for install in default ON; do
  option=()
  [ $install = ON ] && option=(-DGLREADER_INSTALL=ON)
  cmake -S "$here/subproject" -B "$scratch/sub-$install" -G Ninja -DGLREADER_SOURCE="$here/../.." "${option[@]}" >/dev/null
  rules=$(grep -rl "file(INSTALL" "$scratch/sub-$install" --include=cmake_install.cmake || true)
  if [ $install = default ] && [ -n "$rules" ]; then echo "package: a host's install would install glreader: $rules"; exit 1; fi
  if [ $install = ON ] && [ -z "$rules" ]; then echo "package: GLREADER_INSTALL=ON installs nothing"; exit 1; fi
done
echo "package: 3 passed, 0 failed"
