/*
 * teil-run - the reference interpreter. Runs a TeIL or model-language program
 * on the papers' abstract store, reading and writing NumPy .npy files.
 * Exit status: 0 success, 1 ill-typed program, 2 usage, I/O or resource error,
 * 3 a run-time check of the padding theorems failed (a bug; please report it).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "teil.h"

static const char usage[] =
    "usage: teil-run PROG [options]\n"
    "\n"
    "Runs PROG (.teil is TeIL, .tm the model language) on the reference interpreter.\n"
    "\n"
    "options:\n"
    "  --in NAME=FILE.npy    initial value of tensor NAME (every input tensor needs one)\n"
    "  --out NAME=FILE.npy   write tensor NAME after the run (undefined elements as NaN)\n"
    "  --seed N              fill inputs without --in with reproducible random values\n"
    "  --pad M               run on a padded store (extents rounded up to multiples of M)\n"
    "                        and check that it simulates the plain run (report Thm 2, 3)\n"
    "  --trace               print every step: the statement and the target's new value\n"
    "  --print               print the output tensors as text (_ marks undefined)\n"
    "  --max-bytes N         refuse programs whose store needs more (default 8 GiB)\n"
    "  --lang teil|model     override the file extension\n"
    "  -h, --help            show this help\n"
    "\n"
    "exit status: 0 ok, 1 ill-typed program, 2 usage/I/O/resource error,\n"
    "             3 padding check failed (an interpreter bug)\n"
    "\n"
    "example:\n"
    "  teil-run examples/mm.teil --in A=a.npy --in B=b.npy --out C=c.npy\n"
    "  teil-run examples/mm.teil --seed 1 --pad 8 --print\n";

typedef struct {
  char *name, *file;
} Binding;

static int die(const char *msg) {
  fprintf(stderr, "teil-run: %s\n", msg);
  return 2;
}

/* Splits NAME=FILE; returns 0 on success. */
static int binding(const char *arg, const char *opt, Binding *b, char *err, size_t errlen) {
  const char *eq = arg ? strchr(arg, '=') : NULL;
  if (!eq || eq == arg || !eq[1]) {
    snprintf(err, errlen, "%s takes NAME=FILE.npy, not '%s'", opt, arg ? arg : "");
    return -1;
  }
  b->name = strndup(arg, (size_t)(eq - arg));
  b->file = strdup(eq + 1);
  return 0;
}

static int find(const TeilProgram *p, const char *name, const char *opt, char *err, size_t errlen) {
  int t = teil_tensor_find(p, name);
  if (t < 0)
    snprintf(err, errlen, "%s: the program declares no tensor '%s'", opt, name);
  return t;
}

/* Creates a store and binds the inputs: files first, then --seed for the rest. */
static TeilStore *make_store(const TeilProgram *p, int pad, unsigned long long max_bytes, Binding *in, int nin,
                             int have_seed, unsigned long long seed, char *err, size_t errlen) {
  TeilStore *s = teil_store_new(p, pad, max_bytes, err, errlen);
  if (!s)
    return NULL;
  int n = teil_ntensors(p);
  char *given = calloc((size_t)n + 1, 1);
  for (int i = 0; i < nin; i++) {
    int t = find(p, in[i].name, "--in", err, errlen);
    if (t < 0 || teil_store_read_npy(s, t, in[i].file, err, errlen))
      goto fail;
    given[t] = 1;
  }
  for (int t = 0; t < n; t++) {
    if (given[t] || !(teil_tensor_qual(p, t) & TEIL_INPUT))
      continue;
    if (!have_seed) {
      snprintf(err, errlen, "input tensor '%s' has no value: give --in %s=FILE.npy, or --seed N for random values",
               teil_tensor_name(p, t), teil_tensor_name(p, t));
      goto fail;
    }
    teil_store_fill_random(s, t, seed);
  }
  free(given);
  return s;
fail:
  free(given);
  teil_store_free(s);
  return NULL;
}

/* Runs the program on s. With plain != NULL, runs it in lock step on the
 * unpadded store plain and checks R-PAD-6/R-PAD-7 before the first statement
 * and after every statement; returns 3 if a check fails, 2 on other errors. */
static int run(const TeilProgram *p, TeilStore *s, TeilStore *plain, FILE *trace, char *err, size_t errlen) {
  if (!plain)
    return teil_run(p, s, trace, err, errlen) ? 2 : 0;
  if (teil_check_simulation(plain, s, 0, err, errlen))
    return 3;
  for (int i = 0; i < teil_nstmts(p); i++) {
    if (teil_step(p, plain, i, err, errlen) || teil_step(p, s, i, err, errlen))
      return 2;
    if (trace)
      teil_print_step(p, s, i, trace);
    if (teil_check_simulation(plain, s, i + 1, err, errlen))
      return 3;
  }
  return 0;
}

int main(int argc, char **argv) {
  const char *prog = NULL;
  TeilLang lang = TEIL_LANG_AUTO;
  Binding *in = calloc((size_t)argc, sizeof *in), *out = calloc((size_t)argc, sizeof *out);
  int nin = 0, nout = 0, trace = 0, print = 0, have_seed = 0, rc = 2;
  long long pad = 1, seed = 0, max_bytes = 0;
  char err[1024];
  TeilProgram *p = NULL;
  TeilStore *s = NULL, *plain = NULL;

  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      fputs(usage, stdout);
      rc = 0;
      goto done;
    } else if (!strcmp(a, "--in") || !strcmp(a, "--out")) {
      Binding *b = a[2] == 'i' ? &in[nin++] : &out[nout++];
      if (binding(v, a, b, err, sizeof err)) {
        rc = die(err);
        goto done;
      }
      i++;
    } else if (!strcmp(a, "--seed") || !strcmp(a, "--pad") || !strcmp(a, "--max-bytes")) {
      long long *dst = a[2] == 's' ? &seed : a[2] == 'p' ? &pad : &max_bytes;
      long long lo = a[2] == 'p' ? 1 : 0, hi = a[2] == 'p' ? (1 << 20) : 0x7fffffffffffffffLL;
      if (cli_number(v, lo, hi, dst)) {
        snprintf(err, sizeof err, "%s takes an integer in %lld..%lld, not '%s'", a, lo, hi, v ? v : "");
        rc = die(err);
        goto done;
      }
      have_seed |= a[2] == 's';
      i++;
    } else if (!strcmp(a, "--lang")) {
      if (!v || (strcmp(v, "teil") && strcmp(v, "model"))) {
        rc = die("--lang takes 'teil' or 'model'");
        goto done;
      }
      lang = !strcmp(v, "teil") ? TEIL_LANG_TEIL : TEIL_LANG_MODEL;
      i++;
    } else if (!strcmp(a, "--trace")) {
      trace = 1;
    } else if (!strcmp(a, "--print")) {
      print = 1;
    } else if (a[0] == '-' && a[1]) {
      snprintf(err, sizeof err, "unknown option '%s' (try --help)", a);
      rc = die(err);
      goto done;
    } else if (prog) {
      snprintf(err, sizeof err, "one program at a time: '%s' and '%s'", prog, a);
      rc = die(err);
      goto done;
    } else {
      prog = a;
    }
  }
  if (!prog) {
    rc = die("no program given (try --help)");
    goto done;
  }

  size_t len;
  char *src = cli_read_file(prog, (size_t)1 << 26, &len, err, sizeof err);
  if (!src) {
    rc = die(err);
    goto done;
  }
  p = teil_parse(prog, src, len, lang);
  free(src);
  if (teil_check(p)) {
    teil_print_diagnostics(p, stderr, 0);
    rc = 1;
    goto done;
  }
  for (int i = 0; i < nout; i++)
    if (find(p, out[i].name, "--out", err, sizeof err) < 0) {
      rc = die(err);
      goto done;
    }

  /* R-PAD-6, R-PAD-7: with --pad, a plain run goes in lock step with the padded one. */
  if (pad > 1 && !(plain = make_store(p, 1, (unsigned long long)max_bytes, in, nin, have_seed,
                                      (unsigned long long)seed, err, sizeof err))) {
    rc = die(err);
    goto done;
  }
  if (!(s = make_store(p, (int)pad, (unsigned long long)max_bytes, in, nin, have_seed, (unsigned long long)seed, err,
                       sizeof err))) {
    rc = die(err);
    goto done;
  }
  if ((rc = run(p, s, plain, trace ? stdout : NULL, err, sizeof err)) != 0) {
    die(err);
    goto done;
  }
  if (plain)
    fprintf(stderr, "teil-run: padding with M=%lld: after each of the %d statements the padding of every tensor "
                    "was 0 (Theorem 2) and the unpadded part equalled the plain run (Theorem 3)\n",
            pad, teil_nstmts(p));
  for (int i = 0; i < nout; i++) {
    int t = teil_tensor_find(p, out[i].name);
    size_t nundef = 0;
    if (teil_store_write_npy(s, t, out[i].file, &nundef, err, sizeof err)) {
      rc = die(err);
      goto done;
    }
    if (nundef)
      fprintf(stderr, "teil-run: '%s': %zu of its elements are undefined (written as NaN to %s)\n", out[i].name,
              nundef, out[i].file);
  }
  if (print)
    for (int t = 0; t < teil_ntensors(p); t++)
      if (teil_tensor_qual(p, t) & TEIL_OUTPUT) {
        printf("%s =\n", teil_tensor_name(p, t));
        teil_store_print(s, t, stdout);
      }
  rc = 0;
done:
  teil_store_free(s);
  teil_store_free(plain);
  teil_free(p);
  for (int i = 0; i < nin; i++)
    free(in[i].name), free(in[i].file);
  for (int i = 0; i < nout; i++)
    free(out[i].name), free(out[i].file);
  free(in);
  free(out);
  return rc;
}
