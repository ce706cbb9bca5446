// Every extern "C" entry point of glreader-av: validate, call, catch, return a code.
#include "glreader/av/encoder.h"
#include "glreader/av/export.h"

#include "av/encoder.hpp"
#include "av/export_job.hpp"
#include "av/fault_injection.h"
#include "av/recorder.hpp"
#include "guarded.hpp"

#include <string>

namespace {

int finish(glr_encoder *enc, bool complete, const char *function)
{
    if (!enc) {
        glr_priv_report_error(nullptr, -EINVAL, (std::string(function) + ": enc is NULL").c_str(), 1);
        return -EINVAL;
    }
    return glr::guarded(enc->log(), [&] { return enc->finish(complete); });
}

} // namespace

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

int glr_encoder_check(glr_log *log, const struct glr_encoder_params *params, struct glr_encoder_plan *plan)
{
    return glr::guarded(log, [&] {
        if (!params)
            glr::fail(-EINVAL, "glr_encoder_check: params is NULL");
        glr_encoder_plan out = glr_encoder::check(log, *params);
        if (plan)
            *plan = out;
        return 0;
    });
}

glr_format glr_encoder_preferred_format(const struct glr_encoder_params *params)
{
    glr_format out{};
    // No log to say it in: the reason is in glr_last_error() alone, as documented (printing
    // it too made a caller that then raises it show it twice).
    auto keep = [](int code, const char *message) { glr_priv_report_error(nullptr, code, message, 0); };
    glr::guarded_with(keep, [&] {
        if (!params)
            glr::fail(-EINVAL, "glr_encoder_preferred_format: params is NULL");
        out = glr_encoder::preferred_format(*params);
        return 0;
    });
    return out;
}

int glr_encoder_submit(glr_encoder *enc, struct glr_frame *frame)
{
    if (!enc || !frame || !frame->ring_) {
        if (frame && frame->ring_)
            glr_frame_release(frame); // the lease is never lost
        glr_priv_report_error(enc ? enc->log() : nullptr, -EINVAL,
                         "glr_encoder_submit: NULL argument, or a frame that holds no lease", 1);
        return -EINVAL;
    }
    return glr::guarded(enc->log(), [&] { return enc->submit(*frame); });
}

int glr_encoder_submit_hw(glr_encoder *enc, AVFrame **frame)
{
    if (!enc || !frame || !*frame) {
        if (frame)
            av_frame_free(frame); // the frame is never lost
        glr_priv_report_error(enc ? enc->log() : nullptr, -EINVAL, "glr_encoder_submit_hw: NULL argument or frame", 1);
        return -EINVAL;
    }
    return glr::guarded(enc->log(), [&] { return enc->submit_hw(*frame); });
}

int glr_encoder_submit_audio(glr_encoder *enc, const float *samples, int frames, int64_t pts)
{
    if (!enc) {
        glr_priv_report_error(nullptr, -EINVAL, "glr_encoder_submit_audio: enc is NULL", 1);
        return -EINVAL;
    }
    return glr::guarded(enc->log(), [&] {
        enc->submit_audio(samples, frames, pts);
        return 0;
    });
}

int glr_encoder_finish(glr_encoder *enc) { return finish(enc, true, "glr_encoder_finish"); }

int glr_encoder_finish_incomplete(glr_encoder *enc) { return finish(enc, false, "glr_encoder_finish_incomplete"); }

void glr_encoder_destroy(glr_encoder **enc)
{
    if (!enc || !*enc)
        return;
    delete *enc;
    *enc = nullptr;
}

#ifdef GLREADER_TEST_SEAMS
void glr_internal_encoder_fail_after(glr_encoder *enc, int64_t frames)
{
    if (enc)
        enc->fail_after(frames);
}

void glr_internal_export_hold_at(glr_export *job, int point)
{
    if (job)
        job->hold_at(point);
}

int glr_internal_export_wait_held(glr_export *job, double seconds)
{
    return job && job->wait_held(seconds);
}

void glr_internal_export_release(glr_export *job)
{
    if (job)
        job->release_hold();
}

void glr_internal_export_fences_unsignalled(glr_export *job, int polls)
{
    if (job)
        job->fences_unsignalled(polls);
}

void glr_internal_recorder_fences_unsignalled(glr_recorder *rec, int polls)
{
    if (rec)
        rec->fences_unsignalled(polls);
}

void glr_internal_export_release_destroyed(void) { glr_export::release_destroyed(); }

int glr_internal_export_render_threads(void) { return glr_export::render_threads(); }

int glr_internal_export_wait_render_threads(int at_most, double seconds)
{
    return glr_export::wait_render_threads(at_most, seconds);
}
#endif

void glr_encoder_get_stats(glr_encoder *enc, struct glr_encoder_stats *stats)
{
    if (enc && stats)
        *stats = enc->stats();
}

glr_recorder *glr_recorder_create(glr_log *log, const struct glr_recorder_params *params)
{
    glr_recorder *rec = nullptr;
    glr::guarded(log, [&] {
        if (!params)
            glr::fail(-EINVAL, "glr_recorder_create: params is NULL");
        rec = new glr_recorder(log, *params);
        return 0;
    });
    if (rec && rec->start_child() < 0) // logged where it failed
        glr_recorder_destroy(&rec);
    return rec;
}

int glr_recorder_capture(glr_recorder *rec, const struct glr_source *source, int64_t pts)
{
    if (!rec || !source) {
        glr_priv_report_error(rec ? rec->log() : nullptr, -EINVAL,
                              rec ? "glr_recorder_capture: source is NULL" : "glr_recorder_capture: rec is NULL", 1);
        return -EINVAL;
    }
    return glr::guarded(rec->log(), [&] { return rec->capture(*source, pts); });
}

int glr_recorder_submit_audio(glr_recorder *rec, const float *samples, int frames, int64_t pts)
{
    if (!rec) {
        glr_priv_report_error(nullptr, -EINVAL, "glr_recorder_submit_audio: rec is NULL", 1);
        return -EINVAL;
    }
    return glr::guarded(rec->log(), [&] { return rec->submit_audio(samples, frames, pts); });
}

void glr_recorder_cancel(glr_recorder *rec)
{
    if (rec)
        rec->cancel();
}

int glr_recorder_abandon(glr_recorder *rec)
{
    return rec ? rec->abandon() : -EINVAL;
}

int glr_recorder_finish(glr_recorder *rec)
{
    if (!rec) {
        glr_priv_report_error(nullptr, -EINVAL, "glr_recorder_finish: rec is NULL", 1);
        return -EINVAL;
    }
    return glr::guarded(rec->log(), [&] { return rec->finish(); });
}

void glr_recorder_get_stats(const glr_recorder *rec, struct glr_recorder_stats *stats)
{
    if (rec && stats)
        *stats = rec->stats();
}

void glr_recorder_destroy(glr_recorder **rec)
{
    if (!rec || !*rec)
        return;
    delete *rec;
    *rec = nullptr;
}

glr_export *glr_export_create(glr_log *log, const struct glr_export_params *params)
{
    glr_export *job = nullptr;
    glr::guarded(log, [&] {
        if (!params)
            glr::fail(-EINVAL, "glr_export_create: params is NULL");
        job = new glr_export(log, *params);
        return 0;
    });
    return job;
}

int glr_export_run(glr_export *job)
{
    if (!job) {
        glr_priv_report_error(nullptr, -EINVAL, "glr_export_run: job is NULL", 1);
        return -EINVAL;
    }
    return glr::guarded(job->log(), [&] { return job->run(); });
}

int glr_export_start(glr_export *job)
{
    if (!job) {
        glr_priv_report_error(nullptr, -EINVAL, "glr_export_start: job is NULL", 1);
        return -EINVAL;
    }
    return glr::guarded(job->log(), [&] { return job->start(); });
}

int glr_export_wait(glr_export *job, uint64_t timeout_ns)
{
    if (!job) {
        glr_priv_report_error(nullptr, -EINVAL, "glr_export_wait: job is NULL", 1);
        return -EINVAL;
    }
    // The job's failure is returned, not thrown (it was logged on its thread); the guard
    // reports wait's own refusal.
    return glr::guarded(job->log(), [&] { return job->wait(timeout_ns); });
}

void glr_export_cancel(glr_export *job)
{
    if (job)
        job->cancel();
}

void glr_export_get_stats(const glr_export *job, struct glr_export_stats *stats)
{
    if (job && stats)
        *stats = job->stats();
}

void glr_export_destroy(glr_export **job)
{
    if (!job || !*job)
        return;
    delete *job;
    *job = nullptr;
}

} // extern "C"
