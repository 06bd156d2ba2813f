/*
 * teil.h - public API of libteil.
 *
 * libteil reads tensor kernels in TeIL (Rink & Castrillon, ARRAY 2019) or in the
 * model language of Rink's report, type-checks them (a well-typed kernel never
 * accesses a tensor out of bounds), and runs them on the reference interpreter.
 *
 *   TeilProgram *p = teil_parse("k.teil", src, len, TEIL_LANG_AUTO);
 *   if (teil_check(p) != 0) teil_print_diagnostics(p, stderr, 0);
 *   TeilStore *s = teil_store_new(p, 0, 0, err, sizeof err);
 *   teil_store_bind(s, "A", data, n, err, sizeof err);
 *   teil_run(p, s, NULL, err, sizeof err);
 *   const double *v = teil_store_data(s, "C", &n);
 *
 * Every function reports failure through its return value and, where it takes
 * one, a one-line message in err; nothing in the library prints or exits unless
 * asked to print. The rules cited in the sources are in spec/.
 */
#ifndef TEIL_H
#define TEIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Programs ---------------------------------------------------------- */

typedef enum {
  TEIL_LANG_AUTO,   /* from the file name: .tm is the model language, else TeIL */
  TEIL_LANG_TEIL,
  TEIL_LANG_MODEL
} TeilLang;

typedef struct TeilProgram TeilProgram;

/* Parses src (len bytes; need not be NUL-terminated). Syntax errors are kept
 * as diagnostics. Returns NULL only if memory runs out. */
TeilProgram *teil_parse(const char *filename, const char *src, size_t len, TeilLang lang);
void teil_free(TeilProgram *p);

/* Type-checks (spec/typing.md) and runs the static analyses (spec/analyses.md).
 * Returns the number of errors, syntax errors included; 0 means well-typed. */
int teil_check(TeilProgram *p);
int teil_nerrors(const TeilProgram *p);
int teil_nwarnings(const TeilProgram *p);

/* Prints diagnostics gcc-style (file:line:col, source line, caret, note), or as
 * one JSON object when json is nonzero. */
void teil_print_diagnostics(const TeilProgram *p, FILE *out, int json);

/* Prints the type of each statement, and of each sub-expression if verbose. */
void teil_print_types(const TeilProgram *p, FILE *out, int verbose);

/* Prints the program as TeIL text (model-language programs are translated). */
void teil_print_teil(const TeilProgram *p, FILE *out);

/* Tensors of a checked program, in declaration order. */
enum { TEIL_INPUT = 1, TEIL_OUTPUT = 2 };
int teil_ntensors(const TeilProgram *p);
const char *teil_tensor_name(const TeilProgram *p, int t);
int teil_tensor_rank(const TeilProgram *p, int t);
const int64_t *teil_tensor_dims(const TeilProgram *p, int t);
unsigned teil_tensor_qual(const TeilProgram *p, int t);      /* TEIL_INPUT | TEIL_OUTPUT */
int teil_tensor_find(const TeilProgram *p, const char *name); /* -1 if absent */

#ifdef __cplusplus
}
#endif
#endif
