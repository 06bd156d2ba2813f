/*
 * rows.c - a hand-written measurement, not teilc's output: the CFD operator
 * interp (v = (A x A x A) u, bench/kernels.py) at n = 12 with each
 * contraction's rows paired, against teilc's default code for the same
 * program. spec/schedule.md, "Paired rows at n = 12", records what it measured.
 *
 * teilc's per-element code writes a row of 12 lanes as one 512-bit and one
 * 256-bit multiply-add, which take two of the CPU's FMA slots for 12 lanes.
 * Here two rows, 24 values, are three whole vectors over the flattened (row,
 * column) index: vector 3q holds row 2q's columns 0..7, vector 3q + 1 row
 * 2q's columns 8..11 and row 2q + 1's columns 0..3, vector 3q + 2 row
 * 2q + 1's columns 4..11. Per term of a sum the two rows' coefficients are a
 * broadcast and a broadcast merged into lanes 4..7 of the middle vector, and
 * the other operand is read through three "windows" of its row: columns
 * 0..7, 8..11 then 0..3, 4..11. Each of the three contractions then takes
 * 18 vector multiply-adds per term of a 12 x 12 slice instead of 24:
 *   C1  t1[l][m][k] = sum_n u[l][m][n] A[k][n]   windows of A's columns: a table
 *   C2  t2[l][j][k] = sum_m A[j][m] t1[l][m][k]  windows of t1's rows: from the
 *                                               flat vectors by 256-bit halves
 *   C3  v[i][(j,k)] = sum_l A[i][l] t2[l][(j,k)] 144 contiguous lanes, no pairing
 * t1 and t2 are one element's, unpadded (144 values a slice, 64-byte
 * aligned). The sums run in teilc's order (the same contraction order, each
 * from 0 upwards, one multiply-add per term), so the outputs must be
 * bit-identical to teilc's; the driver checks that before timing.
 *
 * Built by bench/rows.sh with -DE=elements -DKER=<teilc's function> and
 * linked with teilc's C for interp at n = 12. Needs AVX-512F.
 */
#include <immintrin.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 12
#define N3 (N * N * N)

#define LO(x) _mm512_castpd512_pd256(x)
#define HI(x) _mm512_extractf64x4_pd(x, 1)
#define CAT(a, b) _mm512_insertf64x4(_mm512_castpd256_pd512(a), b, 1)
#define PRAGMA(x) _Pragma(#x)
#define UNROLL(n) PRAGMA(GCC unroll n)

/* acc[3q .. 3q + 2] += (coefficients a of row 2q, b of row 2q + 1) * windows */
#define PAIR_TERM(acc, q, a, b, w0, w1, w2)                                              \
  do {                                                                                 \
    acc[3 * (q)] = _mm512_fmadd_pd(a, w0, acc[3 * (q)]);                               \
    acc[3 * (q) + 1] = _mm512_fmadd_pd(_mm512_mask_blend_pd(0xF0, a, b), w1, acc[3 * (q) + 1]); \
    acc[3 * (q) + 2] = _mm512_fmadd_pd(b, w2, acc[3 * (q) + 2]);                       \
  } while (0)

static void rows_kernel(const double *restrict A, const double *restrict u, double *restrict v) {
  /* per n: A[k][n] for the columns k of windows 0, 1, 2 */
  double ATw[N * 24] __attribute__((aligned(64)));
  for (int n = 0; n < N; n++)
    for (int w = 0; w < 24; w++)
      ATw[24 * n + w] = A[N * (w % N) + n];
  #pragma omp parallel
  {
    #pragma omp for
    for (long e = 0; e < E; e++) {
      double t1[N3] __attribute__((aligned(64))), t2[N3] __attribute__((aligned(64)));
      const double *ue = u + (long)N3 * e;
      for (int l = 0; l < N; l++) { /* C1 */
        __m512d acc[18];
        if (e + 1 < E)
          for (int p = 0; p < 48; p += 8)
            __builtin_prefetch(&u[(long)N3 * (e + 1) + 48 * l + p]);
        UNROLL(18) for (int x = 0; x < 18; x++)
          acc[x] = _mm512_setzero_pd();
        for (int n = 0; n < N; n++) {
          __m512d w0 = _mm512_load_pd(ATw + 24 * n), w1 = _mm512_load_pd(ATw + 24 * n + 8);
          __m512d w2 = _mm512_load_pd(ATw + 24 * n + 16);
          UNROLL(6) for (int q = 0; q < 6; q++) {
            __m512d a = _mm512_set1_pd(ue[144 * l + N * 2 * q + n]);
            __m512d b = _mm512_set1_pd(ue[144 * l + N * (2 * q + 1) + n]);
            PAIR_TERM(acc, q, a, b, w0, w1, w2);
          }
        }
        UNROLL(18) for (int x = 0; x < 18; x++)
          _mm512_store_pd(t1 + 144 * l + 8 * x, acc[x]);
      }
      for (int l = 0; l < N; l++) { /* C2 */
        __m512d acc[18];
        if (e + 1 < E)
          for (int p = 0; p < 48; p += 8)
            __builtin_prefetch(&u[(long)N3 * (e + 1) + 48 * (N + l) + p]);
        UNROLL(18) for (int x = 0; x < 18; x++)
          acc[x] = _mm512_setzero_pd();
        for (int mp = 0; mp < 6; mp++) { /* rows m = 2mp, 2mp + 1 of t1's slice l */
          __m512d f0 = _mm512_load_pd(t1 + 144 * l + 24 * mp), f1 = _mm512_load_pd(t1 + 144 * l + 24 * mp + 8);
          __m512d f2 = _mm512_load_pd(t1 + 144 * l + 24 * mp + 16);
          UNROLL(2) for (int h = 0; h < 2; h++) {
            int m = 2 * mp + h;
            __m512d w0 = h ? CAT(HI(f1), LO(f2)) : f0, w1 = h ? CAT(HI(f2), HI(f1)) : CAT(LO(f1), LO(f0));
            __m512d w2 = h ? f2 : CAT(HI(f0), LO(f1));
            UNROLL(6) for (int q = 0; q < 6; q++) {
              __m512d a = _mm512_set1_pd(A[N * 2 * q + m]), b = _mm512_set1_pd(A[N * (2 * q + 1) + m]);
              PAIR_TERM(acc, q, a, b, w0, w1, w2);
            }
          }
        }
        UNROLL(18) for (int x = 0; x < 18; x++)
          _mm512_store_pd(t2 + 144 * l + 8 * x, acc[x]);
      }
      for (int ip = 0; ip < 6; ip++) { /* C3: rows i = 2ip, 2ip + 1, half of (j, k) at a time */
        if (e + 1 < E)
          for (int p = 0; p < 96; p += 8)
            __builtin_prefetch(&u[(long)N3 * (e + 1) + 1152 + 96 * ip + p]);
        for (int hv = 0; hv < 2; hv++) {
          __m512d acc0[9], acc1[9];
          UNROLL(9) for (int x = 0; x < 9; x++)
            acc0[x] = acc1[x] = _mm512_setzero_pd();
          for (int l = 0; l < N; l++) {
            __m512d a = _mm512_set1_pd(A[N * 2 * ip + l]), b = _mm512_set1_pd(A[N * (2 * ip + 1) + l]);
            UNROLL(9) for (int x = 0; x < 9; x++) {
              __m512d t = _mm512_load_pd(t2 + 144 * l + 72 * hv + 8 * x);
              acc0[x] = _mm512_fmadd_pd(a, t, acc0[x]);
              acc1[x] = _mm512_fmadd_pd(b, t, acc1[x]);
            }
          }
          UNROLL(9) for (int x = 0; x < 9; x++) { /* v streamed, as teilc's code does (R-CG-26) */
            _mm512_stream_pd(v + (long)N3 * e + 144 * 2 * ip + 72 * hv + 8 * x, acc0[x]);
            _mm512_stream_pd(v + (long)N3 * e + 144 * (2 * ip + 1) + 72 * hv + 8 * x, acc1[x]);
          }
        }
      }
    }
    _mm_sfence();
  }
}

/* The floor for any kernel that reads u and writes v once: u copied to v with
 * the same streaming stores. */
static void copy_kernel(const double *restrict A, const double *restrict u, double *restrict v) {
  (void)A;
  #pragma omp parallel for
  for (long e = 0; e < E; e++)
    for (int x = 0; x < N3; x += 8)
      _mm512_stream_pd(v + (long)N3 * e + x, _mm512_load_pd(u + (long)N3 * e + x));
  _mm_sfence();
}

#include "hand.h"

int main(int argc, char **argv) {
  return hand_main(argc, argv, "rows", rows_kernel, copy_kernel);
}
