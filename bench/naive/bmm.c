/* Naive C bmm: C[b,i,j] = sum_k A[b,i,k] B[b,k,j] (einsum 'bik,bkj->bij').
 * Textbook loop nest, batch loop outermost (parallel with -fopenmp). */
#include "../harness.h"

typedef struct {
  long long Bt, I, K, J;
  const double *A, *B;
  double *C;
} ctx_t;

static void run(void *p) {
  const ctx_t *c = p;
  const long long Bt = c->Bt, I = c->I, K = c->K, J = c->J;
  const double *A = c->A, *B = c->B;
  double *C = c->C;
#pragma omp parallel for schedule(static)
  for (long long b = 0; b < Bt; b++)
    for (long long i = 0; i < I; i++)
      for (long long j = 0; j < J; j++) {
        double s = 0.0;
        for (long long k = 0; k < K; k++) s += A[(b * I + i) * K + k] * B[(b * K + k) * J + j];
        C[(b * I + i) * J + j] = s;
      }
}

int main(int argc, char **argv) {
  bt_init(argc, argv, 0);
  long long a[3], b[3];
  ctx_t c;
  c.A = bt_in("A", 3, a);
  c.B = bt_in("B", 3, b);
  bt_need(a[0] == b[0] && a[2] == b[1], "A is [b,I,K] and B is [b,K,J]");
  c.Bt = a[0], c.I = a[1], c.K = a[2], c.J = b[2];
  long long d[3] = {c.Bt, c.I, c.J};
  c.C = bt_out("C", 3, d);
  printf("info threads %d\n", bt_threads());
  bt_time(run, &c);
  bt_finish();
  return 0;
}
