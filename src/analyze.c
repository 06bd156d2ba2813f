/*
 * analyze.c - the static analyses of the report's Sec. 5 (spec/analyses.md).
 * They run on a checked Program and only add warnings:
 *   R-AN-2  a read of a tensor that may still be undefined: it is not an input
 *           and no earlier statement assigns it (its elements may be •);
 *   R-AN-3  a store that no output can observe: the tensor is assigned again
 *           before any read, or it is not an output and never read afterwards.
 * Programs are straight-line code, so both analyses are exact per statement.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Calls f on every variable occurrence in e, left to right. */
static void each_var(const Expr *e, void (*f)(const Expr *, void *), void *arg) {
  if (e->kind == EX_VAR) {
    f(e, arg);
    return;
  }
  each_var(e->a, f, arg);
  if (e->b)
    each_var(e->b, f, arg);
}

typedef struct {
  Program *p;
  bool *defined, *warned;
} UndefState;

static void check_read(const Expr *e, void *arg) {
  UndefState *st = arg;
  int t = e->tensor;
  if (t < 0 || st->defined[t] || st->warned[t])
    return;
  st->warned[t] = true;
  const Tensor *x = &st->p->tensors[t];
  diag_warning(&st->p->diags, e->loc, e->len, "'%s' may still be undefined here", x->name);
  diag_note(&st->p->diags, "'%s' is not an input and is not assigned before this statement", x->name);
  diag_tag(&st->p->diags, "maybe-undefined", "R-AN-2");
}

typedef struct {
  int t;
  bool found;
} ReadQuery;

static void find_read(const Expr *e, void *arg) {
  ReadQuery *q = arg;
  if (e->tensor == q->t)
    q->found = true;
}

static bool reads(const Stmt *s, int t) {
  ReadQuery q = {t, false};
  each_var(s->rhs, find_read, &q);
  return q.found;
}

void an_run(Program *p) {
  if (p->diags.nerrors)                          /* R-GR-7(f): only for files without errors */
    return;
  UndefState st = {p, xcalloc((size_t)p->ntensors + 1, 1), xcalloc((size_t)p->ntensors + 1, 1)};
  for (int t = 0; t < p->ntensors; t++)
    st.defined[t] = p->tensors[t].qual & Q_INPUT;
  for (int i = 0; i < p->nstmts; i++) {
    const Stmt *s = &p->stmts[i];
    memset(st.warned, 0, (size_t)p->ntensors);     /* at most one warning per name per statement */
    each_var(s->rhs, check_read, &st);           /* R-AN-2 */
    if (s->target >= 0)
      st.defined[s->target] = true;
  }
  free(st.defined);
  free(st.warned);

  for (int i = 0; i < p->nstmts; i++) {           /* R-AN-3 */
    const Stmt *s = &p->stmts[i];
    int t = s->target;
    if (t < 0)
      continue;
    int j = i + 1;
    while (j < p->nstmts && !reads(&p->stmts[j], t) && p->stmts[j].target != t)
      j++;
    if (j < p->nstmts && reads(&p->stmts[j], t))
      continue;
    if (j < p->nstmts) {
      diag_warning(&p->diags, s->loc, s->len, "value assigned to '%s' is never observed", s->name);
      diag_note(&p->diags, "'%s' is assigned again at %d:%d before it is read", s->name, p->stmts[j].loc.line,
                p->stmts[j].loc.col);
      diag_tag(&p->diags, "dead-store", "R-AN-3");
    } else if (!(p->tensors[t].qual & Q_OUTPUT)) {
      diag_warning(&p->diags, s->loc, s->len, "value assigned to '%s' is never observed", s->name);
      diag_note(&p->diags, "'%s' is not an output and is not read after this statement", s->name);
      diag_tag(&p->diags, "dead-store", "R-AN-3");
    }
  }
}
