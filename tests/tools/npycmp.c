/*
 * npycmp.c - compare two .npy files element by element.
 *
 *   npycmp EXPECTED.npy ACTUAL.npy [--rtol R] [--atol A]
 *
 * Both files are read with src/npy.c (so '<f4' and Fortran-order files
 * compare by value with '<f8' C-order ones).  The shapes must be equal.
 * Values match when |actual - expected| <= atol + rtol * |expected|
 * (numpy.isclose, relative to EXPECTED), with defaults rtol 1e-9 and
 * atol 1e-12.  NaN stands for teil's undefined value: a NaN in EXPECTED must
 * be NaN in ACTUAL and vice versa.  Infinities must match exactly.
 *
 * Prints exactly one line on stdout and exits:
 *   0  "ok N elements" (always "elements", for scripts)
 *   1  "shape mismatch: expected (2, 3) got (3, 2)" or
 *      "mismatch at (i, j, ...): expected X got Y" (the first in C order;
 *      the index of a 1-d array is written "(i)", of a scalar "()")
 *   2  usage errors and I/O or format errors (the message goes to stderr)
 * Options may also be written --rtol=R / --atol=A and appear anywhere.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npy.h"

/* Largest array npycmp reads (as doubles): 16 GiB. */
#define NPYCMP_MAX_BYTES ((size_t)1 << 34)

/* Prints "npycmp: WHY[ 'ARG']" and the usage line to stderr; returns exit code 2. */
static int npycmp_usage(const char *why, const char *arg) {
  if (why != NULL && arg != NULL)
    fprintf(stderr, "npycmp: %s '%s'\n", why, arg);
  else if (why != NULL)
    fprintf(stderr, "npycmp: %s\n", why);
  fprintf(stderr, "usage: npycmp EXPECTED.npy ACTUAL.npy [--rtol R] [--atol A]\n");
  return 2;
}

/* Parses a non-negative finite tolerance; returns 0 on success. */
static int npycmp_tol(const char *s, double *out) {
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (end == s || *end != '\0' || errno != 0 || !isfinite(v) || v < 0) return -1;
  *out = v;
  return 0;
}

/* Returns 1 if expected e and actual a agree under the tolerances. */
static int npycmp_close(double e, double a, double rtol, double atol) {
  if (isnan(e) || isnan(a)) return isnan(e) && isnan(a);
  if (isinf(e) || isinf(a)) return e == a;
  return fabs(a - e) <= atol + rtol * fabs(e);
}

/* Formats the C-order multi-index of flat position i as "(i, j, ...)". */
static void npycmp_index(const NpyArray *x, size_t i, char *buf, size_t buflen) {
  size_t idx[NPY_MAX_DIMS];
  for (int k = x->ndim - 1; k >= 0; k--) {
    idx[k] = i % x->shape[k];
    i /= x->shape[k];
  }
  size_t pos = 0;
  buf[0] = '\0';
  pos += (size_t)snprintf(buf, buflen, "(");
  for (int k = 0; k < x->ndim && pos < buflen; k++)
    pos += (size_t)snprintf(buf + pos, buflen - pos, k == 0 ? "%zu" : ", %zu", idx[k]);
  if (pos < buflen) snprintf(buf + pos, buflen - pos, ")");
}

/* Formats a value for messages in its shortest exact form ("nan", "inf", "0.1"). */
static void npycmp_value(double v, char *buf, size_t buflen) {
  if (isnan(v)) {
    snprintf(buf, buflen, "nan");
    return;
  }
  for (int prec = 1; prec <= 17; prec++) {
    snprintf(buf, buflen, "%.*g", prec, v);
    if (strtod(buf, NULL) == v) return;
  }
}

int main(int argc, char **argv) {
  const char *paths[2];
  int npaths = 0;
  double rtol = 1e-9, atol = 1e-12;

  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    double *target = NULL;
    const char *val = NULL;
    if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
      npycmp_usage(NULL, NULL);
      return 0;
    }
    if (strncmp(arg, "--rtol", 6) == 0) {
      target = &rtol;
      val = arg + 6;
    } else if (strncmp(arg, "--atol", 6) == 0) {
      target = &atol;
      val = arg + 6;
    }
    if (target != NULL) {
      if (*val == '=') {
        val++;
      } else if (*val == '\0') {
        if (i + 1 >= argc) return npycmp_usage("missing value after option", arg);
        val = argv[++i];
      } else {
        return npycmp_usage("unknown option", arg);
      }
      if (npycmp_tol(val, target) != 0) return npycmp_usage("tolerance must be a non-negative finite number, not", val);
      continue;
    }
    if (arg[0] == '-' && arg[1] != '\0') return npycmp_usage("unknown option", arg);
    if (npaths == 2) return npycmp_usage("too many file arguments at", arg);
    paths[npaths++] = arg;
  }
  if (npaths != 2) return npycmp_usage("need EXPECTED and ACTUAL files", NULL);

  NpyArray ex, ac;
  char msg[512];
  if (npy_read(paths[0], NPYCMP_MAX_BYTES, &ex, msg, sizeof msg) != 0) {
    fprintf(stderr, "npycmp: %s\n", msg);
    return 2;
  }
  if (npy_read(paths[1], NPYCMP_MAX_BYTES, &ac, msg, sizeof msg) != 0) {
    fprintf(stderr, "npycmp: %s\n", msg);
    npy_free(&ex);
    return 2;
  }

  int rc = 0;
  int same_shape = ex.ndim == ac.ndim;
  for (int k = 0; same_shape && k < ex.ndim; k++) same_shape = ex.shape[k] == ac.shape[k];
  if (!same_shape) {
    char se[1600], sa[1600];
    npy_shape_str(ex.ndim, ex.shape, se, sizeof se);
    npy_shape_str(ac.ndim, ac.shape, sa, sizeof sa);
    printf("shape mismatch: expected %s got %s\n", se, sa);
    rc = 1;
  } else {
    size_t i = 0;
    while (i < ex.count && npycmp_close(ex.data[i], ac.data[i], rtol, atol)) i++;
    if (i < ex.count) {
      char where[1600], ve[64], va[64];
      npycmp_index(&ex, i, where, sizeof where);
      npycmp_value(ex.data[i], ve, sizeof ve);
      npycmp_value(ac.data[i], va, sizeof va);
      printf("mismatch at %s: expected %s got %s\n", where, ve, va);
      rc = 1;
    } else {
      printf("ok %zu elements\n", ex.count);
    }
  }
  npy_free(&ex);
  npy_free(&ac);
  if (fflush(stdout) != 0) return 2;
  return rc;
}
