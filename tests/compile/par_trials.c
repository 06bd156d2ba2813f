/*
 * R-CG-11.2: the trials of a parallel region measured at run time. Built with
 * the C that teilc made for mm 40 x 40 x 40 (function mm40, one site), included
 * here so that the site's counters can be read:
 *
 *   teilc mm40.teil --func mm40 -o mm40.c
 *   cc -fopenmp -DKERNEL_C='"mm40.c"' tests/compile/par_trials.c -o par_trials
 *
 * Prints "ok" and exits 0 when every check holds.
 */
#include KERNEL_C
#include <stdio.h>
#include <string.h>

#define N (40 * 40)

static _Alignas(64) double A[N], B[N], C[N], first[N]; /* the caller passes 64-byte aligned buffers (R-CG-9) */
static int failed;

static void expect(int ok, const char *what) {
  if (!ok) {
    printf("FAIL: %s\n", what);
    failed = 1;
  }
}

int main(void) {
  for (int i = 0; i < N; i++) {
    A[i] = (double)((i * 37) % 101) / 7 - 6;
    B[i] = (double)((i * 53) % 97) / 5 - 9;
  }
  expect(teil_par_st[0][0] == 0, "no execution before the first call");
  for (int call = 1; call <= 40; call++) {          /* 9 trials, restarted at most 3 times */
    memset(C, 0xff, sizeof C);                      /* NaNs: every element must be written */
    mm40(A, B, C, NULL);
    if (call == 1)
      memcpy(first, C, sizeof C);
    else
      expect(memcmp(first, C, sizeof C) == 0, "serial and parallel executions give the same bits");
    long long c = teil_par_st[0][0], s = teil_par_st[0][1], p = teil_par_st[0][2];
    if (teil_par_st[0][3] > 0)                      /* restarted: the counts below hold for the first round */
      continue;
    expect(c == (call < 9 ? call : 9), "the site counts its first 9 executions, then stops");
    if (call <= 3)
      expect(s == 0 && p == 0, "the first three executions are not timed");
    else if (call <= 6)
      expect(s == 0 && p > 0, "the fourth to sixth are parallel trials");
    else
      expect(s > 0 && p > 0, "the seventh to ninth are serial trials");
  }
  expect(teil_par_st[0][0] == 9 && teil_par_st[0][3] <= 3, "the trials end after at most 3 restarts");
  double t0;
  teil_par_st[0][1] = 100, teil_par_st[0][2] = 200;
  expect(teil_par_begin(0, &t0) == 0, "serial faster: the region runs serially");
  teil_par_st[0][1] = 200, teil_par_st[0][2] = 100;
  expect(teil_par_begin(0, &t0) == 1, "parallel faster: the region runs in parallel");
  mm40(A, B, C, NULL);
  expect(memcmp(first, C, sizeof C) == 0, "the chosen mode gives the same bits");
  expect(teil_par_st[0][0] == 9, "no execution after the trials counts");
  teil_par_st[0][0] = 8, teil_par_st[0][1] = 1000, teil_par_st[0][2] = 9000, teil_par_st[0][3] = 0;
  teil_par_end(0, 0, omp_get_wtime()); /* the last serial trial */
  expect(teil_par_st[0][0] == 0 && teil_par_st[0][1] == 0 && teil_par_st[0][2] == 0 && teil_par_st[0][3] == 1,
         "a parallel trial over 8 x the serial one starts the trials again");
  teil_par_st[0][0] = 8, teil_par_st[0][1] = 1000, teil_par_st[0][2] = 9000, teil_par_st[0][3] = 3;
  teil_par_end(0, 0, omp_get_wtime()); /* the last serial trial */
  expect(teil_par_st[0][0] == 9 && teil_par_st[0][3] == 3, "but not a fourth time");
  if (!failed)
    printf("ok\n");
  return failed;
}
