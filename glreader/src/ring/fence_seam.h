/*
 * A fence seam for glreader's own tests, exported only by the test builds of the
 * libraries (GLREADER_TEST_SEAMS, the glreader-testing libraries), never by what is
 * installed: a software rasterizer finishes every readback before glReadPixels returns,
 * so a fence that has not signalled yet cannot be had on demand. Not for applications.
 */
#ifndef GLREADER_GL_FENCE_SEAM_H
#define GLREADER_GL_FENCE_SEAM_H

#include "glreader/ring.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The ring's next `polls` acquires with a finite timeout of a frame whose readback was not
 * yet seen complete find it not done, as a GPU still copying would: the fence's wait
 * answers GL_TIMEOUT_EXPIRED in its place, so the ring's own handling of an unsignalled
 * fence runs (-EAGAIN). An acquire that waits as long as it takes (UINT64_MAX) waits on
 * the fence itself, as it would for a GPU's copy, and uses no poll. For a ring with
 * fences. 0 ends it. */
GLR_API void glr_internal_ring_fences_unsignalled(const glr_ring *ring, int polls);

#ifdef __cplusplus
}
#endif

#endif /* GLREADER_GL_FENCE_SEAM_H */
