/* Shared code of the bench's C programs (naive loop nests, OpenBLAS peers).
 *
 * Every program has the command line of teilc's --main driver (spec/compiler.md
 * R-CG-14), so bench/bench.py runs all implementations the same way:
 *
 *   PROG [VARIANT] --in NAME=FILE.npy ... --out NAME=FILE.npy ...
 *
 * Inputs are unpadded row-major '<f8' .npy files written by bench/gen.c; sizes
 * come from their shapes. Timing: one warm-up call, then at least BENCH_MIN_RUNS
 * (default 5) timed calls, more (up to BENCH_MAX_RUNS, default 30) until
 * BENCH_TARGET_SEC (default 1.0) seconds were spent. Each call is timed alone
 * (CLOCK_MONOTONIC). Output lines (stdout):
 *   info KEY VALUE...                        (optional, any number)
 *   runs_ms T1 T2 ...                        (every timed run, in order)
 *   time_ms median=<ms> min=<ms> max=<ms> runs=<N>   (last line)
 * Errors: one line "PROG: ..." on stderr, exit status 2.
 */
#ifndef BENCH_HARNESS_H
#define BENCH_HARNESS_H
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE 1 /* madvise */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef __linux__
#include <sys/mman.h>
#endif

#define BT_UNUSED __attribute__((unused))
#define BT_MAXT 16
#define BT_MAXR 8
#define BT_MAXRUNS 1000

typedef struct {
  const char *name, *path;
  int out, rank;
  long long dims[BT_MAXR], count;
  double *data;
} bt_tensor;

static const char *bt_prog = "bench";
static bt_tensor bt_t[BT_MAXT];
static int bt_nt;
static const char *bt_variant = "";

BT_UNUSED __attribute__((noreturn, format(printf, 1, 2))) static void bt_die(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "%s: ", bt_prog);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  exit(2);
}

/* 64-byte aligned and zero; from 4 MiB on, on huge pages where Linux gives them, as
 * NumPy's arrays and teilc's --main driver's (spec/compiler.md R-CG-14). */
BT_UNUSED static double *bt_alloc(long long n) {
  void *p = NULL;
  size_t bytes = (size_t)(n > 0 ? n : 1) * sizeof(double), align = 64;
  bytes = (bytes + 63) / 64 * 64;
#ifdef MADV_HUGEPAGE
  if (bytes >= ((size_t)4 << 20)) {
    align = (size_t)2 << 20;
    bytes = (bytes + align - 1) / align * align;
  }
#endif
  if (posix_memalign(&p, align, bytes) != 0) bt_die("out of memory (%lld doubles)", n);
#ifdef MADV_HUGEPAGE
  if (align > 64) (void)madvise(p, bytes, MADV_HUGEPAGE);
#endif
  memset(p, 0, bytes); /* touch every page outside the timed region */
  return (double *)p;
}

BT_UNUSED static double bt_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---------------------------------------------------------------- .npy */
BT_UNUSED static void bt_read_npy(bt_tensor *t) {
  FILE *f = fopen(t->path, "rb");
  if (!f) bt_die("--in %s: cannot open '%s'", t->name, t->path);
  unsigned char pre[12];
  if (fread(pre, 1, 10, f) != 10 || memcmp(pre, "\x93NUMPY", 6) != 0)
    bt_die("--in %s: '%s' is not a .npy file", t->name, t->path);
  unsigned long hlen;
  if (pre[6] == 1) {
    hlen = pre[8] | (unsigned long)pre[9] << 8;
  } else {
    if (fread(pre + 10, 1, 2, f) != 2) bt_die("--in %s: truncated header", t->name);
    hlen = pre[8] | (unsigned long)pre[9] << 8 | (unsigned long)pre[10] << 16 |
           (unsigned long)pre[11] << 24;
  }
  char *h = malloc(hlen + 1);
  if (!h || fread(h, 1, hlen, f) != hlen) bt_die("--in %s: truncated header", t->name);
  h[hlen] = 0;
  if (!strstr(h, "'descr': '<f8'")) bt_die("--in %s: '%s' is not '<f8'", t->name, t->path);
  if (!strstr(h, "'fortran_order': False")) bt_die("--in %s: '%s' is Fortran order", t->name, t->path);
  const char *s = strstr(h, "'shape': (");
  if (!s) bt_die("--in %s: no shape in '%s'", t->name, t->path);
  s += 10;
  t->rank = 0;
  t->count = 1;
  while (*s && *s != ')') {
    char *end;
    long long d = strtoll(s, &end, 10);
    if (end == s) break;
    if (t->rank == BT_MAXR) bt_die("--in %s: rank too large", t->name);
    t->dims[t->rank++] = d;
    t->count *= d;
    s = end;
    while (*s == ',' || *s == ' ') s++;
  }
  free(h);
  t->data = bt_alloc(t->count);
  if (fread(t->data, sizeof(double), (size_t)t->count, f) != (size_t)t->count)
    bt_die("--in %s: '%s' is truncated", t->name, t->path);
  fclose(f);
}

BT_UNUSED static void bt_write_npy(const bt_tensor *t) {
  FILE *f = fopen(t->path, "wb");
  if (!f) bt_die("--out %s: cannot create '%s'", t->name, t->path);
  char h[256], shape[200] = "";
  for (int i = 0; i < t->rank; i++) {
    size_t l = strlen(shape);
    snprintf(shape + l, sizeof shape - l, "%lld%s", t->dims[i], t->rank == 1 ? "," : (i + 1 < t->rank ? ", " : ""));
  }
  int n = snprintf(h, sizeof h, "{'descr': '<f8', 'fortran_order': False, 'shape': (%s), }", shape);
  int total = 10 + n + 1;
  int pad = (64 - total % 64) % 64;
  memset(h + n, ' ', (size_t)pad);
  h[n + pad] = '\n';
  unsigned short hl = (unsigned short)(n + pad + 1);
  unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)(hl & 255), (unsigned char)(hl >> 8)};
  int ok = fwrite(pre, 1, 10, f) == 10 && fwrite(h, 1, hl, f) == hl &&
           fwrite(t->data, sizeof(double), (size_t)t->count, f) == (size_t)t->count;
  if (fclose(f) != 0 || !ok) bt_die("--out %s: cannot write '%s'", t->name, t->path);
}

/* ---------------------------------------------------------------- command line */
/* bt_init(argc, argv, has_variant): parses the command line and reads every --in. */
BT_UNUSED static void bt_init(int argc, char **argv, int has_variant) {
  int i = 1;
  if (argc > 0) {
    const char *s = strrchr(argv[0], '/');
    bt_prog = s ? s + 1 : argv[0];
  }
  if (has_variant) {
    if (argc < 2 || argv[1][0] == '-') bt_die("usage: %s VARIANT --in NAME=FILE.npy ... --out NAME=FILE.npy", bt_prog);
    bt_variant = argv[1];
    i = 2;
  }
  for (; i < argc; i++) {
    int out = !strcmp(argv[i], "--out");
    if ((!out && strcmp(argv[i], "--in")) || i + 1 >= argc)
      bt_die("usage: %s%s --in NAME=FILE.npy ... --out NAME=FILE.npy ...", bt_prog, has_variant ? " VARIANT" : "");
    char *a = argv[++i], *eq = strchr(a, '=');
    if (!eq || eq == a || !eq[1]) bt_die("%s takes NAME=FILE.npy, not '%s'", out ? "--out" : "--in", a);
    if (bt_nt == BT_MAXT) bt_die("too many tensors");
    *eq = 0;
    bt_t[bt_nt].name = a;
    bt_t[bt_nt].path = eq + 1;
    bt_t[bt_nt].out = out;
    if (!out) bt_read_npy(&bt_t[bt_nt]);
    bt_nt++;
  }
}

BT_UNUSED static bt_tensor *bt_find(const char *name, int out) {
  for (int i = 0; i < bt_nt; i++)
    if (bt_t[i].out == out && !strcmp(bt_t[i].name, name)) return &bt_t[i];
  return NULL;
}

/* input NAME of the given rank (rank < 0: any) */
BT_UNUSED static const double *bt_in(const char *name, int rank, long long *dims) {
  bt_tensor *t = bt_find(name, 0);
  if (!t) bt_die("input tensor '%s' has no value: give --in %s=FILE.npy", name, name);
  if (rank >= 0 && t->rank != rank) bt_die("--in %s: rank %d, expected %d", name, t->rank, rank);
  if (dims)
    for (int i = 0; i < t->rank; i++) dims[i] = t->dims[i];
  return t->data;
}

/* output NAME with the given shape (allocated, zeroed; written at bt_finish) */
BT_UNUSED static double *bt_out(const char *name, int rank, const long long *dims) {
  bt_tensor *t = bt_find(name, 1);
  static bt_tensor dummy[BT_MAXT];
  static int nd;
  if (!t) { /* no --out: compute anyway, write nothing */
    if (nd == BT_MAXT) bt_die("too many tensors");
    t = &dummy[nd++];
    t->name = name;
    t->path = NULL;
  }
  t->rank = rank;
  t->count = 1;
  for (int i = 0; i < rank; i++) t->dims[i] = dims[i], t->count *= dims[i];
  t->data = bt_alloc(t->count);
  return t->data;
}

BT_UNUSED static void bt_need(int cond, const char *what) {
  if (!cond) bt_die("input shapes do not fit: %s", what);
}

/* ---------------------------------------------------------------- timing */
BT_UNUSED static int bt_cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

BT_UNUSED static int bt_env_int(const char *name, int def, int lo, int hi) {
  const char *s = getenv(name);
  if (!s || !*s) return def;
  int v = atoi(s);
  return v < lo ? lo : v > hi ? hi : v;
}

/* one warm-up, then timed runs; prints runs_ms and time_ms lines */
BT_UNUSED static void bt_time(void (*fn)(void *), void *ctx) {
  static double t[BT_MAXRUNS], s[BT_MAXRUNS];
  int min_runs = bt_env_int("BENCH_MIN_RUNS", 5, 1, BT_MAXRUNS);
  int max_runs = bt_env_int("BENCH_MAX_RUNS", 30, min_runs, BT_MAXRUNS);
  const char *ts = getenv("BENCH_TARGET_SEC");
  double target = ts && *ts ? atof(ts) : 1.0;
  fn(ctx); /* warm-up */
  int n = 0;
  double spent = 0;
  while (n < max_runs && (n < min_runs || spent < target)) {
    double t0 = bt_now();
    fn(ctx);
    t[n] = bt_now() - t0;
    spent += t[n++];
  }
  printf("runs_ms");
  for (int i = 0; i < n; i++) printf(" %.6f", t[i] * 1e3);
  printf("\n");
  memcpy(s, t, sizeof(double) * (size_t)n);
  qsort(s, (size_t)n, sizeof(double), bt_cmp);
  double med = n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
  printf("time_ms median=%.6f min=%.6f max=%.6f runs=%d\n", med * 1e3, s[0] * 1e3, s[n - 1] * 1e3, n);
  fflush(stdout);
}

/* writes every --out; fails if an --out names a tensor the program does not have */
BT_UNUSED static void bt_finish(void) {
  for (int i = 0; i < bt_nt; i++)
    if (bt_t[i].out) {
      if (!bt_t[i].data) bt_die("--out: the kernel has no output '%s'", bt_t[i].name);
      bt_write_npy(&bt_t[i]);
    }
}

#ifdef _OPENMP
#include <omp.h>
BT_UNUSED static int bt_threads(void) { return omp_get_max_threads(); }
#else
BT_UNUSED static int bt_threads(void) { return 1; }
#endif

#endif
