/*
 * fuzz_sched.c - fuzzing schedule files (spec/schedule.md R-SCH-1 .. R-SCH-3):
 * the schedule parser, every primitive's checks and legality test, and the
 * code generator after an accepted schedule.
 *
 * LLVMFuzzerTestOneInput is a libFuzzer entry point. From the repo root:
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
 *         -Iinclude -Isrc tests/fuzz/fuzz_sched.c src/[a-z]*.c -lm -o build/fuzz_sched
 *   mkdir -p build/fuzz_sched_corpus && sh tests/fuzz/sched_seeds.sh build/fuzz_sched_corpus
 *   build/fuzz_sched -max_len=2048 build/fuzz_sched_corpus
 * An input is one byte that picks a program (sched_progs below, modulo their
 * number), one byte of options (bit 0: --pad 4, bit 1: --acsl, bit 2: f32,
 * bit 3: no OpenMP, bit 4: --stream, bit 5: --lanes, bit 6: --no-lanes), then
 * the text of a schedule file for that program. The programs are those of
 * examples/teml/ and tests/fuzz/lanes3.teil, a CFD operator of 17 elements
 * that the lane form (R-SCH-27) and its streamed copy-out (R-CG-26.1) accept.
 * They are read at start from the repo root (TEIL_FUZZ_ROOT overrides it).
 *
 * Besides "no crash, no out-of-bounds access, no undefined behaviour" it checks
 * the contract of R-SCH-3 (a violation calls abort()):
 *   - a schedule that does not parse, or that a step refuses, gives a one-line
 *     message "fuzz.sched:LINE:COL: error: ..." with LINE, COL >= 1;
 *   - a compiler limitation (-1) gives a non-empty one-line message;
 *   - an accepted schedule gives C text, and compiling again with the same
 *     schedule gives the same text (no dependence on uninitialized memory).
 *
 * Built with -DFUZZ_SCHED_MAIN instead of -fsanitize=fuzzer, the file has a
 * plain main that runs each file named on the command line once (to replay a
 * crash or a corpus under gcc's ASan/UBSan):
 *   make build/san/lib/libteil.a
 *   gcc -DFUZZ_SCHED_MAIN -Iinclude -Isrc -g -O1 -fsanitize=address,undefined \
 *       tests/fuzz/fuzz_sched.c build/san/lib/libteil.a -lm -o build/fuzz_sched_main
 *   build/fuzz_sched_main FILE...
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const sched_progs[] = {
    "examples/teml/bmm.teil",    "examples/teml/coars.teil",    "examples/teml/helm.teil",
    "examples/teml/interp.teil", "examples/teml/mm_tiled.teil", "examples/teml/mttkrp.teil",
    "examples/teml/sddmm.teil",  "tests/fuzz/lanes3.teil"};
#define NPROGS ((int)(sizeof sched_progs / sizeof sched_progs[0]))

static TeilProgram *progs[NPROGS];

static void fuzz_fail(const char *what, const char *msg) {
  fprintf(stderr, "fuzz_sched: contract violated: %s (message: \"%s\")\n", what, msg ? msg : "");
  abort();
}

/* Reads and checks the programs once; a missing or ill-typed one is fatal. */
static void load_progs(void) {
  const char *root = getenv("TEIL_FUZZ_ROOT");
  if (!root)
    root = ".";
  for (int i = 0; i < NPROGS; i++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", root, sched_progs[i]);
    FILE *f = fopen(path, "rb");
    if (!f) {
      fprintf(stderr, "fuzz_sched: cannot open %s (run from the repo root or set TEIL_FUZZ_ROOT)\n", path);
      exit(2);
    }
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    progs[i] = teil_parse(path, buf, n, TEIL_LANG_TEIL);
    if (!progs[i] || teil_check(progs[i])) {
      fprintf(stderr, "fuzz_sched: %s does not check\n", path);
      exit(2);
    }
  }
}

/* A message of R-SCH-3: "fuzz.sched:LINE:COL: error: ...", one line. */
static void check_located(const char *err) {
  const char *p = err;
  if (strncmp(p, "fuzz.sched:", 11))
    fuzz_fail("a schedule error does not start with the file name", err);
  p += 11;
  char *end;
  long line = strtol(p, &end, 10);
  if (end == p || line < 1 || *end != ':')
    fuzz_fail("a schedule error has no line >= 1", err);
  p = end + 1;
  long col = strtol(p, &end, 10);
  if (end == p || col < 1 || strncmp(end, ": error: ", 9) || !end[9])
    fuzz_fail("a schedule error has no column >= 1 or no message", err);
  if (strchr(err, '\n'))
    fuzz_fail("a schedule error spans lines", err);
}

/* Compiles program p with the schedule; returns the C text (malloc'd) or NULL. */
static char *compile_once(TeilProgram *p, const Schedule *s, unsigned opt, int *rc, char *err, size_t errlen) {
  CompileOptions o;
  teil_compile_defaults(&o);
  o.func = "fuzz";
  o.source = "fuzz.teil";
  o.pad = opt & 1 ? 4 : 1;
  o.acsl = (opt & 2) != 0;
  o.f32 = (opt & 4) != 0;
  o.openmp = (opt & 8) == 0;
  o.prefetch = 2;                 /* R-CG-24.5: the small programs still exercise R-CG-24 */
  if (opt & 16)
    o.stream = 2;
  if (opt & 32)
    o.lanes = 1;
  else if (opt & 64)
    o.lanes = -1;
  o.schedule = sched_apply;
  o.schedule_arg = s;
  CompileOutput out;
  err[0] = 0;
  *rc = teil_compile(p, &o, &out, err, errlen);
  char *c = NULL;
  if (*rc == 0) {
    if (!out.c || !out.c[0])
      fuzz_fail("an accepted schedule gave no C", NULL);
    c = strdup(out.c);
    if (!c)
      abort();
  }
  teil_compile_free(&out);
  return c;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!progs[0])
    load_progs();
  if (size < 2)
    return 0;
  TeilProgram *p = progs[data[0] % NPROGS];
  unsigned opt = data[1];
  char err[1024];
  Schedule *s = sched_parse("fuzz.sched", (const char *)data + 2, size - 2, err, sizeof err);
  if (!s) {
    check_located(err);
    return 0;
  }
  int rc, rc2;
  char *c = compile_once(p, s, opt, &rc, err, sizeof err);
  if (rc == -2) {
    check_located(err);
  } else if (rc == -1) {
    if (!err[0] || strchr(err, '\n'))
      fuzz_fail("a compiler limitation without a one-line message", err);
  } else if (rc != 0) {
    fuzz_fail("teil_compile returned something else than 0, -1 or -2", err);
  } else {
    char *c2 = compile_once(p, s, opt, &rc2, err, sizeof err);
    if (rc2 != 0 || strcmp(c, c2))
      fuzz_fail("the same schedule compiled twice gave different C", NULL);
    free(c2);
  }
  free(c);
  sched_free(s);
  return 0;
}

#ifdef FUZZ_SCHED_MAIN
int main(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    FILE *f = fopen(argv[i], "rb");
    if (!f) {
      fprintf(stderr, "fuzz_sched: cannot open %s\n", argv[i]);
      return 2;
    }
    static uint8_t buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    uint8_t *copy = malloc(n ? n : 1);  /* exactly n bytes, so that ASan sees an overrun */
    if (!copy)
      return 2;
    memcpy(copy, buf, n);
    LLVMFuzzerTestOneInput(copy, n);
    free(copy);
  }
  printf("fuzz_sched: %d inputs, no contract violated\n", argc - 1);
  return 0;
}
#endif
