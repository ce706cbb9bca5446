#!/usr/bin/env bash
# What a complete build (ffmpeg-patches/build.sh LINE, its default) is for: glreader's filters in
# an ffmpeg that does everything a distribution's does. Writes a PNG sequence, mpegts to
# a UDP receiver on 127.0.0.1, H.265, VP9 with Opus sound, and runs drawtext in the same
# graph as glreader; each output is probed back with the build's own ffprobe.
# Usage: full_ffmpeg_test.sh PATH/TO/ffmpeg
set -euo pipefail
ffmpeg=$1
ffprobe=$(dirname "$ffmpeg")/ffprobe
work=$(mktemp -d)
receiver=""
trap '[ -z "$receiver" ] || kill "$receiver" 2>/dev/null; rm -rf "$work"' EXIT
cd "$work"

fail() { echo "FAIL: $*"; exit 1; }
run() { "$ffmpeg" -hide_banner -nostdin -y -loglevel error "$@" || fail "ffmpeg $*"; }
# The codec of a file's first stream of a kind (v, a), and its number of packets (mpegts
# lists a stream again under its program: the first line is the stream's).
probe() { "$ffprobe" -v error -select_streams "$2:0" "${@:3}" -of csv=p=0 "$1" | head -n 1; }
codec() { probe "$1" "$2" -show_entries stream=codec_name; }
packets() { probe "$1" "$2" -count_packets -show_entries stream=nb_read_packets; }
expect() { # WHAT GOT WANTED
  [ "$2" = "$3" ] || fail "$1: got '$2', want '$3'"
  echo "ok: $1 = $2"
}

scene="glreader=s=160x90:r=25:d=1"

run -f lavfi -i "$scene" frame%03d.png
expect "PNG files" "$(ls frame*.png | wc -l)" 25
expect "PNG codec" "$(codec frame001.png v)" png

# A receiver on loopback that keeps what arrives until the sender has been quiet for 2 s.
# It binds a port of the kernel's choice and names it through a FIFO once bound: the
# sender starts then, not after a guessed delay.
mkfifo bound
python3 - received.ts bound <<'PY' &
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", 0))
with open(sys.argv[2], "w") as bound:
    print(s.getsockname()[1], file=bound)
s.settimeout(60)
with open(sys.argv[1], "wb") as out:
    try:
        while True:
            out.write(s.recv(65536))
            s.settimeout(2)
    except socket.timeout:
        pass
PY
receiver=$!
exec 3<>bound # opened read-write: never blocks, whether or not the receiver started
read -r -t 60 port <&3 || fail "the UDP receiver did not bind within 60 s"
exec 3<&-
run -f lavfi -i "$scene" -c:v libx264 -f mpegts "udp://127.0.0.1:$port?pkt_size=1316"
wait "$receiver"; receiver=""
expect "mpegts over UDP, codec" "$(codec received.ts v)" h264
expect "mpegts over UDP, frames" "$(packets received.ts v)" 25

run -f lavfi -i "$scene:format=yuv420p" -c:v libx265 -x265-params log-level=error out.mp4
expect "H.265 codec" "$(codec out.mp4 v)" hevc
expect "H.265 frames" "$(packets out.mp4 v)" 25

run -f lavfi -i "$scene:format=yuv420p" -f lavfi -i "sine=frequency=440:duration=1" -c:v libvpx-vp9 -c:a libopus out.webm
expect "VP9 codec" "$(codec out.webm v)" vp9
expect "Opus codec" "$(codec out.webm a)" opus

# drawtext after glreader in one graph: the text changes the pixels.
run -f lavfi -i "$scene" -frames:v 3 -f framemd5 plain.md5
run -f lavfi -i "$scene,drawtext=text=glreader:fontsize=40:fontcolor=white:x=10:y=10" -frames:v 3 -f framemd5 text.md5
[ "$(grep -v '^#' plain.md5 | wc -l)" = 3 ] || fail "framemd5 of the plain scene: $(cat plain.md5)"
if diff -q <(grep -v '^#' plain.md5) <(grep -v '^#' text.md5) >/dev/null; then
  fail "drawtext left the frames unchanged"
fi
echo "ok: drawtext draws on glreader's frames"
echo "every full-build check passed"
