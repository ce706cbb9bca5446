// The modes of glreader-bench, one file each; argv holds the mode's own options.
#pragma once

namespace bench {

int bench_info(int argc, char **argv);
int bench_ring(int argc, char **argv);
int bench_encode(int argc, char **argv);
int bench_pipe(int argc, char **argv);
int bench_compare(int argc, char **argv);
int bench_filter(int argc, char **argv);

} // namespace bench
