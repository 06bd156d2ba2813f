/*
 * tails.c - a hand-written measurement, not teilc's output: the CFD operator
 * interp (v = (A x A x A) u, bench/kernels.py) at 8 < n < 16 with the rows'
 * last columns transposed, against teilc's code for the same program.
 * spec/schedule.md, "Transposed tails", records what it measured.
 *
 * teilc's per-element code writes a row of n lanes as one vector of 8 and a
 * remainder of T = n - 8 lanes that costs a whole vector operation. Where a
 * contraction's coefficient is the matrix A and the row is a row of the
 * temporary it reads, the T last columns of all n rows can instead be T
 * columns of vectors over the rows (rows 0..7 and 8..n-1): the term of row j,
 * column 8 + c is A[j][m] * t[m][8 + c], so a vector over j multiplies a
 * column of A (a table A^T, read once per call) by one broadcast value. Per
 * term of a sum that is n + 2T vector multiply-adds instead of 2n:
 *   C1  t1[l][m][k] = sum_n u[l][m][n] A[k][n]   rows, as teilc (the
 *                                               coefficient is u: no tails)
 *   C2  t2[l][j][k] = sum_m A[j][m] t1[l][m][k]  heads t2h[l][j][0..7], tails
 *                                               t2t[l][c][j] (stored over j)
 *   C3  v[i][j][k]  = sum_l A[i][l] t2[l][j][k]  heads and tails from t2h, t2t;
 *                                               the tails copied into v's rows
 * v is staged per element and written with streaming stores; the next
 * element's u is prefetched during C1. The sums run in teilc's order (the same
 * contraction order, each from 0 upwards, one multiply-add per term), so the
 * outputs must be bit-identical to teilc's; the driver checks that first.
 *
 * Built by bench/tails.sh with -DN=n -DE=elements -DKER=<teilc's function>
 * and linked with teilc's C for interp at n (default schedule, or the flags
 * in TEILC_FLAGS). Needs AVX-512F.
 */
#include <immintrin.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if N <= 8 || N >= 16
#error "tails.c needs 8 < N < 16"
#endif
#define N2 (N * N)
#define N3 (N * N * N)
#define T (N - 8)                /* the columns of a row past its first vector */
#define PRAGMA(x) _Pragma(#x)
#define UNROLL(n) PRAGMA(GCC unroll n)

static void stream_out(double *restrict dst, const double *restrict src, long n) {
  long k = 0, h = (long)(((64 - ((unsigned long)dst & 63)) & 63) / 8), m;
  if (h > n) h = n;
  m = h + (n - h) / 8 * 8;
  for (; k < h; k++) dst[k] = src[k];
  for (; k < m; k += 8) _mm512_stream_pd(dst + k, _mm512_loadu_pd(src + k));
  for (; k < n; k++) dst[k] = src[k];
}

static void tails_kernel(const double *restrict A, const double *restrict u, double *restrict v) {
  /* AT[m][j] = A[j][m], 0 for j >= N: C1's row of A's column m and C2's column of
   * coefficients for the tails */
  double AT[N * 16] __attribute__((aligned(64)));
  for (int m = 0; m < N; m++)
    for (int j = 0; j < 16; j++)
      AT[16 * m + j] = j < N ? A[N * j + m] : 0;
  #pragma omp parallel
  {
    double t1[N * N * 16] __attribute__((aligned(64)));   /* [l][m][16] rows */
    double t2h[N * N * 8] __attribute__((aligned(64)));   /* [l][j][8] heads */
    double t2t[N * T * 16] __attribute__((aligned(64)));  /* [l][c][16] tails over j */
    double vs[N3 + 8] __attribute__((aligned(64)));
    #pragma omp for
    for (long e = 0; e < E; e++) {
      const double *ue = u + (long)N3 * e;
      for (int l = 0; l < N; l++) { /* C1 in rows: t1[l][m][k] = sum_n u[l][m][n] A[k][n] */
        __m512d acc[N][2];
        if (e + 1 < E)
          for (int p = 0; p < N2; p += 8)
            __builtin_prefetch(&u[(long)N3 * (e + 1) + N2 * l + p]);
        UNROLL(16) for (int m = 0; m < N; m++) acc[m][0] = acc[m][1] = _mm512_setzero_pd();
        for (int n = 0; n < N; n++) {
          __m512d w0 = _mm512_load_pd(AT + 16 * n), w1 = _mm512_load_pd(AT + 16 * n + 8);
          UNROLL(16) for (int m = 0; m < N; m++) {
            __m512d a = _mm512_set1_pd(ue[N2 * l + N * m + n]);
            acc[m][0] = _mm512_fmadd_pd(a, w0, acc[m][0]);
            acc[m][1] = _mm512_fmadd_pd(a, w1, acc[m][1]);
          }
        }
        UNROLL(16) for (int m = 0; m < N; m++) {
          _mm512_store_pd(t1 + 16 * (N * l + m), acc[m][0]);
          _mm512_store_pd(t1 + 16 * (N * l + m) + 8, acc[m][1]);
        }
      }
      for (int l = 0; l < N; l++) { /* C2: t2[l][j][k] = sum_m A[j][m] t1[l][m][k] */
        __m512d h[N], t[T][2];
        UNROLL(16) for (int j = 0; j < N; j++) h[j] = _mm512_setzero_pd();
        UNROLL(8) for (int c = 0; c < T; c++) t[c][0] = t[c][1] = _mm512_setzero_pd();
        for (int m = 0; m < N; m++) {
          __m512d w = _mm512_load_pd(t1 + 16 * (N * l + m));
          UNROLL(16) for (int j = 0; j < N; j++) h[j] = _mm512_fmadd_pd(_mm512_set1_pd(A[N * j + m]), w, h[j]);
          __m512d c0 = _mm512_load_pd(AT + 16 * m), c1 = _mm512_load_pd(AT + 16 * m + 8);
          UNROLL(8) for (int c = 0; c < T; c++) {
            __m512d x = _mm512_set1_pd(t1[16 * (N * l + m) + 8 + c]);
            t[c][0] = _mm512_fmadd_pd(c0, x, t[c][0]);
            t[c][1] = _mm512_fmadd_pd(c1, x, t[c][1]);
          }
        }
        UNROLL(16) for (int j = 0; j < N; j++) _mm512_store_pd(t2h + 8 * (N * l + j), h[j]);
        UNROLL(8) for (int c = 0; c < T; c++) {
          _mm512_store_pd(t2t + 16 * (T * l + c), t[c][0]);
          _mm512_store_pd(t2t + 16 * (T * l + c) + 8, t[c][1]);
        }
      }
      for (int i = 0; i < N; i++) { /* C3: v[i][j][k] = sum_l A[i][l] t2[l][j][k] */
        __m512d h[N], t[T][2];
        UNROLL(16) for (int j = 0; j < N; j++) h[j] = _mm512_setzero_pd();
        UNROLL(8) for (int c = 0; c < T; c++) t[c][0] = t[c][1] = _mm512_setzero_pd();
        for (int l = 0; l < N; l++) {
          __m512d a = _mm512_set1_pd(A[N * i + l]);
          UNROLL(16) for (int j = 0; j < N; j++) h[j] = _mm512_fmadd_pd(a, _mm512_load_pd(t2h + 8 * (N * l + j)), h[j]);
          UNROLL(8) for (int c = 0; c < T; c++) {
            t[c][0] = _mm512_fmadd_pd(a, _mm512_load_pd(t2t + 16 * (T * l + c)), t[c][0]);
            t[c][1] = _mm512_fmadd_pd(a, _mm512_load_pd(t2t + 16 * (T * l + c) + 8), t[c][1]);
          }
        }
        double tt[T][16] __attribute__((aligned(64)));
        UNROLL(16) for (int j = 0; j < N; j++) _mm512_storeu_pd(vs + N2 * i + N * j, h[j]);
        UNROLL(8) for (int c = 0; c < T; c++) {
          _mm512_store_pd(tt[c], t[c][0]);
          _mm512_store_pd(tt[c] + 8, t[c][1]);
        }
        for (int j = 0; j < N; j++)
          UNROLL(8) for (int c = 0; c < T; c++) vs[N2 * i + N * j + 8 + c] = tt[c][j];
      }
      stream_out(v + (long)N3 * e, vs, N3);
    }
    _mm_sfence();
  }
}

#include "hand.h"

int main(int argc, char **argv) {
  return hand_main(argc, argv, "tails", tails_kernel, NULL);
}
