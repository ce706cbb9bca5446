/*
 * A fault seam for glreader's own tests, compiled only into the test builds of the libraries (GLREADER_TEST_SEAMS, the
 * glreader-testing libraries), never into what is installed: real encoders cannot
 * be made to fail in the middle of a stream on demand. Not for applications.
 */
#ifndef GLREADER_AV_FAULT_INJECTION_H
#define GLREADER_AV_FAULT_INJECTION_H

#include "glreader/encoder.h"

#ifdef __cplusplus
extern "C" {
#endif

/* From then on, once `frames` frames were encoded, the encoder thread treats the next
 * avcodec_send_frame as failed (AVERROR_EXTERNAL), exactly as a real failure is handled.
 * A negative value turns the fault off. */
GLR_API void glr_internal_encoder_fail_after(glr_encoder *enc, int64_t frames);

#ifdef __cplusplus
}
#endif

#endif /* GLREADER_AV_FAULT_INJECTION_H */
