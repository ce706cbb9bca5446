// glreader-bench: side-by-side measurements, interleaved in one run so that every ratio
// compares numbers taken under the same machine conditions. One mode per file:
// ring_bench.cpp, encode_bench.cpp, compare_bench.cpp (pipe and compare), filter_bench.cpp;
// gl_info.cpp says what they run on.
#include "common.hpp"
#include "modes.hpp"

#include <cstdio>
#include <exception>
#include <string>

int main(int argc, char **argv)
{
    // Tables a line at a time: a run stopped at its time limit keeps what it printed.
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
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
        if (mode == "--version") {
            sample::print_version("glreader-bench");
            return 0;
        }
        bool help = mode == "-h" || mode == "--help";
        if (help)
            std::fprintf(stdout, "%s", bench::help().text().c_str());
        else
            std::fprintf(stderr, "glreader-bench: %s\n(glreader-bench --help lists every mode and option)\n",
                         mode.empty() ? "which mode? info, ring, encode, pipe, compare or filter"
                                      : ("unknown mode " + mode).c_str());
        return help ? 0 : 2;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "glreader-bench: %s\n", e.what());
        return 1;
    }
}
