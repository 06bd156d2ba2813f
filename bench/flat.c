/*
 * flat.c - a hand-edited measurement, not teilc's output: teilc's code for
 * the CFD operator interp at n = 12 or 13 with its last contraction over the
 * flattened (j, k) slice (bench/flat.py makes interp_flat from teilc's C),
 * against teilc's code as it is. spec/schedule.md, "A flat last contraction",
 * records what it measured. Built by bench/flat.sh with -DN=n -DE=elements
 * -DKER=interp and linked with both C files. Needs AVX-512F.
 */
#include <immintrin.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N3 (N * N * N)

#include "hand.h"

void interp_flat(const double *restrict A, const double *restrict u, double *restrict v, double *restrict work);

static double flat_work[1 << 17] __attribute__((aligned(64)));

static void flat_kernel(const double *restrict A, const double *restrict u, double *restrict v) {
  interp_flat(A, u, v, flat_work);
}

int main(int argc, char **argv) { return hand_main(argc, argv, "flat", flat_kernel, NULL); }
