/* Naive C helm: v = (S^T x S^T x S^T)(D .* ((S x S x S) u)) per element, S [n,n],
 * u, D [E,n,n,n]: t = einsum('il,jm,kn,elmn->eijk', S,S,S,u),
 * v = einsum('li,mj,nk,elmn->eijk', S,S,S,D*t). Sum-factorised (tp3.h). */
#include "../harness.h"
#include "tp3.h"

typedef struct {
  long long E, n;
  const double *S, *u, *D;
  double *v;
} ctx_t;

static void run(void *p) {
  const ctx_t *c = p;
  const long long n = c->n, n3 = n * n * n;
#pragma omp parallel
  {
    double *t1 = bt_alloc(n3), *t2 = bt_alloc(n3), *w = bt_alloc(n3);
#pragma omp for schedule(static)
    for (long long e = 0; e < c->E; e++) {
      tp3(n, c->S, 0, c->u + e * n3, w, t1, t2);
      const double *De = c->D + e * n3;
      for (long long x = 0; x < n3; x++) w[x] *= De[x];
      tp3(n, c->S, 1, w, c->v + e * n3, t1, t2);
    }
    free(t1);
    free(t2);
    free(w);
  }
}

int main(int argc, char **argv) {
  bt_init(argc, argv, 0);
  long long s[2], u[4], d[4];
  ctx_t c;
  c.S = bt_in("S", 2, s);
  c.u = bt_in("u", 4, u);
  c.D = bt_in("D", 4, d);
  bt_need(s[0] == s[1] && u[1] == s[0] && u[2] == s[0] && u[3] == s[0] && !memcmp(u, d, sizeof u),
          "S is [n,n], u and D are [E,n,n,n]");
  c.E = u[0], c.n = s[0];
  c.v = bt_out("v", 4, u);
  printf("info threads %d\n", bt_threads());
  bt_time(run, &c);
  bt_finish();
  return 0;
}
