/*
 * teil-check - validates tensor kernels written in TeIL (.teil) or in the
 * model language (.tm). A kernel it accepts never accesses a tensor out of
 * bounds (TeIL Thm 4.6, report Cor. 2). Exit status: 0 all files well-typed
 * (warnings allowed), 1 some file has an error, 2 usage or I/O error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "teil.h"

static const char usage[] =
    "usage: teil-check [options] FILE...\n"
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

int main(int argc, char **argv) {
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
