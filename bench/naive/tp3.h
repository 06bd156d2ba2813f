/* Sum-factorised (A x A x A) applied to one element, the naive reference of the CFD
 * kernels (three single-index contractions, O(n^4), as ../shared/peers/README.md):
 *   transposed = 0: out[i,j,k] = sum_{l,m,q} M[i,l] M[j,m] M[k,q] in[l,m,q]
 *   transposed = 1: out[i,j,k] = sum_{l,m,q} M[l,i] M[m,j] M[q,k] in[l,m,q]
 * t1, t2: scratch of n^3 doubles. Textbook loops, scalar accumulators. */
static inline void tp3(long long n, const double *M, int transposed, const double *in, double *out,
                       double *t1, double *t2) {
  /* t1[i,m,q] = sum_l M(i,l) in[l,m,q] */
  for (long long i = 0; i < n; i++)
    for (long long m = 0; m < n; m++)
      for (long long q = 0; q < n; q++) {
        double s = 0.0;
        for (long long l = 0; l < n; l++)
          s += (transposed ? M[l * n + i] : M[i * n + l]) * in[(l * n + m) * n + q];
        t1[(i * n + m) * n + q] = s;
      }
  /* t2[i,j,q] = sum_m M(j,m) t1[i,m,q] */
  for (long long i = 0; i < n; i++)
    for (long long j = 0; j < n; j++)
      for (long long q = 0; q < n; q++) {
        double s = 0.0;
        for (long long m = 0; m < n; m++)
          s += (transposed ? M[m * n + j] : M[j * n + m]) * t1[(i * n + m) * n + q];
        t2[(i * n + j) * n + q] = s;
      }
  /* out[i,j,k] = sum_q M(k,q) t2[i,j,q] */
  for (long long i = 0; i < n; i++)
    for (long long j = 0; j < n; j++)
      for (long long k = 0; k < n; k++) {
        double s = 0.0;
        for (long long q = 0; q < n; q++)
          s += (transposed ? M[q * n + k] : M[k * n + q]) * t2[(i * n + j) * n + q];
        out[(i * n + j) * n + k] = s;
      }
}
