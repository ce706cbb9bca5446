#include "latency.hpp"

#include <algorithm>
#include <chrono>

namespace glr {

int latency_histogram::bucket_of(uint64_t ns)
{
    if (ns < sub_count)
        return static_cast<int>(ns);
    int msb = 63 - __builtin_clzll(ns);
    int shift = msb - sub_bits;
    int sub = static_cast<int>((ns >> shift) & (sub_count - 1));
    return (shift + 1) * sub_count + sub;
}

uint64_t latency_histogram::bucket_middle(int bucket)
{
    if (bucket < sub_count)
        return static_cast<uint64_t>(bucket);
    int shift = bucket / sub_count - 1;
    uint64_t sub = static_cast<uint64_t>(bucket % sub_count);
    uint64_t low = (sub_count + sub) << shift;
    return low + ((uint64_t{1} << shift) >> 1);
}

void latency_histogram::record_ns(uint64_t ns)
{
    counts_[static_cast<size_t>(bucket_of(ns))]++;
    count_++;
    total_ns_ += ns;
    max_ns_ = std::max(max_ns_, ns);
}

glr_latency latency_histogram::summary() const
{
    glr_latency out{};
    if (count_ == 0)
        return out;
    auto ms = [](uint64_t ns) { return static_cast<double>(ns) / 1e6; };
    auto percentile = [&](double p) {
        // Smallest bucket whose cumulative count reaches p of all events.
        uint64_t rank = static_cast<uint64_t>(p * static_cast<double>(count_) + 0.5);
        rank = std::max<uint64_t>(rank, 1);
        uint64_t seen = 0;
        for (int b = 0; b < bucket_count; b++) {
            seen += counts_[static_cast<size_t>(b)];
            if (seen >= rank)
                return std::min(bucket_middle(b), max_ns_);
        }
        return max_ns_;
    };
    out.count = count_;
    out.total_ms = ms(total_ns_);
    out.mean_ms = out.total_ms / static_cast<double>(count_);
    out.p50_ms = ms(percentile(0.50));
    out.p95_ms = ms(percentile(0.95));
    out.p99_ms = ms(percentile(0.99));
    out.max_ms = ms(max_ns_);
    return out;
}

uint64_t now_ns()
{
    return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                     std::chrono::steady_clock::now().time_since_epoch())
                                     .count());
}

} // namespace glr
