// Fixed-size log-scale histogram of durations, for p50/p95/p99 without keeping samples.
#pragma once

#include "glreader/stats.h"

#include <array>
#include <cstdint>

namespace glr {

class latency_histogram {
public:
    void record_ns(uint64_t ns);
    glr_latency summary() const;

private:
    // 32 buckets per power of two: each bucket spans at most 1/32 of its value (~3%).
    static constexpr int sub_bits = 5;
    static constexpr int sub_count = 1 << sub_bits;
    static constexpr int bucket_count = (64 - sub_bits + 1) * sub_count;

    static int bucket_of(uint64_t ns);
    static uint64_t bucket_middle(int bucket);

    std::array<uint64_t, bucket_count> counts_{};
    uint64_t count_ = 0;
    uint64_t total_ns_ = 0;
    uint64_t max_ns_ = 0;
};

// Nanoseconds on the monotonic clock.
uint64_t now_ns();

} // namespace glr
