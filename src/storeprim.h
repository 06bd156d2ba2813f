/*
 * storeprim.h - the store's element primitives, with ACSL contracts proved by
 * Frama-C/WP (acsl/README.md; `make acsl`, or sh acsl/run.sh).
 *
 * A tensor of rank r with padded extents p[0..r-1] keeps its elements
 * row-major: the element at the multi-index j (0 <= j[d] < p[d]) sits at the
 * Horner offset
 *
 *     ((j[0] * p[1] + j[1]) * p[2] + j[2]) ... * p[r-1] + j[r-1],
 *
 * which is the same number as sum_d j[d] * stride[d] with the row-major
 * strides stride[d] = p[d+1] * ... * p[r-1], but needs no stride array. The
 * contracts say that this offset is exactly the logic function st_off and lies
 * in [0, product of the extents), so an access at it is in bounds of an
 * array of that many elements, and that no intermediate value overflows
 * when the product fits in int64_t (ST_MAX_COUNT below).
 *
 * Everything here is `static inline` and free of side effects other than
 * the stores st_write makes; the annotations are comments to the compiler.
 */
#ifndef TEIL_STOREPRIM_H
#define TEIL_STOREPRIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*@
  // The bound the primitives need on the product of the padded extents:
  // INT64_MAX, so that every offset and intermediate value is an int64_t.
  // Every slot satisfies it with room to spare: teil_store_new refuses a
  // store of more than SIZE_MAX / 2 bytes at 9 bytes per element, so a slot's
  // count is below 2^60 (and a type has at most 2^59 elements, R-TY-17).
  logic integer ST_MAX_COUNT = 9223372036854775807;

  // One Horner step: the offset o of a prefix of an index, extended by the
  // next coordinate j over an extent x.
  logic integer st_horner(integer o, integer x, integer j) = o * x + j;

  // The product p[0] * ... * p[n-1]; 1 for n <= 0.
  logic integer st_prod{L}(int64_t *p, integer n) =
    n <= 0 ? 1 : st_prod(p, n - 1) * p[n - 1];

  // The row-major offset of j[0..n-1] over the extents p[0..n-1]:
  // ((j[0] * p[1] + j[1]) * p[2] + j[2]) ... * p[n-1] + j[n-1].
  logic integer st_off{L}(int64_t *j, int64_t *p, integer n) =
    n <= 0 ? 0 : st_horner(st_off(j, p, n - 1), p[n - 1], j[n - 1]);

  // Every extent is at least 1.
  predicate st_extents{L}(int64_t *p, integer n) =
    \forall integer d; 0 <= d < n ==> p[d] >= 1;

  // j[0..n-1] is an index within the extents p[0..n-1].
  predicate st_inside{L}(int64_t *j, int64_t *p, integer n) =
    \forall integer d; 0 <= d < n ==> 0 <= j[d] < p[d];

  // Facts about one Horner step. Each is nonlinear, and stated about
  // st_horner rather than bare products for two reasons: the provers (z3,
  // cvc4) lose their nonlinear reasoning once quantified axioms are in
  // context (WP's prelude always has some), but prove these small lemmas in
  // isolation; and st_horner gives each lemma a trigger, so the goals below
  // instantiate them where they apply instead of flooding every other goal.
  // See acsl/README.md.
  lemma st_horner_nonneg: \forall integer o, x, j;
    0 <= o && 0 <= x && 0 <= j ==> 0 <= o * x <= st_horner(o, x, j);
  lemma st_horner_ge: \forall integer o, x, j;
    0 <= o && 1 <= x && 0 <= j ==> o <= st_horner(o, x, j);
  lemma st_horner_step: \forall integer o, x, j;
    j < x ==> st_horner(o, x, j) < st_horner(o + 1, x, 0);
  lemma st_horner_mono: \forall integer a, b, x;
    a <= b && 0 <= x ==> st_horner(a, x, 0) <= st_horner(b, x, 0);
  lemma st_horner_lt: \forall integer o, q, x, j;
    0 <= o < q && 0 <= j < x ==> st_horner(o, x, j) < st_horner(q, x, 0);

  // The unfolding equations of st_prod and st_off, and the two facts the
  // loops below need: one more coordinate keeps the offset below the product,
  // and one more extent >= 1 does not shrink the product.
  lemma st_prod_step{L}: \forall int64_t *p, integer n;
    0 <= n ==> st_prod(p, n + 1) == st_horner(st_prod(p, n), p[n], 0);
  lemma st_off_step{L}: \forall int64_t *j, int64_t *p, integer n;
    0 <= n ==> st_off(j, p, n + 1) == st_horner(st_off(j, p, n), p[n], j[n]);
  lemma st_off_bound{L}: \forall int64_t *j, int64_t *p, integer n;
    0 <= n && 0 <= st_off(j, p, n) < st_prod(p, n) && 0 <= j[n] < p[n] ==>
      0 <= st_off(j, p, n + 1) < st_prod(p, n + 1);
  lemma st_prod_mono{L}: \forall int64_t *p, integer n;
    0 <= n && 1 <= st_prod(p, n) && 1 <= p[n] ==> st_prod(p, n) <= st_prod(p, n + 1);
*/

/* A lemma function (ghost code, invisible to the compiler): with all extents
 * >= 1, every prefix product lies between 1 and the whole product. That needs
 * induction over n, which the SMT solvers do not do; the loop invariant is the
 * induction, and WP proves the function like any other. st_offset calls it. */
/*@ ghost
  /@ requires 0 <= n;
     requires st_extents(p, n);
     assigns \nothing;
     ensures \forall integer k; 0 <= k <= n ==> 1 <= st_prod(p, k) <= st_prod(p, n);
  @/
  static void st_prod_prefix(const int64_t *p, int n) {
    /@ loop invariant 0 <= i <= n;
       loop invariant \forall integer k; 0 <= k <= i ==> 1 <= st_prod(p, k) <= st_prod(p, i);
       loop assigns i;
       loop variant n - i;
    @/
    for (int i = 0; i < n; i++) {
      /@ assert 1 <= p[i] && 1 <= st_prod(p, i); @/
      /@ assert st_prod(p, i) <= st_prod(p, i + 1); @/
    }
  }
*/

/* ------------------------------------------------------------ the primitives */

/* Whether 0 <= j[d] < ext[d] for every d < rank: the index j lies within the
 * extents ext. */
/*@ requires 0 <= rank;
    requires \valid_read(j + (0 .. rank - 1));
    requires \valid_read(ext + (0 .. rank - 1));
    assigns \nothing;
    ensures \result <==> st_inside(j, ext, rank);
*/
static inline bool st_in_bounds(int rank, const int64_t *j, const int64_t *ext) {
  /*@ loop invariant 0 <= d <= rank;
      loop invariant st_inside(j, ext, d);
      loop assigns d;
      loop variant rank - d;
  */
  for (int d = 0; d < rank; d++)
    if (j[d] < 0 || j[d] >= ext[d])
      return false;
  return true;
}

/* One Horner step, off * pdim + i: the offset of an index prefix extended by
 * the coordinate i over the extent pdim. The caller bounds the result, as
 * st_offset does with the product of the extents. */
/*@ requires 0 <= off;
    requires 0 <= i < pdim;
    requires st_horner(off, pdim, i) <= ST_MAX_COUNT;
    assigns \nothing;
    ensures \result == st_horner(off, pdim, i);
    ensures off <= \result;
*/
static inline int64_t st_step(int64_t off, int64_t pdim, int64_t i) {
  //@ assert 0 <= off * pdim <= st_horner(off, pdim, i);
  return off * pdim + i;
}

/* The row-major offset of the index j[0..rank-1] over the padded extents
 * pdims[0..rank-1]: in [0, product of pdims), so in bounds of the slot's
 * arrays (count = product of pdims), and no intermediate value overflows. */
/*@ requires 0 <= rank;
    requires \valid_read(j + (0 .. rank - 1));
    requires \valid_read(pdims + (0 .. rank - 1));
    requires st_inside(j, pdims, rank);
    requires st_prod(pdims, rank) <= ST_MAX_COUNT;
    assigns \nothing;
    ensures \result == st_off(j, pdims, rank);
    ensures 0 <= \result < st_prod(pdims, rank);
*/
static inline int64_t st_offset(int rank, const int64_t *j, const int64_t *pdims) {
  int64_t off = 0;
  //@ ghost st_prod_prefix(pdims, rank);
  /*@ loop invariant 0 <= d <= rank;
      loop invariant off == st_off(j, pdims, d);
      loop invariant 0 <= off < st_prod(pdims, d);
      loop assigns d, off;
      loop variant rank - d;
  */
  for (int d = 0; d < rank; d++) {
    //@ assert st_off(j, pdims, d + 1) < st_prod(pdims, d + 1) <= ST_MAX_COUNT;
    off = st_step(off, pdims[d], j[d]);
  }
  return off;
}

/* Reads the element at offset off: its value into *val, and whether it is the
 * undefined value (R-EV-1) as the result. */
/*@ requires \valid_read(v + off);
    requires \valid_read(undef + off);
    requires \valid(val);
    requires \separated(val, v + off);
    assigns *val;
    ensures *val == v[off];
    ensures \result <==> undef[off] != 0;
*/
static inline bool st_read(const double *v, const unsigned char *undef, size_t off, double *val) {
  *val = v[off];
  return undef[off] != 0;
}

/* Writes the element at offset off: the value x, or the undefined value when
 * u, which is stored as value 0 with the flag set. */
/*@ requires \valid(v + off);
    requires \valid(undef + off);
    assigns v[off], undef[off];
    ensures undef[off] == (u ? 1 : 0);
    ensures u ==> v[off] == 0.0;
    ensures !u ==> v[off] == x;
*/
static inline void st_write(double *v, unsigned char *undef, size_t off, double x, bool u) {
  v[off] = u ? 0 : x;
  undef[off] = u;
}

#endif
