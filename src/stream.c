/*
 * stream.c - streaming stores of large outputs (spec/compiler.md R-CG-26).
 *
 * An output P that the kernel writes once and never reads is stored, per
 * iteration of a loop L, into a local staging array S covering the region
 * of P that the iteration writes, and S is copied out with non-temporal
 * stores (cgen's teil_stream), so that P's lines are not read from memory
 * before they are written:
 *
 *   for L {                           for L {
 *     ...                               local S[m0, m1]
 *       P[i, j] = e            ==>      ...  S[i - lo0, j - lo1] = e
 *   }                                   for x0 in [0, m0) { for x1 in [0, m1) stream { P[lo0 + x0, lo1 + x1] = S[x0, x1] } }
 *                                     }
 *
 * The region of an iteration is a box found by interval arithmetic over the
 * loops between L and the stores; the boxes of different iterations must be
 * disjoint (a mixed-radix test over the loops around L), which makes every
 * iteration write all of its box (R-CG-26 gives the argument).
 *
 * In the lane form (R-SCH-27) the output is written by the copy-out of its
 * lane array; that copy-out is marked instead, and cgen emits it as
 * teil_lanes_out_nt, which stores whole lines non-temporally (R-CG-26.1).
 */
#include <stdlib.h>
#include <string.h>

#include "compile.h"

#define MAXD 256
#define MIN_REGION 1024         /* bytes: an aligned region at least this large */
#define MIN_ALIGNED_RUN 256     /* bytes: four lines */
#define MIN_UNALIGNED_RUN 1024
#define MAX_REGION 16384        /* bytes: the region stays in L1 until it is copied */
#define CHUNK 4096              /* bytes: the chunks of a long single loop */

/* An affine function over the iterators, dense: c + sum v[it] * it. */
typedef struct Dense {
  int64_t c;
  int64_t *v;
} Dense;

typedef struct Store {
  LNode *stmt;
  LNode *path[MAXD];
  int depth;
} Store;

typedef struct Ctx {
  LProgram *lp;
  int P;
  Store *st;
  int nst, capst;
  bool bad;                   /* a read of P, a +=, or a nest too deep */
} Ctx;

static bool add_ovf(int64_t a, int64_t b, int64_t *r) { return __builtin_add_overflow(a, b, r); }
static bool mul_ovf(int64_t a, int64_t b, int64_t *r) { return __builtin_mul_overflow(a, b, r); }

/* d += k * a; false on overflow. */
static bool dense_add(Dense *d, int64_t k, const LAff *a) {
  int64_t t;
  if (mul_ovf(k, a->c, &t) || add_ovf(d->c, t, &d->c))
    return false;
  for (int i = 0; i < a->n; i++)
    if (mul_ovf(k, a->coef[i], &t) || add_ovf(d->v[a->it[i]], t, &d->v[a->it[i]]))
      return false;
  return true;
}

/* Whether ub - lb of loop l is a constant; its trip count then goes to *trip. */
static bool const_trip(const LNode *l, int64_t *trip) {
  if (l->ub.n != l->lb.n || l->step < 1)
    return false;
  for (int i = 0; i < l->ub.n; i++)
    if (lp_aff_coef(&l->lb, l->ub.it[i]) != l->ub.coef[i])
      return false;
  for (int i = 0; i < l->lb.n; i++)
    if (lp_aff_coef(&l->ub, l->lb.it[i]) != l->lb.coef[i])
      return false;
  int64_t d = l->ub.c - l->lb.c;
  if (d < 1)
    return false;
  *trip = (d + l->step - 1) / l->step;
  return true;
}

/* The smallest (lo) and largest (hi) value of d over the loops[from..to-1],
 * substituted innermost first (each iterator is lb + step * t, 0 <= t < T):
 * affine in the iterators of the loops around them. Needs constant trips
 * and no min bounds (R-CG-26). */
static bool range_over(LNode *const *loops, int from, int to, Dense *lo, Dense *hi) {
  for (int k = to - 1; k >= from; k--) {
    const LNode *l = loops[k];
    int64_t trip, span;
    if (l->nubx || !const_trip(l, &trip) || mul_ovf(trip - 1, l->step, &span))
      return false;
    for (int w = 0; w < 2; w++) {
      Dense *d = w ? hi : lo;
      int64_t c = d->v[l->it], t;
      if (!c)
        continue;
      d->v[l->it] = 0;
      if (!dense_add(d, c, &l->lb))
        return false;
      if ((w ? c > 0 : c < 0) && (mul_ovf(c, span, &t) || add_ovf(d->c, t, &d->c)))
        return false;
    }
  }
  return true;
}

static void collect(Ctx *c, LNode *n, LNode **path, int depth) {
  if (c->bad)
    return;
  if (n->kind == LN_STMT) {
    if (lp_expr_reads(n->rhs, c->P))
      c->bad = true;
    if (n->lhs.buf != c->P)
      return;
    if (n->accum || c->nst >= 4096) {
      c->bad = true;
      return;
    }
    if (c->nst == c->capst) {
      c->capst = c->capst ? 2 * c->capst : 8;
      Store *s = xcalloc((size_t)c->capst, sizeof *s);
      if (c->st)
        memcpy(s, c->st, (size_t)c->nst * sizeof *s);
      free(c->st);
      c->st = s;
    }
    Store *s = &c->st[c->nst++];
    s->stmt = n;
    s->depth = depth;
    memcpy(s->path, path, (size_t)depth * sizeof *path);
    return;
  }
  if (depth >= MAXD) {
    c->bad = true;
    return;
  }
  path[depth] = n;
  for (int i = 0; i < n->nkids; i++)
    collect(c, n->kids[i], path, depth + 1);
}

/* A candidate staging loop: the region's box and what the choice needs. */
typedef struct Region {
  int64_t lo[MAXD];           /* the box's constant parts; the O-parts are in olo */
  int64_t m[MAXD];
  int64_t hi[MAXD];           /* scratch: the box's largest indices, then the t-constants */
  Dense olo[MAXD];            /* per dimension: the O-part of lo (coefficients only) */
  int64_t coef[MAXD][64];     /* scratch of region_at: the coefficient of t_q in lo_d */
  int drun;                   /* first dimension of a run */
  int nits;                   /* the iterators when the region was found: olo's length */
  int64_t bytes, run_bytes;
  bool aligned;
} Region;

/* The region of the loops path[0..l] (common to all stores), or false. */
static bool region_at(Ctx *c, int l, Region *r, int64_t *scratch) {
  LProgram *lp = c->lp;
  const LBuf *P = &lp->bufs[c->P];
  int rank = P->rank, nits = lp->nits;
  int64_t es = lp->f32 ? 4 : 8;
  r->nits = nits;
  for (int d = 0; d < rank; d++) {
    r->olo[d].v = scratch + (size_t)d * (size_t)nits;
    memset(r->olo[d].v, 0, (size_t)nits * sizeof *r->olo[d].v);
  }
  int64_t *lov = scratch + (size_t)rank * (size_t)nits, *hiv = lov + nits;
  int64_t *hi = r->hi;
  for (int k = 0; k < c->nst; k++) {
    const Store *s = &c->st[k];
    for (int q = l + 1; q < s->depth; q++)      /* the staging loop holds the parallel one */
      if (s->path[q]->flags & LF_PARALLEL)
        return false;
    for (int d = 0; d < rank; d++) {
      Dense lo = {0, lov}, h = {0, hiv};
      memset(lov, 0, (size_t)nits * 2 * sizeof *lov);
      if (!dense_add(&lo, 1, &s->stmt->lhs.idx[d]) || !dense_add(&h, 1, &s->stmt->lhs.idx[d]) ||
          !range_over(s->path, l + 1, s->depth, &lo, &h))
        return false;
      for (int it = 0; it < nits; it++)         /* the same O-part for both ends and all stores */
        if (lov[it] != hiv[it] || (k > 0 && lov[it] != r->olo[d].v[it]))
          return false;
      if (k == 0) {
        memcpy(r->olo[d].v, lov, (size_t)nits * sizeof *lov);
        r->lo[d] = lo.c;
        hi[d] = h.c;
      } else {
        r->lo[d] = lo.c < r->lo[d] ? lo.c : r->lo[d];
        hi[d] = h.c > hi[d] ? h.c : hi[d];
      }
    }
  }
  LNode *const *path = c->st[0].path;
  int64_t count = 1;
  for (int d = 0; d < rank; d++) {
    r->m[d] = hi[d] - r->lo[d] + 1;
    if (r->m[d] < 1 || r->m[d] > P->dims[d] || mul_ovf(count, r->m[d], &count))
      return false;
  }
  if (mul_ovf(count, es, &r->bytes))
    return false;
  r->drun = rank - 1;
  while (r->drun > 0 && r->m[r->drun] == P->dims[r->drun])
    r->drun--;
  r->run_bytes = es;
  for (int d = r->drun; d < rank; d++)
    r->run_bytes *= r->m[d];
  /* the loops around: t-coordinates (lo as c + sum a_v t_v), the mixed radix
   * per dimension, and the alignment of every run's first byte */
  if (l >= 64)
    return false;
  int64_t *a = lov, *trip = hiv, (*coef)[64] = r->coef, *lc = hi;  /* coef[d][q]: of t_q in lo_d */
  for (int d = 0; d < rank; d++) {
    Dense t = {r->lo[d], a};
    memcpy(a, r->olo[d].v, (size_t)nits * sizeof *a);
    for (int q = l; q >= 0; q--) {                /* v_q = lb_q + step_q * t_q, innermost first */
      const LNode *L = path[q];
      int64_t v = t.v[L->it];
      t.v[L->it] = 0;
      if (!const_trip(L, &trip[q]) || mul_ovf(v, L->step, &coef[d][q]) || (v && !dense_add(&t, v, &L->lb)))
        return false;
    }
    for (int it = 0; it < nits; it++)           /* nothing but the loops around is left */
      if (t.v[it])
        return false;
    lc[d] = t.c;
  }
  for (int q = 0; q <= l; q++) {                  /* each moving loop in exactly one dimension */
    int dims = 0;
    for (int d = 0; d < rank; d++)
      dims += coef[d][q] != 0;
    if ((trip[q] > 1 && dims != 1) || dims > 1)
      return false;
  }
  for (int d = 0; d < rank; d++) {                /* mixed radix: |c1| >= m, |c_k+1| >= |c_k| T_k */
    int64_t need = r->m[d];
    bool used[64] = {false};
    for (;;) {
      int best = -1;
      for (int q = 0; q <= l; q++) {
        int64_t x = coef[d][q] < 0 ? -coef[d][q] : coef[d][q];
        if (!used[q] && x && trip[q] > 1 && (best < 0 || x < (coef[d][best] < 0 ? -coef[d][best] : coef[d][best])))
          best = q;
      }
      if (best < 0)
        break;
      used[best] = true;
      int64_t x = coef[d][best] < 0 ? -coef[d][best] : coef[d][best];
      if (x < need || mul_ovf(x, trip[best], &need))
        return false;
    }
  }
  /* aligned: es * (offset constant, each t coefficient, each copy loop's stride) = 0 mod 64 */
  int64_t off = 0, t;
  for (int d = 0; d < rank; d++)
    if (mul_ovf(lc[d], P->stride[d], &t) || add_ovf(off, t, &off))
      return false;
  r->aligned = !mul_ovf(off, es, &t) && t % 64 == 0;
  for (int q = 0; q <= l && r->aligned; q++) {
    int64_t sum = 0;
    for (int d = 0; d < rank; d++)
      if (mul_ovf(coef[d][q], P->stride[d], &t) || add_ovf(sum, t, &sum))
        return false;
    r->aligned = !mul_ovf(sum, es, &t) && t % 64 == 0;
  }
  for (int d = 0; d < r->drun && r->aligned; d++)
    if (r->m[d] > 1)
      r->aligned = (P->stride[d] * es) % 64 == 0;
  return true;
}

/* x - olo - lo as an LAff over x's iterators and olo's. */
static LAff *minus_lo(LProgram *lp, const LAff *x, const Dense *olo, int nolo, int64_t lo) {
  int nits = lp->nits, n = 0;
  int64_t *v = xcalloc((size_t)nits + 1, sizeof *v);
  for (int i = 0; i < x->n; i++)
    v[x->it[i]] += x->coef[i];
  for (int it = 0; it < nolo; it++)
    v[it] -= olo->v[it];
  for (int it = 0; it < nits; it++)
    n += v[it] != 0;
  LAff *r = arena_alloc(&lp->arena, sizeof *r);
  r->c = x->c - lo;
  r->n = n;
  r->it = arena_alloc(&lp->arena, (size_t)(n + 1) * sizeof *r->it);
  r->coef = arena_alloc(&lp->arena, (size_t)(n + 1) * sizeof *r->coef);
  n = 0;
  for (int it = 0; it < nits; it++)
    if (v[it]) {
      r->it[n] = it;
      r->coef[n++] = v[it];
    }
  free(v);
  return r;
}

/* olo + lo + (x if x >= 0) as an LAff. */
static LAff *at_lo(LProgram *lp, const Dense *olo, int nits, int64_t lo, int x) {
  int n = x >= 0;
  for (int it = 0; it < nits; it++)
    n += olo->v[it] != 0;
  LAff *r = arena_alloc(&lp->arena, sizeof *r);
  r->c = lo;
  r->n = n;
  r->it = arena_alloc(&lp->arena, (size_t)(n + 1) * sizeof *r->it);
  r->coef = arena_alloc(&lp->arena, (size_t)(n + 1) * sizeof *r->coef);
  n = 0;
  for (int it = 0; it < nits; it++)
    if (olo->v[it]) {
      r->it[n] = it;
      r->coef[n++] = olo->v[it];
    }
  if (x >= 0) {
    r->it[n] = x;
    r->coef[n] = 1;
  }
  return r;
}

/* An iterator name that no loop of path[0..depth-1] has. */
static const char *fresh_iter(LProgram *lp, LNode *const *path, int depth, int k) {
  Buf b = {0};
  buf_printf(&b, "s%d", k);
  for (bool clash = true; clash;) {
    clash = lp_taken(lp, b.s) || cgen_reserved(b.s);
    for (int q = 0; q < depth && !clash; q++)
      clash = !strcmp(lp->its[path[q]->it].name, b.s);
    if (clash)
      buf_printf(&b, "_");
  }
  const char *r = lp_unique(lp, b.s);
  buf_free(&b);
  return r;
}

static void stage(Ctx *c, int l, Region *r) {
  LProgram *lp = c->lp;
  int P = c->P, rank = lp->bufs[P].rank;
  LNode *const *path = c->st[0].path;
  LNode *L = path[l];
  char base[300];
  snprintf(base, sizeof base, "%s_s", lp->bufs[P].cname);
  int S = lp_add_buf(lp, lp_unique(lp, base), rank, r->m);
  LBuf *sb = &lp->bufs[S];
  sb->kind = LB_LOCAL;
  sb->why = "staging of an output for streaming stores (R-CG-26)";
  sb->stageof = P;
  sb->used = sb->written = true;
  for (int k = 0; k < c->nst; k++) {              /* the stores go to S */
    LNode *s = c->st[k].stmt;
    LAccess acc = {S, arena_alloc(&lp->arena, (size_t)(rank + 1) * sizeof *acc.idx)};
    for (int d = 0; d < rank; d++)
      acc.idx[d] = *minus_lo(lp, &s->lhs.idx[d], &r->olo[d], r->nits, r->lo[d]);
    s->lhs = acc;
  }
  /* the copy-out: loops over the dimensions with m > 1; the first at or after drun streams */
  LAff *pidx[MAXD], *sidx[MAXD];
  LNode *root = NULL, *inner = NULL;
  bool streamed = false;
  for (int d = 0; d < rank; d++) {
    int x = -1;
    if (r->m[d] > 1) {
      x = lp_add_iter(lp, fresh_iter(lp, path, l + 1, d + 1), r->m[d]);
      LNode *loop = lp_loop(lp, x, 0, r->m[d], 0);
      if (d >= r->drun && !streamed) {
        loop->flags |= LF_STREAM | (r->aligned ? LF_ALIGNED : 0);
        streamed = true;
      }
      if (inner)
        lp_append(lp, inner, loop);
      else
        root = loop;
      inner = loop;
    }
    pidx[d] = at_lo(lp, &r->olo[d], r->nits, r->lo[d], x);
    sidx[d] = x >= 0 ? lp_aff_iter(lp, x) : lp_aff_const(lp, 0);
  }
  LNode *copy = lp_stmt(lp, P, pidx, false, lp_load(lp, S, sidx));
  lp_append(lp, inner, copy);
  root->note = "copy the staged region out with streaming stores (R-CG-26)";
  lp_append(lp, L, root);
  lp_add_local(lp, L, S);
}

/* The coefficient of iterator it in acc's linear offset into buffer B. */
static bool lin_coef(const LProgram *lp, const LAccess *acc, int it, int64_t *k) {
  const LBuf *B = &lp->bufs[acc->buf];
  int64_t t;
  *k = 0;
  for (int d = 0; d < B->rank; d++)
    if (mul_ovf(lp_aff_coef(&acc->idx[d], it), B->stride[d], &t) || add_ovf(*k, t, k))
      return false;
  return true;
}

/* R-CG-26 without staging: P's single store copies a local array R, and the
 * loops below L end in a perfect nest that walks P and R contiguously over
 * exactly one run of the region. That nest becomes the teil_stream call. */
static bool direct(Ctx *c, int l, const Region *r) {
  LProgram *lp = c->lp;
  const Store *s = &c->st[0];
  const LNode *st = s->stmt;
  int64_t es = lp->f32 ? 4 : 8, len = 1;
  if (c->nst != 1 || st->rhs->kind != LE_LOAD || lp->bufs[st->rhs->acc.buf].kind != LB_LOCAL)
    return false;
  for (int q = s->depth - 1; q > l; q--) {
    LNode *L = s->path[q];
    int64_t trip, kp, kr;
    if (L->nkids != 1 || L->nubx || L->step != 1 || !const_trip(L, &trip) ||
        !lin_coef(lp, &st->lhs, L->it, &kp) || !lin_coef(lp, &st->rhs->acc, L->it, &kr) || kp != len || kr != len)
      return false;
    for (int p = l + 1; p < s->depth; p++)        /* a box: bounds free of the nest's iterators */
      if (lp_aff_coef(&L->lb, s->path[p]->it) || lp_aff_coef(&L->ub, s->path[p]->it))
        return false;
    if (mul_ovf(len, trip, &len) || len * es > r->run_bytes)
      return false;
    if (len * es == r->run_bytes) {
      L->flags |= LF_STREAM | (r->aligned ? LF_ALIGNED : 0);
      return true;
    }
  }
  return false;
}

/* A single store whose innermost loop [0, N) walks P's last index over more
 * than MAX_REGION bytes: that loop is stripmined into chunks of CHUNK
 * bytes (a divisor of N, whole lines), so that each chunk is a region. */
static bool chunk(Ctx *c) {
  LProgram *lp = c->lp;
  Store *s = &c->st[0];
  const LBuf *P = &lp->bufs[c->P];
  int64_t es = lp->f32 ? 4 : 8, n, ch = CHUNK / es;
  if (c->nst != 1 || s->depth < 2 || s->depth >= MAXD - 1)
    return false;
  LNode *in = s->path[s->depth - 1], *up = s->path[s->depth - 2];
  if (in->nkids != 1 || in->nubx || in->step != 1 || in->lb.n || in->lb.c || in->ub.n || (in->flags & LF_PARALLEL) ||
      !lp_aff_is_iter(&s->stmt->lhs.idx[P->rank - 1], in->it))
    return false;
  n = in->ub.c;
  if (n * es <= MAX_REGION || n % ch || P->dims[P->rank - 1] % ch)
    return false;
  int t = lp_add_iter(lp, fresh_iter(lp, s->path, s->depth, 0), n);
  lp->its[t].p = lp->its[in->it].p;
  LNode *tile = lp_loop(lp, t, 0, n, 0);
  tile->step = ch;
  in->lb = *lp_aff_iter(lp, t);
  in->ub = *lp_aff_iter(lp, t);
  in->ub.c = ch;
  for (int i = 0; i < up->nkids; i++)
    if (up->kids[i] == in)
      up->kids[i] = tile;
  lp_append(lp, tile, in);
  s->path[s->depth - 1] = tile;
  s->path[s->depth++] = in;
  return true;
}

/* R-CG-26.1: the copy-out of P from its lane array in the group loop gl
 * (R-SCH-27) is streamed (teil_lanes_out_nt). */
static void stream_lanes(LNode *gl, int P) {
  for (int k = 0; k < gl->nkids; k++)
    if ((gl->kids[k]->flags & LF_LANECOPY) && lp_writes(gl->kids[k], P))
      gl->kids[k]->flags |= LF_STREAM;
}

/* R-CG-26 for the parameter P. */
static void stream_param(LProgram *lp, int P, int stream) {
  LBuf *x = &lp->bufs[P];
  if (x->kind != LB_PARAM || !x->written || x->rank < 1 || x->rank >= MAXD ||
      (stream == 1 && lp_param_bytes(lp) <= lp_llc_share_bytes()))
    return;
  for (int i = 0; i < lp->ntop; i++)
    if (lp->top[i]->kind == LN_LOOP && (lp->top[i]->flags & LF_GROUP) && lp_writes(lp->top[i], P)) {
      stream_lanes(lp->top[i], P);                 /* R-SCH-27: the copy-out strides by lane */
      return;
    }
  Ctx c = {lp, P, NULL, 0, 0, false};
  int top = -1;
  LNode *path[MAXD];
  for (int i = 0; i < lp->ntop && !c.bad; i++) {
    if (lp_reads(lp->top[i], P))
      c.bad = true;
    else if (lp_writes(lp->top[i], P)) {
      /* R-CG-11: not inside the parallel region of private slices (R-SCH-25) */
      c.bad = top >= 0 || lp->top[i]->kind != LN_LOOP || (lp->top[i]->flags & LF_REGION);
      top = i;
      collect(&c, lp->top[i], path, 0);
    }
  }
  if (c.bad || c.nst == 0) {
    free(c.st);
    return;
  }
  int common = c.st[0].depth;                       /* the loops common to all stores' paths */
  for (int k = 1; k < c.nst; k++) {
    int q = 0;
    while (q < common && q < c.st[k].depth && c.st[k].path[q] == c.st[0].path[q])
      q++;
    common = q;
  }
  int par = 0;
  for (int q = 0; q < common; q++)
    if (c.st[0].path[q]->flags & LF_PARALLEL)
      par = q;
  int nits = lp->nits;
  int64_t *scratch = xcalloc(((size_t)x->rank + 2) * (size_t)nits + 1, sizeof *scratch);
  Region *r = xcalloc(1, sizeof *r), *best = xcalloc(1, sizeof *best);
  int chosen = -1, block = -1;
  bool element = false;                             /* stores in an element loop (R-SCH-23) */
  for (int l = 0; l < common; l++)
    for (int i = 0; i < c.st[0].path[l]->nlocals; i++) {
      const LBuf *b = &lp->bufs[c.st[0].path[l]->locals[i]];
      element |= b->contractof >= 0;
      if (b->contractof < 0 && b->stageof < 0)
        block = l;                                  /* holds a register block (R-SCH-21) */
    }
  if (element) {                                    /* the block's loop, whole aligned lines */
    if (block >= par && region_at(&c, block, r, scratch) && r->aligned && r->run_bytes % 64 == 0 &&
        r->run_bytes >= MIN_ALIGNED_RUN && r->bytes <= MAX_REGION)
      chosen = block;
  } else {                                          /* the innermost block of 1 to 16 KiB */
    for (int l = common - 1; l >= par && chosen < 0; l--)
      if (region_at(&c, l, r, scratch) && r->bytes >= MIN_REGION && r->bytes <= MAX_REGION &&
          r->run_bytes >= (r->aligned ? MIN_ALIGNED_RUN : MIN_UNALIGNED_RUN))
        chosen = l;
  }
  if (chosen < 0 && !element && chunk(&c)) {        /* else a long single loop in chunks */
    free(scratch);
    scratch = xcalloc(((size_t)x->rank + 2) * (size_t)lp->nits + 1, sizeof *scratch);
    nits = lp->nits;
    chosen = c.st[0].depth - 2;
    if (!region_at(&c, chosen, r, scratch) || !r->aligned || r->bytes < MIN_REGION)
      chosen = -1;                                  /* (the chunk loop stays: it changes no value) */
  }
  if (chosen >= 0) {
    (void)region_at(&c, chosen, r, scratch);
    *best = *r;
    int64_t *olo = xcalloc((size_t)x->rank * (size_t)nits + 1, sizeof *olo);  /* region_at's scratch is reused */
    for (int d = 0; d < x->rank; d++) {
      memcpy(olo + (size_t)d * (size_t)nits, best->olo[d].v, (size_t)nits * sizeof *olo);
      best->olo[d].v = olo + (size_t)d * (size_t)nits;
    }
    if (!direct(&c, chosen, best))
      stage(&c, chosen, best);
    free(olo);
  }
  free(best);
  free(r);
  free(scratch);
  free(c.st);
}

void lp_stream_outputs(LProgram *lp, int stream) {
  if (stream == 0 || lp->pad != 1)
    return;
  int nbufs = lp->nbufs;                            /* the staging arrays added are not candidates */
  for (int P = 0; P < nbufs; P++)
    stream_param(lp, P, stream);
}

bool lp_streams(const LNode *n) {
  if (n->kind != LN_LOOP)
    return false;
  if (n->flags & LF_STREAM)
    return true;
  for (int i = 0; i < n->nkids; i++)
    if (lp_streams(n->kids[i]))
      return true;
  return false;
}
