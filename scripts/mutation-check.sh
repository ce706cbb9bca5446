#!/usr/bin/env bash
# Does the suite catch real bugs? Applies, one at a time, small deliberate bugs to glreader,
# rebuilds, runs the one test named for each, and reports whether that test failed. Every
# mutation must be caught by its own test: one that passes is a hole in the suite, and a
# mutation whose text is gone, that no longer builds, or whose test is not in the build
# fails the check (update it with the code). Each bites whatever the timing: no mutation
# depends on a thread being late.
#
#   scripts/mutation-check.sh [--scratch DIR] [--ffmpeg LINE=PATH] [--only NAME]
#       a scratch copy of this checkout's tracked files (uncommitted changes included) in
#       DIR (default $TMPDIR/glreader-mutation, kept between runs), configured as CI's build
#       is (scripts/configure.sh --python) and built there: about 8 minutes for the first
#       build, then a few seconds a mutation. Every mutation; those of the filters (plugin/)
#       only with --ffmpeg, a patched ffmpeg of that line (ffmpeg-patches/build.sh LINE
#       prints it) for the filters' tests.
#   scripts/mutation-check.sh --in-place BUILD [--only NAME]
#       CI's run (scripts/test.sh), of every mutation: mutates this checkout's files,
#       rebuilding BUILD (its build of them) after each, and restores every file before it
#       exits, on a signal too.
#
# First, unmutated, every test named runs once and must pass: a test that fails on its own
# (a flaky one) would count as catching its mutation.
#
# A filter's mutation edits the patched ffmpeg's copy of the file (its src/libavfilter/,
# beside the build/ its ffmpeg lies in), relinks that ffmpeg, and restores and relinks it
# after. Run no other test of that ffmpeg meanwhile.
#   scripts/mutation-check.sh --texts
#       checks, without building anything, that every mutation's text is in its file exactly
#       once (ctest's mutation_texts runs it: code that moved makes a stale mutation fail at
#       once, not in CI's window of the day).
#   scripts/mutation-check.sh --asan BUILD ASAN_FFMPEG
#       the sanitizers' mutations (a planted use-after-free in glreader-export's error path,
#       a planted leak in the source filter's uninit), in an AddressSanitizer build and the
#       AddressSanitizer ffmpeg (ffmpeg-patches/build.sh LINE --asan), whose copy of the
#       filter is mutated and restored and relinked; scripts/test.sh runs it after that
#       stage's tests.
#
# The report is a Markdown table on stdout; each mutation's build and test logs stay in
# the scratch folder's logs/ (--scratch) or in BUILD/mutation-logs.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
usage="usage: $0 [--scratch DIR] [--ffmpeg LINE=PATH] [--only NAME] | --in-place BUILD [--only NAME] | --asan BUILD ASAN_FFMPEG | --texts"
scratch=${TMPDIR:-/tmp}/glreader-mutation only="" mode=scratch build="" ffmpeg="" patched=""
while [ $# -gt 0 ]; do
  case "$1" in
    --scratch) [ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }; scratch=$2; shift 2 ;;
    --ffmpeg) [[ ${2:-} == *=/* ]] || { echo "$usage" >&2; exit 2; }; patched=$2; shift 2 ;;
    --only) [ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }; only=$2; shift 2 ;;
    --in-place) [ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }; mode=in-place build=$(realpath "$2"); shift 2 ;;
    --asan) [ $# -ge 3 ] || { echo "$usage" >&2; exit 2; }; mode=asan build=$(realpath "$2") ffmpeg=$(realpath "$3"); shift 3 ;;
    --texts) mode=texts; shift ;;
    *) echo "$usage" >&2; exit 2 ;;
  esac
done
if [ "$mode" = scratch ]; then
  "$root/scripts/setup.sh" >&2
  mkdir -p "$scratch/src" "$scratch/logs"
  # The tracked files as they are in the working tree (uncommitted changes included).
  (cd "$root" && git ls-files -z | tar --null -T - -cf -) | tar -xf - -C "$scratch/src"
  "$scratch/src/scripts/configure.sh" "$scratch/build" --python -DGLREADER_PATCHED_FFMPEG="$patched" \
    >"$scratch/logs/configure.log" 2>&1
  echo "mutation-check: building the unmutated copy in $scratch/build" >&2
  cmake --build "$scratch/build" >"$scratch/logs/build.log" 2>&1 ||
    { tail -n 30 "$scratch/logs/build.log" >&2; exit 1; }
  src=$scratch/src build=$scratch/build logs=$scratch/logs
elif [ "$mode" = texts ]; then
  src=$root logs=""
else
  src=$root logs=$build/mutation-logs
  mkdir -p "$logs"
fi

exec python3 - "$mode" "$src" "$build" "$logs" "$only" "$ffmpeg" <<'PY'
import json, os, pathlib, re, signal, subprocess, sys

mode, src, build, logs, only, ffmpeg = sys.argv[1:7]
src, build, logs = pathlib.Path(src), pathlib.Path(build), pathlib.Path(logs)
sys.path.insert(0, str(src / "tests"))
from ctest_logs import cmake_escape  # noqa: E402

def source_render_loop(condition, blocking):
    """The source's render loop from its condition to when it waits for the oldest frame:
    the two places its end waits for the frames in flight (one mutation edits both)."""
    return (f"    while (ret >= 0 && !shared->stop && {condition}) {{\n"
            "        GLReaderReady f;\n"
            "        if (rendered < s->total && can_capture(s, shared)) {\n"
            "            pthread_mutex_unlock(&shared->mutex);\n"
            "            if ((ret = render_frame(shared)) >= 0)\n"
            "                ret = capture(shared, rendered);\n"
            "            pthread_mutex_lock(&shared->mutex);\n"
            "            if (ret < 0)\n"
            "                break;\n"
            "            rendered++;\n"
            "            shared->in_flight++;\n"
            "        } else if (!shared->in_flight) {\n"
            "            /* Every slot is queued or lent: wait for activate or a release. */\n"
            "            pthread_cond_wait(&shared->cond, &shared->mutex);\n"
            "            continue;\n"
            "        }\n"
            "        /* Queue what has finished; wait for the oldest only when nothing can be drawn. */\n"
            "        while (1) {\n"
            f"            int blocking = {blocking};\n")


# name, the bug, file, exact text, its replacement, the one ctest test that must fail (a
# parameterised test by its name before ctest's "  # GetParam() = ..." note).
MUTATIONS = [
    ("encoder-drops-a-frame", "the encoder thread skips the frame of pts 3 (releasing it)",
     "glreader/src/av/encoder.cpp",
     "        if (first_error() != 0) {\n            release(item);",
     "        if (first_error() != 0 || item.pts == 3) {\n            release(item);",
     "matrix/encoder_lossless.every_frame_once_in_order_pixel_exact_with_pts/ring1_queue1_ffv1"),
    ("encoder-queue-depth-ignored", "the encoder lets its default two frames wait whatever queue_depth "
     "(glreader-export's --queue) says",
     "glreader/src/av/encoder.cpp",
     "    queue_depth_ = static_cast<size_t>(p.queue_depth ? p.queue_depth : default_queue_depth);",
     "    queue_depth_ = default_queue_depth;",
     "encoder_test.queue_depth_frames_wait_while_the_output_is_stalled_and_no_more"),
    ("pipe-rows-reversed", "the pipe writes each block's rows bottom first",
     "glreader/src/pipe/block.cpp",
     "r.first_row + r.stride * static_cast<ptrdiff_t>(row)) + in_row;",
     "r.first_row + r.stride * static_cast<ptrdiff_t>(r.rows - 1 - row)) + in_row;",
     "pipe_test.two_fds_at_once_each_keep_their_order"),
    ("display-users-off-by-one", "the EGL display is terminated while one context still uses it",
     "glreader/src/context/headless_context.cpp",
     "--it->second > 0)", "--it->second > 1)",
     "context_display_test.destroying_a_second_context_keeps_the_display_of_the_first"),
    ("lease-released-twice", "a lent lease is released once when lent (too early) and again when FFmpeg frees it",
     "glreader/include/glreader/utils/libav.h",
     "        lease->frame = *f;\n",
     "        lease->frame = *f;\n        {\n            struct glr_frame early = *f;\n"
     "            glr_frame_release(&early);\n        }\n",
     "encoder_test.encoder_that_holds_frames_gets_copies_instead_of_starving_the_ring"),
    ("pixel-store-not-restored", "captures and uploads leave the pack and unpack parameters at GL's defaults, not the host's values",
     "glreader/src/context/state_scope.cpp",
     "                    f.gl.PixelStorei(table::names[i], s.i[i]);", "                    (void)s;",
     "ring_test.a_capture_leaves_the_host_s_gl_state_as_it_found_it"),
    ("scissor-left-on", "a capture's blits honour the host's scissor box (the scope saves the scissor test but leaves it on)",
     "glreader/src/context/state_scope.cpp",
     "    capability_of_index0<GL_SCISSOR_TEST, 4, 1>(),",
     "    handler{[](const functions &, saved &) {}, nothing, nothing},",
     "paths/host_state_test.a_capture_reads_the_same_bytes_whatever_the_host_state/rgba"),
    ("host-error-lost", "a GL error the host left pending is taken and never raised again",
     "glreader/src/context/state_scope.cpp",
     "            pending_[static_cast<size_t>(count_++)] = error;",
     "            pending_[static_cast<size_t>(count_)] = error;",
     "paths/host_state_test.a_capture_reads_the_same_bytes_whatever_the_host_state/rgba"),
    ("chroma-siting-swapped", "left-sited chroma is filtered as centre-sited and the other way round",
     "glreader/src/ring/yuv_pass.cpp",
     "#if SITING_LEFT\n", "#if !SITING_LEFT\n",
     "yuv_test.a_flipped_plane_a_wrong_siting_or_matrix_would_fail"),
    ("ycbcr-matrix-ignored", "the GPU conversion uses BT.709's matrix whatever the ring's colour asks",
     "glreader/src/ring/yuv_pass.cpp",
     "    matrix_constants(params_.color.matrix, kr, kb);\n", "    matrix_constants(GLR_MATRIX_BT709, kr, kb);\n",
     "yuv_test.every_format_matrix_range_and_siting_matches_the_reference"),
    ("range-ignored", "the GPU conversion writes full range where limited is asked",
     "glreader/src/ring/yuv_pass.cpp",
     "    bool limited = params_.color.range == GLR_RANGE_LIMITED;\n", "    bool limited = false;\n",
     "yuv_test.every_test_image_converts_within_one_code_value"),
    ("p010-bits-low", "P010's 10-bit samples are packed in the low bits of their 16",
     "glreader/src/ring/yuv_pass.cpp",
     "    int shift = f.bytes_per_sample == 2 && f.planes == 2 ? 16 - f.bit_depth : 0;\n", "    int shift = 0;\n",
     "yuv_test.every_format_matrix_range_and_siting_matches_the_reference"),
    ("stall-times-out-again", "glreader-export gives up on an output that stalls for 10 s",
     "glreader/src/av/recorder.cpp",
     "        rp.capture_timeout_ns = UINT64_MAX; // an output that stalls is waited for\n",
     "        rp.capture_timeout_ns = 0;\n",
     "stalled_output.an_export_whose_reader_pauses_for_15_s_delivers_every_frame"),
    ("finalize-skipped-on-cancel", "a cancel during a long frame leaves the encoder unfinished (the job returns without it)",
     "glreader/src/av/export_render.cpp",
     "    int rc = rec ? glr_recorder_finish(rec) : 0;\n",
     "    int rc = 0;\n",
     "export_job.long_frame"),
    ("first-frame-not-waited-for", "a job cancelled during a long frame while its readbacks are under way (a GPU) "
     "leaves a file without a frame",
     "glreader/src/av/recorder.cpp",
     "    if (rc >= 0 && first)\n        rc = hand_over_next(UINT64_MAX);\n", "",
     "export_job.long_frame_in_flight"),
    ("left-thread-not-joined", "destroying a job whose render thread was left in the driver and has since ended lets "
     "that thread's last steps overlap what follows (exit() included)",
     "glreader/src/av/export_job.cpp",
     "    if (ended) {\n#ifdef GLREADER_TEST_SEAMS\n        shared_->release_hold();",
     "    if (false) {\n#ifdef GLREADER_TEST_SEAMS\n        shared_->release_hold();",
     "export_job.compile"),
    ("preroll-skipped", "a project whose buffers keep state starts a range without pre-rolling the frames before it",
     "glreader/src/shadertoy/player.cpp",
     "    preroll_ = keeps_state(sp) ? first_ : 0;\n", "    preroll_ = 0;\n",
     "export_job.range"),
    ("pts-not-rescaled", "packets keep the encoder's time base in a stream of another",
     "glreader/src/av/video_track.cpp",
     "        av_packet_rescale_ts(packet_, context_->time_base, stream_->time_base);\n", "",
     "matrix/encoder_lossless.every_frame_once_in_order_pixel_exact_with_pts/ring1_queue1_ffv1"),
    ("join-gap-accepted", "chunks with frames missing between them are joined",
     "glreader/src/av/join.cpp",
     "        if (c.first > end)\n", "        if (false)\n",
     "export_join.chunks_that_do_not_join_are_refused_and_nothing_is_written"),
    ("join-sound-padding-kept", "the join takes a chunk's whole sound track, its encoder's padding past its frames too",
     "glreader/src/av/join.cpp",
     "        int64_t samples = std::min<int64_t>(packet.size / (2 * channels), end - next);\n",
     "        int64_t samples = packet.size / (2 * channels);\n",
     "export_join.chunks_keep_their_sound_pass_and_join_to_the_single_pass_sound"),
    ("device-encoder-not-probed", "a codec name takes a device's encoder that does not open",
     "glreader/src/av/codec_choice.cpp",
     "        std::string refusal = is_hardware_encoder(c) ? device_refusal(c) : \"\";\n",
     "        std::string refusal;\n",
     "encoder_hardware.a_codec_name_never_takes_an_encoder_that_does_not_open"),
    ("converter-plane-unshifted", "the converter stores P010's samples in the low bits of 16",
     "glreader/src/ring/yuv_pass.cpp",
     "        store(plane, bx * 8 + i, row, uvec4(s[i] << SHIFT, 0u, 0u, 0u));\n",
     "        store(plane, bx * 8 + i, row, uvec4(s[i], 0u, 0u, 0u));\n",
     "converter_test.every_plane_equals_the_ring_s_bytes"),
    ("hw-frames-untagged", "hardware frames go to the encoder without their colour tags",
     "glreader/include/glreader/utils/libav_vulkan_frames.h",
     "    glr_av_set_color(*frame, &vk->color);\n",
     "",
     "vulkan_frames_test.every_plane_equals_the_ring_s_bytes"),
    ("memory-texture-refused-fd-kept", "an import refused before GL leaves the caller's fd open",
     "glreader/src/context/memory_texture.cpp",
     "    glr::gl::fd_guard fd{image.fd};\n",
     "    glr::gl::fd_guard fd{-1};\n",
     "vulkan_frames_test.bad_imports_are_refused_with_words"),
    ("hw-frame-not-transferred", "a hardware frame goes to an encoder on the CPU without its pixels copied to memory",
     "glreader/src/av/video_track.cpp",
     "        int rc = av_hwframe_transfer_data(memory, in, 0);\n",
     "        int rc = 0;\n",
     "vulkan_frames_test.an_encoder_on_the_cpu_gets_the_frames_copied_and_encodes_the_ring_s_bytes"),
    ("join-overlap-accepted", "chunks that overlap are joined",
     "glreader/src/av/join.cpp",
     "        if (c.first < end)\n", "        if (false)\n",
     "export_join.chunks_that_do_not_join_are_refused_and_nothing_is_written"),
    ("part-renamed-when-stopped-short", "an encode stopped short renames its .part file to the output's name",
     "glreader/src/av/encoder.cpp",
     "    close_output(complete);\n", "    close_output(true);\n",
     "encoder_outputs.an_encode_that_fails_or_stops_short_leaves_the_part_file_and_the_name_alone"),
    ("leased-slot-reused", "capture writes into a slot that is still leased",
     "glreader/src/ring/slot_ledger.cpp",
     "        if (slots_[i].st == state::free)\n",
     "        if (slots_[i].st == state::free || slots_[i].st == state::leased)\n",
     "ring_test.slot_is_not_overwritten_while_leased"),
    ("container-codec-ignored", "without -c, every container gets H.264, as before ffmpeg's rule (PNG into .png files)",
     "glreader/src/av/codec_choice.cpp",
     "    return av_guess_codec(muxer, nullptr, output, nullptr, type);\n",
     "    return type == AVMEDIA_TYPE_VIDEO ? AV_CODEC_ID_H264 : av_guess_codec(muxer, nullptr, output, nullptr, type);\n",
     "ffmpeg_conventions.the_container_chooses_the_codec_as_ffmpeg_does"),
    ("yuv-picture-matrix-ignored", "a Y'CbCr picture in a channel is read as BT.709 whatever its matrix",
     "glreader/src/scene/yuv_to_rgb.cpp",
     "    matrix_constants(color.matrix, kr, kb);\n", "    matrix_constants(GLR_MATRIX_BT709, kr, kb);\n",
     "yuv_channel_test.every_format_matrix_range_and_siting_converts_as_computed_in_double_precision"),
    ("ffmpeg-level-left-alone", "routing FFmpeg's log leaves FFmpeg's own level as it was",
     "glreader/src/av/ffmpeg_log.cpp",
     "    av_log_set_level(av_level_of(glr_log_get_level(log)));\n", "",
     "ffmpeg_log.the_level_follows_the_log"),
    ("json-buffer-ids-shifted", "a Shadertoy JSON's input reading Buffer A reads Buffer B (ids off by one)",
     "glreader/src/shadertoy/shadertoy_json.cpp",
     "            if ((id.is_string() && id == buffer_ids[i]) || (id.is_number_integer() && id == buffer_numbers[i]))\n"
     "                return i;\n",
     "            if ((id.is_string() && id == buffer_ids[i]) || (id.is_number_integer() && id == buffer_numbers[i]))\n"
     "                return (i + 1) % 5;\n",
     "shadertoy_json.the_site_s_export_binds_every_pass_and_input_as_shadertoy_does"),
    ("alpha-not-kept", "--alpha encodes a format with alpha, but the Image pass's alpha stays 1",
     "glreader/src/scene/shader_scene.cpp",
     "    text.alpha = alpha_;\n", "    text.alpha = GLR_ALPHA_OPAQUE;\n",
     "export_alpha.each_container_s_codec_with_alpha_keeps_what_the_shader_wrote"),
    ("yuva-alpha-plane-unwritten", "the GPU conversion to yuva formats leaves the alpha plane as it was",
     "glreader/src/ring/yuv_pass.cpp",
     "        put8(3, y0 + r, bx, s);\n", "        // the alpha plane left unwritten\n",
     "yuv_test.every_format_matrix_range_and_siting_matches_the_reference"),
    ("rgb-rows-not-flipped", "RGB frames come out bottom row first (GLR_FLIP_STRIDE ignored)",
     "glreader/src/ring/ring.cpp",
     "        if (!format_.yuv && params_.flip == GLR_FLIP_STRIDE) {",
     "        if (false) {",
     "ring_test.texture_source_reads_the_mipmap_level_it_names"),
    ("egl-device-choice-ignored", "GLR_EGL_DEVICE names a device, and every device is used anyway",
     "glreader/src/context/headless_context.cpp",
     "                if ((choice.index >= 0 && i != choice.index) || (choice.cuda >= 0 && cuda != choice.cuda))\n"
     "                    continue;\n", "",
     "context_test.glr_egl_device_names_the_one_device_used"),
    ("python-frame-channels-collapsed", "a Ring frame's numpy view reads every channel of a pixel from its first byte",
     "python/src/frames.cpp",
     "            strides[p] = {plane.stride, i.samples_per_pixel[0] * i.bytes_per_sample, i.bytes_per_sample};",
     "            strides[p] = {plane.stride, i.samples_per_pixel[0] * i.bytes_per_sample, 0};",
     "python_package"),
    ("farm-chunks-overlap", "the farm's chunks each take one frame more, overlapping the next",
     "python/glreader/farm/api.py",
     "    return [(a, b - a) for a, b in zip(bounds, bounds[1:])]\n",
     "    return [(a, b - a + (b < bounds[-1])) for a, b in zip(bounds, bounds[1:])]\n",
     "python_farm"),
    ("fence-timeout-taken-as-done", "acquire maps a slot whose fence has not signalled (a timeout read as done)",
     "glreader/src/ring/pack_buffers.cpp",
     "        if (result == GL_TIMEOUT_EXPIRED)\n            return false;\n", "",
     "ring_errors.acquire_says_eagain_while_a_readback_is_not_done_and_loses_nothing"),
    ("colour-primaries-untagged", "the stream is not tagged with its frames' primaries",
     "glreader/src/av/video_track.cpp",
     "    context->color_primaries = static_cast<AVColorPrimaries>(color.primaries);\n", "",
     "encoder_yuv.streams_are_tagged_with_the_colour_of_their_frames"),
    ("audio-offset-ignored", "--audio-offset's leading silence is left out (the sound starts at once)",
     "glreader/src/av/audio_track.cpp",
     "            leading_silence_ = std::llround(p.offset * rate_);", "            leading_silence_ = 0;",
     "export_audio.silent_surround_and_44100_hz_sound_and_offsets"),
    ("ss-ignored", "the option table's -ss (start) starts at frame 0",
     "glreader/src/av/export_options.cpp",
     "    r.start_us = s.microseconds(\"start\");",
     "    r.start_us = 0;",
     "export_shadertoy.reruns_are_byte_identical_and_a_start_frame_renders_that_frame"),
    ("unknown-option-taken", "an option neither the table's nor an encoder's is taken without a word",
     "glreader/src/av/export_options.cpp",
     "            if (option.empty()) {",
     "            if (false) {",
     "export_options.an_unknown_key_is_refused_with_the_nearest_name_in_the_key_s_spelling"),
    ("length-rounded-to-nearest", "a length holds duration x rate frames rounded to the nearest, not the frames that "
     "start before it ends (ffmpeg's count)",
     "glreader/src/frame_range.cpp",
     "        n = frames_before(duration_us, r.fps_num, r.fps_den);",
     "        n = (duration_us * r.fps_num + 500000LL * r.fps_den) / (1000000LL * r.fps_den);",
     "frame_range.a_length_holds_as_many_frames_as_ffmpeg_s_testsrc_of_that_duration"),
    ("chunk-frames-stamped-from-zero", "a chunk's frames are stamped from 0, not from their place on the timeline",
     "glreader/src/av/export_render.cpp",
     "glr_recorder_capture(recorder_, &source, p.chunk ? pp.first_frame + i : i);",
     "glr_recorder_capture(recorder_, &source, i);",
     "export_join.chunks_of_a_feedback_project_join_to_the_single_pass_frames"),
    ("sound-pass-rows-ignored", "the Sound pass numbers its samples by column alone (each row repeats the first)",
     "glreader/src/scene/shadertoy_source.cpp",
     "int local = int(gl_FragCoord.y) * glr_block_width + int(gl_FragCoord.x);",
     "int local = int(gl_FragCoord.x);",
     "export_shadertoy.a_sound_pass_is_the_sound_track_and_its_sound_channels_hear_it"),
    ("join-decode-times-lost", "the join stamps each packet's decode time with its presentation time",
     "glreader/src/av/join.cpp",
     "        packet->dts = dts - first_;\n", "        packet->dts = pts - first_;\n",
     "export_join.h264_chunks_and_one_sound_join_as_the_single_pass_stamps_them"),
    ("join-sound-cut-short", "the join's sound ends ten frames before the picture",
     "glreader/src/av/join.cpp",
     "            audio->finish(av_q2d(frame_) * frames_, write);",
     "            audio->finish(av_q2d(frame_) * (frames_ - 10), write);",
     "export_join.h264_chunks_and_one_sound_join_as_the_single_pass_stamps_them"),
    ("lease-lent-to-a-keeper", "an encoder that keeps frames is lent every lease, never given copies",
     "glreader/include/glreader/utils/libav.h",
     "    *lent = !lender->keeps_frames || glr_frame_may_keep(f, kept);", "    *lent = 1 || kept;",
     "encoder_test.encoder_that_holds_frames_gets_copies_instead_of_starving_the_ring"),
    ("filter-start-ignored", "the glreader source filter's start= is ignored (it starts at frame 0)",
     "plugin/vsrc_glreader.c",
     "    if ((params->first_frame = start_frame(ctx)) < 0) {",
     "    if ((params->first_frame = start_frame(ctx) * 0) < 0) {",
     "ffmpeg-9.0.filter_test.start_and_an_inline_shader_give_glreader_export_s_frames"),
    ("job-log-relayed-after-destroy", "a job's render thread, left in the driver, logs into the caller's log after "
     "the job's destroy",
     "glreader/src/av/export_job.cpp",
     "    shared_->stop_relaying(); // the caller's log may go with the job\n", "",
     "export_job.destroy_held"),
    ("viewer-option-left-out-unsaid", "glreader-viewer refuses --queue as an unknown option, without saying why",
     "samples/viewer.cpp",
     "            {\"queue\", recorder},\n", "",
     "program_options.every_program_that_renders_takes_each_table_option_or_says_why_not"),
    ("sound-cache-one-sample-late", "the player's kept Sound pass is read one sample late",
     "glreader/src/shadertoy/player.cpp",
     "std::copy_n(&sound_[static_cast<size_t>(first - sound_first_) * 2],",
     "std::copy_n(&sound_[static_cast<size_t>(first - sound_first_ + 1) * 2],",
     "player_test.the_sound_pass_gives_the_same_samples_in_any_pieces"),
    ("export-sound-range-from-zero", "a range's sound track is the Sound pass's from sample 0, not from its first frame",
     "glreader/src/av/export_render.cpp",
     "check(glr_player_render_sound(player_, from, static_cast<int>(to - from), stereo_.data()));",
     "check(glr_player_render_sound(player_, from - range_first, static_cast<int>(to - from), stereo_.data()));",
     "export_shadertoy.a_sound_pass_is_the_sound_track_and_its_sound_channels_hear_it"),
    ("filter-sound-range-from-zero", "the source filter's sound from start= on is the Sound pass's from sample 0",
     "plugin/vsrc_glreader.c",
     "(ret = glr_player_render_sound(shared->player, from, sound->nb_samples,",
     "(ret = glr_player_render_sound(shared->player, from - start, sound->nb_samples,",
     "ffmpeg-9.0.filter_test.sound_gives_the_sound_pass_glreader_export_muxes"),
    ("filter-pts-doubled", "the glreader source filter stamps frame n at 2n",
     "plugin/vsrc_glreader.c",
     "    frame->pts = s->emitted++;", "    frame->pts = 2 * s->emitted++;",
     "ffmpeg-9.0.filter_test.renders_exactly_d_times_r_frames_pixel_exact"),
    ("export-sound-a-frame-late", "the export job stamps each frame's Sound pass samples one video frame late",
     "glreader/src/av/export_render.cpp",
     "static_cast<int>(to - from), from - range_first);", "static_cast<int>(to - from), to - range_first);",
     "export_shadertoy.a_sound_pass_is_the_sound_track_and_its_sound_channels_hear_it"),
    ("filter-sound-a-frame-late", "the source filter's Sound pass is stamped one video frame late",
     "plugin/vsrc_glreader.c",
     "    sound->pts = from - start;\n", "    sound->pts = to - start;\n",
     "ffmpeg-9.0.filter_test.sound_gives_the_sound_pass_glreader_export_muxes"),
    ("rate-lower-bound-removed", "a frame rate under the table's lowest (1/1000 a second) is taken",
     "glreader/src/av/export_options.cpp",
     "        if (fps == 0 || fps < o.min * (1 - 1e-12) || fps > o.max * (1 + 1e-12))\n",
     "        if (fps == 0 || fps > o.max * (1 + 1e-12))\n",
     "program_options.every_numeric_row_takes_its_bounds_and_refuses_past_both_ends_in_every_front_end"),
    ("integer-upper-bound-off-by-one", "a whole number one past a row's highest is taken",
     "glreader/src/av/export_options.cpp",
     "        if (!parse_integer(text, n) || n < o.min || n > o.max)\n",
     "        if (!parse_integer(text, n) || n < o.min || n > o.max + 1)\n",
     "program_options.every_numeric_row_takes_its_bounds_and_refuses_past_both_ends_in_every_front_end"),
    ("recorder-finish-stops-waiting", "the recorder's finish takes only the readbacks already done, not those "
     "still under way (a GPU's last frames lost)",
     "glreader/src/av/recorder.cpp",
     "        while ((rc = hand_over_next(UINT64_MAX)) > 0) {\n",
     "        while ((rc = hand_over_next(0)) > 0) {\n",
     "recorder_test.finish_waits_for_the_frames_still_read_back"),
    ("hw-frame-handed-out-before-its-mark", "a hardware frame is handed out before its conversion's mark passed "
     "(a GPU's torn frame)",
     "glreader/src/av/hw_frames.cpp",
     "        if (!mark_passed(in_flight_.front().mark, timeout_ns))\n            return -EAGAIN;\n",
     "        mark_passed(in_flight_.front().mark, timeout_ns);\n",
     "vulkan_frames_test.frames_come_out_whole_and_in_order_at_every_depth"),
    ("range-end-takes-one-more", "an end time (-to, end=) takes the frame at or after it too: a bug in the frame-range "
     "code every front-end shares, which a test checking a front-end against another would pass",
     "glreader/src/frame_range.cpp",
     "        n = frames_before(r.end_us, r.fps_num, r.fps_den) - from;\n",
     "        n = frames_before(r.end_us, r.fps_num, r.fps_den) - from + 1;\n",
     "python_package"),
    ("filter-rate-upper-bound-loosened", "the glreader source takes rates past the table's highest (1000 a second)",
     "plugin/vsrc_glreader.c",
     "{ \"r\",          \"set the frame rate\", OFFSET(frame_rate), AV_OPT_TYPE_VIDEO_RATE, { .str = \"30\" }, 0.001, 1000, FLAGS },",
     "{ \"r\",          \"set the frame rate\", OFFSET(frame_rate), AV_OPT_TYPE_VIDEO_RATE, { .str = \"30\" }, 0.001, INT_MAX, FLAGS },",
     "ffmpeg-9.0.filter_test.the_source_s_numeric_options_hold_at_the_table_s_ends"),
    ("filter-end-leaves-frames-in-flight", "the glreader source ends its stream once the last frame is drawn, "
     "without waiting for the frames still read back (a GPU's last frames lost)",
     "plugin/vsrc_glreader.c",
     source_render_loop("(rendered < s->total || shared->in_flight)", "rendered >= s->total || !can_capture(s, shared)"),
     source_render_loop("rendered < s->total", "!can_capture(s, shared)"),
     "ffmpeg-9.0.filter_test.the_end_of_the_stream_waits_for_the_frames_still_under_way"),
    ("library-name-told-to-users", "a failure's message keeps the name of the function it failed in for every "
     "user, not for the debug log alone",
     "glreader/src/error.cpp",
     "        if (message.substr(0, 4) != \"glr_\")\n",
     "        if (true)\n",
     "log_test.the_failing_function_s_name_is_for_the_debug_log_alone"),
    ("image-sequence-folder-not-made", "an image sequence into a folder that does not exist fails after rendering",
     "glreader/src/av/output_io.cpp",
     "    if (!sequence_folder_.empty())\n        make_sequence_folder();\n",
     "",
     "export_outputs.image_sequences_write_their_files_and_no_other"),
    ("join-colour-untagged", "the join leaves the output untagged where the chunks' container keeps no colour (NUT)",
     "glreader/src/av/join.cpp",
     "        if (!chunks_.front()->color.empty())\n            tag_color(*chunks_.front(), video->codecpar);\n",
     "",
     "export_join.chunks_in_nut_join_with_the_single_pass_s_colour_tags"),
]

# The sanitizers' own mutations (--asan): an error the suite sees only through a
# sanitizer's report in a child process. A plugin/ file is the AddressSanitizer ffmpeg's
# copy of it (libavfilter/), relinked into that ffmpeg.
ASAN_MUTATIONS = [
    ("use-after-free-in-an-error-path", "glreader-export reads freed memory after printing a refusal",
     "samples/export.cpp",
     "        return sample::end_after_job(1, render_left_running);\n",
     "        char *freed = static_cast<char *>(std::malloc(8));\n        std::free(freed);\n"
     "        std::fprintf(stderr, \"%c\", freed[0] | 1);\n        return sample::end_after_job(1, render_left_running);\n",
     "export_outputs.an_existing_file_is_never_destroyed"),
    ("leak-in-a-filter-uninit", "the glreader source filter's uninit drops its shared state without freeing it",
     "plugin/vsrc_glreader.c",
     "    av_buffer_unref(&s->shared); /* the GL side goes with the last frame held downstream */\n",
     "    s->shared = NULL;\n",
     "ffmpeg-9.0.filter_test.renders_exactly_d_times_r_frames_pixel_exact"),
]


if mode == "texts":
    stale = [f"{name}: {rel}" for name, _, rel, old, _, _ in MUTATIONS + ASAN_MUTATIONS
             if (src / rel).read_text().count(old) != 1]
    for line in stale:
        print(f"mutation-check: {line}: its text is not exactly once there: update the mutation")
    print(f"mutation-check: {len(MUTATIONS) + len(ASAN_MUTATIONS) - len(stale)} of "
          f"{len(MUTATIONS) + len(ASAN_MUTATIONS)} mutations' texts in place")
    sys.exit(1 if stale else 0)


def run(cmd, log, **kw):
    with open(log, "w") as out:
        return subprocess.run(cmd, stdout=out, stderr=subprocess.STDOUT, **kw).returncode


def patched_ffmpegs():
    """LINE: path of each patched ffmpeg the build's filter tests run (its CMake cache)."""
    cache = (build / "CMakeCache.txt").read_text()
    found = re.search(r"^GLREADER_PATCHED_FFMPEG:STRING=(.*)$", cache, re.M)
    return dict(entry.split("=", 1) for entry in (found.group(1).split(";") if found and found.group(1) else []))


patched = patched_ffmpegs()


env = dict(os.environ)
if mode == "asan":
    chosen = ASAN_MUTATIONS
    env.update(ASAN_OPTIONS="detect_leaks=1:abort_on_error=0", UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1")
else:
    chosen = [m for m in MUTATIONS if not only or m[0] == only]
    if mode == "scratch" and not patched:
        print("mutation-check: the filters' mutations left out: no --ffmpeg", file=sys.stderr)
        chosen = [m for m in chosen if not m[2].startswith("plugin/")]
if not chosen:
    sys.exit(f"mutation-check: no mutation named {only} (have: {', '.join(m[0] for m in MUTATIONS)})")


def test_programs():
    """Each ctest test's program, where the build made it: the target to rebuild for it."""
    shown = json.loads(subprocess.run(["ctest", "--test-dir", str(build), "--show-only=json-v1"], capture_output=True,
                                      text=True, check=True).stdout)
    return {t["name"]: pathlib.Path(t["command"][0]) for t in shown["tests"] if t.get("command")}


programs = test_programs()


def located(rel, test):
    """The file a mutation edits and the command that rebuilds what uses it: a filter's in
    the ffmpeg its test runs (the --asan one, or the build's of the test's line); else the
    test's own program (with what it depends on: the programs it runs, the libraries), or
    the whole build for a test that a script or Python runs."""
    if rel.startswith("plugin/"):
        line = re.match(r"ffmpeg-([0-9.]+)\.", test).group(1)
        ffmpeg_build = pathlib.Path(ffmpeg if mode == "asan" else patched[line]).parent
        if not (ffmpeg_build / "ffmpeg").exists():
            sys.exit(f"mutation-check: {ffmpeg_build / 'ffmpeg'}, which {test} runs, is not there: build it again")
        return (ffmpeg_build.parent / "src" / "libavfilter" / pathlib.Path(rel).name,
                ["make", "-C", str(ffmpeg_build), "-j2", "ffmpeg"])
    program = programs.get(test)
    if program and build in program.parents:
        return src / rel, ["cmake", "--build", str(build), "--target", program.name]
    return src / rel, ["cmake", "--build", str(build)]


# Every mutated file is restored before the check exits, on SIGTERM and SIGINT too.
originals = {}
signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))


def restore():
    for path, text in originals.items():
        path.write_text(text)
    for rebuild in {tuple(located(m[2], m[5])[1]) for m in chosen if m[2].startswith("plugin/")}:
        run(list(rebuild), logs / "restore.build.log")
    run(["cmake", "--build", str(build)], logs / "restore.build.log")  # all that a mutation's target left


def pattern_of(*tests):
    """ctest's -R for these tests alone (a parameterised test's name ends at a space)."""
    return "^(" + "|".join(cmake_escape(t) for t in tests) + ")( |$)"


for name, _, _, _, _, test in chosen:
    listed = subprocess.run(["ctest", "--test-dir", str(build), "-N", "-R", pattern_of(test)], capture_output=True,
                            text=True).stdout
    # One test (the headless and the window host-state programs share their tests' names).
    if not re.search(r"^\s*Test\s+#", listed, re.M):
        sys.exit(f"mutation-check: {name}: its test {test} is not in {build}: update the mutation")
# Unmutated, each named test passes: one that fails by itself would pass for a catch.
print(f"mutation-check: the {len({m[5] for m in chosen})} tests named, unmutated", file=sys.stderr)
if run(["ctest", "--test-dir", str(build), "-R", pattern_of(*{m[5] for m in chosen}), "-j", str(os.cpu_count() or 1),
        "--timeout", "900", "--output-on-failure"], logs / "unmutated.test.log", env=env) != 0:
    sys.exit(f"mutation-check: unmutated, some tests named fail (a mutation would pass for caught): see "
             f"{logs / 'unmutated.test.log'}")

rows, missed = [], 0
try:
    for name, what, rel, old, new, test in chosen:
        pattern = pattern_of(test)
        path, rebuild = located(rel, test)
        original = originals.setdefault(path, path.read_text())
        if original.count(old) != 1:
            sys.exit(f"mutation-check: {name}: its text is not exactly once in {rel}: update the mutation")
        print(f"mutation-check: {name}: {what}", file=sys.stderr)
        path.write_text(original.replace(old, new))
        if run(rebuild, logs / f"{name}.build.log") != 0:
            verdict = "**DOES NOT BUILD**"
        else:
            failed = run(["ctest", "--test-dir", str(build), "-R", pattern, "--timeout", "900", "--output-on-failure"],
                         logs / f"{name}.test.log", env=env) != 0
            verdict = "caught" if failed else "**MISSED**"
        path.write_text(original)
        missed += verdict != "caught"
        print(f"mutation-check:   {verdict}", file=sys.stderr)
        rows.append(f"| {name} | {what} | `{rel}` | `{test}` | {verdict} |")
finally:
    restore()

print("| mutation | the bug | file | the test that must fail | result |")
print("|---|---|---|---|---|")
print("\n".join(rows))
print(f"\n{len(rows) - missed} of {len(rows)} mutations caught")
sys.exit(1 if missed else 0)
PY
