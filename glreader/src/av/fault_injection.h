/*
 * A fault seam for glreader's own tests, compiled only into the test builds of the libraries (GLREADER_TEST_SEAMS, the
 * glreader-testing libraries), never into what is installed: real encoders cannot
 * be made to fail in the middle of a stream on demand. Not for applications.
 */
#ifndef GLREADER_AV_FAULT_INJECTION_H
#define GLREADER_AV_FAULT_INJECTION_H

#include "glreader/av/encoder.h"
#include "glreader/av/export.h"
#include "glreader/av/hw_frames.h"
#include "glreader/av/recorder.h"

#ifdef __cplusplus
extern "C" {
#endif

/* From then on, once `frames` frames were encoded, the encoder thread treats the next
 * avcodec_send_frame as failed (AVERROR_EXTERNAL), exactly as a real failure is handled.
 * A negative value turns the fault off. */
GLR_API void glr_internal_encoder_fail_after(glr_encoder *enc, int64_t frames);

/* Where glr_internal_export_hold_at holds a job's render thread: in its compile, before the
 * player compiles the shaders; n >= 1, before frame n of the range renders; or at its end,
 * after it freed what it made and reported that it stopped (render_running 0), before the
 * thread itself ends. */
#define GLR_INTERNAL_HOLD_COMPILE (-1)
#define GLR_INTERNAL_HOLD_END (-2)

/* Set before glr_export_run: the job's render thread, once at `point`, waits there, busy as
 * in a driver's compile or draw (the compile limit and a cancel see it so), until
 * glr_internal_export_release. A driver cannot be made to compile or draw for long on
 * demand, and a shader that takes long on llvmpipe takes a GPU no time. Called twice, once
 * with GLR_INTERNAL_HOLD_END: the thread is held at both, released once at each; the job's
 * destroy releases the end's hold too, as it waits for the thread. */
GLR_API void glr_internal_export_hold_at(glr_export *job, int point);
/* Waits up to `seconds` for the render thread to be held; 1 when it is, 0 otherwise. */
GLR_API int glr_internal_export_wait_held(glr_export *job, double seconds);
GLR_API void glr_internal_export_release(glr_export *job);
/* Releases the holds of every job destroyed while its render thread was held there (left
 * in the driver, as a slow frame leaves it): the thread goes on after its job. */
GLR_API void glr_internal_export_release_destroyed(void);

/* Set before glr_export_run: the job's ring, once made, treats its fences as
 * glr_internal_ring_fences_unsignalled(ring, polls) says (ring/fence_seam.h): readbacks
 * still under way when polled, as on a GPU, where llvmpipe has finished each at once. */
GLR_API void glr_internal_export_fences_unsignalled(glr_export *job, int polls);

/* Set before the first capture: the recorder's ring, once made, treats its fences as
 * glr_internal_ring_fences_unsignalled(ring, polls) says; its hardware frames their marks
 * as glr_internal_hw_frames_marks_unsignalled says. */
GLR_API void glr_internal_recorder_fences_unsignalled(glr_recorder *rec, int polls);

/* The next `polls` acquires with a finite timeout find the oldest hardware frame's mark (a
 * GL fence, a CUDA event) not passed, as a GPU still converting would, where a software
 * rasterizer has finished each conversion at once; an acquire that waits as long as it
 * takes waits on the mark itself. 0 ends it. On the capturing thread. */
GLR_API void glr_internal_hw_frames_marks_unsignalled(glr_hw_frames *frames, int polls);

/* How many export jobs' render threads of this process have not ended yet (the last steps
 * of a thread, its thread-local clean-up, aside). */
GLR_API int glr_internal_export_render_threads(void);
/* Waits up to `seconds` until at most `at_most` of them have not ended; 1 when so, else 0. */
GLR_API int glr_internal_export_wait_render_threads(int at_most, double seconds);

/* From then on, encoder choice passes over the encoder named (as a build without it
 * would): a codec name then takes what comes after it. NULL shows every one again. */
GLR_API void glr_internal_codec_choice_hide(const char *encoder);

#ifdef __cplusplus
}
#endif

#endif /* GLREADER_AV_FAULT_INJECTION_H */
