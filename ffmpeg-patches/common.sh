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

# Vulkan's headers for the releases that want newer ones than Debian 12's 1.3.239 (7.1 and
# later want 1.3.277): Debian 13's, from its Vulkan loader's source, which carries Khronos's
# Vulkan-Headers. Headers only: FFmpeg opens the system's libvulkan.so.1 at run time.
vulkan_headers_version=1.4.309.0
vulkan_headers_sha256=6e37284e5c8ef5f06cef273cc207f0b31cb3b63c1ea2875639e843b01da4e6d7

# Prints FFmpeg's configure options for Vulkan, one a line, given the header version its configure
# (CONFIGURE, the file or, with --from-tarball, the release's tarball) wants: the system's
# headers where they are new enough, else Debian 13's, downloaded once into $cache.
vulkan_options() { # CONFIGURE | --from-tarball TARBALL
  local wanted
  if [ "$1" = --from-tarball ]; then
    wanted=$(tar -xOf "$2" --wildcards '*/configure' | grep -o 'vulkan >= [0-9.]*' | head -n 1 | cut -d' ' -f3)
  else
    wanted=$(grep -o 'vulkan >= [0-9.]*' "$1" | head -n 1 | cut -d' ' -f3)
  fi
  [ -n "$wanted" ] || die "found no Vulkan header version in FFmpeg $version's configure"
  if pkg-config --atleast-version="$wanted" vulkan; then
    printf '%s\n' --enable-vulkan
    return
  fi
  dpkg --compare-versions "$vulkan_headers_version" ge "$wanted" ||
    die "FFmpeg $version wants Vulkan headers $wanted, newer than the $vulkan_headers_version this script fetches"
  local include=$cache/vulkan-headers-$vulkan_headers_version/include tarball
  if [ ! -f "$include/vulkan/vulkan_core.h" ]; then
    tarball=$(fetch_debian_source vulkan-loader "$vulkan_headers_version" "$vulkan_headers_sha256" trixie "$cache" vulkan)
    rm -rf "$include" && mkdir -p "$include"
    tar -C "$include" -xf "$tarball" --strip-components=4 "vulkan-loader-$vulkan_headers_version/./vulkan-headers/include" ||
      die "cannot unpack Vulkan's headers from $tarball"
  fi
  printf '%s\n' --enable-vulkan "--extra-cflags=-I$include"
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
