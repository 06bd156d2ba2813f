/* Naive C mm: C[i,j] = sum_k A[i,k] B[k,j] (einsum 'ik,kj->ij'), A [M,K], B [K,N].
 * Textbook loop nest: output indices outermost in output order, reduction
 * innermost, scalar accumulator; with -fopenmp the outermost loop is parallel.
 * Built twice by bench/bench.py: gcc -O3 -march=native [-fopenmp]. */
#include "../harness.h"

typedef struct {
  long long M, K, N;
  const double *A, *B;
  double *C;
} ctx_t;

static void run(void *p) {
  const ctx_t *c = p;
  const long long M = c->M, K = c->K, N = c->N;
  const double *A = c->A, *B = c->B;
  double *C = c->C;
#pragma omp parallel for schedule(static)
  for (long long i = 0; i < M; i++)
    for (long long j = 0; j < N; j++) {
      double s = 0.0;
      for (long long k = 0; k < K; k++) s += A[i * K + k] * B[k * N + j];
      C[i * N + j] = s;
    }
}

int main(int argc, char **argv) {
  bt_init(argc, argv, 0);
  long long a[2], b[2];
  ctx_t c;
  c.A = bt_in("A", 2, a);
  c.B = bt_in("B", 2, b);
  bt_need(a[1] == b[0], "A is [M,K] and B is [K,N]");
  c.M = a[0], c.K = a[1], c.N = b[1];
  long long d[2] = {c.M, c.N};
  c.C = bt_out("C", 2, d);
  printf("info threads %d\n", bt_threads());
  bt_time(run, &c);
  bt_finish();
  return 0;
}
