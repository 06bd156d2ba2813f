/*
 * loopir.c - the loop IR of teilc (spec/compiler.md R-CG-2): construction,
 * the workspace layout (R-CG-9), the pad pass (R-CG-10), the parallel/simd
 * annotation (R-CG-11) and the printer behind --dump=lower and --dump=pad.
 *
 * A loop program is a top-level sequence of nodes in TeML's tree form: loops
 * with their own iterator and an inferred range (lb, ub, step), and statements
 * B[f] = e / B[f] += e whose indices f are affine in the enclosing iterators.
 * Everything is allocated in the program's arena.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "compile.h"

#define GROW(arr, n, cap)                                                  \
  do {                                                                     \
    if ((n) == (cap)) {                                                    \
      (cap) = (cap) ? 2 * (cap) : 8;                                       \
      void *fresh_ = xcalloc((size_t)(cap), sizeof *(arr));                \
      if (arr)                                                             \
        memcpy(fresh_, (arr), (size_t)(n) * sizeof *(arr));                \
      free(arr);                                                           \
      (arr) = fresh_;                                                      \
    }                                                                      \
  } while (0)

/* ------------------------------------------------------------ construction */

LProgram *lp_new(int pad, bool f32) {
  LProgram *lp = xcalloc(1, sizeof *lp);
  lp->pad = pad < 1 ? 1 : pad;
  lp->f32 = f32;
  lp->prefetch = 1;                                 /* R-CG-24.5: the default */
  return lp;
}

static void free_node(LNode *n) {
  if (n->kind == LN_LOOP) {
    for (int i = 0; i < n->nkids; i++)
      free_node(n->kids[i]);
    free(n->kids);
  }
}

void lp_free(LProgram *lp) {
  if (!lp)
    return;
  for (int i = 0; i < lp->ntop; i++)
    free_node(lp->top[i]);
  free(lp->top);
  free(lp->units);
  free(lp->bufs);
  free(lp->its);
  free(lp->names);
  arena_free(&lp->arena);
  free(lp);
}

static char *astr(LProgram *lp, const char *s) { return arena_strndup(&lp->arena, s, strlen(s)); }

bool lp_taken(const LProgram *lp, const char *name) {
  for (int i = 0; i < lp->nnames; i++)
    if (!strcmp(lp->names[i], name))
      return true;
  return false;
}

void lp_reserve(LProgram *lp, const char *name) {
  if (lp_taken(lp, name))
    return;
  GROW(lp->names, lp->nnames, lp->capnames);
  lp->names[lp->nnames++] = astr(lp, name);
}

const char *lp_unique(LProgram *lp, const char *base) {
  Buf b = {0};
  /* A reserved prefix (__, _X, teil_) stays reserved whatever follows: a letter first. */
  if ((base[0] == '_' && (base[1] == '_' || isupper((unsigned char)base[1]))) || !strncmp(base, "teil_", 5) ||
      !strncmp(base, "TEIL_", 5))
    buf_printf(&b, "x");
  buf_printf(&b, "%s", base);
  while (lp_taken(lp, b.s) || cgen_reserved(b.s))
    buf_printf(&b, "_");
  lp_reserve(lp, b.s);
  const char *r = lp->names[lp->nnames - 1];
  buf_free(&b);
  return r;
}

/* R-CG-21: every buffer that is not a parameter gets a unique name for its
 * read-only alias, X_ro. */
void lp_name_aliases(LProgram *lp) {
  for (int i = 0; i < lp->nbufs; i++) {
    LBuf *x = &lp->bufs[i];
    if (x->kind != LB_WORK && x->kind != LB_LOCAL)
      continue;
    Buf b = {0};
    buf_printf(&b, "%s_ro", x->cname);
    x->roname = lp_unique(lp, b.s);
    buf_free(&b);
  }
}

const char *lp_iter_name(LProgram *lp, char prefix, int k) {
  Buf b = {0};
  buf_printf(&b, "%c%d", prefix, k);
  while (lp_taken(lp, b.s) || cgen_reserved(b.s))
    buf_printf(&b, "_");
  char *r = astr(lp, b.s);
  buf_free(&b);
  return r;
}

int lp_add_buf(LProgram *lp, const char *name, int rank, const int64_t *dims) {
  GROW(lp->bufs, lp->nbufs, lp->capbufs);
  LBuf *b = &lp->bufs[lp->nbufs];
  memset(b, 0, sizeof *b);
  b->name = astr(lp, name);
  b->cname = b->name;
  b->kind = LB_WORK;
  b->tensor = -1;
  b->param = -1;
  b->packof = b->packdim = -1;
  b->stageof = b->contractof = -1;
  b->rank = rank;
  b->dims = arena_alloc(&lp->arena, (size_t)(rank + 1) * sizeof *b->dims);
  b->pdims = arena_alloc(&lp->arena, (size_t)(rank + 1) * sizeof *b->pdims);
  b->stride = arena_alloc(&lp->arena, (size_t)(rank + 1) * sizeof *b->stride);
  b->count = 1;
  for (int d = rank - 1; d >= 0; d--) {           /* R-CG-9: row-major over padded extents */
    b->dims[d] = dims[d];
    b->pdims[d] = st_round(dims[d], lp->pad);
    b->stride[d] = b->count;
    b->count *= b->pdims[d];
  }
  return lp->nbufs++;
}

int lp_add_iter(LProgram *lp, const char *name, int64_t n) {
  GROW(lp->its, lp->nits, lp->capits);
  LIter *v = &lp->its[lp->nits];
  v->name = name;
  v->n = n;
  v->p = st_round(n, lp->pad);
  return lp->nits++;
}

LAff *lp_aff_const(LProgram *lp, int64_t c) {
  LAff *a = arena_alloc(&lp->arena, sizeof *a);
  a->c = c;
  return a;
}

LAff *lp_aff_iter(LProgram *lp, int it) {
  LAff *a = arena_alloc(&lp->arena, sizeof *a);
  a->n = 1;
  a->it = arena_alloc(&lp->arena, sizeof *a->it);
  a->coef = arena_alloc(&lp->arena, sizeof *a->coef);
  a->it[0] = it;
  a->coef[0] = 1;
  return a;
}

int64_t lp_aff_coef(const LAff *x, int it) {
  int64_t c = 0;
  for (int t = 0; t < x->n; t++)
    if (x->it[t] == it)
      c += x->coef[t];
  return c;
}

bool lp_aff_const_diff(const LAff *x, const LAff *y, int64_t *d) {
  for (int t = 0; t < x->n; t++)
    if (lp_aff_coef(x, x->it[t]) != lp_aff_coef(y, x->it[t]))
      return false;
  for (int t = 0; t < y->n; t++)
    if (lp_aff_coef(x, y->it[t]) != lp_aff_coef(y, y->it[t]))
      return false;
  *d = x->c - y->c;
  return true;
}

bool lp_aff_equal(const LAff *x, const LAff *y) {
  int64_t d;
  return lp_aff_const_diff(x, y, &d) && d == 0;
}

bool lp_expr_reads(const LExpr *e, int buf) {
  return e && ((e->kind == LE_LOAD && e->acc.buf == buf) || lp_expr_reads(e->a, buf) || lp_expr_reads(e->b, buf));
}

bool lp_reads(const LNode *n, int buf) {
  if (n->kind == LN_STMT)
    return lp_expr_reads(n->rhs, buf);
  for (int i = 0; i < n->nkids; i++)
    if (lp_reads(n->kids[i], buf))
      return true;
  return false;
}

bool lp_writes(const LNode *n, int buf) {
  if (n->kind == LN_STMT)
    return n->lhs.buf == buf;
  for (int i = 0; i < n->nkids; i++)
    if (lp_writes(n->kids[i], buf))
      return true;
  return false;
}

bool lp_bounds_use(const LNode *l, int it) {
  if (lp_aff_coef(&l->lb, it) || lp_aff_coef(&l->ub, it))
    return true;
  for (int k = 0; k < l->nubx; k++)
    if (lp_aff_coef(&l->ubx[k], it))
      return true;
  return false;
}

bool lp_aff_is_iter(const LAff *x, int it) {
  if (x->c != 0 || lp_aff_coef(x, it) != 1)
    return false;
  for (int t = 0; t < x->n; t++)
    if (x->it[t] != it && lp_aff_coef(x, x->it[t]) != 0)
      return false;
  return true;
}

bool lp_tile_of(const LNode *n, const LNode *q) {
  return q->step >= 2 && n != q && n->step == 1 && !n->nubx && lp_aff_is_iter(&n->lb, q->it) && n->ub.n == 1 &&
         n->ub.it[0] == q->it && n->ub.coef[0] == 1 && n->ub.c == q->step;
}

static LAff copy_aff(LProgram *lp, const LAff *x) {
  LAff a = *x;
  a.it = arena_alloc(&lp->arena, (size_t)(x->n + 1) * sizeof *a.it);
  a.coef = arena_alloc(&lp->arena, (size_t)(x->n + 1) * sizeof *a.coef);
  if (x->n) {
    memcpy(a.it, x->it, (size_t)x->n * sizeof *a.it);
    memcpy(a.coef, x->coef, (size_t)x->n * sizeof *a.coef);
  }
  return a;
}

static LAccess make_access(LProgram *lp, int buf, LAff **idx) {
  LAccess acc = {buf, NULL};
  int rank = lp->bufs[buf].rank;
  acc.idx = arena_alloc(&lp->arena, (size_t)(rank + 1) * sizeof *acc.idx);
  for (int d = 0; d < rank; d++)
    acc.idx[d] = copy_aff(lp, idx[d]);
  lp->bufs[buf].used = true;
  return acc;
}

LExpr *lp_expr(LProgram *lp, LExprKind k, LExpr *a, LExpr *b) {
  LExpr *e = arena_alloc(&lp->arena, sizeof *e);
  e->kind = k;
  e->a = a;
  e->b = b;
  return e;
}

LExpr *lp_load(LProgram *lp, int buf, LAff **idx) {
  LExpr *e = lp_expr(lp, LE_LOAD, NULL, NULL);
  e->acc = make_access(lp, buf, idx);
  return e;
}

LNode *lp_loop(LProgram *lp, int it, int64_t lb, int64_t ub, unsigned flags) {
  LNode *n = arena_alloc(&lp->arena, sizeof *n);
  n->kind = LN_LOOP;
  n->it = it;
  n->lb = *lp_aff_const(lp, lb);
  n->ub = *lp_aff_const(lp, ub);
  n->step = 1;
  n->flags = flags;
  return n;
}

LNode *lp_stmt(LProgram *lp, int buf, LAff **idx, bool accum, LExpr *rhs) {
  LNode *n = arena_alloc(&lp->arena, sizeof *n);
  n->kind = LN_STMT;
  n->lhs = make_access(lp, buf, idx);
  n->accum = accum;
  n->rhs = rhs;
  lp->bufs[buf].written = true;
  return n;
}

void lp_append(LProgram *lp, LNode *parent, LNode *kid) {
  if (!parent) {
    GROW(lp->top, lp->ntop, lp->captop);
    lp->top[lp->ntop++] = kid;
    return;
  }
  GROW(parent->kids, parent->nkids, parent->capkids);
  parent->kids[parent->nkids++] = kid;
}

/* A perfect nest over the elements of buf with the statement buf[i] = rhs. The
 * iterators' loops run over [0, N) or, if padded, [0, P). */
static LNode *element_nest(LProgram *lp, int buf, bool padded, LNode **stmt_out, LAff ***idx_out) {
  const LBuf *b = &lp->bufs[buf];
  LAff **idx = arena_alloc(&lp->arena, (size_t)(b->rank + 1) * sizeof *idx);
  LNode *root = NULL, *inner = NULL;
  for (int d = 0; d < b->rank; d++) {
    int it = lp_add_iter(lp, lp_iter_name(lp, 'i', d + 1), b->dims[d]);
    idx[d] = lp_aff_iter(lp, it);
    LNode *l = lp_loop(lp, it, 0, padded ? lp->its[it].p : lp->its[it].n, padded && lp->its[it].p > lp->its[it].n ? LF_PADDED : 0);
    if (inner)
      lp_append(lp, inner, l);
    else
      root = l;
    inner = l;
  }
  *stmt_out = inner;
  *idx_out = idx;
  return root;
}

void lp_add_local(LProgram *lp, LNode *loop, int buf) {
  int *locals = arena_alloc(&lp->arena, (size_t)(loop->nlocals + 1) * sizeof *locals);
  if (loop->nlocals)
    memcpy(locals, loop->locals, (size_t)loop->nlocals * sizeof *locals);
  locals[loop->nlocals++] = buf;
  loop->locals = locals;
}

LNode *lp_fill(LProgram *lp, int buf, LExprKind k, bool padded) {
  LNode *inner;
  LAff **idx;
  LNode *root = element_nest(lp, buf, padded, &inner, &idx);
  LNode *s = lp_stmt(lp, buf, idx, false, lp_expr(lp, k, NULL, NULL));
  if (!root)
    return s;
  lp_append(lp, inner, s);
  return root;
}

LNode *lp_copy(LProgram *lp, int dst, int src) {
  LNode *inner;
  LAff **idx;
  LNode *root = element_nest(lp, dst, false, &inner, &idx);
  LNode *s = lp_stmt(lp, dst, idx, false, lp_load(lp, src, idx));
  if (!root)
    return s;
  lp_append(lp, inner, s);
  return root;
}

/* ------------------------------------------------------------ the machine's caches */

/* A cache size set by the environment variable name (R-SCH-17: the machine compiled
 * for), else -1. */
static long env_bytes(const char *name) {
  const char *e = getenv(name);
  char *end;
  if (!e || !*e)
    return -1;
  long v = strtol(e, &end, 10);
  return *end ? -1 : v;
}

/* The sysconf names of the caches, -1 where the C library has none. */
#ifdef _SC_LEVEL1_DCACHE_SIZE
#define SC_L1_SIZE _SC_LEVEL1_DCACHE_SIZE
#else
#define SC_L1_SIZE (-1)
#endif
#ifdef _SC_LEVEL1_DCACHE_ASSOC
#define SC_L1_ASSOC _SC_LEVEL1_DCACHE_ASSOC
#else
#define SC_L1_ASSOC (-1)
#endif
#ifdef _SC_LEVEL2_CACHE_SIZE
#define SC_L2_SIZE _SC_LEVEL2_CACHE_SIZE
#else
#define SC_L2_SIZE (-1)
#endif

/* The environment variable name's number, else sysconf(sc) (none if sc < 0), when
 * in [lo, hi]; else dflt. */
static long machine_value(const char *name, int sc, long lo, long hi, long dflt) {
  long v = env_bytes(name);
  if (v < 0 && sc >= 0)
    v = sysconf(sc);
  return v >= lo && v <= hi ? v : dflt;
}

/* The L1 data cache in bytes (R-SCH-17: cache tiling is sized from it); TEIL_L1_BYTES
 * overrides it. */
int64_t lp_l1_bytes(void) { return machine_value("TEIL_L1_BYTES", SC_L1_SIZE, 4096, 1L << 24, 32768); }

/* The L1 data cache's associativity (R-SCH-17.1; 8 if unknown); TEIL_L1_ASSOC
 * overrides it. */
int lp_l1_assoc(void) { return (int)machine_value("TEIL_L1_ASSOC", SC_L1_ASSOC, 1, 64, 8); }

/* The L2 cache (1 MiB if unknown); TEIL_L2_BYTES overrides it. */
int64_t lp_l2_bytes(void) { return machine_value("TEIL_L2_BYTES", SC_L2_SIZE, 65536, 1L << 26, 1L << 20); }

/* The host's cores, which the compiled code's threads are expected to match (1 to
 * 64; teil_threads() caps a run at 64). */
int lp_cores(void) {
  long v = sysconf(_SC_NPROCESSORS_ONLN);
  return v < 1 ? 1 : v > 64 ? 64 : (int)v;
}

/* Whether the host runs a 512-bit vector operation as two 256-bit halves, so that
 * half a vector costs half a whole one (R-SCH-27 (d)): AMD family 19h (Zen 4)
 * does; AMD family 1Ah (Zen 5) and Intel's AVX-512 cores run 512 bits at once.
 * TEIL_VEC_SPLIT=0 or 1 overrides it. */
bool lp_vec_split(void) {
  long v = env_bytes("TEIL_VEC_SPLIT");
  if (v == 0 || v == 1)
    return v == 1;
#if defined(__x86_64__) || defined(__i386__)
  unsigned a, b, c, d;
  if (__get_cpuid(0, &a, &b, &c, &d) && b == 0x68747541 /* "AuthenticAMD" */ &&
      __get_cpuid(1, &a, &b, &c, &d)) {
    unsigned family = ((a >> 8) & 0xf) + ((a >> 8 & 0xf) == 0xf ? (a >> 20) & 0xff : 0);
    return family == 0x19;
  }
#endif
  return false;
}

/* A core's share of the last-level cache, estimated as 16 x its L2: virtual
 * machines often report the host's whole L3 (R-SCH-17, R-CG-26). */
int64_t lp_llc_share_bytes(void) { return 16 * lp_l2_bytes(); }

/* The bytes of all the parameters, saturating (R-CG-24.5, R-CG-26 (2)). */
int64_t lp_param_bytes(const LProgram *lp) {
  int64_t es = lp->f32 ? 4 : 8, sum = 0, b;
  for (int i = 0; i < lp->nbufs; i++)
    if ((lp->bufs[i].kind == LB_PARAM || lp->bufs[i].kind == LB_PARAM_IN) &&
        (__builtin_mul_overflow(lp->bufs[i].count, es, &b) || __builtin_add_overflow(sum, b, &sum)))
      return INT64_MAX;
  return sum;
}

/* ------------------------------------------------------------ schedule helpers (spec/schedule.md) */

void lp_add_unit(LProgram *lp, const char *name, LNode *stmt) {
  int occ = 1;
  for (int i = 0; i < lp->nunits; i++)
    if (!strcmp(lp->units[i].name, name))
      occ++;
  GROW(lp->units, lp->nunits, lp->capunits);
  lp->units[lp->nunits].name = astr(lp, name);
  lp->units[lp->nunits].occ = occ;
  lp->units[lp->nunits].stmt = stmt;
  lp->nunits++;
}

LAff lp_aff_copy(LProgram *lp, const LAff *x) { return copy_aff(lp, x); }

LAff lp_aff_subst(LProgram *lp, const LAff *x, int it, const LAff *r) {
  int64_t k = lp_aff_coef(x, it);
  LAff a;
  a.c = x->c + k * r->c;
  a.n = 0;
  a.it = arena_alloc(&lp->arena, (size_t)(x->n + r->n + 1) * sizeof *a.it);
  a.coef = arena_alloc(&lp->arena, (size_t)(x->n + r->n + 1) * sizeof *a.coef);
  for (int t = 0; t < x->n + r->n; t++) {
    int v = t < x->n ? x->it[t] : r->it[t - x->n];
    int64_t c = (t < x->n ? (v == it ? 0 : x->coef[t]) : k * r->coef[t - x->n]);
    if (c == 0)
      continue;
    int j = 0;
    while (j < a.n && a.it[j] != v)
      j++;
    if (j == a.n) {
      a.it[a.n] = v;
      a.coef[a.n++] = 0;
    }
    a.coef[j] += c;
  }
  int m = 0;                                         /* drop zero terms */
  for (int j = 0; j < a.n; j++)
    if (a.coef[j]) {
      a.it[m] = a.it[j];
      a.coef[m++] = a.coef[j];
    }
  a.n = m;
  return a;
}

void lp_subst_expr(LProgram *lp, LExpr *e, int it, const LAff *r) {
  if (!e)
    return;
  if (e->kind == LE_LOAD)
    for (int d = 0; d < lp->bufs[e->acc.buf].rank; d++)
      e->acc.idx[d] = lp_aff_subst(lp, &e->acc.idx[d], it, r);
  for (int g = 0; g < e->nguard; g++)
    e->gidx[g] = lp_aff_subst(lp, &e->gidx[g], it, r);
  lp_subst_expr(lp, e->a, it, r);
  lp_subst_expr(lp, e->b, it, r);
}

void lp_subst_tree(LProgram *lp, LNode *n, int it, const LAff *r) {
  if (n->kind == LN_STMT) {
    for (int d = 0; d < lp->bufs[n->lhs.buf].rank; d++)
      n->lhs.idx[d] = lp_aff_subst(lp, &n->lhs.idx[d], it, r);
    lp_subst_expr(lp, n->rhs, it, r);
    return;
  }
  n->lb = lp_aff_subst(lp, &n->lb, it, r);
  n->ub = lp_aff_subst(lp, &n->ub, it, r);
  for (int k = 0; k < n->nubx; k++)
    n->ubx[k] = lp_aff_subst(lp, &n->ubx[k], it, r);
  for (int i = 0; i < n->nkids; i++)
    lp_subst_tree(lp, n->kids[i], it, r);
}

static LAccess clone_access(LProgram *lp, const LAccess *a) {
  LAccess c = {a->buf, NULL};
  int rank = lp->bufs[a->buf].rank;
  c.idx = arena_alloc(&lp->arena, (size_t)(rank + 1) * sizeof *c.idx);
  for (int d = 0; d < rank; d++)
    c.idx[d] = copy_aff(lp, &a->idx[d]);
  return c;
}

LExpr *lp_expr_clone(LProgram *lp, const LExpr *e) {
  if (!e)
    return NULL;
  LExpr *c = arena_alloc(&lp->arena, sizeof *c);
  *c = *e;
  c->a = lp_expr_clone(lp, e->a);
  c->b = lp_expr_clone(lp, e->b);
  if (e->kind == LE_LOAD)
    c->acc = clone_access(lp, &e->acc);
  if (e->nguard) {
    c->gidx = arena_alloc(&lp->arena, (size_t)e->nguard * sizeof *c->gidx);
    c->gbound = arena_alloc(&lp->arena, (size_t)e->nguard * sizeof *c->gbound);
    for (int g = 0; g < e->nguard; g++) {
      c->gidx[g] = copy_aff(lp, &e->gidx[g]);
      c->gbound[g] = e->gbound[g];
    }
  }
  return c;
}

LNode *lp_clone(LProgram *lp, const LNode *n, bool fresh, bool keep_notes,
                void (*on_stmt)(void *ctx, LNode *from, LNode *to), void *ctx) {
  LNode *c = arena_alloc(&lp->arena, sizeof *c);
  *c = *n;
  if (!keep_notes)
    c->note = NULL;
  if (n->kind == LN_STMT) {
    c->lhs = clone_access(lp, &n->lhs);
    c->rhs = lp_expr_clone(lp, n->rhs);
    if (on_stmt)
      on_stmt(ctx, (LNode *)n, c);
    return c;
  }
  c->lb = copy_aff(lp, &n->lb);
  c->ub = copy_aff(lp, &n->ub);
  c->ubx = NULL;
  if (n->nubx) {
    c->ubx = arena_alloc(&lp->arena, (size_t)n->nubx * sizeof *c->ubx);
    for (int k = 0; k < n->nubx; k++)
      c->ubx[k] = copy_aff(lp, &n->ubx[k]);
  }
  c->kids = NULL;
  c->nkids = c->capkids = 0;
  if (n->nlocals) {                                  /* R-SCH-21: the copy declares them too */
    c->locals = arena_alloc(&lp->arena, (size_t)n->nlocals * sizeof *c->locals);
    memcpy(c->locals, n->locals, (size_t)n->nlocals * sizeof *c->locals);
  }
  for (int i = 0; i < n->nkids; i++)
    lp_append(lp, c, lp_clone(lp, n->kids[i], fresh, keep_notes, on_stmt, ctx));
  if (fresh) {                                       /* a new iterator for the copy's loop */
    int it = lp_add_iter(lp, lp->its[n->it].name, lp->its[n->it].n);
    lp->its[it].p = lp->its[n->it].p;
    LAff *r = lp_aff_iter(lp, it);
    for (int i = 0; i < c->nkids; i++)
      lp_subst_tree(lp, c->kids[i], n->it, r);
    c->it = it;
  }
  return c;
}

void lp_free_tree(LNode *n) { free_node(n); }

LNode **lp_kids(LProgram *lp, LNode *parent, int *n) {
  if (!parent) {
    *n = lp->ntop;
    return lp->top;
  }
  *n = parent->nkids;
  return parent->kids;
}

void lp_insert(LProgram *lp, LNode *parent, int pos, LNode *kid) {
  lp_append(lp, parent, kid);                        /* grows the list */
  int n;
  LNode **k = lp_kids(lp, parent, &n);
  memmove(k + pos + 1, k + pos, (size_t)(n - 1 - pos) * sizeof *k);
  k[pos] = kid;
}

void lp_remove(LProgram *lp, LNode *parent, int pos) {
  int n;
  LNode **k = lp_kids(lp, parent, &n);
  memmove(k + pos, k + pos + 1, (size_t)(n - 1 - pos) * sizeof *k);
  if (parent)
    parent->nkids--;
  else
    lp->ntop--;
}

static bool find_path(const LNode *n, const LNode *stmt, LNode **loops, int depth, int *out) {
  if (n == stmt) {
    *out = depth;
    return true;
  }
  if (n->kind != LN_LOOP || depth >= 256)
    return false;
  loops[depth] = (LNode *)n;
  for (int i = 0; i < n->nkids; i++)
    if (find_path(n->kids[i], stmt, loops, depth + 1, out))
      return true;
  return false;
}

bool lp_find_path(const LProgram *lp, const LNode *stmt, LNode **loops, int *depth) {
  for (int i = 0; i < lp->ntop; i++)
    if (find_path(lp->top[i], stmt, loops, 0, depth))
      return true;
  return false;
}

/* ------------------------------------------------------------ layout (R-CG-9) */

int lp_layout(LProgram *lp) {
  int64_t esize = lp->f32 ? 4 : 8;
  int64_t off = 0;
  for (int i = 0; i < lp->nbufs; i++) {
    LBuf *b = &lp->bufs[i];
    if (b->kind != LB_WORK || !b->used)
      continue;
    b->offset = off;
    /* every buffer 64-byte aligned; count <= 2^59; a private slice: LP_COPIES copies (R-SCH-25) */
    int64_t bytes = b->priv ? lp_copy_stride(lp, b) * LP_COPIES * esize : (b->count * esize + 63) / 64 * 64;
    if (off > ((int64_t)1 << 62) - bytes)
      return -1;
    off += bytes;
  }
  lp->work_bytes = off;
  return 0;
}

/* ------------------------------------------------------------ pad pass (R-CG-10) */

/* Whether e = +0 whenever iterator v is in its padding: v is in Z(e). */
static bool in_zero_set(const LProgram *lp, const LExpr *e, int v) {
  switch (e->kind) {
  case LE_LOAD:
    for (int d = 0; d < lp->bufs[e->acc.buf].rank; d++)
      if (lp_aff_is_iter(&e->acc.idx[d], v))
        return true;
    return false;
  case LE_ZERO: return true;
  case LE_UNDEF: return false;
  case LE_ADD:
  case LE_SUB:
  case LE_MUL:
  case LE_DIV:
    return in_zero_set(lp, e->a, v) && in_zero_set(lp, e->b, v);
  }
  teil_unreachable();
}

static bool is_target_index(const LProgram *lp, const LAccess *acc, int v) {
  for (int d = 0; d < lp->bufs[acc->buf].rank; d++)
    if (lp_aff_is_iter(&acc->idx[d], v))
      return true;
  return false;
}

/* Whether a loop over v may run to P_v: every statement below has v in the zero
 * set of its right-hand side and, if it is '=', v is an entire target index. */
static bool may_pad(const LProgram *lp, const LNode *n, int v) {
  if (n->kind == LN_STMT)
    return in_zero_set(lp, n->rhs, v) && (n->accum || is_target_index(lp, &n->lhs, v));
  for (int i = 0; i < n->nkids; i++)
    if (!may_pad(lp, n->kids[i], v))
      return false;
  return true;
}

static bool innermost(const LNode *n) {
  for (int i = 0; i < n->nkids; i++)
    if (n->kids[i]->kind != LN_STMT)
      return false;
  return true;
}

typedef struct Guards {
  int n;
  int its[256];
} Guards;

static void guard_divisions(LProgram *lp, LExpr *e, const Guards *g) {
  if (!e)
    return;
  guard_divisions(lp, e->a, g);
  guard_divisions(lp, e->b, g);
  if (e->kind != LE_DIV || g->n == 0)
    return;
  e->nguard = g->n;
  e->gidx = arena_alloc(&lp->arena, (size_t)g->n * sizeof *e->gidx);
  e->gbound = arena_alloc(&lp->arena, (size_t)g->n * sizeof *e->gbound);
  for (int i = 0; i < g->n; i++) {
    e->gidx[i] = *lp_aff_iter(lp, g->its[i]);
    e->gbound[i] = lp->its[g->its[i]].n;
  }
}

static void pad_node(LProgram *lp, LNode *n, Guards *g) {
  if (n->kind == LN_STMT) {
    guard_divisions(lp, n->rhs, g);
    return;
  }
  const LIter *v = &lp->its[n->it];
  bool pushed = false;
  /* Only an innermost, non-reduction loop gains from the padded extent (full
   * vectors, no remainder); elsewhere the extra iterations are pure work. */
  if (v->p > v->n && innermost(n) && !(n->flags & LF_REDUCTION) && n->lb.n == 0 && n->lb.c == 0 && n->ub.n == 0 && n->ub.c == v->n && n->step == 1 &&
      may_pad(lp, n, n->it)) {
    n->ub.c = v->p;                                 /* R-CG-10: run over [0, P_v) */
    n->flags |= LF_PADDED;
  }
  if ((n->flags & LF_PADDED) && g->n < (int)(sizeof g->its / sizeof g->its[0])) {
    g->its[g->n++] = n->it;
    pushed = true;
  }
  for (int i = 0; i < n->nkids; i++)
    pad_node(lp, n->kids[i], g);
  if (pushed)
    g->n--;
}

/* Marks in need[] the buffers whose padding some load reads: a load under a
 * padded loop whose iterator is an entire index of the load. */
static void padding_reads(const LProgram *lp, const LExpr *e, const Guards *g, bool *need) {
  if (!e)
    return;
  if (e->kind == LE_LOAD)
    for (int i = 0; i < g->n; i++)
      if (in_zero_set(lp, e, g->its[i]))
        need[e->acc.buf] = true;
  padding_reads(lp, e->a, g, need);
  padding_reads(lp, e->b, g, need);
}

static void find_padding_reads(const LProgram *lp, const LNode *n, Guards *g, bool *need) {
  if (n->kind == LN_STMT) {
    padding_reads(lp, n->rhs, g, need);
    return;
  }
  bool pushed = (n->flags & LF_PADDED) && g->n < (int)(sizeof g->its / sizeof g->its[0]);
  if (pushed)
    g->its[g->n++] = n->it;
  for (int i = 0; i < n->nkids; i++)
    find_padding_reads(lp, n->kids[i], g, need);
  if (pushed)
    g->n--;
}

void lp_pad(LProgram *lp) {
  if (lp->pad <= 1)
    return;
  for (int i = 0; i < lp->ntop; i++) {
    Guards g = {0, {0}};
    pad_node(lp, lp->top[i], &g);
  }
  /* Workspace buffers whose padding is read start with zero padding: the
   * whole buffer is zeroed at the start of the call. Parameters have zero
   * padding by the calling convention (R-CG-9). */
  bool *need = xcalloc((size_t)lp->nbufs + 1, sizeof *need);
  for (int i = 0; i < lp->ntop; i++) {
    Guards g = {0, {0}};
    find_padding_reads(lp, lp->top[i], &g, need);
  }
  int nz = 0;
  LNode **zero = xcalloc((size_t)lp->nbufs + 1, sizeof *zero);
  for (int b = 0; b < lp->nbufs; b++)
    if (need[b] && lp->bufs[b].kind == LB_WORK) {
      zero[nz] = lp_fill(lp, b, LE_ZERO, true);
      if (nz++ == 0)
        zero[0]->note = "workspace buffers whose padding is read start as 0 (R-CG-10)";
    }
  if (nz) {
    LNode **top = xcalloc((size_t)(lp->ntop + nz), sizeof *top);
    memcpy(top, zero, (size_t)nz * sizeof *top);
    memcpy(top + nz, lp->top, (size_t)lp->ntop * sizeof *top);
    free(lp->top);
    lp->top = top;
    lp->ntop += nz;
    lp->captop = lp->ntop;
  }
  free(zero);
  free(need);
}

/* ------------------------------------------------------------ annotate (R-CG-11) */

typedef struct Stores {
  const LAccess **acc;
  int n, cap;
} Stores;

static void collect_stores(const LNode *n, Stores *s) {
  if (n->kind == LN_STMT) {
    GROW(s->acc, s->n, s->cap);
    s->acc[s->n++] = &n->lhs;
    return;
  }
  for (int i = 0; i < n->nkids; i++)
    collect_stores(n->kids[i], s);
}

static bool same_access(const LProgram *lp, const LAccess *x, const LAccess *y) {
  if (x->buf != y->buf)
    return false;
  for (int d = 0; d < lp->bufs[x->buf].rank; d++)
    if (!lp_aff_equal(&x->idx[d], &y->idx[d]))
      return false;
  return true;
}

/* Every load of a stored buffer uses the index list of each store of it. */
static bool loads_match(const LProgram *lp, const LExpr *e, const Stores *s) {
  if (!e)
    return true;
  if (e->kind == LE_LOAD)
    for (int i = 0; i < s->n; i++)
      if (s->acc[i]->buf == e->acc.buf && !same_access(lp, s->acc[i], &e->acc))
        return false;
  return loads_match(lp, e->a, s) && loads_match(lp, e->b, s);
}

static bool stmts_ok(const LProgram *lp, const LNode *n, int v, const Stores *s) {
  if (n->kind == LN_STMT)
    return is_target_index(lp, &n->lhs, v) && loads_match(lp, n->rhs, s);
  for (int i = 0; i < n->nkids; i++)
    if (!stmts_ok(lp, n->kids[i], v, s))
      return false;
  return true;
}

/* R-CG-11: the loop carries no dependence. */
static bool no_carried_dependence(const LProgram *lp, const LNode *loop) {
  Stores s = {NULL, 0, 0};
  collect_stores(loop, &s);
  bool ok = stmts_ok(lp, loop, loop->it, &s);
  free(s.acc);
  return ok;
}

static int64_t access_stride(const LProgram *lp, const LAccess *acc, int v) {
  const LBuf *b = &lp->bufs[acc->buf];
  int64_t s = 0;
  for (int d = 0; d < b->rank; d++)
    s += b->stride[d] * lp_aff_coef(&acc->idx[d], v);
  return s;
}

/* The iterations of a loop: exact when ub - lb is a constant; with a min
 * bound (R-SCH-15) the estimate of the bound whose distance is constant. */
int64_t lp_trip_estimate(const LNode *n) {
  int64_t best = -1;
  for (int k = -1; k < n->nubx; k++) {
    const LAff *ub = k < 0 ? &n->ub : &n->ubx[k];
    int64_t d;
    if (!lp_aff_const_diff(ub, &n->lb, &d))
      continue;
    int64_t trip = d <= 0 ? 0 : (d + n->step - 1) / n->step;
    if (best < 0 || trip < best)
      best = trip;
  }
  return best < 0 ? 1 : best;
}

/* Statement instances executed by a node (saturating). */
double lp_work(const LNode *n) {
  if (n->kind == LN_STMT)
    return 1;
  double w = 0;
  for (int i = 0; i < n->nkids; i++)
    w += lp_work(n->kids[i]);
  return w * (double)lp_trip_estimate(n);
}

/* The operations of e. */
static int expr_ops(const LExpr *e) {
  if (!e || e->kind == LE_LOAD || e->kind == LE_ZERO || e->kind == LE_UNDEF)
    return 0;
  return 1 + expr_ops(e->a) + expr_ops(e->b);
}

/* R-CG-11.1: n's work against the parallel threshold: its statement instances, each
 * accumulation weighing 2/3 and each assignment of k > 2 operations k / 2. */
double lp_par_work(const LNode *n) {
  if (n->kind == LN_STMT) {
    if (n->accum)
      return 2.0 / 3.0;
    int k = expr_ops(n->rhs);
    return k > 2 ? k / 2.0 : 1;
  }
  double w = 0;
  for (int i = 0; i < n->nkids; i++)
    w += lp_par_work(n->kids[i]);
  return w * (double)lp_trip_estimate(n);
}

bool lp_par_pays(const LNode *n) { return lp_par_work(n) >= PARALLEL_MIN_WORK; }

static bool has_parallel(const LNode *n) {
  if (n->kind == LN_STMT)
    return false;
  if (n->flags & LF_PARALLEL)
    return true;
  for (int i = 0; i < n->nkids; i++)
    if (has_parallel(n->kids[i]))
      return true;
  return false;
}

static void mark_simd(const LProgram *lp, LNode *n) {
  if (n->kind == LN_STMT)
    return;
  if (!innermost(n)) {
    for (int i = 0; i < n->nkids; i++)
      mark_simd(lp, n->kids[i]);
    return;
  }
  if (n->step != 1 || !no_carried_dependence(lp, n))
    return;
  for (int i = 0; i < n->nkids; i++)
    if (access_stride(lp, &n->kids[i]->lhs, n->it) != 1)
      return;
  n->flags |= LF_SIMD;
}

/* Whether every loop below the top-level loop n (n excluded) has a constant
 * trip count below TINY_TRIPS; a nest of one loop is not tiny. */
#define TINY_TRIPS 4
static bool loop_below(const LNode *n) {
  for (int i = 0; i < n->nkids; i++)
    if (n->kids[i]->kind == LN_LOOP)
      return true;
  return false;
}

static bool tiny_below(const LNode *n, bool top) {
  if (n->kind != LN_LOOP)
    return true;
  if (!top && (!lp_aff_is_const(&n->lb) || !lp_aff_is_const(&n->ub) || n->nubx ||
               (n->ub.c - n->lb.c + n->step - 1) / n->step >= TINY_TRIPS))
    return false;
  for (int i = 0; i < n->nkids; i++)
    if (!tiny_below(n->kids[i], false))
      return false;
  return true;
}

static void clear_simd(LNode *n) {
  if (n->kind != LN_LOOP)
    return;
  if (!(n->flags & LF_PARALLEL))
    n->flags &= ~(unsigned)LF_SIMD;
  for (int i = 0; i < n->nkids; i++)
    clear_simd(n->kids[i]);
}

void lp_annotate(LProgram *lp, bool openmp) {
  if (!openmp)
    return;
  for (int i = 0; i < lp->ntop; i++) {
    LNode *n = lp->top[i];
    if (n->kind != LN_LOOP)
      continue;
    /* R-SCH-16: a nest the schedule parallelized keeps its parallel loop */
    if (!has_parallel(n) && lp_par_pays(n) && no_carried_dependence(lp, n))
      n->flags |= LF_PARALLEL;
    mark_simd(lp, n);
    /* a nest whose loops below the top one all run fewer than TINY_TRIPS iterations: no
     * vector loops, the C compiler's unrolling serves it better */
    if (loop_below(n) && tiny_below(n, true))
      clear_simd(n);
  }
}

/* ------------------------------------------------------------ full blocks (R-CG-19) */

bool lp_aff_is_const(const LAff *x) {
  for (int t = 0; t < x->n; t++)
    if (x->coef[t])
      return false;
  return true;
}

/* Whether a is it + c (coefficient 1, no other iterator); *c receives c. */
static bool aff_iter_plus(const LAff *a, int it, int64_t *c) {
  LAff z = *a;
  z.c = 0;
  if (!lp_aff_is_iter(&z, it))
    return false;
  *c = a->c;
  return true;
}

/* The bounds of loop n as one list: ub, then ubx. */
static LAff *bound_at(LNode *n, int k) { return k == 0 ? &n->ub : &n->ubx[k - 1]; }

static void drop_bound(LNode *n, int k) {
  if (k == 0)
    n->ub = n->ubx[0], k = 1;
  memmove(n->ubx + k - 1, n->ubx + k, (size_t)(n->nubx - k) * sizeof *n->ubx);
  n->nubx--;
}

/* Whether some loop below n has a min bound with vt + c and a constant. */
static bool has_block_min(const LNode *n, int vt) {
  if (n->kind == LN_STMT)
    return false;
  for (int k = 0; k <= n->nubx && n->nubx; k++) {
    int64_t c;
    if (aff_iter_plus(bound_at((LNode *)n, k), vt, &c))
      for (int m = 0; m <= n->nubx; m++)
        if (m != k && lp_aff_is_const(bound_at((LNode *)n, m)))
          return true;
  }
  for (int i = 0; i < n->nkids; i++)
    if (has_block_min(n->kids[i], vt))
      return true;
  return false;
}

/* R-CG-19.1: below a full block (vt <= vmax) drop the constant bounds that
 * vt + c never exceeds. */
static void drop_full_mins(LNode *n, int vt, int64_t vmax) {
  if (n->kind == LN_STMT)
    return;
  for (int k = 0; k <= n->nubx; k++) {
    int64_t c;
    if (!aff_iter_plus(bound_at(n, k), vt, &c))
      continue;
    for (int m = 0; m <= n->nubx; m++)
      if (m != k && lp_aff_is_const(bound_at(n, m)) && vmax + c <= bound_at(n, m)->c) {
        drop_bound(n, m);
        k = -1;                                     /* the list moved: start again */
        break;
      }
  }
  for (int i = 0; i < n->nkids; i++)
    drop_full_mins(n->kids[i], vt, vmax);
}

/* R-CG-19.2: every min of constants below n becomes its smallest bound. */
static void fold_const_mins(LNode *n) {
  if (n->kind == LN_STMT)
    return;
  for (int k = n->nubx; k >= 1; k--)
    if (lp_aff_is_const(&n->ub) && lp_aff_is_const(&n->ubx[k - 1])) {
      if (n->ubx[k - 1].c < n->ub.c)
        n->ub = n->ubx[k - 1];
      drop_bound(n, k);
    }
  for (int i = 0; i < n->nkids; i++)
    fold_const_mins(n->kids[i]);
}

/* inpar: parent lies in a parallel region (a parallel loop or R-SCH-25's region) */
static void split_blocks(LProgram *lp, LNode *parent, bool inpar) {
  int nk;
  LNode **kids = lp_kids(lp, parent, &nk);
  for (int i = 0; i < nk; i++) {
    LNode *n = kids[i];
    if (n->kind != LN_LOOP)
      continue;
    split_blocks(lp, n, inpar || (n->flags & (LF_PARALLEL | LF_REGION)));
    if (!lp_aff_is_const(&n->lb) || !lp_aff_is_const(&n->ub) || n->nubx || n->step <= 1)
      continue;
    int64_t lb = n->lb.c, ub = n->ub.c, q = (ub - lb) / n->step;
    if (ub <= lb || (ub - lb) % n->step == 0 || !has_block_min(n, n->it))
      continue;
    if ((n->flags & LF_PARALLEL) && q < 4)            /* the partial block would run on one thread */
      continue;
    int64_t v0 = lb + q * n->step;
    LNode *part = n;
    if (q > 0) {
      part = lp_clone(lp, n, true, true, NULL, NULL);
      part->note = NULL;                            /* the statement is named once */
      part->lb = *lp_aff_const(lp, v0);
      n->ub = *lp_aff_const(lp, v0);
      for (int k = 0; k < n->nkids; k++)
        drop_full_mins(n->kids[k], n->it, v0 - n->step);
      lp_insert(lp, parent, i + 1, part);
      kids = lp_kids(lp, parent, &nk);
      i++;
    }
    if (part != n && !inpar && (n->flags & LF_PARALLEL))   /* R-CG-19.4: one iteration, no region; */
      part->flags = (part->flags & ~(unsigned)LF_PARALLEL) | (parent ? 0 : LF_PARTIAL);   /* R-CG-19.5 */
    for (int k = 0; k < part->nkids; k++) {
      lp_subst_tree(lp, part->kids[k], part->it, lp_aff_const(lp, v0));
      fold_const_mins(part->kids[k]);
    }
  }
}

void lp_split_blocks(LProgram *lp) { split_blocks(lp, NULL, false); }

/* ------------------------------------------------------------ vector lanes (R-CG-20) */

/* whole vectors: no more operations per row than the remainder's pieces (7 = 4 + 2 + 1
 * takes three, 8 one), and a register block of whole vectors stays in registers */
bool lp_lane_extent(const LProgram *lp, int64_t n) {
  int64_t vw = lp->f32 ? 16 : 8;
  return n % vw != 0 && st_round(n, (int)vw) <= 2 * n;
}

static bool lane_buf(const LProgram *lp, int b) {
  const LBuf *x = &lp->bufs[b];
  return (x->kind == LB_LOCAL || (x->kind == LB_WORK && x->stageof < 0)) && x->rank >= 1 &&
         lp_lane_extent(lp, x->dims[x->rank - 1]);
}

/* 0: a does not use it; 1: it is a's last index it + c of a lane buffer with
 * ub + c = N and wub + c <= P; -1: otherwise. */
static int lane_access(const LProgram *lp, const LAccess *a, int it, int64_t ub, int64_t wub, int64_t vw) {
  const LBuf *x = &lp->bufs[a->buf];
  for (int d = 0; d + 1 < x->rank; d++)
    if (lp_aff_coef(&a->idx[d], it))
      return -1;
  const LAff *last = x->rank ? &a->idx[x->rank - 1] : NULL;
  if (!last || !lp_aff_coef(last, it))
    return 0;
  int64_t c;
  if (!lane_buf(lp, a->buf) || !aff_iter_plus(last, it, &c))
    return -1;
  int64_t n = x->dims[x->rank - 1];
  return ub + c == n && wub + c <= st_round(n, (int)vw) ? 1 : -1;
}

/* Whether every load of e passes lane_access; lane buffers read get mark[b]. */
static bool lane_loads(const LProgram *lp, const LExpr *e, int it, int64_t ub, int64_t wub, int64_t vw, bool *mark) {
  if (!e)
    return true;
  if (e->nguard)
    return false;
  if (e->kind == LE_LOAD) {
    int r = lane_access(lp, &e->acc, it, ub, wub, vw);
    if (r < 0)
      return false;
    if (r > 0)
      mark[e->acc.buf] = true;
    return true;
  }
  return lane_loads(lp, e->a, it, ub, wub, vw, mark) && lane_loads(lp, e->b, it, ub, wub, vw, mark);
}

/* The widened trip W of a trip t (R-CG-20): whole vectors, or whole vectors and
 * one half vector when t > V and 2 <= t mod V <= V/2. */
static int64_t lane_trip(int64_t t, int64_t vw) {
  int64_t r = t % vw;
  if (t > vw && r >= 2 && r <= vw / 2)
    return t - r + vw / 2;
  return st_round(t, (int)vw);
}

static int64_t const_trip(const LNode *n);

/* Marks in pad the workspace lane buffers that e reads by j + c in the last
 * index only (j the iterator it). */
static void aligned_loads(const LProgram *lp, const LExpr *e, int it, bool *pad) {
  if (!e)
    return;
  if (e->kind == LE_LOAD) {
    const LBuf *x = &lp->bufs[e->acc.buf];
    int64_t c;
    if (x->kind != LB_WORK || !lane_buf(lp, e->acc.buf) || !aff_iter_plus(&e->acc.idx[x->rank - 1], it, &c))
      return;
    for (int d = 0; d + 1 < x->rank; d++)
      if (lp_aff_coef(&e->acc.idx[d], it))
        return;
    pad[e->acc.buf] = true;
    return;
  }
  aligned_loads(lp, e->a, it, pad);
  aligned_loads(lp, e->b, it, pad);
}

/* Aligned rows (R-CG-20): an innermost loop of whole vectors (a constant trip,
 * a multiple of V, step 1) pads the rows of the workspace lane buffers it reads
 * along its iterator, so that its vector loads do not straddle cache lines. */
static void mark_aligned_rows(const LProgram *lp, const LNode *n, int64_t vw, bool *pad) {
  int64_t t = const_trip(n);
  if (n->step != 1 || t <= 0 || t % vw != 0)
    return;
  for (int i = 0; i < n->nkids; i++)
    aligned_loads(lp, n->kids[i]->rhs, n->it, pad);
}

/* Partial register blocks (R-CG-20): s is a += into a register block (R-SCH-21)
 * whose last extent is a multiple of V, by j + c in its last index only, with
 * lb + c >= 0 and wub + c within it, and its right side reads a lane buffer by
 * j (lane_loads marked one in mark). *end: wub + c, the end of its lanes. */
static bool block_lanes(const LProgram *lp, const LNode *s, int it, int64_t lb, int64_t wub, int64_t vw,
                        const bool *mark, int64_t *end) {
  const LBuf *x = &lp->bufs[s->lhs.buf];
  int64_t c;
  bool lane = false;
  for (int b = 0; b < lp->nbufs && !lane; b++)
    lane = mark[b] && lp_expr_reads(s->rhs, b);
  if (!s->accum || !lane || x->kind != LB_LOCAL || !x->rblock || x->rank < 1 || x->dims[x->rank - 1] % vw != 0 ||
      !aff_iter_plus(&s->lhs.idx[x->rank - 1], it, &c) || lb + c < 0 || wub + c > x->dims[x->rank - 1])
    return false;
  for (int d = 0; d + 1 < x->rank; d++)
    if (lp_aff_coef(&s->lhs.idx[d], it))
      return false;
  *end = wub + c;
  return true;
}

/* Widens n and the innermost loops below it; pad[b] receives the buffers to
 * pad, reach[b] the end of the lanes that widened loops access in buffer b's
 * last index (0: none). A loop of trip 1 mod V, or whose trip is already
 * whole and half vectors, is not widened, but its buffers are padded (R-CG-20). */
static void widen_loops(LProgram *lp, LNode *n, int64_t vw, bool *pad, int64_t *reach, bool *mark) {
  if (n->kind == LN_STMT)
    return;
  bool inner = true;
  for (int i = 0; i < n->nkids; i++)
    if (n->kids[i]->kind == LN_LOOP) {
      inner = false;
      widen_loops(lp, n->kids[i], vw, pad, reach, mark);
    }
  if (inner && n->nkids)
    mark_aligned_rows(lp, n, vw, pad);
  if (!inner || !n->nkids || n->step != 1 || n->nubx || !lp_aff_is_const(&n->lb) || !lp_aff_is_const(&n->ub))
    return;
  int64_t lb = n->lb.c, ub = n->ub.c, t = ub - lb;
  if (t <= 0 || t % vw == 0)
    return;
  int64_t wub = lb + lane_trip(t, vw), r = t % vw;
  int nblock = 0, blocks[64];
  int64_t bend[64];
  memset(mark, 0, (size_t)lp->nbufs * sizeof *mark);
  for (int i = 0; i < n->nkids; i++) {
    const LNode *s = n->kids[i];
    int64_t end;
    if (!lane_loads(lp, s->rhs, n->it, ub, wub, vw, mark))
      return;
    if (lane_access(lp, &s->lhs, n->it, ub, wub, vw) == 1) {
      mark[s->lhs.buf] = true;
    } else if ((r & (r - 1)) && nblock < 64 && block_lanes(lp, s, n->it, lb, wub, vw, mark, &end)) {
      blocks[nblock] = s->lhs.buf;                  /* a partial register block (R-CG-20) */
      bend[nblock++] = end;
    } else {
      return;
    }
  }
  bool widen = t % vw != 1 && wub != ub;
  if (widen)
    n->ub = *lp_aff_const(lp, wub);
  for (int k = 0; widen && k < nblock; k++) {      /* its lanes [.., end) start from 0: fill_locals */
    reach[blocks[k]] = bend[k] > reach[blocks[k]] ? bend[k] : reach[blocks[k]];
    n->flags |= LF_LANES;
  }
  for (int b = 0; b < lp->nbufs; b++) {
    pad[b] |= mark[b];
    if (mark[b] && widen) {                        /* ub + c = N, so the lanes end at N + wub - ub */
      const LBuf *x = &lp->bufs[b];
      int64_t end = x->dims[x->rank - 1] + wub - ub;
      reach[b] = end > reach[b] ? end : reach[b];
    }
  }
}

/* A nest assigning 0 over every padded element of buf whose last index is in
 * [lo, hi). */
static LNode *zero_lanes(LProgram *lp, int buf, int64_t lo, int64_t hi) {
  const LBuf *x = &lp->bufs[buf];
  LAff **idx = arena_alloc(&lp->arena, (size_t)(x->rank + 1) * sizeof *idx);
  LNode *root = NULL, *inner = NULL;
  for (int d = 0; d < x->rank; d++) {
    int it = lp_add_iter(lp, lp_iter_name(lp, 'z', d + 1), lp->bufs[buf].pdims[d]);
    idx[d] = lp_aff_iter(lp, it);
    bool last = d == x->rank - 1;
    LNode *l = lp_loop(lp, it, last ? lo : 0, last ? hi : x->pdims[d], 0);
    if (inner)
      lp_append(lp, inner, l);
    else
      root = l;
    inner = l;
  }
  LNode *s = lp_stmt(lp, buf, idx, false, lp_expr(lp, LE_ZERO, NULL, NULL));
  if (!root)
    return s;
  lp_append(lp, inner, s);
  return root;
}

/* A nest over every padded element of buf, assigning 0. */
static LNode *zero_nest(LProgram *lp, int buf) {
  const LBuf *x = &lp->bufs[buf];
  return zero_lanes(lp, buf, 0, x->rank ? x->pdims[x->rank - 1] : 0);
}

/* Whether a + b is the iterator it. */
static bool aff_sum_is_iter(const LAff *a, const LAff *b, int it) {
  if (a->c + b->c != 0 || lp_aff_coef(a, it) + lp_aff_coef(b, it) != 1)
    return false;
  for (int t = 0; t < a->n; t++)
    if (a->it[t] != it && lp_aff_coef(a, a->it[t]) + lp_aff_coef(b, a->it[t]) != 0)
      return false;
  for (int t = 0; t < b->n; t++)
    if (b->it[t] != it && lp_aff_coef(a, b->it[t]) + lp_aff_coef(b, b->it[t]) != 0)
      return false;
  return true;
}

/* The trip count ub - lb of loop n when it is a constant (the bounds differ in
 * their constants only), else -1. */
static int64_t const_trip(const LNode *n) {
  int64_t d;
  return !n->nubx && lp_aff_const_diff(&n->ub, &n->lb, &d) ? d : -1;
}

/* Whether some statement below n (inside the loops stack[0..depth-1]) stores
 * every element of buf that a loop accesses: each loop around it runs at
 * least once, its trip a constant, and each index is 0 of an extent 1, or
 * i - lb for a loop of its own over [lb, lb + pdim) (a tile loop's [h, h + S)
 * too) with step 1, or i for a loop over [h, h + S) inside the loop of h over
 * [0, pdim) with step S, S dividing pdim; reach in place of pdim in the last
 * index (no loop accesses the lanes past reach). */
static bool stores_all(const LProgram *lp, const LNode *n, int buf, int64_t reach, const LNode **stack, int depth) {
  if (n->kind == LN_STMT) {
    if (n->lhs.buf != buf)
      return false;
    const LBuf *x = &lp->bufs[buf];
    bool used[256] = {0};
    for (int d = 0; d < x->rank; d++) {
      const LAff *a = &n->lhs.idx[d];
      if (lp_aff_is_const(a) && a->c == 0 && x->pdims[d] == 1)
        continue;
      int64_t end = d == x->rank - 1 ? reach : x->pdims[d];
      int k = 0;
      while (k < depth && !aff_sum_is_iter(a, &stack[k]->lb, stack[k]->it))
        k++;
      if (k < depth && !used[k] && const_trip(stack[k]) == end && stack[k]->step == 1) {
        used[k] = true;
        continue;
      }
      int q = 0;                                  /* i of [h, h + S) under h over [0, E) step S */
      k = 0;
      while (k < depth && !lp_aff_is_iter(a, stack[k]->it))
        k++;
      while (k < depth && q < k && !lp_tile_of(stack[k], stack[q]))
        q++;
      if (k == depth || q == k || used[k] || used[q] || stack[q]->nubx || !lp_aff_is_const(&stack[q]->lb) ||
          stack[q]->lb.c != 0 || !lp_aff_is_const(&stack[q]->ub) || stack[q]->ub.c != end || end % stack[q]->step != 0)
        return false;
      used[k] = used[q] = true;
    }
    return true;
  }
  if (depth == 256 || n->step < 1 || const_trip(n) <= 0)
    return false;
  stack[depth] = n;
  for (int i = 0; i < n->nkids; i++)
    if (stores_all(lp, n->kids[i], buf, reach, stack, depth + 1))
      return true;
  return false;
}

/* The end of the lanes that innermost loop n writes in the last index of buf
 * (by j + c, j n's iterator, in no other index) when it writes them through N,
 * the row's end: ub + c; -1 otherwise. */
static int64_t row_end(const LProgram *lp, const LNode *n, const LAccess *a) {
  const LBuf *x = &lp->bufs[a->buf];
  int64_t c;
  if (n->step != 1 || n->nubx || !lp_aff_is_const(&n->lb) || !lp_aff_is_const(&n->ub))
    return -1;
  for (int d = 0; d + 1 < x->rank; d++)
    if (lp_aff_coef(&a->idx[d], n->it))
      return -1;
  if (!aff_iter_plus(&a->idx[x->rank - 1], n->it, &c) || n->lb.c + c > x->dims[x->rank - 1] ||
      n->ub.c + c < x->dims[x->rank - 1])
    return -1;
  return n->ub.c + c;
}

/* Whether every store to buf below n (NULL: the whole program) sits in an
 * innermost loop that writes each row it writes to its end N (and a fill can
 * follow it) or through the lanes' end reach (it writes them itself). */
static bool rows_to_end(LProgram *lp, LNode *n, int buf, int64_t reach) {
  if (!n) {
    for (int i = 0; i < lp->ntop; i++)
      if (!rows_to_end(lp, lp->top[i], buf, reach))
        return false;
    return true;
  }
  if (n->kind == LN_STMT)
    return n->lhs.buf != buf;
  bool inner = true;
  for (int i = 0; i < n->nkids; i++)
    if (n->kids[i]->kind == LN_LOOP) {
      inner = false;
      if (!rows_to_end(lp, n->kids[i], buf, reach))
        return false;
    }
  if (!inner) {                                   /* a statement beside loops */
    for (int i = 0; i < n->nkids; i++)
      if (n->kids[i]->kind == LN_STMT && n->kids[i]->lhs.buf == buf)
        return false;
    return true;
  }
  for (int i = 0; i < n->nkids; i++) {
    const LAccess *a = &n->kids[i]->lhs;
    if (a->buf != buf || n->kids[i]->accum)      /* += reads a row a store wrote before */
      continue;
    int64_t end = row_end(lp, n, a);
    if (end != lp->bufs[buf].dims[lp->bufs[buf].rank - 1] && end < reach)
      return false;
  }
  return true;
}

/* After each innermost loop below parent (NULL: the top level) that stores rows
 * of buf (rows_to_end), a loop storing 0 to the same rows' lanes [N, reach). */
static void fill_row_ends(LProgram *lp, LNode *parent, int buf, int64_t reach) {
  const LBuf *x = &lp->bufs[buf];
  int nk;
  (void)lp_kids(lp, parent, &nk);
  for (int i = nk - 1; i >= 0; i--) {
    LNode *n = lp_kids(lp, parent, &nk)[i];       /* an insertion may move the list */
    if (n->kind == LN_STMT || !lp_writes(n, buf))
      continue;
    bool inner = true;
    for (int k = 0; k < n->nkids; k++)
      inner &= n->kids[k]->kind == LN_STMT;
    if (!inner) {
      fill_row_ends(lp, n, buf, reach);
      continue;
    }
    for (int k = n->nkids - 1; k >= 0; k--) {
      const LAccess *a = &n->kids[k]->lhs;
      if (a->buf != buf || n->kids[k]->accum || row_end(lp, n, a) != x->dims[x->rank - 1])
        continue;                                 /* or it writes the lanes itself */
      int it = lp_add_iter(lp, lp_iter_name(lp, 'z', x->rank), reach);
      LAff **idx = arena_alloc(&lp->arena, (size_t)x->rank * sizeof *idx);
      for (int d = 0; d + 1 < x->rank; d++) {
        idx[d] = arena_alloc(&lp->arena, sizeof *idx[d]);
        *idx[d] = lp_aff_copy(lp, &a->idx[d]);
      }
      idx[x->rank - 1] = lp_aff_iter(lp, it);
      LNode *l = lp_loop(lp, it, x->dims[x->rank - 1], reach, 0);
      lp_append(lp, l, lp_stmt(lp, buf, idx, false, lp_expr(lp, LE_ZERO, NULL, NULL)));
      lp_insert(lp, parent, i + 1, l);
    }
  }
}

/* Whether a loop below n, n included, was widened into the lanes of the
 * register block buf (LF_LANES). */
static bool block_widened(const LNode *n, int buf) {
  if (n->kind == LN_STMT)
    return false;
  if ((n->flags & LF_LANES) && lp_writes(n, buf))
    return true;
  for (int i = 0; i < n->nkids; i++)
    if (block_widened(n->kids[i], buf))
      return true;
  return false;
}

/* Partial register blocks (R-CG-20): raises to reach - c the bound of each
 * innermost loop below n that zeroes rows of the block buf by j + c (R-CG-22),
 * recording the loops and their old bounds in undo[0..*nundo) (at most 64). */
static void zero_rows_to(LProgram *lp, LNode *n, int buf, int64_t reach, LNode **undo, int64_t *old, int *nundo) {
  if (n->kind == LN_STMT)
    return;
  bool inner = n->nkids > 0;
  for (int i = 0; i < n->nkids; i++) {
    LNode *k = n->kids[i];
    if (k->kind == LN_LOOP) {
      inner = false;
      zero_rows_to(lp, k, buf, reach, undo, old, nundo);
    }
  }
  int64_t c = 0, c1;
  if (!inner || n->step != 1 || n->nubx || !lp_aff_is_const(&n->lb) || !lp_aff_is_const(&n->ub) || *nundo == 64)
    return;
  const LBuf *x = &lp->bufs[buf];
  for (int i = 0; i < n->nkids; i++) {
    const LNode *s = n->kids[i];
    if (s->lhs.buf != buf || s->accum || s->rhs->kind != LE_ZERO ||
        !aff_iter_plus(&s->lhs.idx[x->rank - 1], n->it, &c1) || (i && c1 != c))
      return;
    for (int d = 0; d + 1 < x->rank; d++)
      if (lp_aff_coef(&s->lhs.idx[d], n->it))
        return;
    c = c1;
  }
  if (n->ub.c + c >= reach)
    return;
  undo[*nundo] = n;
  old[(*nundo)++] = n->ub.c;
  n->ub = *lp_aff_const(lp, reach - c);
}

/* R-CG-20: zero fills of the local arrays that widened loops access, at the
 * top of their loops, unless the first child of the loop that accesses the
 * array stores all of it and reads none of it; a partial register block only
 * in the loops that widen into its lanes, and by the loops that zero it
 * (R-CG-22) when they can reach its lanes' end; a copy per iteration
 * (R-SCH-24.1) by its rows' ends. */
static void fill_locals(LProgram *lp, LNode *n, const int64_t *reach) {
  if (n->kind == LN_STMT)
    return;
  for (int i = 0; i < n->nkids; i++)
    fill_locals(lp, n->kids[i], reach);
  for (int k = n->nlocals - 1; k >= 0; k--) {
    int b = n->locals[k];
    const LBuf *x = &lp->bufs[b];
    if (!reach[b] || (x->rblock && x->dims[x->rank - 1] % (lp->f32 ? 16 : 8) == 0 && !block_widened(n, b)))
      continue;                                     /* a partial register block: only where its lanes are used */
    int i = 0;
    while (i < n->nkids && !lp_writes(n->kids[i], b) && !lp_reads(n->kids[i], b))
      i++;
    const LNode *stack[256];
    if (i < n->nkids && !lp_reads(n->kids[i], b) && stores_all(lp, n->kids[i], b, reach[b], stack, 0))
      continue;
    if (i < n->nkids && x->rblock && !lp_reads(n->kids[i], b)) {
      LNode *undo[64];                              /* a partial block: its zeroing loops reach its lanes' end */
      int64_t old[64];
      int nundo = 0;
      zero_rows_to(lp, n->kids[i], b, reach[b], undo, old, &nundo);
      if (nundo && stores_all(lp, n->kids[i], b, reach[b], stack, 0))
        continue;
      while (nundo-- > 0)
        undo[nundo]->ub = *lp_aff_const(lp, old[nundo]);
    }
    if (lp->bufs[b].packof >= 0 && rows_to_end(lp, n, b, reach[b])) {
      fill_row_ends(lp, n, b, reach[b]);            /* a copy per iteration: its rows' pad lanes (R-CG-20) */
      continue;
    }
    lp_insert(lp, n, 0, zero_nest(lp, b));
  }
}

void lp_pad_lanes(LProgram *lp) {
  if (lp->pad != 1 || !lp->nbufs)
    return;
  int64_t vw = lp->f32 ? 16 : 8;
  bool *pad = xcalloc((size_t)lp->nbufs * 2, sizeof *pad), *mark = pad + lp->nbufs;
  int64_t *reach = xcalloc((size_t)lp->nbufs, sizeof *reach);
  for (int i = 0; i < lp->ntop; i++)
    widen_loops(lp, lp->top[i], vw, pad, reach, mark);
  for (int b = 0; b < lp->nbufs; b++) {
    if (!pad[b])
      continue;
    LBuf *x = &lp->bufs[b];
    x->pdims[x->rank - 1] = st_round(x->dims[x->rank - 1], (int)vw);
    if (x->contractof >= 0 && reach[b] && reach[b] < x->pdims[x->rank - 1])
      x->pdims[x->rank - 1] = reach[b];           /* an element's part: rows end where its lanes do (R-CG-20) */
    x->count = 1;
    for (int d = x->rank - 1; d >= 0; d--) {
      x->stride[d] = x->count;
      x->count *= x->pdims[d];
    }
  }
  for (int i = 0; i < lp->ntop; i++)
    fill_locals(lp, lp->top[i], reach);
  for (int b = 0; b < lp->nbufs; b++) {
    const LBuf *x = &lp->bufs[b];
    if (!reach[b] || x->kind != LB_WORK)
      continue;
    int64_t n = x->dims[x->rank - 1];
    if (x->priv) {                                  /* in each region, every thread's copy */
      for (int i = 0; i < lp->ntop; i++) {
        LNode *r = lp->top[i];
        if (r->kind != LN_LOOP || !(r->flags & LF_REGION) || !(lp_writes(r, b) || lp_reads(r, b)))
          continue;
        if (rows_to_end(lp, r, b, reach[b]))
          fill_row_ends(lp, r, b, reach[b]);
        else
          lp_insert(lp, r, 0, zero_lanes(lp, b, n, reach[b]));
      }
      continue;
    }
    if (x->packof < 0 && rows_to_end(lp, NULL, b, reach[b])) {
      fill_row_ends(lp, NULL, b, reach[b]);
      continue;
    }
    for (int i = 0; i < lp->ntop; i++)              /* before the first nest that writes it */
      if (lp_writes(lp->top[i], b)) {
        lp_insert(lp, NULL, i, x->packof >= 0 ? zero_nest(lp, b) : zero_lanes(lp, b, n, reach[b]));
        break;
      }
  }
  free(pad);
  free(reach);
}

/* R-CG-20.1: whether n is a simd loop of register-block updates whose trip is
 * more than vw and whose remainder, split into pieces of 32, 16, 8 and 4 bytes,
 * has a piece of 16, or of 8 after two or more whole vectors; *cut is the end
 * of its whole vectors. */
static bool remainder_loop(const LProgram *lp, const LNode *n, int64_t vw, int64_t *cut) {
  if (n->kind != LN_LOOP || !(n->flags & LF_SIMD) || !n->nkids || n->step != 1 || n->nubx ||
      !lp_aff_is_const(&n->lb) || !lp_aff_is_const(&n->ub))
    return false;
  int64_t t = n->ub.c - n->lb.c;
  int64_t rest = t % vw * (64 / vw);                /* the remainder's bytes */
  if (t <= vw || !((rest & 16) || ((rest & 8) && t >= 2 * vw)))
    return false;
  for (int i = 0; i < n->nkids; i++) {
    const LNode *s = n->kids[i];
    if (s->kind != LN_STMT || !s->accum || !lp->bufs[s->lhs.buf].rblock)
      return false;
  }
  *cut = n->lb.c + t / vw * vw;
  return true;
}

static void split_remainders(LProgram *lp, LNode *parent, int64_t vw) {
  int nk;
  LNode **kids = lp_kids(lp, parent, &nk);
  for (int i = 0; i < nk; i++) {
    LNode *k = kids[i];
    int64_t cut;
    if (k->kind != LN_LOOP)
      continue;
    if (!remainder_loop(lp, k, vw, &cut)) {
      split_remainders(lp, k, vw);
      continue;
    }
    LNode *rest = lp_clone(lp, k, true, false, NULL, NULL);   /* its own iterator, as R-CG-19 */
    rest->lb = *lp_aff_const(lp, cut);
    k->ub = *lp_aff_const(lp, cut);
    lp_insert(lp, parent, i + 1, rest);
    kids = lp_kids(lp, parent, &nk);                /* lp_insert may move the array */
    i++;
  }
}

void lp_split_remainders(LProgram *lp) {
  if (lp->pad == 1)
    split_remainders(lp, NULL, lp->f32 ? 16 : 8);
}

/* ------------------------------------------------------------ printer (R-CG-2) */

void lp_print_aff(const LProgram *lp, const LAff *a, Buf *b) {
  bool any = false;
  for (int t = 0; t < a->n; t++) {
    int64_t c = a->coef[t];
    if (c == 0)
      continue;
    const char *name = lp->its[a->it[t]].name;
    if (any)
      buf_printf(b, c < 0 ? " - " : " + ");
    else if (c < 0)
      buf_printf(b, "-");
    int64_t m = c < 0 ? -c : c;
    if (m == 1)
      buf_printf(b, "%s", name);
    else
      buf_printf(b, "%lld*%s", (long long)m, name);
    any = true;
  }
  if (!any)
    buf_printf(b, "%lld", (long long)a->c);
  else if (a->c)
    buf_printf(b, " %c %lld", a->c < 0 ? '-' : '+', (long long)(a->c < 0 ? -a->c : a->c));
}

int lp_offset_terms(const LProgram *lp, const LAccess *acc, LTerm **out, int64_t *cst) {
  const LBuf *x = &lp->bufs[acc->buf];
  int cap = 1, nt = 0;
  for (int d = 0; d < x->rank; d++)
    cap += acc->idx[d].n;
  LTerm *t = xcalloc((size_t)cap, sizeof *t);
  int64_t c = 0;
  for (int d = 0; d < x->rank; d++) {
    const LAff *a = &acc->idx[d];
    c += x->stride[d] * a->c;
    for (int k = 0; k < a->n; k++) {
      int j = 0;
      while (j < nt && t[j].it != a->it[k])
        j++;
      if (j == nt)
        t[nt++] = (LTerm){a->it[k], 0};
      t[j].coef += x->stride[d] * a->coef[k];
    }
  }
  int m = 0;
  for (int j = 0; j < nt; j++)
    if (t[j].coef)
      t[m++] = t[j];
  *out = t;
  *cst = c;
  return m;
}

void lp_print_access(const LProgram *lp, const LAccess *acc, Buf *b) {
  const LBuf *buf = &lp->bufs[acc->buf];
  buf_printf(b, "%s[", buf->cname);
  for (int d = 0; d < buf->rank; d++) {
    if (d)
      buf_printf(b, ", ");
    lp_print_aff(lp, &acc->idx[d], b);
  }
  buf_printf(b, "]");
}

static int expr_prec(LExprKind k) {
  switch (k) {
  case LE_ADD: case LE_SUB: return 1;
  case LE_MUL: return 2;
  case LE_LOAD: case LE_ZERO: case LE_UNDEF: case LE_DIV: return 3;
  }
  teil_unreachable();
}

/* The tree is kept exactly: a right operand of equal precedence gets parentheses,
 * so the printed evaluation order is that of the IR (in C, the floating-point one). */
void lp_write_expr(const LProgram *lp, const LExpr *e, const LExprStyle *st, Buf *b) {
  switch (e->kind) {
  case LE_LOAD: st->access(lp, &e->acc, st->ctx, b); return;
  case LE_ZERO: buf_printf(b, "0"); return;
  case LE_UNDEF: buf_printf(b, "%s", st->undef); return;
  case LE_DIV:
    buf_printf(b, "%s(", e->nguard ? st->divp : st->div);
    lp_write_expr(lp, e->a, st, b);
    buf_printf(b, ", ");
    lp_write_expr(lp, e->b, st, b);
    if (e->nguard) {
      buf_printf(b, ", ");
      for (int g = 0; g < e->nguard; g++) {
        buf_printf(b, "%s", g ? " || " : "");
        lp_print_aff(lp, &e->gidx[g], b);
        buf_printf(b, " >= %lld", (long long)e->gbound[g]);
      }
    }
    buf_printf(b, ")");
    return;
  case LE_ADD:
  case LE_SUB:
  case LE_MUL: {
    int p = expr_prec(e->kind);
    bool pa = expr_prec(e->a->kind) < p, pb = expr_prec(e->b->kind) <= p;
    buf_printf(b, "%s", pa ? "(" : "");
    lp_write_expr(lp, e->a, st, b);
    buf_printf(b, "%s %c %s", pa ? ")" : "", e->kind == LE_ADD ? '+' : e->kind == LE_SUB ? '-' : '*', pb ? "(" : "");
    lp_write_expr(lp, e->b, st, b);
    buf_printf(b, "%s", pb ? ")" : "");
    return;
  }
  }
  teil_unreachable();
}

static void ir_access(const LProgram *lp, const LAccess *acc, const void *ctx, Buf *b) {
  (void)ctx;
  lp_print_access(lp, acc, b);
}

void lp_print_expr(const LProgram *lp, const LExpr *e, Buf *b) {
  static const LExprStyle ir = {ir_access, NULL, "\xe2\x80\xa2", "div", "divp"};     /* • */
  lp_write_expr(lp, e, &ir, b);
}

static void print_dims(const int64_t *d, int rank, Buf *b);

static void print_node(const LProgram *lp, const LNode *n, int depth, Buf *b) {
  if (n->note)
    buf_printf(b, "%*s# %s\n", 2 * depth, "", n->note);
  if (n->kind == LN_STMT) {
    buf_printf(b, "%*s", 2 * depth, "");
    lp_print_access(lp, &n->lhs, b);
    buf_printf(b, " %s ", n->accum ? "+=" : "=");
    lp_print_expr(lp, n->rhs, b);
    buf_printf(b, "\n");
    return;
  }
  buf_printf(b, "%*sfor %s in [", 2 * depth, "", lp->its[n->it].name);
  lp_print_aff(lp, &n->lb, b);
  buf_printf(b, ", ");
  if (n->nubx)                                      /* R-SCH-15 */
    buf_printf(b, "min(");
  lp_print_aff(lp, &n->ub, b);
  for (int k = 0; k < n->nubx; k++) {
    buf_printf(b, ", ");
    lp_print_aff(lp, &n->ubx[k], b);
  }
  buf_printf(b, "%s)", n->nubx ? ")" : "");
  if (n->step != 1)
    buf_printf(b, " step %lld", (long long)n->step);
  if (n->flags & LF_REDUCTION)
    buf_printf(b, " reduction");
  if (n->flags & LF_PADDED)
    buf_printf(b, " padded");
  if (n->flags & LF_PARALLEL)
    buf_printf(b, " parallel");
  if (n->flags & LF_SIMD)
    buf_printf(b, " simd");
  if (n->flags & LF_STREAM)
    buf_printf(b, " stream");
  if (n->flags & LF_ALIGNED)
    buf_printf(b, " aligned");
  if (n->flags & LF_REGION)
    buf_printf(b, " region");
  if (n->flags & LF_WORKSHARE)
    buf_printf(b, " workshare");
  if (n->flags & LF_NOWAIT)
    buf_printf(b, " nowait");
  if (n->nkids == 1 && n->kids[0]->kind == LN_STMT && !n->kids[0]->note) {
    const LNode *s = n->kids[0];                  /* a one-statement body on one line */
    buf_printf(b, " { ");
    lp_print_access(lp, &s->lhs, b);
    buf_printf(b, " %s ", s->accum ? "+=" : "=");
    lp_print_expr(lp, s->rhs, b);
    buf_printf(b, " }\n");
    return;
  }
  buf_printf(b, " {\n");
  for (int i = 0; i < n->nlocals; i++) {           /* R-SCH-21 */
    const LBuf *x = &lp->bufs[n->locals[i]];
    buf_printf(b, "%*slocal %s : ", 2 * depth + 2, "", x->cname);
    print_dims(x->dims, x->rank, b);
    buf_printf(b, "\n");
  }
  for (int i = 0; i < n->nkids; i++)
    print_node(lp, n->kids[i], depth + 1, b);
  buf_printf(b, "%*s}\n", 2 * depth, "");
}

static void print_dims(const int64_t *d, int rank, Buf *b) {
  buf_printf(b, "[");
  for (int i = 0; i < rank; i++)
    buf_printf(b, "%s%lld", i ? ", " : "", (long long)d[i]);
  buf_printf(b, "]");
}

void lp_print(const LProgram *lp, FILE *out) {
  Buf b = {0};
  buf_printf(&b, "# loop IR (spec/compiler.md R-CG-2), pad %d, %s\n", lp->pad, lp->f32 ? "f32" : "f64");
  buf_printf(&b, "buffers:\n");
  for (int i = 0; i < lp->nbufs; i++) {
    const LBuf *x = &lp->bufs[i];
    if (x->param < 0 && !x->used)
      continue;
    buf_printf(&b, "  %s : ", x->cname);
    print_dims(x->dims, x->rank, &b);
    if (lp->pad > 1) {
      buf_printf(&b, " padded ");
      print_dims(x->pdims, x->rank, &b);
    }
    if (x->param >= 0)
      buf_printf(&b, "  parameter %d%s%s%s", x->param + 1, x->kind == LB_PARAM_IN ? " const" : "",
                 (x->qual & Q_INPUT) ? " input" : "", (x->qual & Q_OUTPUT) ? " output" : "");
    else if (x->kind == LB_LOCAL)
      buf_printf(&b, "  local");
    else
      buf_printf(&b, "  workspace%s%s", x->tensor >= 0 ? " tensor" : " temporary", x->why ? "" : "");
    if (x->why)
      buf_printf(&b, " (%s)", x->why);
    buf_printf(&b, "\n");
  }
  for (int i = 0; i < lp->ntop; i++)
    print_node(lp, lp->top[i], 0, &b);
  if (b.s)
    fputs(b.s, out);
  buf_free(&b);
}
