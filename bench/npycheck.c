/* Checks an output against the reference output of the same kernel:
 *   npycheck REF.npy OUT.npy
 * Same shape required; then every element: both NaN, or equal, or
 * |out - ref| <= 1e-9 * max(|ref|, 1e-4 * S) with S the largest finite |ref|
 * (relative 1e-9 with a floor for values that cancel to nearly 0, as
 * teil-check --diff, spec/compiler.md R-CG-16). Also prints the relative error of
 * the weighted checksum sum x[i]*(1 + i%7) (normalised by the weighted |x| sum).
 * Prints one line "check ok ..." or "check FAILED ..."; exit 0 ok, 1 failed, 2 error. */
#include "harness.h"

#define TOL 1e-9

int main(int argc, char **argv) {
  bt_prog = "npycheck";
  if (argc != 3) bt_die("usage: npycheck REF.npy OUT.npy");
  bt_tensor r = {0}, o = {0};
  r.name = "ref", r.path = argv[1];
  o.name = "out", o.path = argv[2];
  bt_read_npy(&r);
  bt_read_npy(&o);
  int same = r.rank == o.rank;
  for (int i = 0; same && i < r.rank; i++) same = r.dims[i] == o.dims[i];
  if (!same) {
    printf("check FAILED shape differs from the reference (rank %d vs %d)\n", o.rank, r.rank);
    return 1;
  }
  double S = 0, csr = 0, cso = 0, asr = 0;
  for (long long i = 0; i < r.count; i++)
    if (isfinite(r.data[i]) && fabs(r.data[i]) > S) S = fabs(r.data[i]);
  long long bad = 0, first = -1;
  double worst = 0;
  for (long long i = 0; i < r.count; i++) {
    double a = r.data[i], b = o.data[i], w = (double)(1 + i % 7);
    csr += a * w, cso += b * w, asr += fabs(a) * w;
    int ok;
    if (isnan(a) || isnan(b)) ok = isnan(a) && isnan(b);
    else if (a == b) ok = 1;
    else {
      double scale = fmax(fabs(a), 1e-4 * S), e = fabs(b - a) / scale;
      ok = e <= TOL;
      if (e > worst || isnan(e)) worst = e;
    }
    if (!ok && bad++ == 0) first = i;
  }
  double csrel = asr > 0 ? fabs(cso - csr) / asr : fabs(cso - csr);
  if (bad) {
    long long idx[BT_MAXR], f = first;
    for (int d = r.rank - 1; d >= 0; d--) idx[d] = f % r.dims[d], f /= r.dims[d];
    printf("check FAILED %lld of %lld elements differ; first at [", bad, r.count);
    for (int d = 0; d < r.rank; d++) printf("%s%lld", d ? "," : "", idx[d]);
    printf("]: ref %.17g got %.17g; checksum rel.err %.2e\n", r.data[first], o.data[first], csrel);
    return 1;
  }
  printf("check ok max_rel_err=%.2e checksum_rel_err=%.2e\n", worst, csrel);
  return 0;
}
