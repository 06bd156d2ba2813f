/*
 * lanes.c - lanes across elements (spec/schedule.md R-SCH-27): a program
 * whose every nest runs over the elements of the same tensors, each element
 * on its own, runs W consecutive elements in the W lanes of a vector. The
 * element loop becomes a loop over groups of W elements that transposes a
 * group's inputs into local arrays with the lane index last, runs every
 * nest with the lane loop innermost (a contraction as a register block of one
 * row per output index of its broadcast operand), and transposes the
 * outputs back. The default schedule (R-SCH-17) applies it when it pays
 * (R-SCH-27 (d)) or when asked to (teilc --lanes).
 */
#include <stdlib.h>
#include <string.h>

#include "compile.h"

#define MAX_BLOCK 24          /* rows of a contraction's register block (R-SCH-27 (c)) */
#define MAX_SLOTS 8           /* lane arrays a program may need at once */
#define MAX_LANE_ELEMS 65536  /* elements of one lane array (512 KB of doubles) */

/* One top-level nest as R-SCH-27 (b) sees it. */
typedef struct {
  LNode *top;
  LNode *zero, *sum;          /* a contraction: T = 0, then T += X * Y over one reduction loop */
  LNode *ew;                  /* an element-wise statement */
  LNode *red;                 /* the contraction's reduction loop */
  int target;                 /* the element tensor it assigns */
  int block;                  /* the contraction's block iterator (an index of T that only the broadcast operand uses) */
  int64_t nblock;
} Nest;

typedef struct {
  LProgram *lp;
  int64_t E, V;
  int e;                      /* the element iterator of the nest being looked at */
  bool *elem;                 /* bufs accessed by element (first index the element iterator) */
  int nelem;
  int rank;                   /* of every element tensor */
  int64_t *dims;              /* their extents, dims[0] = E */
  const char *why;
} Match;

static bool aff_uses(const LAff *a, int it) { return lp_aff_coef(a, it) != 0; }

/* R-SCH-27 (a): an access by element (first index the element iterator alone,
 * no other index uses it) of a tensor of the common shape, or an access that
 * does not use the element iterator of a tensor that no statement writes. */
static bool access_ok(Match *m, const LAccess *a, bool store) {
  LProgram *lp = m->lp;
  const LBuf *x = &lp->bufs[a->buf];
  bool by_elem = x->rank >= 2 && lp_aff_is_iter(&a->idx[0], m->e);
  for (int d = by_elem ? 1 : 0; d < x->rank; d++)
    if (aff_uses(&a->idx[d], m->e)) {
      m->why = "an index uses the element iterator in another way";
      return false;
    }
  if (!by_elem) {
    if (store || x->written || x->kind != LB_PARAM_IN) {
      m->why = "a tensor is accessed without the element iterator and is not a read-only input";
      return false;
    }
    return true;
  }
  if (x->kind == LB_LOCAL || (x->kind == LB_PARAM && !store) || (x->kind == LB_PARAM_IN && store)) {
    m->why = "an output is read, or a local array is used";
    return false;
  }
  if (!m->dims) {
    m->rank = x->rank;
    m->dims = xcalloc((size_t)x->rank, sizeof *m->dims);
    memcpy(m->dims, x->dims, (size_t)x->rank * sizeof *m->dims);
  }
  if (x->rank != m->rank || memcmp(x->dims, m->dims, (size_t)x->rank * sizeof *m->dims)) {
    m->why = "the element tensors differ in shape";
    return false;
  }
  if (!m->elem[a->buf])
    m->nelem++;
  m->elem[a->buf] = true;
  return true;
}

static bool expr_ok(Match *m, const LExpr *e, bool div_ok) {
  if (!e)
    return true;
  if (e->kind == LE_DIV && !div_ok) {
    m->why = "a division";
    return false;
  }
  if (e->kind == LE_UNDEF) {
    m->why = "an undefined value";
    return false;
  }
  if (e->kind == LE_LOAD && !access_ok(m, &e->acc, false))
    return false;
  return expr_ok(m, e->a, div_ok) && expr_ok(m, e->b, div_ok);
}

/* Each index of s's target is a distinct iterator of a loop on path over [0, extent). */
static bool whole_target(const Match *m, const LNode *s, LNode *const *path, int depth) {
  const LProgram *lp = m->lp;
  const LBuf *x = &lp->bufs[s->lhs.buf];
  for (int d = 1; d < x->rank; d++) {
    bool found = false;
    for (int l = 1; l < depth && !found; l++) {
      const LNode *q = path[l];
      if (!lp_aff_is_iter(&s->lhs.idx[d], q->it))
        continue;
      found = !(q->flags & LF_REDUCTION) && q->step == 1 && !q->nubx && lp_aff_is_const(&q->lb) &&
              lp_aff_is_const(&q->ub) && q->lb.c == 0 && q->ub.c == x->dims[d];
    }
    if (!found)
      return false;
    for (int d2 = 1; d2 < d; d2++)
      if (lp_aff_equal(&s->lhs.idx[d], &s->lhs.idx[d2]))
        return false;
  }
  return true;
}

static void collect_stmts(LNode *n, LNode **out, int *k, int cap) {
  if (n->kind == LN_STMT) {
    if (*k < cap)
      out[*k] = n;
    (*k)++;
    return;
  }
  for (int i = 0; i < n->nkids; i++)
    collect_stmts(n->kids[i], out, k, cap);
}

/* R-SCH-27 (b): the nest top as an element-wise statement or a contraction. */
static bool nest_ok(Match *m, LNode *top, Nest *nt) {
  LProgram *lp = m->lp;
  memset(nt, 0, sizeof *nt);
  nt->top = top;
  nt->block = -1;
  if (top->kind != LN_LOOP || top->step != 1 || top->nubx || !lp_aff_is_const(&top->lb) || !lp_aff_is_const(&top->ub) ||
      top->lb.c != 0 || top->ub.c != m->E || top->nlocals || (top->flags & ~(unsigned)LF_PARALLEL)) {
    m->why = "a top-level node is not a loop over the same elements";
    return false;
  }
  m->e = top->it;
  LNode *st[3];
  int ns = 0;
  collect_stmts(top, st, &ns, 3);
  LNode *path[MAXDEPTH + 1];
  int depth;
  for (int i = 0; i < ns && i < 3; i++) {
    if (!lp_find_path(lp, st[i], path, &depth))
      return false;
    for (int l = 1; l < depth; l++)
      if (path[l]->nlocals || lp_bounds_use(path[l], m->e) || (path[l]->flags & ~(unsigned)(LF_REDUCTION | LF_SIMD)) ||
          path[l]->step != 1 || path[l]->nubx || !lp_aff_is_const(&path[l]->lb) || !lp_aff_is_const(&path[l]->ub)) {
        m->why = "a loop of a nest is not a plain loop with constant bounds";
        return false;
      }
  }
  if (ns == 1) {                                    /* element-wise: T[e, p] = f(X[e, p], ...) */
    LNode *s = st[0];
    if (s->accum || !access_ok(m, &s->lhs, true) || !expr_ok(m, s->rhs, false) || !lp_find_path(lp, s, path, &depth) ||
        !whole_target(m, s, path, depth)) {
      m->why = m->why ? m->why : "an element-wise statement does not assign every element of its target";
      return false;
    }
    nt->ew = s;
    nt->target = s->lhs.buf;
    return true;
  }
  if (ns != 2 || st[0]->accum || st[0]->rhs->kind != LE_ZERO || !st[1]->accum || st[1]->lhs.buf != st[0]->lhs.buf) {
    m->why = "a nest is neither one element-wise statement nor a zero fill and a sum";
    return false;
  }
  LNode *z = st[0], *s = st[1];
  nt->zero = z;
  nt->sum = s;
  nt->target = s->lhs.buf;
  if (!access_ok(m, &z->lhs, true) || !access_ok(m, &s->lhs, true) || !lp_find_path(lp, z, path, &depth) ||
      !whole_target(m, z, path, depth))
    return false;
  for (int l = 0; l < depth; l++)
    if (path[l]->flags & LF_REDUCTION)
      return false;
  if (!lp_find_path(lp, s, path, &depth) || !whole_target(m, s, path, depth))
    return false;
  int nred = 0;
  for (int l = 1; l < depth; l++)
    if (path[l]->flags & LF_REDUCTION) {
      nt->red = path[l];
      nred++;
    }
  int rank = lp->bufs[s->lhs.buf].rank;
  if (nred != 1 || depth != rank + 1) {
    m->why = "a sum has not one reduction loop around it";
    return false;
  }
  /* the product of a load by element and a load of a read-only input (the broadcast operand) */
  const LExpr *r = s->rhs;
  if (r->kind != LE_MUL || r->a->kind != LE_LOAD || r->b->kind != LE_LOAD || !expr_ok(m, r, false))
    return false;
  const LAccess *x = &r->a->acc, *y = &r->b->acc;
  if (!m->elem[x->buf] || !lp_aff_is_iter(&x->idx[0], m->e)) {
    const LAccess *t = x;
    x = y;
    y = t;
  }
  if (!lp_aff_is_iter(&x->idx[0], m->e) || lp->bufs[y->buf].kind != LB_PARAM_IN ||
      (lp->bufs[y->buf].rank >= 2 && lp_aff_is_iter(&y->idx[0], m->e))) {
    m->why = "a sum is not a product of an element tensor and a read-only input";
    return false;
  }
  for (int d = 1; d < rank && nt->block < 0; d++) {  /* the block: a target index only y uses */
    int it = s->lhs.idx[d].it[0];
    bool in_x = false, in_y = false;
    for (int k = 0; k < lp->bufs[x->buf].rank; k++)
      in_x |= aff_uses(&x->idx[k], it);
    for (int k = 0; k < lp->bufs[y->buf].rank; k++)
      in_y |= aff_uses(&y->idx[k], it);
    if (in_y && !in_x) {
      nt->block = it;
      nt->nblock = m->dims[d];
    }
  }
  if (nt->block < 0 || nt->nblock > MAX_BLOCK) {
    m->why = "a sum has no block index of at most 24 iterations";
    return false;
  }
  return true;
}

/* The lane arrays: slot[b] for element tensor b, assigned over the nests' order. */
typedef struct {
  int *first, *last;          /* the nests that first and last use each tensor */
} Plan;

static int lanes_plan(const Match *m, const Nest *nt, int nn, Plan *pl) {
  int nb = m->lp->nbufs;
  pl->first = xcalloc((size_t)nb, sizeof *pl->first);
  pl->last = xcalloc((size_t)nb, sizeof *pl->last);
  for (int b = 0; b < nb; b++)
    pl->first[b] = pl->last[b] = -1;
  for (int k = 0; k < nn; k++)
    for (int b = 0; b < nb; b++)
      if (m->elem[b] && (lp_reads(nt[k].top, b) || lp_writes(nt[k].top, b))) {
        if (pl->first[b] < 0)
          pl->first[b] = k;
        pl->last[b] = k;
      }
  /* a tensor's first use writes it unless it is an input; written once */
  for (int b = 0; b < nb; b++) {
    if (!m->elem[b])
      continue;
    int writers = 0;
    for (int k = 0; k < nn; k++)
      writers += nt[k].target == b;
    if (m->lp->bufs[b].kind == LB_PARAM_IN ? writers != 0 : writers != 1 || nt[pl->first[b]].target != b)
      return -1;
  }
  return 0;
}

/* ---------------------------------------------------------------- building */

typedef struct {
  LProgram *lp;
  const Match *m;
  int g;                      /* the group iterator */
  LNode *gl;                  /* the group loop */
  int *slot;                  /* the lane array (index into slots) of each element tensor now, -1 */
  int slots[MAX_SLOTS];       /* buffers of the lane arrays, -1 before their first use */
  bool busy[MAX_SLOTS];
  int64_t ldims[MAXDEPTH];    /* a lane array's extents: the element's, then V */
} Build;

static LAff **aff_list(LProgram *lp, int n) { return arena_alloc(&lp->arena, (size_t)(n + 1) * sizeof(LAff *)); }

static LAff **aff_ptrs(LProgram *lp, LAff *idx, int n) {
  LAff **out = aff_list(lp, n);
  for (int d = 0; d < n; d++)
    out[d] = &idx[d];
  return out;
}

static LAff *aff_new(LProgram *lp, LAff x) {
  LAff *a = arena_alloc(&lp->arena, sizeof *a);
  *a = x;
  return a;
}

/* An index list with the block iterator (if >= 0) replaced by the constant k. */
static LAff **block_subst(LProgram *lp, const LAff *idx, int from, int n, int block, int64_t k) {
  LAff **out = aff_list(lp, n);
  LAff *kc = lp_aff_const(lp, k);
  for (int d = from; d < from + n; d++)
    out[d - from] = aff_new(lp, block >= 0 ? lp_aff_subst(lp, &idx[d], block, kc) : lp_aff_copy(lp, &idx[d]));
  return out;
}

/* An access by element X[e, p] as an access of X's lane array, [p, w]. */
static LAccess lane_access(Build *bd, const LAccess *a, int w, int block, int64_t k) {
  LProgram *lp = bd->lp;
  int rank = lp->bufs[a->buf].rank;
  LAff **idx = block_subst(lp, a->idx, 1, rank - 1, block, k);
  idx[rank - 1] = lp_aff_iter(lp, w);
  return lp_load(lp, bd->slots[bd->slot[a->buf]], idx)->acc;
}

static LExpr *lane_expr(Build *bd, const LExpr *e, int w, int block, int64_t k) {
  LProgram *lp = bd->lp;
  if (!e)
    return NULL;
  if (e->kind == LE_LOAD) {
    if (bd->m->elem[e->acc.buf]) {
      LExpr *r = lp_expr(lp, LE_LOAD, NULL, NULL);
      r->acc = lane_access(bd, &e->acc, w, block, k);
      return r;
    }
    return lp_load(lp, e->acc.buf, block_subst(lp, e->acc.idx, 0, lp->bufs[e->acc.buf].rank, block, k));
  }
  return lp_expr(lp, e->kind, lane_expr(bd, e->a, w, block, k), lane_expr(bd, e->b, w, block, k));
}

static LNode *lane_loop(Build *bd) {
  LProgram *lp = bd->lp;
  int w = lp_add_iter(lp, lp_iter_name(lp, 'w', 1), bd->m->V);
  return lp_loop(lp, w, 0, bd->m->V, LF_SIMD);
}

static void chain(LProgram *lp, LNode **root, LNode **in, LNode *q) {
  if (*in)
    lp_append(lp, *in, q);
  else
    *root = q;
  *in = q;
}

/* V*g + w, the element of lane w of group g. */
static LAff *lane_element(Build *bd, int w) {
  LProgram *lp = bd->lp;
  LAff f = {0, 2, arena_alloc(&lp->arena, 2 * sizeof(int)), arena_alloc(&lp->arena, 2 * sizeof(int64_t))};
  f.it[0] = bd->g;
  f.coef[0] = bd->m->V;
  f.it[1] = w;
  f.coef[1] = 1;
  return aff_new(lp, f);
}

/* The copy of a group's slice of parameter b into its lane array (in) or back:
 * loops over the element's indices, the lane loop innermost, over the lanes
 * that hold elements (V, but E - V*g in a last, partial group; its C, the
 * call of teil_lanes_in, also sets the other lanes to 0). fold, for a copy
 * in: the product X * T of R-SCH-27 (c.1), T's lane array the destination,
 * whose statement becomes L = X * L in that operand order; else NULL. */
static LNode *lane_copy(Build *bd, int b, bool in, const LExpr *fold) {
  LProgram *lp = bd->lp;
  int rank = bd->m->rank;
  LAff **pi = aff_list(lp, rank), **li = aff_list(lp, rank);
  LNode *root = NULL, *inner = NULL;
  for (int d = 1; d < rank; d++) {
    int it = lp_add_iter(lp, lp_iter_name(lp, 'i', d + 1), bd->m->dims[d]);
    chain(lp, &root, &inner, lp_loop(lp, it, 0, bd->m->dims[d], 0));
    pi[d] = li[d - 1] = lp_aff_iter(lp, it);
  }
  LNode *wl = lane_loop(bd);
  chain(lp, &root, &inner, wl);
  LAff rest = {bd->m->E, 1, arena_alloc(&lp->arena, sizeof(int)), arena_alloc(&lp->arena, sizeof(int64_t))};
  rest.it[0] = bd->g;                               /* E - V*g */
  rest.coef[0] = -bd->m->V;
  if (bd->m->E % bd->m->V) {
    wl->ubx = aff_new(lp, rest);
    wl->nubx = 1;
  }
  pi[0] = lane_element(bd, wl->it);
  li[rank - 1] = lp_aff_iter(lp, wl->it);
  int L = bd->slots[bd->slot[b]];
  LExpr *rhs = in ? lp_load(lp, b, pi) : lp_load(lp, L, li);
  if (fold) {
    LExpr *l = lp_load(lp, L, li);
    rhs = fold->a->acc.buf == b ? lp_expr(lp, LE_MUL, rhs, l) : lp_expr(lp, LE_MUL, l, rhs);
  }
  lp_append(lp, wl, in ? lp_stmt(lp, L, li, false, rhs) : lp_stmt(lp, b, pi, false, rhs));
  root->flags |= LF_LANECOPY;
  return root;
}

static int take_slot(Build *bd) {
  LProgram *lp = bd->lp;
  for (int i = 0; i < MAX_SLOTS; i++) {
    if (bd->busy[i])
      continue;
    bd->busy[i] = true;
    if (bd->slots[i] < 0) {
      int L = lp_add_buf(lp, lp_unique(lp, "lanes"), bd->m->rank, bd->ldims);
      lp->bufs[L].kind = LB_LOCAL;
      lp->bufs[L].why = "W elements of the element tensors, lanes last (R-SCH-27)";
      lp_add_local(lp, bd->gl, L);
      bd->slots[i] = L;
    }
    return i;
  }
  return -1;
}

/* The element-wise nest in lane form: its own loops, the lane loop innermost. */
static LNode *lane_elementwise(Build *bd, const Nest *nt) {
  LProgram *lp = bd->lp;
  LNode *path[MAXDEPTH + 1];
  int depth;
  (void)lp_find_path(lp, nt->ew, path, &depth);
  LNode *root = NULL, *in = NULL;
  for (int l = 1; l < depth; l++)
    chain(lp, &root, &in, lp_loop(lp, path[l]->it, path[l]->lb.c, path[l]->ub.c, path[l]->flags & LF_REDUCTION));
  LNode *wl = lane_loop(bd);
  chain(lp, &root, &in, wl);
  LAccess t = lane_access(bd, &nt->ew->lhs, wl->it, -1, 0);
  lp_append(lp, wl, lp_stmt(lp, t.buf, aff_ptrs(lp, t.idx, bd->m->rank), false, lane_expr(bd, nt->ew->rhs, wl->it, -1, 0)));
  return root;
}

/* The contraction nest in lane form (R-SCH-27 (c)): loops over the target's
 * other indices; in the innermost, a register block B[nblock, V] from zero,
 * the reduction loop with one row per block index (the rows unrolled), and
 * B stored to the target's lane array. */
static LNode *lane_contraction(Build *bd, const Nest *nt) {
  LProgram *lp = bd->lp;
  const LNode *s = nt->sum;
  int rank = bd->m->rank;
  LNode *root = NULL, *in = NULL;
  for (int d = 1; d < rank; d++)
    if (s->lhs.idx[d].it[0] != nt->block)
      chain(lp, &root, &in, lp_loop(lp, s->lhs.idx[d].it[0], 0, bd->m->dims[d], 0));
  if (!in)                                          /* rank 2: no other index */
    chain(lp, &root, &in, lp_loop(lp, lp_add_iter(lp, lp_iter_name(lp, 'i', 2), 1), 0, 1, 0));
  int64_t dims[2] = {nt->nblock, bd->m->V};
  char base[300];
  snprintf(base, sizeof base, "%s_r", lp->bufs[nt->target].cname);
  int B = lp_add_buf(lp, lp_unique(lp, base), 2, dims);
  lp->bufs[B].kind = LB_LOCAL;
  lp->bufs[B].rblock = true;
  lp->bufs[B].why = "register block (R-SCH-21): a row per block index, W elements (R-SCH-27)";
  lp_add_local(lp, in, B);
  int bi = lp_add_iter(lp, lp_iter_name(lp, 'i', rank + 1), nt->nblock);
  LNode *zl = lp_loop(lp, bi, 0, nt->nblock, 0), *zw = lane_loop(bd);      /* B = 0 */
  LAff **zi = aff_list(lp, 2);
  zi[0] = lp_aff_iter(lp, bi);
  zi[1] = lp_aff_iter(lp, zw->it);
  lp_append(lp, zw, lp_stmt(lp, B, zi, false, lp_expr(lp, LE_ZERO, NULL, NULL)));
  lp_append(lp, zl, zw);
  lp_append(lp, in, zl);
  LNode *rl = lp_loop(lp, nt->red->it, nt->red->lb.c, nt->red->ub.c, LF_REDUCTION);   /* the sum */
  for (int64_t k = 0; k < nt->nblock; k++) {
    LNode *wl = lane_loop(bd);
    LAff **ri = aff_list(lp, 2);
    ri[0] = lp_aff_const(lp, k);
    ri[1] = lp_aff_iter(lp, wl->it);
    lp_append(lp, wl, lp_stmt(lp, B, ri, true, lane_expr(bd, s->rhs, wl->it, nt->block, k)));
    lp_append(lp, rl, wl);
  }
  lp_append(lp, in, rl);
  LNode *sl = lp_loop(lp, bi, 0, nt->nblock, 0), *sw = lane_loop(bd);      /* the store */
  LAccess t = lane_access(bd, &s->lhs, sw->it, -1, 0);
  LAff *bit = lp_aff_iter(lp, bi);
  for (int d = 0; d < rank - 1; d++)
    t.idx[d] = lp_aff_subst(lp, &t.idx[d], nt->block, bit);
  LAff **bl = aff_list(lp, 2);
  bl[0] = lp_aff_iter(lp, bi);
  bl[1] = lp_aff_iter(lp, sw->it);
  lp_append(lp, sw, lp_stmt(lp, t.buf, aff_ptrs(lp, t.idx, rank), false, lp_load(lp, B, bl)));
  lp_append(lp, sl, sw);
  lp_append(lp, in, sl);
  return root;
}

/* Whether every load of buf in e reads the element that lhs assigns (in place is safe). */
static bool reads_at(const LProgram *lp, const LExpr *e, int buf, const LAccess *lhs) {
  if (!e)
    return true;
  if (e->kind == LE_LOAD && e->acc.buf == buf)
    for (int d = 0; d < lp->bufs[buf].rank; d++)
      if (!lp_aff_equal(&e->acc.idx[d], &lhs->idx[d]))
        return false;
  return reads_at(lp, e->a, buf, lhs) && reads_at(lp, e->b, buf, lhs);
}

/* R-SCH-27 (c.1): the input X whose copy nest k's product X * T takes in, or
 * -1: X read by nest k alone, T another element tensor whose last use is k,
 * both read at the index the statement assigns. */
static int fused_input(const LProgram *lp, const Match *m, const Nest *nt, const Plan *pl, int k) {
  const LNode *s = nt[k].ew;
  if (!s || s->rhs->kind != LE_MUL || s->rhs->a->kind != LE_LOAD || s->rhs->b->kind != LE_LOAD)
    return -1;
  int x = s->rhs->a->acc.buf, t = s->rhs->b->acc.buf;
  if (!(lp->bufs[x].kind == LB_PARAM_IN && pl->first[x] == k && pl->last[x] == k)) {
    int u = x;
    x = t;
    t = u;
  }
  if (x == t || !m->elem[x] || !m->elem[t] || lp->bufs[x].kind != LB_PARAM_IN || pl->first[x] != k ||
      pl->last[x] != k || pl->last[t] != k || !reads_at(lp, s->rhs, x, &s->lhs) || !reads_at(lp, s->rhs, t, &s->lhs))
    return -1;
  return x;
}

/* R-SCH-27 (c): the program rebuilt as one loop over groups of V elements. */
static int lanes_build(LProgram *lp, Match *m, Nest *nt, int nn, const Plan *pl) {
  Build bd = {lp, m, -1, NULL, NULL, {0}, {0}, {0}};
  bd.slot = xcalloc((size_t)lp->nbufs + 1, sizeof *bd.slot);
  for (int b = 0; b < lp->nbufs; b++)
    bd.slot[b] = -1;
  for (int i = 0; i < MAX_SLOTS; i++)
    bd.slots[i] = -1;
  for (int d = 1; d < m->rank; d++)
    bd.ldims[d - 1] = m->dims[d];
  bd.ldims[m->rank - 1] = m->V;
  int64_t G = (m->E + m->V - 1) / m->V;
  bd.g = lp_add_iter(lp, lp_iter_name(lp, 'i', 1), G);
  bd.gl = lp_loop(lp, bd.g, 0, G, lp->openmp ? LF_PARALLEL : 0);
  bd.gl->flags |= LF_GROUP;
  int nb = lp->nbufs, nits = lp->nits, rc = 0;
  for (int k = 0; k < nn && !rc; k++) {
    int fx = fused_input(lp, m, nt, pl, k);
    for (int b = 0; b < nb && !rc; b++)              /* inputs first read here: copied in */
      if (m->elem[b] && pl->first[b] == k && lp->bufs[b].kind == LB_PARAM_IN && b != fx) {
        if ((bd.slot[b] = take_slot(&bd)) < 0)
          rc = -1;
        else
          lp_append(lp, bd.gl, lane_copy(&bd, b, true, NULL));
      }
    int t = nt[k].target;
    if (nt[k].ew)                                   /* in place over an operand that dies here */
      for (int b = 0; b < nb && bd.slot[t] < 0; b++)
        if (m->elem[b] && b != t && pl->last[b] == k && bd.slot[b] >= 0 && reads_at(lp, nt[k].ew->rhs, b, &nt[k].ew->lhs))
          bd.slot[t] = bd.slot[b];
    if (rc || (bd.slot[t] < 0 && (bd.slot[t] = take_slot(&bd)) < 0)) {
      rc = -1;
      break;
    }
    if (fx >= 0) {                                  /* (c.1): X's copy times T's lane array, in place */
      bd.slot[fx] = bd.slot[t];
      lp_append(lp, bd.gl, lane_copy(&bd, fx, true, nt[k].ew->rhs));
      bd.slot[fx] = -1;
    } else
      lp_append(lp, bd.gl, nt[k].ew ? lane_elementwise(&bd, &nt[k]) : lane_contraction(&bd, &nt[k]));
    for (int b = 0; b < nb; b++)                    /* outputs last used here: copied out */
      if (m->elem[b] && pl->last[b] == k && lp->bufs[b].kind == LB_PARAM)
        lp_append(lp, bd.gl, lane_copy(&bd, b, false, NULL));
    for (int b = 0; b < nb; b++)                    /* the lane arrays of the tensors that die here */
      if (m->elem[b] && pl->last[b] == k && bd.slot[b] >= 0) {
        bool shared = false;
        for (int c = 0; c < nb; c++)
          shared |= c != b && bd.slot[c] == bd.slot[b] && pl->last[c] > k;
        if (!shared)
          bd.busy[bd.slot[b]] = false;
        bd.slot[b] = -1;
      }
  }
  free(bd.slot);
  if (rc) {                                         /* the program is left as it was */
    lp_free_tree(bd.gl);
    for (int b = nb; b < lp->nbufs; b++)
      lp->bufs[b].used = lp->bufs[b].written = false;
    lp->nits = nits;
    return -1;
  }
  for (int k = 0; k < nn; k++)
    lp_free_tree(lp->top[k]);
  lp->ntop = 0;
  lp_append(lp, NULL, bd.gl);
  bd.gl->note = "R-SCH-27: groups of W elements, one in each lane of a vector";
  for (int b = 0; b < nb; b++)                      /* the temporaries left the workspace */
    if (m->elem[b] && lp->bufs[b].kind == LB_WORK)
      lp->bufs[b].used = lp->bufs[b].written = false;
  return 0;
}

/* R-SCH-27 (a), (b): the program's nests, its element tensors and the plan of
 * their lane arrays; false with the reason in m->why. */
typedef struct {
  Match m;
  Nest *nt;
  int nn;
  Plan pl;
} Form;

static void form_free(Form *f) {
  free(f->pl.first);
  free(f->pl.last);
  free(f->nt);
  free(f->m.elem);
  free(f->m.dims);
}

static bool form_of(LProgram *lp, Form *f) {
  memset(f, 0, sizeof *f);
  f->m = (Match){lp, 0, lp->f32 ? 16 : 8, -1, NULL, 0, 0, NULL, NULL};
  Match *m = &f->m;
  LNode *t0 = lp->ntop ? lp->top[0] : NULL;
  if (lp->pad != 1 || !t0 || t0->kind != LN_LOOP || !lp_aff_is_const(&t0->ub)) {
    m->why = "the program is not compiled with --pad 1 or does not start with a loop of constant bounds";
    return false;
  }
  m->E = t0->ub.c;
  if (m->E < 2 * m->V) {
    m->why = "fewer than two vectors of elements";
    return false;
  }
  m->elem = xcalloc((size_t)lp->nbufs + 1, sizeof *m->elem);
  f->nt = xcalloc((size_t)lp->ntop, sizeof *f->nt);
  f->nn = lp->ntop;
  for (int k = 0; k < f->nn; k++)
    if (!nest_ok(m, lp->top[k], &f->nt[k])) {
      m->why = m->why ? m->why : "a nest has another form";
      return false;
    }
  int64_t slice = 1;
  for (int d = 1; d < m->rank; d++)
    slice *= m->dims[d];
  if (m->rank < 2 || (double)slice * (double)m->V > (double)MAX_LANE_ELEMS) {
    m->why = "a lane array would exceed 65536 elements";
    return false;
  }
  if (lanes_plan(m, f->nt, f->nn, &f->pl)) {
    m->why = "an element tensor is not assigned exactly once before it is read";
    return false;
  }
  return true;
}

bool lanes_pays(LProgram *lp) {
  Form f;
  bool ok = form_of(lp, &f);
  if (ok && lp->f32)                                /* R-SCH-27 (d): measured with doubles only */
    ok = false;
  bool contraction = false;                         /* R-SCH-27 (d.1) */
  for (int k = 0; ok && k < f.nn; k++)
    contraction |= f.nt[k].sum != NULL;
  ok = ok && contraction;
  if (ok) {                                         /* R-SCH-27 (d) */
    int64_t n = f.m.dims[f.m.rank - 1], V = f.m.V, rem = n % V;
    if (lp_vec_split())                             /* a 512-bit operation runs as two halves: */
      ok = n > V && rem > 0 && 4 * rem <= 3 * (rem <= V / 2 ? V / 2 : V);   /* the last one, */
    else                                            /* half a vector or whole, at most 3/4 used */
      ok = n > V && rem > 0 && 2 * rem < V;         /* a row's last vector less than half used */
  }
  form_free(&f);
  return ok;
}

int lanes_apply(LProgram *lp, const char *what, Buf *why) {
  Form f;
  int rc = -1;
  if (!form_of(lp, &f))
    buf_printf(why, "%s: %s", what, f.m.why);
  else if (lanes_build(lp, &f.m, f.nt, f.nn, &f.pl))
    buf_printf(why, "%s: the program needs more than %d lane arrays at once", what, MAX_SLOTS);
  else
    rc = 0;
  form_free(&f);
  return rc;
}
