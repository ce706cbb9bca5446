# Shared by build.sh, make-patch.sh and check.sh (sourced, not run): where things live, how
# the exact FFmpeg release a line names is fetched, verified and unpacked into a git tree,
# and how glreader goes into that tree: the line's hooks (configure, libavfilter's Makefile
# and allfilters.c, doc/filters.texi), then the filters' sources and docs from plugin/,
# which exist only there.

patches_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$patches_dir/.." && pwd)
cache=${GLREADER_FFMPEG_CACHE:-$root/build-ffmpeg}

say() { echo "ffmpeg-patches: $*" >&2; }
die() { say "error: $*"; exit 1; }
# shellcheck source=../scripts/debian-source.sh
. "$root/scripts/debian-source.sh"

lines() { (cd "$patches_dir" && for d in */RELEASE; do printf '%s ' "${d%/RELEASE}"; done); }

# What glreader adds to an FFmpeg tree, each from plugin/ under its own name: the whole of
# plugin/, and nothing else (check.sh holds both sides to this list).
glreader_files=(
  libavfilter/vsrc_glreader.c libavfilter/vf_glshader.c
  libavfilter/glreader_common.c libavfilter/glreader_common.h libavfilter/glreader_compat.h
  doc/vsrc_glreader.texi doc/vf_glshader.texi
)
# The FFmpeg files the hooks change.
hooked_files=(configure doc/filters.texi libavfilter/Makefile libavfilter/allfilters.c)

# Reads LINE's RELEASE file: version (upstream), suites (Debian, for deb-src) and
# sha256 (of ffmpeg_VERSION.orig.tar.xz); hooks is the line's hooks.patch.
read_release() { # LINE
  line=$1
  [ -f "$patches_dir/$line/RELEASE" ] || die "no hooks for FFmpeg '$line' (have: $(lines))"
  # shellcheck disable=SC1090
  . "$patches_dir/$line/RELEASE"
  hooks=$patches_dir/$line/hooks.patch
  [ -f "$hooks" ] || die "$patches_dir/$line holds no hooks.patch"
}

# Downloads ffmpeg_$version.orig.tar.xz with apt-get source (scripts/debian-source.sh)
# into $cache and checks its sha256. Prints the tarball's path.
fetch_release_tarball() {
  fetch_debian_source ffmpeg "$version" "$sha256" "$suites" "$cache" "$line" "pass it yourself:
  $0 $line --source ffmpeg-$version.tar.xz   (or a directory holding that release)"
}

# Headers for the releases that want newer ones than Debian 12's, from Debian 13's sources
# (fetched once as the releases are, checked by their sha256; headers only: FFmpeg opens
# the drivers' libraries at run time): Vulkan's 1.4.309 (7.1 and later want 1.3.277; Debian
# 12 has 1.3.239), from its Vulkan loader's source, which carries Khronos's Vulkan-Headers;
# NVIDIA's codec headers (ffnvcodec) 12.1.14.0 (7.1 and later want 12.1.14.0, or 11.1.5.3
# of the 11.1 series; Debian 12 has 11.1.5.2).
vulkan_headers_version=1.4.309.0
vulkan_headers_sha256=6e37284e5c8ef5f06cef273cc207f0b31cb3b63c1ea2875639e843b01da4e6d7
ffnvcodec_version=12.1.14.0
ffnvcodec_sha256=0ca1a0c85b149646fa6ce4d600584507fdccf5a23d58e668d8701e89cee0c3fb

# The version of pkg-config's PACKAGE that FFmpeg's configure (CONFIGURE, the file or, with
# --from-tarball, the release's tarball) asks for first.
wanted_version() { # PACKAGE CONFIGURE | PACKAGE --from-tarball TARBALL
  local package=$1 wanted
  if [ "$2" = --from-tarball ]; then
    wanted=$(tar -xOf "$3" --wildcards '*/configure' | grep -o "$package >= [0-9.]*" | head -n 1 | cut -d' ' -f3)
  else
    wanted=$(grep -o "$package >= [0-9.]*" "$2" | head -n 1 | cut -d' ' -f3)
  fi
  [ -n "$wanted" ] || die "found no $package version in FFmpeg $version's configure"
  echo "$wanted"
}

# Prints the folder of Debian 13's source PACKAGE VERSION (its upstream tree), unpacked into
# $cache once, after checking that it is as new as WANTED; an ffnvcodec.pc.in there becomes
# the ffnvcodec.pc of that folder. Its callers run it in $(...), where a die ends only the
# subshell: they check its status.
debian13_headers() { # PACKAGE VERSION SHA256 WANTED
  local package=$1 upstream=$2 sha256=$3 wanted=$4 tree=$cache/headers/$1-$2 tarball
  dpkg --compare-versions "$upstream" ge "$wanted" ||
    die "FFmpeg $version wants $package $wanted, newer than the $upstream this script fetches"
  if [ ! -f "$tree/.unpacked" ]; then
    tarball=$(fetch_debian_source "$package" "$upstream" "$sha256" trixie "$cache" "$package") || exit 1
    rm -rf "$tree" && mkdir -p "$tree"
    tar -C "$tree" --strip-components=1 -xf "$tarball" || die "cannot unpack $tarball"
    if [ -f "$tree/ffnvcodec.pc.in" ]; then
      sed "s#@@PREFIX@@#$tree#" "$tree/ffnvcodec.pc.in" >"$tree/ffnvcodec.pc" || die "cannot write $tree/ffnvcodec.pc"
    fi
    touch "$tree/.unpacked"
  fi
  echo "$tree"
}

# Prints FFmpeg's configure options for Vulkan, one a line: the system's headers where they
# are as new as the release wants (CONFIGURE as wanted_version takes it), else Debian 13's.
vulkan_options() { # CONFIGURE | --from-tarball TARBALL
  local wanted tree
  wanted=$(wanted_version vulkan "$@") || return 1
  if pkg-config --atleast-version="$wanted" vulkan; then
    printf '%s\n' --enable-vulkan
    return
  fi
  tree=$(debian13_headers vulkan-loader "$vulkan_headers_version" "$vulkan_headers_sha256" "$wanted") || return 1
  printf '%s\n' --enable-vulkan "--extra-cflags=-I$tree/vulkan-headers/include"
}

# Prints the folder of the ffnvcodec.pc FFmpeg's configure must find (CONFIGURE as
# wanted_version takes it) for CUDA and NVENC, or nothing where the system's is as new as
# the release wants. Fails (after saying why) where neither can be had.
ffnvcodec_pkgconfig() { # CONFIGURE | --from-tarball TARBALL
  local wanted tree
  wanted=$(wanted_version ffnvcodec "$@") || return 1
  pkg-config --atleast-version="$wanted" ffnvcodec && return
  tree=$(debian13_headers nv-codec-headers "$ffnvcodec_version" "$ffnvcodec_sha256" "$wanted") || return 1
  echo "$tree"
}

# Fails unless SOURCE (a tree or a tarball) is FFmpeg $version, by its RELEASE file.
check_source_release() { # SOURCE
  local source=$1 found
  if [ -d "$source" ]; then
    found=$(cat "$source/RELEASE" 2>/dev/null) || die "$source is not an FFmpeg source tree (no RELEASE file)"
  elif [ -f "$source" ]; then
    found=$(tar -xOf "$source" --wildcards '*/RELEASE' 2>/dev/null | head -n1) || true
    [ -n "$found" ] || die "$source is not an FFmpeg release tarball (no RELEASE file)"
  else
    die "source '$source' is neither a directory nor a tarball"
  fi
  [ "$found" = "$version" ] || die "$source is FFmpeg $found, but the $line hooks are for FFmpeg $version exactly"
}

# Unpacks FFmpeg $version from SOURCE (a tarball or a directory; the Debian download when
# empty) into DEST as a git repository with one commit, checking its RELEASE file.
unpack_tree() { # DEST [SOURCE]
  local dest=$1 source=${2:-}
  [ -n "$source" ] || source=$(fetch_release_tarball)
  check_source_release "$source"
  rm -rf "$dest"; mkdir -p "$dest"
  if [ -d "$source" ]; then
    tar -C "$source" --exclude=.git -cf - . | tar -C "$dest" -xf -
  else
    tar -C "$dest" --strip-components=1 -xf "$source" || die "cannot unpack $source"
  fi
  git -C "$dest" init -q
  git -C "$dest" add -A
  git -C "$dest" -c user.name=glreader -c user.email=glreader@localhost commit -q -m "FFmpeg $version"
}

# Puts glreader into the FFmpeg tree DIR: applies the line's hooks (git apply takes no hunk
# whose context does not match) and adds glreader_files from plugin/.
apply_glreader() { # DIR
  local dir=$1 file
  git -C "$dir" apply "$hooks" >&2 ||
    die "the $line hooks ($hooks) do not apply to FFmpeg $version in $dir (see git apply's message above)"
  for file in "${glreader_files[@]}"; do
    cp "$root/plugin/$(basename "$file")" "$dir/$file" || die "plugin/ has no $(basename "$file")"
  done
}

# Commits what apply_glreader did in DIR, with the message the whole patch carries.
commit_glreader() { # DIR
  git -C "$1" add -A
  git -C "$1" -c user.name="glreader developers" -c user.email=glreader@localhost commit -q -F - <<'MESSAGE'
avfilter: add the glreader source and the glshader filter

glreader renders a Shadertoy shader or project (buffer passes; channels fed by pictures,
videos and sound, decoded with this FFmpeg's own libraries) headless with OpenGL (EGL);
glshader runs a Shadertoy shader over one to four video inputs, each uploaded into its
iChannel through persistently mapped pixel-unpack buffers. Both read their frames back
asynchronously through glreader's ring of persistently mapped pixel buffers and lend
them downstream without a copy. Built with --enable-libglreader against glreader's
pkg-config file.
MESSAGE
}
