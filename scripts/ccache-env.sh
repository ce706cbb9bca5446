# Sourced by scripts/test.sh and ffmpeg-patches/build.sh: compiled objects kept outside the
# checkout (ccache: a hit only for the same preprocessed source, flags and compiler), in one
# cache for glreader's builds and FFmpeg's.

# Exports ccache's settings, paths under BASEDIR hashed relative to it and the working
# directory not hashed, so that a clone elsewhere (or an FFmpeg build folder of another
# name) hits too; its debug information then names the first one's folder. Fails where
# ccache is not installed (scripts/setup.sh installs it).
use_ccache() { # BASEDIR
  command -v ccache >/dev/null || return 1
  export CCACHE_DIR=${CCACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/glreader-ccache} CCACHE_BASEDIR=$1 \
    CCACHE_NOHASHDIR=1 CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-6G}
}
