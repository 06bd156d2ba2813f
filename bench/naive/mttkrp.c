/* Naive C mttkrp: A[i,j] = sum_{k,l} B[i,k,l] D[l,j] C[k,j] (einsum 'ikl,lj,kj->ij'),
 * B [I,K,L], C [K,J], D [L,J]. Textbook loop nest: 3 flops per (i,j,k,l) point. */
#include "../harness.h"

typedef struct {
  long long I, J, K, L;
  const double *B, *C, *D;
  double *A;
} ctx_t;

static void run(void *p) {
  const ctx_t *c = p;
  const long long I = c->I, J = c->J, K = c->K, L = c->L;
  const double *B = c->B, *C = c->C, *D = c->D;
  double *A = c->A;
#pragma omp parallel for schedule(static)
  for (long long i = 0; i < I; i++)
    for (long long j = 0; j < J; j++) {
      double s = 0.0;
      for (long long k = 0; k < K; k++)
        for (long long l = 0; l < L; l++) s += B[(i * K + k) * L + l] * D[l * J + j] * C[k * J + j];
      A[i * J + j] = s;
    }
}

int main(int argc, char **argv) {
  bt_init(argc, argv, 0);
  long long b[3], cc[2], d[2];
  ctx_t c;
  c.B = bt_in("B", 3, b);
  c.C = bt_in("C", 2, cc);
  c.D = bt_in("D", 2, d);
  bt_need(cc[0] == b[1] && d[0] == b[2] && cc[1] == d[1], "B is [I,K,L], C is [K,J], D is [L,J]");
  c.I = b[0], c.K = b[1], c.L = b[2], c.J = cc[1];
  long long o[2] = {c.I, c.J};
  c.A = bt_out("A", 2, o);
  printf("info threads %d\n", bt_threads());
  bt_time(run, &c);
  bt_finish();
  return 0;
}
