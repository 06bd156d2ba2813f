/*
 * compile.h - the internal header of teilc, the optimizing compiler
 * (spec/compiler.md, rules R-CG-n).
 *
 * Data flow (R-CG-1):
 *   checked Program --lift (src/lift.h, optional)--> checked Program
 *     --lower.c--> LProgram (loop IR, R-CG-2..R-CG-9)
 *     --loopir.c lp_pad--> padded bounds, controlled division (R-CG-10)
 *     [schedule: reserved, R-CG-17]
 *     --loopir.c lp_annotate--> parallel / simd marks (R-CG-11)
 *     --cgen.c--> C source, header, driver (R-CG-12..R-CG-14)
 * pipeline.c runs the passes (teil_compile) for teilc and teil-check --diff.
 */
#ifndef TEIL_COMPILE_H
#define TEIL_COMPILE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "internal.h"

/* ============================================================ pipeline.c */

typedef enum {
  DUMP_NONE,
  DUMP_TEIL,                  /* the checked source program, as TeIL */
  DUMP_LIFT,                  /* after contraction lifting, as TeIL */
  DUMP_LOWER,                 /* the loop IR after lowering */
  DUMP_PAD                    /* the loop IR after the pad pass */
} DumpPass;

typedef struct LProgram LProgram;

/* A schedule (R-CG-17): transforms the loop IR between the pad pass and the
 * annotation, and must keep the properties listed in spec/compiler.md
 * R-CG-17. Returns 0, or -1 with a message in err. No schedule is implemented
 * yet; CompileOptions.schedule is NULL by default. */
typedef int (*LScheduleFn)(LProgram *lp, const void *arg, char *err, size_t errlen);

typedef struct CompileOptions {
  const char *func;           /* C function name (a valid, non-keyword identifier) */
  const char *source;         /* file name, for comments */
  int pad;                    /* vector length M >= 1 (R-CG-10) */
  bool lift;                  /* run contraction lifting if available (R-CG-18) */
  bool openmp;                /* emit OpenMP pragmas (R-CG-11) */
  bool f32;                   /* float instead of double */
  bool main;                  /* append the standalone driver (R-CG-14) */
  bool emit_teil;             /* produce the lifted program as TeIL instead of C */
  bool header;                /* also produce the header (R-CG-13) */
  DumpPass dump;
  FILE *dump_out;             /* where --dump prints (stdout if NULL) */
  LScheduleFn schedule;       /* R-CG-17; NULL: the canonical schedule of R-CG-4 */
  const void *schedule_arg;
} CompileOptions;

typedef struct CompileOutput {
  char *c;                    /* the C file, or TeIL text with emit_teil (malloc'd) */
  char *h;                    /* the header if options.header (malloc'd), else NULL */
  int nlifted;                /* statements in the compiled (lifted) program */
  bool lifted;                /* the lift pass ran */
} CompileOutput;

/* Whether the library was built with src/lift.c (R-CG-18). */
bool teil_compile_have_lift(void);

/* Default options: pad 1, lift on, OpenMP on, f64. */
void teil_compile_defaults(CompileOptions *o);

/* Compiles a checked, error-free program. Returns 0, or -1 with a one-line
 * message in err (a compiler limitation or a failed lift). out is zeroed first;
 * free it with teil_compile_free. */
int teil_compile(const TeilProgram *p, const CompileOptions *o, CompileOutput *out, char *err, size_t errlen);
void teil_compile_free(CompileOutput *out);

/* Makes a C identifier of a file's base name ("tests/mm.teil" -> "mm"). */
void teil_compile_func_name(const char *path, char *buf, size_t n);

/* Whether s is a valid C identifier that is not a C keyword. */
bool teil_compile_valid_ident(const char *s);

/* ============================================================ loop IR (R-CG-2) */

/* An affine index c + sum coef[t] * it[t] over iterators (ids into LProgram.its). */
typedef struct LAff {
  int64_t c;
  int n;
  int *it;
  int64_t *coef;
} LAff;

typedef enum {
  LB_PARAM_IN,                /* const parameter (only input, never assigned) */
  LB_PARAM,                   /* writable parameter (output or input output) */
  LB_WORK                     /* in the workspace */
} LBufKind;

typedef struct LBuf {
  const char *name;           /* source name ("A"; a temporary's invented name) */
  const char *cname;          /* identifier in C (R-CG-12) */
  LBufKind kind;
  int tensor;                 /* index in the compiled Program's tensors, -1 for temporaries */
  unsigned qual;              /* Q_INPUT | Q_OUTPUT of the tensor */
  int rank;
  int64_t *dims;              /* real extents */
  int64_t *pdims;             /* padded extents (R-PAD-1) */
  int64_t *stride;            /* row-major over pdims, in elements */
  int64_t count;              /* product of pdims */
  int64_t offset;             /* LB_WORK: byte offset in the workspace (multiple of 64) */
  int param;                  /* parameter position, -1 if none */
  bool used;                  /* read or written by some node */
  bool written;               /* stored by some node (a parameter must then be writable) */
  const char *why;            /* temporaries: what they hold, for comments */
} LBuf;

typedef struct LAccess {
  int buf;
  LAff *idx;                  /* buf's rank entries */
} LAccess;

typedef enum { LE_LOAD, LE_ZERO, LE_UNDEF, LE_ADD, LE_SUB, LE_MUL, LE_DIV } LExprKind;

typedef struct LExpr LExpr;
struct LExpr {
  LExprKind kind;
  LExpr *a, *b;
  LAccess acc;                /* LE_LOAD */
  /* LE_DIV under padded loops (R-CG-10): a padding lane is one where some
   * guard index gidx[g] >= gbound[g]; there 0/0 gives 0. */
  int nguard;
  LAff *gidx;
  int64_t *gbound;
};

typedef enum { LN_LOOP, LN_STMT } LNodeKind;

enum {
  LF_REDUCTION = 1,           /* the loop's iterator is a reduction iterator (R-CG-4) */
  LF_PADDED = 2,              /* the pad pass raised ub to the padded extent */
  LF_PARALLEL = 4,            /* #pragma omp parallel for (R-CG-11) */
  LF_SIMD = 8                 /* #pragma omp simd */
};

typedef struct LNode LNode;
struct LNode {
  LNodeKind kind;
  /* LN_LOOP */
  int it;                     /* the loop's own iterator */
  LAff lb, ub;                /* ub exclusive */
  int64_t step;
  unsigned flags;
  LNode **kids;
  int nkids, capkids;
  /* LN_STMT */
  LAccess lhs;
  bool accum;                 /* += instead of = */
  LExpr *rhs;
  /* top-level nodes: a comment (the source statement), or NULL */
  const char *note;
};

typedef struct LIter {
  const char *name;           /* C name; unique among the iterators of one nest */
  int64_t n;                  /* real extent N_v */
  int64_t p;                  /* padded extent P_v */
} LIter;

struct LProgram {
  Arena arena;
  int pad;                    /* M */
  bool f32;
  LBuf *bufs;
  int nbufs, capbufs;
  LIter *its;
  int nits, capits;
  LNode **top;                /* the top-level sequence */
  int ntop, captop;
  int nparams;
  int64_t work_bytes;
  const char **names;         /* identifiers taken at function scope (R-CG-12) */
  int nnames, capnames;
};

/* loopir.c: construction */
LProgram *lp_new(int pad, bool f32);
void lp_free(LProgram *lp);
void lp_reserve(LProgram *lp, const char *name);        /* name is taken at function scope */
bool lp_taken(const LProgram *lp, const char *name);
const char *lp_unique(LProgram *lp, const char *base);  /* base, base_, ...: reserved on return */
const char *lp_iter_name(LProgram *lp, char prefix, int k); /* "i3" unless taken; not reserved */
int lp_add_buf(LProgram *lp, const char *name, int rank, const int64_t *dims);
int lp_add_iter(LProgram *lp, const char *name, int64_t n);
LAff *lp_aff_const(LProgram *lp, int64_t c);
LAff *lp_aff_iter(LProgram *lp, int it);
bool lp_aff_equal(const LAff *x, const LAff *y);
bool lp_aff_is_iter(const LAff *x, int it);            /* x == it exactly */
int64_t lp_aff_coef(const LAff *x, int it);
LExpr *lp_expr(LProgram *lp, LExprKind k, LExpr *a, LExpr *b);
LExpr *lp_load(LProgram *lp, int buf, LAff **idx);     /* idx: rank entries, copied */
LNode *lp_loop(LProgram *lp, int it, int64_t lb, int64_t ub, unsigned flags);
LNode *lp_stmt(LProgram *lp, int buf, LAff **idx, bool accum, LExpr *rhs);
void lp_append(LProgram *lp, LNode *parent, LNode *kid); /* parent NULL: top level */
/* A loop nest over all (real, or padded if padded) elements of buf, with the
 * statement buf[i] = rhs_of(i); rhs NULL means buf[i] = src[i]. */
LNode *lp_fill(LProgram *lp, int buf, LExprKind k, bool padded);
LNode *lp_copy(LProgram *lp, int dst, int src);

/* loopir.c: passes and analyses */
int lp_layout(LProgram *lp);                            /* workspace offsets (R-CG-9); -1 above 2^62 bytes */
void lp_pad(LProgram *lp);                              /* R-CG-10 */
void lp_annotate(LProgram *lp, bool openmp);            /* R-CG-11 */
void lp_print(const LProgram *lp, FILE *out);           /* R-CG-2 printer */
void lp_print_expr(const LProgram *lp, const LExpr *e, Buf *b);

/* ============================================================ lower.c */

/* Lowers a checked program (R-CG-3..R-CG-9). cnames[t] is the C name of
 * tensor t (R-CG-12) and param_pos[t] its parameter position, -1 if it is not
 * a parameter; reserved lists further identifiers taken at function scope
 * (the function's name, "work"). Returns NULL with err on a limitation. */
LProgram *lower_program(const Program *p, int pad, bool f32, const char *const *cnames, const int *param_pos,
                        const char *const *reserved, int nreserved, char *err, size_t errlen);

/* ============================================================ cgen.c */

typedef struct CgenOptions {
  const char *func;
  const char *source;
  const char *program_text;   /* the compiled program as TeIL, for the file comment */
  bool openmp, main, header;
} CgenOptions;

void cgen_c(const LProgram *lp, const Program *p, const CgenOptions *o, Buf *out);
void cgen_header(const LProgram *lp, const Program *p, const CgenOptions *o, Buf *out);

/* Whether name needs mangling in generated C (R-CG-12). */
bool cgen_reserved(const char *name);

#endif
