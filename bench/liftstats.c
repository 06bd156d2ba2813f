/*
 * liftstats.c - prints the nominal FLOPs of a program as written and after
 * contraction lifting (src/lift.c, spec/lifting.md), for bench/lift.sh.
 * Usage: liftstats PROG...   Output: one line per program,
 *   PROG flops_before flops_after temporaries
 */
#include <stdio.h>
#include <stdlib.h>

#include "lift.h"

int main(int argc, char **argv) {
  int rc = 0;
  for (int i = 1; i < argc; i++) {
    FILE *f = fopen(argv[i], "rb");
    if (!f) {
      fprintf(stderr, "liftstats: cannot open %s\n", argv[i]);
      rc = 2;
      continue;
    }
    static char src[1 << 20];
    size_t n = fread(src, 1, sizeof src, f);
    fclose(f);
    TeilProgram *p = teil_parse(argv[i], src, n, TEIL_LANG_AUTO);
    if (teil_check(p)) {
      teil_print_diagnostics(p, stderr, 0);
      teil_free(p);
      rc = 1;
      continue;
    }
    LiftStats st = {0};
    char err[256];
    TeilProgram *q = lift_program(p, &st, err, sizeof err);
    if (!q) {
      fprintf(stderr, "liftstats: %s: %s\n", argv[i], err);
      rc = 1;
    } else {
      printf("%s %.0f %.0f %d\n", argv[i], st.flops_before, st.flops_after, st.ntemps);
      teil_free(q);
    }
    teil_free(p);
  }
  return rc;
}
