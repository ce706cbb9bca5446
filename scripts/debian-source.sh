# Sourced, not run: fetches an upstream tarball of a Debian source package with apt-get
# source through a private apt configuration (the machine's own sources are left alone),
# for FFmpeg's releases (ffmpeg-patches/common.sh) and GLFW's examples (tests). Needs
# say and die from the caller.

# Prints the path of PACKAGE_UPSTREAM.orig.tar.* under DIR/sources, downloading it from the
# Debian SUITES (space-separated, e.g. "bookworm" or "sid trixie-security") when DIR does
# not hold it yet, and checks its sha256. apt's lists live under DIR/apt/NAME.
fetch_debian_source() { # PACKAGE UPSTREAM SHA256 SUITES DIR NAME [WHAT TO DO INSTEAD]
  local package=$1 upstream=$2 sha256=$3 suites=$4 dir=$5 name=$6 instead=${7:-} tarball
  for tarball in "$dir/sources/${package}_$upstream".orig.tar.*; do
    if [ -f "$tarball" ] && echo "$sha256  $tarball" | sha256sum --quiet -c - 2>/dev/null; then
      echo "$tarball"; return
    fi
  done
  local apt=$dir/apt/$name suite
  mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$dir/sources"
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
  # The Debian revision changes often; the upstream release is what the caller names.
  local debian_version
  debian_version=$(apt-cache "${apt_options[@]}" showsrc "$package" 2>/dev/null |
    sed -n 's/^Version: //p' | { grep -E "^([0-9]+:)?$(printf %s "$upstream" | sed 's/\./\\./g')-" || true; } |
    head -n1)
  [ -n "$debian_version" ] || die "Debian ($suites) no longer has $package $upstream's source${instead:+; $instead}"
  say "downloading $package $upstream (Debian source $debian_version)"
  (cd "$dir/sources" && apt-get "${apt_options[@]}" source --download-only --tar-only -q \
    "$package=$debian_version" >"$apt/source.log" 2>&1) ||
    { cat "$apt/source.log" >&2; die "apt-get source $package=$debian_version failed"; }
  for tarball in "$dir/sources/${package}_$upstream".orig.tar.*; do
    echo "$sha256  $tarball" | sha256sum --quiet -c - ||
      die "$tarball does not have the sha256 $sha256"
    echo "$tarball"; return
  done
  die "apt-get source $package=$debian_version left no ${package}_$upstream.orig.tar.* in $dir/sources"
}
