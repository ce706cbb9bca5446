/*
 * glreader-av: why an export job (glreader/av/export.h) or a recording
 * (glreader/av/recorder.h) stopped; both stop for the same reasons.
 */
#ifndef GLREADER_AV_STOP_H
#define GLREADER_AV_STOP_H

/* Why the job (or the recording) stopped. */
enum glr_export_stop {
    GLR_EXPORT_NOT_STOPPED = 0,
    GLR_EXPORT_COMPLETE,       /* every frame encoded and the output finished */
    GLR_EXPORT_CANCELLED,      /* glr_export_cancel: what was rendered is encoded and the
                                * output finalized (a GLR_OUTPUT_PART output keeps NAME.part) */
    GLR_EXPORT_INTERRUPTED,    /* the interrupt callback: the output keeps what was written */
    GLR_EXPORT_COMPILE_TIMEOUT,/* compile_timeout ran out */
    GLR_EXPORT_FAILED          /* an error: glr_export_run returned it */
};

#endif /* GLREADER_AV_STOP_H */
