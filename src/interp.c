/*
 * interp.c - the reference interpreter (spec/semantics.md, spec/padding.md).
 *
 * A configuration is (store, remaining statements); one step executes one
 * statement by St-Stmt / ev-stmt (R-EV-16): every element of the target's type
 * is evaluated by the denotational equations of TeIL Fig. 6 / report Fig. 12
 * on the OLD store, and only then is the target replaced. Nothing is
 * materialized inside an expression: an element of `prod A B` is computed by
 * walking the tree down to the two factors, exactly as the equations read.
 *
 * Values are a double plus a flag for • (R-EV-1); arithmetic is Def. 4
 * (R-EV-2). In a padded store (R-PAD-3) statements run over the rounded type,
 * sums run over rounded extents, and an expression evaluated at a position
 * outside its unpadded type is 0 (R-PAD-5).
 *
 * Before a statement runs, its expression tree is copied into Nodes that hold
 * what each equation needs: 0-based positions, the padded extents, the slot
 * of a variable, and a scratch buffer for the operand's index, which is safe
 * because a node is never active twice at once in a tree walk.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "storeprim.h"

typedef struct Val {
  double v;
  bool u;                     /* the undefined value • */
} Val;

typedef struct Node Node;
struct Node {
  ExprKind kind;
  int rank;
  const int64_t *dims;        /* unpadded type */
  int64_t *pdims;             /* rounded type [t] (R-PAD-1) */
  bool padded;                /* check R-PAD-5 at this node */
  Node *a, *b;
  int lo, hi;                 /* 0-based positions (see eval) */
  int64_t m;                  /* proj: 0-based slice index; expa: unused */
  bool scalar_op;             /* mul: scalar left; div: scalar right */
  int64_t *scratch;           /* the operand's index, rank of a (+ 0) */
  const Slot *slot;           /* EX_VAR */
};

static const Val UNDEF = {0, true};

/* R-EV-2 (Def. 4): • absorbs + - * /, and v/0 is •. */
static inline Val arith(ExprKind k, Val x, Val y) {
  if (x.u || y.u)
    return UNDEF;
  switch (k) {
  case EX_ADD: return (Val){x.v + y.v, false};
  case EX_SUB: return (Val){x.v - y.v, false};
  case EX_MUL: case EX_PROD: return (Val){x.v * y.v, false};
  case EX_DIV: return y.v == 0 ? UNDEF : (Val){x.v / y.v, false};
  case EX_VAR: case EX_RED: case EX_TRANSP: case EX_DIAG: case EX_EXPA: case EX_PROJ:
  case EX_CONTR: case EX_COUNT:
    break;
  }
  teil_unreachable();
}

static const int64_t NOINDEX[1] = {0};

/* Evaluates node n at the 0-based index j (n->rank entries). */
static Val eval(const Node *n, const int64_t *j) {
  /* R-PAD-5: outside the unpadded type, every expression is 0. */
  if (n->padded && !st_in_bounds(n->rank, j, n->dims))
    return (Val){0, false};
  int64_t *s = n->scratch;
  switch (n->kind) {
  case EX_VAR: {                                    /* R-EV-4: mu x [j] */
    const Slot *x = n->slot;
    Val r;
    r.u = st_read(x->v, x->undef, (size_t)st_offset(n->rank, j, x->pdims), &r.v);
    return r;
  }
  case EX_ADD:                                      /* R-EV-6 */
  case EX_SUB:
    return arith(n->kind, eval(n->a, j), eval(n->b, j));
  case EX_MUL:                                      /* R-EV-7: e0[] * e1[j] or e0[j] * e1[j] */
    if (n->scalar_op)
      return arith(EX_MUL, eval(n->a, NOINDEX), eval(n->b, j));
    return arith(EX_MUL, eval(n->a, j), eval(n->b, j));
  case EX_DIV:                                      /* R-EV-8: e0[j] / e1[] or e0[j] / e1[j] */
    if (n->scalar_op)
      return arith(EX_DIV, eval(n->a, j), eval(n->b, NOINDEX));
    return arith(EX_DIV, eval(n->a, j), eval(n->b, j));
  case EX_PROD: {                                   /* R-EV-9: e0[j0] * e1[j1], j = j0 ++ j1 */
    Val x = eval(n->a, j);
    if (x.u)
      return UNDEF;
    return arith(EX_MUL, x, eval(n->b, j + n->a->rank));
  }
  case EX_RED: {                                    /* R-EV-10: sum_m e[j with m at lo] */
    for (int d = 0, c = 0; d < n->a->rank; d++)
      if (d != n->lo)
        s[d] = j[c++];
    double sum = 0;
    for (int64_t m = 0; m < n->a->pdims[n->lo]; m++) {
      s[n->lo] = m;
      Val x = eval(n->a, s);
      if (x.u)
        return UNDEF;
      sum += x.v;
    }
    return (Val){sum, false};
  }
  case EX_TRANSP:                                   /* R-EV-11: swap j_lo and j_hi */
    memcpy(s, j, (size_t)n->rank * sizeof *s);
    s[n->lo] = j[n->hi];
    s[n->hi] = j[n->lo];
    return eval(n->a, s);
  case EX_DIAG:                                     /* R-EV-12: insert j_lo at hi */
    for (int d = 0, c = 0; d < n->a->rank; d++)
      s[d] = d == n->hi ? j[n->lo] : j[c++];
    return eval(n->a, s);
  case EX_EXPA:                                     /* R-EV-13: drop j_lo */
    for (int d = 0, c = 0; d < n->rank; d++)
      if (d != n->lo)
        s[c++] = j[d];
    return eval(n->a, s);
  case EX_PROJ:                                     /* R-EV-14: insert m at lo */
    for (int d = 0, c = 0; d < n->a->rank; d++)
      s[d] = d == n->lo ? n->m : j[c++];
    return eval(n->a, s);
  case EX_CONTR: {                                  /* R-EV-15: sum_m e[j with m at lo and hi] */
    for (int d = 0, c = 0; d < n->a->rank; d++)
      if (d != n->lo && d != n->hi)
        s[d] = j[c++];
    double sum = 0;
    for (int64_t m = 0; m < n->a->pdims[n->lo]; m++) {
      s[n->lo] = s[n->hi] = m;
      Val x = eval(n->a, s);
      if (x.u)
        return UNDEF;
      sum += x.v;
    }
    return (Val){sum, false};
  }
  case EX_COUNT:
    break;
  }
  teil_unreachable();
}

/* Copies e into a Node tree bound to store s. */
static Node *build(const TeilStore *s, const Expr *e) {
  Node *n = xcalloc(1, sizeof *n);
  n->kind = e->kind;
  n->rank = e->ty.rank;
  n->dims = e->ty.dims;
  n->pdims = xcalloc((size_t)n->rank + 1, sizeof *n->pdims);
  for (int d = 0; d < n->rank; d++)
    n->pdims[d] = st_round(e->ty.dims[d], s->pad);
  n->padded = s->pad > 1;
  n->scalar_op = e->scalar_op;
  if (e->kind == EX_VAR) {
    n->slot = &s->slot[e->tensor];
    return n;
  }
  n->a = build(s, e->a);
  if (e->b)
    n->b = build(s, e->b);
  /* Positions become 0-based; transp, diag and contr take them in either order
   * (DECISIONS 3-5), so lo < hi there. expa's and proj's second argument is an
   * extent or an index, not a position. */
  int i = (int)e->i - 1, k = (int)e->k - 1;
  bool pair = e->kind == EX_TRANSP || e->kind == EX_DIAG || e->kind == EX_CONTR;
  n->lo = pair && k < i ? k : i;
  n->hi = pair && k < i ? i : k;
  n->m = e->kind == EX_PROJ ? e->k - 1 : 0;
  n->scratch = xcalloc((size_t)n->a->rank + 1, sizeof *n->scratch);
  return n;
}

static void destroy(Node *n) {
  if (!n)
    return;
  destroy(n->a);
  destroy(n->b);
  free(n->pdims);
  free(n->scratch);
  free(n);
}

int teil_nstmts(const TeilProgram *tp) { return tp->p.nstmts; }

/* R-EV-16 (St-Stmt, ev-stmt; with padding ev-pad-stmt, R-PAD-3). */
int teil_step(const TeilProgram *tp, TeilStore *s, int i, char *err, size_t errlen) {
  const Program *p = &tp->p;
  if (s->p != p || !p->checked || p->diags.nerrors || i < 0 || i >= p->nstmts) {
    snprintf(err, errlen, "teil_step: no statement %d in a checked program with this store", i);
    return -1;
  }
  const Stmt *st = &p->stmts[i];
  Slot *x = &s->slot[st->target];
  Node *root = build(s, st->rhs);
  double *nv = xmalloc(x->count * sizeof *nv);
  unsigned char *nu = xmalloc(x->count);
  int64_t *j = xcalloc((size_t)x->rank + 1, sizeof *j);
  for (size_t off = 0;; off++) {                    /* all j <= [t], row-major */
    Val r = eval(root, j);
    st_write(nv, nu, off, r.v, r.u);
    int d = x->rank - 1;
    while (d >= 0 && ++j[d] == x->pdims[d])
      j[d--] = 0;
    if (d < 0)
      break;
  }
  free(j);
  destroy(root);
  free(x->v);
  free(x->undef);
  x->v = nv;                                        /* mu{x -> lambda k. r_k} */
  x->undef = nu;
  return 0;
}

/* A short fingerprint of a large tensor for --trace. */
static void digest(const TeilStore *s, int t, FILE *out) {
  const Slot *x = &s->slot[t];
  size_t n = 1, nu = 0;
  for (int d = 0; d < x->rank; d++)
    n *= (size_t)x->dims[d];
  double *v = xmalloc(n * sizeof *v);
  unsigned char *u = xmalloc(n);
  teil_store_get(s, t, v, u);
  double sum = 0, lo = INFINITY, hi = -INFINITY;
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++) {
    if (u[i]) {
      nu++;
      h = (h ^ 0xB7) * 1099511628211ull;
      continue;
    }
    sum += v[i];
    lo = v[i] < lo ? v[i] : lo;
    hi = v[i] > hi ? v[i] : hi;
    uint64_t bits;
    memcpy(&bits, &v[i], sizeof bits);
    h = (h ^ bits) * 1099511628211ull;
  }
  fprintf(out, "    %zu elements, %zu undefined, sum %.17g, min %.17g, max %.17g, hash %016llx\n", n, nu, sum, lo,
          hi, (unsigned long long)h);
  free(v);
  free(u);
}

void teil_print_step(const TeilProgram *tp, const TeilStore *s, int i, FILE *out) {
  const Program *p = &tp->p;
  const Stmt *st = &p->stmts[i];
  Buf b = {0};
  pr_expr(p, st->rhs, &b);
  fprintf(out, "step %d (line %d): %s = %s\n", i + 1, st->loc.line, st->name, b.s);
  buf_free(&b);
  if (ty_count(p->tensors[st->target].ty) <= 64) {
    fprintf(out, "    %s = ", st->name);
    teil_store_print(s, st->target, out);
  } else {
    digest(s, st->target, out);
  }
}

int teil_run(const TeilProgram *tp, TeilStore *s, FILE *trace, char *err, size_t errlen) {
  for (int i = 0; i < tp->p.nstmts; i++) {
    if (teil_step(tp, s, i, err, errlen))
      return -1;
    if (trace)
      teil_print_step(tp, s, i, trace);
  }
  return 0;
}
