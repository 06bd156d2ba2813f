/* Naive C sddmm: A[i,j] = S[i,j] * sum_k B[i,k] C[k,j] (einsum 'ij,ik,kj->ij', S dense),
 * S [M,N], B [M,K], C [K,N]. Textbook loop nest. */
#include "../harness.h"

typedef struct {
  long long M, N, K;
  const double *S, *B, *C;
  double *A;
} ctx_t;

static void run(void *p) {
  const ctx_t *c = p;
  const long long M = c->M, N = c->N, K = c->K;
  const double *S = c->S, *B = c->B, *C = c->C;
  double *A = c->A;
#pragma omp parallel for schedule(static)
  for (long long i = 0; i < M; i++)
    for (long long j = 0; j < N; j++) {
      double s = 0.0;
      for (long long k = 0; k < K; k++) s += B[i * K + k] * C[k * N + j];
      A[i * N + j] = S[i * N + j] * s;
    }
}

int main(int argc, char **argv) {
  bt_init(argc, argv, 0);
  long long s[2], b[2], cc[2];
  ctx_t c;
  c.S = bt_in("S", 2, s);
  c.B = bt_in("B", 2, b);
  c.C = bt_in("C", 2, cc);
  bt_need(b[0] == s[0] && cc[1] == s[1] && b[1] == cc[0], "S is [M,N], B is [M,K], C is [K,N]");
  c.M = s[0], c.N = s[1], c.K = b[1];
  c.A = bt_out("A", 2, s);
  printf("info threads %d\n", bt_threads());
  bt_time(run, &c);
  bt_finish();
  return 0;
}
