/*
 * unit.h - shared include and helpers of the cmocka unit tests (tests/unit/test_*.c).
 *
 * Every helper is static and marked unused so that -Wall -Wextra -Werror stays
 * quiet in files that do not use all of them. Programs made by parse_str() and
 * check_prog() are registered here; free_prog() frees one, and the group
 * teardown (RUN_TESTS) frees whatever a failed assertion left behind, so that
 * ASan's leak checker reports real leaks only.
 *
 * Conventions: tests cite the rule they check (the files in spec/), e.g. R-TY-13;
 * a test that currently fails because of a bug in src/ says so in a comment
 * starting with "BUG(src):".
 */
#ifndef TEIL_UNIT_H
#define TEIL_UNIT_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "internal.h"

#define UNIT_UNUSED __attribute__((unused))

/* ---- program registry (frees what failed tests leave behind) ------------- */

#define UNIT_MAX_LIVE 64
static TeilProgram *unit_live[UNIT_MAX_LIVE] UNIT_UNUSED;

static UNIT_UNUSED void unit_register(TeilProgram *tp) {
  for (int i = 0; i < UNIT_MAX_LIVE; i++)
    if (!unit_live[i]) {
      unit_live[i] = tp;
      return;
    }
}

static UNIT_UNUSED int unit_free_all(void **state) {
  (void)state;
  for (int i = 0; i < UNIT_MAX_LIVE; i++) {
    teil_free(unit_live[i]);
    unit_live[i] = NULL;
  }
  return 0;
}

/* Runs a test array with the registry cleaned up after the group. */
#define RUN_TESTS(tests) cmocka_run_group_tests(tests, NULL, unit_free_all)

/* ---- parsing and checking ------------------------------------------------ */

/* Parses src (NUL-terminated) in lang; TeilProgram wraps Program as its first
 * member. Free with free_prog(). */
static UNIT_UNUSED Program *parse_len(const char *src, size_t len, TeilLang lang) {
  const char *file = lang == TEIL_LANG_MODEL ? "t.tm" : "t.teil";
  TeilProgram *tp = teil_parse(file, src, len, lang);
  assert_non_null(tp);
  unit_register(tp);
  return &tp->p;
}

static UNIT_UNUSED Program *parse_str(const char *src, TeilLang lang) {
  return parse_len(src, strlen(src), lang);
}

static UNIT_UNUSED void free_prog(Program *p) {
  if (!p)
    return;
  TeilProgram *tp = (TeilProgram *)p;
  for (int i = 0; i < UNIT_MAX_LIVE; i++)
    if (unit_live[i] == tp)
      unit_live[i] = NULL;
  teil_free(tp);
}

/* Parses and checks (types and analyses); the program stays alive. */
static UNIT_UNUSED Program *check_prog(const char *src, TeilLang lang) {
  Program *p = parse_str(src, lang);
  teil_check((TeilProgram *)p);
  return p;
}

/* Parses, checks and frees; returns the number of errors (syntax included). */
static UNIT_UNUSED int check_str(const char *src, TeilLang lang) {
  Program *p = check_prog(src, lang);
  int n = teil_check((TeilProgram *)p);
  free_prog(p);
  return n;
}

/* Parses, checks and frees; returns the number of warnings. */
static UNIT_UNUSED int warnings_str(const char *src, TeilLang lang) {
  Program *p = check_prog(src, lang);
  int n = p->diags.nwarnings;
  free_prog(p);
  return n;
}

#define TEIL TEIL_LANG_TEIL
#define MODEL TEIL_LANG_MODEL

/* ---- diagnostics --------------------------------------------------------- */

static UNIT_UNUSED void dump_diags(const Program *p) {
  for (const Diagnostic *g = p->diags.first; g; g = g->next)
    print_error("    %s %d:%d (len %d) [%s %s]: %s%s%s\n", g->sev == SEV_ERROR ? "error" : "warning",
                g->loc.line, g->loc.col, g->len, g->category ? g->category : "-", g->rule ? g->rule : "-",
                g->msg, g->note ? "  | note: " : "", g->note ? g->note : "");
}

static UNIT_UNUSED int count_diags(const Program *p, Severity sev) {
  int n = 0;
  for (const Diagnostic *g = p->diags.first; g; g = g->next)
    n += g->sev == sev;
  return n;
}

/* The first diagnostic of severity sev at line:col (0 = any) with the given
 * category and rule (R-AN-5; NULL = any) whose message or note contains sub
 * (NULL = any), or NULL. */
static UNIT_UNUSED const Diagnostic *find_diag(const Program *p, Severity sev, int line, int col, const char *cat,
                                               const char *rule, const char *sub) {
  for (const Diagnostic *g = p->diags.first; g; g = g->next) {
    if (g->sev != sev || (line && g->loc.line != line) || (col && g->loc.col != col))
      continue;
    if (cat && (!g->category || strcmp(g->category, cat)))
      continue;
    if (rule && (!g->rule || strcmp(g->rule, rule)))
      continue;
    if (sub && !strstr(g->msg, sub) && !(g->note && strstr(g->note, sub)))
      continue;
    return g;
  }
  return NULL;
}

static UNIT_UNUSED void assert_diag_at(const Program *p, Severity sev, int line, int col, const char *cat,
                                       const char *rule, const char *sub, const char *file, int fline) {
  if (find_diag(p, sev, line, col, cat, rule, sub))
    return;
  print_error("expected %s at %d:%d [%s %s] containing \"%s\"; the program has:\n",
              sev == SEV_ERROR ? "an error" : "a warning", line, col, cat ? cat : "*", rule ? rule : "*",
              sub ? sub : "");
  dump_diags(p);
  _fail(file, fline);
}

static UNIT_UNUSED void assert_count_at(const Program *p, Severity sev, int n, const char *file, int fline) {
  int got = count_diags(p, sev);
  if (got == n && (sev == SEV_ERROR ? p->diags.nerrors : p->diags.nwarnings) == n)
    return;
  print_error("expected %d %s, got %d:\n", n, sev == SEV_ERROR ? "errors" : "warnings", got);
  dump_diags(p);
  _fail(file, fline);
}

/* assert_error(p, line, col, "substring"): an error there (line/col 0 = any);
 * assert_err(p, line, col, "category", "R-XX-n", "substring") also checks the
 * category and rule of R-AN-5. Likewise for warnings. */
#define assert_error(p, line, col, sub) \
  assert_diag_at((p), SEV_ERROR, (line), (col), NULL, NULL, (sub), __FILE__, __LINE__)
#define assert_err(p, line, col, cat, rule, sub) \
  assert_diag_at((p), SEV_ERROR, (line), (col), (cat), (rule), (sub), __FILE__, __LINE__)
#define assert_warning(p, line, col, sub) \
  assert_diag_at((p), SEV_WARNING, (line), (col), NULL, NULL, (sub), __FILE__, __LINE__)
#define assert_warn(p, line, col, cat, rule, sub) \
  assert_diag_at((p), SEV_WARNING, (line), (col), (cat), (rule), (sub), __FILE__, __LINE__)
#define assert_nerrors(p, n) assert_count_at((p), SEV_ERROR, (n), __FILE__, __LINE__)
#define assert_nwarnings(p, n) assert_count_at((p), SEV_WARNING, (n), __FILE__, __LINE__)
#define assert_clean(p) (assert_nerrors((p), 0), assert_nwarnings((p), 0))

/* Checks src and asserts exactly one error, at line:col, with category, rule
 * and a message or note containing sub (NULL = any). */
#define assert_one_err(src, lang, line, col, cat, rule, sub)                                      \
  do {                                                                                            \
    Program *p1_ = check_prog((src), (lang));                                                     \
    assert_nerrors(p1_, 1);                                                                       \
    assert_err(p1_, (line), (col), (cat), (rule), (sub));                                         \
    free_prog(p1_);                                                                               \
  } while (0)

/* ---- types and trees ----------------------------------------------------- */

/* "[3, 4]", "[]" or "(ill-typed)", in a static buffer (one per call site use). */
static UNIT_UNUSED const char *type_str(Type t, char *buf, size_t n) {
  if (t.rank < 0) {
    snprintf(buf, n, "(ill-typed)");
    return buf;
  }
  Buf b = {0};
  ty_str(t, &b);
  snprintf(buf, n, "%s", b.s);
  buf_free(&b);
  return buf;
}

#define assert_type(t, expect)                                                                    \
  do {                                                                                            \
    char tb_[256];                                                                                \
    assert_string_equal(type_str((t), tb_, sizeof tb_), (expect));                                \
  } while (0)

/* The right-hand side of statement i. */
static UNIT_UNUSED Expr *rhs_of(const Program *p, int i) {
  assert_true(i < p->nstmts);
  return p->stmts[i].rhs;
}

/* The expression as TeIL text (print.c), for checking tree shapes. */
#define assert_tree(p, e, expect)                                                                 \
  do {                                                                                            \
    Buf eb_ = {0};                                                                                \
    pr_expr((p), (e), &eb_);                                                                      \
    char es_[512];                                                                                \
    snprintf(es_, sizeof es_, "%s", eb_.s ? eb_.s : "");                                          \
    buf_free(&eb_);                                                                               \
    assert_string_equal(es_, (expect));                                                           \
  } while (0)

/* ---- tokens -------------------------------------------------------------- */

/* Lexes src (NUL-terminated) into out[0..max-1] up to and including EOF; returns
 * the number of tokens. Lexical errors (R-LEX-1, R-LEX-5) are counted in *nerr
 * (may be NULL); lex_next reports them itself and never returns TK_BAD. */
static UNIT_UNUSED int lex_all_n(const char *src, size_t len, TeilLang lang, Token *out, int max, int *nerr) {
  Arena arena = {0};
  Diags diags = {0};
  diags.arena = &arena;
  diags.file = "t";
  diags.src = src;
  Lexer lx;
  lex_init(&lx, src, len, lang, &diags);
  int n = 0;
  while (n < max) {
    out[n] = lex_next(&lx);
    if (out[n++].kind == TK_EOF)
      break;
  }
  if (nerr)
    *nerr = diags.nerrors;
  arena_free(&arena);
  return n;
}

static UNIT_UNUSED int lex_all(const char *src, TeilLang lang, Token *out, int max) {
  return lex_all_n(src, strlen(src), lang, out, max, NULL);
}

/* The number of lexical errors in src. */
static UNIT_UNUSED int lex_errors(const char *src, TeilLang lang) {
  Token t[256];
  int nerr;
  lex_all_n(src, strlen(src), lang, t, 256, &nerr);
  return nerr;
}

/* The single token of src (followed by EOF). */
static UNIT_UNUSED Token lex_one(const char *src, TeilLang lang) {
  Token t[3];
  int n = lex_all(src, lang, t, 3);
  if (n != 2) {
    print_error("\"%s\" lexes to %d tokens, expected 1\n", src, n - 1);
    fail();
  }
  return t[0];
}

#endif
