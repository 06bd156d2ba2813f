/* OpenBLAS (cblas) peers, wherever a kernel maps to GEMM.
 *   blas KERNEL:VARIANT --in NAME=FILE.npy ... --out NAME=FILE.npy
 * KERNEL is mm, tmm, bmm, mttkrp, sddmm, interp (also the CFD sweep) or helm.
 * VARIANT:
 *   openblas           OpenBLAS threading (OPENBLAS_NUM_THREADS)
 *   openblas-1t        the same call on one thread (mm, tmm)
 *   openblas-loop      bmm: loop of per-batch dgemm calls, OpenBLAS threading
 *   openblas-loop-omp  bmm, mttkrp: OpenMP loop over batch (resp. i) of 1-thread dgemm calls
 *   openblas-mxm-omp   interp/helm: Nek5000-style n+2 small dgemm per element, OpenMP over elements
 *   openblas-3gemm     interp/helm: three whole-batch GEMMs + one blocked transpose
 * The OpenBLAS core that runs is printed as "info openblas_core NAME threads N"
 * (Debian's 0.3.21 needs OPENBLAS_CORETYPE=SkylakeX on recent CPUs: bench/README.md). */
#include "harness.h"
#include <cblas.h>
#undef I /* complex.h, pulled in by openblas_config.h */
#include <omp.h>

extern void openblas_set_num_threads(int);
extern int openblas_get_num_threads(void);
extern char *openblas_get_corename(void);

static int NT;    /* OpenBLAS threads for the library-threaded variants */
static int inner; /* 1: OpenMP loop around 1-thread calls */

typedef struct {
  long long a, b, c, d; /* sizes, per kernel */
  const double *X, *Y, *Z;
  double *out, *t0, *t1;
} ctx_t;
static ctx_t g;

/* ------------------------------------------------------------ mm, tmm */
static void mm_run(void *p) {
  ctx_t *c = p; /* a=M, b=K, c=N */
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)c->a, (int)c->c, (int)c->b, 1.0, c->X,
              (int)c->b, c->Y, (int)c->c, 0.0, c->out, (int)c->c);
}
static void tmm_run(void *p) {
  ctx_t *c = p; /* A is [K,M] */
  cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)c->a, (int)c->c, (int)c->b, 1.0, c->X,
              (int)c->a, c->Y, (int)c->c, 0.0, c->out, (int)c->c);
}

/* ------------------------------------------------------------ bmm: a=b, b=I, c=K, d=J */
static void bmm_one(const ctx_t *c, long long b) {
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)c->b, (int)c->d, (int)c->c, 1.0,
              c->X + b * c->b * c->c, (int)c->c, c->Y + b * c->c * c->d, (int)c->d, 0.0,
              c->out + b * c->b * c->d, (int)c->d);
}
static void bmm_loop(void *p) {
  for (long long b = 0; b < ((ctx_t *)p)->a; b++) bmm_one(p, b);
}
static void bmm_loop_omp(void *p) {
  ctx_t *c = p;
#pragma omp parallel for schedule(static)
  for (long long b = 0; b < c->a; b++) bmm_one(c, b);
}

/* ------------------------------------------------------------ mttkrp: a=I, b=J, c=K, d=L
 * X=B [I,K,L], Y=C [K,J], Z=D [L,J]; A[i,j] = sum_k T[i,k,j] C[k,j] with T = B D */
static void mt_reduce(const ctx_t *c, const double *Ti, long long i) {
  const long long J = c->b, K = c->c;
  double *Ai = c->out + i * J;
  for (long long j = 0; j < J; j++) Ai[j] = 0.0;
  for (long long k = 0; k < K; k++) {
    const double *Tk = Ti + k * J, *Ck = c->Y + k * J;
    for (long long j = 0; j < J; j++) Ai[j] += Tk[j] * Ck[j];
  }
}
static void mt_big(void *p) { /* one (I*K x L)(L x J) GEMM, then the reduction over k */
  ctx_t *c = p;
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)(c->a * c->c), (int)c->b, (int)c->d, 1.0, c->X,
              (int)c->d, c->Z, (int)c->b, 0.0, c->t0, (int)c->b);
#pragma omp parallel for schedule(static)
  for (long long i = 0; i < c->a; i++) mt_reduce(c, c->t0 + i * c->c * c->b, i);
}
static void mt_peri(void *p) { /* per i: T_i = B_i D (K x J), reduced while in cache */
  ctx_t *c = p;
#pragma omp parallel
  {
    double *Ti = c->t0 + (long long)omp_get_thread_num() * c->c * c->b;
#pragma omp for schedule(static)
    for (long long i = 0; i < c->a; i++) {
      cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)c->c, (int)c->b, (int)c->d, 1.0,
                  c->X + i * c->c * c->d, (int)c->d, c->Z, (int)c->b, 0.0, Ti, (int)c->b);
      mt_reduce(c, Ti, i);
    }
  }
}

/* ------------------------------------------------------------ sddmm: a=M, b=N, c=K
 * X=S, Y=B [M,K], Z=C [K,N] */
static void sd_run(void *p) {
  ctx_t *c = p;
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)c->a, (int)c->b, (int)c->c, 1.0, c->Y,
              (int)c->c, c->Z, (int)c->b, 0.0, c->out, (int)c->b);
  const long long nn = c->a * c->b;
  double *A = c->out;
  const double *S = c->X;
#pragma omp parallel for schedule(static)
  for (long long x = 0; x < nn; x++) A[x] *= S[x];
}

/* ------------------------------------------------------------ interp / helm: a=E, b=n
 * X = A or S [n,n], Y = u, Z = D (helm) */
static void gemm_rot(int n, long long rows, const double *M, int transM, const double *X, double *Y) {
  /* Y[k, r] = sum_q M(k,q) X[r, q]: contracts the last index of X, new index first */
  cblas_dgemm(CblasRowMajor, transM ? CblasTrans : CblasNoTrans, CblasTrans, n, (int)rows, n, 1.0, M, n, X, n,
              0.0, Y, (int)rows);
}
static void transpose_mul(long long n3, long long E, const double *in, const double *D, double *out) {
  const long long BS = 64;
#pragma omp parallel for schedule(static)
  for (long long e0 = 0; e0 < E; e0 += BS) {
    long long e1 = e0 + BS < E ? e0 + BS : E;
    for (long long x0 = 0; x0 < n3; x0 += BS) {
      long long x1 = x0 + BS < n3 ? x0 + BS : n3;
      for (long long e = e0; e < e1; e++)
        for (long long x = x0; x < x1; x++) out[e * n3 + x] = D ? in[x * E + e] * D[e * n3 + x] : in[x * E + e];
    }
  }
}
static void tp_3gemm(ctx_t *c, const double *in, const double *D, int transM, double *out) {
  const int n = (int)c->b;
  const long long rows = c->a * n * n;
  gemm_rot(n, rows, c->X, transM, in, c->t0);
  gemm_rot(n, rows, c->X, transM, c->t0, c->t1);
  gemm_rot(n, rows, c->X, transM, c->t1, c->t0);
  transpose_mul((long long)n * n * n, c->a, c->t0, D, out);
}
static void interp_3gemm(void *p) {
  ctx_t *c = p;
  tp_3gemm(c, c->Y, NULL, 0, c->out);
}
static void helm_3gemm(void *p) {
  ctx_t *c = p;
  tp_3gemm(c, c->Y, c->Z, 0, c->out); /* out = D .* (S x S x S) u (out as scratch) */
  tp_3gemm(c, c->out, NULL, 1, c->out);
}
static void tp_elem(int n, const double *M, int transM, const double *in, double *out, double *w1, double *w2) {
  const CBLAS_TRANSPOSE tM = transM ? CblasTrans : CblasNoTrans, tMt = transM ? CblasNoTrans : CblasTrans;
  /* w1[l,m,k] = sum_q in[l,m,q] M(k,q) */
  cblas_dgemm(CblasRowMajor, CblasNoTrans, tMt, n * n, n, n, 1.0, in, n, M, n, 0.0, w1, n);
  /* w2[l,j,k] = sum_m M(j,m) w1[l,m,k] */
  for (int l = 0; l < n; l++)
    cblas_dgemm(CblasRowMajor, tM, CblasNoTrans, n, n, n, 1.0, M, n, w1 + (long long)l * n * n, n, 0.0,
                w2 + (long long)l * n * n, n);
  /* out[i,j,k] = sum_l M(i,l) w2[l,j,k] */
  cblas_dgemm(CblasRowMajor, tM, CblasNoTrans, n, n * n, n, 1.0, M, n, w2, n * n, 0.0, out, n * n);
}
static void tp_mxm(void *p, int helm) {
  ctx_t *c = p;
  const int n = (int)c->b;
  const long long n3 = (long long)n * n * n;
#pragma omp parallel
  {
    double *w = c->t0 + (long long)omp_get_thread_num() * 3 * n3;
#pragma omp for schedule(static)
    for (long long e = 0; e < c->a; e++) {
      if (!helm) {
        tp_elem(n, c->X, 0, c->Y + e * n3, c->out + e * n3, w, w + n3);
      } else {
        double *w3 = w + 2 * n3;
        tp_elem(n, c->X, 0, c->Y + e * n3, w3, w, w + n3);
        const double *De = c->Z + e * n3;
        for (long long x = 0; x < n3; x++) w3[x] *= De[x];
        tp_elem(n, c->X, 1, w3, c->out + e * n3, w, w + n3);
      }
    }
  }
}
static void interp_mxm(void *p) { tp_mxm(p, 0); }
static void helm_mxm(void *p) { tp_mxm(p, 1); }

/* ------------------------------------------------------------ main */
int main(int argc, char **argv) {
  bt_init(argc, argv, 1);
  char kernel[64];
  const char *colon = strchr(bt_variant, ':');
  if (!colon || colon - bt_variant >= (long)sizeof kernel) bt_die("VARIANT is KERNEL:NAME, not '%s'", bt_variant);
  memcpy(kernel, bt_variant, (size_t)(colon - bt_variant));
  kernel[colon - bt_variant] = 0;
  const char *v = colon + 1;
  NT = openblas_get_num_threads();
  void (*fn)(void *) = NULL;
  int T = omp_get_max_threads();
  long long x[4], y[4], z[4];

  if (!strcmp(kernel, "mm") || !strcmp(kernel, "tmm")) {
    int tr = kernel[0] == 't';
    g.X = bt_in("A", 2, x);
    g.Y = bt_in("B", 2, y);
    bt_need(x[tr ? 0 : 1] == y[0], tr ? "A is [K,M], B is [K,N]" : "A is [M,K], B is [K,N]");
    g.a = x[tr ? 1 : 0], g.b = y[0], g.c = y[1];
    long long d[2] = {g.a, g.c};
    g.out = bt_out("C", 2, d);
    fn = tr ? tmm_run : mm_run;
    if (!strcmp(v, "openblas-1t")) NT = 1;
    else if (strcmp(v, "openblas")) fn = NULL;
  } else if (!strcmp(kernel, "bmm")) {
    g.X = bt_in("A", 3, x);
    g.Y = bt_in("B", 3, y);
    bt_need(x[0] == y[0] && x[2] == y[1], "A is [b,I,K], B is [b,K,J]");
    g.a = x[0], g.b = x[1], g.c = x[2], g.d = y[2];
    long long d[3] = {g.a, g.b, g.d};
    g.out = bt_out("C", 3, d);
    if (!strcmp(v, "openblas-loop")) fn = bmm_loop;
    else if (!strcmp(v, "openblas-loop-omp")) fn = bmm_loop_omp, inner = 1;
  } else if (!strcmp(kernel, "mttkrp")) {
    g.X = bt_in("B", 3, x);
    g.Y = bt_in("C", 2, y);
    g.Z = bt_in("D", 2, z);
    bt_need(y[0] == x[1] && z[0] == x[2] && y[1] == z[1], "B is [I,K,L], C is [K,J], D is [L,J]");
    g.a = x[0], g.b = y[1], g.c = x[1], g.d = x[2];
    long long d[2] = {g.a, g.b};
    g.out = bt_out("A", 2, d);
    if (!strcmp(v, "openblas")) fn = mt_big, g.t0 = bt_alloc(g.a * g.c * g.b);
    else if (!strcmp(v, "openblas-loop-omp")) fn = mt_peri, inner = 1, g.t0 = bt_alloc(T * g.c * g.b);
  } else if (!strcmp(kernel, "sddmm")) {
    g.X = bt_in("S", 2, x);
    g.Y = bt_in("B", 2, y);
    g.Z = bt_in("C", 2, z);
    bt_need(y[0] == x[0] && z[1] == x[1] && y[1] == z[0], "S is [M,N], B is [M,K], C is [K,N]");
    g.a = x[0], g.b = x[1], g.c = y[1];
    g.out = bt_out("A", 2, x);
    if (!strcmp(v, "openblas")) fn = sd_run;
  } else if (!strcmp(kernel, "interp") || !strcmp(kernel, "helm")) {
    int helm = kernel[0] == 'h';
    g.X = bt_in(helm ? "S" : "A", 2, x);
    g.Y = bt_in("u", 4, y);
    if (helm) g.Z = bt_in("D", 4, z);
    bt_need(x[0] == x[1] && y[1] == x[0] && y[2] == x[0] && y[3] == x[0] && (!helm || !memcmp(y, z, sizeof y)),
            "A/S is [n,n], u (and D) [E,n,n,n]");
    g.a = y[0], g.b = x[0];
    g.out = bt_out("v", 4, y);
    const long long ne = g.a * g.b * g.b * g.b;
    if (!strcmp(v, "openblas-3gemm")) fn = helm ? helm_3gemm : interp_3gemm, g.t0 = bt_alloc(ne), g.t1 = bt_alloc(ne);
    else if (!strcmp(v, "openblas-mxm-omp")) fn = helm ? helm_mxm : interp_mxm, inner = 1, g.t0 = bt_alloc(T * 3 * g.b * g.b * g.b);
  }
  if (!fn) bt_die("no variant '%s' for kernel '%s'", v, kernel);
  openblas_set_num_threads(inner ? 1 : NT);
  printf("info openblas_core %s threads %d omp_threads %d\n", openblas_get_corename(), inner ? T : NT, T);
  bt_time(fn, &g);
  bt_finish();
  return 0;
}
