# Shared by build.sh and refresh.sh (sourced, not run): where things live, and how the
# exact FFmpeg release a series names is fetched, verified and unpacked into a git tree.

patches_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$patches_dir/.." && pwd)
cache=${GLREADER_FFMPEG_CACHE:-$root/build-ffmpeg}

say() { echo "ffmpeg-patches: $*" >&2; }
die() { say "error: $*"; exit 1; }

lines() { (cd "$patches_dir" && for d in */RELEASE; do printf '%s ' "${d%/RELEASE}"; done); }

# Reads LINE's RELEASE file: version (upstream), suites (Debian, for deb-src) and
# sha256 (of ffmpeg_VERSION.orig.tar.xz).
read_release() { # LINE
  local line=$1
  [ -f "$patches_dir/$line/RELEASE" ] || die "no patch series for FFmpeg '$line' (have: $(lines))"
  # shellcheck disable=SC1090
  . "$patches_dir/$line/RELEASE"
  series=("$patches_dir/$line"/*.patch)
  [ -f "${series[0]}" ] || die "$patches_dir/$line holds no *.patch"
}

# Downloads ffmpeg_$version.orig.tar.xz with apt-get source through a private apt
# configuration under $cache/apt (the machine's own sources are left alone), and checks
# its sha256. Prints the tarball's path.
fetch_release_tarball() {
  local tarball=$cache/sources/ffmpeg_$version.orig.tar.xz
  if [ -f "$tarball" ] && echo "$sha256  $tarball" | sha256sum --quiet -c - 2>/dev/null; then
    echo "$tarball"; return
  fi
  local apt=$cache/apt/$line
  mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$cache/sources"
  local suite
  : >"$apt/sources.list"
  for suite in $suites; do
    local mirror=http://deb.debian.org/debian
    [[ $suite == *-security ]] && mirror=http://deb.debian.org/debian-security
    echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror $suite main" >>"$apt/sources.list"
  done
  local apt_options=(-o "Dir::Etc::SourceList=$apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
                     -o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt/cache" -o APT::Sandbox::User=root)
  say "fetching the list of Debian source packages ($suites)"
  apt-get "${apt_options[@]}" update -qq >&2 || die "apt-get update failed for deb-src $suites (network?)"
  # The Debian revision changes often; the upstream release is what the series names.
  local debian_version
  debian_version=$(apt-cache "${apt_options[@]}" showsrc ffmpeg 2>/dev/null |
    sed -n 's/^Version: //p' | { grep -E "^([0-9]+:)?$(printf %s "$version" | sed 's/\./\\./g')-" || true; } |
    head -n1)
  [ -n "$debian_version" ] || die "Debian ($suites) no longer has FFmpeg $version's source; pass it yourself:
  $0 $line --source ffmpeg-$version.tar.xz   (or a directory holding that release)"
  say "downloading FFmpeg $version (Debian source $debian_version)"
  (cd "$cache/sources" && apt-get "${apt_options[@]}" source --download-only --tar-only -q \
    "ffmpeg=$debian_version" >"$apt/source.log" 2>&1) ||
    { cat "$apt/source.log" >&2; die "apt-get source ffmpeg=$debian_version failed"; }
  echo "$sha256  $tarball" | sha256sum --quiet -c - ||
    die "$tarball does not have the sha256 that ffmpeg-patches/$line/RELEASE names"
  echo "$tarball"
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
  [ "$found" = "$version" ] || die "$source is FFmpeg $found, but the $line series is for FFmpeg $version exactly"
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

# Applies LINE's series to the git tree DIR; git am refuses any hunk that does not fit.
apply_series() { # DIR
  git -C "$1" -c user.name=glreader -c user.email=glreader@localhost am -q "${series[@]}" >&2 ||
    die "the $line series does not apply to FFmpeg $version in $1 (see git am's message above)"
}
