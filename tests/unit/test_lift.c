/*
 * test_lift.c - the contraction-lifting pass (src/lift.c) against spec/lifting.md
 * (R-LIFT-1 .. R-LIFT-12): the CFD operator of TeIL Sec. 5, contraction order,
 * distribution over add, scalars, in-place statements, profitability, and
 * semantic equivalence on the reference interpreter for hand-written and
 * randomly generated programs.
 */
#include "unit.h"

#include <math.h>

#include "lift.h"

/* ---- helpers ------------------------------------------------------------- */

/* Checks src (must be error-free), lifts it; both programs stay registered. */
static Program *lift_src(const char *src, Program **orig, LiftStats *st) {
  Program *p = check_prog(src, TEIL);
  if (p->diags.nerrors) {
    dump_diags(p);
    fail_msg("the test program has errors:\n%s", src);
  }
  char err[256] = "";
  TeilProgram *q = lift_program((TeilProgram *)p, st, err, sizeof err);
  if (!q)
    fail_msg("lift_program failed: %s\n%s", err, src);
  unit_register(q);
  if (orig)
    *orig = p;
  return &q->p;
}

/* The lifted program as text. Caller frees. */
static char *text_of(const Program *q) {
  Buf b = {0};
  pr_program(q, &b);
  return b.s ? b.s : strdup("");
}

static int count_kind(const Expr *e, ExprKind k) {
  if (e->kind == EX_VAR)
    return k == EX_VAR;
  return (e->kind == k) + count_kind(e->a, k) + (e->b ? count_kind(e->b, k) : 0);
}

static int count_stmts_with(const Program *q, ExprKind k) {
  int n = 0;
  for (int i = 0; i < q->nstmts; i++)
    n += count_kind(q->stmts[i].rhs, k) > 0;
  return n;
}

static bool reads(const Expr *e, int t) {
  if (e->kind == EX_VAR)
    return e->tensor == t;
  return reads(e->a, t) || (e->b && reads(e->b, t));
}

/* R-LIFT-10: reads t other than on an add/sub/mul/div path from the root. */
static bool reads_shifted(const Expr *e, int t, bool ew) {
  if (e->kind == EX_VAR)
    return e->tensor == t && !ew;
  bool ew2 = ew && (e->kind == EX_ADD || e->kind == EX_SUB || e->kind == EX_MUL || e->kind == EX_DIV);
  return reads_shifted(e->a, t, ew2) || (e->b && reads_shifted(e->b, t, ew2));
}

/* Structural checks of a lifted program against its original (R-LIFT-1, R-LIFT-7,
 * R-LIFT-10): user tensors first and unchanged, temporaries local and written
 * once before use, user tensors assigned in the original order. */
static void check_structure(const Program *p, const Program *q, bool single_steps) {
  assert_true(q->checked);
  assert_int_equal(q->diags.nerrors, 0);
  assert_true(q->any_qualifier);
  assert_true(q->ntensors >= p->ntensors);
  for (int t = 0; t < p->ntensors; t++) {
    assert_string_equal(q->tensors[t].name, p->tensors[t].name);
    assert_true(ty_equal(q->tensors[t].ty, p->tensors[t].ty));
    assert_int_equal(q->tensors[t].qual, p->tensors[t].qual);
  }
  for (int t = p->ntensors; t < q->ntensors; t++) {
    assert_int_equal(q->tensors[t].qual, 0);
    assert_true(q->tensors[t].name[0] == '_' && q->tensors[t].name[1] == 't');
    assert_int_equal(prog_find(p, q->tensors[t].name), -1);
  }
  int orig = 0;                                    /* user assignments, in order */
  int group_start = 0;
  for (int i = 0; i < q->nstmts; i++) {
    const Stmt *s = &q->stmts[i];
    if (single_steps) {
      int nmul = count_kind(s->rhs, EX_PROD) + count_kind(s->rhs, EX_MUL);
      if (nmul > 1) {
        char *txt = text_of(q);
        fail_msg("statement %d has %d products:\n%s", i + 1, nmul, txt);
      }
    }
    if (s->target >= p->ntensors) {                /* a temporary: assigned once, read later only */
      for (int j = 0; j <= i; j++)
        assert_false(reads(q->stmts[j].rhs, s->target));
      for (int j = 0; j < i; j++)
        assert_int_not_equal(q->stmts[j].target, s->target);
      continue;
    }
    assert_true(orig < p->nstmts);
    assert_int_equal(s->target, p->stmts[orig].target);
    /* R-LIFT-10: the group's last statement reads its target only element-wise */
    if (i > group_start)
      assert_false(reads_shifted(s->rhs, s->target, true));
    orig++;
    group_start = i + 1;
  }
  assert_int_equal(orig, p->nstmts);
}

/* Runs p and q from the same random inputs and compares every user tensor of p
 * (R-LIFT-12): the same • elements, values within 1e-9 relative to the
 * tensor's largest magnitude. */
static void check_equiv(const Program *p, const Program *q, uint64_t seed) {
  char err[256];
  TeilStore *s1 = teil_store_new((const TeilProgram *)p, 1, 0, err, sizeof err);
  if (!s1)
    fail_msg("store: %s", err);
  TeilStore *s2 = teil_store_new((const TeilProgram *)q, 1, 0, err, sizeof err);
  if (!s2)
    fail_msg("store: %s", err);
  for (int t = 0; t < p->ntensors; t++)
    if (p->tensors[t].qual & Q_INPUT) {
      teil_store_fill_random(s1, t, seed * 7919 + (uint64_t)t);
      teil_store_fill_random(s2, t, seed * 7919 + (uint64_t)t);
    }
  if (teil_run((const TeilProgram *)p, s1, NULL, err, sizeof err))
    fail_msg("run: %s", err);
  if (teil_run((const TeilProgram *)q, s2, NULL, err, sizeof err))
    fail_msg("run lifted: %s", err);
  for (int t = 0; t < p->ntensors; t++) {
    size_t n = (size_t)ty_count(p->tensors[t].ty);
    double *v1 = malloc(n * sizeof *v1), *v2 = malloc(n * sizeof *v2);
    unsigned char *u1 = malloc(n), *u2 = malloc(n);
    teil_store_get(s1, t, v1, u1);
    teil_store_get(s2, t, v2, u2);
    double scale = 1;
    for (size_t i = 0; i < n; i++)
      if (!u1[i] && fabs(v1[i]) > scale)
        scale = fabs(v1[i]);
    for (size_t i = 0; i < n; i++) {
      bool bad = u1[i] != u2[i] || (!u1[i] && !(fabs(v1[i] - v2[i]) <= 1e-9 * scale));
      if (bad) {
        char *txt = text_of(q);
        print_error("tensor %s element %zu: original %s%.17g, lifted %s%.17g\nlifted program:\n%s",
                    p->tensors[t].name, i, u1[i] ? "• " : "", v1[i], u2[i] ? "• " : "", v2[i], txt);
        free(txt);
        free(v1), free(v2), free(u1), free(u2);
        teil_store_free(s1);
        teil_store_free(s2);
        fail();
      }
    }
    free(v1), free(v2), free(u1), free(u2);
  }
  teil_store_free(s1);
  teil_store_free(s2);
}

/* Lifts src, checks structure and equivalence; returns the stats. */
static LiftStats lift_equiv(const char *src, bool single_steps) {
  Program *p;
  LiftStats st;
  Program *q = lift_src(src, &p, &st);
  check_structure(p, q, single_steps);
  check_equiv(p, q, 1);
  check_equiv(p, q, 2);
  assert_true(st.flops_after <= st.flops_before);
  assert_true(fabs(st.flops_before - lift_flops((TeilProgram *)p)) < 0.5);
  assert_true(fabs(st.flops_after - lift_flops((TeilProgram *)q)) < 0.5);
  free_prog(q);
  free_prog(p);
  return st;
}

/* ---- the CFD operator (TeIL Sec. 5) -------------------------------------- */

static const char *CFD =
    "alloc input A : [7, 7]\n"
    "alloc input u : [1000, 7, 7, 7]\n"
    "alloc output v : [7, 7, 7, 1000]\n"
    "v = contr 4 6 (contr 3 7 (contr 2 8 (prod A (prod A (prod A u)))))\n";

/* R-LIFT-6, R-LIFT-7: three O(n^4) contractions instead of one O(n^6) nest. */
static void test_cfd_three_contractions(void **state) {
  (void)state;
  Program *p;
  LiftStats st;
  Program *q = lift_src(CFD, &p, &st);
  check_structure(p, q, true);
  assert_int_equal(st.nlifted, 1);
  assert_int_equal(st.ntemps, 2);
  assert_int_equal(q->nstmts, 3);
  int ncontr = 0;
  for (int i = 0; i < q->nstmts; i++) {
    const Expr *e = q->stmts[i].rhs;
    while (e->kind == EX_TRANSP)                   /* transposes to order labels */
      e = e->a;
    assert_int_equal(e->kind, EX_CONTR);           /* contr i j (prod X Y) */
    assert_int_equal(e->a->kind, EX_PROD);
    assert_int_equal(e->a->a->kind, EX_VAR);
    assert_int_equal(e->a->b->kind, EX_VAR);
    ncontr += count_kind(q->stmts[i].rhs, EX_CONTR);
  }
  assert_int_equal(ncontr, 3);
  assert_string_equal(q->stmts[2].name, "v");
  /* R-LIFT-2: 343000 * 7(7(7(3+1)+1)+1) before, 3 * 2 * 1000 * 7^4 after */
  assert_true(fabs(st.flops_before - 343000.0 * 1428) < 0.5);
  assert_true(fabs(st.flops_after - 3 * 2 * 1000 * 2401.0) < 0.5);
  assert_true(fabs(lift_flops((TeilProgram *)p) - st.flops_before) < 0.5);
  free_prog(q);
  free_prog(p);
}

/* R-LIFT-13: a temporary puts its consumer's last label last, and the labels
 * it shares with the consumer's other operand in that operand's order. mttkrp
 * A[i,j] = sum B[i,k,l] D[l,j] C[k,j] with I, J, K, L = 6, 3, 5, 4: R-LIFT-6 forms the Khatri-Rao product of D and C first, naturally [l, j, k] =
 * [4, 3, 5]; the consumer's result is [i, j], so j goes last, and l, k, which the
 * other operand B[i,k,l] also has, take B's order: [k, l, j] = [5, 4, 3]. */
static void test_temp_layout_follows_consumer(void **state) {
  (void)state;
  const char *src = "alloc input B : [6, 5, 4]\nalloc input C : [5, 3]\nalloc input D : [4, 3]\n"
                    "alloc output A : [6, 3]\n"
                    "A = diag 2 3 (contr 2 4 (contr 3 4 (prod B (prod D C))))\n";
  Program *p;
  LiftStats st;
  Program *q = lift_src(src, &p, &st);
  check_structure(p, q, true);
  assert_int_equal(st.ntemps, 1);
  const Type *t = &q->tensors[p->ntensors].ty;
  assert_int_equal(t->rank, 3);
  assert_int_equal(t->dims[0], 5);
  assert_int_equal(t->dims[1], 4);
  assert_int_equal(t->dims[2], 3);
  free_prog(q);
  free_prog(p);
  st = lift_equiv(src, true);                      /* R-LIFT-12: the values */
  assert_int_equal(st.nlifted, 1);
}

/* R-LIFT-12: the same operator, small enough for the interpreter. */
static void test_cfd_small_equivalent(void **state) {
  (void)state;
  LiftStats st = lift_equiv("alloc input A : [3, 3]\n"
                            "alloc input u : [5, 3, 3, 3]\n"
                            "alloc output v : [3, 3, 3, 5]\n"
                            "v = contr 4 6 (contr 3 7 (contr 2 8 (prod A (prod A (prod A u)))))\n",
                            true);
  assert_int_equal(st.nlifted, 1);
  assert_int_equal(st.ntemps, 2);
  assert_true(fabs(st.flops_after - 3 * 2 * 5 * 81.0) < 0.5);
  /* the operator A (x) B (x) C with three different matrices, as in Eq. (8) */
  st = lift_equiv("alloc input A : [2, 3]\nalloc input B : [4, 3]\nalloc input C : [5, 3]\n"
                  "alloc input u : [3, 3, 3]\nalloc output v : [2, 4, 5]\n"
                  "v = contr 4 5 (contr 3 6 (contr 2 7 (prod A (prod B (prod C u)))))\n",
                  true);
  assert_int_equal(st.nlifted, 1);
}

/* ---- contraction order (R-LIFT-6) ---------------------------------------- */

/* The first temporary's right-hand side as text. */
static void assert_first_step(const Program *q, const char *expect) {
  assert_true(q->nstmts >= 2);
  assert_tree(q, q->stmts[0].rhs, expect);
}

/* A B C with A : [10, 100], B : [100, 5], C : [5, 100]: (A B) C costs
 * 2*10*100*5 + 2*10*5*100 = 20000, A (B C) costs 300000. */
static void test_matmul_chain_left(void **state) {
  (void)state;
  const char *src = "alloc input A : [10, 100]\nalloc input B : [100, 5]\nalloc input C : [5, 100]\n"
                    "alloc output D : [10, 100]\n"
                    "D = contr 2 3 (contr 2 3 (prod A (prod B C)))\n";
  Program *p;
  LiftStats st;
  Program *q = lift_src(src, &p, &st);
  check_structure(p, q, true);
  assert_int_equal(st.nlifted, 1);
  assert_int_equal(st.ntemps, 1);
  assert_first_step(q, "contr 2 3 (prod A B)");
  assert_true(fabs(st.flops_after - 20000) < 0.5);
  free_prog(q);
  free_prog(p);
  lift_equiv(src, true);
}

/* The mirror image: A : [100, 5], B : [5, 100], C : [100, 10]: A (B C) costs 20000. */
static void test_matmul_chain_right(void **state) {
  (void)state;
  const char *src = "alloc input A : [100, 5]\nalloc input B : [5, 100]\nalloc input C : [100, 10]\n"
                    "alloc output D : [100, 10]\n"
                    "D = contr 2 3 (contr 2 3 (prod A (prod B C)))\n";
  Program *p;
  LiftStats st;
  Program *q = lift_src(src, &p, &st);
  check_structure(p, q, true);
  assert_int_equal(st.ntemps, 1);
  assert_first_step(q, "contr 2 3 (prod B C)");
  assert_true(fabs(st.flops_after - 20000) < 0.5);
  free_prog(q);
  free_prog(p);
  lift_equiv(src, true);
}

/* R-LIFT-6 greedy: a chain of 10 matrices (more than 8 operands). */
static void test_greedy_long_chain(void **state) {
  (void)state;
  char src[4096];
  size_t n = 0;
  for (int i = 1; i <= 10; i++)
    n += (size_t)snprintf(src + n, sizeof src - n, "alloc input M%d : [3, 3]\n", i);
  n += (size_t)snprintf(src + n, sizeof src - n, "alloc output R : [3, 3]\nR = ");
  for (int i = 1; i < 10; i++)
    n += (size_t)snprintf(src + n, sizeof src - n, "contr 2 3 (");
  for (int i = 1; i < 10; i++)
    n += (size_t)snprintf(src + n, sizeof src - n, "prod M%d (", i);
  n += (size_t)snprintf(src + n, sizeof src - n, "M10");
  for (int i = 1; i < 19; i++)
    n += (size_t)snprintf(src + n, sizeof src - n, ")");
  snprintf(src + n, sizeof src - n, "\n");
  LiftStats st = lift_equiv(src, true);
  assert_int_equal(st.nlifted, 1);
  assert_int_equal(st.ntemps, 8);                  /* 9 matrix products */
  assert_true(fabs(st.flops_after - 9 * 2 * 27.0) < 0.5);
}

/* ---- traces --------------------------------------------------------------- */

/* R-LIFT-11: tr(A B) is already one pairwise contraction and stays as written. */
static void test_trace_stays(void **state) {
  (void)state;
  const char *src = "alloc input A : [30, 40]\nalloc input B : [40, 30]\nalloc output s : []\n"
                    "s = contr 1 2 (contr 2 3 (prod A B))\n";
  Program *p;
  LiftStats st;
  Program *q = lift_src(src, &p, &st);
  assert_int_equal(st.nlifted, 0);
  assert_int_equal(st.ntemps, 0);
  assert_int_equal(q->nstmts, 1);
  assert_tree(q, q->stmts[0].rhs, "contr 1 2 (contr 2 3 (prod A B))");
  assert_true(st.flops_before == st.flops_after);
  free_prog(q);
  free_prog(p);
  lift_equiv(src, true);
}

/* tr(A B C) with a thin A: the order goes through the small matrices. */
static void test_trace_of_three(void **state) {
  (void)state;
  const char *src = "alloc input A : [2, 50]\nalloc input B : [50, 50]\nalloc input C : [50, 2]\n"
                    "alloc output s : []\n"
                    "s = contr 1 2 (contr 2 3 (contr 2 3 (prod A (prod B C))))\n";
  LiftStats st = lift_equiv(src, true);
  assert_int_equal(st.nlifted, 1);
  assert_int_equal(st.ntemps, 1);
  /* (A B) : 2*2*50*50 = 10000, then tr((A B) C) sums c (50) inside a (2):
   * 2 * (50 * (1 + 1) + 1) = 202 (R-LIFT-6) */
  assert_true(fabs(st.flops_after - 10202) < 0.5);
  /* the trace of one matrix is left alone */
  st = lift_equiv("alloc input A : [9, 9]\nalloc output s : []\ns = contr 1 2 A\n", true);
  assert_int_equal(st.nlifted, 0);
}

/* ---- distribution over add and sub (R-LIFT-8) ----------------------------- */

/* y = (A B + C) x: distributed, A (B x) + C x costs O(n^2) instead of O(n^3). */
static void test_add_distributes(void **state) {
  (void)state;
  const char *src = "alloc input A : [20, 20]\nalloc input B : [20, 20]\nalloc input C : [20, 20]\n"
                    "alloc input x : [20]\nalloc output y : [20]\n"
                    "y = contr 2 3 (prod (add (contr 2 3 (prod A B)) C) x)\n";
  Program *p;
  LiftStats st;
  Program *q = lift_src(src, &p, &st);
  check_structure(p, q, true);
  assert_int_equal(st.nlifted, 1);
  /* A (B x): 800 + 800, C x: 800, add: 20 */
  assert_true(fabs(st.flops_after - 2420) < 0.5);
  assert_int_equal(count_stmts_with(q, EX_ADD), 1);
  free_prog(q);
  free_prog(p);
  lift_equiv(src, true);
  /* the same with sub, and a sum of two contractions under a trace */
  lift_equiv("alloc input A : [20, 20]\nalloc input B : [20, 20]\nalloc input C : [20, 20]\n"
             "alloc input x : [20]\nalloc output y : [20]\n"
             "y = contr 2 3 (prod (sub C (contr 2 3 (prod A B))) x)\n",
             true);
  /* (A B + C D) x = A (B x) + C (D x) */
  st = lift_equiv("alloc input A : [20, 20]\nalloc input B : [20, 20]\nalloc input C : [20, 20]\n"
                  "alloc input D : [20, 20]\nalloc input x : [20]\nalloc output y : [20]\n"
                  "y = contr 2 3 (prod (add (contr 2 3 (prod A B)) (contr 2 3 (prod C D))) x)\n",
                  true);
  assert_int_equal(st.nlifted, 1);
  assert_true(fabs(st.flops_after - 4 * 800 - 20) < 0.5);
  /* tr(A B + C D - E): the traces are already cheap as written (R-LIFT-11) */
  st = lift_equiv("alloc input A : [6, 7]\nalloc input B : [7, 6]\nalloc input C : [6, 8]\n"
                  "alloc input D : [8, 6]\nalloc input E : [6, 6]\nalloc output s : []\n"
                  "s = contr 1 2 (add (contr 2 3 (prod A B)) (sub (contr 2 3 (prod C D)) E))\n",
                  false);
  assert_int_equal(st.nlifted, 0);
}

/* Deeply nested sums under contractions: the distribution budget keeps the
 * work bounded, and the result is still equivalent (R-LIFT-8). */
static char *nested_src(int levels) {
  Buf b = {0};
  buf_printf(&b, "alloc input x : [4]\nalloc output y : [4]\n");
  for (int i = 0; i < levels; i++)
    buf_printf(&b, "alloc input B%d : [4, 4]\nalloc input C%d : [4, 4]\n", i, i);
  buf_printf(&b, "y = ");
  for (int i = 0; i < levels; i++)                 /* y = (B C + C) (... x) */
    buf_printf(&b, "contr 2 3 (prod (add (contr 2 3 (prod B%d C%d)) C%d) (", i, i, i);
  buf_printf(&b, "x");
  for (int i = 0; i < levels; i++)
    buf_printf(&b, "))");
  buf_printf(&b, "\n");
  return b.s;
}

static void test_nested_distribution(void **state) {
  (void)state;
  char *src = nested_src(5);                       /* small enough to interpret */
  LiftStats st = lift_equiv(src, false);
  assert_int_equal(st.nlifted, 1);
  assert_true(st.flops_after < st.flops_before / 10);
  free(src);
  src = nested_src(120);                           /* lifted only: must be quick */
  Program *p;
  Program *q = lift_src(src, &p, &st);
  check_structure(p, q, false);
  assert_int_equal(st.nlifted, 1);
  assert_true(st.flops_after < 1e7);
  free_prog(q);
  free_prog(p);
  free(src);
}

/* An add of plain variables is not distributed: (A + B) x stays one contraction. */
static void test_add_factored(void **state) {
  (void)state;
  const char *src = "alloc input A : [20, 20]\nalloc input B : [20, 20]\nalloc input x : [20]\n"
                    "alloc output y : [20]\ny = contr 2 3 (prod (add A B) x)\n";
  Program *p;
  LiftStats st;
  Program *q = lift_src(src, &p, &st);
  /* materializing A + B (400) then one matrix-vector product (800) beats
   * evaluating A + B inside the sum (1200 as written)? Equal here, so not lifted. */
  assert_true(st.flops_after <= st.flops_before);
  check_structure(p, q, false);
  free_prog(q);
  free_prog(p);
  lift_equiv(src, false);
  /* a sum of two contractions at the root is element-wise work: each side is lifted */
  LiftStats st2 = lift_equiv("alloc input A : [4, 4]\nalloc input u : [3, 4, 4]\nalloc input w : [3, 4, 4]\n"
                             "alloc output v : [4, 4, 3]\n"
                             "v = add (contr 3 5 (contr 2 6 (prod A (prod A u)))) "
                             "(contr 3 5 (contr 2 6 (prod A (prod A w))))\n",
                             true);
  assert_int_equal(st2.nlifted, 1);
}

/* ---- scalars and Hadamard products (R-LIFT-9) ----------------------------- */

static void test_scalar_moves_out(void **state) {
  (void)state;
  const char *src = "alloc input s : []\nalloc input A : [30, 30]\nalloc input B : [30, 30]\n"
                    "alloc input x : [30]\nalloc output y : [30]\n"
                    "y = contr 2 3 (contr 2 3 (prod (mul s A) (prod B x)))\n";
  Program *p;
  LiftStats st;
  Program *q = lift_src(src, &p, &st);
  check_structure(p, q, true);
  assert_int_equal(st.nlifted, 1);
  /* two matrix-vector products (1800 each) and one scaling of a vector (30) */
  assert_true(fabs(st.flops_after - 3630) < 0.5);
  free_prog(q);
  free_prog(p);
  lift_equiv(src, true);
  /* a Hadamard product inside a contraction, and one of two contractions */
  lift_equiv("alloc input A : [5, 6]\nalloc input B : [5, 6]\nalloc input C : [6, 7]\n"
             "alloc output D : [5, 7]\nD = contr 2 3 (prod (mul A B) C)\n",
             true);
  lift_equiv("alloc input A : [5, 6]\nalloc input B : [6, 7]\nalloc input C : [5, 8]\n"
             "alloc input D : [8, 7]\nalloc output E : [5, 7]\n"
             "E = mul (contr 2 3 (prod A B)) (contr 2 3 (prod C D))\n",
             false);
}

/* ---- in place (R-LIFT-10) -------------------------------------------------- */

static void test_in_place(void **state) {
  (void)state;
  /* A = A B C: the old A is read by the first temporary */
  const char *src = "alloc input output A : [8, 8]\nalloc input B : [8, 80]\nalloc input C : [80, 8]\n"
                    "A = contr 2 3 (contr 2 3 (prod A (prod B C)))\n"
                    "A = contr 2 3 (contr 2 3 (prod B (prod C A)))\n";
  Program *p;
  LiftStats st;
  Program *q = lift_src(src, &p, &st);
  check_structure(p, q, true);
  assert_int_equal(st.nlifted, 2);
  free_prog(q);
  free_prog(p);
  lift_equiv(src, true);
  /* an accumulation v = v + (A (x) A) u: the last statement reads v element-wise */
  lift_equiv("alloc input A : [3, 3]\nalloc input u : [3, 3]\nalloc input output v : [3, 3]\n"
             "v = add v (contr 3 4 (contr 2 5 (prod A (prod A u))))\n",
             true);
  /* a transposed read of the target in a lifted statement moves into a temporary */
  src = "alloc input A : [6, 6]\nalloc input B : [6, 6]\nalloc input output X : [6, 6]\n"
        "X = add (transp 1 2 X) (contr 2 3 (contr 2 3 (prod A (prod B X))))\n";
  q = lift_src(src, &p, &st);
  check_structure(p, q, true);
  free_prog(q);
  free_prog(p);
  lift_equiv(src, true);
}

/* ---- the contract (R-LIFT-1, R-LIFT-11) ------------------------------------ */

static void test_not_profitable_stays(void **state) {
  (void)state;
  static const char *srcs[] = {
      "alloc input A : [3, 4]\nalloc input B : [4, 5]\nalloc output C : [3, 5]\nC = red+ 2 (diag 2 3 (prod A B))\n",
      "alloc input A : [3, 4]\nalloc input B : [4, 5]\nalloc output C : [3, 5]\nC = contr 2 3 (prod A B)\n",
      "alloc input A : [3, 5]\nalloc input B : [4, 3, 5]\nalloc output C : [3, 5]\nC = add A (proj 1 2 B)\n",
      "alloc input u : [2, 3, 4]\nalloc output v : [4, 3, 2]\nv = transp 1 3 u\n",
      "alloc input A : [3]\nalloc input B : [3]\nalloc output C : [3]\nC = mul A B\n",
  };
  for (size_t i = 0; i < sizeof srcs / sizeof *srcs; i++) {
    Program *p;
    LiftStats st;
    Program *q = lift_src(srcs[i], &p, &st);
    assert_int_equal(st.nlifted, 0);
    assert_int_equal(st.ntemps, 0);
    assert_int_equal(q->nstmts, p->nstmts);
    Buf a = {0}, b = {0};
    pr_expr(p, p->stmts[0].rhs, &a);
    pr_expr(q, q->stmts[0].rhs, &b);
    assert_string_equal(a.s, b.s);
    buf_free(&a);
    buf_free(&b);
    free_prog(q);
    free_prog(p);
  }
}

/* Temporaries skip user names; the no-qualifier default is made explicit. */
static void test_names_and_qualifiers(void **state) {
  (void)state;
  const char *src = "alloc _t1 : [4, 4]\nalloc _t2 : [4, 4]\nalloc A : [4, 4]\nalloc u : [2, 4, 4]\n"
                    "alloc v : [4, 4, 2]\n"
                    "v = contr 3 5 (contr 2 6 (prod A (prod _t1 u)))\n";
  Program *p;
  LiftStats st;
  Program *q = lift_src(src, &p, &st);
  check_structure(p, q, true);
  assert_int_equal(st.nlifted, 1);
  assert_int_equal(q->ntensors, 6);
  assert_string_equal(q->tensors[5].name, "_t3");
  for (int t = 0; t < 5; t++)
    assert_int_equal(q->tensors[t].qual, Q_INPUT | Q_OUTPUT);
  assert_int_equal(q->tensors[5].qual, 0);
  char *txt = text_of(q);
  assert_non_null(strstr(txt, "alloc input output v : [4, 4, 2]\n"));
  /* R-LIFT-13: _t3 is naturally [4, 2, 4]; the last of v's labels, c (extent 2),
   * goes last: [4, 4, 2] */
  assert_non_null(strstr(txt, "alloc _t3 : [4, 4, 2]\n"));
  free(txt);
  free_prog(q);
  free_prog(p);
  lift_equiv(src, true);
}

static void test_rejects_unchecked(void **state) {
  (void)state;
  Program *p = parse_str("alloc input A : [3]\nalloc output B : [3]\nB = A\n", TEIL);
  char err[128] = "";
  assert_null(lift_program((TeilProgram *)p, NULL, err, sizeof err));
  assert_non_null(strstr(err, "checked"));
  free_prog(p);
  p = check_prog("alloc input A : [3]\nalloc output B : [4]\nB = A\n", TEIL);
  assert_null(lift_program((TeilProgram *)p, NULL, err, sizeof err));
  free_prog(p);
}

/* ---- equivalence, hand-written (R-LIFT-12) --------------------------------- */

static void test_equivalence_handwritten(void **state) {
  (void)state;
  static const char *srcs[] = {
      /* proj pushed into an operand */
      "alloc input W : [3, 5, 5]\nalloc input B : [5, 5]\nalloc input x : [5]\nalloc output y : [5]\n"
      "y = contr 2 3 (contr 2 3 (prod (proj 1 2 W) (prod B x)))\n",
      /* proj over a product: pushed to both operands that carry the label */
      "alloc input A : [4, 5]\nalloc input B : [5, 6]\nalloc input C : [6, 4]\nalloc output y : [4]\n"
      "y = proj 1 3 (contr 2 3 (contr 2 3 (prod A (prod B C))))\n",
      "alloc input A : [4, 5]\nalloc input B : [4, 6]\nalloc input C : [6, 3]\nalloc output y : [5, 3]\n"
      "y = contr 2 3 (proj 1 2 (diag 1 3 (prod A (prod B C))))\n",
      /* a local reduction first (R-LIFT-5) */
      "alloc input T : [9, 4, 5]\nalloc input B : [5, 6]\nalloc input C : [6, 3]\nalloc output D : [4, 3]\n"
      "D = contr 2 3 (contr 2 3 (prod (red+ 1 T) (prod B C)))\n",
      /* a batch (kept, shared) index via diag */
      "alloc input A : [4, 5, 6]\nalloc input B : [4, 6, 7]\nalloc input C : [4, 7, 3]\nalloc output D : [4, 5, 3]\n"
      "D = contr 3 4 (diag 1 4 (contr 3 4 (diag 1 4 (prod A (prod B C)))))\n",
      /* a diagonal of one operand */
      "alloc input A : [5, 5]\nalloc input B : [5, 6]\nalloc input C : [6, 2]\nalloc output d : [5, 2]\n"
      "d = contr 2 3 (diag 1 2 (diag 1 2 (prod A (prod B C))))\n",
      /* expa and div are leaves */
      "alloc input A : [4, 4]\nalloc input B : [4, 4]\nalloc input s : []\nalloc output C : [3, 4, 4]\n"
      "C = expa 1 3 (contr 2 3 (contr 2 3 (prod (div A s) (prod B (expa 1 4 (red+ 1 A))))))\n",
      /* undefined values: a local read before assignment, and a division by zero */
      "alloc input A : [4, 4]\nalloc X : [4]\nalloc output y : [4]\nalloc output z : [4]\n"
      "y = contr 2 3 (contr 2 3 (prod A (prod A X)))\n"
      "z = contr 2 3 (contr 2 3 (prod A (prod A (div (red+ 1 A) (sub (red+ 1 A) (red+ 2 (transp 1 2 A)))))))\n",
      /* undefined values on the diagonal only: W is antisymmetric, X / W is • there */
      "alloc input S : [5, 5]\nalloc input X : [5, 5]\nalloc input A : [5, 9]\nalloc input B : [9, 9]\n"
      "alloc input C : [9, 5]\nalloc W : [5, 5]\nalloc output v : [5, 5]\n"
      "W = sub (transp 1 2 S) S\n"
      "v = mul (div X W) (contr 2 3 (contr 2 3 (prod A (prod B C))))\n",
      /* several statements, some lifted, some not, with a local tensor */
      "alloc input A : [6, 6]\nalloc input B : [6, 6]\nalloc T : [6, 6]\nalloc output R : [6, 6]\n"
      "T = contr 2 3 (prod A B)\n"
      "R = contr 2 3 (contr 2 3 (prod T (prod A (transp 1 2 T))))\n"
      "R = sub R (mul (red+ 1 (red+ 1 A)) R)\n",
      /* a model-language style nest with transposes between the contractions */
      "alloc input A : [3, 4]\nalloc input B : [4, 5]\nalloc input C : [5, 3]\nalloc output M : [3, 3]\n"
      "M = transp 1 2 (contr 1 3 (transp 1 2 (contr 1 3 (transp 1 2 (prod A (prod B C))))))\n",
      /* a scalar result from four vectors and two matrices */
      "alloc input a : [7]\nalloc input b : [7]\nalloc input M : [7, 7]\nalloc input N : [7, 7]\n"
      "alloc output s : []\n"
      "s = contr 1 2 (contr 1 3 (contr 2 3 (prod a (prod M (prod N b)))))\n",
  };
  for (size_t i = 0; i < sizeof srcs / sizeof *srcs; i++)
    lift_equiv(srcs[i], false);
}

/* ---- equivalence, random einsums (R-LIFT-12) ------------------------------- */

typedef struct Gen {
  uint64_t s;
  int nlab;
  int ext[6];
  bool inout[6];
  int nops;
  int rank[6];
  int lab[6][3];
  Buf decl;
  int ndecl;
} Gen;

static unsigned rnd(Gen *g, unsigned n) {
  g->s ^= g->s << 13;
  g->s ^= g->s >> 7;
  g->s ^= g->s << 17;
  return (unsigned)(g->s % n);
}

static char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static char *fmt(const char *f, ...) {
  va_list ap;
  va_start(ap, f);
  int n = vsnprintf(NULL, 0, f, ap);
  va_end(ap);
  char *s = malloc((size_t)n + 1);
  va_start(ap, f);
  vsnprintf(s, (size_t)n + 1, f, ap);
  va_end(ap);
  return s;
}

/* Declares a fresh input tensor of the given extents; returns its name. */
static char *declare(Gen *g, const int *dims, int rank) {
  char *name = fmt("X%d", g->ndecl++);
  buf_printf(&g->decl, "alloc input %s : [", name);
  for (int i = 0; i < rank; i++)
    buf_printf(&g->decl, "%s%d", i ? ", " : "", dims[i]);
  buf_printf(&g->decl, "]\n");
  return name;
}

/* A leaf for operand i: a variable or an element-wise/structural variant. */
static char *gen_leaf(Gen *g, int i) {
  int r = g->rank[i], dims[4];
  for (int p = 0; p < r; p++)
    dims[p] = g->ext[g->lab[i][p]];
  switch (rnd(g, 8)) {
  case 0:
    if (r >= 2) {                                  /* transp 1 2 X, X declared swapped */
      int d2[4];
      memcpy(d2, dims, sizeof dims);
      d2[0] = dims[1], d2[1] = dims[0];
      char *x = declare(g, d2, r), *s = fmt("transp 1 2 %s", x);
      free(x);
      return s;
    }
    break;
  case 1: {                                        /* add X Y */
    char *x = declare(g, dims, r), *y = declare(g, dims, r), *s = fmt("add %s %s", x, y);
    free(x), free(y);
    return s;
  }
  case 2: {                                        /* mul s X */
    char *x = declare(g, dims, r), *c = declare(g, dims, 0), *s = fmt("mul %s %s", c, x);
    free(x), free(c);
    return s;
  }
  case 3: {                                        /* proj 1 2 W */
    int d2[5] = {3};
    memcpy(d2 + 1, dims, sizeof dims);
    char *x = declare(g, d2, r + 1), *s = fmt("proj 1 2 %s", x);
    free(x);
    return s;
  }
  case 4: {                                        /* expa 1 n X */
    char *x = declare(g, dims + 1, r - 1), *s = fmt("expa 1 %d %s", dims[0], x);
    free(x);
    return s;
  }
  default:
    break;
  }
  return declare(g, dims, r);
}

/* Whether every occurrence of label l is among operands lo..hi. */
static bool local_to(const Gen *g, int l, int lo, int hi) {
  for (int i = 0; i < g->nops; i++)
    if (i < lo || i > hi)
      for (int p = 0; p < g->rank[i]; p++)
        if (g->lab[i][p] == l)
          return false;
  return true;
}

/* Operands lo..hi as one expression with labels cur (returned in *n):
 * products of the halves, then reductions of the labels that occur nowhere
 * else (diag down to two, then contr or red+), sometimes a diag of a label
 * that occurs twice, sometimes a transp. */
static char *gen_expr(Gen *g, int lo, int hi, int *cur, int *n) {
  char *e;
  if (lo == hi) {
    e = gen_leaf(g, lo);
    *n = g->rank[lo];
    memcpy(cur, g->lab[lo], (size_t)*n * sizeof *cur);
  } else {
    int m = lo + (int)rnd(g, (unsigned)(hi - lo));
    int c1[32], n1, c2[32], n2;
    char *a = gen_expr(g, lo, m, c1, &n1), *b = gen_expr(g, m + 1, hi, c2, &n2);
    e = fmt("prod (%s) (%s)", a, b);
    free(a), free(b);
    memcpy(cur, c1, (size_t)n1 * sizeof *cur);
    memcpy(cur + n1, c2, (size_t)n2 * sizeof *cur);
    *n = n1 + n2;
  }
  bool root = lo == 0 && hi == g->nops - 1;
  for (int l = 0; l < g->nlab; l++) {
    bool done = !g->inout[l] && local_to(g, l, lo, hi);
    for (;;) {
      int pos[32], k = 0;
      for (int p = 0; p < *n; p++)
        if (cur[p] == l)
          pos[k++] = p;
      bool merge = k > 2 || (k == 2 && ((root && g->inout[l]) || (!done && rnd(g, 3) == 0)));
      if (merge) {                                 /* diag keeps pos[0], drops pos[1] */
        char *e2 = fmt("diag %d %d (%s)", pos[0] + 1, pos[1] + 1, e);
        free(e);
        e = e2;
        memmove(cur + pos[1], cur + pos[1] + 1, (size_t)(*n - pos[1] - 1) * sizeof *cur);
        (*n)--;
        if (k > 2 || (root && g->inout[l]))
          continue;
        break;
      }
      if (!done || k == 0)
        break;
      char *e2 = k == 2 ? fmt("contr %d %d (%s)", pos[1] + 1, pos[0] + 1, e) : fmt("red+ %d (%s)", pos[0] + 1, e);
      free(e);
      e = e2;
      for (int j = k - 1; j >= 0; j--) {
        memmove(cur + pos[j], cur + pos[j] + 1, (size_t)(*n - pos[j] - 1) * sizeof *cur);
        (*n)--;
      }
      break;
    }
  }
  if (*n >= 2 && rnd(g, 4) == 0) {
    int p = (int)rnd(g, (unsigned)*n), q = (int)rnd(g, (unsigned)*n);
    if (p != q) {
      char *e2 = fmt("transp %d %d (%s)", p + 1, q + 1, e);
      free(e);
      e = e2;
      int t = cur[p];
      cur[p] = cur[q];
      cur[q] = t;
    }
  }
  return e;
}

/* A random well-typed program: one statement, a random einsum written as
 * nested TeIL contractions. Returns malloc'd text. */
static char *gen_program(uint64_t seed) {
  Gen g = {0};
  g.s = seed * 0x9E3779B97F4A7C15ull + 1;
  for (int i = 0; i < 5; i++)
    rnd(&g, 2);
  g.nlab = 3 + (int)rnd(&g, 4);
  for (int l = 0; l < g.nlab; l++) {
    g.ext[l] = 2 + (int)rnd(&g, 3);
    g.inout[l] = rnd(&g, 3) == 0;
  }
  g.nops = 2 + (int)rnd(&g, 4);
  for (int i = 0; i < g.nops; i++) {
    g.rank[i] = 1 + (int)rnd(&g, 3);
    for (int p = 0; p < g.rank[i]; p++)
      g.lab[i][p] = (int)rnd(&g, (unsigned)g.nlab);
  }
  for (int l = 0; l < g.nlab; l++) {               /* output labels must occur */
    bool used = false;
    for (int i = 0; i < g.nops; i++)
      for (int p = 0; p < g.rank[i]; p++)
        used |= g.lab[i][p] == l;
    g.inout[l] &= used;
  }
  int cur[32], n;
  char *e = gen_expr(&g, 0, g.nops - 1, cur, &n);
  if (rnd(&g, 5) == 0) {                           /* a scalar factor outside */
    int none[1] = {0};
    char *s = declare(&g, none, 0), *e2 = fmt("mul %s (%s)", s, e);
    free(s), free(e);
    e = e2;
  }
  Buf b = {0};
  buf_printf(&b, "%salloc output R : [", g.decl.s);
  for (int p = 0; p < n; p++)
    buf_printf(&b, "%s%d", p ? ", " : "", g.ext[cur[p]]);
  buf_printf(&b, "]\nR = %s\n", e);
  free(e);
  buf_free(&g.decl);
  return b.s;
}

static void test_equivalence_random(void **state) {
  (void)state;
  int lifted = 0;
  for (uint64_t seed = 1; seed <= 60; seed++) {
    char *src = gen_program(seed);
    Program *p = check_prog(src, TEIL);
    if (p->diags.nerrors) {
      dump_diags(p);
      fail_msg("generated program %llu has errors:\n%s", (unsigned long long)seed, src);
    }
    free_prog(p);
    LiftStats st = lift_equiv(src, false);
    lifted += st.nlifted;
    free(src);
  }
  assert_true(lifted >= 20);                       /* most of them have something to lift */
}

/* ---- the examples (examples/lift/X.teil and X.lifted.teil) ---------------- */

/* Reads path relative to the repository root (the tests run from there, see
 * tests/run-all.sh; ../../ covers running from build/test). NULL if absent. */
static char *read_example(const char *name) {
  static const char *dirs[] = {"examples/lift/", "../../examples/lift/", "../../../examples/lift/"};
  for (size_t d = 0; d < sizeof dirs / sizeof *dirs; d++) {
    char path[256];
    snprintf(path, sizeof path, "%s%s", dirs[d], name);
    FILE *f = fopen(path, "rb");
    if (!f)
      continue;
    Buf b = {0};
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
      buf_printf(&b, "%.*s", (int)n, chunk);
    fclose(f);
    return b.s ? b.s : strdup("");
  }
  return NULL;
}

/* Drops comment lines (the generated header and the statistics line). */
static void strip_comments(char *s) {
  char *w = s;
  for (char *r = s; *r;) {
    char *eol = strchr(r, '\n');
    size_t len = eol ? (size_t)(eol - r) + 1 : strlen(r);
    if (r[0] != '#') {
      memmove(w, r, len);
      w += len;
    }
    r += len;
  }
  *w = '\0';
}

/* R-LIFT-1: every example lifts to exactly its .lifted.teil (what teilc --emit-teil shows). */
static void test_examples_golden(void **state) {
  (void)state;
  static const char *names[] = {"cfd", "operator3", "matmul_chain", "trace3", "add_distribute", "scalar", "in_place"};
  for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
    char file[64];
    snprintf(file, sizeof file, "%s.teil", names[i]);
    char *src = read_example(file);
    if (!src) {
      print_message("examples/lift/%s not found from this directory; skipped\n", file);
      return;
    }
    snprintf(file, sizeof file, "%s.lifted.teil", names[i]);
    char *want = read_example(file);
    assert_non_null(want);
    strip_comments(want);
    Program *p;
    LiftStats st;
    Program *q = lift_src(src, &p, &st);
    check_structure(p, q, true);
    assert_int_equal(st.nlifted > 0, 1);
    char *got = text_of(q);
    assert_string_equal(got, want);
    free(got);
    free(want);
    free(src);
    free_prog(q);
    free_prog(p);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_cfd_three_contractions),
      cmocka_unit_test(test_cfd_small_equivalent),
      cmocka_unit_test(test_matmul_chain_left),
      cmocka_unit_test(test_matmul_chain_right),
      cmocka_unit_test(test_greedy_long_chain),
      cmocka_unit_test(test_trace_stays),
      cmocka_unit_test(test_trace_of_three),
      cmocka_unit_test(test_add_distributes),
      cmocka_unit_test(test_add_factored),
      cmocka_unit_test(test_nested_distribution),
      cmocka_unit_test(test_scalar_moves_out),
      cmocka_unit_test(test_in_place),
      cmocka_unit_test(test_not_profitable_stays),
      cmocka_unit_test(test_names_and_qualifiers),
      cmocka_unit_test(test_rejects_unchecked),
      cmocka_unit_test(test_equivalence_handwritten),
      cmocka_unit_test(test_equivalence_random),
      cmocka_unit_test(test_examples_golden),
      cmocka_unit_test(test_temp_layout_follows_consumer),
  };
  return RUN_TESTS(tests);
}
