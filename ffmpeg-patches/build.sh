#!/usr/bin/env bash
# Builds an ffmpeg with glreader's lavfi filters (the glreader source, glshader) from the
# exact FFmpeg release a line names (its hooks, plus the filters from plugin/), and prints the ffmpeg binary's absolute path as the
# last line on stdout (ffprobe lies beside it).
#
#   ffmpeg-patches/build.sh LINE [--lean | --bundle | --asan] [--configure-only | --fetch-only] [--source DIR|TARBALL]
#
# By default, a complete ffmpeg: configured as a distribution does, every built-in
# component (AAC, MP3, MPEG-TS, Matroska, PNG, the network protocols...) plus the external
# libraries Debian packages (x264, x265, libvpx, libdav1d, libaom, libopus, libvorbis,
# libmp3lame, libass, freetype, fontconfig, ..., installed through scripts/setup.sh), so
# the result is a drop-in ffmpeg and ffprobe that runs every example of the docs.
# --lean: only the filters and what the per-line filter tests use, with Vulkan (but 8.1's:
# see Vulkan below) and CUDA (quick to build; what scripts/test.sh builds for each release
# line).
# --bundle: every built-in component but no external library except libx264, zlib,
# NVIDIA's codec headers (CUDA and NVENC, whose driver libraries it loads only when used)
# and Vulkan's headers (hwcontext_vulkan loads libvulkan.so.1 only when used),
# as shared libraries installed with their headers and pkg-config files (under the
# build's install/): complete enough for glreader's test suites and samples, small
# enough to carry to another machine (scripts/gpu-bundle.sh).
# --asan: the lean build compiled with AddressSanitizer (FFmpeg's gcc-asan toolchain, the
# filters included), linked with a glreader built under AddressSanitizer+UBSan (in its own
# prefix): the filters' tests in the sanitizer stage of scripts/test.sh run it.
# --configure-only: unpacks, puts glreader in and runs FFmpeg's configure for that flavour
# in a scratch folder, checks that it enables both filters, and removes it (a build kept in
# the cache is left alone): what scripts/test.sh runs for the complete build of every line
# it does not compile. Prints "configured" last.
# --fetch-only: installs the Debian packages that flavour's build needs and fetches the
# release's source into the cache (once), and the Vulkan and NVIDIA headers it wants where
# the system's are too old (see Vulkan below), building nothing; prints the source's path. What
# scripts/test.sh's setup runs, so that its stages build offline.
#
# LINE is a folder of ffmpeg-patches/ (5.1, 9.0). The source is the Debian source package
# of that release (downloaded through a private apt configuration), or the tree or
# tarball named with --source, which must be that same release. glreader from this
# checkout is installed into a private prefix and found through its glreader.pc; ffmpeg
# links it there (rpath), so nothing is installed system-wide.
#
# Everything lives under build-ffmpeg/ (or $GLREADER_FFMPEG_CACHE, which scripts/test.sh
# keeps outside the checkout so that builds outlive a clone). A build is kept per release
# + hooks + plugin/ + these scripts + the glreader headers the filters include, so a second
# run only refreshes glreader's install; a new build of a line and flavour replaces the older ones.
# Progress goes to stderr; full logs stay in the build folder.
set -euo pipefail
. "$(dirname "$0")/common.sh"

usage() { die "usage: $0 LINE [--lean | --bundle | --asan] [--configure-only | --fetch-only] [--source DIR|TARBALL]   (lines: $(lines))"; }
[ $# -ge 1 ] || usage
line=$1; shift
source=""
flavour=full
configure_only=false fetch_only=false
while [ $# -gt 0 ]; do
  case "$1" in
    --lean) flavour=lean; shift ;;
    --full) flavour=full; shift ;; # the default, named
    --bundle) flavour=bundle; shift ;;
    --asan) flavour=asan; shift ;;
    --configure-only) configure_only=true; shift ;;
    --fetch-only) fetch_only=true; shift ;;
    --source) [ $# -ge 2 ] || usage; source=$(realpath "$2"); shift 2 ;;
    *) usage ;;
  esac
done
read_release "$line"
[ -z "$source" ] || check_source_release "$source"

# The external libraries of a full build: FFmpeg's name for it, then Debian's package.
full_libraries=(
  libx264:libx264-dev libx265:libx265-dev libvpx:libvpx-dev libdav1d:libdav1d-dev libaom:libaom-dev
  libopus:libopus-dev libvorbis:libvorbis-dev libmp3lame:libmp3lame-dev libtheora:libtheora-dev
  libspeex:libspeex-dev libwebp:libwebp-dev libsoxr:libsoxr-dev libzimg:libzimg-dev
  libass:libass-dev libfreetype:libfreetype-dev libfontconfig:libfontconfig-dev
  libfribidi:libfribidi-dev libharfbuzz:libharfbuzz-dev libxml2:libxml2-dev gnutls:libgnutls28-dev
)
# nasm: FFmpeg's x86 assembly; libx264-dev: the libx264 encoder of the lean build; a
# font for drawtext in a full one.
packages=(nasm libx264-dev xz-utils)
[ $flavour = full ] && packages+=("${full_libraries[@]#*:}" fonts-dejavu-core)
[ $flavour = bundle ] && packages+=(zlib1g-dev)
"$root/scripts/setup.sh" "${packages[@]}" >&2
if $fetch_only; then
  $configure_only && usage
  [ -n "$source" ] || source=$(fetch_release_tarball)
  if [ -f "$source" ]; then
    vulkan_options --from-tarball "$source" >/dev/null
    ffnvcodec_pkgconfig --from-tarball "$source" >/dev/null
  else
    vulkan_options "$source/configure" >/dev/null
    ffnvcodec_pkgconfig "$source/configure" >/dev/null
  fi
  echo "$source"
  exit 0
fi

# The filters compile against the glreader headers they include, directly or through one
# another: a change there (a struct that grew) needs a new build, not a cached binary that
# reads the old layout; one in a header they do not include (glreader-av's) needs none.
plugin_headers() {
  local -A found=()
  local -a todo=("$root"/plugin/*)
  local file header
  while [ ${#todo[@]} -gt 0 ]; do
    file=${todo[0]} todo=("${todo[@]:1}")
    for header in $(sed -nE 's@^#include [<"](glreader/[a-z_/]+\.h)[>"].*@\1@p' "$file"); do
      [ -z "${found[$header]:-}" ] || continue
      found[$header]=1
      todo+=("$root/glreader/include/$header")
    done
  done
  printf "$root/glreader/include/%s\n" "${!found[@]}" | sort
}
mapfile -t included < <(plugin_headers)
[ ${#included[@]} -gt 5 ] || die "found only ${#included[@]} glreader headers the filters include"
key=$(cat "$patches_dir/$line/RELEASE" "$hooks" "$root"/plugin/* "$patches_dir/build.sh" "$patches_dir/common.sh" \
          "${included[@]}" | sha256sum | cut -c1-12)
work=$cache/$line-$flavour-$key
# glreader's install: its own for the sanitized build, whose library must be instrumented.
# Its build folder belongs to this checkout (CMake ties one to its source); the install is
# the one every cached ffmpeg links: this checkout's library, once this has run (so one
# checkout at a time uses a cache: scripts/test.sh holds a lock on it).
checkout=$(printf %s "$root" | sha256sum | cut -c1-8)
prefix=$cache/glreader glreader_build=$cache/glreader-build-$checkout glreader_options=(-DCMAKE_BUILD_TYPE=Release)
if [ $flavour = asan ]; then
  prefix=$cache/glreader-asan glreader_build=$cache/glreader-asan-build-$checkout
  glreader_options=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DGLREADER_SANITIZE=address,undefined)
fi
# A bundle build is installed (shared libraries, headers, pkg-config); the others run
# from their build folder.
ffmpeg_bin=$work/build/ffmpeg
[ $flavour = bundle ] && ffmpeg_bin=$work/install/bin/ffmpeg

mkdir -p "$cache"
# The checkout's own build (scripts/demo.sh's and scripts/test.sh's build/) when it is a
# plain one with the library folder this install uses: only its libraries are brought up
# to date and installed, instead of a third build of glreader.
checkout_build=$root/build
if [ $flavour != asan ] && [ -f "$checkout_build/CMakeCache.txt" ] &&
   grep -qx "CMAKE_HOME_DIRECTORY:INTERNAL=$root" "$checkout_build/CMakeCache.txt" &&
   grep -qx 'GLREADER_SANITIZE:STRING=' "$checkout_build/CMakeCache.txt" &&
   grep -qx 'CMAKE_INSTALL_LIBDIR:PATH=lib' "$checkout_build/CMakeCache.txt"; then
  say "installing glreader from $checkout_build (the checkout's build) into $prefix"
  { cmake --build "$checkout_build" --target glreader glreader-av &&
    cmake --install "$checkout_build" --prefix "$prefix" --component Unspecified; } >"$glreader_build.log" 2>&1 ||
    { tail -n 30 "$glreader_build.log" >&2; die "building glreader failed (log: $glreader_build.log)"; }
else
  say "building glreader from $root and installing it into $prefix"
  cmake -S "$root" -B "$glreader_build" -G Ninja "${glreader_options[@]}" \
    -DCMAKE_INSTALL_PREFIX="$prefix" -DCMAKE_INSTALL_LIBDIR=lib \
    -DGLREADER_BUILD_TESTS=OFF -DGLREADER_BUILD_SAMPLES=OFF >"$glreader_build.log" 2>&1 &&
    cmake --build "$glreader_build" >>"$glreader_build.log" 2>&1 &&
    cmake --install "$glreader_build" >>"$glreader_build.log" 2>&1 ||
    { tail -n 30 "$glreader_build.log" >&2; die "building glreader failed (log: $glreader_build.log)"; }
fi

if $configure_only; then
  work=$(mktemp -d "$cache/configure-$line-$flavour-XXXXXX")
  trap 'rm -rf "$work"' EXIT
elif [ -x "$ffmpeg_bin" ]; then
  say "FFmpeg $version with glreader ($line hooks, $flavour) is already built ($work)"
  echo "$ffmpeg_bin"
  exit 0
else
  rm -rf "$cache/$line-$flavour"-*  # builds of older hooks or plugin/
fi
say "unpacking FFmpeg $version and putting glreader in (the $line hooks, plugin/)"
unpack_tree "$work/src" "$source"
apply_glreader "$work/src"

if [ $flavour = lean ] || [ $flavour = asan ]; then
  # The filters and what their per-line tests and the benchmark use (pictures and sounds
  # for the source's channels among them, WAV for its Sound pass output; testsrc, whose
  # frame count the source's d is held to). The docs' examples need the complete build.
  components=(
    --disable-everything --disable-autodetect
    --enable-libglreader
    --enable-filter=glreader,glshader,scale,format,null,reverse,split,trim,setpts,fps,anull,aformat,atrim,aresample,testsrc,hwupload,hwdownload
    --enable-indev=lavfi
    --enable-protocol=file,pipe
    --enable-encoder=rawvideo,ffv1,wrapped_avframe,pcm_s16le
    --enable-decoder=rawvideo,ffv1,h264,wrapped_avframe,png,ppm,pcm_s16le,pcm_f32le
    --enable-parser=h264,png
    --enable-muxer=matroska,nut,mp4,null,rawvideo,wav
    --enable-demuxer=matroska,nut,mov,rawvideo,image2,wav
  )
  if pkg-config --exists x264; then
    components+=(--enable-gpl --enable-libx264 --enable-encoder=libx264)
  else
    say "no libx264 development files: building without the libx264 encoder"
  fi
  [ $flavour = asan ] && components+=(--toolchain=gcc-asan)
elif [ $flavour = bundle ]; then
  # --enable-rpath: the installed programs find the installed libraries.
  # nvenc: h264_nvenc, hevc_nvenc, for the suites' encoder tests on a lent GPU machine
  # (libnvidia-encode is opened at run time). Vulkan and CUDA (below): the hardware frames
  # there (the Vulkan loader, libvulkan.so.1, is opened at run time; the bundle carries
  # Debian's).
  components=(--disable-autodetect --enable-gpl --enable-libx264 --enable-zlib --enable-libglreader
              --enable-nvenc --enable-shared --disable-static --enable-rpath)
else
  # Everything FFmpeg builds by itself (system libraries it finds on its own included),
  # plus the external libraries above.
  # Each external library this release's configure knows (libharfbuzz came with FFmpeg 6.0).
  components=(--enable-gpl --enable-version3 --enable-libglreader)
  known=$("$work/src/configure" --help)
  for library in "${full_libraries[@]%%:*}"; do
    if grep -q -- "--enable-$library\b" <<<"$known"; then
      components+=("--enable-$library")
    else
      say "FFmpeg $version's configure has no --enable-$library: built without it"
    fi
  done
fi

# Vulkan and CUDA in every flavour, for the source's hardware frames (the lean builds' tests
# bring Vulkan's back with hwdownload to compare, and check CUDA's refusals), with the
# system's headers or, for the releases that want newer ones, Debian 13's (vulkan_options,
# ffnvcodec_pkgconfig); but no Vulkan in the lean build of one line, so that the filters'
# refusals in an FFmpeg without it are tested too (tests/filter_test.cpp).
lean_without_vulkan=8.1
if [ $flavour = lean ] && [ "$line" = $lean_without_vulkan ]; then
  say "the lean build of $line is built without Vulkan: its tests check the refusals of an FFmpeg without it"
else
  mapfile -t vulkan < <(vulkan_options "$work/src/configure")
  [ ${#vulkan[@]} -gt 0 ] || die "no Vulkan headers for FFmpeg $version (see above)"
  components+=("${vulkan[@]}")
fi
pkg_config_path=$prefix/lib/pkgconfig
ffnvcodec=$(ffnvcodec_pkgconfig "$work/src/configure") || die "no NVIDIA codec headers for FFmpeg $version (see above)"
[ -z "$ffnvcodec" ] || pkg_config_path=$ffnvcodec:$pkg_config_path
components+=(--enable-ffnvcodec)

# FFmpeg's compiles through ccache, paths hashed relative to the build's folder: a build of
# a new key (an edited filter) compiles only what changed.
# shellcheck source=../scripts/ccache-env.sh
. "$root/scripts/ccache-env.sh"
use_ccache "$work" && components+=(--cc="ccache gcc")

mkdir -p "$work/build"
say "configuring (log: $work/build/configure.log)"
(cd "$work/build" &&
  PKG_CONFIG_PATH="$pkg_config_path${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}" \
  "$work/src/configure" --prefix="$work/install" \
    --disable-doc --disable-debug --disable-programs --enable-ffmpeg --enable-ffprobe \
    --extra-ldflags="-Wl,-rpath,$prefix/lib" "${components[@]}" >configure.log 2>&1) ||
  { tail -n 20 "$work/build/ffbuild/config.log" >&2; die "configure failed (log: $work/build/ffbuild/config.log)"; }
for filter in GLREADER GLSHADER; do
  grep -q "^#define CONFIG_${filter}_FILTER 1" "$work/build/config_components.h" ||
    die "configure did not enable the ${filter,,} filter (see $work/build/ffbuild/config.log)"
done

if $configure_only; then
  say "configured FFmpeg $version ($flavour) with glreader's filters"
  echo configured
  exit 0
fi

targets=(ffmpeg ffprobe)
[ $flavour = bundle ] && targets=(install)
# make's steps (FFmpeg's quiet rules print each as "CC<tab>file"), counted beforehand by a
# dry run: a progress line every 100 says how far along it is.
steps=$(cd "$work/build" && make -n "${targets[@]}" 2>/dev/null | grep -c '^printf ' || true)
say "compiling about $steps steps with $(nproc) jobs (log: $work/build/make.log)"
(cd "$work/build" && make -j"$(nproc)" "${targets[@]}" 2>&1 | tee make.log |
  awk -v total="$steps" -v start="$(date +%s)" '/^[A-Z]+\t/ && ++n % 100 == 0 {
    printf "ffmpeg-patches:   ... %d of about %d build steps, %d min so far\n", n, total, (systime() - start) / 60 > "/dev/stderr" }') ||
  { tail -n 30 "$work/build/make.log" >&2; die "compiling FFmpeg failed (log: $work/build/make.log)"; }
for filter in glreader glshader; do
  "$ffmpeg_bin" -hide_banner -h filter=$filter >/dev/null || die "the built ffmpeg has no $filter filter"
done
say "built FFmpeg $version ($flavour) with glreader"
echo "$ffmpeg_bin"
