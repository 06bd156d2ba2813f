/*
 * lanes.c - a hand-written measurement, not teilc's output: the CFD operators
 * helm and interp (bench/kernels.py) with W consecutive elements in the W
 * lanes of a vector, against teilc's default code (one element at a time).
 * spec/schedule.md, "Lanes across elements", records what it measured.
 *
 * Built by bench/lanes.sh with -DN=n -DE=elements -DKER=<teilc's function>
 * -DHELM=0|1 and linked with teilc's C for the same program. Per group of W
 * elements: the inputs are transposed into [n, n, n, W] arrays (8 x 8
 * transposes), each contraction runs with the lane index innermost (one
 * 512-bit multiply-add per W elements, every lane used, whatever n), and the
 * result is transposed back. The sums run in teilc's order (same contraction
 * order, each from 0 upwards, one multiply-add per term), so the outputs
 * must be bit-identical to teilc's; the driver checks that before timing.
 * Needs AVX-512F (-march=native on an AVX-512 machine).
 */
#include <immintrin.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define W 8                   /* doubles in a 512-bit vector */
#define N2 (N * N)
#define N3 (N * N * N)
#define LINES (N3 * W / 8)    /* 64-byte lines in one group's slice of a tensor */

/* The next group's slices, prefetched a few lines per block of a contraction. */
typedef struct {
  const char *p[3];           /* the next group of u, D (or u again), v */
  long cur, total;
  int on, k;
} Prefetch;

static inline void prefetch_step(Prefetch *pf) {
  if (!pf->on)
    return;
  for (int i = 0; i < pf->k && pf->cur < pf->total; i++, pf->cur++) {
    long r = pf->cur / LINES, o = pf->cur % LINES;
    if (r == 2)
      __builtin_prefetch(pf->p[r] + o * 64, 1);
    else
      __builtin_prefetch(pf->p[r] + o * 64);
  }
}

/* out[(pa*pa_os + pb*pb_os + o*os)*W + w] = sum_l C[l][o] * in[(pa*pa_is + pb*pb_is + l*is)*W + w],
 * l = 0 .. N-1 in order: a block of N accumulators (one per o) of W lanes. */
static inline __attribute__((always_inline)) void contract(Prefetch *pf, const double *restrict in,
                                                           double *restrict out, const double *restrict C, int is,
                                                           int os, int pa_is, int pa_os, int pb_is, int pb_os) {
  for (int pa = 0; pa < N; pa++)
    for (int pb = 0; pb < N; pb++) {
      const double *restrict ip = in + (pa * pa_is + pb * pb_is) * W;
      double *restrict op = out + (pa * pa_os + pb * pb_os) * W;
      double acc[N][W];
      prefetch_step(pf);
#pragma GCC unroll 32
      for (int o = 0; o < N; o++)
#pragma omp simd
        for (int w = 0; w < W; w++)
          acc[o][w] = 0;
      for (int l = 0; l < N; l++) {
#pragma GCC unroll 32
        for (int o = 0; o < N; o++)
#pragma omp simd
          for (int w = 0; w < W; w++)
            acc[o][w] += C[l * N + o] * ip[l * is * W + w];
      }
#pragma GCC unroll 32
      for (int o = 0; o < N; o++)
#pragma omp simd
        for (int w = 0; w < W; w++)
          op[o * os * W + w] = acc[o][w];
    }
}

static inline void transpose8(__m512d r[8]) {
  __m512d t[8], s[8];
  for (int i = 0; i < 4; i++) {
    t[2 * i] = _mm512_unpacklo_pd(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm512_unpackhi_pd(r[2 * i], r[2 * i + 1]);
  }
  __m512i i0 = _mm512_set_epi64(13, 12, 5, 4, 9, 8, 1, 0), i1 = _mm512_set_epi64(15, 14, 7, 6, 11, 10, 3, 2);
  for (int k = 0; k < 2; k++) {
    s[4 * k] = _mm512_permutex2var_pd(t[4 * k], i0, t[4 * k + 2]);
    s[4 * k + 1] = _mm512_permutex2var_pd(t[4 * k + 1], i0, t[4 * k + 3]);
    s[4 * k + 2] = _mm512_permutex2var_pd(t[4 * k], i1, t[4 * k + 2]);
    s[4 * k + 3] = _mm512_permutex2var_pd(t[4 * k + 1], i1, t[4 * k + 3]);
  }
  __m512i j0 = _mm512_set_epi64(11, 10, 9, 8, 3, 2, 1, 0), j1 = _mm512_set_epi64(15, 14, 13, 12, 7, 6, 5, 4);
  for (int k = 0; k < 4; k++) {
    r[k] = _mm512_permutex2var_pd(s[k], j0, s[k + 4]);
    r[k + 4] = _mm512_permutex2var_pd(s[k], j1, s[k + 4]);
  }
}

/* A[x][w] = g[w*N3 + x], or with mul A[x][w] = g[w*N3 + x] * A[x][w]. */
static void lanes_in(const double *restrict g, double *restrict A, int mul) {
  for (int x0 = 0; x0 < N3 / 8 * 8; x0 += 8) {
    __m512d r[8];
    for (int w = 0; w < 8; w++)
      r[w] = _mm512_loadu_pd(g + w * N3 + x0);
    transpose8(r);
    for (int j = 0; j < 8; j++)
      _mm512_store_pd(A + (x0 + j) * W, mul ? _mm512_mul_pd(r[j], _mm512_load_pd(A + (x0 + j) * W)) : r[j]);
  }
  for (int x = N3 / 8 * 8; x < N3; x++)
    for (int w = 0; w < W; w++)
      A[x * W + w] = mul ? g[w * N3 + x] * A[x * W + w] : g[w * N3 + x];
}

static void lanes_out(const double *restrict A, double *restrict g) {
  for (int x0 = 0; x0 < N3 / 8 * 8; x0 += 8) {
    __m512d r[8];
    for (int j = 0; j < 8; j++)
      r[j] = _mm512_load_pd(A + (x0 + j) * W);
    transpose8(r);
    for (int w = 0; w < 8; w++)
      _mm512_storeu_pd(g + w * N3 + x0, r[w]);
  }
  for (int x = N3 / 8 * 8; x < N3; x++)
    for (int w = 0; w < W; w++)
      g[w * N3 + x] = A[x * W + w];
}

/* The contractions in teilc's lifted order (the program comment of its C):
 *   t1[l,m,x] = sum_n u[l,m,n] S[x,n]      t2[l,a,x] = sum_m t1[l,m,x] S[a,m]
 *   t3[c,a,x] = sum_l t2[l,a,x] S[c,l]     (interp: v = t3)
 *   helm: t4 = D t3, t5[c,a,q] = sum_x t4[c,a,x] S[x,q],
 *         t6[c,r,q] = sum_a t5[c,a,q] S[a,r],  v[c',r,q] = sum_c S[c,c'] t6[c,r,q] */
static void lanes_kernel(const double *restrict S, const double *restrict u, const double *restrict D,
                         double *restrict v) {
  double Ct[N2], C[N2];       /* Ct[l][o] = S[o][l], C[l][o] = S[l][o] */
  for (int l = 0; l < N; l++)
    for (int o = 0; o < N; o++) {
      Ct[l * N + o] = S[o * N + l];
      C[l * N + o] = S[l * N + o];
    }
#pragma omp parallel
  {
    double *A = aligned_alloc(64, N3 * W * 8), *B = aligned_alloc(64, N3 * W * 8);
#pragma omp for schedule(static)
    for (int g = 0; g < E / W; g++) {
      const double *ug = u + (long)g * W * N3, *Dg = HELM ? D + (long)g * W * N3 : ug;
      double *vg = v + (long)g * W * N3;
      int blocks = (HELM ? 6 : 3) * N2;
      Prefetch pf = {{(const char *)(ug + W * N3), (const char *)(Dg + W * N3), (const char *)(vg + W * N3)},
                     HELM ? 0 : LINES, 3 * LINES, g + 1 < E / W, 0};
      pf.k = (int)((pf.total - pf.cur + blocks - 1) / blocks);
      lanes_in(ug, A, 0);
      contract(&pf, A, B, Ct, 1, 1, N2, N2, N, N);
      contract(&pf, B, A, Ct, N, N, N2, N2, 1, 1);
      contract(&pf, A, B, Ct, N2, N2, N, N, 1, 1);
      if (HELM) {
        lanes_in(Dg, B, 1);
        contract(&pf, B, A, C, 1, 1, N2, N2, N, N);
        contract(&pf, A, B, C, N, N, N2, N2, 1, 1);
        contract(&pf, B, A, C, N2, N2, N, N, 1, 1);
        lanes_out(A, vg);
      } else
        lanes_out(B, vg);
    }
    free(A);
    free(B);
  }
}

#if HELM
void KER(const double *restrict S, const double *restrict u, const double *restrict D, double *restrict v,
         double *restrict work);
#define RUN_TEILC(S, u, D, v, work) KER(S, u, D, v, work)
#else
void KER(const double *restrict S, const double *restrict u, double *restrict v, double *restrict work);
#define RUN_TEILC(S, u, D, v, work) KER(S, u, v, work)
#endif

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 15;
  if (rounds < 1 || rounds > 99 || E % W) {
    fprintf(stderr, "lanes: rounds must be 1..99 and E a multiple of %d\n", W);
    return 2;
  }
  size_t nb = (size_t)E * N3 * 8;
  double *S = aligned_alloc(64, 64 * ((N2 * 8 + 63) / 64)), *u = aligned_alloc(64, nb), *D = aligned_alloc(64, nb);
  double *v1 = aligned_alloc(64, nb), *v2 = aligned_alloc(64, nb), *work = aligned_alloc(64, 1 << 20);
  if (!S || !u || !D || !v1 || !v2 || !work) {
    fprintf(stderr, "lanes: out of memory\n");
    return 1;
  }
  srand(1);
  for (int i = 0; i < N2; i++)
    S[i] = rand() / (double)RAND_MAX - 0.5;
  for (size_t i = 0; i < (size_t)E * N3; i++) {
    u[i] = rand() / (double)RAND_MAX;
    D[i] = rand() / (double)RAND_MAX + 0.5;
  }
  RUN_TEILC(S, u, D, v1, work);
  lanes_kernel(S, u, D, v2);
  if (memcmp(v1, v2, nb)) {
    fprintf(stderr, "lanes: the outputs differ from teilc's\n");
    return 1;
  }
  double t1[99], t2[99], r[99];
  for (int k = 0; k < rounds; k++) {                /* interleaved: teilc, then the lanes */
    double a = omp_get_wtime();
    RUN_TEILC(S, u, D, v1, work);
    double b = omp_get_wtime();
    lanes_kernel(S, u, D, v2);
    double c = omp_get_wtime();
    t1[k] = (b - a) * 1e3;
    t2[k] = (c - b) * 1e3;
    r[k] = t2[k] / t1[k];
  }
  qsort(t1, rounds, 8, cmp_double);
  qsort(t2, rounds, 8, cmp_double);
  qsort(r, rounds, 8, cmp_double);
  printf("%s n=%d E=%d: outputs bit-identical; teilc %.3f ms, lanes %.3f ms, median ratio lanes/teilc %.3f (%d rounds)\n",
         HELM ? "helm" : "interp", N, E, t1[rounds / 2], t2[rounds / 2], r[rounds / 2], rounds);
  return 0;
}
