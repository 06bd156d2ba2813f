/*
 * lift.c - lifting of nested contractions (TeIL paper Sec. 5; spec/lifting.md).
 *
 * Every statement's right-hand side is walked top-down. An element-wise node
 * (add, sub, div, expa) keeps its shape and lifts its operands; a maximal
 * region of einsum operators (prod, mul, contr, red+, diag, transp, proj) is
 * read as an einsum over labelled leaves (R-LIFT-3), whose leaves are lifted
 * first (R-LIFT-4), reduced locally (R-LIFT-5), and combined pairwise in the
 * order with the fewest FLOPs (R-LIFT-6), each step one `contr i j (prod X Y)`
 * assigned to a temporary (R-LIFT-7). An add/sub inside an einsum may be
 * distributed when that is cheaper (R-LIFT-8). A statement is replaced only if
 * its group is strictly cheaper (R-LIFT-11); the result is type-checked again.
 *
 * Plans are emitted directly into the output program; trying an alternative
 * means emitting it and rolling the statement/tensor tables back (a Mark).
 */
#include <stdlib.h>
#include <string.h>

#include "compile.h"
#include "lift.h"

#define MAXOPS 256       /* operands of one einsum term (R-LIFT-6) */
#define MAXLAB 1024      /* distinct labels of one einsum term */
#define LW (MAXLAB / 64)
#define EXACT_MAX 8      /* exact subset DP up to this many operands */
#define NEAR 0.01        /* costs this close count as equal (R-LIFT-6, the last step) */
#define MAXTERMS 16      /* distributed terms (R-LIFT-8) */
#define DBUDGET 16       /* attempts to distribute per statement (R-LIFT-8) */

/* ------------------------------------------------------------ cost model */

static double dcount(Type t) {
  double n = 1;
  for (int i = 0; i < t.rank; i++)
    n *= (double)t.dims[i];
  return n;
}

/* R-LIFT-2: FLOPs per element of e, as the interpreter evaluates it. */
static double ecost(const Expr *e) {
  switch (e->kind) {
  case EX_VAR:
    return 0;
  case EX_ADD:
  case EX_SUB:
  case EX_MUL:
  case EX_DIV:
  case EX_PROD:
    return ecost(e->a) + ecost(e->b) + 1;
  case EX_RED:
  case EX_CONTR:
    return (double)e->a->ty.dims[e->i - 1] * (ecost(e->a) + 1);
  case EX_TRANSP:
  case EX_DIAG:
  case EX_EXPA:
  case EX_PROJ:
    return ecost(e->a);
  case EX_COUNT:
    break;
  }
  teil_unreachable();
}

static double stmt_cost(const Program *p, const Stmt *s) {
  return dcount(p->tensors[s->target].ty) * ecost(s->rhs);
}

double lift_flops(const TeilProgram *tp) {
  const Program *p = &tp->p;
  double f = 0;
  for (int i = 0; i < p->nstmts; i++)
    if (p->stmts[i].ok && p->stmts[i].target >= 0)
      f += stmt_cost(p, &p->stmts[i]);
  return f;
}

/* ------------------------------------------------------------ label sets */

typedef struct LSet {
  uint64_t w[LW];
} LSet;

static void ls_add(LSet *s, int l) { s->w[l >> 6] |= (uint64_t)1 << (l & 63); }
static bool ls_has(const LSet *s, int l) { return (s->w[l >> 6] >> (l & 63)) & 1; }
static LSet ls_or(LSet a, LSet b) {
  for (int i = 0; i < LW; i++)
    a.w[i] |= b.w[i];
  return a;
}
static LSet ls_and(LSet a, LSet b) {
  for (int i = 0; i < LW; i++)
    a.w[i] &= b.w[i];
  return a;
}
static LSet ls_minus(LSet a, LSet b) {
  for (int i = 0; i < LW; i++)
    a.w[i] &= ~b.w[i];
  return a;
}
static bool ls_empty(LSet a) {
  for (int i = 0; i < LW; i++)
    if (a.w[i])
      return false;
  return true;
}
static LSet ls_of(const int *lab, int n) {
  LSet s = {{0}};
  for (int i = 0; i < n; i++)
    ls_add(&s, lab[i]);
  return s;
}

/* -------------------------------------------------------------- the lifter */

typedef struct Lifter {
  const Program *in;
  Program *out;
  Arena scr;                  /* scratch: einsums, label lists, plans */
  int tempno;                 /* number of the last temporary */
  int nuser;                  /* user tensors (they come first in out) */
  Loc loc;                    /* of the statement being lifted */
  bool failed;                /* this plan cannot be emitted (limits) */
  int budget;                 /* D attempts left in this statement (R-LIFT-8) */
  /* union-find over labels (R-LIFT-3) */
  int nl, capl;
  int *par;
  int64_t *ext;
  int64_t *fix;               /* 0, or the 1-based index a proj pins the label to */
} Lifter;

typedef struct Mark {
  int nstmts, ntensors, tempno;
} Mark;

static Mark mark(const Lifter *L) { return (Mark){L->out->nstmts, L->out->ntensors, L->tempno}; }

static void restore(Lifter *L, const Mark *m) {
  L->out->nstmts = m->nstmts;
  L->out->ntensors = m->ntensors;
  L->tempno = m->tempno;
}

/* memcpy that accepts n == 0 with a NULL source (empty statement or tensor
 * lists), which memcpy itself does not. */
static void *mcopy(void *dst, const void *src, size_t n) { return n ? memcpy(dst, src, n) : dst; }

static void *scr(Lifter *L, size_t n, size_t size) { return arena_alloc(&L->scr, (n ? n : 1) * size); }

static int lab_new(Lifter *L, int64_t ext) {
  if (L->nl == L->capl) {
    L->capl = L->capl ? 2 * L->capl : 256;
    L->par = realloc(L->par, (size_t)L->capl * sizeof *L->par);
    L->ext = realloc(L->ext, (size_t)L->capl * sizeof *L->ext);
    L->fix = realloc(L->fix, (size_t)L->capl * sizeof *L->fix);
    if (!L->par || !L->ext || !L->fix)
      abort();
  }
  L->par[L->nl] = L->nl;
  L->ext[L->nl] = ext;
  L->fix[L->nl] = 0;
  return L->nl++;
}

static int lab_find(Lifter *L, int x) {
  while (L->par[x] != x) {
    L->par[x] = L->par[L->par[x]];
    x = L->par[x];
  }
  return x;
}

static void lab_unite(Lifter *L, int x, int y) {
  x = lab_find(L, x);
  y = lab_find(L, y);
  if (x == y)
    return;
  L->par[y] = x;
  if (L->fix[y])
    L->fix[x] = L->fix[y];
}

/* ---------------------------------------------------- building expressions */

static Type ty_make(Lifter *L, int rank, const int64_t *dims) {
  Type t = {rank, arena_alloc(&L->out->arena, (size_t)(rank ? rank : 1) * sizeof(int64_t))};
  if (rank && dims)
    mcopy(t.dims, dims, (size_t)rank * sizeof *dims);
  return t;
}

/* The type whose extents are those of labels lab[0..n-1]. */
static Type ty_labels(Lifter *L, const int *lab, int n, const int64_t *ext) {
  Type t = ty_make(L, n, NULL);
  for (int i = 0; i < n; i++)
    t.dims[i] = ext[lab[i]];
  return t;
}

static Expr *mk(Lifter *L, ExprKind k, Expr *a, Expr *b, int64_t i, int64_t j, Type ty) {
  Expr *e = expr_new(L->out, k, L->loc, (int)strlen(ex_names[k]));
  e->a = a;
  e->b = b;
  e->i = i;
  e->k = j;
  e->iloc = e->kloc = L->loc;
  e->ty = ty;
  int da = a ? a->depth : 0, db = b ? b->depth : 0;
  e->depth = 1 + (da > db ? da : db);
  return e;
}

static Expr *mk_var(Lifter *L, int t) {
  const Tensor *x = &L->out->tensors[t];
  Expr *e = expr_new(L->out, EX_VAR, L->loc, (int)strlen(x->name));
  e->name = x->name;
  e->tensor = t;
  e->ty = x->ty;
  e->depth = 1;
  return e;
}

static Expr *copy_expr(Lifter *L, const Expr *e) {
  Expr *c = expr_new(L->out, e->kind, e->loc, e->len);
  c->i = e->i;
  c->k = e->k;
  c->iloc = e->iloc;
  c->kloc = e->kloc;
  c->parens = e->parens;
  c->scalar_op = e->scalar_op;
  c->depth = e->depth;
  c->ty = ty_make(L, e->ty.rank, e->ty.dims);
  if (e->kind == EX_VAR) {
    c->name = L->out->tensors[e->tensor].name;
    c->tensor = e->tensor;
    return c;
  }
  c->a = copy_expr(L, e->a);
  if (e->b)
    c->b = copy_expr(L, e->b);
  return c;
}

/* A new temporary _tK = rhs (R-LIFT-1, R-LIFT-7); returns a read of it. */
static Expr *temp(Lifter *L, Expr *rhs) {
  if (ty_count(rhs->ty) > TEIL_MAX_ELEMS) {
    L->failed = true;
    return rhs;
  }
  char name[32];
  do
    snprintf(name, sizeof name, "_t%d", ++L->tempno);
  while (prog_find(L->in, name) >= 0);
  int t = L->out->ntensors;
  Tensor *x = prog_add_tensor(L->out);
  x->name = arena_strndup(&L->out->arena, name, strlen(name));
  x->loc = L->loc;
  x->ty = rhs->ty;
  Stmt *s = prog_add_stmt(L->out);
  s->name = x->name;
  s->loc = L->loc;
  s->len = (int)strlen(name);
  s->rhs = rhs;
  s->target = t;
  return mk_var(L, t);
}

static void del_at(int *cur, int *n, int p) {
  memmove(cur + p, cur + p + 1, (size_t)(*n - p - 1) * sizeof *cur);
  (*n)--;
}

static int occurrences(const int *cur, int n, int l) {
  int c = 0;
  for (int i = 0; i < n; i++)
    c += cur[i] == l;
  return c;
}

/* R-LIFT-5, R-LIFT-7: applies to x (labels cur[0..*n-1], possibly repeated)
 * a diag for every extra occurrence of a label, then sums the labels in sum
 * (innermost the one whose first occurrence comes last: contr for two
 * occurrences, red+ for one), then, with target, the swaps that put the
 * labels in target order. Updates cur and *n; counts the swaps in *nswaps.
 * With dry, only the labels are computed. */
static Expr *build(Lifter *L, Expr *x, int *cur, int *n, LSet sum, const int64_t *ext, const int *target,
                   int *nswaps, bool dry) {
  for (bool again = true; again;) {               /* diags */
    again = false;
    for (int p = 0; p < *n && !again; p++) {
      int l = cur[p];
      if (occurrences(cur, *n, l) <= (ls_has(&sum, l) ? 2 : 1))
        continue;
      int q = p + 1;
      while (cur[q] != l)
        q++;
      del_at(cur, n, q);
      if (!dry)
        x = mk(L, EX_DIAG, x, NULL, p + 1, q + 1, ty_labels(L, cur, *n, ext));
      again = true;
    }
  }
  int order[MAXLAB], m = 0;                        /* summed labels, the later first */
  for (int p = *n - 1; p >= 0; p--) {              /* occurrence first (R-LIFT-7) */
    int l = cur[p];
    if (!ls_has(&sum, l) || occurrences(cur, p, l) > 0)
      continue;
    order[m++] = l;
  }
  for (int s = 0; s < m; s++) {
    int l = order[s], p = 0;
    while (cur[p] != l)
      p++;
    int q = p + 1;
    while (q < *n && cur[q] != l)
      q++;
    if (q < *n) {
      del_at(cur, n, q);
      del_at(cur, n, p);
      if (!dry)
        x = mk(L, EX_CONTR, x, NULL, p + 1, q + 1, ty_labels(L, cur, *n, ext));
    } else {
      del_at(cur, n, p);
      if (!dry)
        x = mk(L, EX_RED, x, NULL, p + 1, 0, ty_labels(L, cur, *n, ext));
    }
  }
  if (target)
    for (int p = 0; p < *n; p++) {
      if (cur[p] == target[p])
        continue;
      int q = p + 1;
      while (cur[q] != target[p])
        q++;
      int t = cur[p];
      cur[p] = cur[q];
      cur[q] = t;
      if (!dry)
        x = mk(L, EX_TRANSP, x, NULL, p + 1, q + 1, ty_labels(L, cur, *n, ext));
      if (nswaps)
        (*nswaps)++;
    }
  return x;
}

/* ------------------------------------------------- einsum extraction (R-LIFT-3) */

typedef struct Op {
  const Expr *leaf;
  int n;
  int *lab;                   /* union-find labels, one per dimension of leaf */
} Op;

typedef struct Term {
  int sign;                   /* +1 or -1 (R-LIFT-8) */
  int nops;
  Op *ops;
} Term;

typedef struct Ein {
  int nt;
  Term *t;
  int n;
  int *out;                   /* output labels, distinct */
} Ein;

static bool is_einsum_op(ExprKind k) {
  switch (k) {
  case EX_PROD: case EX_MUL: case EX_RED: case EX_CONTR: case EX_DIAG: case EX_TRANSP: case EX_PROJ:
    return true;
  case EX_VAR: case EX_ADD: case EX_SUB: case EX_DIV: case EX_EXPA: case EX_COUNT:
    return false;
  }
  return false;
}

/* Whether e contains a multiplication or a sum that distribution could move. */
static bool has_work(const Expr *e) {
  if (e->kind == EX_PROD || e->kind == EX_MUL || e->kind == EX_RED || e->kind == EX_CONTR)
    return true;
  return e->kind != EX_VAR && (has_work(e->a) || (e->b && has_work(e->b)));
}

/* Whether the einsum region at e holds an add/sub that R-LIFT-8 would distribute. */
static bool has_dist_add(const Expr *e) {
  if (e->kind == EX_ADD || e->kind == EX_SUB)
    return has_work(e->a) || has_work(e->b);
  if (!is_einsum_op(e->kind))
    return false;
  return has_dist_add(e->a) || (e->b && has_dist_add(e->b));
}

static int *lab_copy(Lifter *L, const int *lab, int n) {
  int *c = scr(L, (size_t)n, sizeof *c);
  mcopy(c, lab, (size_t)n * sizeof *c);
  return c;
}

/* Cross product of the terms of a and b (prod, mul). */
static bool cross(Lifter *L, const Ein *a, const Ein *b, Ein *r) {
  if (a->nt * b->nt > MAXTERMS)
    return false;
  r->nt = a->nt * b->nt;
  r->t = scr(L, (size_t)r->nt, sizeof *r->t);
  for (int i = 0; i < a->nt; i++)
    for (int j = 0; j < b->nt; j++) {
      Term *t = &r->t[i * b->nt + j];
      t->sign = a->t[i].sign * b->t[j].sign;
      t->nops = a->t[i].nops + b->t[j].nops;
      if (t->nops > MAXOPS)
        return false;
      t->ops = scr(L, (size_t)t->nops, sizeof *t->ops);
      mcopy(t->ops, a->t[i].ops, (size_t)a->t[i].nops * sizeof *t->ops);
      mcopy(t->ops + a->t[i].nops, b->t[j].ops, (size_t)b->t[j].nops * sizeof *t->ops);
    }
  return true;
}

static bool extract(Lifter *L, const Expr *e, bool dist, Ein *r) {
  int lo = (int)(e->i < e->k ? e->i : e->k) - 1, hi = (int)(e->i < e->k ? e->k : e->i) - 1;
  Ein a, b;
  switch (e->kind) {
  case EX_PROD:
  case EX_MUL:
    if (!extract(L, e->a, dist, &a) || !extract(L, e->b, dist, &b) || !cross(L, &a, &b, r))
      return false;
    if (e->kind == EX_MUL && !e->scalar_op) {      /* Hadamard: identify position-wise */
      for (int p = 0; p < a.n; p++)
        lab_unite(L, a.out[p], b.out[p]);
      r->n = a.n;
      r->out = a.out;
      return true;
    }
    r->n = a.n + b.n;                              /* prod, or mul s e with s : [] */
    r->out = scr(L, (size_t)r->n, sizeof *r->out);
    mcopy(r->out, a.out, (size_t)a.n * sizeof *r->out);
    mcopy(r->out + a.n, b.out, (size_t)b.n * sizeof *r->out);
    return true;
  case EX_ADD:
  case EX_SUB:
    if (!dist || !(has_work(e->a) || has_work(e->b)))
      break;
    if (!extract(L, e->a, dist, &a) || !extract(L, e->b, dist, &b) || a.nt + b.nt > MAXTERMS)
      return false;
    r->nt = a.nt + b.nt;                           /* R-LIFT-8 */
    r->t = scr(L, (size_t)r->nt, sizeof *r->t);
    mcopy(r->t, a.t, (size_t)a.nt * sizeof *r->t);
    for (int j = 0; j < b.nt; j++) {
      r->t[a.nt + j] = b.t[j];
      if (e->kind == EX_SUB)
        r->t[a.nt + j].sign = -b.t[j].sign;
    }
    for (int p = 0; p < a.n; p++)
      lab_unite(L, a.out[p], b.out[p]);
    r->n = a.n;
    r->out = a.out;
    return true;
  case EX_RED:
    if (!extract(L, e->a, dist, r))
      return false;
    r->out = lab_copy(L, r->out, r->n);
    del_at(r->out, &r->n, (int)e->i - 1);
    return true;
  case EX_CONTR:
  case EX_DIAG:
    if (!extract(L, e->a, dist, r))
      return false;
    r->out = lab_copy(L, r->out, r->n);
    lab_unite(L, r->out[lo], r->out[hi]);
    del_at(r->out, &r->n, hi);
    if (e->kind == EX_CONTR)
      del_at(r->out, &r->n, lo);
    return true;
  case EX_TRANSP: {
    if (!extract(L, e->a, dist, r))
      return false;
    r->out = lab_copy(L, r->out, r->n);
    int t = r->out[lo];
    r->out[lo] = r->out[hi];
    r->out[hi] = t;
    return true;
  }
  case EX_PROJ:
    if (!extract(L, e->a, dist, r))
      return false;
    r->out = lab_copy(L, r->out, r->n);
    L->fix[lab_find(L, r->out[e->i - 1])] = e->k;
    del_at(r->out, &r->n, (int)e->i - 1);
    return true;
  case EX_VAR:
  case EX_DIV:
  case EX_EXPA:
    break;
  case EX_COUNT:
    teil_unreachable();
  }
  /* a leaf (R-LIFT-4) */
  Op *op = scr(L, 1, sizeof *op);
  op->leaf = e;
  op->n = e->ty.rank;
  op->lab = scr(L, (size_t)op->n, sizeof *op->lab);
  for (int p = 0; p < op->n; p++)
    op->lab[p] = lab_new(L, e->ty.dims[p]);
  r->nt = 1;
  r->t = scr(L, 1, sizeof *r->t);
  r->t[0] = (Term){1, 1, op};
  r->n = op->n;
  r->out = lab_copy(L, op->lab, op->n);
  return true;
}

/* ------------------------------------------------ contraction order (R-LIFT-6) */

typedef struct Node {
  Expr *e;
  int n;
  int *lab;                   /* local labels, distinct after R-LIFT-5 */
  LSet set;
} Node;

/* The sums of a step, their extents s[0..m) from the largest down: sum_add
 * inserts one; sum_cost is c_|S| of R-LIFT-6, the largest extent innermost. */
static void sum_add(double *s, int *m, double ext) {
  int i = (*m)++;
  while (i > 0 && s[i - 1] < ext) {
    s[i] = s[i - 1];
    i--;
  }
  s[i] = ext;
}

static double sum_cost(const double *s, int m) {
  double c = 1;
  for (int i = 0; i < m; i++)
    c = s[i] * (c + 1);
  return c;
}

/* count(keep) * c_|S| with S = in \ keep, largest extent innermost. */
static double step_cost(LSet in, LSet keep, const int64_t *ext, int nl) {
  double nout = 1, s[MAXLAB];
  int m = 0;
  for (int l = 0; l < nl; l++) {
    if (ls_has(&keep, l))
      nout *= (double)ext[l];
    else if (ls_has(&in, l))
      sum_add(s, &m, (double)ext[l]);
  }
  return nout * sum_cost(s, m);
}

/* Appends the steps of the best split tree of S to steps; returns the node id. */
static int dp_steps(int S, const int *split, int n, int (*steps)[2], int *nsteps) {
  if (!(S & (S - 1))) {
    int i = 0;
    while (!((S >> i) & 1))
      i++;
    return i;
  }
  int S1 = split[S], S2 = S ^ S1;
  if ((S1 & -S1) > (S2 & -S2)) {                   /* the part with the first operand first */
    S1 = S2;
    S2 = S ^ S1;
  }
  int a = dp_steps(S1, split, n, steps, nsteps);
  int b = dp_steps(S2, split, n, steps, nsteps);
  steps[*nsteps][0] = a;
  steps[*nsteps][1] = b;
  return n + (*nsteps)++;
}

/* Elements of the temporaries of S's split tree, S's own result included unless
 * S is the root (R-LIFT-6.1). */
static double temp_elems(int S, int root, const int *split, const LSet *keep, const int64_t *ext, int nl) {
  if (!(S & (S - 1)))
    return 0;
  double n = 0;
  if (S != root) {
    n = 1;
    for (int l = 0; l < nl; l++)
      if (ls_has(&keep[S], l))
        n *= (double)ext[l];
  }
  return n + temp_elems(split[S], root, split, keep, ext, nl) + temp_elems(S ^ split[S], root, split, keep, ext, nl);
}

/* Exact order by dynamic programming over subsets (n <= EXACT_MAX). */
static void plan_dp(Lifter *L, int n, const Node *nodes, LSet outset, const int64_t *ext, int nl,
                    int (*steps)[2], int *nsteps) {
  int N = 1 << n;
  LSet *lab = scr(L, (size_t)N, sizeof *lab), *keep = scr(L, (size_t)N, sizeof *keep);
  double *cost = scr(L, (size_t)N, sizeof *cost);
  int *split = scr(L, (size_t)N, sizeof *split);
  for (int S = 1; S < N; S++) {
    int i = 0;
    while (!((S >> i) & 1))
      i++;
    lab[S] = ls_or(lab[S & (S - 1)], nodes[i].set);
  }
  for (int S = 1; S < N; S++)
    keep[S] = ls_and(lab[S], ls_or(lab[(N - 1) & ~S], outset));
  for (int S = 1; S < N; S++) {
    if (!(S & (S - 1)))
      continue;
    cost[S] = -1;
    for (int S1 = (S - 1) & S; S1; S1 = (S1 - 1) & S) {
      int S2 = S ^ S1;
      if (S1 < S2)
        continue;
      double c = cost[S1] + cost[S2] + step_cost(ls_or(keep[S1], keep[S2]), keep[S], ext, nl);
      if (cost[S] < 0 || c < cost[S]) {
        cost[S] = c;
        split[S] = S1;
      }
    }
  }
  /* the last step: among splits of the whole set within 1 % of the cheapest,
   * the one whose last step costs most, if more than 1.01 x the cheapest's (R-LIFT-6),
   * unless the cheapest plan's temporaries fit in the L2 (R-LIFT-6.1) */
  int S = N - 1, pick = split[S];
  if (n > 2 && temp_elems(S, S, split, keep, ext, nl) > (double)(lp_l2_bytes() / 8)) {
    double last = step_cost(ls_or(keep[pick], keep[S ^ pick]), keep[S], ext, nl), most = last;
    for (int S1 = (S - 1) & S; S1; S1 = (S1 - 1) & S) {
      int S2 = S ^ S1;
      double r = step_cost(ls_or(keep[S1], keep[S2]), keep[S], ext, nl);
      if (S1 > S2 && cost[S1] + cost[S2] + r <= cost[S] * (1 + NEAR) && r > most) {
        most = r;
        pick = S1;
      }
    }
    if (most > last * (1 + NEAR))
      split[S] = pick;
  }
  *nsteps = 0;
  dp_steps(N - 1, split, n, steps, nsteps);
}

/* The step combining label lists a and b (R-LIFT-6): cnt[l] counts the
 * remaining operands holding l, plus one if l is an output label. Fills keep
 * (the result's labels) and returns the cost; *size is count(keep). */
static double greedy_step(const int *a, int na, const int *b, int nb, const int *cnt, const int64_t *ext,
                          int *keep, int *nkeep, double *size) {
  double nout = 1, s[MAXLAB];
  int m = 0;
  *nkeep = 0;
  for (int pass = 0; pass < 2; pass++)
    for (int p = 0; p < (pass ? nb : na); p++) {
      int l = pass ? b[p] : a[p];
      bool in_a = false, in_b = false;
      for (int q = 0; q < na && !in_a; q++)
        in_a = a[q] == l;
      for (int q = 0; q < nb && !in_b; q++)
        in_b = b[q] == l;
      if (pass && in_a)                            /* counted in the first pass */
        continue;
      if (cnt[l] - in_a - in_b > 0) {
        keep[(*nkeep)++] = l;
        nout *= (double)ext[l];
      } else if (m < (int)(sizeof s / sizeof *s))
        sum_add(s, &m, (double)ext[l]);
    }
  *size = nout;
  return nout * sum_cost(s, m);
}

/* Greedy order (n > EXACT_MAX): the cheapest step among pairs sharing a label
 * (ties: smaller result, then lower index); without such a pair, the cheapest
 * outer product. Label counts are kept incrementally. */
static void plan_greedy(Lifter *L, int n, const Node *nodes, LSet outset, const int64_t *ext, int nl,
                        int (*steps)[2], int *nsteps) {
  int **lab = scr(L, (size_t)(2 * n), sizeof *lab), *nlab = scr(L, (size_t)(2 * n), sizeof *nlab);
  LSet *set = scr(L, (size_t)(2 * n), sizeof *set);
  int *alive = scr(L, (size_t)n, sizeof *alive), na = n;
  int *cnt = scr(L, (size_t)nl, sizeof *cnt), *keep = scr(L, (size_t)nl, sizeof *keep);
  for (int l = 0; l < nl; l++)
    cnt[l] = ls_has(&outset, l);
  for (int i = 0; i < n; i++) {
    lab[i] = nodes[i].lab;
    nlab[i] = nodes[i].n;
    set[i] = nodes[i].set;
    alive[i] = i;
    for (int p = 0; p < nodes[i].n; p++)
      cnt[nodes[i].lab[p]]++;
  }
  *nsteps = 0;
  while (na > 1) {
    int bi = -1, bj = -1;
    bool bshare = false;
    double bcost = 0, bsize = 0;
    for (int i = 0; i < na; i++)
      for (int j = i + 1; j < na; j++) {
        int x = alive[i], y = alive[j], nk;
        bool share = !ls_empty(ls_and(set[x], set[y]));
        if (bshare && !share)
          continue;
        double size, c = greedy_step(lab[x], nlab[x], lab[y], nlab[y], cnt, ext, keep, &nk, &size);
        if (bi < 0 || (share && !bshare) || c < bcost || (c == bcost && size < bsize)) {
          bi = i, bj = j, bshare = share, bcost = c, bsize = size;
        }
      }
    int x = alive[bi], y = alive[bj], id = n + *nsteps, nk;
    double size;
    greedy_step(lab[x], nlab[x], lab[y], nlab[y], cnt, ext, keep, &nk, &size);
    for (int p = 0; p < nlab[x]; p++)
      cnt[lab[x][p]]--;
    for (int p = 0; p < nlab[y]; p++)
      cnt[lab[y][p]]--;
    lab[id] = lab_copy(L, keep, nk);
    nlab[id] = nk;
    set[id] = ls_of(keep, nk);
    for (int p = 0; p < nk; p++)
      cnt[keep[p]]++;
    steps[*nsteps][0] = x;
    steps[*nsteps][1] = y;
    (*nsteps)++;
    alive[bi] = id;
    alive[bj] = alive[--na];
  }
}

/* ----------------------------------------------------------------- emission */

static Expr *lift_expr(Lifter *L, const Expr *e, bool root);

/* A pairwise step on X and Y (R-LIFT-7). cur receives the result labels. */
static Expr *pair_expr(Lifter *L, const Node *X, const Node *Y, LSet sum, const int64_t *ext, const int *target,
                       int *cur, int *n, int *nswaps, bool dry) {
  Expr *e = NULL;
  bool same = X->n == Y->n && !memcmp(X->lab, Y->lab, (size_t)X->n * sizeof *X->lab) &&
              ls_empty(ls_and(sum, X->set));
  if (X->n == 0 || Y->n == 0 || same) {            /* scalar left, or Hadamard */
    const Node *s = Y->n == 0 && X->n != 0 ? Y : X, *t = s == X ? Y : X;
    *n = t->n;
    mcopy(cur, t->lab, (size_t)t->n * sizeof *cur);
    if (!dry)
      e = mk(L, EX_MUL, s->e, t->e, 0, 0, t->e->ty);
  } else {
    *n = X->n + Y->n;
    mcopy(cur, X->lab, (size_t)X->n * sizeof *cur);
    mcopy(cur + X->n, Y->lab, (size_t)Y->n * sizeof *cur);
    if (!dry)
      e = mk(L, EX_PROD, X->e, Y->e, 0, 0, ty_labels(L, cur, *n, ext));
  }
  return build(L, e, cur, n, sum, ext, target, nswaps, dry);
}

/* R-LIFT-13: the layout of the temporary x whose consumer has the other
 * operand sib and the result labels parent[0..np-1]: parent's last label goes
 * last if x has it; the labels x shares with sib take their own positions in
 * sib's order; the others keep their order. */
static int *temp_layout(Lifter *L, const Node *x, const Node *sib, const int *parent, int np) {
  int last = np > 0 && ls_has(&x->set, parent[np - 1]) ? parent[np - 1] : -1;
  int *w = scr(L, (size_t)x->n, sizeof *w), m = 0;
  for (int p = 0; p < x->n; p++)
    if (x->lab[p] != last)
      w[m++] = x->lab[p];
  if (last >= 0)
    w[m++] = last;
  for (int p = 0, q = 0; p < m; p++) {             /* shared labels in sib's order */
    if (w[p] == last || !ls_has(&sib->set, w[p]))
      continue;
    while (sib->lab[q] == last || !ls_has(&x->set, sib->lab[q]))
      q++;
    w[p] = sib->lab[q++];
  }
  return w;
}

/* Emits one einsum term (R-LIFT-4..7). With root the last step is returned as
 * an expression (the statement's right-hand side); otherwise a multi-operand
 * term ends in a temporary in output order and a read of it is returned. */
static Expr *emit_term(Lifter *L, const Term *t, const int *out, int nout, bool root) {
  /* local labels */
  int nl = 0, *canon = scr(L, MAXLAB, sizeof *canon);
  int64_t *ext = scr(L, MAXLAB, sizeof *ext);
  int *outl = scr(L, (size_t)nout, sizeof *outl);
  Node *nodes = scr(L, (size_t)(2 * t->nops), sizeof *nodes);
  int total = nout;
  for (int i = 0; i < t->nops; i++)
    total += t->ops[i].n;
  int *all = scr(L, (size_t)total, sizeof *all), *loc = scr(L, (size_t)total, sizeof *loc);
  for (int i = 0, m = 0; i <= t->nops; i++) {
    int n = i < t->nops ? t->ops[i].n : nout;
    const int *lab = i < t->nops ? t->ops[i].lab : out;
    for (int p = 0; p < n; p++)
      all[m++] = lab_find(L, lab[p]);
  }
  for (int m = 0; m < total; m++) {
    int j = 0;
    while (j < nl && canon[j] != all[m])
      j++;
    if (j == nl) {
      if (nl == MAXLAB) {
        L->failed = true;
        return NULL;
      }
      canon[nl] = all[m];
      ext[nl++] = L->ext[all[m]];
    }
    loc[m] = j;
  }
  mcopy(outl, loc + total - nout, (size_t)nout * sizeof *outl);
  LSet outset = ls_of(outl, nout);

  /* leaves (R-LIFT-4): lift, then apply the projections of fixed labels */
  for (int i = 0, m = 0; i < t->nops; i++) {
    const Op *op = &t->ops[i];
    Node *x = &nodes[i];
    x->e = lift_expr(L, op->leaf, false);
    if (!x->e || L->failed)
      return NULL;
    x->lab = scr(L, (size_t)op->n, sizeof *x->lab);
    x->n = 0;
    for (int p = 0; p < op->n; p++, m++) {
      int l = loc[m];
      if (L->fix[canon[l]]) {
        Type ty = ty_make(L, x->e->ty.rank - 1, NULL);
        for (int d = 0, c = 0; d < x->e->ty.rank; d++)
          if (d != x->n)
            ty.dims[c++] = x->e->ty.dims[d];
        x->e = mk(L, EX_PROJ, x->e, NULL, x->n + 1, L->fix[canon[l]], ty);
      } else {
        x->lab[x->n++] = l;
      }
    }
    x->set = ls_of(x->lab, x->n);
  }

  if (t->nops == 1) {                              /* one operand: inline */
    Node *x = &nodes[0];
    return build(L, x->e, x->lab, &x->n, ls_minus(x->set, outset), ext, outl, NULL, false);
  }

  /* R-LIFT-5: local diagonals and sums, materialized leaves */
  for (int i = 0; i < t->nops; i++) {
    Node *x = &nodes[i];
    LSet needed = outset;
    for (int j = 0; j < t->nops; j++)
      if (j != i)
        needed = ls_or(needed, nodes[j].set);
    LSet sum = ls_minus(x->set, needed);
    bool repeated = false;
    for (int p = 0; p < x->n; p++)
      repeated |= occurrences(x->lab, x->n, x->lab[p]) > 1;
    if (x->e->kind == EX_VAR && !repeated && ls_empty(sum))
      continue;
    x->e = temp(L, build(L, x->e, x->lab, &x->n, sum, ext, NULL, NULL, false));
    if (L->failed)
      return NULL;
    x->set = ls_of(x->lab, x->n);
  }

  /* R-LIFT-6: the order */
  int (*steps)[2] = scr(L, (size_t)t->nops, sizeof *steps), nsteps = 0;
  if (t->nops <= EXACT_MAX)
    plan_dp(L, t->nops, nodes, outset, ext, nl, steps, &nsteps);
  else
    plan_greedy(L, t->nops, nodes, outset, ext, nl, steps, &nsteps);

  /* R-LIFT-7: one statement per step */
  bool *alive = scr(L, (size_t)(2 * t->nops), sizeof *alive);
  for (int i = 0; i < t->nops; i++)
    alive[i] = true;
  int *cur = scr(L, (size_t)(total + 1), sizeof *cur);
  LSet *sums = scr(L, (size_t)nsteps, sizeof *sums);
  for (int s = 0; s < nsteps; s++) {               /* the summed labels and natural result labels */
    int a = steps[s][0], b = steps[s][1], id = t->nops + s, n;
    LSet needed = outset;
    for (int k = 0; k < id; k++)
      if (alive[k] && k != a && k != b)
        needed = ls_or(needed, nodes[k].set);
    sums[s] = ls_minus(ls_or(nodes[a].set, nodes[b].set), needed);
    pair_expr(L, &nodes[a], &nodes[b], sums[s], ext, NULL, cur, &n, NULL, true);
    alive[a] = alive[b] = false;
    alive[id] = true;
    nodes[id].n = n;
    nodes[id].lab = lab_copy(L, cur, n);
    nodes[id].set = ls_of(cur, n);
  }
  int **want = scr(L, (size_t)nsteps, sizeof *want);  /* R-LIFT-13: each temporary's layout */
  if (nsteps)
    want[nsteps - 1] = outl;
  for (int s = nsteps - 2; s >= 0; s--) {
    int id = t->nops + s, p = s + 1;
    while (steps[p][0] != id && steps[p][1] != id)
      p++;
    int sib = steps[p][0] == id ? steps[p][1] : steps[p][0];
    want[s] = temp_layout(L, &nodes[id], &nodes[sib], want[p], nodes[t->nops + p].n);
  }
  for (int i = 0; i < 2 * t->nops; i++)
    alive[i] = i < t->nops;
  for (int s = 0; s < nsteps; s++) {
    int a = steps[s][0], b = steps[s][1], id = t->nops + s;
    bool last = s == nsteps - 1;
    LSet sum = sums[s];
    if (last) {                                    /* the order needing fewer swaps */
      int n, sw_ab = 0, sw_ba = 0;
      pair_expr(L, &nodes[a], &nodes[b], sum, ext, outl, cur, &n, &sw_ab, true);
      pair_expr(L, &nodes[b], &nodes[a], sum, ext, outl, cur, &n, &sw_ba, true);
      if (sw_ba < sw_ab) {
        int x = a;
        a = b;
        b = x;
      }
    }
    Node *r = &nodes[id];
    int n;
    Expr *e = pair_expr(L, &nodes[a], &nodes[b], sum, ext, want[s], cur, &n, NULL, false);
    alive[a] = alive[b] = false;
    alive[id] = true;
    r->n = n;
    r->lab = lab_copy(L, cur, n);
    r->set = ls_of(cur, n);
    if (last && root)
      return e;
    r->e = temp(L, e);
    if (L->failed)
      return NULL;
  }
  return nodes[t->nops + nsteps - 1].e;
}

/* Extracts e (distributing add/sub if dist) and emits it (R-LIFT-3, R-LIFT-8). */
static Expr *plan_emit(Lifter *L, const Expr *e, bool dist, bool root) {
  Ein E;
  if (!extract(L, e, dist, &E)) {
    L->failed = true;
    return NULL;
  }
  if (E.nt == 1)
    return emit_term(L, &E.t[0], E.out, E.n, root);
  Expr *acc = NULL;
  for (int i = 0; i < E.nt; i++) {
    Expr *x = emit_term(L, &E.t[i], E.out, E.n, false);
    if (!x || L->failed)
      return NULL;
    if (!acc && E.t[i].sign < 0)                   /* cannot happen: the first term is positive */
      teil_unreachable();
    acc = acc ? mk(L, E.t[i].sign > 0 ? EX_ADD : EX_SUB, acc, x, 0, 0, x->ty) : x;
  }
  return acc;
}

/* FLOPs of the statements emitted since m plus one evaluation of r over e's type. */
static double measure(const Lifter *L, const Mark *m, const Expr *r, const Expr *e) {
  double f = dcount(e->ty) * ecost(r);
  for (int i = m->nstmts; i < L->out->nstmts; i++)
    f += stmt_cost(L->out, &L->out->stmts[i]);
  return f;
}

/* An einsum region: plan F (add/sub as leaves) and, where it may help, plan D
 * (add/sub distributed); the cheaper one stays emitted (R-LIFT-8). F is
 * emitted once and kept aside while D is tried. Every D attempt costs one unit
 * of the statement's budget, which bounds the re-emission of nested regions. */
static Expr *lift_einsum(Lifter *L, const Expr *e, bool root) {
  Mark m = mark(L);
  Expr *rf = plan_emit(L, e, false, root);
  if (!rf || L->failed || L->budget <= 0 || !has_dist_add(e))
    return rf;
  L->budget--;
  double cf = measure(L, &m, rf, e);
  Mark mf = mark(L);
  int ns = mf.nstmts - m.nstmts, nt = mf.ntensors - m.ntensors;
  Stmt *ss = scr(L, (size_t)ns, sizeof *ss);
  Tensor *ts = scr(L, (size_t)nt, sizeof *ts);
  mcopy(ss, L->out->stmts + m.nstmts, (size_t)ns * sizeof *ss);
  mcopy(ts, L->out->tensors + m.ntensors, (size_t)nt * sizeof *ts);
  restore(L, &m);
  Expr *rd = plan_emit(L, e, true, root);
  if (rd && !L->failed && measure(L, &m, rd, e) < cf)
    return rd;
  L->failed = false;                               /* D failing is not an error */
  restore(L, &m);
  for (int i = 0; i < nt; i++)                     /* F again, as it was */
    *prog_add_tensor(L->out) = ts[i];
  for (int i = 0; i < ns; i++)
    *prog_add_stmt(L->out) = ss[i];
  L->tempno = mf.tempno;
  return rf;
}

static Expr *lift_expr(Lifter *L, const Expr *e, bool root) {
  switch (e->kind) {
  case EX_VAR:
    return mk_var(L, e->tensor);
  case EX_ADD:
  case EX_SUB:
  case EX_DIV: {
    Expr *a = lift_expr(L, e->a, false);
    Expr *b = a && !L->failed ? lift_expr(L, e->b, false) : NULL;
    return b && !L->failed ? mk(L, e->kind, a, b, 0, 0, ty_make(L, e->ty.rank, e->ty.dims)) : NULL;
  }
  case EX_EXPA: {
    Expr *a = lift_expr(L, e->a, false);
    return a && !L->failed ? mk(L, EX_EXPA, a, NULL, e->i, e->k, ty_make(L, e->ty.rank, e->ty.dims)) : NULL;
  }
  case EX_MUL:
  case EX_PROD:
  case EX_RED:
  case EX_CONTR:
  case EX_DIAG:
  case EX_TRANSP:
  case EX_PROJ:
    return lift_einsum(L, e, root);
  case EX_COUNT:
    break;
  }
  teil_unreachable();
}

/* ------------------------------------------------------ in place (R-LIFT-10) */

/* Whether e reads tensor t other than element-wise at the index it writes. */
static bool reads_shifted(const Expr *e, int t, bool elementwise) {
  if (e->kind == EX_VAR)
    return e->tensor == t && !elementwise;
  bool ew = elementwise && (e->kind == EX_ADD || e->kind == EX_SUB || e->kind == EX_MUL || e->kind == EX_DIV);
  return reads_shifted(e->a, t, ew) || (e->b && reads_shifted(e->b, t, ew));
}

static bool reads_tensor(const Expr *e, int t) {
  if (e->kind == EX_VAR)
    return e->tensor == t;
  return reads_tensor(e->a, t) || (e->b && reads_tensor(e->b, t));
}

/* Checks a group: statements m.nstmts .. nstmts-2 assign fresh temporaries,
 * each once and before any read of it; the last assigns target and reads it
 * only element-wise. Returns NULL or a description of the violation. */
static const char *check_group(const Lifter *L, const Mark *m, int target) {
  const Program *p = L->out;
  int last = p->nstmts - 1;
  if (p->stmts[last].target != target || reads_shifted(p->stmts[last].rhs, target, true))
    return "the last statement of a group must assign the target, reading it only element-wise";
  for (int i = m->nstmts; i < last; i++) {
    int t = p->stmts[i].target;
    if (t < m->ntensors)
      return "a group assigns a tensor that is not one of its temporaries";
    for (int j = m->nstmts; j <= i; j++)
      if (reads_tensor(p->stmts[j].rhs, t) || (j < i && p->stmts[j].target == t))
        return "a temporary is read before it is assigned, or assigned twice";
  }
  return NULL;
}

/* ------------------------------------------------------------------ driver */

TeilProgram *lift_program(const TeilProgram *tin, LiftStats *st, char *err, size_t errlen) {
  const Program *in = &tin->p;
  if (!in->checked || in->diags.nerrors) {
    snprintf(err, errlen, "lift: the program must be checked and free of errors");
    return NULL;
  }
  TeilProgram *tout = calloc(1, sizeof *tout);
  if (!tout) {
    snprintf(err, errlen, "lift: out of memory");
    return NULL;
  }
  Program *out = &tout->p;
  out->lang = TEIL_LANG_TEIL;
  out->src = arena_strndup(&out->arena, in->src ? in->src : "", in->src ? strlen(in->src) : 0);
  out->diags.arena = &out->arena;
  out->diags.file = arena_strndup(&out->arena, in->diags.file ? in->diags.file : "<lifted>",
                                  strlen(in->diags.file ? in->diags.file : "<lifted>"));
  out->diags.src = out->src;
  out->parsed = true;
  out->any_qualifier = true;                       /* R-LIFT-1: effective qualifiers kept */
  for (int t = 0; t < in->ntensors; t++) {
    const Tensor *x = &in->tensors[t];
    Tensor *y = prog_add_tensor(out);
    y->name = arena_strndup(&out->arena, x->name, strlen(x->name));
    y->loc = x->loc;
    y->qual = x->qual;
    y->declared_qual = x->qual != 0;
    y->ty.rank = x->ty.rank;
    y->ty.dims = arena_alloc(&out->arena, (size_t)(x->ty.rank ? x->ty.rank : 1) * sizeof(int64_t));
    if (x->ty.rank)
      mcopy(y->ty.dims, x->ty.dims, (size_t)x->ty.rank * sizeof(int64_t));
  }

  Lifter L = {0};
  L.in = in;
  L.out = out;
  L.nuser = in->ntensors;
  LiftStats stats = {0};
  const char *bug = NULL;
  for (int i = 0; i < in->nstmts && !bug; i++) {
    const Stmt *s = &in->stmts[i];
    L.loc = s->loc;
    L.failed = false;
    L.budget = DBUDGET;
    Mark m = mark(&L);
    Expr *r = lift_expr(&L, s->rhs, true);
    bool keep = false;
    if (r && !L.failed) {
      if (reads_shifted(r, s->target, true))       /* R-LIFT-10 */
        r = temp(&L, r);
      if (!L.failed) {
        Stmt *d = prog_add_stmt(out);
        d->name = out->tensors[s->target].name;
        d->loc = s->loc;
        d->len = s->len;
        d->rhs = r;
        d->target = s->target;
        double before = stmt_cost(in, s), after = 0;
        for (int k = m.nstmts; k < out->nstmts; k++)
          after += stmt_cost(out, &out->stmts[k]);
        keep = after < before * (1 - 1e-12);       /* R-LIFT-11 */
      }
    }
    if (keep) {
      bug = check_group(&L, &m, s->target);
      stats.nlifted++;
      stats.ntemps += out->ntensors - m.ntensors;
    } else {
      restore(&L, &m);
      Stmt *d = prog_add_stmt(out);
      d->name = out->tensors[s->target].name;
      d->loc = s->loc;
      d->len = s->len;
      d->rhs = copy_expr(&L, s->rhs);
      d->target = s->target;
    }
    arena_free(&L.scr);
  }
  free(L.par);
  free(L.ext);
  free(L.fix);
  if (bug) {
    snprintf(err, errlen, "lift: internal error: %s", bug);
    teil_free(tout);
    return NULL;
  }
  if (teil_check(tout)) {                           /* R-LIFT-1: an error is a bug */
    const Diagnostic *g = out->diags.first;
    while (g && g->sev != SEV_ERROR)
      g = g->next;
    snprintf(err, errlen, "lift: internal error: the lifted program does not type-check: %s",
             g ? g->msg : "(no message)");
    teil_free(tout);
    return NULL;
  }
  stats.flops_before = lift_flops(tin);
  stats.flops_after = lift_flops(tout);
  if (st)
    *st = stats;
  return tout;
}
