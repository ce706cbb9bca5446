// glreader-bench: side-by-side measurements, interleaved in one run so that every ratio
// compares numbers taken under the same machine conditions. One mode per file:
// ring_bench.cpp, encode_bench.cpp, compare_bench.cpp (pipe and compare), filter_bench.cpp;
// gl_info.cpp says what they run on.
#include "modes.hpp"

#include <cstdio>
#include <exception>
#include <string>

int main(int argc, char **argv)
{
    std::string mode = argc > 1 ? argv[1] : "";
    try {
        if (mode == "info")
            return bench::bench_info(argc - 2, argv + 2);
        if (mode == "ring")
            return bench::bench_ring(argc - 2, argv + 2);
        if (mode == "encode")
            return bench::bench_encode(argc - 2, argv + 2);
        if (mode == "pipe")
            return bench::bench_pipe(argc - 2, argv + 2);
        if (mode == "compare")
            return bench::bench_compare(argc - 2, argv + 2);
        if (mode == "filter")
            return bench::bench_filter(argc - 2, argv + 2);
        std::fprintf(stderr,
                     "usage: glreader-bench info [--json FILE]\n"
                     "       glreader-bench ring [--sizes 720p,1080p,2160p] [--runs N] [--frames N] [--json FILE]\n"
                     "       glreader-bench encode [--sizes 720p,1080p] [--presets ultrafast,slow] [--runs N]\n"
                     "                             [--frames N] [--json FILE]\n"
                     "       glreader-bench pipe|compare [--sizes 720p,1080p,2160p] [--outputs null,ultrafast,slow]\n"
                     "                             [--buffers 1,4] [--runs N] [--frames N] [--seconds S]\n"
                     "                             [--no-load-row] [--python PROGRAM] [--json FILE]\n"
                     "       glreader-bench filter [--ffmpeg PATH] [--sizes 720p,1080p] [--codecs rawvideo,ffv1]\n"
                     "                             [--depth N] [--shader FILE] [--runs N] [--frames N] [--json FILE]\n"
                     "  compare needs TurboPipe's environment: scripts/bench-setup.sh\n"
                     "  filter needs a patched ffmpeg: ffmpeg-patches/build.sh 9.0\n");
        return 2;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "glreader-bench: %s\n", e.what());
        return 1;
    }
}
