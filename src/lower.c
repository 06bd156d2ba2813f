/*
 * lower.c - typed IR -> loop IR (spec/compiler.md R-CG-3 .. R-CG-9).
 *
 * Every statement x = e becomes a loop nest around x[i1, ..., ir] = L(e, [i1..ir]).
 * L follows the evaluation equations of spec/semantics.md with the index list
 * as a list of affine indices (R-CG-3): transp, diag, expa, proj and prod only
 * rearrange indices; a sum at the top of the expression adds a reduction
 * iterator to the nest (R-CG-4); a sum below arithmetic is computed into a
 * temporary first (R-CG-5). A statement that reads its own target in a way
 * that in-place evaluation could observe writes a temporary and copies it back
 * (R-CG-8). Non-input tensors read before they are assigned start as NaN,
 * i.e. • (R-CG-6, R-CG-7).
 */
#include <stdlib.h>
#include <string.h>

#include "compile.h"

/* A nested sum already computed into a temporary (R-CG-5), reusable while no
 * tensor it reads is assigned. */
typedef struct Cached {
  const char *text;           /* the sum as TeIL text */
  int buf;
  bool *reads;                /* per tensor */
} Cached;

typedef struct Lower {
  const Program *p;
  LProgram *lp;
  int *readbuf;               /* per tensor: the buffer reads use now (R-CG-9) */
  int *writebuf;              /* per tensor: the buffer assignments write */
  int ntemps;
  Cached *cache;
  int ncache, capcache;
  int *spare;                 /* R-CG-8 temporaries, free again after their copy */
  int nspare, capspare;
} Lower;

typedef struct Nest {
  int *red;                   /* reduction iterators, in the order the sums are met */
  int nred, capred;
} Nest;

static LAff **idx_new(Lower *L, int n) { return arena_alloc(&L->lp->arena, (size_t)(n + 1) * sizeof(LAff *)); }

/* ins(f, pos, x): f with x inserted so that it becomes entry pos (0-based). */
static LAff **idx_ins(Lower *L, LAff **f, int n, int pos, LAff *x) {
  LAff **g = idx_new(L, n + 1);
  for (int d = 0, c = 0; d <= n; d++)
    g[d] = d == pos ? x : f[c++];
  return g;
}

static LAff **idx_del(Lower *L, LAff **f, int n, int pos) {
  LAff **g = idx_new(L, n);
  for (int d = 0, c = 0; d < n; d++)
    if (d != pos)
      g[c++] = f[d];
  return g;
}

static int new_temp(Lower *L, Type t, const char *why) {
  char base[32];
  snprintf(base, sizeof base, "t%d", ++L->ntemps);
  int b = lp_add_buf(L->lp, base, t.rank, t.dims);
  LBuf *x = &L->lp->bufs[b];
  x->cname = lp_unique(L->lp, base);
  x->name = x->cname;
  x->why = arena_strndup(&L->lp->arena, why, strlen(why));
  return b;
}

static const char *expr_text(Lower *L, const Expr *e) {
  Buf b = {0};
  pr_expr(L->p, e, &b);
  char *s = arena_strndup(&L->lp->arena, b.s ? b.s : "", b.len);
  buf_free(&b);
  return s;
}

static void lower_assign(Lower *L, int wbuf, const char *target, const Expr *e, const char *note, const char *unit);

static void mark_reads(const Expr *e, bool *reads) {
  if (e->kind == EX_VAR) {
    reads[e->tensor] = true;
    return;
  }
  mark_reads(e->a, reads);
  if (e->b)
    mark_reads(e->b, reads);
}

/* Forgets the cached sums that read tensor t (it is being assigned). */
static void invalidate(Lower *L, int t) {
  for (int i = 0; i < L->ncache;) {
    if (L->cache[i].reads[t]) {
      free(L->cache[i].reads);
      L->cache[i] = L->cache[--L->ncache];
    } else {
      i++;
    }
  }
}

/* R-CG-5: a sum below arithmetic is computed into a temporary; an equal sum
 * over unchanged tensors reuses it (the expressions are pure). */
static LExpr *materialize(Lower *L, const Expr *e, LAff **f) {
  const char *text = expr_text(L, e);
  for (int i = 0; i < L->ncache; i++)
    if (!strcmp(L->cache[i].text, text))
      return lp_load(L->lp, L->cache[i].buf, f);
  Buf why = {0};
  buf_printf(&why, "%s", expr_text(L, e));
  int t = new_temp(L, e->ty, why.s);
  buf_free(&why);
  Buf note = {0};
  buf_printf(&note, "%s = %s  (temporary for a nested sum, R-CG-5)", L->lp->bufs[t].cname, expr_text(L, e));
  lower_assign(L, t, L->lp->bufs[t].cname, e, note.s, L->lp->bufs[t].cname);
  buf_free(&note);
  if (L->ncache == L->capcache) {
    L->capcache = L->capcache ? 2 * L->capcache : 8;
    Cached *c = xcalloc((size_t)L->capcache, sizeof *c);
    if (L->cache)
      memcpy(c, L->cache, (size_t)L->ncache * sizeof *c);
    free(L->cache);
    L->cache = c;
  }
  Cached *c = &L->cache[L->ncache++];
  c->text = text;
  c->buf = t;
  c->reads = xcalloc((size_t)L->p->ntensors + 1, sizeof *c->reads);
  mark_reads(e, c->reads);
  return lp_load(L->lp, t, f);
}

static bool same_type(const LBuf *b, Type t) {
  if (b->rank != t.rank)
    return false;
  for (int d = 0; d < t.rank; d++)
    if (b->dims[d] != t.dims[d])
      return false;
  return true;
}

/* A temporary for a new value (R-CG-8): a spare one of the same type, or a new one. */
static int value_temp(Lower *L, Type t, const char *target) {
  for (int i = 0; i < L->nspare; i++)
    if (same_type(&L->lp->bufs[L->spare[i]], t)) {
      int b = L->spare[i];
      L->spare[i] = L->spare[--L->nspare];
      return b;
    }
  (void)target;
  return new_temp(L, t, "new value of a target its statement reads, R-CG-8");
}

static void release_temp(Lower *L, int b) {
  if (L->nspare == L->capspare) {
    L->capspare = L->capspare ? 2 * L->capspare : 8;
    int *s = xcalloc((size_t)L->capspare, sizeof *s);
    if (L->spare)
      memcpy(s, L->spare, (size_t)L->nspare * sizeof *s);
    free(L->spare);
    L->spare = s;
  }
  L->spare[L->nspare++] = b;
}

static int red_iter(Lower *L, Nest *N, int64_t extent) {
  int it = lp_add_iter(L->lp, lp_iter_name(L->lp, 'r', N->nred + 1), extent);
  if (N->nred == N->capred) {
    N->capred = N->capred ? 2 * N->capred : 4;
    int *r = xcalloc((size_t)N->capred, sizeof *r);
    if (N->red)
      memcpy(r, N->red, (size_t)N->nred * sizeof *r);
    free(N->red);
    N->red = r;
  }
  N->red[N->nred++] = it;
  return it;
}

/* L(e, f) of R-CG-3; top says whether a sum here is a top-level sum (R-CG-4). */
static LExpr *lower_expr(Lower *L, Nest *N, const Expr *e, LAff **f, bool top) {
  LProgram *lp = L->lp;
  int rank = e->ty.rank;
  int lo = (int)(e->i < e->k ? e->i : e->k) - 1, hi = (int)(e->i < e->k ? e->k : e->i) - 1;
  switch (e->kind) {
  case EX_VAR:                                      /* R-EV-4 */
    return lp_load(lp, L->readbuf[e->tensor], f);
  case EX_ADD:                                      /* R-EV-6 */
  case EX_SUB:
    return lp_expr(lp, e->kind == EX_ADD ? LE_ADD : LE_SUB, lower_expr(L, N, e->a, f, false),
                   lower_expr(L, N, e->b, f, false));
  case EX_MUL:                                      /* R-EV-7 */
    return lp_expr(lp, LE_MUL, lower_expr(L, N, e->a, e->scalar_op ? idx_new(L, 0) : f, false),
                   lower_expr(L, N, e->b, f, false));
  case EX_DIV:                                      /* R-EV-8 */
    return lp_expr(lp, LE_DIV, lower_expr(L, N, e->a, f, false),
                   lower_expr(L, N, e->b, e->scalar_op ? idx_new(L, 0) : f, false));
  case EX_PROD:                                     /* R-EV-9: f = f0 ++ f1 */
    return lp_expr(lp, LE_MUL, lower_expr(L, N, e->a, f, false), lower_expr(L, N, e->b, f + e->a->ty.rank, false));
  case EX_TRANSP: {                                 /* R-EV-11: swap(f, i, k) */
    LAff **g = idx_new(L, rank);
    memcpy(g, f, (size_t)rank * sizeof *g);
    g[lo] = f[hi];
    g[hi] = f[lo];
    return lower_expr(L, N, e->a, g, top);
  }
  case EX_DIAG:                                     /* R-EV-12: ins(f, b, f_a) */
    return lower_expr(L, N, e->a, idx_ins(L, f, rank, hi, f[lo]), top);
  case EX_EXPA:                                     /* R-EV-13: del(f, i) */
    return lower_expr(L, N, e->a, idx_del(L, f, rank, (int)e->i - 1), top);
  case EX_PROJ:                                     /* R-EV-14: ins(f, i, m) */
    return lower_expr(L, N, e->a, idx_ins(L, f, rank, (int)e->i - 1, lp_aff_const(lp, e->k - 1)), top);
  case EX_RED: {                                    /* R-EV-10 */
    if (!top)
      return materialize(L, e, f);
    int r = red_iter(L, N, e->a->ty.dims[e->i - 1]);
    return lower_expr(L, N, e->a, idx_ins(L, f, rank, (int)e->i - 1, lp_aff_iter(lp, r)), true);
  }
  case EX_CONTR: {                                  /* R-EV-15: ins(ins(f, a, r), b, r) */
    if (!top)
      return materialize(L, e, f);
    int r = red_iter(L, N, e->a->ty.dims[lo]);
    LAff *x = lp_aff_iter(lp, r);
    return lower_expr(L, N, e->a, idx_ins(L, idx_ins(L, f, rank, lo, x), rank + 1, hi, x), true);
  }
  case EX_COUNT:
    break;
  }
  teil_unreachable();
}

/* Whether e loads buf, and whether every such load uses the index list f. */
static void scan_reads(const LProgram *lp, const LExpr *e, int buf, LAff **f, bool *reads, bool *same) {
  if (!e)
    return;
  if (e->kind == LE_LOAD && e->acc.buf == buf) {
    *reads = true;
    for (int d = 0; d < lp->bufs[buf].rank; d++)
      if (!lp_aff_equal(&e->acc.idx[d], f[d]))
        *same = false;
  }
  scan_reads(lp, e->a, buf, f, reads, same);
  scan_reads(lp, e->b, buf, f, reads, same);
}

/* Appends loops over its[0..n) around nothing; returns the outermost and sets *inner. */
static LNode *chain(Lower *L, const int *its, int n, unsigned flags, LNode **inner) {
  LNode *root = NULL;
  *inner = NULL;
  for (int q = 0; q < n; q++) {
    const LIter *v = &L->lp->its[its[q]];
    LNode *l = lp_loop(L->lp, its[q], 0, v->n, flags);
    if (*inner)
      lp_append(L->lp, *inner, l);
    else
      root = l;
    *inner = l;
  }
  return root;
}

/* Appends node under parent (NULL: the top level), attaching note to the first top-level node. */
static void emit(Lower *L, LNode *parent, LNode *n, const char **note) {
  if (!parent && *note) {
    n->note = *note;
    *note = NULL;
  }
  lp_append(L->lp, parent, n);
}

/* Lowers wbuf = e (R-CG-3, R-CG-4, R-CG-8) and appends its nests. Its target
 * statement is recorded as the schedule target unit (spec/schedule.md R-SCH-2). */
static void lower_assign(Lower *L, int wbuf, const char *target, const Expr *e, const char *note, const char *unit) {
  LProgram *lp = L->lp;
  int r = e->ty.rank;
  int *out = xcalloc((size_t)r + 1, sizeof *out);
  LAff **f = idx_new(L, r);
  for (int q = 0; q < r; q++) {
    out[q] = lp_add_iter(lp, lp_iter_name(lp, 'i', q + 1), e->ty.dims[q]);
    f[q] = lp_aff_iter(lp, out[q]);
  }
  Nest N = {NULL, 0, 0};
  LExpr *rhs = lower_expr(L, &N, e, f, true);

  /* R-CG-8: in place only without reductions and with identical index lists. */
  int tb = wbuf;
  bool reads = false, same = true;
  scan_reads(lp, rhs, wbuf, f, &reads, &same);
  if (reads && (N.nred > 0 || !same))
    tb = value_temp(L, e->ty, target);

  const char *pending = note;
  char *note_copy = pending ? arena_strndup(&lp->arena, pending, strlen(pending)) : NULL;
  pending = note_copy;
  if (N.nred == 0) {                                /* a perfect nest */
    LNode *inner, *root = chain(L, out, r, 0, &inner);
    LNode *s = lp_stmt(lp, tb, f, false, rhs);
    lp_add_unit(lp, unit, s);
    if (root) {
      lp_append(lp, inner, s);
      emit(L, NULL, root, &pending);
    } else {
      emit(L, NULL, s, &pending);
    }
  } else {                                          /* R-CG-4: init, then accumulate */
    LNode *outer_inner, *outer = chain(L, out, r > 1 ? r - 1 : 0, 0, &outer_inner);
    if (outer)
      emit(L, NULL, outer, &pending);
    /* init: T[i1..i(r-1), ir'] = 0 with a fresh iterator ir' */
    LNode *init;
    if (r >= 1) {
      int ii = lp_add_iter(lp, lp->its[out[r - 1]].name, e->ty.dims[r - 1]);
      LAff **g = idx_new(L, r);
      memcpy(g, f, (size_t)r * sizeof *g);
      g[r - 1] = lp_aff_iter(lp, ii);
      init = lp_loop(lp, ii, 0, lp->its[ii].n, 0);
      lp_append(lp, init, lp_stmt(lp, tb, g, false, lp_expr(lp, LE_ZERO, NULL, NULL)));
    } else {
      init = lp_stmt(lp, tb, f, false, lp_expr(lp, LE_ZERO, NULL, NULL));
    }
    emit(L, outer_inner, init, &pending);
    LNode *red_inner, *red = chain(L, N.red, N.nred, LF_REDUCTION, &red_inner);
    LNode *s = lp_stmt(lp, tb, f, true, rhs);
    lp_add_unit(lp, unit, s);
    if (r >= 1) {
      LNode *l = lp_loop(lp, out[r - 1], 0, lp->its[out[r - 1]].n, 0);
      lp_append(lp, l, s);
      s = l;
    }
    lp_append(lp, red_inner, s);
    emit(L, outer_inner, red, &pending);
  }
  if (tb != wbuf) {
    LNode *c = lp_copy(lp, wbuf, tb);
    const char *cn = NULL;
    emit(L, NULL, c, &cn);
    release_temp(L, tb);
  }
  free(N.red);
  free(out);
}

static bool expr_reads(const Expr *e, int t) {
  if (e->kind == EX_VAR)
    return e->tensor == t;
  return expr_reads(e->a, t) || (e->b && expr_reads(e->b, t));
}

static bool padded_too_large(const Type t, int pad) {
  uint64_t n = 1;
  for (int d = 0; d < t.rank; d++) {
    uint64_t x = (uint64_t)st_round(t.dims[d], pad);
    if (n > TEIL_MAX_ELEMS / x)
      return true;
    n *= x;
  }
  return false;
}

static bool expr_too_large(const Expr *e, int pad) {
  if (padded_too_large(e->ty, pad))
    return true;
  return (e->a && expr_too_large(e->a, pad)) || (e->b && expr_too_large(e->b, pad));
}

LProgram *lower_program(const Program *p, int pad, bool f32, const char *const *cnames, const int *param_pos,
                        const char *const *reserved, int nreserved, char *err, size_t errlen) {
  if (!p->checked || p->diags.nerrors) {
    snprintf(err, errlen, "the program has errors");
    return NULL;
  }
  for (int t = 0; t < p->ntensors; t++)
    if (padded_too_large(p->tensors[t].ty, pad)) {
      snprintf(err, errlen, "tensor '%s' padded to multiples of %d has more than 2^59 elements", p->tensors[t].name, pad);
      return NULL;
    }
  for (int i = 0; i < p->nstmts; i++)
    if (expr_too_large(p->stmts[i].rhs, pad)) {
      snprintf(err, errlen, "statement %d: an expression padded to multiples of %d has more than 2^59 elements", i + 1, pad);
      return NULL;
    }

  LProgram *lp = lp_new(pad, f32);
  Lower L;
  memset(&L, 0, sizeof L);
  L.p = p;
  L.lp = lp;
  L.readbuf = xcalloc((size_t)p->ntensors + 1, sizeof(int));
  L.writebuf = xcalloc((size_t)p->ntensors + 1, sizeof(int));
  for (int i = 0; i < nreserved; i++)
    lp_reserve(lp, reserved[i]);
  for (int t = 0; t < p->ntensors; t++)
    lp_reserve(lp, cnames[t]);

  bool *assigned = xcalloc((size_t)p->ntensors + 1, sizeof *assigned);
  for (int i = 0; i < p->nstmts; i++)
    assigned[p->stmts[i].target] = true;

  /* R-CG-9: parameters, workspace tensors, versioned input-only tensors. */
  for (int t = 0; t < p->ntensors; t++) {
    const Tensor *x = &p->tensors[t];
    int b = lp_add_buf(lp, x->name, x->ty.rank, x->ty.dims);
    LBuf *buf = &lp->bufs[b];
    buf->cname = cnames[t];
    buf->tensor = t;
    buf->qual = x->qual;
    buf->param = param_pos[t];
    L.readbuf[t] = L.writebuf[t] = b;
    if (param_pos[t] < 0)
      continue;
    lp->nparams++;
    buf->kind = x->qual == Q_INPUT ? LB_PARAM_IN : LB_PARAM;
    if (x->qual == Q_INPUT && assigned[t]) {
      Buf nm = {0};
      buf_printf(&nm, "%s_w", cnames[t]);
      int w = lp_add_buf(lp, x->name, x->ty.rank, x->ty.dims);
      lp->bufs[w].cname = lp_unique(lp, nm.s);
      lp->bufs[w].tensor = t;
      lp->bufs[w].qual = x->qual;
      lp->bufs[w].why = "the input after its first assignment, R-CG-9";
      buf_free(&nm);
      L.writebuf[t] = w;
    }
  }

  for (int i = 0; i < p->nstmts; i++) {
    const Stmt *s = &p->stmts[i];
    Buf note = {0};
    if (s->loc.line > 0)
      buf_printf(&note, "line %d: ", s->loc.line);
    buf_printf(&note, "%s = %s", s->name, expr_text(&L, s->rhs));
    lower_assign(&L, L.writebuf[s->target], lp->bufs[L.writebuf[s->target]].cname, s->rhs, note.s, s->name);
    buf_free(&note);
    L.readbuf[s->target] = L.writebuf[s->target];
    invalidate(&L, s->target);
  }

  /* R-CG-7: non-input tensors read before their first assignment, and
   * non-input outputs never assigned, start as • (NaN). R-CG-10: workspace
   * buffers with padding are zeroed first. */
  int nbody = lp->ntop;
  LNode **body = lp->top;
  lp->top = NULL;
  lp->ntop = lp->captop = 0;
  int nfills = 0;
  LNode **fills = xcalloc((size_t)p->ntensors + 1, sizeof *fills);
  for (int t = 0; t < p->ntensors; t++) {
    const Tensor *x = &p->tensors[t];
    if (x->qual & Q_INPUT)
      continue;
    int first = p->nstmts;
    for (int i = 0; i < p->nstmts && first == p->nstmts; i++)
      if (p->stmts[i].target == t)
        first = i;
    bool need = first == p->nstmts && (x->qual & Q_OUTPUT);
    for (int i = 0; i <= first && i < p->nstmts && !need; i++)
      need = expr_reads(p->stmts[i].rhs, t);
    if (need)
      fills[nfills++] = lp_fill(lp, L.writebuf[t], LE_UNDEF, false);
  }
  for (int i = 0; i < nfills; i++) {
    if (i == 0)
      fills[i]->note = "initial store: non-input tensors read before assignment start as \xe2\x80\xa2 (NaN, R-CG-7)";
    lp_append(lp, NULL, fills[i]);
  }
  for (int i = 0; i < nbody; i++)
    lp_append(lp, NULL, body[i]);
  free(body);
  free(fills);
  free(assigned);
  for (int i = 0; i < L.ncache; i++)
    free(L.cache[i].reads);
  free(L.cache);
  free(L.spare);
  free(L.readbuf);
  free(L.writebuf);
  return lp;
}
