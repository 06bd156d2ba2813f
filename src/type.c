/*
 * type.c - the type checker (spec/typing.md; TeIL Fig. 8, report Fig. 7-9).
 * It consumes a parsed Program, fills in the type of every expression node,
 * decides OK-Stmt for every statement, and reports each violated rule once, at
 * the operator (or name) that violates it, with the shapes in words. An
 * ill-typed sub-expression gets rank -1 and silences the rules above it, so one
 * mistake gives one error. Typing is syntax-directed, so this function is the
 * computable type function of Lemma 4.1 (R-TY-19).
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

bool ty_equal(Type a, Type b) {
  if (a.rank != b.rank)
    return false;
  for (int i = 0; i < a.rank; i++)
    if (a.dims[i] != b.dims[i])
      return false;
  return true;
}

/* Element count, saturated at UINT64_MAX (R-TY-17 compares it with TEIL_MAX_ELEMS). */
uint64_t ty_count(Type t) {
  uint64_t n = 1;
  for (int i = 0; i < t.rank; i++) {
    uint64_t d = (uint64_t)t.dims[i];
    if (d && n > UINT64_MAX / d)
      return UINT64_MAX;
    n *= d;
  }
  return n;
}

void ty_str(Type t, Buf *b) {
  buf_printf(b, "[");
  for (int i = 0; i < t.rank; i++)
    buf_printf(b, "%s%lld", i ? ", " : "", (long long)t.dims[i]);
  buf_printf(b, "]");
}

const char *ty_cstr(Arena *a, Type t) {
  Buf b = {0};
  ty_str(t, &b);
  char *s = arena_strndup(a, b.s, b.len);
  buf_free(&b);
  return s;
}

static Type ty_new(Program *p, int rank) {
  Type t = {rank, arena_alloc(&p->arena, (size_t)(rank ? rank : 1) * sizeof(int64_t))};
  return t;
}

/* The operator as the user wrote it, for messages: "contr 1 3" or "'.[1 3]'". */
static const char *label(Program *p, const Expr *e) {
  char buf[96];
  if (p->lang == TEIL_LANG_MODEL) {
    switch (e->kind) {
    case EX_CONTR: snprintf(buf, sizeof buf, ".[%lld %lld]", (long long)e->i, (long long)e->k); break;
    case EX_TRANSP: snprintf(buf, sizeof buf, "^[%lld %lld]", (long long)e->i, (long long)e->k); break;
    case EX_ADD: return "+";
    case EX_SUB: return "-";
    case EX_MUL: return "*";
    case EX_DIV: return "/";
    case EX_PROD: return "#";
    case EX_VAR: case EX_RED: case EX_DIAG: case EX_EXPA: case EX_PROJ: case EX_COUNT:
      teil_unreachable();
    }
  } else if (ex_ints[e->kind] == 2) {
    snprintf(buf, sizeof buf, "%s %lld %lld", ex_names[e->kind], (long long)e->i, (long long)e->k);
  } else if (ex_ints[e->kind] == 1) {
    snprintf(buf, sizeof buf, "%s %lld", ex_names[e->kind], (long long)e->i);
  } else {
    return ex_names[e->kind];
  }
  return arena_strndup(&p->arena, buf, strlen(buf));
}

#define TY(t) ty_cstr(&p->arena, (t))

/* The typing rule of each operator (spec/typing.md), for diagnostics. */
static const char *const rule_of[EX_COUNT] = {
    [EX_VAR] = "R-TY-2",     [EX_ADD] = "R-TY-4",   [EX_SUB] = "R-TY-4",  [EX_MUL] = "R-TY-5",
    [EX_DIV] = "R-TY-6",     [EX_PROD] = "R-TY-7",  [EX_RED] = "R-TY-8",  [EX_TRANSP] = "R-TY-9",
    [EX_DIAG] = "R-TY-10",   [EX_EXPA] = "R-TY-11", [EX_PROJ] = "R-TY-12", [EX_CONTR] = "R-TY-13",
};
#define TAG(cat, e) diag_tag(&p->diags, (cat), rule_of[(e)->kind])

/* Positions are 1-based and must lie in 1..max (R-TY-8..13; max = rank + 1 for
 * expa). The error points at the literal. */
static bool check_pos(Program *p, const Expr *e, int64_t pos, Loc at, int max) {
  if (pos >= 1 && pos <= max)
    return true;
  const char *op = label(p, e);
  diag_error(&p->diags, at, 1, "position %lld out of range in %s", (long long)pos, op);
  if (e->a->ty.rank == 0 && e->kind != EX_EXPA)
    diag_note(&p->diags, "%s: the operand is a scalar ([]) and has no positions", op);
  else
    diag_note(&p->diags, "%s: the operand type %s has rank %d; positions must be in 1..%d", op, TY(e->a->ty),
              e->a->ty.rank, max);
  TAG("position-out-of-range", e);
  return false;
}

/* Both positions of transp, diag and contr, then their difference (R-TY-9). */
static bool check_pair(Program *p, const Expr *e) {
  int rank = e->a->ty.rank;
  bool ok = check_pos(p, e, e->i, e->iloc, rank);
  ok = check_pos(p, e, e->k, e->kloc, rank) && ok;
  if (!ok)
    return false;
  if (e->i != e->k)
    return true;
  diag_error(&p->diags, e->kloc, 1, "equal positions in %s", label(p, e));
  diag_note(&p->diags, "%s: the two positions must differ", label(p, e));
  TAG("equal-positions", e);
  return false;
}

/* R-TY-17(c): every type's element count stays within 2^59. */
static bool check_size(Program *p, const Expr *e, Type t) {
  if (ty_count(t) <= TEIL_MAX_ELEMS)
    return true;
  diag_error(&p->diags, e->loc, e->len, "type too large");
  diag_note(&p->diags, "%s has more than 576460752303423488 (2^59) elements", TY(t));
  diag_tag(&p->diags, "too-large", "R-TY-17");
  return false;
}

/* Copies t without the dimensions at 0-based positions x and y (y may be -1). */
static Type drop(Program *p, Type t, int x, int y) {
  Type r = ty_new(p, t.rank - 1 - (y >= 0));
  for (int i = 0, n = 0; i < t.rank; i++)
    if (i != x && i != y)
      r.dims[n++] = t.dims[i];
  return r;
}

static bool ty_expr(Program *p, Expr *e);

/* add, sub, mul, div (R-TY-4, R-TY-5, R-TY-6). */
static bool ty_elementwise(Program *p, Expr *e) {
  Type a = e->a->ty, b = e->b->ty;
  if (e->kind == EX_MUL && a.rank == 0) {          /* T-SMul: scalar on the left */
    e->scalar_op = true;
    e->ty = b;
    return true;
  }
  if (ty_equal(a, b)) {                            /* T-Add, T-Sub, T-Mul, T-Div (t-elem) */
    e->ty = a;
    return true;
  }
  if (e->kind == EX_DIV && b.rank == 0) {          /* T-SDiv: scalar on the right */
    e->scalar_op = true;
    e->ty = a;
    return true;
  }
  const char *op = label(p, e);
  diag_error(&p->diags, e->loc, e->len, "type mismatch in %s", op);
  TAG("type-mismatch", e);
  if (e->kind == EX_MUL)
    diag_note(&p->diags, "%s: operand types %s and %s differ and the left operand is not a scalar", op, TY(a), TY(b));
  else if (e->kind == EX_DIV)
    diag_note(&p->diags, "%s: operand types %s and %s differ and the right operand is not a scalar", op, TY(a), TY(b));
  else
    diag_note(&p->diags, "%s: operand types %s and %s differ", op, TY(a), TY(b));
  return false;
}

/* diag and contr: positions in range, distinct, and of equal extent (R-TY-10, R-TY-13). */
static bool ty_diagonal(Program *p, Expr *e) {
  Type a = e->a->ty;
  if (!check_pair(p, e))
    return false;
  int64_t di = a.dims[e->i - 1], dk = a.dims[e->k - 1];
  if (di != dk) {
    const char *op = label(p, e);
    diag_error(&p->diags, e->loc, e->len, "type mismatch in %s", op);
    diag_note(&p->diags, "%s: dimension %lld has extent %lld but dimension %lld has extent %lld (operand type %s)",
              op, (long long)e->i, (long long)di, (long long)e->k, (long long)dk, TY(a));
    TAG("type-mismatch", e);
    return false;
  }
  int lo = (int)(e->i < e->k ? e->i : e->k) - 1, hi = (int)(e->i < e->k ? e->k : e->i) - 1;
  e->ty = e->kind == EX_DIAG ? drop(p, a, hi, -1) : drop(p, a, lo, hi);
  return true;
}

static bool ty_expr(Program *p, Expr *e) {
  if (e->kind != EX_VAR) {
    bool ok = ty_expr(p, e->a);
    if (e->b)
      ok = ty_expr(p, e->b) && ok;
    if (!ok || e->bad_literal)                      /* err propagates silently */
      return false;
  }
  Type a = e->a ? e->a->ty : (Type){0, NULL};
  switch (e->kind) {
  case EX_VAR:                                      /* R-TY-2 (T-Var) */
    e->tensor = prog_find(p, e->name);
    if (e->tensor < 0) {
      diag_error(&p->diags, e->loc, e->len, "use of undeclared tensor '%s'", e->name);
      TAG("undeclared", e);
      return false;
    }
    e->ty = p->tensors[e->tensor].ty;
    return e->ty.rank >= 0;
  case EX_ADD:
  case EX_SUB:
  case EX_MUL:
  case EX_DIV:
    return ty_elementwise(p, e);
  case EX_PROD: {                                   /* R-TY-7 (T-Prod) */
    Type b = e->b->ty;
    Type r = ty_new(p, a.rank + b.rank);
    memcpy(r.dims, a.dims, (size_t)a.rank * sizeof *r.dims);
    memcpy(r.dims + a.rank, b.dims, (size_t)b.rank * sizeof *r.dims);
    if (!check_size(p, e, r))
      return false;
    e->ty = r;
    return true;
  }
  case EX_RED:                                      /* R-TY-8 (T-Red+) */
    if (!check_pos(p, e, e->i, e->iloc, a.rank))
      return false;
    e->ty = drop(p, a, (int)e->i - 1, -1);
    return true;
  case EX_TRANSP: {                                 /* R-TY-9 (T-Transp) */
    if (!check_pair(p, e))
      return false;
    Type r = ty_new(p, a.rank);
    memcpy(r.dims, a.dims, (size_t)a.rank * sizeof *r.dims);
    r.dims[e->i - 1] = a.dims[e->k - 1];
    r.dims[e->k - 1] = a.dims[e->i - 1];
    e->ty = r;
    return true;
  }
  case EX_DIAG:                                     /* R-TY-10 (T-Diag) */
  case EX_CONTR:                                    /* R-TY-13 (t-contr, Eq. 6) */
    return ty_diagonal(p, e);
  case EX_EXPA: {                                   /* R-TY-11 (T-Expa) */
    if (!check_pos(p, e, e->i, e->iloc, a.rank + 1))
      return false;
    if (e->k < 1) {
      diag_error(&p->diags, e->kloc, 1, "extent must be at least 1");
      diag_note(&p->diags, "%s: the new dimension would have extent 0", label(p, e));
      diag_tag(&p->diags, "extent-zero", "R-TY-17");
      return false;
    }
    Type r = ty_new(p, a.rank + 1);
    for (int i = 0, n = 0; i <= a.rank; i++)
      r.dims[i] = i == e->i - 1 ? e->k : a.dims[n++];
    if (!check_size(p, e, r))
      return false;
    e->ty = r;
    return true;
  }
  case EX_PROJ:                                     /* R-TY-12 (T-Proj) */
    if (!check_pos(p, e, e->i, e->iloc, a.rank))
      return false;
    if (e->k < 1 || e->k > a.dims[e->i - 1]) {
      const char *op = label(p, e);
      diag_error(&p->diags, e->kloc, 1, "index %lld out of range in %s", (long long)e->k, op);
      diag_note(&p->diags, "%s: dimension %lld has extent %lld; the index must be in 1..%lld (operand type %s)", op,
                (long long)e->i, (long long)a.dims[e->i - 1], (long long)a.dims[e->i - 1], TY(a));
      TAG("index-out-of-range", e);
      return false;
    }
    e->ty = drop(p, a, (int)e->i - 1, -1);
    return true;
  case EX_COUNT:
    break;
  }
  teil_unreachable();
}

/* Numbers the nodes of a statement in preorder, for --print-types -v. */
static int number(Expr *e, int n) {
  e->id = n++;
  if (e->a)
    n = number(e->a, n);
  if (e->b)
    n = number(e->b, n);
  return n;
}

void ty_check(Program *p) {
  /* R-TY-17: declared types must have a representable size. */
  for (int t = 0; t < p->ntensors; t++) {
    Tensor *x = &p->tensors[t];
    if (x->ty.rank >= 0 && ty_count(x->ty) > TEIL_MAX_ELEMS) {
      diag_error(&p->diags, x->loc, (int)strlen(x->name), "type too large");
      diag_note(&p->diags, "%s has more than 576460752303423488 (2^59) elements", TY(x->ty));
      diag_tag(&p->diags, "too-large", "R-TY-17");
      x->ty.rank = -1;
    }
  }
  /* R-TY-18: with no qualifier anywhere, every tensor is input and output. */
  if (!p->any_qualifier)
    for (int t = 0; t < p->ntensors; t++)
      p->tensors[t].qual = Q_INPUT | Q_OUTPUT;

  int *count = xcalloc((size_t)p->ntensors + 1, sizeof *count);
  for (int i = 0; i < p->nstmts; i++) {
    Stmt *s = &p->stmts[i];
    number(s->rhs, 0);
    bool ok = ty_expr(p, s->rhs);
    /* R-TY-14 (OK-Stmt): the target is declared and has the right-hand side's type. */
    s->target = prog_find(p, s->name);
    if (s->target < 0) {
      diag_error(&p->diags, s->loc, s->len, "assignment to undeclared tensor '%s'", s->name);
      diag_tag(&p->diags, "assign-undeclared", "R-TY-14");
      continue;
    }
    s->nth = ++count[s->target];
    Tensor *x = &p->tensors[s->target];
    if (!ok || x->ty.rank < 0)
      continue;
    if (!ty_equal(x->ty, s->rhs->ty)) {
      diag_error(&p->diags, s->loc, s->len, "type mismatch in assignment to '%s'", s->name);
      diag_note(&p->diags, "'%s' has type %s but the right-hand side has type %s", s->name, TY(x->ty), TY(s->rhs->ty));
      diag_tag(&p->diags, "assign-mismatch", "R-TY-14");
      continue;
    }
    s->ok = true;
  }
  free(count);
  p->checked = true;
}
