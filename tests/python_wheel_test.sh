#!/usr/bin/env bash
# The wheel that carries FFmpeg (scripts/python-wheel.sh), where FFmpeg is not: installed
# into a fresh virtual environment of Debian's python3, then used in a private mount
# namespace where the system's FFmpeg libraries, ffmpeg and ffprobe are empty files (as
# tests/gpu_bundle_test.sh hides them). It proves that:
# - the wheel holds the extension, glreader's libraries and FFmpeg's, and no GL, EGL or
#   GPU driver library;
# - glreader.render and glreader.Recorder (moderngl's EGL context) encode there, with the
#   carried libx264, and the system's ffmpeg (outside) decodes every frame in order.
#
#   tests/python_wheel_test.sh WHEEL
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
fail() { echo "python_wheel_test: FAILED: $*" >&2; exit 1; }

if [ "${1:-}" = --inside ]; then # in the namespace: hide FFmpeg, show it is hidden, use the wheel
  venv=$2 work=$3
  while IFS= read -r -d '' file; do mount --bind /dev/null "$file"; done < <(
    find /usr/lib/x86_64-linux-gnu -maxdepth 1 -type f \
      \( -name 'libav*.so*' -o -name 'libsw*.so*' -o -name 'libpostproc.so*' -o -name 'libx264.so*' \) -print0
    for program in /usr/bin/ffmpeg /usr/bin/ffprobe; do [ -e "$program" ] && printf '%s\0' "$program"; done)
  if /usr/bin/ffmpeg -version >/dev/null 2>&1 || python3 -c 'import ctypes; ctypes.CDLL("libavcodec.so.59")' 2>/dev/null; then
    fail "the system's FFmpeg is still usable inside the namespace"
  fi
  cd "$work"
  exec env LD_LIBRARY_PATH= "$venv/bin/python" - <<'PY'
import glreader, moderngl, numpy

with open("counter.frag", "w") as f:
    f.write("void mainImage(out vec4 c, in vec2 p) { c = vec4(float(iFrame) * 40.0 / 255.0, 0.0, 0.0, 1.0); }\n")
stats = glreader.render("counter.frag", "render.mp4", size=(64, 32), frames=6, codec="libx264",
                        codec_options={"crf": 0}, progress=False)
assert stats["video_encoder"] == "libx264" and stats["frames_encoded"] == 6, stats
ctx = moderngl.create_standalone_context(backend="egl")
fbo = ctx.simple_framebuffer((64, 32), components=4)
with glreader.Recorder("recorder.mp4", (64, 32), codec="libx264", codec_options={"crf": 0}) as rec:
    for n in range(6):
        fbo.use()
        fbo.clear(n * 40 / 255, 0.0, 0.0, 1.0)
        rec.write(fbo)
print("python_wheel_test: rendered and recorded with the wheel's FFmpeg")
PY
fi

wheel=${1:?usage: $0 WHEEL}
[ -f "$wheel" ] || fail "no wheel $wheel"
contents=$(python3 -m zipfile -l "$wheel")
for wanted in _glreader libglreader libglreader-av libavcodec libavformat libx264; do
  grep -q "$wanted" <<<"$contents" || fail "the wheel carries no $wanted"
done
if grep -Ei 'lib(EGL|GL|GLX|OpenGL|GLdispatch|nvidia)[-.]' <<<"$contents"; then
  fail "the wheel carries a GL, EGL or driver library (above): those must come from the system"
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/glreader-wheel-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
/usr/bin/python3 -m venv "$work/venv"
"$work/venv/bin/pip" install -q --no-index --disable-pip-version-check "$wheel"
# moderngl and numpy for the recorder, from the wheels scripts/python-env.sh fetched at
# setup: the test needs no network.
"$work/venv/bin/pip" install -q --no-index --find-links "$("$root/scripts/python-env.sh" --wheels)" \
  --disable-pip-version-check moderngl==5.13.0 glcontext==3.1.0 numpy==2.4.6
unshare_args=(--mount --propagation private)
[ "$(id -u)" = 0 ] || unshare_args+=(--map-root-user)
unshare "${unshare_args[@]}" "$0" --inside "$work/venv" "$work" || fail "the wheel did not work without the system's FFmpeg"

for video in render recorder; do
  reds=$(ffmpeg -v error -i "$work/$video.mp4" -f rawvideo -pix_fmt rgb24 - | python3 -c '
import sys
data = sys.stdin.buffer.read()
print(" ".join(str(data[i]) for i in range(0, len(data), 64 * 32 * 3)))')
  echo "python_wheel_test: $video.mp4 frames, red: $reds" >&2
  [ "$(wc -w <<<"$reds")" = 6 ] || fail "$video.mp4 has not 6 frames: $reds"
  # Frame n is red 40 n in both (the render's shader, the recorder's clear): in order, none
  # lost, within the Y'CbCr round trip's rounding.
  python3 -c 'import sys; r = [int(v) for v in sys.argv[1:]]
sys.exit(0 if all(abs(a - 40 * n) <= 2 for n, a in enumerate(r)) else 1)' $reds ||
    fail "$video.mp4's frames are not red 0, 40, ... 200: $reds"
done
echo "python_wheel_test: passed" >&2
