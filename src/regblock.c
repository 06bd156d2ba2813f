/*
 * regblock.c - scalar replacement (spec/schedule.md R-SCH-21): the block of
 * a sum's target that one iteration of a loop updates is kept in a local
 * array, loaded before the loop body and stored after it, so that the C
 * compiler keeps it in registers (the "register block" of a contraction
 * micro-kernel, R-SCH-17); storage contraction (R-SCH-23): a temporary that
 * one iteration of a loop reads and writes only in its own slice becomes a
 * local array of that loop (so it stays in L1); packing (R-SCH-24): a small
 * read-only input is read through a copy with another dimension last.
 *
 *   for H {                       for H {
 *     for k {                       local R[e1, e2]
 *       for i {                     for i' { for j' { R[i'-lb_i, j'-lb_j] = X[i', j'] } }
 *         for j {          ==>      for k { for i { for j {
 *           X[i, j] += ...              R[i-lb_i, j-lb_j] += ... } } }
 *     } } }                         for i' { for j' { X[i', j'] = R[i'-lb_i, j'-lb_j] } }
 *   }                             }
 */
#include <stdlib.h>
#include <string.h>

#include "compile.h"

#define MAX_LOCAL_ELEMS 4096


/* Whether some statement below n other than s reads or writes buf, or s reads it. */
static bool other_access(const LNode *n, const LNode *s, int buf) {
  if (n->kind == LN_STMT) {
    if (lp_expr_reads(n->rhs, buf))
      return true;
    return n != s && n->lhs.buf == buf;
  }
  for (int i = 0; i < n->nkids; i++)
    if (other_access(n->kids[i], s, buf))
      return true;
  return false;
}

static bool aff_uses(const LAff *a, int it) { return lp_aff_coef(a, it) != 0; }


/* The largest trip count of l when ub - lb is a constant (the min bounds
 * only shorten it). */
static bool max_trip(const LNode *l, int64_t *trip) {
  int64_t d;
  if (!lp_aff_const_diff(&l->ub, &l->lb, &d))
    return false;
  *trip = d <= 0 ? 0 : (d + l->step - 1) / l->step;
  return true;
}

/* A copy of the box loops (in path order) around one statement lhs = rhs;
 * the copy's iterators are fresh. */
static LNode *box_nest(LProgram *lp, LNode **box, int nbox, LNode *stmt) {
  LNode *outer = NULL, *inner = NULL;
  int *fresh = xcalloc((size_t)nbox + 1, sizeof *fresh);
  for (int b = 0; b < nbox; b++) {
    const LNode *l = box[b];
    int it = lp_add_iter(lp, lp->its[l->it].name, lp->its[l->it].n);
    lp->its[it].p = lp->its[l->it].p;
    fresh[b] = it;
    LNode *c = lp_loop(lp, it, 0, 0, l->flags & LF_PADDED);
    c->lb = lp_aff_copy(lp, &l->lb);
    c->ub = lp_aff_copy(lp, &l->ub);
    c->step = l->step;
    c->nubx = l->nubx;
    if (l->nubx) {
      c->ubx = arena_alloc(&lp->arena, (size_t)l->nubx * sizeof *c->ubx);
      for (int k = 0; k < l->nubx; k++)
        c->ubx[k] = lp_aff_copy(lp, &l->ubx[k]);
    }
    if (inner)
      lp_append(lp, inner, c);
    else
      outer = c;
    inner = c;
  }
  lp_append(lp, inner, stmt);
  for (int b = 0; b < nbox; b++)
    lp_subst_tree(lp, outer, box[b]->it, lp_aff_iter(lp, fresh[b]));
  free(fresh);
  return outer;
}

int rb_scalar_replace(LProgram *lp, LNode *const *path, int depth, int l, LNode *s, const char *what, Buf *why) {
  LNode *H = path[l];
  int X = s->lhs.buf;
  const LBuf *xb = &lp->bufs[X];
  if (!s->accum) {
    buf_printf(why, "%s: the target statement is an assignment (=), not a sum (+=)", what);
    return -1;
  }
  if (l >= depth - 1) {
    buf_printf(why, "%s: the loop must enclose another loop of the statement", what);
    return -1;
  }
  if (xb->kind == LB_LOCAL) {
    buf_printf(why, "%s: %s is already a local block", what, xb->cname);
    return -1;
  }
  if (other_access(H, s, X)) {
    buf_printf(why, "%s: inside that loop, %s is also accessed by another statement or read by this one", what, xb->cname);
    return -1;
  }
  /* The box loops: the loops inside H that the target's indices use. */
  LNode *box[256];
  int nbox = 0, rank = xb->rank;
  int64_t elems = 1;
  for (int d = 0; d < rank; d++) {
    const LAff *a = &s->lhs.idx[d];
    int m = -1;
    for (int j = l + 1; j < depth; j++)
      if (aff_uses(a, path[j]->it)) {
        if (m >= 0 || lp_aff_coef(a, path[j]->it) != 1) {
          buf_printf(why, "%s: index %d of %s is not one iterator of an inner loop plus outer terms", what, d + 1,
                     xb->cname);
          return -1;
        }
        m = j;
      }
    if (m < 0)
      continue;
    const LNode *v = path[m];
    int64_t trip;
    if (v->step != 1 || !max_trip(v, &trip) || trip < 1) {
      buf_printf(why, "%s: the loop of %s (index %d of %s) has no constant extent with step 1", what,
                 lp->its[v->it].name, d + 1, xb->cname);
      return -1;
    }
    for (int j = l + 1; j < depth; j++)
      if (lp_bounds_use(v, path[j]->it)) {
        buf_printf(why, "%s: the bounds of %s use the inner iterator %s", what, lp->its[v->it].name,
                   lp->its[path[j]->it].name);
        return -1;
      }
    bool seen = false;
    for (int b = 0; b < nbox; b++)
      seen |= box[b] == v;
    if (!seen && nbox == 256) {
      buf_printf(why, "%s: more than 256 box loops", what);
      return -1;
    }
    if (!seen)
      box[nbox++] = path[m];
    if (__builtin_mul_overflow(elems, trip, &elems) || elems > MAX_LOCAL_ELEMS) {
      buf_printf(why, "%s: the block of %s would exceed %d elements", what, xb->cname, MAX_LOCAL_ELEMS);
      return -1;
    }
  }
  /* box in path order: R's dimensions, so that the innermost box loop walks R's last one */
  for (int a = 0; a < nbox; a++)
    for (int b = a + 1; b < nbox; b++) {
      int la = 0, lb = 0;
      for (int j = 0; j < depth; j++) {
        if (path[j] == box[a])
          la = j;
        if (path[j] == box[b])
          lb = j;
      }
      if (lb < la) {
        LNode *t = box[a];
        box[a] = box[b];
        box[b] = t;
      }
    }
  if (nbox == 0) {
    buf_printf(why, "%s: no index of %s uses a loop inside that loop", what, xb->cname);
    return -1;
  }
  int64_t rdims[256];
  for (int b = 0; b < nbox; b++)
    (void)max_trip(box[b], &rdims[b]);
  char base[300];
  snprintf(base, sizeof base, "%s_r", xb->cname);
  int R = lp_add_buf(lp, lp_unique(lp, base), nbox, rdims);
  LBuf *rb = &lp->bufs[R];
  rb->kind = LB_LOCAL;
  rb->why = "register block (R-SCH-21)";
  rb->rblock = true;
  rb->count = 1;                                    /* no padding: the block is exact */
  for (int d = nbox - 1; d >= 0; d--) {
    rb->dims[d] = rb->pdims[d] = rdims[d];
    rb->stride[d] = rb->count;
    rb->count *= rdims[d];
  }
  /* R's index b: the box iterator minus its lower bound */
  LAff **ridx = xcalloc((size_t)nbox + 1, sizeof *ridx);
  for (int b = 0; b < nbox; b++) {
    const LAff *lb = &box[b]->lb;
    LAff *r = arena_alloc(&lp->arena, sizeof *r);
    r->c = -lb->c;
    r->n = lb->n + 1;
    r->it = arena_alloc(&lp->arena, (size_t)r->n * sizeof *r->it);
    r->coef = arena_alloc(&lp->arena, (size_t)r->n * sizeof *r->coef);
    for (int t = 0; t < lb->n; t++) {
      r->it[t] = lb->it[t];
      r->coef[t] = -lb->coef[t];
    }
    r->it[lb->n] = box[b]->it;
    r->coef[lb->n] = 1;
    ridx[b] = r;
  }
  LAff **xidx = xcalloc((size_t)rank + 1, sizeof *xidx);
  for (int d = 0; d < rank; d++)
    xidx[d] = &s->lhs.idx[d];
  LNode *load = box_nest(lp, box, nbox, lp_stmt(lp, R, ridx, false, lp_load(lp, X, xidx)));
  LNode *store = box_nest(lp, box, nbox, lp_stmt(lp, X, xidx, false, lp_load(lp, R, ridx)));
  LAccess acc = {R, NULL};
  acc.idx = arena_alloc(&lp->arena, (size_t)(nbox + 1) * sizeof *acc.idx);
  for (int b = 0; b < nbox; b++)
    acc.idx[b] = lp_aff_copy(lp, ridx[b]);
  s->lhs = acc;
  free(ridx);
  free(xidx);
  load->note = "load the register block (R-SCH-21)";
  store->note = "store the register block (R-SCH-21)";
  lp_insert(lp, H, 0, load);
  lp_append(lp, H, store);
  lp_add_local(lp, H, R);
  return 0;
}

/* ------------------------------------------------------------ storage contraction (R-SCH-23) */

typedef struct CScan {
  LProgram *lp;
  int buf;
  LNode *H;
  LNode *const *outer;        /* H's path, levels 0..l */
  int nouter;
  int *dimloop;               /* per dimension of buf: the level (0..l) of the loop it is, TILE, -1 none, -2 unset */
  const bool *tileit;         /* the iterators of H's tile loops (below) */
  bool inside;
  const char *fail;
} CScan;

/* A dimension indexed in every access by the iterator of a tile loop of H: a loop
 * [h, h + S) below H, h H's iterator and S >= 2 its step (R-SCH-23, R-SCH-25). */
#define TILE (-3)

static void mark_tiles(const LNode *n, const LNode *H, bool *tileit) {
  if (n->kind != LN_LOOP)
    return;
  if (lp_tile_of(n, H))
    tileit[n->it] = true;
  for (int i = 0; i < n->nkids; i++)
    mark_tiles(n->kids[i], H, tileit);
}

/* x - h */
static LAff aff_minus_iter(LProgram *lp, const LAff *x, int h) {
  LAff r = {x->c, x->n + 1, arena_alloc(&lp->arena, (size_t)(x->n + 1) * sizeof *r.it),
            arena_alloc(&lp->arena, (size_t)(x->n + 1) * sizeof *r.coef)};
  for (int t = 0; t < x->n; t++) {
    r.it[t] = x->it[t];
    r.coef[t] = x->coef[t];
  }
  r.it[x->n] = h;
  r.coef[x->n] = -1;
  return r;
}

static void scan_access(CScan *c, const LAccess *a) {
  if (a->buf != c->buf || c->fail)
    return;
  if (!c->inside) {
    c->fail = "it is also accessed outside that loop";
    return;
  }
  int rank = c->lp->bufs[c->buf].rank;
  for (int d = 0; d < rank; d++) {
    const LAff *x = &a->idx[d];
    int m = -1;
    for (int j = 0; j < c->nouter; j++)
      if (aff_uses(x, c->outer[j]->it)) {
        if (m >= 0 || !lp_aff_is_iter(x, c->outer[j]->it)) {
          c->fail = "an index uses the iterator of that loop or of a loop around it other than as a whole index";
          return;
        }
        m = j;
      }
    if (m < 0 && x->n == 1 && x->coef[0] == 1 && x->c == 0 && c->tileit[x->it[0]])
      m = TILE;
    if (c->dimloop[d] == -2)
      c->dimloop[d] = m;
    else if (c->dimloop[d] != m) {
      c->fail = "its accesses do not all index one dimension by the same loop";
      return;
    }
  }
}

static void scan_expr(CScan *c, const LExpr *e) {
  if (!e)
    return;
  if (e->kind == LE_LOAD)
    scan_access(c, &e->acc);
  scan_expr(c, e->a);
  scan_expr(c, e->b);
}

static void scan_node(CScan *c, const LNode *n) {
  bool was = c->inside;
  if (n == c->H)
    c->inside = true;
  if (n->kind == LN_STMT) {
    scan_access(c, &n->lhs);
    scan_expr(c, n->rhs);
  } else {
    for (int i = 0; i < n->nkids; i++)
      scan_node(c, n->kids[i]);
  }
  c->inside = was;
}

static void redirect_access(LProgram *lp, LAccess *a, int from, int to, const int *dimloop, int h) {
  if (a->buf != from)
    return;
  a->buf = to;
  for (int d = 0; d < lp->bufs[from].rank; d++)
    if (dimloop[d] >= 0)
      a->idx[d] = *lp_aff_const(lp, 0);
    else if (dimloop[d] == TILE)
      a->idx[d] = aff_minus_iter(lp, &a->idx[d], h);
}

static void redirect_expr(LProgram *lp, LExpr *e, int from, int to, const int *dimloop, int h) {
  if (!e)
    return;
  if (e->kind == LE_LOAD)
    redirect_access(lp, &e->acc, from, to, dimloop, h);
  redirect_expr(lp, e->a, from, to, dimloop, h);
  redirect_expr(lp, e->b, from, to, dimloop, h);
}

static void redirect_node(LProgram *lp, LNode *n, int from, int to, const int *dimloop, int h) {
  if (n->kind == LN_STMT) {
    redirect_access(lp, &n->lhs, from, to, dimloop, h);
    redirect_expr(lp, n->rhs, from, to, dimloop, h);
    return;
  }
  for (int i = 0; i < n->nkids; i++)
    redirect_node(lp, n->kids[i], from, to, dimloop, h);
}

/* R-SCH-23, R-SCH-25: the slice of buf that one iteration of path[l] uses:
 * *dimloop gives, per dimension, the level (0..l) of the loop that indexes it
 * (-1 none), *dims the slice's padded extents (both freed by the caller).
 * Returns fail (if set), or the reason buf has no such slice, or NULL. */
static const char *slice_dims(LProgram *lp, LNode *const *path, int l, int buf, int64_t limit, const char *too_big,
                              const char *fail, int **dimloop, int64_t **dims) {
  int rank = lp->bufs[buf].rank;
  *dimloop = xcalloc((size_t)rank + 1, sizeof **dimloop);
  *dims = xcalloc((size_t)rank + 1, sizeof **dims);
  for (int d = 0; d < rank; d++)
    (*dimloop)[d] = -2;
  bool *tileit = xcalloc((size_t)lp->nits + 1, sizeof *tileit);
  mark_tiles(path[l], path[l], tileit);
  CScan c = {lp, buf, path[l], path, l + 1, *dimloop, tileit, false, fail};
  for (int i = 0; i < lp->ntop && !c.fail; i++)
    scan_node(&c, lp->top[i]);
  free(tileit);
  int64_t count = 1;
  for (int d = 0; d < rank && !c.fail; d++) {
    (*dims)[d] = (*dimloop)[d] >= 0 ? 1 : (*dimloop)[d] == TILE ? path[l]->step : lp->bufs[buf].pdims[d];
    if (__builtin_mul_overflow(count, (*dims)[d], &count) || count > limit)
      c.fail = too_big;
  }
  for (int j = 0; j <= l && !c.fail; j++) {        /* one slice per iteration of the loops 0..l */
    bool found = false;
    for (int d = 0; d < rank; d++)
      found |= (*dimloop)[d] == j || ((*dimloop)[d] == TILE && j == l);
    if (!found)
      c.fail = "a loop around it (or the loop itself) indexes no dimension, so its iterations would share one slice";
  }
  return c.fail;
}

/* R-SCH-23, R-SCH-25: a new buffer NAMEsuffix for one slice of buf (dims:
 * its padded extents; buf's padded layout, less the dimensions dimloop marks),
 * which every access to buf below H now uses; buf is no longer used. */
static int slice_of(LProgram *lp, LNode *H, int buf, const int *dimloop, const int64_t *dims, const char *suffix) {
  char base[300];
  snprintf(base, sizeof base, "%s%s", lp->bufs[buf].cname, suffix);
  int rank = lp->bufs[buf].rank;
  int R = lp_add_buf(lp, lp_unique(lp, base), rank, dims);
  LBuf *xb = &lp->bufs[buf], *rb = &lp->bufs[R];
  rb->count = 1;
  for (int d = rank - 1; d >= 0; d--) {
    rb->dims[d] = dimloop[d] >= 0 ? 1 : dimloop[d] == TILE ? dims[d] : xb->dims[d];
    rb->pdims[d] = dims[d];
    rb->stride[d] = rb->count;
    rb->count *= dims[d];
  }
  redirect_node(lp, H, buf, R, dimloop, H->it);
  xb->used = false;
  xb->written = false;
  return R;
}

int rb_contract(LProgram *lp, LNode *const *path, int l, int buf, const char *what, Buf *why) {
  LBuf *xb = &lp->bufs[buf];
  if (xb->kind != LB_WORK) {
    buf_printf(why, "%s: %s is %s; only a tensor of the workspace can become a local array", what, xb->cname,
               xb->kind == LB_LOCAL ? "already a local array" : "a parameter");
    return -1;
  }
  int *dimloop;
  int64_t *dims;
  const char *fail = slice_dims(lp, path, l, buf, 8 * MAX_LOCAL_ELEMS, "the local array would exceed 32768 elements",
                                NULL, &dimloop, &dims);
  if (fail) {
    buf_printf(why, "%s: %s cannot become a local array of that loop: %s", what, xb->cname, fail);
    free(dimloop);
    free(dims);
    return -1;
  }
  int R = slice_of(lp, path[l], buf, dimloop, dims, "_l");
  LBuf *rb = &lp->bufs[R];
  rb->kind = LB_LOCAL;
  rb->why = "one element's part of a temporary (R-SCH-23)";
  rb->contractof = buf;
  lp_add_local(lp, path[l], R);
  free(dimloop);
  free(dims);
  return 0;
}

/* ------------------------------------------------------------ private slices (R-SCH-25) */

/* Marks in wpar the buffers that statements inside parallel loops below n
 * store; *npar counts the parallel loops. */
static void parallel_stores(const LNode *n, bool inpar, bool *wpar, int *npar) {
  if (n->kind == LN_STMT) {
    if (inpar)
      wpar[n->lhs.buf] = true;
    return;
  }
  if (n->flags & LF_PARALLEL)
    (*npar)++;
  for (int i = 0; i < n->nkids; i++)
    parallel_stores(n->kids[i], inpar || (n->flags & LF_PARALLEL), wpar, npar);
}

/* The statements of R-SCH-25: outside the parallel loops, a store of buf only
 * and no read of a buffer the parallel loops store; inside, no store of buf. */
static const char *private_stmts(const LNode *n, bool inpar, int buf, const bool *wpar, int nbufs) {
  if (n->kind == LN_STMT) {
    if (inpar)
      return n->lhs.buf == buf ? "a statement inside a parallel loop stores it" : NULL;
    if (n->lhs.buf != buf)
      return "a statement outside the parallel loops stores another tensor";
    for (int i = 0; i < nbufs; i++)
      if (wpar[i] && lp_expr_reads(n->rhs, i))
        return "a statement outside the parallel loops reads a tensor that a parallel loop stores";
    return NULL;
  }
  for (int i = 0; i < n->nkids; i++) {
    const char *f = private_stmts(n->kids[i], inpar || (n->flags & LF_PARALLEL), buf, wpar, nbufs);
    if (f)
      return f;
  }
  return NULL;
}

static void set_workshare(LNode *n) {
  if (n->kind != LN_LOOP)
    return;
  if (n->flags & LF_PARALLEL)
    n->flags |= LF_WORKSHARE;
  for (int i = 0; i < n->nkids; i++)
    set_workshare(n->kids[i]);
}

int64_t lp_copy_stride(const LProgram *lp, const LBuf *b) {
  int64_t v = lp->f32 ? 16 : 8;                     /* elements per 64 bytes */
  return (b->count + v - 1) / v * v;
}

int rb_private(LProgram *lp, LNode *H, int buf, const char *what, Buf *why) {
  LBuf *xb = &lp->bufs[buf];
  if (xb->kind != LB_WORK || xb->priv) {
    buf_printf(why, "%s: %s is %s; only a tensor of the workspace can become a private slice", what, xb->cname,
               xb->kind == LB_LOCAL ? "a local array" : xb->priv ? "a private slice already" : "a parameter");
    return -1;
  }
  if (H->flags & LF_PARALLEL) {
    buf_printf(why, "%s: the outermost loop is parallel; a private slice needs a serial loop around parallel ones", what);
    return -1;
  }
  bool *wpar = xcalloc((size_t)lp->nbufs + 1, sizeof *wpar);
  int npar = 0;
  parallel_stores(H, false, wpar, &npar);
  const char *fail = npar ? private_stmts(H, false, buf, wpar, lp->nbufs) : "the loop holds no parallel loop";
  free(wpar);
  LNode *path[1] = {H};
  int *dimloop;
  int64_t *dims;
  fail = slice_dims(lp, path, 0, buf, ((int64_t)1 << 59) / LP_COPIES, "64 copies of the slice would exceed 2^59 elements",
                    fail, &dimloop, &dims);
  if (fail) {
    buf_printf(why, "%s: %s cannot become a private slice of that loop: %s", what, xb->cname, fail);
    free(dimloop);
    free(dims);
    return -1;
  }
  int R = slice_of(lp, H, buf, dimloop, dims, "_p");
  LBuf *rb = &lp->bufs[R];
  rb->priv = true;
  rb->used = rb->written = true;
  rb->why = "this thread's slice of a temporary (R-SCH-25)";
  H->flags |= LF_REGION;
  set_workshare(H);
  free(dimloop);
  free(dims);
  return 0;
}

/* The worksharing loops below n (path[0..depth-1] its ancestors and n): their
 * count in *count, the path of the last in wpath[0..*wdepth]. */
static void find_workshare(LNode *n, LNode **path, int depth, LNode **wpath, int *wdepth, int *count) {
  if (n->kind != LN_LOOP || depth > MAXDEPTH)
    return;
  path[depth] = n;
  if (n->flags & LF_WORKSHARE) {
    (*count)++;
    memcpy(wpath, path, (size_t)(depth + 1) * sizeof *path);
    *wdepth = depth;
  }
  for (int i = 0; i < n->nkids; i++)
    find_workshare(n->kids[i], path, depth + 1, wpath, wdepth, count);
}

/* R-CG-11: the worksharing loop W of a region without its barrier, when it is the
 * only one: no two iterations of W touch one shared element, in the same execution
 * of W or in two (R-SCH-14(c) with any direction on the loops between), so with a
 * static schedule, which gives each thread the same iterations in every execution,
 * no thread needs another's work before the region ends. */
void rb_nowait(LProgram *lp) {
  for (int i = 0; i < lp->ntop; i++) {
    LNode *H = lp->top[i], *path[MAXDEPTH + 1], *wpath[MAXDEPTH + 1];
    int count = 0, l = -1;
    if (H->kind != LN_LOOP || !(H->flags & LF_REGION))
      continue;
    find_workshare(H, path, 0, wpath, &l, &count);
    if (count != 1)
      continue;
    LNode *W = wpath[l];
    Buf why = {0};
    /* OpenMP gives each thread the same iterations of every execution of W only for
     * a static schedule with the same trip count, and a loop that is not simd */
    if (!(W->flags & LF_SIMD) && W->nubx == 0 && lp_aff_is_const(&W->lb) && lp_aff_is_const(&W->ub) &&
        leg_carried_any(lp, wpath, l, 0, "nowait", &why) == 0)
      W->flags |= LF_NOWAIT;
    buf_free(&why);
  }
}

/* ------------------------------------------------------------ packing (R-SCH-24) */

/* Loads of from become loads of to, whose dimension d is from's perm[d]; a
 * dimension with outer[perm[d]] >= 0 (a slice's, R-SCH-24.1) is indexed by 0. */
static void repack_expr(LProgram *lp, LExpr *e, int from, int to, const int *perm, const int *outer, int rank) {
  if (!e)
    return;
  if (e->kind == LE_LOAD && e->acc.buf == from) {
    LAff *idx = arena_alloc(&lp->arena, (size_t)(rank + 1) * sizeof *idx);
    for (int d = 0; d < rank; d++)
      idx[d] = outer && outer[perm[d]] >= 0 ? *lp_aff_const(lp, 0) : e->acc.idx[perm[d]];
    e->acc.buf = to;
    e->acc.idx = idx;
  }
  repack_expr(lp, e->a, from, to, perm, outer, rank);
  repack_expr(lp, e->b, from, to, perm, outer, rank);
}

/* R-SCH-24.1: outer[d] receives the level (0..l) of the loop of path whose
 * iterator alone indexes dimension d of buf in every load of e, -1 if no
 * loop 0..l indexes it (start from -2: not seen). False if an index uses
 * such an iterator with anything else, or two loads disagree. */
static bool slice_loads(const LProgram *lp, const LExpr *e, int buf, LNode *const *path, int l, int *outer) {
  if (!e)
    return true;
  if (e->kind == LE_LOAD && e->acc.buf == buf)
    for (int d = 0; d < lp->bufs[buf].rank; d++) {
      int k = -1;
      for (int q = 0; q <= l; q++)
        if (lp_aff_coef(&e->acc.idx[d], path[q]->it)) {
          if (k >= 0 || !lp_aff_is_iter(&e->acc.idx[d], path[q]->it))
            return false;
          k = q;
        }
      if (outer[d] != -2 && outer[d] != k)
        return false;
      outer[d] = k;
    }
  return slice_loads(lp, e->a, buf, path, l, outer) && slice_loads(lp, e->b, buf, path, l, outer);
}

/* R-SCH-24.1: the copy of rb_pack as a local array of the loop path[l], filled
 * at the top of each of its iterations with that iteration's slice; -2 if the
 * slice is refused. */
static int pack_slice(LProgram *lp, LNode *s, LNode *const *path, int l, int buf, const int *perm, const char *what,
                      Buf *why) {
  const LBuf *a = &lp->bufs[buf];
  int rank = a->rank, outer[256];
  for (int d = 0; d < rank; d++)
    outer[d] = -2;
  if (!slice_loads(lp, s->rhs, buf, path, l, outer)) {
    buf_printf(why, "%s: a load of %s indexes a dimension by the iterator of level %d or of a loop around it together "
                    "with something else, or two loads index it differently",
               what, a->cname, l + 1);
    return -2;
  }
  int64_t dims[256], count = 1;
  for (int e = 0; e < rank; e++) {
    dims[e] = outer[perm[e]] >= 0 ? 1 : a->dims[perm[e]];
    if (__builtin_mul_overflow(count, dims[e], &count) || count > 8 * MAX_LOCAL_ELEMS) {
      buf_printf(why, "%s: the copy of one iteration of level %d would exceed %d elements", what, l + 1,
                 8 * MAX_LOCAL_ELEMS);
      return -2;
    }
  }
  char base[300];
  snprintf(base, sizeof base, "%s_l", a->cname);
  int P = lp_add_buf(lp, lp_unique(lp, base), rank, dims);
  a = &lp->bufs[buf];
  LBuf *pb = &lp->bufs[P];
  pb->kind = LB_LOCAL;
  pb->packof = buf;
  pb->packdim = perm[rank - 1];
  pb->why = "this iteration's packed copy of an input (R-SCH-24.1)";
  /* the copy, first in path[l]: P[j] = A[perm^-1 j], a slice's dimensions at 0 */
  LNode *outern = NULL, *inner = NULL;
  LAff **pidx = xcalloc((size_t)rank + 1, sizeof *pidx), **aidx = xcalloc((size_t)rank + 1, sizeof *aidx);
  for (int e = 0; e < rank; e++) {
    int d = perm[e];
    if (outer[d] >= 0) {
      pidx[e] = lp_aff_const(lp, 0);
      aidx[d] = lp_aff_iter(lp, path[outer[d]]->it);
      continue;
    }
    int it = lp_add_iter(lp, lp_iter_name(lp, 'p', e + 1), dims[e]);
    LNode *lo = lp_loop(lp, it, 0, dims[e], 0);
    pidx[e] = aidx[d] = lp_aff_iter(lp, it);
    if (inner)
      lp_append(lp, inner, lo);
    else
      outern = lo;
    inner = lo;
  }
  LNode *st = lp_stmt(lp, P, pidx, false, lp_load(lp, buf, aidx));
  free(pidx);
  free(aidx);
  if (inner) {
    lp_append(lp, inner, st);
    outern->note = "this iteration's packed copy of an input (R-SCH-24.1)";
    outern->flags |= LF_COPY;
  } else {
    outern = st;
  }
  lp_insert(lp, path[l], 0, outern);
  lp_add_local(lp, path[l], P);
  repack_expr(lp, s->rhs, buf, P, perm, outer, rank);
  return 0;
}

int rb_pack(LProgram *lp, LNode *s, LNode *const *path, int lev, int buf, int dim, const char *what, Buf *why) {
  const LBuf *a = &lp->bufs[buf];
  int rank = a->rank;
  if (a->kind != LB_PARAM_IN) {
    buf_printf(why, "%s: %s is not a read-only input; only a tensor the program never writes can be packed", what,
               a->cname);
    return -1;
  }
  if (dim < 0 || dim >= rank) {
    buf_printf(why, "%s: %s has %d dimension%s; there is no dimension %d", what, a->cname, rank, rank == 1 ? "" : "s",
               dim + 1);
    return -1;
  }
  if (dim == rank - 1) {                           /* a padded copy: R-CG-20 must pad its rows */
    int64_t vw = lp->f32 ? 16 : 8, n = a->dims[rank - 1], pn = (n + vw - 1) / vw * vw;
    if (!lp_lane_extent(lp, n)) {
      buf_printf(why, "%s: dimension %d is already the last of %s, and a padded copy would not change its rows (", what,
                 dim + 1, a->cname);
      if (n % vw == 0)
        buf_printf(why, "%lld is a multiple of the vector width %lld)", (long long)n, (long long)vw);
      else
        buf_printf(why, "%lld would round up to %lld, more than twice as many)", (long long)n, (long long)pn);
      return -1;
    }
  }
  if (!lp_expr_reads(s->rhs, buf)) {
    buf_printf(why, "%s: the target statement does not read %s", what, a->cname);
    return -1;
  }
  if (lev < 0 && a->count > ((int64_t)1 << 22)) { /* a whole copy; a slice has its own bound (R-SCH-24.1) */
    buf_printf(why, "%s: %s has more than 2^22 elements; teilc packs only smaller tensors", what, a->cname);
    return -1;
  }
  int perm[256];                                    /* P's dimension e is A's dimension perm[e] */
  if (rank > 256) {
    buf_printf(why, "%s: rank above 256", what);
    return -1;
  }
  for (int e = 0, k = 0; e < rank; e++)
    if (e != dim)
      perm[k++] = e;
  perm[rank - 1] = dim;
  if (lev >= 0)
    return pack_slice(lp, s, path, lev, buf, perm, what, why);
  int P = -1;
  for (int i = 0; i < lp->nbufs && P < 0; i++)
    if (lp->bufs[i].packof == buf && lp->bufs[i].packdim == dim && lp->bufs[i].kind == LB_WORK)
      P = i;
  if (P < 0) {
    int64_t dims[256];
    for (int e = 0; e < rank; e++)
      dims[e] = lp->bufs[buf].dims[perm[e]];
    char base[300];
    snprintf(base, sizeof base, "%s_p%d", lp->bufs[buf].cname, dim + 1);
    P = lp_add_buf(lp, lp_unique(lp, base), rank, dims);
    a = &lp->bufs[buf];
    LBuf *pb = &lp->bufs[P];
    pb->packof = buf;
    pb->packdim = dim;
    pb->why = dim == rank - 1 ? "a padded copy: an input whose rows R-CG-20 pads to whole vectors (R-SCH-24)"
                              : "a packed copy: an input with one dimension moved last (R-SCH-24)";
    /* the copy, first in the program: P[j] = A[perm^-1 j] over P's padded extents */
    LNode *outer = NULL, *inner = NULL;
    LAff **pidx = xcalloc((size_t)rank + 1, sizeof *pidx), **aidx = xcalloc((size_t)rank + 1, sizeof *aidx);
    for (int e = 0; e < rank; e++) {
      int it = lp_add_iter(lp, lp_iter_name(lp, 'p', e + 1), pb->pdims[e]);
      LNode *l = lp_loop(lp, it, 0, pb->pdims[e], 0);
      pidx[e] = lp_aff_iter(lp, it);
      aidx[perm[e]] = pidx[e];
      if (inner)
        lp_append(lp, inner, l);
      else
        outer = l;
      inner = l;
    }
    lp_append(lp, inner, lp_stmt(lp, P, pidx, false, lp_load(lp, buf, aidx)));
    free(pidx);
    free(aidx);
    outer->note = "packed copy of an input (R-SCH-24)";
    lp_insert(lp, NULL, 0, outer);
  }
  repack_expr(lp, s->rhs, buf, P, perm, NULL, rank);
  return 0;
}

/* ------------------------------------------------------------ panel copies (R-SCH-26) */

#define PANEL_PARALLEL_MIN 32768.0 /* elements of a panel copy whose loop q runs in parallel (R-SCH-26) */

/* x + a·y */
static LAff aff_axpy(LProgram *lp, const LAff *x, int64_t a, const LAff *y) {
  LAff r = {x->c + a * y->c, 0, arena_alloc(&lp->arena, (size_t)(x->n + y->n + 1) * sizeof *r.it),
            arena_alloc(&lp->arena, (size_t)(x->n + y->n + 1) * sizeof *r.coef)};
  for (int t = 0; t < x->n; t++, r.n++) {
    r.it[r.n] = x->it[t];
    r.coef[r.n] = x->coef[t];
  }
  for (int t = 0; t < y->n; t++, r.n++) {
    r.it[r.n] = y->it[t];
    r.coef[r.n] = a * y->coef[t];
  }
  return r;
}

/* Whether every value of loop q's iterator is a multiple of S: q's step is, and its
 * lower bound is a constant multiple of S or the iterator of such a loop in path. */
static bool multiples_of(LNode *const *path, int depth, const LNode *q, int64_t S) {
  if (q->step % S)
    return false;
  if (lp_aff_is_const(&q->lb))
    return q->lb.c % S == 0;
  for (int l = 0; l < depth; l++)
    if (path[l] != q && lp_aff_is_iter(&q->lb, path[l]->it))
      return multiples_of(path, depth, path[l], S);
  return false;
}

typedef struct PScan {
  LNode *const *path;
  int depth, buf, rank;
  const LNode *j, *j0;        /* the loop of the last index and the loop of its lower bound */
  const char *fail;
} PScan;

static void panel_scan(PScan *c, const LExpr *e) {
  if (!e || c->fail)
    return;
  if (e->kind == LE_LOAD && e->acc.buf == c->buf) {
    const LAff *last = &e->acc.idx[c->rank - 1];
    const LNode *j = NULL, *j0 = NULL;
    for (int l = 0; l < c->depth && !j; l++)
      if (lp_aff_is_iter(last, c->path[l]->it))
        j = c->path[l];
    for (int l = 0; j && l < c->depth && !j0; l++) {   /* [j0, j0 + S), further bounds allowed */
      const LNode *q = c->path[l];
      if (q != j && q->step >= 2 && j->step == 1 && lp_aff_is_iter(&j->lb, q->it) && j->ub.n == 1 &&
          j->ub.it[0] == q->it && j->ub.coef[0] == 1 && j->ub.c == q->step)
        j0 = q;
    }
    if (!j0)
      c->fail = "its last index is not the iterator of a loop over [j0, j0 + S) inside a loop j0 of step S";
    else if (c->j && (c->j != j || c->j0 != j0))
      c->fail = "its loads do not all index the last dimension by the same loop";
    c->j = j;
    c->j0 = j0;
  }
  panel_scan(c, e->a);
  panel_scan(c, e->b);
}

static void repanel_expr(LProgram *lp, LExpr *e, int from, int to, int rank, const int64_t *rstride, int64_t R,
                         int64_t S, int j0) {
  if (!e)
    return;
  if (e->kind == LE_LOAD && e->acc.buf == from) {
    /* j0·R + ρ(a)·S + j − j0 */
    LAff *idx = arena_alloc(&lp->arena, 2 * sizeof *idx), *it0 = lp_aff_iter(lp, j0);
    idx[0] = aff_axpy(lp, &e->acc.idx[rank - 1], R - 1, it0);
    for (int d = 0; d < rank - 1; d++)
      idx[0] = aff_axpy(lp, &idx[0], rstride[d] * S, &e->acc.idx[d]);
    e->acc.buf = to;
    e->acc.idx = idx;
  }
  repanel_expr(lp, e->a, from, to, rank, rstride, R, S, j0);
  repanel_expr(lp, e->b, from, to, rank, rstride, R, S, j0);
}

int rb_panel(LProgram *lp, LNode *s, int buf, const char *what, Buf *why) {
  const LBuf *a = &lp->bufs[buf];
  int rank = a->rank;
  LNode *path[MAXDEPTH + 1];
  int depth;
  if (a->kind != LB_PARAM_IN) {
    buf_printf(why, "%s: %s is not a read-only input; only a tensor the program never writes can be packed", what,
               a->cname);
    return -1;
  }
  if (rank < 2 || rank > 256) {
    buf_printf(why, "%s: %s has %d dimension%s; a panel copy needs 2 to 256", what, a->cname, rank,
               rank == 1 ? "" : "s");
    return -1;
  }
  if (lp->pad > 1) {
    buf_printf(why, "%s: no panel copies with --pad %d (the loops run over padded extents)", what, lp->pad);
    return -1;
  }
  if (!lp_expr_reads(s->rhs, buf) || !lp_find_path(lp, s, path, &depth)) {
    buf_printf(why, "%s: the target statement does not read %s", what, a->cname);
    return -1;
  }
  if (a->count > ((int64_t)1 << 22)) {
    buf_printf(why, "%s: %s has more than 2^22 elements; teilc packs only smaller tensors", what, a->cname);
    return -1;
  }
  PScan c = {path, depth, buf, rank, NULL, NULL, NULL};
  panel_scan(&c, s->rhs);
  int64_t N = a->dims[rank - 1], S = c.j0 ? c.j0->step : 0;
  if (!c.fail && !multiples_of(path, depth, c.j0, S))
    c.fail = "the panel loop's values are not all multiples of its step S";
  if (c.fail) {
    buf_printf(why, "%s: %s", what, c.fail);
    return -1;
  }
  int64_t R = a->count / N, rstride[256];           /* row-major strides of the other dimensions */
  rstride[rank - 2] = 1;
  for (int d = rank - 3; d >= 0; d--)
    rstride[d] = rstride[d + 1] * a->dims[d + 1];
  int P = -1;
  for (int i = 0; i < lp->nbufs && P < 0; i++)
    if (lp->bufs[i].packof == buf && lp->bufs[i].panel == S)
      P = i;
  if (P < 0) {
    char base[300];
    snprintf(base, sizeof base, "%s_panel", a->cname);
    int64_t count = (N + S - 1) / S * S * R;        /* a last panel of N mod S columns keeps width S */
    P = lp_add_buf(lp, lp_unique(lp, base), 1, &count);
    a = &lp->bufs[buf];
    LBuf *pb = &lp->bufs[P];
    pb->packof = buf;
    pb->packdim = -1;
    pb->panel = S;
    pb->why = "a panel copy: an input in panels of whole columns (R-SCH-26)";
    /* the copy, first in the program: for q in [0, N) step S, the rows, j in [q, q + S) */
    int iq = lp_add_iter(lp, lp_iter_name(lp, 'p', 1), N);
    LNode *outer = lp_loop(lp, iq, 0, N, 0), *inner = outer;
    outer->step = S;
    LAff **aidx = xcalloc((size_t)rank + 1, sizeof *aidx);
    for (int e = 0; e < rank - 1; e++) {
      int it = lp_add_iter(lp, lp_iter_name(lp, 'p', e + 2), a->dims[e]);
      LNode *l = lp_loop(lp, it, 0, a->dims[e], 0);
      aidx[e] = lp_aff_iter(lp, it);
      lp_append(lp, inner, l);
      inner = l;
    }
    int ij = lp_add_iter(lp, lp_iter_name(lp, 'p', rank + 1), N);
    LNode *lj = lp_loop(lp, ij, 0, 0, 0);
    lj->lb = *lp_aff_iter(lp, iq);
    lj->ub = aff_axpy(lp, lp_aff_const(lp, S), 1, lp_aff_iter(lp, iq));
    if (N % S) {
      lj->ubx = lp_aff_const(lp, N);
      lj->nubx = 1;
    }
    lp_append(lp, inner, lj);
    aidx[rank - 1] = lp_aff_iter(lp, ij);
    LExpr *ld = lp_load(lp, buf, aidx);
    LAff *pidx = arena_alloc(&lp->arena, 2 * sizeof *pidx);
    pidx[0] = aff_axpy(lp, &ld->acc.idx[rank - 1], R - 1, lp_aff_iter(lp, iq));
    for (int d = 0; d < rank - 1; d++)
      pidx[0] = aff_axpy(lp, &pidx[0], rstride[d] * S, &ld->acc.idx[d]);
    LAff *pp = &pidx[0];
    lp_append(lp, lj, lp_stmt(lp, P, &pp, false, ld));
    free(aidx);
    outer->note = "panel copy of an input (R-SCH-26)";
    if (lp->openmp && (double)count >= PANEL_PARALLEL_MIN)   /* distinct panels: no two iterations */
      outer->flags |= LF_PARALLEL;                           /* of q store one element */
    lp_insert(lp, NULL, 0, outer);
  }
  repanel_expr(lp, s->rhs, buf, P, rank, rstride, R, S, c.j0->it);
  return 0;
}

/* ------------------------------------------------------------ zero-started register blocks (R-CG-22) */

/* The loops of a perfect nest from n down, at most max; returns its one
 * statement, or NULL if n is not a perfect nest. */
static LNode *perfect_nest(LNode *n, LNode **loops, int *m, int max) {
  *m = 0;
  while (n->kind != LN_STMT) {
    if (n->nkids != 1 || n->nlocals || *m == max)
      return NULL;
    loops[(*m)++] = n;
    n = n->kids[0];
  }
  return n;
}

static bool same_header(const LNode *a, const LNode *b) {
  if (a->step != b->step || a->nubx != b->nubx || !lp_aff_equal(&a->lb, &b->lb) || !lp_aff_equal(&a->ub, &b->ub))
    return false;
  for (int k = 0; k < a->nubx; k++)
    if (!lp_aff_equal(&a->ubx[k], &b->ubx[k]))
      return false;
  return true;
}

static bool const_bounds(const LNode *l) { return !l->nubx && lp_aff_is_const(&l->lb) && lp_aff_is_const(&l->ub); }

/* How many statements below n access buf. */
static int count_access(const LNode *n, int buf) {
  if (n->kind == LN_STMT)
    return (n->lhs.buf == buf) + lp_expr_reads(n->rhs, buf);
  int c = 0;
  for (int i = 0; i < n->nkids; i++)
    c += count_access(n->kids[i], buf);
  return c;
}

/* The values each loop of a[0..n-1] gives its iterator over the whole nest,
 * each value once: [lo[j], hi[j]) for a loop with step 1 and constant bounds,
 * or for the point loop [t, t + s) (or [t, min(t + s, B))) of a tile loop
 * t in [A, B) step s, [A, B). A tile loop (tile[j]) may itself be the point
 * loop of an outer tile whose step its own step divides (a cache tile around
 * a register tile). False if some loop is none of these. */
static bool cover(LProgram *lp, LNode *const *a, int n, int64_t *lo, int64_t *hi, bool *tile) {
  int64_t *pstep = xcalloc((size_t)n + 1, sizeof *pstep);  /* a point loop's tile step; 0: not a point loop */
  bool ok = true;
  for (int j = 0; j < n && ok; j++) {
    const LNode *l = a[j];
    tile[j] = false;
    if (!pstep[j]) {
      if (!const_bounds(l) || l->ub.c <= l->lb.c) {
        ok = false;
        break;
      }
      lo[j] = l->lb.c;
      hi[j] = l->ub.c;
    }
    if (l->step == 1)
      continue;
    if (pstep[j] && pstep[j] % l->step) {
      ok = false;
      break;
    }
    tile[j] = true;                                 /* its one point loop */
    int found = 0;
    for (int k = j + 1; k < n; k++) {
      const LNode *q = a[k];
      LAff end = lp_aff_copy(lp, &q->lb);
      end.c += l->step;
      if (pstep[k] || !lp_aff_is_iter(&q->lb, l->it) || !lp_aff_equal(&q->ub, &end))
        continue;
      bool whole = q->nubx == 0 ? (hi[j] - lo[j]) % l->step == 0
                                : q->nubx == 1 && lp_aff_is_const(&q->ubx[0]) && q->ubx[0].c == hi[j];
      if (!whole)
        continue;
      pstep[k] = l->step;
      lo[k] = lo[j];
      hi[k] = hi[j];
      found++;
    }
    ok = found == 1;
  }
  free(pstep);
  return ok;
}

/* The chain of single-child loops from H down to the loop D that declares
 * local arrays (into a[], *nc of them, at most 64); D, or NULL. */
static LNode *block_chain(LNode *H, LNode **a, int *nc) {
  LNode *D = H;
  for (*nc = 0;;) {
    if (*nc == 64)
      return NULL;
    a[(*nc)++] = D;
    if (D->nlocals)
      break;
    if (D->nkids != 1 || D->kids[0]->kind == LN_STMT)
      return NULL;
    D = D->kids[0];
  }
  return D->nkids < 2 ? NULL : D;
}

/* R-CG-22 for H = kids[i] and its previous sibling P; true if P was deleted. */
static bool fold_one(LProgram *lp, LNode *parent, LNode **kids, int i) {
  LNode *H = kids[i], *P = kids[i - 1];
  if (H->kind == LN_STMT || P->kind == LN_STMT)
    return false;
  LNode *a[130], *pl[64], *sl[64];                 /* a: H's chain down to D, then the load's loops */
  int nc, pm, lm, sm;
  LNode *D = block_chain(H, a, &nc);
  if (!D)
    return false;
  LNode *ps = perfect_nest(P, pl, &pm, 64);
  LNode *ls = perfect_nest(D->kids[0], a + nc, &lm, 64);
  LNode *ss = perfect_nest(D->kids[D->nkids - 1], sl, &sm, 64);
  if (!ps || !ls || !ss || ps->accum || ps->rhs->kind != LE_ZERO || sm != lm)
    return false;
  int X = ps->lhs.buf, R = ls->lhs.buf, rank = lp->bufs[X].rank, n = nc + lm;
  bool local = false;
  for (int k = 0; k < D->nlocals; k++)
    local |= D->locals[k] == R;
  if (!local || ls->accum || ls->rhs->kind != LE_LOAD || ls->rhs->acc.buf != X || ss->accum || ss->lhs.buf != X ||
      ss->rhs->kind != LE_LOAD || ss->rhs->acc.buf != R || count_access(H, X) != 2)
    return false;
  const LAff *x = ls->rhs->acc.idx;
  for (int k = 0; k < lm; k++)                      /* the store covers what the load covers */
    if (!same_header(sl[k], a[nc + k]))
      return false;
  for (int d = 0; d < rank; d++) {
    LAff t = ss->lhs.idx[d];
    for (int k = 0; k < lm; k++)
      t = lp_aff_subst(lp, &t, sl[k]->it, lp_aff_iter(lp, a[nc + k]->it));
    if (!lp_aff_equal(&t, &x[d]))
      return false;
  }
  int64_t lo[130], hi[130];
  bool tile[130], usedl[130] = {0}, usedp[64] = {0};
  if (!cover(lp, a, n, lo, hi, tile))
    return false;
  for (int d = 0; d < rank; d++) {                  /* X's index d: one loop's values, or fixed */
    int v = -1, uses = 0;
    for (int j = 0; j < n; j++)
      if (aff_uses(&x[d], a[j]->it)) {
        v = j;
        uses++;
      }
    const LAff *y = &ps->lhs.idx[d];
    int w = -1;
    for (int k = 0; k < pm; k++)
      if (aff_uses(y, pl[k]->it))
        w = k;
    if (uses == 0) {
      if (w >= 0 || !lp_aff_equal(y, &x[d]))
        return false;
      continue;
    }
    if (uses > 1 || tile[v] || usedl[v] || !lp_aff_is_iter(&x[d], a[v]->it) || w < 0 || usedp[w] ||
        !lp_aff_is_iter(y, pl[w]->it) || pl[w]->step != 1 || !const_bounds(pl[w]) || pl[w]->lb.c != lo[v] ||
        pl[w]->ub.c != hi[v])
      return false;
    usedl[v] = usedp[w] = true;
  }
  for (int j = 0; j < n; j++)                       /* every loop's values reach X: each element once */
    if (!tile[j] && !usedl[j])
      return false;
  for (int k = 0; k < pm; k++)
    if (!usedp[k])
      return false;
  ls->rhs = lp_expr(lp, LE_ZERO, NULL, NULL);
  D->kids[0]->note = "the register block starts from zero (R-CG-22)";
  lp_remove(lp, parent, i - 1);
  lp_free_tree(P);
  return true;
}

/* Whether n is the copy nest of a packed copy per iteration (R-SCH-24.1). */
static bool slice_copy(const LProgram *lp, const LNode *n) {
  while (n->kind == LN_LOOP && n->nkids == 1)
    n = n->kids[0];
  return n->kind == LN_STMT && lp->bufs[n->lhs.buf].kind == LB_LOCAL && lp->bufs[n->lhs.buf].packof >= 0;
}

static void fold_zero_inits(LProgram *lp, LNode *parent) {
  int n;
  LNode **kids = lp_kids(lp, parent, &n);
  /* a copy per iteration goes first in its loop's body: it stores only its local
   * array and reads only a read-only input, so it commutes with the nodes before
   * it, and a zeroing nest it separated from its block comes next to it (R-CG-22) */
  for (int i = 1; parent && i < n; i++)
    if (slice_copy(lp, kids[i]) && !slice_copy(lp, kids[i - 1])) {
      LNode *c = kids[i];
      lp_remove(lp, parent, i);
      lp_insert(lp, parent, 0, c);
      kids = lp_kids(lp, parent, &n);
    }
  for (int i = 0; i < n; i++) {
    if (kids[i]->kind != LN_STMT)
      fold_zero_inits(lp, kids[i]);
    if (i > 0 && fold_one(lp, parent, kids, i)) {
      kids = lp_kids(lp, parent, &n);
      i--;
    }
  }
}

void rb_fold_zero_inits(LProgram *lp) { fold_zero_inits(lp, NULL); }

/* ------------------------------------------------------------ element-wise consumers (R-CG-23) */

static int count_loads(const LExpr *e, int buf, const LAccess **acc) {
  if (!e)
    return 0;
  int c = 0;
  if (e->kind == LE_LOAD && e->acc.buf == buf) {
    *acc = &e->acc;
    c = 1;
  }
  return c + count_loads(e->a, buf, acc) + count_loads(e->b, buf, acc);
}

static int count_program(const LProgram *lp, int buf) {
  int c = 0;
  for (int i = 0; i < lp->ntop; i++)
    c += count_access(lp->top[i], buf);
  return c;
}

/* Whether every statement below n stores to buf a or b. */
static bool writes_only(const LNode *n, int a, int b) {
  if (n->kind == LN_STMT)
    return n->lhs.buf == a || n->lhs.buf == b;
  for (int i = 0; i < n->nkids; i++)
    if (!writes_only(n->kids[i], a, b))
      return false;
  return true;
}


static LExpr *retarget(LProgram *lp, const LExpr *e, int from, const LAccess *to) {
  if (!e)
    return NULL;
  LExpr *c = lp_expr(lp, e->kind, retarget(lp, e->a, from, to), retarget(lp, e->b, from, to));
  LExpr *keep_a = c->a, *keep_b = c->b;
  *c = *e;
  c->a = keep_a;
  c->b = keep_b;
  if (e->kind == LE_LOAD && e->acc.buf == from)
    c->acc = *to;
  return c;
}

/* Removes the local array b from the loop of the tree under n that declares it. */
static void drop_local(LNode *n, int b) {
  if (n->kind == LN_STMT)
    return;
  for (int k = 0; k < n->nlocals; k++)
    if (n->locals[k] == b) {
      for (n->nlocals--; k < n->nlocals; k++)
        n->locals[k] = n->locals[k + 1];
      return;
    }
  for (int i = 0; i < n->nkids; i++)
    drop_local(n->kids[i], b);
}

/* R-CG-23 for H = kids[i] and Q = kids[i + 1]; true if Q was fused. */
static bool fuse_one(LProgram *lp, LNode *parent, LNode **kids, int n, int i) {
  if (i + 1 >= n || kids[i]->kind == LN_STMT || kids[i + 1]->kind == LN_STMT)
    return false;
  LNode *H = kids[i], *Q = kids[i + 1];
  LNode *a[130], *ql[64];
  int nc, sm, qm;
  LNode *D = block_chain(H, a, &nc);
  if (!D)
    return false;
  LNode *ss = perfect_nest(D->kids[D->nkids - 1], a + nc, &sm, 64);
  LNode *qs = perfect_nest(Q, ql, &qm, 64);
  if (!ss || !qs || ss->accum || qs->accum || ss->rhs->kind != LE_LOAD || !qm)
    return false;
  int X = ss->lhs.buf, R = ss->rhs->acc.buf, Y = qs->lhs.buf, rank = lp->bufs[X].rank;
  bool local = false;
  for (int k = 0; k < D->nlocals; k++)
    local |= D->locals[k] == R;
  const LAccess *xq = NULL;
  if (!local || Y == X || Y == R || (lp->bufs[X].kind != LB_WORK && lp->bufs[X].kind != LB_LOCAL) ||
      count_loads(qs->rhs, X, &xq) != 1 || count_program(lp, X) != 2 || !writes_only(H, R, X) || lp_reads(H, Y) ||
      lp_expr_reads(qs->rhs, Y) || lp_expr_reads(qs->rhs, R))
    return false;
  int na = nc + sm, map[64];
  int64_t lo[130], hi[130];
  bool tile[130], useda[130] = {0}, usedq[64] = {0};
  if (!cover(lp, a, na, lo, hi, tile))
    return false;
  const LAff *x = ss->lhs.idx;
  for (int d = 0; d < rank; d++) {                  /* match X's indices: the store's and Q's */
    int v = -1, uses = 0, w = -1, qu = 0;
    for (int j = 0; j < na; j++)
      if (aff_uses(&x[d], a[j]->it)) {
        v = j;
        uses++;
      }
    for (int k = 0; k < qm; k++)
      if (aff_uses(&xq->idx[d], ql[k]->it)) {
        w = k;
        qu++;
      }
    if (uses == 0) {
      if (qu || !lp_aff_equal(&x[d], &xq->idx[d]))
        return false;
      continue;
    }
    if (uses > 1 || qu != 1 || tile[v] || useda[v] || usedq[w] || !lp_aff_is_iter(&x[d], a[v]->it) ||
        !lp_aff_is_iter(&xq->idx[d], ql[w]->it) || ql[w]->step != 1 || !const_bounds(ql[w]) ||
        ql[w]->lb.c != lo[v] || ql[w]->ub.c != hi[v])
      return false;
    useda[v] = usedq[w] = true;
    map[w] = v;
  }
  for (int j = 0; j < na; j++)
    if (!tile[j] && !useda[j])
      return false;
  for (int k = 0; k < qm; k++)
    if (!usedq[k])
      return false;
  const LAff *y = qs->lhs.idx;                      /* Y's index: each loop of Q a whole index of its own */
  for (int k = 0; k < qm; k++) {
    int dims = 0;
    for (int d = 0; d < lp->bufs[Y].rank; d++)
      if (aff_uses(&y[d], ql[k]->it)) {
        if (!lp_aff_is_iter(&y[d], ql[k]->it))
          return false;
        dims++;
      }
    if (dims != 1)
      return false;
  }
  LAccess racc = ss->rhs->acc;
  LAff **yi = xcalloc((size_t)lp->bufs[Y].rank + 1, sizeof *yi);
  for (int d = 0; d < lp->bufs[Y].rank; d++)
    yi[d] = (LAff *)&y[d];
  LNode *t = lp_stmt(lp, Y, yi, false, retarget(lp, qs->rhs, X, &racc));
  free(yi);
  for (int k = 0; k < qm; k++)
    lp_subst_tree(lp, t, ql[k]->it, lp_aff_iter(lp, a[map[k]]->it));
  ss->lhs = t->lhs;
  ss->rhs = t->rhs;
  D->kids[D->nkids - 1]->note = "store the register block through the element-wise statement after it (R-CG-23)";
  lp_remove(lp, parent, i + 1);
  lp_free_tree(Q);
  lp->bufs[X].used = lp->bufs[X].written = false;
  if (lp->bufs[X].kind == LB_LOCAL)                 /* no declaration of an array nothing uses */
    for (int k = 0; k < lp->ntop; k++)
      drop_local(lp->top[k], X);
  return true;
}

static void fuse_consumers(LProgram *lp, LNode *parent) {
  int n;
  LNode **kids = lp_kids(lp, parent, &n);
  for (int i = 0; i < n; i++) {
    if (kids[i]->kind != LN_STMT)
      fuse_consumers(lp, kids[i]);
    if (fuse_one(lp, parent, kids, n, i))
      kids = lp_kids(lp, parent, &n);
  }
}

void rb_fuse_consumers(LProgram *lp) { fuse_consumers(lp, NULL); }
