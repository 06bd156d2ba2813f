/*
 * parse_model.c - model-language expressions (report Fig. 1; spec/grammar.md
 * R-GR-5), translated on the fly into the shared TeIL IR (R-GR-6):
 *   e0 # e1 -> prod e0 e1      e . [m n] -> contr m n e    e ^ [m n] -> transp m n e
 *   + - * / -> add sub mul div
 * The report fixes no precedence: every operator, postfix ones included,
 * associates to the left, so A + B * C is (A + B) * C. Chaining different
 * operators without parentheses draws a warning (R-AN-4).
 */
#include <string.h>

#include "internal.h"

static Expr *operand(Parser *ps);

static const char *symbol(ExprKind k) {
  switch (k) {
  case EX_ADD: return "+";
  case EX_SUB: return "-";
  case EX_MUL: return "*";
  case EX_DIV: return "/";
  case EX_PROD: return "#";
  case EX_CONTR: return ".";
  case EX_TRANSP: return "^";
  case EX_VAR: case EX_RED: case EX_DIAG: case EX_EXPA: case EX_PROJ: case EX_COUNT:
    break;
  }
  teil_unreachable();
}

/* pair = "[" INT [","] INT "]" */
static bool pair(Parser *ps, Expr *e) {
  if (!ps_expect(ps, TK_LBRACK, e->kind == EX_CONTR ? "'[' after '.'" : "'[' after '^'") ||
      !ps_int(ps, &e->i, &e->iloc, "the first position of the pair (an integer)"))
    return false;
  if (ps->tok.kind == TK_COMMA)
    ps_next(ps);
  bool ok = ps_int(ps, &e->k, &e->kloc, "the second position of the pair (an integer)") &&
            ps_expect(ps, TK_RBRACK, "']' to close the pair");
  e->bad_literal = e->i < 0 || e->k < 0;          /* R-LEX-5, already reported */
  return ok;
}

/* The digits of the integer literal at loc, as written in the source. */
static void literal_at(const Parser *ps, Loc loc, char *buf, size_t n) {
  const char *s = ps->p->src, *end = s + ps->p->srclen;
  for (int line = 1; line < loc.line && s < end; s++)
    if (*s == '\n')
      line++;
  s += loc.col - 1;
  size_t len = 0;
  while (s + len < end && s[len] >= '0' && s[len] <= '9')
    len++;
  snprintf(buf, n, "%.*s", (int)(len < n - 1 ? len : n - 1), s);
}

/* The operator as written, for R-AN-4: "+", "#", ".[2 3]", "^[2 4]". */
static const char *written(Parser *ps, const Expr *e) {
  if (e->kind != EX_CONTR && e->kind != EX_TRANSP)
    return symbol(e->kind);
  char i[32], k[32], buf[80];
  literal_at(ps, e->iloc, i, sizeof i);
  literal_at(ps, e->kloc, k, sizeof k);
  snprintf(buf, sizeof buf, "%s[%s %s]", symbol(e->kind), i, k);
  return arena_strndup(&ps->p->arena, buf, strlen(buf));
}

/* expr = operand { ("+" | "-" | "*" | "/" | "#") operand | ("." | "^") pair } */
Expr *parse_model_expr(Parser *ps) {
  Expr *lhs = operand(ps);
  while (lhs) {
    static const ExprKind binop[] = {
        [TK_PLUS] = EX_ADD, [TK_MINUS] = EX_SUB, [TK_STAR] = EX_MUL, [TK_SLASH] = EX_DIV,
        [TK_HASH] = EX_PROD, [TK_DOT] = EX_CONTR, [TK_CARET] = EX_TRANSP, [TK_BAD] = EX_VAR};
    ExprKind k = binop[ps->tok.kind];
    if (k == EX_VAR)                               /* not an operator: the chain ends */
      return lhs;
    Token op = ps->tok;
    Expr *e = expr_new(ps->p, k, op.loc, op.len);
    ps_next(ps);
    e->a = lhs;
    if (k == EX_CONTR || k == EX_TRANSP) {
      if (!pair(ps, e))
        return NULL;
    } else if (!(e->b = operand(ps))) {
      return NULL;
    }
    if (ps_deep(ps, e))
      return NULL;
    /* R-AN-4: the left operand applies a different operator without parentheses. */
    if (lhs->kind != EX_VAR && !lhs->parens && lhs->kind != k) {
      diag_warning(&ps->p->diags, op.loc, op.len, "'%s' applied to the result of '%s' without parentheses",
                   written(ps, e), written(ps, lhs));
      diag_note(&ps->p->diags, "operators have no precedence and associate to the left; add parentheses to "
                               "make the grouping explicit");
      diag_tag(&ps->p->diags, "mixed-operators", "R-AN-4");
    }
    lhs = e;
  }
  return NULL;
}

/* operand = NAME | "(" expr ")" */
static Expr *operand(Parser *ps) { return ps_atom(ps, parse_model_expr, "')' or an operator"); }
