// Every extern "C" entry point of glreader-av: validate, call, catch, return a code.
#include "glreader/encoder.h"

#include "av/encoder.hpp"
#include "av/fault_injection.h"
#include "guarded.hpp"
#include "internal_abi.h"

extern "C" {

glr_encoder *glr_encoder_create(glr_log *log, const struct glr_encoder_params *params)
{
    glr_encoder *enc = nullptr;
    glr::guarded(log, [&] {
        if (!params)
            glr::fail(-EINVAL, "glr_encoder_create: params is NULL");
        enc = new glr_encoder(log, *params);
        return 0;
    });
    return enc;
}

int glr_encoder_submit(glr_encoder *enc, glr_ring *ring, struct glr_frame *frame)
{
    if (!enc || !ring || !frame) {
        if (ring && frame)
            glr_ring_release(ring, frame); // the lease is never lost
        glr_internal_report(enc ? enc->log() : nullptr, -EINVAL, "glr_encoder_submit: NULL argument");
        return -EINVAL;
    }
    return glr::guarded(enc->log(), [&] { return enc->submit(ring, *frame); });
}

int glr_encoder_finish(glr_encoder *enc)
{
    if (!enc) {
        glr_internal_report(nullptr, -EINVAL, "glr_encoder_finish: enc is NULL");
        return -EINVAL;
    }
    return glr::guarded(enc->log(), [&] { return enc->finish(); });
}

void glr_encoder_destroy(glr_encoder **enc)
{
    if (!enc || !*enc)
        return;
    delete *enc;
    *enc = nullptr;
}

void glr_internal_encoder_fail_after(glr_encoder *enc, int64_t frames)
{
    if (enc)
        enc->fail_after(frames);
}

void glr_encoder_get_stats(glr_encoder *enc, struct glr_encoder_stats *stats)
{
    if (enc && stats)
        *stats = enc->stats();
}

} // extern "C"
