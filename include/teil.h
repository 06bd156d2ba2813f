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
/* -Werror: turns every warning into an error (category and rule unchanged). */
void teil_promote_warnings(TeilProgram *p);
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

/* ---- The store and the reference interpreter ------------------------------
 *
 * A store maps every tensor of a checked program to its elements, each a double
 * or undefined (•), exactly as the papers' abstract store (spec/semantics.md
 * R-EV-1..R-EV-3). With pad = M > 1 every extent is rounded up to a multiple of
 * M and the padding holds zeros (spec/padding.md). Data passes in and out
 * unpadded, in row-major order. */

typedef struct TeilStore TeilStore;

/* Bytes a store for p with vector length pad needs, the evaluation buffer of
 * the largest statement included; UINT64_MAX if that overflows. */
uint64_t teil_store_bytes(const TeilProgram *p, int pad);

/* Creates the initial store (R-EV-3, R-PAD-2): every element •, padding 0.
 * Refuses, before allocating, a store above max_bytes (0: TEIL_DEFAULT_MAX_BYTES).
 * p must have been checked without errors. */
#define TEIL_DEFAULT_MAX_BYTES ((uint64_t)8 << 30)
TeilStore *teil_store_new(const TeilProgram *p, int pad, uint64_t max_bytes, char *err, size_t errlen);
void teil_store_free(TeilStore *s);

/* Sets every element of tensor t from count doubles (count must equal the
 * element count of its type). NaN is a value here, not •. */
int teil_store_set(TeilStore *s, int t, const double *data, size_t count, char *err, size_t errlen);

/* Fills tensor t with reproducible pseudo-random values in [-1, 1). */
void teil_store_fill_random(TeilStore *s, int t, uint64_t seed);

/* Copies tensor t out (unpadded): values into data, and 1 into undef[i] where
 * the element is • (data[i] is then NaN). undef may be NULL. Returns the
 * number of • elements. */
size_t teil_store_get(const TeilStore *s, int t, double *data, unsigned char *undef);

/* .npy files (format 1.0-3.0, '<f8' or '<f4'; written as '<f8', • as NaN).
 * The file's shape must equal the tensor's type. write_npy returns the number
 * of • elements through *nundef. */
int teil_store_read_npy(TeilStore *s, int t, const char *path, char *err, size_t errlen);
int teil_store_write_npy(const TeilStore *s, int t, const char *path, size_t *nundef, char *err, size_t errlen);

/* Prints tensor t as text in NumPy's nesting, with _ for •. */
void teil_store_print(const TeilStore *s, int t, FILE *out);

/* Small-step execution (R-EV-17): teil_step executes statement i (0-based) by
 * St-Stmt: every element of the right-hand side is evaluated on the current
 * store, then the target is replaced. teil_run executes them all in order and,
 * if trace is not NULL, prints each step there. */
int teil_step(const TeilProgram *p, TeilStore *s, int i, char *err, size_t errlen);
int teil_run(const TeilProgram *p, TeilStore *s, FILE *trace, char *err, size_t errlen);
int teil_nstmts(const TeilProgram *p);
/* Prints step i as --trace shows it: the statement, then the target's new value
 * (or, above 64 elements, a digest: count, • count, sum, min, max, hash). */
void teil_print_step(const TeilProgram *p, const TeilStore *s, int i, FILE *out);

/* Checks the report's Theorem 2 and Theorem 3 (spec/padding.md R-PAD-6, R-PAD-7)
 * on a plain and a padded store of the same program after the same number of
 * steps (step: statements run so far, for the message): the padding of every
 * tensor holds 0, and the unpadded part equals the plain store (• in the same
 * places, NaN with NaN, +0 with -0). Returns 0 if both hold, else -1 with the
 * first violation in err. */
int teil_check_simulation(const TeilStore *plain, const TeilStore *padded, int step, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
