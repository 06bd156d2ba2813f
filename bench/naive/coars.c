/* Naive C coars (Harris coarsity, memory-bound):
 * R = Sxx.*Syy - Sxy.*Sxy - kappa (Sxx+Syy).*(Sxx+Syy), kappa a scalar input (0.04). */
#include "../harness.h"

typedef struct {
  long long M, N;
  const double *xx, *yy, *xy;
  double kappa;
  double *R;
} ctx_t;

static void run(void *p) {
  const ctx_t *c = p;
  const long long M = c->M, N = c->N;
  const double *xx = c->xx, *yy = c->yy, *xy = c->xy;
  const double kappa = c->kappa;
  double *R = c->R;
#pragma omp parallel for schedule(static)
  for (long long i = 0; i < M; i++)
    for (long long j = 0; j < N; j++) {
      long long x = i * N + j;
      double tr = xx[x] + yy[x];
      R[x] = (xx[x] * yy[x] - xy[x] * xy[x]) - kappa * (tr * tr);
    }
}

int main(int argc, char **argv) {
  bt_init(argc, argv, 0);
  long long a[2], b[2], d[2];
  ctx_t c;
  c.xx = bt_in("Sxx", 2, a);
  c.yy = bt_in("Syy", 2, b);
  c.xy = bt_in("Sxy", 2, d);
  c.kappa = bt_in("kappa", 0, NULL)[0];
  bt_need(a[0] == b[0] && a[1] == b[1] && a[0] == d[0] && a[1] == d[1], "Sxx, Syy, Sxy have one shape");
  c.M = a[0], c.N = a[1];
  c.R = bt_out("R", 2, a);
  printf("info threads %d\n", bt_threads());
  bt_time(run, &c);
  bt_finish();
  return 0;
}
