/*
 * parse.c - programs, declarations and statements (spec/grammar.md). Both
 * languages share this level; they differ only in the declaration keyword
 * (alloc / var) and in the expression syntax, which parse_teil.c and
 * parse_model.c handle. The result is a Program: the tensor table and a list of
 * statements whose right-hand sides are TeIL expression trees.
 *
 * Error recovery (R-GR-7): after a syntax error the parser skips to the next
 * line that starts a declaration or a statement (NAME '='), so every error in
 * a file is reported once.
 */
#include <string.h>

#include "internal.h"

Tensor *prog_add_tensor(Program *p) {
  if (p->ntensors == p->captensors) {
    int cap = p->captensors ? 2 * p->captensors : 16;
    Tensor *t = arena_alloc(&p->arena, (size_t)cap * sizeof *t);
    if (p->ntensors)
      memcpy(t, p->tensors, (size_t)p->ntensors * sizeof *t);
    p->tensors = t;
    p->captensors = cap;
  }
  Tensor *t = &p->tensors[p->ntensors++];
  memset(t, 0, sizeof *t);
  return t;
}

Stmt *prog_add_stmt(Program *p) {
  if (p->nstmts == p->capstmts) {
    int cap = p->capstmts ? 2 * p->capstmts : 16;
    Stmt *s = arena_alloc(&p->arena, (size_t)cap * sizeof *s);
    if (p->nstmts)
      memcpy(s, p->stmts, (size_t)p->nstmts * sizeof *s);
    p->stmts = s;
    p->capstmts = cap;
  }
  Stmt *s = &p->stmts[p->nstmts++];
  memset(s, 0, sizeof *s);
  return s;
}

int prog_find(const Program *p, const char *name) {
  for (int i = 0; i < p->ntensors; i++)
    if (!strcmp(p->tensors[i].name, name))
      return i;
  return -1;
}

Expr *expr_new(Program *p, ExprKind kind, Loc loc, int len) {
  Expr *e = arena_alloc(&p->arena, sizeof *e);
  e->kind = kind;
  e->loc = loc;
  e->len = len;
  e->tensor = -1;
  e->ty.rank = -1;
  return e;
}

void ps_next(Parser *ps) {
  ps->tok = ps->peek;
  if (ps->tok.kind != TK_EOF)
    ps->peek = lex_next(&ps->lx);
}

/* Describes a token for "expected X, found Y" (R-GR-7(d)). */
static void describe(const Token *t, char *buf, size_t n) {
  int len = t->len > 40 ? 40 : t->len;
  switch (t->kind) {
  case TK_EOF: snprintf(buf, n, "end of file"); break;
  case TK_IDENT: snprintf(buf, n, "name '%.*s'", len, t->start); break;
  case TK_INT: snprintf(buf, n, "integer %.*s", len, t->start); break;
  case TK_ALLOC: case TK_VAR: case TK_INPUT: case TK_OUTPUT: case TK_OP:
    snprintf(buf, n, "keyword '%.*s'", len, t->start);
    break;
  case TK_LBRACK: case TK_RBRACK: case TK_LPAREN: case TK_RPAREN: case TK_COMMA: case TK_COLON:
  case TK_ASSIGN: case TK_PLUS: case TK_MINUS: case TK_STAR: case TK_SLASH: case TK_HASH:
  case TK_DOT: case TK_CARET: case TK_BAD:
    snprintf(buf, n, "'%.*s'", len, t->start);
    break;
  }
}

static void syntax_error(Parser *ps, const char *fmt, const char *arg) {
  diag_error(&ps->p->diags, ps->tok.loc, ps->tok.len, fmt, arg);
  diag_tag(&ps->p->diags, "syntax", ps->p->lang == TEIL_LANG_MODEL ? "R-GR-5" : "R-GR-3");
  ps->failed = true;
}

/* A NAME followed by '=' starts a statement (R-GR-7(c)). */
bool ps_start_of_stmt(const Parser *ps) { return ps->tok.kind == TK_IDENT && ps->peek.kind == TK_ASSIGN; }

/* Sets e's depth from its operands and reports trees deeper than TEIL_MAX_DEPTH,
 * or parser nesting beyond it (R-GR-3). Returns true if e is too deep. */
bool ps_deep(Parser *ps, Expr *e) {
  int da = e->a ? e->a->depth : 0, db = e->b ? e->b->depth : 0;
  e->depth = 1 + (da > db ? da : db);
  if (e->depth <= TEIL_MAX_DEPTH && ps->nest <= TEIL_MAX_DEPTH)
    return false;
  if (!ps->failed) {
    diag_error(&ps->p->diags, e->loc, e->len, "syntax error: expression nested too deeply");
    diag_note(&ps->p->diags, "expressions may be at most %d levels deep; split the statement with a temporary",
              TEIL_MAX_DEPTH);
    diag_tag(&ps->p->diags, "syntax", ps->p->lang == TEIL_LANG_MODEL ? "R-GR-5" : "R-GR-3");
    ps->failed = true;
  }
  return true;
}

/* atom = NAME | "(" expr ")"  -- the operands of both languages (R-GR-3, R-GR-5);
 * expr parses the inside of the parentheses, close names what may follow it. */
Expr *ps_atom(Parser *ps, Expr *(*expr)(Parser *), const char *close) {
  if (ps->failed)
    return NULL;
  Token t = ps->tok;
  if (ps_start_of_stmt(ps)) {                      /* R-GR-7(c): do not eat the next statement */
    ps_missing_operand(ps);
    return NULL;
  }
  if (t.kind == TK_IDENT) {
    Expr *e = expr_new(ps->p, EX_VAR, t.loc, t.len);
    e->name = arena_strndup(&ps->p->arena, t.start, (size_t)t.len);
    ps_next(ps);
    return e;
  }
  if (t.kind == TK_LPAREN) {
    ps_next(ps);
    if (++ps->nest > TEIL_MAX_DEPTH) {
      ps_deep(ps, expr_new(ps->p, EX_VAR, t.loc, t.len));
      return NULL;
    }
    Expr *e = expr(ps);
    ps->nest--;
    if (!e || !ps_expect(ps, TK_RPAREN, close))
      return NULL;
    e->parens = true;
    return e;
  }
  ps_error_here(ps, "an operand (a name or a parenthesized expression)");
  return NULL;
}

/* R-GR-7(c): an operand is missing and the next statement starts here. */
void ps_missing_operand(Parser *ps) {
  if (!ps->failed)
    syntax_error(ps, "%s", "syntax error: expected an operand, found the start of a statement");
}

/* Reports "syntax error: expected WHAT, found TOKEN" at the current token, once per
 * declaration or statement (R-GR-7(b), (d)). */
void ps_error_here(Parser *ps, const char *what) {
  if (ps->failed)
    return;
  char found[80], msg[300];
  describe(&ps->tok, found, sizeof found);
  snprintf(msg, sizeof msg, "syntax error: expected %s, found %s", what, found);
  syntax_error(ps, "%s", msg);
}

/* A keyword where a tensor name is required (R-LEX-4). */
static void keyword_as_name(Parser *ps) {
  char kw[48];
  snprintf(kw, sizeof kw, "%.*s", ps->tok.len > 40 ? 40 : ps->tok.len, ps->tok.start);
  syntax_error(ps, "syntax error: '%s' is a keyword and cannot name a tensor", kw);
}

static bool is_keyword(TokenKind k) {
  return k == TK_ALLOC || k == TK_VAR || k == TK_INPUT || k == TK_OUTPUT || k == TK_OP;
}

bool ps_expect(Parser *ps, TokenKind k, const char *what) {
  if (ps->failed)
    return false;
  if (ps->tok.kind != k) {
    ps_error_here(ps, what);
    return false;
  }
  ps_next(ps);
  return true;
}

/* An integer literal argument. A literal above the limit was reported by the
 * lexer (R-LEX-5); it is returned as -1 and parsing goes on. */
bool ps_int(Parser *ps, int64_t *val, Loc *loc, const char *what) {
  if (ps->failed)
    return false;
  if (ps->tok.kind != TK_INT) {
    ps_error_here(ps, what);
    return false;
  }
  *val = ps->tok.val;
  if (loc)
    *loc = ps->tok.loc;
  ps_next(ps);
  return true;
}

static TokenKind decl_keyword(const Program *p) {
  return p->lang == TEIL_LANG_MODEL ? TK_VAR : TK_ALLOC;
}

/* A synchronisation point: a declaration keyword, a NAME followed by '=', or
 * the end of the file (R-GR-7(b)). */
static bool at_sync(const Parser *ps) {
  return ps->tok.kind == TK_EOF || ps->tok.kind == decl_keyword(ps->p) || ps_start_of_stmt(ps);
}

/* R-GR-7(b): skip to the next synchronisation point. */
static void recover(Parser *ps) {
  while (!at_sync(ps))
    ps_next(ps);
}

/* type = "[" [ INT { [","] INT } ] "]"      (R-GR-2, R-GR-4)
 * Extents are checked by the type checker (R-TY-17); here only the syntax. */
static bool parse_type(Parser *ps, Tensor *t) {
  if (!ps_expect(ps, TK_LBRACK, "'[' to start the type"))
    return false;
  int cap = 4, n = 0;
  bool valid = true;
  int64_t *dims = arena_alloc(&ps->p->arena, (size_t)cap * sizeof *dims);
  while (ps->tok.kind != TK_RBRACK) {
    if (n > 0 && ps->tok.kind == TK_COMMA)
      ps_next(ps);
    int64_t v;
    Loc l;
    if (!ps_int(ps, &v, &l, n ? "an extent, ',' or ']'" : "an extent or ']'"))
      return false;
    if (v < 0) {                                   /* R-LEX-5, already reported */
      valid = false;
    } else if (v == 0 && valid) {                  /* R-TY-17(a): only the first failing check */
      diag_error(&ps->p->diags, l, 1, "extent must be at least 1");
      diag_note(&ps->p->diags, "dimension %d of '%s' is declared with extent 0", n + 1, t->name);
      diag_tag(&ps->p->diags, "extent-zero", "R-TY-17");
      valid = false;
    }
    if (n == cap) {
      int64_t *d2 = arena_alloc(&ps->p->arena, (size_t)cap * 2 * sizeof *d2);
      memcpy(d2, dims, (size_t)cap * sizeof *d2);
      dims = d2;
      cap *= 2;
    }
    dims[n++] = v;
  }
  ps_next(ps);
  t->ty.rank = valid ? n : -1;                     /* an invalid type declares x with type err */
  t->ty.dims = dims;
  return true;
}

/* decl = ("alloc" | "var") { "input" | "output" } NAME ":" type    (R-GR-2, R-GR-4) */
static void parse_decl(Parser *ps, bool after_stmt) {
  Program *p = ps->p;
  Token kw = ps->tok;
  ps_next(ps);
  unsigned qual = 0;
  if (ps->tok.kind == TK_INPUT) {                  /* R-GR-2: [input] [output], in this order */
    qual |= Q_INPUT;
    ps_next(ps);
  }
  if (ps->tok.kind == TK_OUTPUT) {
    qual |= Q_OUTPUT;
    ps_next(ps);
  }
  Token name = ps->tok;
  if (is_keyword(name.kind) && !ps->failed) {
    keyword_as_name(ps);
    return;
  }
  if (!ps_expect(ps, TK_IDENT, "a tensor name"))
    return;
  Tensor tmp = {0};
  tmp.name = arena_strndup(&p->arena, name.start, (size_t)name.len);
  tmp.loc = name.loc;
  tmp.qual = qual;
  tmp.declared_qual = qual != 0;
  if (!ps_expect(ps, TK_COLON, "':' after the tensor name") || !parse_type(ps, &tmp))
    return;
  if (after_stmt) {                                /* R-GR-1: still entered into the context */
    diag_error(&p->diags, kw.loc, kw.len, "syntax error: declaration after statement");
    diag_note(&p->diags, "all declarations must come before the first statement");
    diag_tag(&p->diags, "syntax", p->lang == TEIL_LANG_MODEL ? "R-GR-4" : "R-GR-1");
  }
  /* R-TY-1 (s-var): names are unique; the first declaration stays in force. */
  int prev = prog_find(p, tmp.name);
  if (prev >= 0) {
    diag_error(&p->diags, name.loc, name.len, "redeclaration of '%s'", tmp.name);
    diag_tag(&p->diags, "redeclared", "R-TY-1");
    diag_note(&p->diags, "'%s' was first declared at %d:%d with type %s", tmp.name, p->tensors[prev].loc.line,
              p->tensors[prev].loc.col,
              p->tensors[prev].ty.rank < 0 ? "err" : ty_cstr(&p->arena, p->tensors[prev].ty));
    return;
  }
  if (qual)
    p->any_qualifier = true;
  *prog_add_tensor(p) = tmp;
}

/* stmt = NAME "=" expr     (R-GR-3, R-GR-5) */
static void parse_stmt(Parser *ps) {
  Program *p = ps->p;
  Token name = ps->tok;
  ps_next(ps);
  if (!ps_expect(ps, TK_ASSIGN, "'=' after the tensor name"))
    return;
  Expr *rhs = p->lang == TEIL_LANG_MODEL ? parse_model_expr(ps) : parse_teil_expr(ps);
  if (ps->failed)
    return;
  if (!at_sync(ps)) {
    ps_error_here(ps, p->lang == TEIL_LANG_MODEL ? "an operator or the end of the statement"
                                                 : "the end of the statement (operands are names or parenthesized expressions)");
    return;
  }
  Stmt *s = prog_add_stmt(p);
  s->name = arena_strndup(&p->arena, name.start, (size_t)name.len);
  s->loc = name.loc;
  s->len = name.len;
  s->rhs = rhs;
  s->target = -1;
}

/* program = decl* stmt*     (R-GR-1, R-GR-4) */
void parse_program(Program *p) {
  Parser ps = {0};
  ps.p = p;
  lex_init(&ps.lx, p->src, p->srclen, p->lang, &p->diags);
  ps.peek = lex_next(&ps.lx);
  ps_next(&ps);
  bool seen_stmt = false;
  while (ps.tok.kind != TK_EOF) {
    ps.failed = false;
    ps.nest = 0;
    Token start = ps.tok;
    if (ps.tok.kind == decl_keyword(p)) {
      parse_decl(&ps, seen_stmt);
    } else if (ps.tok.kind == TK_IDENT) {
      seen_stmt = true;
      parse_stmt(&ps);
    } else if (is_keyword(ps.tok.kind) && ps.peek.kind == TK_ASSIGN) {
      keyword_as_name(&ps);
    } else {
      ps_error_here(&ps, p->lang == TEIL_LANG_MODEL ? "a declaration ('var NAME : [...]') or a statement"
                                                    : "a declaration ('alloc NAME : [...]') or a statement");
    }
    if (ps.failed) {
      if (ps.tok.start == start.start)             /* always make progress */
        ps_next(&ps);
      recover(&ps);
    }
  }
  p->parsed = true;
}
