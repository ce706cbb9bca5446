#!/usr/bin/env bash
# Builds the GPU validation bundle: a folder that runs glreader's test suites and
# benchmarks on another machine (a lent GPU machine: bare, no network, at most 64 MiB
# carried) that has only a glibc at least as new as Debian 12's and an NVIDIA driver.
#
#   scripts/gpu-bundle.sh [OUT]        (default: gpu-bundle/ in the checkout, ignored by git)
#   scripts/gpu-bundle.sh --fetch      only fetch what it carries from the network (the wheels,
#                                      the .deb packages) into caches outside the clone; setup
#                                      runs it, so that building the bundle later is offline
#
# OUT/gpu-check.sh     the run itself (scripts/gpu-check.sh; its header says how)
# OUT/bin/             glreader-export, -pipe, -capture, -bench; every test program of the
#                      build's tests/suites.txt that needs no display (tests/CMakeLists.txt
#                      lists them); a patched ffmpeg and ffprobe (FFmpeg 5.1, the line
#                      Debian 12's libraries are, built by ffmpeg-patches/build.sh --bundle)
# OUT/tests/           SUITES, the suites carried (NAME KIND [CASES] lines of suites.txt), and
#                      each one's list of tests (scripts/suite-tests.sh), which gpu-check.sh
#                      compares with the tests that passed
# OUT/lib/             every library those need but glibc's: glreader's, FFmpeg's
#                      (shared, every built-in component, libx264), libstdc++ and the like
# OUT/loaders/         the GL/EGL loader packages (glvnd) and Vulkan's, fetched with apt-get download
#                      here and unpacked there by gpu-check.sh
# OUT/src/doc/         FFmpeg's filters.texi and the filters' sections it includes,
#                      whose examples a filter test runs
# OUT/python/          the benchmark's Python rows and the package's tests: glreader's package
#                      (built here against OUT/lib), moderngl, glcontext and TurboPipe 2.1
#                      (cp311 wheels fetched by scripts/python-env.sh at setup),
#                      samples/bench/python_cell.py, wheels/ with pytest's wheels and numpy
#                      (without its tests, as .tar.xz), unpacked there (numpy takes 58 MB
#                      unpacked), and debs/ with Debian 12's
#                      CPython 3.11 (the GPU machine's own Python is another version)
# OUT/repo/            what the package's tests read from a checkout: python/tests (but the
#                      farm's: Ray does not fit), samples/shaders, CMakeLists.txt
#
# Every program and library finds its libraries through $ORIGIN, so the folder runs from
# anywhere, with no LD_LIBRARY_PATH and no FFmpeg installed (tests/gpu_bundle_test.sh
# proves it with the system's FFmpeg hidden). It stays under 60 MiB.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build-gpu
max_mib=60

say() { echo "gpu-bundle: $*" >&2; }
die() { say "error: $*"; exit 1; }

# The Debian packages it carries, fetched once (apt-get download) into a cache outside the
# clone, made again when the list changes: the GL/EGL loaders (glvnd), Vulkan's loader (the
# bundle's FFmpeg opens libvulkan.so.1 for Vulkan frames) and CPython 3.11.
debs=${XDG_CACHE_HOME:-$HOME/.cache}/glreader-bundle-debs
loader_debs="libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2 libvulkan1"
python_debs="python3.11-minimal libpython3.11-minimal libpython3.11-stdlib"
fetch_debs() {
  [ "$(cat "$debs/packages" 2>/dev/null)" = "$loader_debs; $python_debs" ] && return 0
  say "fetching the GL/EGL loader and CPython 3.11 packages into $debs"
  rm -rf "$debs" && mkdir -p "$debs/loaders" "$debs/python"
  # shellcheck disable=SC2086 # one word per package
  (cd "$debs/loaders" && apt-get -o APT::Sandbox::User=root download -q $loader_debs >/dev/null) &&
    (cd "$debs/python" && apt-get -o APT::Sandbox::User=root download -q $python_debs >/dev/null) ||
    die "apt-get download of $loader_debs $python_debs failed (run apt-get update?)"
  echo "$loader_debs; $python_debs" >"$debs/packages"
}
if [ "${1:-}" = --fetch ]; then
  "$root/scripts/python-env.sh" --wheels >/dev/null # the wheels the bundle carries
  fetch_debs
  exit 0
fi
out=$(realpath -m "${1:-$root/gpu-bundle}")
fetch_debs

"$root/scripts/setup.sh" patchelf
ffmpeg=$("$root/ffmpeg-patches/build.sh" 5.1 --bundle | tail -n 1)
ffmpeg_prefix=$(dirname "$(dirname "$ffmpeg")")

# Release, against the bundle's FFmpeg only (its pkg-config files); no viewer (it needs a
# display). The cache goes so that a rebuilt FFmpeg in a new folder is found again.
say "building glreader's programs and test suites against $ffmpeg_prefix (in $build)"
rm -f "$build/CMakeCache.txt"
python=$("$root/scripts/python-env.sh") # 3.11, the interpreter the bundle carries
PKG_CONFIG_PATH="$ffmpeg_prefix/lib/pkgconfig" cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_DISABLE_FIND_PACKAGE_glfw3=ON \
  -DGLREADER_DISPLAY_TESTS=OFF \
  -DGLREADER_PATCHED_FFMPEG="5.1=$ffmpeg" -DGLREADER_PYTHON=ON -DPython_EXECUTABLE="$python" \
  -DGLREADER_BENCH_PYTHON_PATH= >/dev/null # compare's Python rows: the bundle's package, on PYTHONPATH
programs=(glreader-export glreader-pipe glreader-capture glreader-bench)
# Every suite of the build that needs no display (the viewer is not built) and fits.
mapfile -t carried < <(awk '$2 ~ /^(gtest|capi|cases|pytest)$/' "$build/tests/suites.txt")
suites=() # the programs among them
for line in "${carried[@]}"; do
  read -r name kind _ <<<"$line"
  [ "$kind" = pytest ] || suites+=("$name")
done
cmake --build "$build" --target "${programs[@]}" "${suites[@]}" _glreader

say "assembling $out"
rm -rf "$out"
mkdir -p "$out/bin" "$out/lib" "$out/loaders" "$out/src/doc"
for program in "${programs[@]}"; do cp "$build/samples/$program" "$out/bin/"; done
for suite in "${suites[@]}"; do cp "$build/tests/$suite" "$out/bin/"; done
# The suites and the tests each holds, as this build lists them: gpu-check.sh fails unless
# exactly these pass there. Python's runs in the bundle's own interpreter.
mkdir -p "$out/tests"
for line in "${carried[@]}"; do
  read -r name kind arg <<<"$line"
  [ "$kind" = pytest ] && arg=""
  echo "$name $kind${arg:+ $arg}" >>"$out/tests/SUITES"
  "$root/scripts/suite-tests.sh" "$build" "$name" >"$out/tests/$name.list"
done
mkdir -p "$out/repo/python/tests" "$out/repo/samples"
cp "$root"/python/tests/*.py "$out/repo/python/tests/"
cp -r "$root/samples/shaders" "$out/repo/samples/"
cp "$root/CMakeLists.txt" "$out/repo/" # the version the package's test compares with
# pytest's own configuration, so that a bundle inside a checkout does not take the checkout's.
printf '[pytest]\n' >"$out/repo/pytest.ini"
cp "$ffmpeg_prefix/bin/ffmpeg" "$ffmpeg_prefix/bin/ffprobe" "$out/bin/"
for texi in filters.texi $(cd "$root/plugin" && ls -- *.texi); do # and the sections it includes
  cp "$(dirname "$ffmpeg_prefix")/src/doc/$texi" "$out/src/doc/"
done
cp "$root/scripts/gpu-check.sh" "$out/"
mkdir -p "$out/python/debs" "$out/python/wheels"
cp -r "$build/python/glreader" "$out/python/"
cp "$root/samples/bench/python_cell.py" "$out/python/"
wheels=$("$root/scripts/python-env.sh" --wheels)
"$python" -m pip install -q --disable-pip-version-check --no-deps --no-index --find-links "$wheels" --no-compile \
  --target "$out/python" moderngl==5.13.0 glcontext==3.1.0 turbopipe==2.1.0 >&2 ||
  die "moderngl, glcontext or turbopipe is not in $wheels (scripts/python-env.sh fetches them)"
rm -rf "$out"/python/*.dist-info "$out"/python/bin
for wheel in pytest pluggy iniconfig packaging pygments; do
  cp "$wheels/$wheel"-*.whl "$out/python/wheels/" || die "no $wheel wheel in $wheels (scripts/python-env.sh fetches it)"
done
# numpy without its own tests, as xz (9 MB, where its wheel takes 17): the bundle must fit.
# Python's tarfile unpacks it there; its lzma module needs liblzma, which dpkg-deb needs too.
rm -rf "$build/numpy" && mkdir "$build/numpy"
python3 -m zipfile -e "$wheels"/numpy-*.whl "$build/numpy" || die "no numpy wheel in $wheels (scripts/python-env.sh fetches it)"
find "$build/numpy" -type d -name tests -prune -exec rm -rf {} +
tar -C "$build/numpy" -cf - . | xz -6 -T0 >"$out/python/wheels/numpy.tar.xz"

# Every library the binaries load, found as this machine finds it, but glibc's (the
# target has its own) and the GL loaders (carried as packages).
is_system_library() { # SONAME
  [[ $1 =~ ^(ld-linux-x86-64|libc|libm|libmvec|libpthread|libdl|librt|libresolv|libutil|libanl)\.so ]] ||
    [[ $1 =~ ^lib(EGL|GL|GLX|OpenGL|GLdispatch|GLESv2)\.so ]]
}
declare -A copied=()
python_module=$(ls "$out"/python/glreader/_glreader*.so)
for binary in "$out"/bin/* "$python_module"; do
  while read -r soname _ path _; do
    [ -n "$path" ] && [ "$path" != "not" ] || die "$binary: $soname is not found here"
    is_system_library "$soname" && continue
    [ -n "${copied[$soname]:-}" ] && continue
    cp -L "$path" "$out/lib/$soname"
    copied[$soname]=1
  done < <(ldd "$binary" | awk '$2 == "=>" { print $1, $2, $3 }')
done
chmod u+w "$out"/lib/* "$out"/bin/*
strip --strip-unneeded "$out"/bin/* "$out"/lib/* 2>/dev/null || true
for binary in "$out"/bin/*; do patchelf --set-rpath '$ORIGIN/../lib' "$binary"; done
chmod u+w "$python_module"
strip --strip-unneeded "$python_module"
patchelf --set-rpath '$ORIGIN/../../lib' "$python_module"
for library in "$out"/lib/*; do patchelf --set-rpath '$ORIGIN' "$library"; done

cp "$debs"/loaders/*.deb "$out/loaders/"
cp "$debs"/python/*.deb "$out/python/debs/"

# Nothing may resolve outside the bundle but glibc: checked with the bundle's own paths.
for binary in "$out"/bin/* "$out"/lib/* "$python_module"; do
  while read -r soname path; do
    is_system_library "$soname" && continue
    path=$(realpath "$path")
    [[ $path == "$out"/lib/* ]] || die "$binary loads $soname from $path, outside the bundle"
  done < <(LD_LIBRARY_PATH='' ldd "$binary" | awk '$2 == "=>" { print $1, $3 }')
done

glibc=$(for binary in "$out"/bin/* "$out"/lib/*; do objdump -T "$binary" | grep -o 'GLIBC_[0-9.]*'; done |
        sort -uV | tail -n 1)
{
  echo "glreader $(git -C "$root" describe --always --dirty 2>/dev/null || echo unknown)"
  echo "built $(date -u +%Y-%m-%dT%H:%MZ) on $(. /etc/os-release && echo "$PRETTY_NAME"), $(ldd --version | head -n 1)"
  echo "FFmpeg $("$out/bin/ffmpeg" -version | head -n 1 | cut -d' ' -f3) (ffmpeg-patches/5.1, --bundle)"
  echo "needs glibc ${glibc#GLIBC_} or newer"
} >"$out/BUILD"

mib=$(( $(du -sb "$out" | cut -f1) / 1048576 ))
[ "$mib" -lt "$max_mib" ] || die "the bundle is $mib MiB, over the $max_mib MiB it must stay under"
say "done: $out ($mib MiB). Run it with: $out/gpu-check.sh RESULTS_DIR"
echo "$out"
