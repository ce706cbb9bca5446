// glreader-av: C++ layer over glreader/av/export.h.
#pragma once

#include "glreader/av/export.h"
#include "glreader/glreader.hpp"

namespace glr {

// An export job (see glreader/av/export.h).
// Thread-safety: run from one thread; cancel and stats from any (cancel from a signal
// handler too). Lifetime: destroy after run returned.
class export_job {
public:
    // Throws glr::error when the params are refused.
    explicit export_job(const glr_export_params &params, glr_log *log = nullptr)
        : job_(glr_export_create(log, &params))
    {
        if (!job_.get())
            detail::throw_create_failure("glr_export_create");
    }

    // Runs the job to its end. Returns glr_export_run's code: 0 when the output was
    // finalized (stats().stop says whether whole or cancelled), else the error, which is
    // also glr_last_error(). An outcome, not thrown: a caller reports each stop its way.
    int run() { return glr_export_run(job_.get()); }
    void cancel() noexcept { glr_export_cancel(job_.get()); }
    glr_export_stats stats() const
    {
        glr_export_stats s{};
        glr_export_get_stats(job_.get(), &s);
        return s;
    }
    glr_export *get() const { return job_.get(); }

private:
    detail::handle<glr_export, glr_export_destroy> job_;
};

} // namespace glr
