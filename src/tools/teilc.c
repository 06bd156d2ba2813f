/*
 * teilc - the optimizing compiler: TeIL or model-language kernels to C11
 * (spec/compiler.md). Exit status (R-CG-15): 0 success, 1 the program has
 * errors (diagnostics as teil-check prints them), 2 usage, I/O or a compiler
 * limitation.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "compile.h"
#include "teil.h"
#include "tune.h"

static const char usage[] =
    "usage: teilc PROG [options]\n"
    "\n"
    "Compiles PROG (.teil is TeIL, .tm the model language) to a C11 function\n"
    "(spec/compiler.md). The compiled code computes what teil-run computes,\n"
    "with the undefined value as NaN.\n"
    "\n"
    "options:\n"
    "  -o FILE.c            write the C code there (default, and with -o -: stdout)\n"
    "  -H FILE.h            also write a header: prototype, shapes, strides, workspace size\n"
    "  --func NAME          name of the C function (default: PROG's base name)\n"
    "  --pad M              round every extent up to a multiple of M (padded layout)\n"
    "  --no-lift            do not run contraction lifting\n"
    "  --openmp             emit OpenMP pragmas (the default)\n"
    "  --no-openmp          emit none\n"
    "  --stream             stage every output written once and never read and store it with\n"
    "                       non-temporal stores (R-CG-26; by default only when the\n"
    "                       parameters together are larger than 16 x the L2 cache)\n"
    "  --no-stream          never\n"
    "  --prefetch           prefetch the next element's slices in element loops (R-CG-24.5;\n"
    "                       by default only when the parameters are larger than 16 x the L2)\n"
    "  --no-prefetch        never\n"
    "  --lanes              run W consecutive elements in the lanes of a vector whenever the\n"
    "                       program allows it (R-SCH-27; by default only when it pays)\n"
    "  --no-lanes           never\n"
    "  --no-inline          recompute no temporary where it is read (R-SCH-28; by default a\n"
    "                       product of two loads that its reader uses little is)\n"
    "  --dtype f64|f32      element type double (default) or float\n"
    "  --main               add a standalone driver: ./kernel --in A=a.npy --out C=c.npy [--repeat N]\n"
    "  --acsl               add ACSL contracts for Frama-C/WP (spec/acsl.md; prove with acsl/wp-check)\n"
    "  --emit-teil          write the program after lifting as TeIL instead of C\n"
    "  --schedule FILE      apply the TeML transformations of FILE (spec/schedule.md), e.g.\n"
    "                         C: tile 2 3 4 4\n"
    "                         C: parallelize 1\n"
    "  --no-schedule        no default schedule (R-SCH-17): the canonical loop nests\n"
    "  --dump=PASS          print the program after PASS (teil, lift, lower, pad, sched) to stdout;\n"
    "                       --dump=schedule prints the default schedule's steps as a schedule file\n"
    "  --tune               search for a faster schedule (spec/tune.md): compile, check against the\n"
    "                       interpreter and time candidates; keep the best in the cache\n"
    "                       ($TEIL_CACHE_DIR, else $XDG_CACHE_HOME/teil, else ~/.cache/teil), reuse it later\n"
    "  --tune-seconds S     the search budget in seconds (default 60)\n"
    "  --tune-out FILE      write the chosen schedule to FILE (default: print the cache entry's path)\n"
    "  --no-tune-cache      do not use a tuned schedule from the cache\n"
    "  --lang teil|model    override the file extension\n"
    "  -h, --help           show this help\n"
    "\n"
    "environment: TEIL_L1_BYTES, TEIL_L2_BYTES  the L1 data and L2 cache sizes the default schedule is sized\n"
    "                       for, TEIL_L1_ASSOC the L1's ways (default: the host's; spec/schedule.md R-SCH-17);\n"
    "                       TEIL_VEC_SPLIT=1 if the CPU runs a 512-bit operation as two halves, 0 if not\n"
    "                       (default: 1 on AMD Zen 4; it decides where lanes pay, R-SCH-27 (d))\n"
    "\n"
    "exit status: 0 ok, 1 the program or the schedule has errors, 2 usage, I/O or compiler limitation\n"
    "\n"
    "example:\n"
    "  teilc examples/mm.teil --main -o mm.c && gcc -std=c11 -O3 -march=native -fopenmp mm.c -o mm -lm\n"
    "  ./mm --in A=a.npy --in B=b.npy --out C=c.npy --repeat 10\n";

static int die(const char *fmt, const char *arg) {
  fprintf(stderr, "teilc: ");
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\n");
  return 2;
}

/* Writes text to path; "-" is the standard output. */
static int write_file(const char *path, const char *text) {
  if (!strcmp(path, "-"))
    return fputs(text, stdout) < 0 || fflush(stdout) ? die("cannot write '%s'", "standard output") : 0;
  FILE *f = fopen(path, "w");
  if (!f)
    return die("cannot create '%s'", path);
  size_t n = strlen(text);
  int bad = fwrite(text, 1, n, f) != n;
  bad |= fclose(f) != 0;
  if (bad)
    return die("cannot write '%s'", path);
  return 0;
}

int main(int argc, char **argv) {
  CompileOptions o;
  teil_compile_defaults(&o);
  const char *prog = NULL, *cout = NULL, *hout = NULL, *func = NULL, *sched = NULL;
  bool no_sched = false;
  bool tune = false, no_tune_cache = false, tune_secs_given = false; /* R-TUNE-1 */
  double tune_secs = 60;
  const char *tune_out = NULL;
  TeilLang lang = TEIL_LANG_AUTO;
  char err[1024];

  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      fputs(usage, stdout);
      return 0;
    } else if (!strcmp(a, "-o") || !strcmp(a, "-H") || !strcmp(a, "--func")) {
      if (!v)
        return die("%s needs an argument (try --help)", a);
      *(a[1] == 'o' ? &cout : a[1] == 'H' ? &hout : &func) = v;
      i++;
    } else if (!strcmp(a, "--pad")) {
      long long m;
      if (cli_number(v, 1, 1 << 20, &m))
        return die("--pad takes an integer in 1..1048576, not '%s'", v ? v : "");
      o.pad = (int)m;
      i++;
    } else if (!strcmp(a, "--no-lift")) {
      o.lift = false;
    } else if (!strcmp(a, "--schedule") || !strncmp(a, "--schedule=", 11)) {
      const char *f = a[10] == '=' ? a + 11 : v;
      if (!f || !*f)
        return die("--schedule needs a file (try --help)%s", "");
      sched = f;
      i += a[10] != '=';
    } else if (!strcmp(a, "--no-schedule")) {
      no_sched = true;
    } else if (!strcmp(a, "--tune")) {             /* R-TUNE-1 */
      tune = true;
    } else if (!strcmp(a, "--no-tune-cache")) {
      no_tune_cache = true;
    } else if (!strcmp(a, "--tune-seconds") || !strncmp(a, "--tune-seconds=", 15)) {
      const char *t = a[14] == '=' ? a + 15 : v;
      char *end = NULL;
      double s = t && *t ? strtod(t, &end) : 0;
      if (!t || !*t || *end || !(s > 0) || s > 86400)
        return die("--tune-seconds takes a number of seconds in (0, 86400], not '%s'", t ? t : "");
      tune_secs = s;
      tune_secs_given = true;
      i += a[14] != '=';
    } else if (!strcmp(a, "--tune-out") || !strncmp(a, "--tune-out=", 11)) {
      const char *t = a[10] == '=' ? a + 11 : v;
      if (!t || !*t)
        return die("--tune-out needs a file (try --help)%s", "");
      tune_out = t;
      i += a[10] != '=';
    } else if (!strcmp(a, "--openmp") || !strcmp(a, "--no-openmp")) {
      o.openmp = a[2] == 'o';
    } else if (!strcmp(a, "--stream") || !strcmp(a, "--no-stream")) {
      o.stream = a[2] == 's' ? 2 : 0;               /* R-CG-26 */
    } else if (!strcmp(a, "--prefetch") || !strcmp(a, "--no-prefetch")) {
      o.prefetch = a[2] == 'p' ? 2 : 0;             /* R-CG-24.5 */
    } else if (!strcmp(a, "--lanes") || !strcmp(a, "--no-lanes")) {
      o.lanes = a[2] == 'l' ? 1 : -1;               /* R-SCH-27 */
    } else if (!strcmp(a, "--no-inline")) {
      o.no_inline = true;                           /* R-SCH-28 */
    } else if (!strcmp(a, "--dtype") || !strncmp(a, "--dtype=", 8)) {
      const char *t = a[7] == '=' ? a + 8 : v;
      if (!t || (strcmp(t, "f64") && strcmp(t, "f32")))
        return die("--dtype takes 'f64' or 'f32', not '%s'", t ? t : "");
      o.f32 = !strcmp(t, "f32");
      i += a[7] != '=';
    } else if (!strcmp(a, "--main")) {
      o.main = true;
    } else if (!strcmp(a, "--acsl")) {
      o.acsl = true;
    } else if (!strcmp(a, "--emit-teil")) {
      o.emit_teil = true;
    } else if (!strncmp(a, "--dump=", 7) || !strcmp(a, "--dump")) {
      const char *pass = a[6] == '=' ? a + 7 : v;
      if (!pass)
        return die("--dump takes a pass: teil, lift, lower, pad, sched or schedule%s", "");
      if (!strcmp(pass, "teil"))
        o.dump = DUMP_TEIL;
      else if (!strcmp(pass, "lift"))
        o.dump = DUMP_LIFT;
      else if (!strcmp(pass, "lower"))
        o.dump = DUMP_LOWER;
      else if (!strcmp(pass, "pad"))
        o.dump = DUMP_PAD;
      else if (!strcmp(pass, "sched"))
        o.dump = DUMP_SCHED;
      else if (!strcmp(pass, "schedule"))
        o.dump = DUMP_SCHEDULE;
      else
        return die("--dump takes a pass: teil, lift, lower, pad, sched or schedule, not '%s'", pass);
      i += a[6] != '=';
    } else if (!strcmp(a, "--lang") || !strncmp(a, "--lang=", 7)) {
      const char *l = a[6] == '=' ? a + 7 : v;
      if (!l || (strcmp(l, "teil") && strcmp(l, "model")))
        return die("--lang takes 'teil' or 'model', not '%s'", l ? l : "");
      lang = !strcmp(l, "teil") ? TEIL_LANG_TEIL : TEIL_LANG_MODEL;
      i += a[6] != '=';
    } else if (a[0] == '-' && a[1]) {
      return die("unknown option '%s' (try --help)", a);
    } else if (prog) {
      return die("one program at a time; '%s' is a second one", a);
    } else {
      prog = a;
    }
  }
  if (!prog)
    return die("no program given (try --help)%s", "");
  if (hout && o.emit_teil)
    return die("-H writes a C header; it cannot go with --emit-teil%s", "");
  if (sched && no_sched)
    return die("--schedule and --no-schedule exclude each other%s", "");
  if (tune && (sched || no_sched || no_tune_cache || o.emit_teil || o.dump != DUMP_NONE || o.acsl))
    return die("--tune excludes --schedule, --no-schedule, --no-tune-cache, --emit-teil, --dump and --acsl%s", "");
  if (!tune && (tune_secs_given || tune_out))
    return die("--tune-seconds and --tune-out go with --tune%s", "");

  char fname[256];
  if (func) {
    if (!teil_compile_valid_ident(func) || cgen_reserved(func))
      return die("--func: '%s' is not a C identifier that can name the function", func);
    snprintf(fname, sizeof fname, "%s", func);
  } else {
    teil_compile_func_name(prog, fname, sizeof fname);
  }
  o.func = fname;
  o.source = prog;
  o.header = hout != NULL;

  Schedule *schedule = NULL;                        /* R-SCH-3 */
  if (sched) {
    bool io;
    schedule = sched_load(sched, err, sizeof err, &io);
    if (!schedule) {
      if (io)
        return die("%s", err);
      fprintf(stderr, "%s\n", err);
      return 1;
    }
    o.schedule = sched_apply;
    o.schedule_arg = schedule;
  } else if (no_sched) {
    o.schedule = NULL;
  }

  size_t len;
  char *src = cli_read_file(prog, (size_t)1 << 26, &len, err, sizeof err);
  if (!src) {
    sched_free(schedule);
    return die("%s", err);
  }
  TeilProgram *p = teil_parse(prog, src, len, lang);
  free(src);
  if (!p) {
    sched_free(schedule);
    return die("out of memory%s", "");
  }
  int errors = teil_check(p);
  teil_print_diagnostics(p, stderr, 0);
  if (errors) {
    teil_free(p);
    sched_free(schedule);
    return 1;
  }

  /* R-TUNE-1, R-TUNE-7: a tuned schedule, searched now or from the cache */
  char *tuned = NULL;
  char tuned_path[4096] = "";
  if (tune) {
    TuneOptions to = {prog, tune_secs, stderr, isatty(2) != 0};
    TuneResult tr;
    if (tune_run(p, &o, &to, &tr, err, sizeof err)) {
      teil_free(p);
      return die("%s", err);
    }
    if (tr.from_cache)
      fprintf(stderr, "teilc: using the tuned schedule %s from the cache; no search (R-TUNE-1)\n", tr.path);
    snprintf(tuned_path, sizeof tuned_path, "%s", tr.path);
    tuned = tr.text;
    if (tune_out) {
      if (write_file(tune_out, tuned)) {
        free(tuned);
        teil_free(p);
        return 2;
      }
    } else {
      fprintf(stderr, "teilc: tuned schedule: %s\n", tr.path);
    }
  } else if (!sched && !no_sched && !no_tune_cache && !o.emit_teil && o.dump == DUMP_NONE) {
    int lk = tune_lookup(p, &o, tuned_path, sizeof tuned_path, &tuned, err, sizeof err);
    if (lk < 0)
      fprintf(stderr, "teilc: warning: %s\n", err);
    else if (lk > 0)
      fprintf(stderr, "teilc: using the tuned schedule %s (R-TUNE-7)\n", tuned_path);
  }
  if (tuned) {
    schedule = sched_parse(tuned_path, tuned, strlen(tuned), err, sizeof err);
    free(tuned);
    if (schedule) {
      o.schedule = sched_apply;
      o.schedule_arg = schedule;
    } else {
      fprintf(stderr, "teilc: warning: %s; compiling with the default schedule\n", err);
    }
  }

  CompileOutput out;
  int crc = teil_compile(p, &o, &out, err, sizeof err);
  if (crc == -2 && schedule && !sched) {         /* R-TUNE-7: a cached schedule refused */
    fprintf(stderr, "teilc: warning: the tuned schedule is refused (%s); compiling with the default schedule\n", err);
    sched_free(schedule);
    schedule = NULL;
    o.schedule = sched_default;
    o.schedule_arg = NULL;
    crc = teil_compile(p, &o, &out, err, sizeof err);
  }
  if (crc) {
    teil_free(p);
    sched_free(schedule);
    if (crc == -2) {                                /* R-SCH-3: FILE:LINE:COL: error: ... */
      fprintf(stderr, "%s\n", err);
      return 1;
    }
    return die("%s", err);
  }
  int rc = 0;
  if (cout)
    rc = write_file(cout, out.c);
  else if (o.dump == DUMP_NONE)
    fputs(out.c, stdout);
  if (!rc && hout)
    rc = write_file(hout, out.h);
  teil_compile_free(&out);
  teil_free(p);
  sched_free(schedule);
  return rc;
}
