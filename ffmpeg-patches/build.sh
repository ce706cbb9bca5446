#!/usr/bin/env bash
# Builds an ffmpeg with glreader's lavfi source filter from the exact FFmpeg release a
# series names, and prints the ffmpeg binary's absolute path as the last line on stdout.
#
#   ffmpeg-patches/build.sh LINE [--source DIR|TARBALL]
#
# LINE is a folder of ffmpeg-patches/ (5.1, 9.0). The source is the Debian source package
# of that release (downloaded through a private apt configuration), or the tree or
# tarball named with --source, which must be that same release. glreader from this
# checkout is installed into a private prefix and found through its glreader.pc; ffmpeg
# links it there (rpath), so nothing is installed system-wide.
#
# Everything lives under build-ffmpeg/ (or $GLREADER_FFMPEG_CACHE). A build is kept per
# release + series + this script, so a second run only refreshes glreader's install.
# Progress goes to stderr; full logs stay in the build folder.
set -euo pipefail
. "$(dirname "$0")/common.sh"

usage() { die "usage: $0 LINE [--source DIR|TARBALL]   (lines: $(lines))"; }
[ $# -ge 1 ] || usage
line=$1; shift
source=""
case "${1:-}" in
  --source) [ $# -eq 2 ] || usage; source=$(realpath "$2") ;;
  "") ;;
  *) usage ;;
esac
read_release "$line"
[ -z "$source" ] || check_source_release "$source"

# nasm: FFmpeg's x86 assembly; libx264-dev: the libx264 encoder of the lean build.
"$root/scripts/setup.sh" nasm libx264-dev xz-utils >&2

# The filter compiles against glreader's public headers: a change there (a struct that
# grew) needs a new build, not a cached binary that reads the old layout.
key=$(cat "$patches_dir/$line/RELEASE" "${series[@]}" "$patches_dir/build.sh" "$patches_dir/common.sh" \
          "$root"/glreader/include/glreader/*.h | sha256sum | cut -c1-12)
work=$cache/$line-$key
prefix=$cache/glreader

mkdir -p "$cache"
say "installing glreader from $root into $prefix"
cmake -S "$root" -B "$cache/glreader-build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_INSTALL_PREFIX="$prefix" -DCMAKE_INSTALL_LIBDIR=lib \
  -DGLREADER_BUILD_TESTS=OFF -DGLREADER_BUILD_SAMPLES=OFF >"$cache/glreader-build.log" 2>&1 &&
  cmake --build "$cache/glreader-build" >>"$cache/glreader-build.log" 2>&1 &&
  cmake --install "$cache/glreader-build" >>"$cache/glreader-build.log" 2>&1 ||
  { tail -n 30 "$cache/glreader-build.log" >&2; die "building glreader failed (log: $cache/glreader-build.log)"; }

if [ -x "$work/build/ffmpeg" ]; then
  say "FFmpeg $version with the $line series is already built ($work)"
  echo "$work/build/ffmpeg"
  exit 0
fi

rm -rf "$cache/$line"-*  # builds of older series
say "unpacking FFmpeg $version and applying the $line series"
unpack_tree "$work/src" "$source"
apply_series "$work/src"

# Lean: the filter and what the tests, the README's examples and the benchmark use
# (pictures and sounds for the filter's channels among them).
components=(
  --enable-libglreader
  --enable-filter=glreader,scale,format,null,reverse,split,trim,setpts,fps,anull,aformat,atrim,aresample
  --enable-indev=lavfi
  --enable-protocol=file,pipe
  --enable-encoder=rawvideo,ffv1,wrapped_avframe
  --enable-decoder=rawvideo,ffv1,h264,wrapped_avframe,png,ppm,pcm_s16le,pcm_f32le
  --enable-parser=h264,png
  --enable-muxer=matroska,nut,mp4,null,rawvideo
  --enable-demuxer=matroska,nut,mov,rawvideo,image2,wav
)
if pkg-config --exists x264; then
  components+=(--enable-gpl --enable-libx264 --enable-encoder=libx264)
else
  say "no libx264 development files: building without the libx264 encoder"
fi

mkdir -p "$work/build"
say "configuring (log: $work/build/configure.log)"
(cd "$work/build" &&
  PKG_CONFIG_PATH="$prefix/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}" \
  "$work/src/configure" --prefix="$work/install" --disable-everything --disable-autodetect \
    --disable-doc --disable-debug --disable-programs --enable-ffmpeg --enable-ffprobe \
    --extra-ldflags="-Wl,-rpath,$prefix/lib" "${components[@]}" >configure.log 2>&1) ||
  { tail -n 20 "$work/build/ffbuild/config.log" >&2; die "configure failed (log: $work/build/ffbuild/config.log)"; }
grep -q "^#define CONFIG_GLREADER_FILTER 1" "$work/build/config_components.h" ||
  die "configure did not enable the glreader filter (see $work/build/ffbuild/config.log)"

say "compiling with $(nproc) jobs (log: $work/build/make.log)"
# One progress line on stderr every 200 steps of make.
(cd "$work/build" && make -j"$(nproc)" ffmpeg ffprobe 2>&1 | tee make.log |
  awk 'NR % 200 == 0 { print "ffmpeg-patches:   ... " NR " build steps" > "/dev/stderr" }') ||
  { tail -n 30 "$work/build/make.log" >&2; die "compiling FFmpeg failed (log: $work/build/make.log)"; }
"$work/build/ffmpeg" -hide_banner -h filter=glreader >/dev/null ||
  die "the built ffmpeg has no glreader filter"
say "built FFmpeg $version with glreader"
echo "$work/build/ffmpeg"
