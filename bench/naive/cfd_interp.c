/*
 * cfd_interp.c - the naive loop nest for examples/cfd_interp.teil, the
 * baseline of the interpreter-overhead benchmark (bench/interp_overhead.sh):
 *   v[i,j,k,e] = sum_{l,m,n} A[i,l] A[j,m] A[k,n] u[e,l,m,n]
 * evaluated as written (unlifted, O(n^6) per element), as the interpreter does.
 * Prints the time of the loop nest in ms and a checksum.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define N 7
#define E 1000

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(void) {
  static double A[N][N], u[E][N][N][N], v[N][N][N][E];
  unsigned s = 1;
  for (int i = 0; i < N; i++)
    for (int l = 0; l < N; l++)
      A[i][l] = (s = s * 1103515245u + 12345u) / 4294967296.0 - 0.5;
  for (int e = 0; e < E; e++)
    for (int l = 0; l < N; l++)
      for (int m = 0; m < N; m++)
        for (int n = 0; n < N; n++)
          u[e][l][m][n] = (s = s * 1103515245u + 12345u) / 4294967296.0 - 0.5;
  double t0 = now_ms();
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      for (int k = 0; k < N; k++)
        for (int e = 0; e < E; e++) {
          double acc = 0;
          for (int n = 0; n < N; n++)
            for (int m = 0; m < N; m++)
              for (int l = 0; l < N; l++)
                acc += A[i][l] * A[j][m] * A[k][n] * u[e][l][m][n];
          v[i][j][k][e] = acc;
        }
  double t1 = now_ms();
  double sum = 0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      for (int k = 0; k < N; k++)
        for (int e = 0; e < E; e++)
          sum += v[i][j][k][e];
  printf("%.3f ms (checksum %.6g)\n", t1 - t0, sum);
  return 0;
}
