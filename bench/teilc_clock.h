/* Force-included (gcc -include) into the C file that teilc --main generates, so that
 * the bench can see the time of every run of the driver's --repeat loop, not only
 * the median and minimum it prints: every clock_gettime call of the driver goes
 * through bench_clock_gettime (teilc_clock.c), which records CLOCK_MONOTONIC
 * readings and prints them at exit as "bench_clock N T1 T2 ..." (ns) on stderr.
 * bench/bench.py pairs them into per-run times only if there are exactly two
 * readings per run and their median matches the driver's own time_ms line;
 * otherwise it uses the driver's numbers as they are. Nothing else changes. */
#ifndef BENCH_TEILC_CLOCK_H
#define BENCH_TEILC_CLOCK_H
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <time.h>
int bench_clock_gettime(clockid_t clk, struct timespec *ts);
#define clock_gettime bench_clock_gettime
#endif
