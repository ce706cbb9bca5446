/*
 * glreader: latency summaries used in every object's statistics.
 */
#ifndef GLREADER_STATS_H
#define GLREADER_STATS_H

#include "glreader/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How long one stage took, over every event recorded so far. Percentiles come from a
 * fixed-size log-scale histogram (memory does not grow with the run; values within ~3%).
 * All times are in milliseconds; every field is 0 when count is 0. */
struct glr_latency {
    uint64_t count;
    double total_ms;
    double mean_ms;
    double p50_ms, p95_ms, p99_ms;
    double max_ms;
};

#ifdef __cplusplus
}
#endif

#endif /* GLREADER_STATS_H */
