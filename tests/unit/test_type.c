/*
 * test_type.c - the type checker (src/type.c) against spec/typing.md
 * (R-TY-1 .. R-TY-19, DECISIONS 1-6, 12): for every typing rule an accepting
 * test that checks the computed type and a rejecting test that checks line,
 * column, category, rule and message; the error-propagation rules ("one error
 * per mistake"); the report's five failure modes; the papers' worked examples.
 */
#include "unit.h"

/* Declarations used by most tests (TeIL). Lines 1-9. */
#define DECLS                        \
  "alloc A : [2, 3, 4]\n"            \
  "alloc M : [3, 3]\n"               \
  "alloc N : [3, 5]\n"               \
  "alloc P : [2, 3]\n"               \
  "alloc Q : [3, 4]\n"               \
  "alloc v : [5]\n"                  \
  "alloc w : [4]\n"                  \
  "alloc s : []\n"                   \
  "alloc t : []\n"

/* The same in the model language. */
#define MDECLS                       \
  "var A : [2 3 4]\n"                \
  "var M : [3 3]\n"                  \
  "var N : [3 5]\n"                  \
  "var P : [2 3]\n"                  \
  "var Q : [3 4]\n"                  \
  "var v : [5]\n"                    \
  "var w : [4]\n"                    \
  "var s : []\n"                     \
  "var t : []\n"

static int count_lines(const char *s) {
  int n = 0;
  for (; *s; s++)
    n += *s == '\n';
  return n;
}

/* Checks decls + "R : want" + "R = rhs"; asserts a well-typed program (no
 * error) and that the right-hand side has type want. Returns the checked
 * program (free it) so callers can look at sub-expressions. */
static Program *typed(const char *decls, const char *rhs, TeilLang lang, const char *want) {
  char src[4096];
  snprintf(src, sizeof src, "%s%s R : %s\nR = %s\n", decls, lang == TEIL_LANG_MODEL ? "var" : "alloc", want, rhs);
  Program *p = check_prog(src, lang);
  if (p->diags.nerrors)
    print_error("source:\n%s", src);
  assert_nerrors(p, 0);
  assert_int_equal(p->nstmts, 1);
  assert_type(p->stmts[0].rhs->ty, want);
  assert_true(p->stmts[0].ok);
  return p;
}

static void expect_type(const char *decls, const char *rhs, TeilLang lang, const char *want) {
  free_prog(typed(decls, rhs, lang, want));
}

/* Checks decls + "R : [1]" + "R = rhs" and asserts exactly one error, located
 * on the statement's line at the first occurrence of `at` in rhs (the start of
 * rhs if at is NULL), with the category, rule and a message or note containing
 * each of sub and sub2 (NULL = any). */
static void expect_reject2(const char *decls, const char *rhs, TeilLang lang, const char *at, const char *cat,
                           const char *rule, const char *sub, const char *sub2) {
  char src[4096];
  snprintf(src, sizeof src, "%s%s R : [1]\nR = %s\n", decls, lang == TEIL_LANG_MODEL ? "var" : "alloc", rhs);
  const char *hit = at ? strstr(rhs, at) : rhs;
  assert_non_null(hit);
  int line = count_lines(decls) + 2, col = 5 + (int)(hit - rhs);
  Program *p = check_prog(src, lang);
  if (p->diags.nerrors != 1)
    print_error("source:\n%s", src);
  assert_nerrors(p, 1);
  assert_err(p, line, col, cat, rule, sub);
  if (sub2)
    assert_err(p, line, col, cat, rule, sub2);
  assert_false(p->stmts[0].ok);
  assert_int_equal(p->stmts[0].rhs->ty.rank, -1);
  free_prog(p);
}

static void expect_reject(const char *decls, const char *rhs, TeilLang lang, const char *at, const char *cat,
                          const char *rule, const char *sub) {
  expect_reject2(decls, rhs, lang, at, cat, rule, sub, NULL);
}

/* Every node of e has a type (R-TY-19 on a well-typed expression). */
static void assert_all_typed(const Expr *e) {
  assert_true(e->ty.rank >= 0);
  if (e->a)
    assert_all_typed(e->a);
  if (e->b)
    assert_all_typed(e->b);
}

/* ======================================================================== */
/* R-TY-1 (context formation, s-var) - failure mode 1                       */
/* ======================================================================== */

static void test_context_formation(void **state) {
  (void)state;
  Program *p = check_prog(DECLS, TEIL);
  assert_clean(p);
  assert_int_equal(p->ntensors, 9);
  assert_type(p->tensors[prog_find(p, "A")].ty, "[2, 3, 4]");
  assert_type(p->tensors[prog_find(p, "s")].ty, "[]");
  assert_int_equal(teil_tensor_find((TeilProgram *)p, "v"), 5);
  assert_int_equal(teil_tensor_rank((TeilProgram *)p, 5), 1);
  assert_int_equal(teil_tensor_dims((TeilProgram *)p, 5)[0], 5);
  assert_string_equal(teil_tensor_name((TeilProgram *)p, 0), "A");
  assert_int_equal(teil_tensor_find((TeilProgram *)p, "nope"), -1);
  free_prog(p);
}

/* R-TY-1: a name declared twice; the first declaration stays in force. */
static void test_redeclaration(void **state) {
  (void)state;
  Program *p = check_prog("alloc A : [3]\nalloc B : [3]\n  alloc A : [4, 4]\nB = A\n", TEIL);
  assert_nerrors(p, 1);
  assert_err(p, 3, 9, "redeclared", "R-TY-1", "redeclaration of 'A'");
  assert_err(p, 3, 9, "redeclared", "R-TY-1", "'A' was first declared at 1:7 with type [3]");
  assert_int_equal(p->ntensors, 2);
  assert_type(p->tensors[prog_find(p, "A")].ty, "[3]");
  assert_true(p->stmts[0].ok);                  /* B = A uses A : [3] */
  free_prog(p);
  p = check_prog("var x : []\nvar x : []\nx = x", MODEL);
  assert_nerrors(p, 1);
  assert_err(p, 2, 5, "redeclared", "R-TY-1", "with type []");
  free_prog(p);
  /* The first declaration had an invalid type: "with type err", no follow-on. */
  p = check_prog("alloc A : [0]\nalloc A : [3]\nalloc B : [3]\nB = A\n", TEIL);
  assert_nerrors(p, 2);
  assert_err(p, 1, 12, "extent-zero", "R-TY-17", NULL);
  assert_err(p, 2, 7, "redeclared", "R-TY-1", "with type err");
  free_prog(p);
}

/* ======================================================================== */
/* R-TY-2 (T-Var) - failure mode 4                                          */
/* ======================================================================== */

static void test_t_var(void **state) {
  (void)state;
  Program *p = typed(DECLS, "A", TEIL, "[2, 3, 4]");
  const Expr *e = p->stmts[0].rhs;
  assert_int_equal(e->kind, EX_VAR);
  assert_int_equal(e->tensor, prog_find(p, "A"));
  free_prog(p);
  expect_type(DECLS, "s", TEIL, "[]");
  expect_type(MDECLS, "v", MODEL, "[5]");
}

static void test_t_var_undeclared(void **state) {
  (void)state;
  expect_reject(DECLS, "X", TEIL, "X", "undeclared", "R-TY-2", "use of undeclared tensor 'X'");
  expect_reject(DECLS, "add A (transp 1 2 Xyz)", TEIL, "Xyz", "undeclared", "R-TY-2",
                "use of undeclared tensor 'Xyz'");
  expect_reject(MDECLS, "A # (B .[1 2])", MODEL, "B", "undeclared", "R-TY-2", "'B'");
  /* Names are case-sensitive. */
  expect_reject(DECLS, "a", TEIL, "a", "undeclared", "R-TY-2", NULL);
}

/* ======================================================================== */
/* R-TY-3 (T-Paren)                                                         */
/* ======================================================================== */

static void test_t_paren(void **state) {
  (void)state;
  Program *p = typed(DECLS, "(A)", TEIL, "[2, 3, 4]");
  assert_true(p->stmts[0].rhs->parens);
  free_prog(p);
  expect_type(DECLS, "((transp 1 3 A))", TEIL, "[4, 3, 2]");
  expect_type(DECLS, "red+ 1 ((((v))))", TEIL, "[]");
  expect_type(MDECLS, "((A))", MODEL, "[2, 3, 4]");
  /* Parentheses do not change a type error's location. */
  expect_reject(DECLS, "((add v w))", TEIL, "add", "type-mismatch", "R-TY-4", "type mismatch in add");
}

/* ======================================================================== */
/* R-TY-4 (T-Add, T-Sub)                                                    */
/* ======================================================================== */

static void test_t_add_sub(void **state) {
  (void)state;
  expect_type(DECLS, "add A A", TEIL, "[2, 3, 4]");
  expect_type(DECLS, "sub M M", TEIL, "[3, 3]");
  expect_type(DECLS, "add s t", TEIL, "[]");
  expect_type(DECLS, "sub (add v v) v", TEIL, "[5]");
  expect_type(MDECLS, "A + A - A", MODEL, "[2, 3, 4]");
  expect_type(MDECLS, "s - t", MODEL, "[]");
}

static void test_t_add_sub_reject(void **state) {
  (void)state;
  expect_reject2(DECLS, "add v w", TEIL, "add", "type-mismatch", "R-TY-4", "type mismatch in add",
                 "add: operand types [5] and [4] differ");
  expect_reject2(DECLS, "sub M N", TEIL, "sub", "type-mismatch", "R-TY-4", "type mismatch in sub",
                 "sub: operand types [3, 3] and [3, 5] differ");
  /* No scalar broadcasting, on either side. */
  expect_reject(DECLS, "add s v", TEIL, "add", "type-mismatch", "R-TY-4", "[] and [5]");
  expect_reject(DECLS, "sub v s", TEIL, "sub", "type-mismatch", "R-TY-4", "[5] and []");
  /* Same count, different shape. */
  expect_reject(DECLS, "add P (transp 1 2 P)", TEIL, "add", "type-mismatch", "R-TY-4", "[2, 3] and [3, 2]");
  /* Model: at the operator symbol, OP as written. */
  expect_reject2(MDECLS, "v + w", MODEL, "+", "type-mismatch", "R-TY-4", "type mismatch in +",
                 "+: operand types [5] and [4] differ");
  expect_reject(MDECLS, "(v - v) - w", MODEL, "- w", "type-mismatch", "R-TY-4", "type mismatch in -");
}

/* ======================================================================== */
/* R-TY-5 (T-Mul, T-SMul)                                                   */
/* ======================================================================== */

static void test_t_mul(void **state) {
  (void)state;
  Program *p = typed(DECLS, "mul A A", TEIL, "[2, 3, 4]");
  assert_false(p->stmts[0].rhs->scalar_op);
  free_prog(p);
  p = typed(DECLS, "mul s A", TEIL, "[2, 3, 4]");     /* T-SMul: scalar on the left */
  assert_true(p->stmts[0].rhs->scalar_op);
  free_prog(p);
  expect_type(DECLS, "mul s t", TEIL, "[]");          /* both rules agree */
  expect_type(DECLS, "mul (red+ 1 v) v", TEIL, "[5]");
  expect_type(MDECLS, "s * A", MODEL, "[2, 3, 4]");
  expect_type(MDECLS, "M * M", MODEL, "[3, 3]");
}

static void test_t_mul_reject(void **state) {
  (void)state;
  /* DECISIONS 6: the scalar factor must be on the left. */
  expect_reject2(DECLS, "mul v s", TEIL, "mul", "type-mismatch", "R-TY-5", "type mismatch in mul",
                 "mul: operand types [5] and [] differ and the left operand is not a scalar");
  expect_reject(DECLS, "mul v w", TEIL, "mul", "type-mismatch", "R-TY-5", "[5] and [4]");
  expect_reject(MDECLS, "A * s", MODEL, "*", "type-mismatch", "R-TY-5", "type mismatch in *");
}

/* ======================================================================== */
/* R-TY-6 (T-Div, T-SDiv)                                                   */
/* ======================================================================== */

static void test_t_div(void **state) {
  (void)state;
  Program *p = typed(DECLS, "div A A", TEIL, "[2, 3, 4]");
  assert_false(p->stmts[0].rhs->scalar_op);
  free_prog(p);
  p = typed(DECLS, "div A s", TEIL, "[2, 3, 4]");     /* T-SDiv: scalar on the right */
  assert_true(p->stmts[0].rhs->scalar_op);
  free_prog(p);
  expect_type(DECLS, "div s t", TEIL, "[]");
  expect_type(MDECLS, "A / s", MODEL, "[2, 3, 4]");
  expect_type(MDECLS, "v / v", MODEL, "[5]");
}

static void test_t_div_reject(void **state) {
  (void)state;
  /* DECISIONS 6: the scalar divisor must be on the right. */
  expect_reject2(DECLS, "div s v", TEIL, "div", "type-mismatch", "R-TY-6", "type mismatch in div",
                 "div: operand types [] and [5] differ and the right operand is not a scalar");
  expect_reject(DECLS, "div M N", TEIL, "div", "type-mismatch", "R-TY-6", "[3, 3] and [3, 5]");
  expect_reject(MDECLS, "s / A", MODEL, "/", "type-mismatch", "R-TY-6", "type mismatch in /");
}

/* ======================================================================== */
/* R-TY-7 (T-Prod)                                                          */
/* ======================================================================== */

static void test_t_prod(void **state) {
  (void)state;
  expect_type(DECLS, "prod P w", TEIL, "[2, 3, 4]");
  expect_type(DECLS, "prod A v", TEIL, "[2, 3, 4, 5]");
  expect_type(DECLS, "prod s v", TEIL, "[5]");
  expect_type(DECLS, "prod v s", TEIL, "[5]");
  expect_type(DECLS, "prod s t", TEIL, "[]");
  expect_type(DECLS, "prod (prod v w) s", TEIL, "[5, 4]");
  expect_type(MDECLS, "P # Q", MODEL, "[2, 3, 3, 4]");
  expect_type(MDECLS, "v # w # v", MODEL, "[5, 4, 5]");
}

/* R-TY-7, R-TY-17(c): a product with more than 2^59 elements. */
static void test_t_prod_too_large(void **state) {
  (void)state;
  const char *d = "alloc X : [1073741824]\nalloc Y : [1073741824]\nalloc Z : [536870912]\n";
  expect_reject2(d, "prod X Y", TEIL, "prod", "too-large", "R-TY-17", "type too large",
                 "[1073741824, 1073741824] has more than 576460752303423488 (2^59) elements");
  expect_type(d, "prod Z X", TEIL, "[536870912, 1073741824]");            /* exactly 2^59 */
  /* Counts that overflow 64 bits are still "too large", never wrap. */
  const char *big = "alloc X : [576460752303423488]\nalloc Y : [8]\n";
  expect_reject(big, "prod X X", TEIL, "prod", "too-large", "R-TY-17", "type too large");
  const char *m = "var X : [1073741824]\nvar Y : [1073741824]\n";
  expect_reject(m, "X # Y", MODEL, "#", "too-large", "R-TY-17", "type too large");
}

/* ======================================================================== */
/* R-TY-8 (T-Red)                                                           */
/* ======================================================================== */

static void test_t_red(void **state) {
  (void)state;
  expect_type(DECLS, "red+ 1 A", TEIL, "[3, 4]");
  expect_type(DECLS, "red+ 2 A", TEIL, "[2, 4]");
  expect_type(DECLS, "red+ 3 A", TEIL, "[2, 3]");
  expect_type(DECLS, "red+ 1 v", TEIL, "[]");
  expect_type(DECLS, "red_+ 1 (red+ 1 M)", TEIL, "[]");
}

static void test_t_red_reject(void **state) {
  (void)state;
  expect_reject2(DECLS, "red+ 0 A", TEIL, "0", "position-out-of-range", "R-TY-8", "position 0 out of range in red+ 0",
                 "red+ 0: the operand type [2, 3, 4] has rank 3; positions must be in 1..3");
  expect_reject(DECLS, "red+ 4 A", TEIL, "4", "position-out-of-range", "R-TY-8", "position 4 out of range in red+ 4");
  expect_reject2(DECLS, "red+ 1 s", TEIL, "1", "position-out-of-range", "R-TY-8", "position 1 out of range",
                 "red+ 1: the operand is a scalar ([]) and has no positions");
  /* red_+ and leading zeros are shown normalised. */
  expect_reject(DECLS, "red_+ 007 v", TEIL, "007", "position-out-of-range", "R-TY-8",
                "position 7 out of range in red+ 7");
}

/* The caret of an error at an integer literal covers its first byte only. */
static void test_literal_error_length(void **state) {
  (void)state;
  Program *p = check_prog(DECLS "alloc R : [1]\nR = red+ 123 A\n", TEIL);
  assert_nerrors(p, 1);
  assert_int_equal(p->diags.first->len, 1);
  assert_int_equal(p->diags.first->loc.col, 10);
  free_prog(p);
  p = check_prog(DECLS "alloc R : [1]\nR = contr 1 3 A\n", TEIL);  /* at the operator: its length */
  assert_nerrors(p, 1);
  assert_int_equal(p->diags.first->len, 5);
  free_prog(p);
}

/* ======================================================================== */
/* R-TY-9 (T-Transp)                                                        */
/* ======================================================================== */

static void test_t_transp(void **state) {
  (void)state;
  expect_type(DECLS, "transp 1 2 A", TEIL, "[3, 2, 4]");
  expect_type(DECLS, "transp 1 3 A", TEIL, "[4, 3, 2]");
  expect_type(DECLS, "transp 2 3 A", TEIL, "[2, 4, 3]");
  /* DECISIONS 3: i > j means transp j i. */
  expect_type(DECLS, "transp 3 1 A", TEIL, "[4, 3, 2]");
  expect_type(DECLS, "transp 2 1 P", TEIL, "[3, 2]");
  expect_type(MDECLS, "A ^[1 3]", MODEL, "[4, 3, 2]");
  expect_type(MDECLS, "A ^[3, 2]", MODEL, "[2, 4, 3]");
  expect_type(MDECLS, "A ^[1 2] ^[2 3]", MODEL, "[3, 4, 2]");
}

static void test_t_transp_reject(void **state) {
  (void)state;
  /* DECISIONS 2: equal positions, reported at j. */
  expect_reject2(DECLS, "transp 2 2 A", TEIL, "2 A", "equal-positions", "R-TY-9", "equal positions in transp 2 2",
                 "transp 2 2: the two positions must differ");
  expect_reject(DECLS, "transp 0 1 A", TEIL, "0", "position-out-of-range", "R-TY-9", "position 0 out of range in transp 0 1");
  expect_reject(DECLS, "transp 1 4 A", TEIL, "4", "position-out-of-range", "R-TY-9", "position 4 out of range");
  expect_reject(DECLS, "transp 1 2 v", TEIL, "2 v", "position-out-of-range", "R-TY-9", "positions must be in 1..1");
  expect_reject(MDECLS, "A ^[1 1]", MODEL, "1]", "equal-positions", "R-TY-9", "equal positions in ^[1 1]");
  expect_reject(MDECLS, "A ^[1 5]", MODEL, "5", "position-out-of-range", "R-TY-9", "position 5 out of range in ^[1 5]");
}

/* typing.md "Error propagation": both positions out of range give two errors. */
static void test_t_transp_both_out_of_range(void **state) {
  (void)state;
  Program *p = check_prog(DECLS "alloc R : [1]\nR = transp 0 9 A\n", TEIL);
  assert_nerrors(p, 2);
  assert_err(p, 11, 12, "position-out-of-range", "R-TY-9", "position 0 out of range in transp 0 9");
  assert_err(p, 11, 14, "position-out-of-range", "R-TY-9", "position 9 out of range in transp 0 9");
  free_prog(p);
  p = check_prog(DECLS "alloc R : [1]\nR = contr 5 0 s\n", TEIL);
  assert_nerrors(p, 2);
  assert_err(p, 11, 11, "position-out-of-range", "R-TY-13", "the operand is a scalar");
  assert_err(p, 11, 13, "position-out-of-range", "R-TY-13", NULL);
  free_prog(p);
  /* Equal and both out of range: the two range errors, no equal-positions. */
  p = check_prog(DECLS "alloc R : [1]\nR = diag 4 4 A\n", TEIL);
  assert_nerrors(p, 2);
  assert_err(p, 11, 10, "position-out-of-range", "R-TY-10", NULL);
  assert_err(p, 11, 12, "position-out-of-range", "R-TY-10", NULL);
  free_prog(p);
}

/* ======================================================================== */
/* R-TY-10 (T-Diag)                                                         */
/* ======================================================================== */

static void test_t_diag(void **state) {
  (void)state;
  const char *d = "alloc T : [3, 2, 3]\nalloc U : [2, 3, 3, 4]\n";
  expect_type(d, "diag 1 3 T", TEIL, "[3, 2]");
  expect_type(d, "diag 2 3 U", TEIL, "[2, 3, 4]");
  /* DECISIONS 4: i > j keeps the dimension at min(i, j) and drops max(i, j). */
  expect_type(d, "diag 3 1 T", TEIL, "[3, 2]");
  expect_type(d, "diag 3 2 U", TEIL, "[2, 3, 4]");
  expect_type(DECLS, "diag 1 2 M", TEIL, "[3]");
  expect_type(DECLS, "diag 2 1 M", TEIL, "[3]");
}

static void test_t_diag_reject(void **state) {
  (void)state;
  const char *d = "alloc T : [3, 2, 3]\n";
  expect_reject2(d, "diag 1 2 T", TEIL, "diag", "type-mismatch", "R-TY-10", "type mismatch in diag 1 2",
                 "diag 1 2: dimension 1 has extent 3 but dimension 2 has extent 2 (operand type [3, 2, 3])");
  expect_reject(d, "diag 2 1 T", TEIL, "diag", "type-mismatch", "R-TY-10",
                "dimension 2 has extent 2 but dimension 1 has extent 3");
  expect_reject(d, "diag 3 3 T", TEIL, "3 T", "equal-positions", "R-TY-10", "equal positions in diag 3 3");
  expect_reject(d, "diag 0 1 T", TEIL, "0", "position-out-of-range", "R-TY-10", "position 0 out of range in diag 0 1");
  expect_reject(d, "diag 1 4 T", TEIL, "4", "position-out-of-range", "R-TY-10", "positions must be in 1..3");
}

/* ======================================================================== */
/* R-TY-11 (T-Expa)                                                         */
/* ======================================================================== */

static void test_t_expa(void **state) {
  (void)state;
  expect_type(DECLS, "expa 1 5 Q", TEIL, "[5, 3, 4]");
  expect_type(DECLS, "expa 2 1 Q", TEIL, "[3, 1, 4]");
  expect_type(DECLS, "expa 3 7 Q", TEIL, "[3, 4, 7]");           /* position rank+1 */
  expect_type(DECLS, "expa 1 7 s", TEIL, "[7]");                 /* on a scalar: 1..1 */
  expect_type(DECLS, "expa 2 2 (expa 1 3 s)", TEIL, "[3, 2]");
  /* Exactly 2^59 elements. */
  expect_type("alloc X : [1073741824]\n", "expa 1 536870912 X", TEIL, "[536870912, 1073741824]");
}

static void test_t_expa_reject(void **state) {
  (void)state;
  expect_reject2(DECLS, "expa 4 5 Q", TEIL, "4", "position-out-of-range", "R-TY-11",
                 "position 4 out of range in expa 4 5",
                 "expa 4 5: the operand type [3, 4] has rank 2; positions must be in 1..3");
  expect_reject(DECLS, "expa 0 5 Q", TEIL, "0", "position-out-of-range", "R-TY-11", "position 0 out of range");
  expect_reject(DECLS, "expa 2 3 s", TEIL, "2", "position-out-of-range", "R-TY-11",
                "expa 2 3: the operand type [] has rank 0; positions must be in 1..1");
  /* R-TY-17(d): extent 0 at n. */
  expect_reject2(DECLS, "expa 1 0 Q", TEIL, "0", "extent-zero", "R-TY-17", "extent must be at least 1",
                 "expa 1 0: the new dimension would have extent 0");
  expect_reject(DECLS, "expa 2 000 v", TEIL, "000", "extent-zero", "R-TY-17", "expa 2 0:");
  /* R-TY-17(c): too large, at the operator. */
  expect_reject2(DECLS, "expa 1 4611686018427387904 Q", TEIL, "expa", "too-large", "R-TY-17", "type too large",
                 "[4611686018427387904, 3, 4] has more than 576460752303423488 (2^59) elements");
  expect_reject("alloc X : [1073741824]\n", "expa 2 536870913 X", TEIL, "expa", "too-large", "R-TY-17", NULL);
  /* Order of checks: the position first. */
  expect_reject(DECLS, "expa 5 0 Q", TEIL, "5", "position-out-of-range", "R-TY-11", NULL);
}

/* ======================================================================== */
/* R-TY-12 (T-Proj)                                                         */
/* ======================================================================== */

static void test_t_proj(void **state) {
  (void)state;
  const char *d = "alloc B : [5, 3, 4]\n";
  expect_type(d, "proj 1 2 B", TEIL, "[3, 4]");
  expect_type(d, "proj 1 5 B", TEIL, "[3, 4]");                  /* index = extent */
  expect_type(d, "proj 2 1 B", TEIL, "[5, 4]");
  expect_type(d, "proj 3 4 B", TEIL, "[5, 3]");
  expect_type(DECLS, "proj 1 5 v", TEIL, "[]");
}

static void test_t_proj_reject(void **state) {
  (void)state;
  const char *d = "alloc B : [5, 3, 4]\n";
  expect_reject2(d, "proj 1 0 B", TEIL, "0", "index-out-of-range", "R-TY-12", "index 0 out of range in proj 1 0",
                 "proj 1 0: dimension 1 has extent 5; the index must be in 1..5 (operand type [5, 3, 4])");
  expect_reject(d, "proj 2 4 B", TEIL, "4", "index-out-of-range", "R-TY-12", "index 4 out of range in proj 2 4");
  expect_reject(d, "proj 1 6 B", TEIL, "6", "index-out-of-range", "R-TY-12", "must be in 1..5");
  expect_reject(d, "proj 0 1 B", TEIL, "0", "position-out-of-range", "R-TY-12", "position 0 out of range in proj 0 1");
  expect_reject(d, "proj 4 1 B", TEIL, "4", "position-out-of-range", "R-TY-12", "positions must be in 1..3");
  expect_reject(DECLS, "proj 1 1 s", TEIL, "1 1", "position-out-of-range", "R-TY-12", "the operand is a scalar");
  /* Order of checks: the position first. */
  expect_reject(d, "proj 4 9 B", TEIL, "4", "position-out-of-range", "R-TY-12", NULL);
}

/* ======================================================================== */
/* R-TY-13 (T-Contr)                                                        */
/* ======================================================================== */

static void test_t_contr(void **state) {
  (void)state;
  expect_type(DECLS, "contr 2 3 (prod P Q)", TEIL, "[2, 4]");
  /* DECISIONS 5: i > j means contr j i. */
  expect_type(DECLS, "contr 3 2 (prod P Q)", TEIL, "[2, 4]");
  expect_type(DECLS, "contr 1 2 M", TEIL, "[]");
  expect_type(DECLS, "contr 2 1 M", TEIL, "[]");
  expect_type(DECLS, "contr 1 3 (prod M N)", TEIL, "[3, 5]");
  /* Derivable: contr i j e has the type of red+ min(i,j) (diag i j e). */
  expect_type(DECLS, "red+ 2 (diag 3 2 (prod P Q))", TEIL, "[2, 4]");
  expect_type(DECLS, "red+ 1 (diag 1 2 M)", TEIL, "[]");
  expect_type(MDECLS, "(P # Q).[2 3]", MODEL, "[2, 4]");
  expect_type(MDECLS, "(P # Q).[3, 2]", MODEL, "[2, 4]");
  expect_type(MDECLS, "M .[1 2]", MODEL, "[]");
}

static void test_t_contr_reject(void **state) {
  (void)state;
  expect_reject2(DECLS, "contr 1 2 P", TEIL, "contr", "type-mismatch", "R-TY-13", "type mismatch in contr 1 2",
                 "contr 1 2: dimension 1 has extent 2 but dimension 2 has extent 3 (operand type [2, 3])");
  expect_reject(DECLS, "contr 2 2 M", TEIL, "2 M", "equal-positions", "R-TY-13", "equal positions in contr 2 2");
  expect_reject(DECLS, "contr 0 1 M", TEIL, "0", "position-out-of-range", "R-TY-13", "position 0 out of range in contr 0 1");
  expect_reject(DECLS, "contr 1 3 M", TEIL, "3", "position-out-of-range", "R-TY-13", "positions must be in 1..2");
  expect_reject(DECLS, "contr 1 2 v", TEIL, "2", "position-out-of-range", "R-TY-13", "position 2 out of range");
  /* Model: type mismatch at '.', positions at their literals. */
  expect_reject2(MDECLS, "(P # Q).[1 3]", MODEL, ".", "type-mismatch", "R-TY-13", "type mismatch in .[1 3]",
                 ".[1 3]: dimension 1 has extent 2 but dimension 3 has extent 3 (operand type [2, 3, 3, 4])");
  expect_reject(MDECLS, "M .[1 3]", MODEL, "3]", "position-out-of-range", "R-TY-13", "position 3 out of range in .[1 3]");
  expect_reject(MDECLS, "M .[2 2]", MODEL, "2]", "equal-positions", "R-TY-13", "equal positions in .[2 2]");
}

/* TeIL Fig. 3a (TVM): rejected by R-TY-13 (typing.md worked example). */
static void test_tvm_fig3a_rejected(void **state) {
  (void)state;
  Program *p = check_prog("alloc input A : [3, 7]        # (m, h)\n"
                          "alloc input B : [5, 7]        # (n, h)\n"
                          "alloc output C : [3, 5]\n"
                          "C = contr 1 3 (prod A B)\n",
                          TEIL);
  assert_nerrors(p, 1);
  assert_nwarnings(p, 0);
  assert_err(p, 4, 5, "type-mismatch", "R-TY-13", "type mismatch in contr 1 3");
  assert_err(p, 4, 5, "type-mismatch", "R-TY-13",
             "contr 1 3: dimension 1 has extent 3 but dimension 3 has extent 5 (operand type [3, 7, 5, 7])");
  assert_int_equal(p->diags.first->len, 5);
  free_prog(p);
  /* Fig. 3b / 10b is fine. */
  p = check_prog("alloc input A : [7, 3]\nalloc input B : [7, 5]\nalloc output C : [3, 5]\n"
                 "C = contr 1 3 (prod A B)\n",
                 TEIL);
  assert_clean(p);
  assert_type(p->stmts[0].rhs->ty, "[3, 5]");
  assert_type(p->stmts[0].rhs->a->ty, "[7, 3, 7, 5]");
  free_prog(p);
  /* Even with m = n the result [h, h] does not fit C : [m, n]: assign-mismatch. */
  p = check_prog("alloc A : [3, 7]\nalloc B : [3, 7]\nalloc C : [3, 3]\nC = contr 1 3 (prod A B)\n", TEIL);
  assert_nerrors(p, 1);
  assert_err(p, 4, 1, "assign-mismatch", "R-TY-14", "'C' has type [3, 3] but the right-hand side has type [7, 7]");
  free_prog(p);
}

/* ======================================================================== */
/* R-TY-14 (OK-Stmt) - failure modes 2 and 3                                */
/* ======================================================================== */

static void test_ok_stmt(void **state) {
  (void)state;
  Program *p = check_prog("alloc A : [3, 3]\nalloc s : []\nA = transp 1 2 A\ns = contr 1 2 A\nA = mul s A", TEIL);
  assert_nerrors(p, 0);
  for (int i = 0; i < p->nstmts; i++)
    assert_true(p->stmts[i].ok);
  assert_int_equal(p->stmts[0].target, 0);
  assert_int_equal(p->stmts[0].nth, 1);
  assert_int_equal(p->stmts[2].nth, 2);
  free_prog(p);
}

static void test_assign_undeclared(void **state) {
  (void)state;
  Program *p = check_prog(DECLS "X = A\n", TEIL);
  assert_nerrors(p, 1);
  assert_err(p, 10, 1, "assign-undeclared", "R-TY-14", "assignment to undeclared tensor 'X'");
  assert_int_equal(p->stmts[0].target, -1);
  assert_false(p->stmts[0].ok);
  assert_type(p->stmts[0].rhs->ty, "[2, 3, 4]");  /* the right-hand side is still checked */
  free_prog(p);
  /* ... and its errors reported. */
  p = check_prog(DECLS "X = add v w\n", TEIL);
  assert_nerrors(p, 2);
  assert_err(p, 10, 1, "assign-undeclared", "R-TY-14", NULL);
  assert_err(p, 10, 5, "type-mismatch", "R-TY-4", NULL);
  free_prog(p);
}

static void test_assign_mismatch(void **state) {
  (void)state;
  Program *p = check_prog(DECLS "alloc C : [3, 5]\nC = transp 1 2 N\n", TEIL);
  assert_nerrors(p, 1);
  assert_err(p, 11, 1, "assign-mismatch", "R-TY-14", "type mismatch in assignment to 'C'");
  assert_err(p, 11, 1, "assign-mismatch", "R-TY-14", "'C' has type [3, 5] but the right-hand side has type [5, 3]");
  free_prog(p);
  /* No implicit broadcasting of a scalar. */
  p = check_prog(DECLS "v = s\n", TEIL);
  assert_nerrors(p, 1);
  assert_err(p, 10, 1, "assign-mismatch", "R-TY-14", "'v' has type [5] but the right-hand side has type []");
  free_prog(p);
  p = check_prog(MDECLS "s = v .[1 1]\n", MODEL);  /* ill-typed rhs: no assignment error */
  assert_nerrors(p, 1);
  assert_err(p, 10, 11, "equal-positions", "R-TY-13", "equal positions in .[1 1]");
  free_prog(p);
  p = check_prog(MDECLS "M = N\n", MODEL);
  assert_nerrors(p, 1);
  assert_err(p, 10, 1, "assign-mismatch", "R-TY-14", "'M' has type [3, 3] but the right-hand side has type [3, 5]");
  free_prog(p);
}

/* ======================================================================== */
/* R-TY-15, R-TY-16 (OK-Empty, OK-Seq, OK-Prog)                             */
/* ======================================================================== */

static void test_ok_seq_prog(void **state) {
  (void)state;
  assert_int_equal(check_str("", TEIL), 0);                   /* OK-Empty, OK-Prog */
  assert_int_equal(check_str(DECLS, TEIL), 0);                /* no statements */
  assert_int_equal(check_str("A = B", TEIL), 2);              /* no declarations */
  /* A sequence is well-formed iff each statement is: one bad statement among good ones. */
  Program *p = check_prog(DECLS "v = v\nM = N\nw = red+ 1 (red+ 1 A)\nP = P\n", TEIL);
  assert_nerrors(p, 1);
  assert_true(p->stmts[0].ok);
  assert_false(p->stmts[1].ok);
  assert_true(p->stmts[2].ok);
  assert_true(p->stmts[3].ok);
  assert_int_equal(teil_check((TeilProgram *)p), 1);           /* idempotent */
  assert_int_equal(teil_nerrors((TeilProgram *)p), 1);
  free_prog(p);
}

/* ======================================================================== */
/* R-TY-17 (size limits)                                                    */
/* ======================================================================== */

/* R-TY-17(a): extent 0 in a declaration; the name is still declared (type err),
 * so uses and assignments of it give no follow-on errors. */
static void test_decl_extent_zero(void **state) {
  (void)state;
  Program *p = check_prog("alloc A : [3, 0, 4]\nalloc B : [3]\nB = red+ 1 A\nA = B\nB = A\n", TEIL);
  assert_nerrors(p, 1);
  assert_err(p, 1, 15, "extent-zero", "R-TY-17", "extent must be at least 1");
  assert_err(p, 1, 15, "extent-zero", "R-TY-17", "dimension 2 of 'A' is declared with extent 0");
  assert_int_equal(p->diags.first->len, 1);
  assert_true(prog_find(p, "A") >= 0);
  assert_int_equal(p->tensors[prog_find(p, "A")].ty.rank, -1);
  free_prog(p);
  p = check_prog("var x : [0 0]\nvar y : [00]\n", MODEL);
  assert_nerrors(p, 2);                         /* one per declaration (R-TY-17(e)) */
  assert_err(p, 1, 10, "extent-zero", "R-TY-17", "dimension 1 of 'x'");
  assert_err(p, 2, 10, "extent-zero", "R-TY-17", "dimension 1 of 'y'");
  free_prog(p);
}

/* R-TY-17(c): a declared type above 2^59 elements, at the name. */
static void test_decl_too_large(void **state) {
  (void)state;
  Program *p = check_prog("alloc  Big : [1073741824, 1073741824]\nalloc B : [3]\nB = red+ 1 (red+ 1 Big)\nBig = Big\n",
                          TEIL);
  assert_nerrors(p, 1);
  assert_err(p, 1, 8, "too-large", "R-TY-17", "type too large");
  assert_err(p, 1, 8, "too-large", "R-TY-17",
             "[1073741824, 1073741824] has more than 576460752303423488 (2^59) elements");
  assert_int_equal(p->diags.first->len, 3);
  free_prog(p);
  /* 2^59 exactly is fine; 2^59 + something is not; overflowing products too. */
  assert_int_equal(check_str("alloc A : [536870912, 1073741824]", TEIL), 0);
  assert_int_equal(check_str("alloc A : [576460752303423488]", TEIL), 0);
  assert_int_equal(check_str("alloc A : [576460752303423489]", TEIL), 1);
  assert_int_equal(check_str("alloc A : [4611686018427387904, 4611686018427387904, 4611686018427387904, 2]", TEIL), 1);
  assert_int_equal(check_str("var A : [65536 65536 65536 65536 65536]", MODEL), 1);
  /* Extents of 1 never make a type large; rank is not limited. */
  char src[4200];
  char *q = src + sprintf(src, "alloc A : [");
  for (int i = 0; i < 2000; i++)
    q += sprintf(q, "1 ");
  sprintf(q, "]\nA = A");
  Program *r = check_prog(src, TEIL);
  assert_clean(r);
  assert_int_equal(r->tensors[0].ty.rank, 2000);
  free_prog(r);
}

/* R-TY-17(e): in a declaration every too-large literal is reported, of the
 * other checks only the first failing one. */
static void test_decl_first_failing_check(void **state) {
  (void)state;
  Program *p = check_prog("alloc A : [2, 0, 99999999999999999999, 0]\n", TEIL);
  assert_nerrors(p, 2);
  assert_err(p, 1, 15, "extent-zero", "R-TY-17", NULL);
  assert_err(p, 1, 18, "literal-too-large", "R-LEX-5", NULL);
  free_prog(p);
  p = check_prog("alloc A : [99999999999999999999, 0, 88888888888888888888]\n", TEIL);
  assert_nerrors(p, 2);                         /* both literals, not the 0 */
  assert_err(p, 1, 12, "literal-too-large", "R-LEX-5", NULL);
  assert_err(p, 1, 37, "literal-too-large", "R-LEX-5", NULL);
  free_prog(p);
  p = check_prog("alloc A : [0, 4611686018427387904, 4611686018427387904]\n", TEIL);
  assert_nerrors(p, 1);                         /* the 0, not the count */
  assert_err(p, 1, 12, "extent-zero", "R-TY-17", NULL);
  free_prog(p);
}

/* ======================================================================== */
/* R-TY-18 (qualifiers)                                                     */
/* ======================================================================== */

static void test_qualifier_default(void **state) {
  (void)state;
  /* No qualifier anywhere: every tensor is input output. */
  Program *p = check_prog("alloc A : [3]\nalloc B : [3]\nB = A", TEIL);
  assert_nerrors(p, 0);
  for (int t = 0; t < p->ntensors; t++)
    assert_int_equal(teil_tensor_qual((TeilProgram *)p, t), TEIL_INPUT | TEIL_OUTPUT);
  assert_false(p->any_qualifier);
  free_prog(p);
  /* One qualifier: the unqualified tensors are temporaries. */
  p = check_prog("var input A : [3]\nvar B : [3]\nvar output C : [3]\nvar input output D : [3]\nB = A\nC = B\nD = C", MODEL);
  assert_nerrors(p, 0);
  assert_int_equal(teil_tensor_qual((TeilProgram *)p, 0), TEIL_INPUT);
  assert_int_equal(teil_tensor_qual((TeilProgram *)p, 1), 0);
  assert_int_equal(teil_tensor_qual((TeilProgram *)p, 2), TEIL_OUTPUT);
  assert_int_equal(teil_tensor_qual((TeilProgram *)p, 3), TEIL_INPUT | TEIL_OUTPUT);
  free_prog(p);
  /* Qualifiers do not affect typing; an input may be assigned. */
  p = check_prog("alloc input A : [2, 2]\nalloc output B : [2]\nA = transp 1 2 A\nB = red+ 1 A", TEIL);
  assert_nerrors(p, 0);
  assert_type(p->stmts[1].rhs->ty, "[2]");
  free_prog(p);
}

/* ======================================================================== */
/* R-TY-19 and error propagation: one error per mistake                     */
/* ======================================================================== */

/* R-TY-19: every node of a well-typed expression has its type. */
static void test_types_of_subexpressions(void **state) {
  (void)state;
  /* TeIL Fig. 7 derivation (typing.md worked example). */
  Program *p = check_prog("alloc input A : [2, 3]\nalloc input B : [3, 4]\nalloc output C : [2, 4]\n"
                          "C = red+ 2 (diag 2 3 (prod A B))\n",
                          TEIL);
  assert_clean(p);
  const Expr *e = p->stmts[0].rhs;
  assert_type(e->ty, "[2, 4]");
  assert_type(e->a->ty, "[2, 3, 4]");
  assert_type(e->a->a->ty, "[2, 3, 3, 4]");
  assert_type(e->a->a->a->ty, "[2, 3]");
  assert_type(e->a->a->b->ty, "[3, 4]");
  assert_all_typed(e);
  free_prog(p);
}

/* An ill-typed sub-expression makes its parents err silently; the statement
 * gets no assignment error. */
static void test_no_cascade(void **state) {
  (void)state;
  Program *p = check_prog(DECLS "alloc R : [7, 7]\nR = add (mul s (add (prod (contr 1 2 P) v) v)) (transp 1 2 M)\n", TEIL);
  assert_nerrors(p, 1);
  assert_err(p, 11, 28, "type-mismatch", "R-TY-13", NULL);
  const Expr *e = p->stmts[0].rhs;
  assert_int_equal(e->ty.rank, -1);
  assert_int_equal(e->a->ty.rank, -1);
  assert_type(e->b->ty, "[3, 3]");              /* the sibling is still typed */
  free_prog(p);
  /* Undeclared names inside: one error per occurrence, nothing above. */
  p = check_prog(DECLS "alloc R : [1]\nR = contr 1 2 (prod X v)\n", TEIL);
  assert_nerrors(p, 1);
  assert_err(p, 11, 21, "undeclared", "R-TY-2", NULL);
  free_prog(p);
  /* A too-large literal as a position: the lexer's error only. */
  p = check_prog(DECLS "alloc R : [1]\nR = transp 1 99999999999999999999 (add v w)\n", TEIL);
  assert_nerrors(p, 2);                         /* the literal, and add's own mistake */
  assert_err(p, 11, 14, "literal-too-large", "R-LEX-5", NULL);
  assert_err(p, 11, 36, "type-mismatch", "R-TY-4", NULL);
  free_prog(p);
  p = check_prog(DECLS "alloc R : [1]\nR = transp 1 99999999999999999999 A\n", TEIL);
  assert_nerrors(p, 1);
  free_prog(p);
}

/* typing.md: sibling operands are always both checked. */
static void test_siblings_both_checked(void **state) {
  (void)state;
  Program *p = check_prog(DECLS "alloc R : [1]\nR = add (contr 1 1 M) (transp 1 5 A)\n", TEIL);
  assert_nerrors(p, 2);
  assert_err(p, 11, 18, "equal-positions", "R-TY-13", NULL);
  assert_err(p, 11, 33, "position-out-of-range", "R-TY-9", NULL);
  free_prog(p);
  p = check_prog(MDECLS "var R : [1]\nR = (v + w) # (M .[1 1])\n", MODEL);
  assert_nerrors(p, 2);
  assert_err(p, 11, 8, "type-mismatch", "R-TY-4", NULL);
  assert_err(p, 11, 22, "equal-positions", "R-TY-13", NULL);
  free_prog(p);
}

/* The report's five failure modes (Sec. 3.2.1), one error each, in one file. */
static void test_five_failure_modes(void **state) {
  (void)state;
  Program *p = check_prog("var A : [3 4]\n"
                          "var B : [4 5]\n"
                          "var C : [3 5]\n"
                          "var A : [2]\n"            /* (1) re-declaration */
                          "D = A\n"                  /* (2) assignment to an undeclared name */
                          "C = A # B\n"              /* (3) type mismatch in an assignment */
                          "C = (A # E).[2 3]\n"      /* (4) use of an undeclared name */
                          "C = (A # A).[2 3]\n",     /* (5) type mismatch in an expression */
                          MODEL);
  assert_nerrors(p, 5);
  assert_err(p, 4, 5, "redeclared", "R-TY-1", "redeclaration of 'A'");
  assert_err(p, 5, 1, "assign-undeclared", "R-TY-14", "assignment to undeclared tensor 'D'");
  assert_err(p, 6, 1, "assign-mismatch", "R-TY-14", "type mismatch in assignment to 'C'");
  assert_err(p, 7, 10, "undeclared", "R-TY-2", "use of undeclared tensor 'E'");
  assert_err(p, 8, 12, "type-mismatch", "R-TY-13", "dimension 2 has extent 4 but dimension 3 has extent 3");
  free_prog(p);
}

/* ======================================================================== */
/* The papers' worked examples (typing.md)                                  */
/* ======================================================================== */

static void test_teil_fig10_fig11(void **state) {
  (void)state;
  /* Fig. 10a (a), (b), I, J, K = 2, 3, 4 */
  expect_type("alloc B : [2, 3, 4]\nalloc C : [4]\n", "contr 3 4 (prod B C)", TEIL, "[2, 3]");
  expect_type("alloc B : [2, 3, 4]\nalloc C : [2]\n", "red+ 3 (diag 1 4 (prod B C))", TEIL, "[2, 3]");
  /* Fig. 10a (c): as printed, the transpose of A's type: assign-mismatch. */
  Program *p = check_prog("alloc B : [4, 3, 2]\nalloc C : [2]\nalloc A : [2, 3]\nA = red+ 1 (diag 3 4 (prod B C))\n", TEIL);
  assert_nerrors(p, 1);
  assert_err(p, 4, 1, "assign-mismatch", "R-TY-14", "'A' has type [2, 3] but the right-hand side has type [3, 2]");
  free_prog(p);
  expect_type("alloc B : [4, 3, 2]\nalloc C : [2]\n", "transp 1 2 (red+ 1 (diag 3 4 (prod B C)))", TEIL, "[2, 3]");
  /* Fig. 10c */
  assert_int_equal(check_str("alloc A : [7]\nalloc B : [7]\nalloc C : [7]\nA = B\nA = add A C\n", TEIL), 0);
  /* Fig. 11 */
  p = check_prog("alloc input A : [3, 4]\nalloc input B : [5, 3, 4]\nalloc output C : [3, 4]\n"
                 "alloc output D : [5, 3, 4]\nC = add A (proj 1 2 B)\nD = add (expa 1 5 A) B\n",
                 TEIL);
  assert_clean(p);
  assert_type(p->stmts[0].rhs->b->ty, "[3, 4]");
  assert_type(p->stmts[1].rhs->a->ty, "[5, 3, 4]");
  free_prog(p);
}

static void test_report_fig4_to_6(void **state) {
  (void)state;
  expect_type("var A : [300 400]\nvar B : [400 500]\n", "(A # B).[2 3]", MODEL, "[300, 500]");
  Program *p = typed("var A : [300 400]\nvar B : [400 300]\n", "((A # B).[2 3]).[1 2]", MODEL, "[]");
  assert_type(p->stmts[0].rhs->a->ty, "[300, 300]");
  assert_type(p->stmts[0].rhs->a->a->ty, "[300, 400, 400, 300]");
  free_prog(p);
  expect_type("var u : [200 300 400 500 600]\n", "u ^[2 4]", MODEL, "[200, 500, 400, 300, 600]");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_context_formation),
      cmocka_unit_test(test_redeclaration),
      cmocka_unit_test(test_t_var),
      cmocka_unit_test(test_t_var_undeclared),
      cmocka_unit_test(test_t_paren),
      cmocka_unit_test(test_t_add_sub),
      cmocka_unit_test(test_t_add_sub_reject),
      cmocka_unit_test(test_t_mul),
      cmocka_unit_test(test_t_mul_reject),
      cmocka_unit_test(test_t_div),
      cmocka_unit_test(test_t_div_reject),
      cmocka_unit_test(test_t_prod),
      cmocka_unit_test(test_t_prod_too_large),
      cmocka_unit_test(test_t_red),
      cmocka_unit_test(test_t_red_reject),
      cmocka_unit_test(test_literal_error_length),
      cmocka_unit_test(test_t_transp),
      cmocka_unit_test(test_t_transp_reject),
      cmocka_unit_test(test_t_transp_both_out_of_range),
      cmocka_unit_test(test_t_diag),
      cmocka_unit_test(test_t_diag_reject),
      cmocka_unit_test(test_t_expa),
      cmocka_unit_test(test_t_expa_reject),
      cmocka_unit_test(test_t_proj),
      cmocka_unit_test(test_t_proj_reject),
      cmocka_unit_test(test_t_contr),
      cmocka_unit_test(test_t_contr_reject),
      cmocka_unit_test(test_tvm_fig3a_rejected),
      cmocka_unit_test(test_ok_stmt),
      cmocka_unit_test(test_assign_undeclared),
      cmocka_unit_test(test_assign_mismatch),
      cmocka_unit_test(test_ok_seq_prog),
      cmocka_unit_test(test_decl_extent_zero),
      cmocka_unit_test(test_decl_too_large),
      cmocka_unit_test(test_decl_first_failing_check),
      cmocka_unit_test(test_qualifier_default),
      cmocka_unit_test(test_types_of_subexpressions),
      cmocka_unit_test(test_no_cascade),
      cmocka_unit_test(test_siblings_both_checked),
      cmocka_unit_test(test_five_failure_modes),
      cmocka_unit_test(test_teil_fig10_fig11),
      cmocka_unit_test(test_report_fig4_to_6),
  };
  return RUN_TESTS(tests);
}
