/*
 * hand.h - the driver shared by the hand-written measurements of interp
 * (bench/rows.c, bench/tails.c): random A and u (seed 1), teilc's function KER
 * and the hand-written kernel run once and their outputs compared bit for bit,
 * then interleaved rounds of RUNS runs of each, per round the median run of
 * each, and the medians over the rounds. The including file defines N, N3, E
 * and KER and includes <immintrin.h>, <omp.h>, <stdio.h>, <stdlib.h> and
 * <string.h>.
 *
 *   ./prog [ROUNDS [RUNS]]      (default 9 rounds of 20 runs)
 */

typedef void HandKernel(const double *restrict A, const double *restrict u, double *restrict v);

void KER(const double *restrict A, const double *restrict u, double *restrict v, double *restrict work);

static int hand_cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Times teilc's KER, then hand, then floor if not NULL (a kernel whose time
 * bounds the others from below, e.g. a copy of u to v), in each round. */
static int hand_main(int argc, char **argv, const char *name, HandKernel *hand, HandKernel *floor) {
  int rounds = argc > 1 ? atoi(argv[1]) : 9, reps = argc > 2 ? atoi(argv[2]) : 20;
  if (rounds < 1 || rounds > 99 || reps < 1 || reps > 100000) {
    fprintf(stderr, "%s: rounds must be 1..99 and runs a round 1..100000\n", name);
    return 2;
  }
  size_t nb = (size_t)E * N3 * 8;
  double *A = aligned_alloc(64, 64 * ((N * N * 8 + 63) / 64)), *u = aligned_alloc(64, nb);
  double *v1 = aligned_alloc(64, nb), *v2 = aligned_alloc(64, nb), *work = aligned_alloc(64, 1 << 20);
  double *s = malloc(sizeof(double) * reps);
  if (!A || !u || !v1 || !v2 || !work || !s) {
    fprintf(stderr, "%s: out of memory\n", name);
    return 1;
  }
  srand(1);
  for (int i = 0; i < N * N; i++)
    A[i] = rand() / (double)RAND_MAX - 0.5;
  for (size_t i = 0; i < (size_t)E * N3; i++)
    u[i] = rand() / (double)RAND_MAX;
  KER(A, u, v1, work);
  hand(A, u, v2);
  if (memcmp(v1, v2, nb)) {
    fprintf(stderr, "%s: the outputs differ from teilc's\n", name);
    return 1;
  }
  double t[3][99], r[99];
  int sides = floor ? 3 : 2;
  for (int k = 0; k < rounds; k++) {
    for (int side = 0; side < sides; side++) {
      for (int i = 0; i < reps; i++) {
        double a = omp_get_wtime();
        if (side == 0)
          KER(A, u, v1, work);
        else
          (side == 1 ? hand : floor)(A, u, v2);
        s[i] = (omp_get_wtime() - a) * 1e3;
      }
      qsort(s, reps, 8, hand_cmp);
      t[side][k] = s[reps / 2];
    }
    r[k] = t[1][k] / t[0][k];
  }
  for (int side = 0; side < sides; side++)
    qsort(t[side], rounds, 8, hand_cmp);
  qsort(r, rounds, 8, hand_cmp);
  printf("interp n=%d E=%d: outputs bit-identical; teilc %.3f ms, %s %.3f ms, median ratio %s/teilc %.3f",
         N, E, t[0][rounds / 2], name, t[1][rounds / 2], name, r[rounds / 2]);
  if (floor)
    printf("; u copied to v %.3f ms", t[2][rounds / 2]);
  printf(" (%d rounds of %d runs)\n", rounds, reps);
  free(s);
  return 0;
}
