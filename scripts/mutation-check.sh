#!/usr/bin/env bash
# Does the suite catch real bugs? Applies, one at a time, small deliberate bugs to a
# scratch copy of this checkout (its tracked files as they are now), rebuilds, runs the
# suites that should notice, and reports which were caught. Every one must be: a mutation
# the suite misses is a hole in it. Run on demand (it is not part of CI): about 3 minutes
# on 2 cores after a first build of about 8 (the scratch copy's).
#
#   scripts/mutation-check.sh [--scratch DIR] [--only NAME]
#
# DIR (default: $TMPDIR/glreader-mutation) keeps the copy and its build between runs, so a
# second run rebuilds only what changed. The suites run unmutated first and must pass (a
# failure already there would count as caught). Each mutation is an exact text replacement
# in one file; one whose text no longer exists, or that no longer builds, fails the check
# (update it with the code). The report is a Markdown table on stdout; each run's log
# stays in DIR/logs.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
scratch=${TMPDIR:-/tmp}/glreader-mutation only=""
while [ $# -gt 0 ]; do
  case "$1" in
    --scratch) [ $# -ge 2 ] || { echo "usage: $0 [--scratch DIR] [--only NAME]" >&2; exit 2; }; scratch=$2; shift 2 ;;
    --only) [ $# -ge 2 ] || { echo "usage: $0 [--scratch DIR] [--only NAME]" >&2; exit 2; }; only=$2; shift 2 ;;
    *) echo "usage: $0 [--scratch DIR] [--only NAME]" >&2; exit 2 ;;
  esac
done
"$root/scripts/setup.sh" >&2
mkdir -p "$scratch/src" "$scratch/logs"
# The tracked files as they are in the working tree (uncommitted changes included).
(cd "$root" && git ls-files -z | tar --null -T - -cf -) | tar -xf - -C "$scratch/src"
cmake -S "$scratch/src" -B "$scratch/build" -G Ninja >"$scratch/logs/configure.log" 2>&1
echo "mutation-check: building the unmutated copy in $scratch/build" >&2
cmake --build "$scratch/build" >"$scratch/logs/build.log" 2>&1 ||
  { tail -n 30 "$scratch/logs/build.log" >&2; exit 1; }

exec python3 - "$scratch" "$only" <<'PY'
import pathlib, subprocess, sys

scratch, only = pathlib.Path(sys.argv[1]), sys.argv[2]
src, build, logs = scratch / "src", scratch / "build", scratch / "logs"

# name, what the bug does, file, exact text, its replacement, the ctest -R pattern that
# must fail.
MUTATIONS = [
    ("encoder-drops-a-frame", "the encoder thread skips the frame of pts 3 (releasing it)",
     "glreader/src/av/encoder.cpp",
     "            item = queue_.front();\n            queue_.pop_front();\n",
     "            item = queue_.front();\n            queue_.pop_front();\n"
     "            if (item.pts == 3 && !queue_.empty()) {\n"
     "                glr_frame_release(&item.frame);\n"
     "                item = queue_.front();\n"
     "                queue_.pop_front();\n"
     "            }\n",
     r"encoder_lossless"),
    ("pipe-swaps-two-frames", "the pipe writer sends the second queued block before the first, once",
     "glreader/src/pipe/fd_writer.cpp",
     "        if (!queue_.empty()) {\n            block &b = queue_.front();",
     "        if (!queue_.empty()) {\n"
     "            static bool swapped = false;\n"
     "            if (queue_.size() >= 2 && !swapped) {\n"
     "                swapped = true;\n"
     "                std::swap(queue_[0], queue_[1]);\n"
     "            }\n"
     "            block &b = queue_.front();",
     r"^pipe_test\.|^pipe_blocks\."),
    ("display-users-off-by-one", "the EGL display is terminated while one context still uses it",
     "glreader/src/context/headless_context.cpp",
     "--it->second > 0)", "--it->second > 1)",
     r"context_display_test"),
    ("lease-released-twice", "a lent lease is released once when lent (too early) and again when FFmpeg frees it",
     "glreader/include/glreader/libav.h",
     "        lease->frame = *f;\n",
     "        lease->frame = *f;\n        {\n            struct glr_frame early = *f;\n"
     "            glr_frame_release(&early);\n        }\n",
     r"encoder_lossless|encoder_test\.encoder_that_holds_frames"),
    ("pixel-store-not-restored", "captures and uploads leave the pack and unpack parameters at GL's defaults, not the host's values",
     "glreader/src/context/state_scope.cpp",
     "                    f.gl.PixelStorei(table::names[i], s.i[i]);", "                    (void)s;",
     r"^ring_test\.|^ring_errors\.|host_state"),
    ("scissor-left-on", "a capture's blits honour the host's scissor box (the scope saves the scissor test but leaves it on)",
     "glreader/src/context/state_scope.cpp",
     "    capability_of_index0<GL_SCISSOR_TEST, 4, 1>(),",
     "    handler{[](const functions &, saved &) {}, nothing, nothing},",
     r"host_state|glfw_examples"),
    ("host-error-lost", "a GL error the host left pending is taken and never raised again",
     "glreader/src/context/state_scope.cpp",
     "            pending_[static_cast<size_t>(count_++)] = error;",
     "            pending_[static_cast<size_t>(count_)] = error;",
     r"host_state"),
    ("chroma-siting-swapped", "left-sited chroma is filtered as centre-sited and the other way round",
     "glreader/src/ring/convert_filler.cpp",
     "#if SITING_LEFT\n", "#if !SITING_LEFT\n",
     r"yuv_test"),
    ("stall-times-out-again", "glreader-export gives up on an output that stalls for 10 s",
     "glreader/src/av/export_job.cpp",
     "        rp.capture_timeout_ns = UINT64_MAX; // an output that stalls is waited for\n", "",
     r"stalled_output\.an_export"),
    ("finalize-skipped-on-cancel", "a cancel during a long frame leaves the encoder unfinished (the job returns without it)",
     "glreader/src/av/export_job.cpp",
     "    int rc = enc ? glr_encoder_finish_incomplete(enc) : 0;\n",
     "    int rc = 0;\n    enc = nullptr;\n",
     r"stop_signals\.a_frame_that_renders_for_long|export_job\.long_frame"),
    ("exclusive-create-dropped", "a file GLR_OUTPUT_NO_OVERWRITE keeps is created without O_EXCL (a check, then a create)",
     "glreader/src/av/output_io.cpp",
     "(no_overwrite_ ? O_EXCL : O_TRUNC)", "O_TRUNC",
     r"encoder_outputs\."),
    ("part-renamed-when-stopped-short", "an encode stopped short renames its .part file to the output's name",
     "glreader/src/av/encoder.cpp",
     "    close_output(complete);\n", "    close_output(true);\n",
     r"encoder_outputs\."),
    ("leased-slot-reused", "capture writes into a slot that is still leased",
     "glreader/src/ring/slot_ledger.cpp",
     "        if (slots_[i].st == state::free)\n",
     "        if (slots_[i].st == state::free || slots_[i].st == state::leased)\n",
     r"^ring_test\.|ring_delivery"),
    ("spliced-lease-freed-before-read", "a vmsplice'd frame's lease returns while up to 1 MiB of it is unread",
     "glreader/src/pipe/fd_writer.cpp",
     "in_pipe_.front().end_offset <= consumed)",
     "in_pipe_.front().end_offset <= consumed + (1u << 20))",
     r"^pipe_test\.|^pipe_blocks\."),
    ("container-codec-ignored", "without -c, every container gets H.264, as before ffmpeg's rule (PNG into .png files)",
     "glreader/src/av/codec_choice.cpp",
     "    return av_guess_codec(muxer, nullptr, output, nullptr, type);\n",
     "    return type == AVMEDIA_TYPE_VIDEO ? AV_CODEC_ID_H264 : av_guess_codec(muxer, nullptr, output, nullptr, type);\n",
     r"ffmpeg_conventions\.the_container"),
    ("yuv-picture-matrix-ignored", "a Y'CbCr picture in a channel is read as BT.709 whatever its matrix",
     "glreader/src/scene/yuv_to_rgb.cpp",
     "    matrix_constants(color.matrix, kr, kb);\n", "    matrix_constants(GLR_MATRIX_BT709, kr, kb);\n",
     r"yuv_channel_test"),
    ("ffmpeg-level-left-alone", "routing FFmpeg's log leaves FFmpeg's own level as it was",
     "glreader/src/av/ffmpeg_log.cpp",
     "    av_log_set_level(av_level_of(glr_log_get_level(log)));\n", "",
     r"ffmpeg_log\.|ffmpeg_conventions\.v_says"),
    ("json-buffer-ids-shifted", "a Shadertoy JSON's input reading Buffer A reads Buffer B (ids off by one)",
     "glreader/src/shadertoy/shadertoy_json.cpp",
     "            if ((id.is_string() && id == buffer_ids[i]) || (id.is_number_integer() && id == buffer_numbers[i]))\n"
     "                return i;\n",
     "            if ((id.is_string() && id == buffer_ids[i]) || (id.is_number_integer() && id == buffer_numbers[i]))\n"
     "                return (i + 1) % 5;\n",
     r"shadertoy_json\.|a_shadertoy_json"),
    ("alpha-not-kept", "--alpha encodes a format with alpha, but the Image pass's alpha stays 1",
     "glreader/src/scene/shader_scene.cpp",
     "    text.alpha = alpha_;\n", "    text.alpha = GLR_ALPHA_OPAQUE;\n",
     r"export_alpha\."),
    ("yuva-alpha-plane-unwritten", "the GPU conversion to yuva formats leaves the alpha plane as it was",
     "glreader/src/ring/convert_filler.cpp",
     "#if PLANES == 4\n", "#if PLANES == 5\n",
     r"yuv_test\."),
    ("rgb-rows-not-flipped", "RGB frames come out bottom row first (GLR_FLIP_STRIDE ignored)",
     "glreader/src/ring/ring.cpp",
     "        if (!format_.yuv && params_.flip == GLR_FLIP_STRIDE) {",
     "        if (false) {",
     r"ring_delivery|^ring_test\."),
]

def run(cmd, log):
    with open(log, "w") as out:
        return subprocess.run(cmd, stdout=out, stderr=subprocess.STDOUT).returncode

chosen = [m for m in MUTATIONS if not only or m[0] == only]
if not chosen:
    print(f"mutation-check: no mutation named {only} (have: {', '.join(m[0] for m in MUTATIONS)})", file=sys.stderr)
    sys.exit(2)
# The suites must pass unmutated: a failure that is already there would count as caught.
for pattern in dict.fromkeys(m[5] for m in chosen):
    log = logs / ("baseline-" + "".join(c if c.isalnum() else "_" for c in pattern) + ".log")
    if run(["ctest", "--test-dir", str(build), "-R", pattern, "-j2", "--timeout", "600", "--output-on-failure"], log) != 0:
        print(f"mutation-check: the unmutated suites fail ({pattern}; log: {log}): fix that first", file=sys.stderr)
        sys.exit(1)

rows, missed = [], 0
for name, what, rel, old, new, tests in chosen:
    path = src / rel
    original = path.read_text()
    if original.count(old) != 1:
        print(f"mutation-check: {name}: its text is not exactly once in {rel}: update the mutation", file=sys.stderr)
        sys.exit(1)
    print(f"mutation-check: {name}: {what}", file=sys.stderr)
    try:
        path.write_text(original.replace(old, new))
        if run(["cmake", "--build", str(build)], logs / f"{name}.build.log") != 0:
            verdict = "**DOES NOT BUILD**"
        else:
            failed = run(["ctest", "--test-dir", str(build), "-R", tests, "-j2", "--timeout", "600",
                          "--output-on-failure"], logs / f"{name}.tests.log") != 0
            verdict = "caught" if failed else "**MISSED**"
    finally:
        path.write_text(original)
    missed += verdict != "caught"
    print(f"mutation-check:   {verdict}", file=sys.stderr)
    pattern = tests.replace("|", "\\|")  # a table cell's own separator
    rows.append(f"| {name} | {what} | `{rel}` | `{pattern}` | {verdict} |")

run(["cmake", "--build", str(build)], logs / "restore.build.log")
print("| mutation | the bug | file | tests run | result |")
print("|---|---|---|---|---|")
print("\n".join(rows))
print(f"\n{len(rows) - missed} of {len(rows)} mutations caught")
sys.exit(1 if missed else 0)
PY
