/*
 * teil-check - validates tensor kernels written in TeIL (.teil) or in the
 * model language (.tm). A kernel it accepts never accesses a tensor out of
 * bounds (TeIL Thm 4.6, report Cor. 2). Exit status: 0 all files well-typed
 * (warnings allowed), 1 some file has an error, 2 usage or I/O error.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "compile.h"
#include "npy.h"
#include "proc.h"
#include "teil.h"

#define MAX_DIFF_CFLAGS 16                          /* R-CG-16: words of TEIL_DIFF_CFLAGS */

static const char usage[] =
    "usage: teil-check [options] FILE...\n"
    "       teil-check --diff PROG [--pad M] [--trials N] [--lang L] [--no-lift] [--keep]\n"
    "                         [--schedule FILE | --no-schedule] [--stream | --no-stream]\n"
    "                         [--prefetch | --no-prefetch] [--lanes | --no-lanes] [--no-inline]\n"
    "\n"
    "Type-checks tensor kernels. FILE ending in .tm is the model language, any\n"
    "other FILE is TeIL. Diagnostics go to stderr as FILE:LINE:COL: error: ...\n"
    "\n"
    "options:\n"
    "  --lang teil|model   read every FILE in this language\n"
    "  --json              print diagnostics as JSON on stdout (one object per file)\n"
    "  -Werror             treat warnings as errors\n"
    "  --print-types       print the type of every statement\n"
    "  -v                  with --print-types, also every sub-expression\n"
    "  -q                  print nothing, only set the exit status\n"
    "  -h, --help          show this help\n"
    "\n"
    "differential testing (spec/compiler.md R-CG-16):\n"
    "  --diff PROG         compile PROG with teilc's compiler, build it with ${CC:-cc} -O2\n"
    "                      -fopenmp $TEIL_DIFF_CFLAGS (e.g. -march=native), run it and\n"
    "                      the interpreter on random inputs, and compare every output\n"
    "                      (undefined positions skipped, relative tolerance 1e-9);\n"
    "                      exit 0 agree, 1 mismatch, 2 usage/build error\n"
    "  --pad M             compile with padding to multiples of M\n"
    "  --trials N          number of random inputs (default 3)\n"
    "  --no-lift           compile without contraction lifting\n"
    "  --schedule FILE     compile with the schedule FILE (spec/schedule.md R-SCH-18)\n"
    "  --no-schedule       compile without the default schedule\n"
    "  --stream            stream every output the kernel never reads (R-CG-26), any size\n"
    "  --no-stream         never stream\n"
    "  --prefetch          prefetch the next element in element loops (R-CG-24.5), any size\n"
    "  --no-prefetch       never prefetch it\n"
    "  --lanes             elements in the lanes of a vector whenever the program allows it (R-SCH-27)\n"
    "  --no-lanes          never\n"
    "  --no-inline         inline no temporary in the default schedule (R-SCH-28)\n"
    "  --keep              keep the temporary directory (its name is printed)\n"
    "\n"
    "exit status: 0 well-typed (warnings allowed), 1 errors, 2 usage or I/O error\n"
    "\n"
    "example:\n"
    "  $ cat mm.teil\n"
    "  alloc input A : [3, 4]\n"
    "  alloc input B : [4, 5]\n"
    "  alloc output C : [3, 5]\n"
    "  C = contr 2 3 (prod A B)    # C[i,j] = sum_k A[i,k] B[k,j]\n"
    "  $ teil-check --print-types mm.teil\n"
    "  mm.teil:4: C : [3, 5]\n";

/* ---------------------------------------------------------------- --diff (R-CG-16) */

static int diff_fail(const char *what, const char *arg) {
  fprintf(stderr, "teil-check --diff: %s%s%s\n", what, arg ? " " : "", arg ? arg : "");
  return 2;
}

static void show_log(const char *log) {
  FILE *f = fopen(log, "r");
  if (!f)
    return;
  char line[1024];
  int n = 0;
  while (fgets(line, sizeof line, f) && n++ < 20)
    fprintf(stderr, "  %s", line);
  fclose(f);
}

static void rm_tree(const char *dir, const TeilProgram *p) {
  char path[4096];
  const char *fixed[] = {"kernel.c", "kernel", "cc.log", "run.log"};
  for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
    snprintf(path, sizeof path, "%s/%s", dir, fixed[i]);
    unlink(path);
  }
  for (int t = 0; p && t < teil_ntensors(p); t++) {
    snprintf(path, sizeof path, "%s/in_%s.npy", dir, teil_tensor_name(p, t));
    unlink(path);
    snprintf(path, sizeof path, "%s/out_%s.npy", dir, teil_tensor_name(p, t));
    unlink(path);
  }
  rmdir(dir);
}

static void index_str(const TeilProgram *p, int t, size_t flat, char *buf, size_t n) {
  int rank = teil_tensor_rank(p, t);
  const int64_t *d = teil_tensor_dims(p, t);
  size_t len = (size_t)snprintf(buf, n, "[");
  /* row-major: the last index varies fastest; printed 1-based */
  int64_t idx[64];
  int r = rank > 64 ? 64 : rank;
  for (int q = rank - 1; q >= 0; q--) {
    if (q < 64)
      idx[q] = (int64_t)(flat % (size_t)d[q]) + 1;
    flat /= (size_t)d[q];
  }
  for (int q = 0; q < r && len + 24 < n; q++)
    len += (size_t)snprintf(buf + len, n - len, "%s%lld", q ? ", " : "", (long long)idx[q]);
  snprintf(buf + len, n - len, "]");
}

/* R-CG-16: values agree when both are NaN, or equal, or within the tolerance. */
static int agree(double c, double i, double scale) {
  if (isnan(c) || isnan(i))
    return isnan(c) && isnan(i);
  if (c == i)
    return 1;
  if (isinf(c) || isinf(i))
    return 0;
  double m = fabs(i) > 1e-4 * scale ? fabs(i) : 1e-4 * scale;
  return fabs(c - i) <= 1e-9 * m;
}

static int diff_main(int argc, char **argv) {
  const char *prog = NULL;
  long long pad = 1, trials = 3;
  int keep = 0;
  TeilLang lang = TEIL_LANG_AUTO;
  CompileOptions o;
  teil_compile_defaults(&o);
  const char *sched = NULL;
  int no_sched = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--diff")) {
      continue;
    } else if (!strcmp(a, "--schedule")) {          /* R-SCH-18 */
      if (!v)
        return diff_fail("--schedule needs a file", NULL);
      sched = v;
      i++;
    } else if (!strcmp(a, "--no-schedule")) {
      no_sched = 1;
    } else if (!strcmp(a, "--pad") || !strcmp(a, "--trials")) {
      long long *dst = a[2] == 'p' ? &pad : &trials;
      if (cli_number(v, 1, a[2] == 'p' ? 1 << 20 : 1000000, dst))
        return diff_fail(a[2] == 'p' ? "--pad takes an integer in 1..1048576, not" : "--trials takes an integer >= 1, not",
                         v ? v : "''");
      i++;
    } else if (!strcmp(a, "--lang") || !strncmp(a, "--lang=", 7)) {
      const char *l = a[6] == '=' ? a + 7 : v;
      if (!l || (strcmp(l, "teil") && strcmp(l, "model")))
        return diff_fail("--lang takes 'teil' or 'model'", NULL);
      lang = !strcmp(l, "teil") ? TEIL_LANG_TEIL : TEIL_LANG_MODEL;
      i += a[6] != '=';
    } else if (!strcmp(a, "--no-lift")) {
      o.lift = false;
    } else if (!strcmp(a, "--stream") || !strcmp(a, "--no-stream")) {
      o.stream = a[2] == 's' ? 2 : 0;               /* R-CG-26 */
    } else if (!strcmp(a, "--prefetch") || !strcmp(a, "--no-prefetch")) {
      o.prefetch = a[2] == 'p' ? 2 : 0;             /* R-CG-24.5 */
    } else if (!strcmp(a, "--lanes") || !strcmp(a, "--no-lanes")) {
      o.lanes = a[2] == 'l' ? 1 : -1;               /* R-SCH-27 */
    } else if (!strcmp(a, "--no-inline")) {
      o.no_inline = true;                           /* R-SCH-28 */
    } else if (!strcmp(a, "--keep")) {
      keep = 1;
    } else if (a[0] == '-' && a[1]) {
      return diff_fail("unknown option for --diff:", a);
    } else if (prog) {
      return diff_fail("one program at a time; a second one:", a);
    } else {
      prog = a;
    }
  }
  if (!prog)
    return diff_fail("no program given (try --help)", NULL);

  char err[1024];
  Schedule *schedule = NULL;
  if (sched && no_sched)
    return diff_fail("--schedule and --no-schedule exclude each other", NULL);
  if (sched) {
    schedule = sched_load(sched, err, sizeof err, NULL);
    if (!schedule) {
      fprintf(stderr, "%s\n", err);
      return 2;
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
    return diff_fail(err, NULL);
  }
  TeilProgram *p = teil_parse(prog, src, len, lang);
  free(src);
  if (!p) {
    sched_free(schedule);
    return diff_fail("out of memory", NULL);
  }
  if (teil_check(p)) {
    teil_print_diagnostics(p, stderr, 0);
    teil_free(p);
    sched_free(schedule);
    return diff_fail("the program has errors; nothing to compare", NULL);
  }

  o.pad = (int)pad;
  o.main = true;
  o.source = prog;
  char func[256];
  teil_compile_func_name(prog, func, sizeof func);
  o.func = func;
  CompileOutput out;
  int crc = teil_compile(p, &o, &out, err, sizeof err);
  sched_free(schedule);
  if (crc) {
    teil_free(p);
    if (crc == -2) {                                /* R-SCH-3, R-SCH-18 */
      fprintf(stderr, "%s\n", err);
      return 2;
    }
    return diff_fail(err, NULL);
  }

  const char *tmp = getenv("TMPDIR");
  char dir[4096], path[4096], log[4096], exe[4096];
  snprintf(dir, sizeof dir, "%s/teil-diff-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(dir)) {
    teil_compile_free(&out);
    teil_free(p);
    return diff_fail("cannot create a temporary directory in", tmp && *tmp ? tmp : "/tmp");
  }
  int rc = 2;
  snprintf(path, sizeof path, "%s/kernel.c", dir);
  snprintf(exe, sizeof exe, "%s/kernel", dir);
  snprintf(log, sizeof log, "%s/cc.log", dir);
  FILE *f = fopen(path, "w");
  if (!f || fputs(out.c, f) < 0 || fclose(f) != 0) {
    diff_fail("cannot write", path);
    goto done;
  }
  const char *cc = getenv("CC"), *extra = getenv("TEIL_DIFF_CFLAGS");
  char *ccv[8 + MAX_DIFF_CFLAGS] = {(char *)(cc && *cc ? cc : "cc"), "-O2", "-fopenmp"};
  int ncc = 3;
  char words[1024] = "";                            /* R-CG-16: TEIL_DIFF_CFLAGS, words split at spaces */
  if (extra && strlen(extra) >= sizeof words) {
    diff_fail("TEIL_DIFF_CFLAGS is too long (1023 characters at most):", extra);
    goto done;
  }
  if (extra)
    strcpy(words, extra);
  for (char *w = strtok(words, " \t"); w; w = strtok(NULL, " \t")) {
    if (ncc == 3 + MAX_DIFF_CFLAGS) {
      diff_fail("TEIL_DIFF_CFLAGS has more than 16 words:", extra);
      goto done;
    }
    ccv[ncc++] = w;
  }
  ccv[ncc++] = "-o";
  ccv[ncc++] = exe;
  ccv[ncc++] = path;
  ccv[ncc++] = "-lm";
  ccv[ncc] = NULL;
  if (proc_run(ccv, log, 0) != 0) {
    fprintf(stderr, "teil-check --diff: building the compiled kernel with '%s' failed:\n", ccv[0]);
    show_log(log);
    goto done;
  }

  int n = teil_ntensors(p);
  char **args = calloc((size_t)(4 * n + 4), sizeof *args);
  char **bufs = calloc((size_t)(2 * n + 2), sizeof *bufs);
  int nb = 0;
  rc = 0;
  for (long long trial = 1; trial <= trials && rc == 0; trial++) {
    TeilStore *s = teil_store_new(p, 1, 0, err, sizeof err);
    if (!s) {
      rc = diff_fail(err, NULL);
      break;
    }
    int na = 0;
    args[na++] = exe;
    for (int t = 0; t < n && rc == 0; t++) {
      unsigned q = teil_tensor_qual(p, t);
      const char *name = teil_tensor_name(p, t);
      if (q & TEIL_INPUT) {
        teil_store_fill_random(s, t, (uint64_t)trial);
        snprintf(path, sizeof path, "%s/in_%s.npy", dir, name);
        if (teil_store_write_npy(s, t, path, NULL, err, sizeof err)) {
          rc = diff_fail(err, NULL);
          break;
        }
        size_t l = strlen(name) + strlen(path) + 2;
        char *b = bufs[nb++] = malloc(l);
        snprintf(b, l, "%s=%s", name, path);
        args[na++] = "--in";
        args[na++] = b;
      }
      if (q & TEIL_OUTPUT) {
        snprintf(path, sizeof path, "%s/out_%s.npy", dir, name);
        size_t l = strlen(name) + strlen(path) + 2;
        char *b = bufs[nb++] = malloc(l);
        snprintf(b, l, "%s=%s", name, path);
        args[na++] = "--out";
        args[na++] = b;
      }
    }
    args[na] = NULL;
    if (rc == 0 && teil_run(p, s, NULL, err, sizeof err))
      rc = diff_fail(err, NULL);
    snprintf(log, sizeof log, "%s/run.log", dir);
    if (rc == 0 && proc_run(args, log, 0) != 0) {
      fprintf(stderr, "teil-check --diff: the compiled kernel failed (trial %lld):\n", trial);
      show_log(log);
      rc = 2;
    }
    for (int t = 0; t < n && rc == 0; t++) {
      if (!(teil_tensor_qual(p, t) & TEIL_OUTPUT))
        continue;
      const char *name = teil_tensor_name(p, t);
      size_t cnt = 1;
      for (int q = 0; q < teil_tensor_rank(p, t); q++)
        cnt *= (size_t)teil_tensor_dims(p, t)[q];
      double *iv = malloc(cnt * sizeof *iv);
      unsigned char *iu = malloc(cnt);
      teil_store_get(s, t, iv, iu);
      NpyArray a;
      snprintf(path, sizeof path, "%s/out_%s.npy", dir, name);
      if (npy_read(path, cnt * sizeof(double), &a, err, sizeof err) || a.count != cnt) {
        rc = diff_fail(err, NULL);
      } else {
        double scale = 0;
        for (size_t k = 0; k < cnt; k++)
          if (!iu[k] && isfinite(iv[k]) && fabs(iv[k]) > scale)
            scale = fabs(iv[k]);
        for (size_t k = 0; k < cnt && rc == 0; k++) {
          if (iu[k] || agree(a.data[k], iv[k], scale))
            continue;                       /* a • position is skipped */
          char idx[512];
          index_str(p, t, k, idx, sizeof idx);
          printf("%s: mismatch in trial %lld (seed %lld, pad %lld): %s%s is %.17g compiled, %.17g interpreted\n", prog,
                 trial, trial, pad, name, idx, a.data[k], iv[k]);
          rc = 1;
        }
      }
      npy_free(&a);
      free(iv);
      free(iu);
    }
    teil_store_free(s);
    while (nb > 0)
      free(bufs[--nb]);
  }
  free(args);
  free(bufs);
  if (rc == 0)
    printf("%s: compiled code agrees with the interpreter (%lld trial%s, pad %lld%s%s%s)\n", prog, trials,
           trials == 1 ? "" : "s", pad, o.lift && teil_compile_have_lift() ? ", lifted" : "", sched ? ", schedule " : "",
           sched ? sched : "");
done:
  if (keep)
    fprintf(stderr, "teil-check --diff: files kept in %s\n", dir);
  else
    rm_tree(dir, p);
  teil_compile_free(&out);
  teil_free(p);
  return rc;
}

int main(int argc, char **argv) {
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], "--diff"))
      return diff_main(argc, argv);
  TeilLang lang = TEIL_LANG_AUTO;
  int json = 0, werror = 0, types = 0, verbose = 0, quiet = 0, nfiles = 0;
  char **files = calloc((size_t)argc + 1, sizeof *files);
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      fputs(usage, stdout);
      free(files);
      return 0;
    } else if (!strcmp(a, "--lang") || !strncmp(a, "--lang=", 7)) {
      const char *v = a[6] == '=' ? a + 7 : (i + 1 < argc ? argv[++i] : "");
      if (!strcmp(v, "teil"))
        lang = TEIL_LANG_TEIL;
      else if (!strcmp(v, "model"))
        lang = TEIL_LANG_MODEL;
      else {
        fprintf(stderr, "teil-check: --lang takes 'teil' or 'model', not '%s'\n", v);
        free(files);
        return 2;
      }
    } else if (!strcmp(a, "--json")) {
      json = 1;
    } else if (!strcmp(a, "-Werror")) {
      werror = 1;
    } else if (!strcmp(a, "--print-types")) {
      types = 1;
    } else if (!strcmp(a, "-v")) {
      verbose = 1;
    } else if (!strcmp(a, "-q")) {
      quiet = 1;
    } else if (a[0] == '-' && a[1]) {
      fprintf(stderr, "teil-check: unknown option '%s' (try --help)\n", a);
      free(files);
      return 2;
    } else {
      files[nfiles++] = argv[i];
    }
  }
  if (nfiles == 0) {
    fprintf(stderr, "teil-check: no input files (try --help)\n");
    free(files);
    return 2;
  }

  int status = 0;
  for (int f = 0; f < nfiles; f++) {
    char err[512];
    size_t len;
    char *src = cli_read_file(files[f], (size_t)1 << 26, &len, err, sizeof err);
    if (!src) {
      fprintf(stderr, "teil-check: %s\n", err);
      status = 2;
      continue;
    }
    TeilProgram *p = teil_parse(files[f], src, len, lang);
    free(src);
    if (!p) {
      fprintf(stderr, "teil-check: out of memory\n");
      status = 2;
      continue;
    }
    teil_check(p);
    if (werror)
      teil_promote_warnings(p);
    int errors = teil_nerrors(p);
    if (!quiet) {
      if (json)
        teil_print_diagnostics(p, stdout, 1);
      else
        teil_print_diagnostics(p, stderr, 0);
      if (types)
        teil_print_types(p, stdout, verbose);
    }
    if (errors && status == 0)
      status = 1;
    teil_free(p);
  }
  free(files);
  return status;
}
