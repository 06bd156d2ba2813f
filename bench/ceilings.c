/* Machine ceilings for %peak and %roofline:
 *  - FMA peak: AVX-512 (and AVX2) FMA throughput loops, 24 (12) independent
 *    accumulator chains, on 1 and on all threads;
 *  - clock estimate from a dependent imul chain (3-cycle latency);
 *  - STREAM copy and triad (STREAM byte counting: 16 resp. 24 bytes per element,
 *    no write-allocate) on 3 arrays of 512 MiB (BENCH_QUICK=1: 32 MiB), 1 and all threads.
 * Build: gcc -O2 -march=native -fopenmp ceilings.c -o ceilings
 * Output: "ceiling NAME THREADS VALUE UNIT" lines. */
#include "harness.h"
#include <immintrin.h>
#include <omp.h>

static volatile double sink;

#ifdef __AVX512F__
static double fma512(long iters) {
  __m512d a0 = _mm512_set1_pd(1.0), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0,
          a8 = a0, a9 = a0, a10 = a0, a11 = a0, a12 = a0, a13 = a0, a14 = a0, a15 = a0, a16 = a0,
          a17 = a0, a18 = a0, a19 = a0, a20 = a0, a21 = a0, a22 = a0, a23 = a0;
  const __m512d m = _mm512_set1_pd(0.9999999), c = _mm512_set1_pd(1e-7);
  for (long i = 0; i < iters; i++) {
#define F(x)                    \
  x = _mm512_fmadd_pd(x, m, c); \
  __asm__ volatile("" : "+v"(x));
    F(a0) F(a1) F(a2) F(a3) F(a4) F(a5) F(a6) F(a7) F(a8) F(a9) F(a10) F(a11)
    F(a12) F(a13) F(a14) F(a15) F(a16) F(a17) F(a18) F(a19) F(a20) F(a21) F(a22) F(a23)
#undef F
  }
  __m512d s = _mm512_add_pd(_mm512_add_pd(a0, a1), _mm512_add_pd(a2, a3));
  s = _mm512_add_pd(s, _mm512_add_pd(_mm512_add_pd(a4, a5), _mm512_add_pd(a6, a7)));
  s = _mm512_add_pd(s, _mm512_add_pd(_mm512_add_pd(a8, a9), _mm512_add_pd(a10, a11)));
  s = _mm512_add_pd(s, _mm512_add_pd(_mm512_add_pd(a12, a13), _mm512_add_pd(a14, a15)));
  s = _mm512_add_pd(s, _mm512_add_pd(_mm512_add_pd(a16, a17), _mm512_add_pd(a18, a19)));
  s = _mm512_add_pd(s, _mm512_add_pd(_mm512_add_pd(a20, a21), _mm512_add_pd(a22, a23)));
  return _mm512_reduce_add_pd(s);
}
#endif

static double fma256(long iters) {
  __m256d a0 = _mm256_set1_pd(1.0), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0,
          a8 = a0, a9 = a0, a10 = a0, a11 = a0;
  const __m256d m = _mm256_set1_pd(0.9999999), c = _mm256_set1_pd(1e-7);
  for (long i = 0; i < iters; i++) {
#define F(x)                    \
  x = _mm256_fmadd_pd(x, m, c); \
  __asm__ volatile("" : "+x"(x));
    F(a0) F(a1) F(a2) F(a3) F(a4) F(a5) F(a6) F(a7) F(a8) F(a9) F(a10) F(a11)
#undef F
  }
  __m256d s = _mm256_add_pd(_mm256_add_pd(a0, a1), _mm256_add_pd(a2, a3));
  s = _mm256_add_pd(s, _mm256_add_pd(_mm256_add_pd(a4, a5), _mm256_add_pd(a6, a7)));
  s = _mm256_add_pd(s, _mm256_add_pd(_mm256_add_pd(a8, a9), _mm256_add_pd(a10, a11)));
  double t[4];
  _mm256_storeu_pd(t, s);
  return t[0] + t[1] + t[2] + t[3];
}

static long mulchain(long iters) {
  long x = 3, m = 1;
  for (long i = 0; i < iters; i++)
    __asm__ volatile(
        "imul %1, %0\n\timul %1, %0\n\timul %1, %0\n\timul %1, %0\n\timul %1, %0\n\t"
        "imul %1, %0\n\timul %1, %0\n\timul %1, %0\n\timul %1, %0\n\timul %1, %0\n\t"
        : "+r"(x)
        : "r"(m));
  return x;
}

static double median(double *t, int n) {
  qsort(t, (size_t)n, sizeof(double), bt_cmp);
  return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

#define REPS 7
static int quick;

static void peak(int threads, int w512) {
  double t[REPS];
  long iters = quick ? 2000000L : 20000000L;
  double per_iter = w512 ? 24.0 * 8 * 2 : 12.0 * 4 * 2;
  for (int r = 0; r < REPS; r++) {
    double t0 = bt_now();
#pragma omp parallel num_threads(threads)
    {
#ifdef __AVX512F__
      double v = w512 ? fma512(iters) : fma256(iters);
#else
      double v = fma256(iters);
#endif
      sink = v;
    }
    t[r] = bt_now() - t0;
  }
  double med = median(t + 1, REPS - 1);
  printf("ceiling %s %d %.2f GFLOP/s\n", w512 ? "fma_avx512" : "fma_avx2", threads,
         per_iter * (double)iters * threads / med * 1e-9);
}

static void clock_est(int threads) {
  double t[REPS];
  long iters = quick ? 2000000L : 20000000L;
  for (int r = 0; r < REPS; r++) {
    double t0 = bt_now();
#pragma omp parallel num_threads(threads)
    sink = (double)mulchain(iters);
    t[r] = bt_now() - t0;
  }
  printf("ceiling clock_est_imul %d %.3f GHz\n", threads, 30.0 * (double)iters / median(t + 1, REPS - 1) * 1e-9);
}

static void stream(int threads) {
  const size_t N = quick ? (size_t)1 << 22 : (size_t)1 << 26;
  double *a = bt_alloc((long long)N), *b = bt_alloc((long long)N), *c = bt_alloc((long long)N);
#pragma omp parallel for num_threads(threads) schedule(static)
  for (size_t i = 0; i < N; i++) a[i] = 1.0, b[i] = 2.0, c[i] = 0.5;
  const double s = 3.0;
  double tc[REPS], tt[REPS];
  for (int r = 0; r < REPS; r++) {
    double t0 = bt_now();
#pragma omp parallel for num_threads(threads) schedule(static)
    for (size_t i = 0; i < N; i++) c[i] = a[i];
    tc[r] = bt_now() - t0;
    t0 = bt_now();
#pragma omp parallel for num_threads(threads) schedule(static)
    for (size_t i = 0; i < N; i++) a[i] = b[i] + s * c[i];
    tt[r] = bt_now() - t0;
  }
  sink = a[N / 3] + c[N / 5];
  printf("ceiling stream_copy %d %.2f GB/s\n", threads, 16.0 * (double)N / median(tc + 1, REPS - 1) * 1e-9);
  printf("ceiling stream_triad %d %.2f GB/s\n", threads, 24.0 * (double)N / median(tt + 1, REPS - 1) * 1e-9);
  fflush(stdout);
  free(a), free(b), free(c);
}

int main(void) {
  const char *q = getenv("BENCH_QUICK");
  quick = q && *q && strcmp(q, "0");
  int T = omp_get_max_threads();
  clock_est(1);
#ifdef __AVX512F__
  peak(1, 1);
  if (T > 1) peak(T, 1);
#endif
  peak(1, 0);
  if (T > 1) peak(T, 0);
  stream(1);
  if (T > 1) stream(T);
  return 0;
}
