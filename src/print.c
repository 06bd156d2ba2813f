/*
 * print.c - printers for the typed IR: expressions and programs as TeIL text
 * (model-language programs come out translated, R-GR-6), and the types of
 * statements and sub-expressions for `teil-check --print-types [-v]`.
 */
#include "internal.h"

static void operand(const Program *p, const Expr *e, Buf *b) {
  if (e->kind == EX_VAR) {
    buf_printf(b, "%s", e->name);
    return;
  }
  buf_printf(b, "(");
  pr_expr(p, e, b);
  buf_printf(b, ")");
}

void pr_expr(const Program *p, const Expr *e, Buf *b) {
  if (e->kind == EX_VAR) {
    buf_printf(b, "%s", e->name);
    return;
  }
  buf_printf(b, "%s", ex_names[e->kind]);
  if (ex_ints[e->kind] >= 1)
    buf_printf(b, " %lld", (long long)e->i);
  if (ex_ints[e->kind] >= 2)
    buf_printf(b, " %lld", (long long)e->k);
  buf_printf(b, " ");
  operand(p, e->a, b);
  if (e->b) {
    buf_printf(b, " ");
    operand(p, e->b, b);
  }
}

void pr_program(const Program *p, Buf *b) {
  for (int t = 0; t < p->ntensors; t++) {
    const Tensor *x = &p->tensors[t];
    buf_printf(b, "alloc%s%s %s : ", p->any_qualifier && (x->qual & Q_INPUT) ? " input" : "",
               p->any_qualifier && (x->qual & Q_OUTPUT) ? " output" : "", x->name);
    ty_str(x->ty, b);
    buf_printf(b, "\n");
  }
  for (int i = 0; i < p->nstmts; i++) {
    buf_printf(b, "%s = ", p->stmts[i].name);
    pr_expr(p, p->stmts[i].rhs, b);
    buf_printf(b, "\n");
  }
}

static void tree(const Program *p, const Expr *e, int depth, FILE *out) {
  Buf b = {0};
  pr_expr(p, e, &b);
  buf_printf(&b, " : ");
  if (e->ty.rank >= 0)
    ty_str(e->ty, &b);
  else
    buf_printf(&b, "(ill-typed)");
  fprintf(out, "%*s%s\n", 4 + 2 * depth, "", b.s);
  buf_free(&b);
  if (e->kind == EX_VAR)
    return;
  tree(p, e->a, depth + 1, out);
  if (e->b)
    tree(p, e->b, depth + 1, out);
}

void pr_types(const Program *p, FILE *out, bool verbose) {
  for (int i = 0; i < p->nstmts; i++) {
    const Stmt *s = &p->stmts[i];
    Buf b = {0};
    if (s->rhs->ty.rank >= 0)
      ty_str(s->rhs->ty, &b);
    else
      buf_printf(&b, "(ill-typed)");
    fprintf(out, "%s:%d: %s : %s\n", p->diags.file, s->loc.line, s->name, b.s);
    buf_free(&b);
    if (verbose)
      tree(p, s->rhs, 0, out);
  }
}
