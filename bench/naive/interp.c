/* Naive C interp and the CFD sweep: v[e,i,j,k] = sum_{l,m,n} A[i,l] A[j,m] A[k,n] u[e,l,m,n]
 * (einsum 'il,jm,kn,elmn->eijk'), A [n,n], u [E,n,n,n]. Per element, sum-factorised
 * (tp3.h); the element loop is parallel with -fopenmp. */
#include "../harness.h"
#include "tp3.h"

typedef struct {
  long long E, n;
  const double *A, *u;
  double *v;
} ctx_t;

static void run(void *p) {
  const ctx_t *c = p;
  const long long n = c->n, n3 = n * n * n;
#pragma omp parallel
  {
    double *t1 = bt_alloc(n3), *t2 = bt_alloc(n3);
#pragma omp for schedule(static)
    for (long long e = 0; e < c->E; e++) tp3(n, c->A, 0, c->u + e * n3, c->v + e * n3, t1, t2);
    free(t1);
    free(t2);
  }
}

int main(int argc, char **argv) {
  bt_init(argc, argv, 0);
  long long a[2], u[4];
  ctx_t c;
  c.A = bt_in("A", 2, a);
  c.u = bt_in("u", 4, u);
  bt_need(a[0] == a[1] && u[1] == a[0] && u[2] == a[0] && u[3] == a[0], "A is [n,n], u is [E,n,n,n]");
  c.E = u[0], c.n = a[0];
  c.v = bt_out("v", 4, u);
  printf("info threads %d\n", bt_threads());
  bt_time(run, &c);
  bt_finish();
  return 0;
}
