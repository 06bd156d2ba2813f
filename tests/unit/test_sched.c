/*
 * test_sched.c - schedule steps on loop nests built by hand (src/sched.c,
 * spec/schedule.md): a step that is refused leaves the program as it was, also
 * when its check comes after the change (R-SCH-22's carried dependence,
 * R-SCH-14(c)), which no program lowered from TeIL reaches.
 */
#include "unit.h"

#include "compile.h"

/* The loop IR as lp_print writes it (malloc'd). */
static char *print_ir(const LProgram *lp) {
  char *s = NULL;
  size_t n = 0;
  FILE *f = open_memstream(&s, &n);
  assert_non_null(f);
  lp_print(lp, f);
  fclose(f);
  return s;
}

/* Applies the schedule text; -> its status, the message in err. */
static int apply(LProgram *lp, const char *text, char *err, size_t errlen) {
  Schedule *s = sched_parse("t.sched", text, strlen(text), err, errlen);
  assert_non_null(s);
  int rc = sched_apply(lp, s, err, errlen);
  sched_free(s);
  return rc;
}

/* X: for i in [0, 8) parallel { A[i] = B[i] }, then Y: for r in [0, 8) { Y's
 * statement }. With sum, Y is s[0] += A[r], a sum over r; else C[r] = A[r]. */
static LProgram *two_nests(bool sum) {
  LProgram *lp = lp_new(1, false);
  const int64_t eight[] = {8}, one[] = {1};
  int A = lp_add_buf(lp, "A", 1, eight), B = lp_add_buf(lp, "B", 1, eight);
  int C = sum ? lp_add_buf(lp, "s", 1, one) : lp_add_buf(lp, "C", 1, eight);
  int i = lp_add_iter(lp, "i", 8), r = lp_add_iter(lp, "r", 8);
  LNode *x = lp_loop(lp, i, 0, 8, LF_PARALLEL);
  LAff *xi[] = {lp_aff_iter(lp, i)};
  LNode *sx = lp_stmt(lp, A, xi, false, lp_load(lp, B, xi));
  lp_append(lp, x, sx);
  lp_append(lp, NULL, x);
  LNode *y = lp_loop(lp, r, 0, 8, sum ? LF_REDUCTION : 0);
  LAff *yr[] = {lp_aff_iter(lp, r)}, *y0[] = {lp_aff_const(lp, 0)};
  LNode *sy = lp_stmt(lp, C, sum ? y0 : yr, sum, lp_load(lp, A, yr));
  lp_append(lp, y, sy);
  lp_append(lp, NULL, y);
  lp_add_unit(lp, "A", sx);
  lp_add_unit(lp, sum ? "s" : "C", sy);
  return lp;
}

/* R-SCH-22, R-SCH-14(c): the fused loop i would be parallel and carry the sum
 * over r, so the step is refused after the merge and taken back: the same IR,
 * and the target statement of s is again the statement in Y's loop. */
static void test_fuse_before_refused_after_merge(void **state) {
  (void)state;
  LProgram *lp = two_nests(true);
  char *before = print_ir(lp);
  char err[512] = "";
  assert_int_not_equal(apply(lp, "s: fuse_before 1\n", err, sizeof err), 0);
  assert_non_null(strstr(err, "fuse_before of level 1 in s"));
  assert_non_null(strstr(err, "carries the sum dependence"));
  char *after = print_ir(lp);
  assert_string_equal(after, before);
  assert_int_equal(lp->ntop, 2);
  assert_int_equal(lp->top[0]->nkids, 1);
  assert_ptr_equal(lp->units[1].stmt, lp->top[1]->kids[0]);
  assert_ptr_equal(lp->units[0].stmt, lp->top[0]->kids[0]);
  /* the program still takes steps: s's loop can be unrolled */
  assert_int_equal(apply(lp, "s: unroll 1 2\n", err, sizeof err), 0);
  free(before);
  free(after);
  lp_free(lp);
}

/* R-SCH-22: without the sum the same fusion is legal: one parallel loop i whose
 * body is A[i] = B[i], then C[i] = A[i]. */
static void test_fuse_before_accepted(void **state) {
  (void)state;
  LProgram *lp = two_nests(false);
  char err[512] = "";
  assert_int_equal(apply(lp, "C: fuse_before 1\n", err, sizeof err), 0);
  assert_int_equal(lp->ntop, 1);
  assert_int_equal(lp->top[0]->nkids, 2);
  assert_true(lp->top[0]->flags & LF_PARALLEL);
  assert_ptr_equal(lp->units[1].stmt, lp->top[0]->kids[1]);
  char *ir = print_ir(lp);
  assert_non_null(strstr(ir, "C[i] = A[i]"));
  free(ir);
  lp_free(lp);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_fuse_before_refused_after_merge),
      cmocka_unit_test(test_fuse_before_accepted),
  };
  return RUN_TESTS(tests);
}
