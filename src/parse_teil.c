/*
 * parse_teil.c - TeIL expressions (TeIL paper Fig. 5; spec/grammar.md R-GR-3).
 * Operators are prefix keywords with literal integer arguments and atomic
 * operands; the tree built here is the shared IR, so nothing is translated.
 */
#include "internal.h"

static Expr *atom(Parser *ps);
static Expr *operator(Parser *ps);

/* expr = atom
 *      | ("add" | "sub" | "mul" | "div" | "prod") atom atom
 *      | "red+" INT atom
 *      | ("transp" | "diag" | "expa" | "proj" | "contr") INT INT atom */
Expr *parse_teil_expr(Parser *ps) {
  if (ps->tok.kind != TK_OP)
    return atom(ps);
  Expr *e = operator(ps);                          /* operands are atoms: nesting goes through ps_atom */
  return e && !ps_deep(ps, e) ? e : NULL;
}

/* The operator forms of expr, after its keyword. */
static Expr *operator(Parser *ps) {
  Token op = ps->tok;
  Expr *e = expr_new(ps->p, op.op, op.loc, op.len);
  ps_next(ps);
  static const char *const what_i[] = {
      [EX_RED] = "the position to reduce (an integer)",
      [EX_TRANSP] = "the first position to swap (an integer)",
      [EX_DIAG] = "the first position of the diagonal (an integer)",
      [EX_EXPA] = "the position of the new dimension (an integer)",
      [EX_PROJ] = "the position to project (an integer)",
      [EX_CONTR] = "the first position to contract (an integer)",
  };
  static const char *const what_k[] = {
      [EX_TRANSP] = "the second position to swap (an integer)",
      [EX_DIAG] = "the second position of the diagonal (an integer)",
      [EX_EXPA] = "the extent of the new dimension (an integer)",
      [EX_PROJ] = "the index of the slice (an integer)",
      [EX_CONTR] = "the second position to contract (an integer)",
  };
  if (ex_ints[e->kind] >= 1 && !ps_int(ps, &e->i, &e->iloc, what_i[e->kind]))
    return NULL;
  if (ex_ints[e->kind] >= 2 && !ps_int(ps, &e->k, &e->kloc, what_k[e->kind]))
    return NULL;
  e->bad_literal = e->i < 0 || e->k < 0;          /* R-LEX-5, already reported */
  if (!(e->a = atom(ps)))
    return NULL;
  if (ex_kids[e->kind] == 2 && !(e->b = atom(ps)))
    return NULL;
  return e;
}

/* atom = NAME | "(" expr ")" */
static Expr *atom(Parser *ps) { return ps_atom(ps, parse_teil_expr, "')'"); }
