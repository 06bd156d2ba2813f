/*
 * test_loopir.c - helpers of the loop IR (src/loopir.c) that the scheduler,
 * the C generator and the ACSL generator share: whether two affine indices
 * differ by a constant (loop trip counts, R-SCH-15) and the terms of a
 * row-major offset (R-CG-9), which cgen.c prints and acsl.c bounds (R-ACSL-6).
 */
#include "unit.h"

#include "compile.h"

/* An affine index c + sum coef[t] * it[t] over caller-owned arrays. */
static LAff aff(int64_t c, int n, int *it, int64_t *coef) { return (LAff){c, n, it, coef}; }

static void test_const_diff(void **state) {
  (void)state;
  int64_t d = -1;
  /* i + 2j + 5 and 2j + i + 1: the same iterator terms in another order */
  int xi[] = {0, 1}, yi[] = {1, 0};
  int64_t xc[] = {1, 2}, yc[] = {2, 1};
  LAff x = aff(5, 2, xi, xc), y = aff(1, 2, yi, yc);
  assert_true(lp_aff_const_diff(&x, &y, &d));
  assert_int_equal(d, 4);
  assert_true(lp_aff_const_diff(&y, &x, &d));
  assert_int_equal(d, -4);
  assert_false(lp_aff_equal(&x, &y));

  /* i + i and 2i: a repeated iterator counts with its summed coefficient */
  int ri[] = {0, 0}, ti[] = {0};
  int64_t rc[] = {1, 1}, tc[] = {2};
  LAff r = aff(7, 2, ri, rc), t = aff(7, 1, ti, tc);
  assert_true(lp_aff_const_diff(&r, &t, &d));
  assert_int_equal(d, 0);
  assert_true(lp_aff_equal(&r, &t));

  /* i + 3 against 3, and i against j: not a constant difference */
  int ii[] = {0}, ji[] = {1};
  int64_t one[] = {1};
  LAff i3 = aff(3, 1, ii, one), c3 = aff(3, 0, NULL, NULL), i0 = aff(0, 1, ii, one), j0 = aff(0, 1, ji, one);
  d = 99;
  assert_false(lp_aff_const_diff(&i3, &c3, &d));
  assert_false(lp_aff_const_diff(&c3, &i3, &d));
  assert_false(lp_aff_const_diff(&i0, &j0, &d));
  assert_int_equal(d, 99);                           /* left alone when false */

  /* a zero coefficient is no term: 0*j + 4 against 1 */
  int64_t zero[] = {0};
  LAff z = aff(4, 1, ji, zero), c1 = aff(1, 0, NULL, NULL);
  assert_true(lp_aff_const_diff(&z, &c1, &d));
  assert_int_equal(d, 3);
}

static void test_offset_terms(void **state) {
  (void)state;
  LProgram *lp = lp_new(1, false);
  int i = lp_add_iter(lp, "i", 4), j = lp_add_iter(lp, "j", 5), k = lp_add_iter(lp, "k", 6);
  const int64_t dims[] = {4, 5, 6};                  /* strides 30, 6, 1 */
  int buf = lp_add_buf(lp, "T", 3, dims);

  /* T[i, j, i + k - 1]: 30i + 6j + i + k - 1 = 31i + 6j + k - 1, iterators by first appearance */
  int d0[] = {i}, d1[] = {j}, d2[] = {i, k};
  int64_t c0[] = {1}, c1[] = {1}, c2[] = {1, 1};
  LAff idx[3] = {aff(0, 1, d0, c0), aff(0, 1, d1, c1), aff(-1, 2, d2, c2)};
  LAccess acc = {buf, idx};
  LTerm *t = NULL;
  int64_t c = 0;
  int n = lp_offset_terms(lp, &acc, &t, &c);
  assert_int_equal(n, 3);
  assert_int_equal(t[0].it, i);
  assert_int_equal(t[0].coef, 31);
  assert_int_equal(t[1].it, j);
  assert_int_equal(t[1].coef, 6);
  assert_int_equal(t[2].it, k);
  assert_int_equal(t[2].coef, 1);
  assert_int_equal(c, -1);
  free(t);

  /* T[k, j + 2, -30k + 3]: k's terms cancel (30k - 30k) and leave no term; 6j + 12 + 3 */
  int e0[] = {k}, e1[] = {j}, e2[] = {k};
  int64_t f0[] = {1}, f1[] = {1}, f2[] = {-30};
  LAff idy[3] = {aff(0, 1, e0, f0), aff(2, 1, e1, f1), aff(3, 1, e2, f2)};
  LAccess acy = {buf, idy};
  n = lp_offset_terms(lp, &acy, &t, &c);
  assert_int_equal(n, 1);
  assert_int_equal(t[0].it, j);
  assert_int_equal(t[0].coef, 6);
  assert_int_equal(c, 15);
  free(t);

  /* T[1, 2, 3]: no term, the constant 30 + 12 + 3 */
  LAff idz[3] = {aff(1, 0, NULL, NULL), aff(2, 0, NULL, NULL), aff(3, 0, NULL, NULL)};
  LAccess acz = {buf, idz};
  n = lp_offset_terms(lp, &acz, &t, &c);
  assert_int_equal(n, 0);
  assert_int_equal(c, 45);
  free(t);
  lp_free(lp);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_const_diff),
      cmocka_unit_test(test_offset_terms),
  };
  return RUN_TESTS(tests);
}
