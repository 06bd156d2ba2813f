/*
 * compile.h - the internal header of teilc, the optimizing compiler
 * (spec/compiler.md, rules R-CG-n).
 *
 * Data flow (R-CG-1):
 *   checked Program --lift (src/lift.h, optional)--> checked Program
 *     --lower.c--> LProgram (loop IR, R-CG-2..R-CG-9)
 *     --loopir.c lp_pad--> padded bounds, controlled division (R-CG-10)
 *     --sched.c + legality.c--> TeML loop transformations (R-CG-17, spec/schedule.md)
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
  DUMP_PAD,                   /* the loop IR after the pad pass */
  DUMP_SCHED,                 /* the loop IR after the schedule and the annotation (R-SCH-3) */
  DUMP_SCHEDULE               /* the steps the default schedule applied, as a schedule file (R-SCH-17) */
} DumpPass;

typedef struct LProgram LProgram;

/* A schedule (R-CG-17, spec/schedule.md): transforms the loop IR between the
 * pad pass and the annotation, and must keep the properties listed in
 * spec/compiler.md R-CG-17. Returns 0, or -1 with a one-line message in err
 * (for a schedule file: FILE:LINE:COL: error: ..., R-SCH-3). The defaults use
 * sched_default (R-SCH-17); sched_apply applies a schedule file (arg: the
 * Schedule from sched_load / sched_parse). */
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
  bool acsl;                  /* ACSL contracts for Frama-C/WP (spec/acsl.md) */
  int stream;                 /* streaming stores (R-CG-26): 0 never, 1 large outputs, 2 always */
  int prefetch;               /* the next element's prefetch (R-CG-24.5): 0 never, 1 large parameters, 2 always */
  int lanes;                  /* lanes across elements (R-SCH-27): -1 never, 0 when it pays, 1 always */
  bool no_inline;             /* the default schedule inlines no temporary (R-SCH-28) */
  DumpPass dump;
  FILE *dump_out;             /* where --dump prints (stdout if NULL) */
  LScheduleFn schedule;       /* R-CG-17; NULL: the canonical schedule of R-CG-4;
                                 the default is sched_default (R-SCH-17) */
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

/* Default options: pad 1, lift on, OpenMP on, f64, the default schedule. */
void teil_compile_defaults(CompileOptions *o);

/* Compiles a checked, error-free program. Returns 0, or -1 with a one-line
 * message in err (a compiler limitation or a failed lift), or -2 when the
 * schedule refused (err: FILE:LINE:COL: error: ..., R-SCH-3). out is zeroed
 * first; free it with teil_compile_free. */
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
  LB_WORK,                    /* in the workspace */
  LB_LOCAL                    /* a local array declared in the body of the loop that lists it in
                                 locals (R-SCH-21): one per iteration of that loop */
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
  int packof, packdim;        /* a packed copy (R-SCH-24): of buffer packof with dimension packdim last; -1 */
  int64_t panel;              /* a panel copy of packof (R-SCH-26): its panels' width S; 0 */
  const char *roname;         /* C name of its read-only restrict alias (R-CG-21); NULL for parameters */
  int stageof;                /* a staging array of parameter stageof for streaming stores (R-CG-26); -1 */
  int contractof;             /* one element's part of workspace tensor contractof (R-SCH-23); -1 */
  bool priv;                  /* LB_WORK: a private slice, LP_COPIES copies of count elements (R-SCH-25) */
  bool rblock;                /* LB_LOCAL: a register block (R-SCH-21) */
} LBuf;

/* R-SCH-25: the copies of a private slice; a parallel region runs at most this many threads. */
#define LP_COPIES 64
#define MAXDEPTH 256   /* the deepest loop nest the schedule steps and their legality checks walk */

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
  LF_SIMD = 8,                /* #pragma omp simd */
  LF_STREAM = 16,             /* a run of a streaming copy-out: one teil_stream call (R-CG-26), or with
                                 LF_LANECOPY a lane array's copy-out streamed (R-CG-26.1) */
  LF_ALIGNED = 32,            /* LF_STREAM: every run starts on a 64-byte boundary */
  LF_REGION = 64,             /* a top-level loop run by every thread of one parallel region (R-SCH-25) */
  LF_WORKSHARE = 128,         /* LF_PARALLEL inside an LF_REGION loop: #pragma omp for (R-CG-11) */
  LF_UNROLL = 256,            /* a partial block's loop, unrolled after R-CG-19's split (R-SCH-8) */
  LF_NOWAIT = 512,            /* LF_WORKSHARE without its barrier: schedule(static) nowait (R-CG-11) */
  LF_LANES = 1024,            /* widened into the lanes of a partial register block (R-CG-20) */
  LF_COPY = 2048,             /* the copy of a packed copy per iteration (R-SCH-24.1) */
  LF_GROUP = 4096,            /* a loop over groups of V elements, one in each lane (R-SCH-27) */
  LF_LANECOPY = 8192,         /* a group's slice copied into or out of its lane array: one call (R-SCH-27) */
  LF_PARTIAL = 16384          /* the serial partial block split from the top-level parallel loop before it (R-CG-19.4) */
};

typedef struct LNode LNode;
struct LNode {
  LNodeKind kind;
  /* LN_LOOP */
  int it;                     /* the loop's own iterator */
  LAff lb, ub;                /* ub exclusive */
  LAff *ubx;                  /* further upper bounds: the loop runs while v < min(ub, ubx[..]) (R-SCH-15) */
  int nubx;
  int64_t step;
  unsigned flags;
  int par_line, simd_line;    /* schedule lines that set LF_PARALLEL / LF_SIMD, 0 if none (R-SCH-11) */
  LNode **kids;
  int nkids, capkids;
  int *locals;                /* LB_LOCAL buffers declared at the top of the body (R-SCH-21) */
  int nlocals;
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

/* A target of a schedule (R-SCH-2): a statement of the compiled program or
 * the nest of a nested-sum temporary, and its target statement. */
typedef struct LUnit {
  const char *name;           /* the assigned tensor's TeIL name, or the temporary's C name */
  int occ;                    /* k of NAME#k: 1 for the first unit with this name */
  LNode *stmt;                /* the target statement (= of a perfect nest, += of a sum) */
} LUnit;

struct LProgram {
  Arena arena;
  int pad;                    /* M */
  bool f32;
  bool openmp;                /* pragmas will be emitted (for the default schedule, R-SCH-17) */
  int lanes;                  /* R-SCH-27: -1 never, 0 when it pays, 1 whenever it applies */
  bool no_inline;             /* R-SCH-28: the default schedule inlines nothing */
  int prefetch;               /* R-CG-24.5: 0 never, 1 when the parameters exceed lp_llc_share_bytes, 2 always */
  LUnit *units;               /* R-SCH-2, in program order */
  int nunits, capunits;
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
bool lp_aff_const_diff(const LAff *x, const LAff *y, int64_t *d); /* x - y is the constant *d */
bool lp_aff_is_iter(const LAff *x, int it);            /* x == it exactly */
bool lp_tile_of(const LNode *n, const LNode *q);       /* n is [q, q + S) of q's iterator, S >= 2 q's step */
bool lp_aff_is_const(const LAff *x);                   /* no iterator with a nonzero coefficient */
int64_t lp_aff_coef(const LAff *x, int it);
bool lp_expr_reads(const LExpr *e, int buf);            /* e loads buf */
bool lp_reads(const LNode *n, int buf);                 /* some statement below n loads buf */
bool lp_writes(const LNode *n, int buf);                /* some statement below n stores to buf */
bool lp_bounds_use(const LNode *l, int it);            /* a bound of loop l uses iterator it */
LExpr *lp_expr(LProgram *lp, LExprKind k, LExpr *a, LExpr *b);
LExpr *lp_expr_clone(LProgram *lp, const LExpr *e);      /* a deep copy */
void lp_subst_expr(LProgram *lp, LExpr *e, int it, const LAff *r); /* iterator it := r in e */
LExpr *lp_load(LProgram *lp, int buf, LAff **idx);     /* idx: rank entries, copied */
LNode *lp_loop(LProgram *lp, int it, int64_t lb, int64_t ub, unsigned flags);
LNode *lp_stmt(LProgram *lp, int buf, LAff **idx, bool accum, LExpr *rhs);
void lp_append(LProgram *lp, LNode *parent, LNode *kid); /* parent NULL: top level */
void lp_add_local(LProgram *lp, LNode *loop, int buf);   /* loop declares the local array buf (R-SCH-21) */
/* A loop nest over all (real, or padded if padded) elements of buf, with the
 * statement buf[i] = rhs_of(i); rhs NULL means buf[i] = src[i]. */
LNode *lp_fill(LProgram *lp, int buf, LExprKind k, bool padded);
LNode *lp_copy(LProgram *lp, int dst, int src);

/* loopir.c: passes and analyses */
int lp_layout(LProgram *lp);                            /* workspace offsets (R-CG-9); -1 above 2^62 bytes */
void lp_pad(LProgram *lp);                              /* R-CG-10 */
void lp_annotate(LProgram *lp, bool openmp);            /* R-CG-11 */
void lp_split_blocks(LProgram *lp);                     /* R-CG-19 */
void sched_unroll_deferred(LProgram *lp);               /* R-CG-19.3 */
void lp_pad_lanes(LProgram *lp);                        /* R-CG-20 */
void lp_split_remainders(LProgram *lp);                 /* R-CG-20.1 */
bool lp_lane_extent(const LProgram *lp, int64_t n);     /* R-CG-20: n rounds up to whole vectors, at most 2n */
/* R-CG-26: stream: 0 never, 1 when the parameters' bytes exceed lp_llc_share_bytes, 2 always */
void lp_stream_outputs(LProgram *lp, int stream);
bool lp_streams(const LNode *n);                        /* a run of a streaming copy-out is below n */
void lp_name_aliases(LProgram *lp);                     /* R-CG-21 */
void lp_print(const LProgram *lp, FILE *out);           /* R-CG-2 printer */
void lp_print_expr(const LProgram *lp, const LExpr *e, Buf *b);
/* How lp_write_expr spells an expression's leaves; the IR printer and the C code
 * generator differ only there. */
typedef struct LExprStyle {
  void (*access)(const LProgram *lp, const LAccess *acc, const void *ctx, Buf *b);
  const void *ctx;                                      /* passed to access */
  const char *undef, *div, *divp;                       /* •, and the (guarded) division */
} LExprStyle;
void lp_write_expr(const LProgram *lp, const LExpr *e, const LExprStyle *st, Buf *b);
void lp_print_aff(const LProgram *lp, const LAff *a, Buf *b);
void lp_print_access(const LProgram *lp, const LAccess *acc, Buf *b);
/* The row-major offset sum_d stride_d * idx_d of acc as terms, one for each
 * iterator whose coefficient is not 0, in order of first appearance over the
 * dimensions (*out, xcalloc'd; their number is returned), and the constant
 * *cst. cgen.c prints this form and acsl.c states its range (R-ACSL-6). */
typedef struct LTerm {
  int it;
  int64_t coef;
} LTerm;
int lp_offset_terms(const LProgram *lp, const LAccess *acc, LTerm **out, int64_t *cst);

/* loopir.c: helpers of the schedule (spec/schedule.md) */
void lp_add_unit(LProgram *lp, const char *name, LNode *stmt);
LAff lp_aff_copy(LProgram *lp, const LAff *x);
/* x with iterator it replaced by the affine r. */
LAff lp_aff_subst(LProgram *lp, const LAff *x, int it, const LAff *r);
/* Replaces iterator it by r in every bound, index and division guard below n. */
void lp_subst_tree(LProgram *lp, LNode *n, int it, const LAff *r);
/* A deep copy of n. fresh: every loop in the copy gets a new iterator (same
 * name and extent) and the copy's references are renamed; otherwise the copy
 * shares the iterators. on_stmt (may be NULL) is told each copied statement.
 * Notes are copied only if keep_notes. */
LNode *lp_clone(LProgram *lp, const LNode *n, bool fresh, bool keep_notes,
                void (*on_stmt)(void *ctx, LNode *from, LNode *to), void *ctx);
void lp_free_tree(LNode *n);                            /* the kids arrays below n (nodes live in the arena) */
void lp_insert(LProgram *lp, LNode *parent, int pos, LNode *kid); /* parent NULL: top level */
void lp_remove(LProgram *lp, LNode *parent, int pos);
LNode **lp_kids(LProgram *lp, LNode *parent, int *n);  /* parent NULL: the top-level sequence */
/* A statement's loops from the top level down (*depth of them, loops[] has room
 * for 256); returns false if stmt is not in the tree. */
bool lp_find_path(const LProgram *lp, const LNode *stmt, LNode **loops, int *depth);
int64_t lp_trip_estimate(const LNode *loop);           /* iterations (an upper estimate for min bounds) */
/* The machine's caches in bytes (sysconf; 32 KiB and 1 MiB if unknown) and a
 * core's share of the last-level cache, 16 x L2 (R-SCH-17, R-CG-26). */
int64_t lp_l1_bytes(void);
int lp_l1_assoc(void);
int64_t lp_l2_bytes(void);
int64_t lp_llc_share_bytes(void);
int64_t lp_param_bytes(const LProgram *lp);              /* all the parameters' bytes, saturating */
int lp_cores(void);
bool lp_vec_split(void);                                /* 512-bit operations split in halves (R-SCH-27 (d)) */
double lp_work(const LNode *n);                         /* statement instances executed by n (saturating) */
#define PARALLEL_MIN_WORK 32768.0                       /* R-CG-11: the least work of a parallel loop */
#define PARALLEL_SURE_WORK (32 * PARALLEL_MIN_WORK)    /* R-CG-11.2: from here no measured choice */
double lp_par_work(const LNode *n);                    /* R-CG-11.1: n's work, weighted by operations */
bool lp_par_pays(const LNode *n);                      /* R-CG-11: n's work (weighted by operations) reaches it */

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
  bool acsl;                  /* ACSL annotations for Frama-C/WP (spec/acsl.md) */
} CgenOptions;

void cgen_c(const LProgram *lp, const Program *p, const CgenOptions *o, Buf *out);
void cgen_header(const LProgram *lp, const Program *p, const CgenOptions *o, Buf *out);

/* Whether name needs mangling in generated C (R-CG-12). */
bool cgen_reserved(const char *name);

/* ============================================================ acsl.c (spec/acsl.md) */

/* The ACSL that cgen_c prints with --acsl: the __FRAMAC__ preamble, the
 * contract of a helper (teil_min, teil_div, teil_divp), the kernel's
 * function contract, and the annotation before a loop (ind: indentation). */
void acsl_preamble(const LProgram *lp, Buf *b);
void acsl_helper(const char *name, Buf *b);
/* part: a top-level node that is a function of its own (R-ACSL-7), or NULL
 * for the kernel; outer: the top-level loop whose child part is (R-ACSL-10),
 * or NULL */
void acsl_contract(const LProgram *lp, const LNode *part, const LNode *outer, Buf *b);
void acsl_loop(const LProgram *lp, const LNode *n, int ind, Buf *b);
/* The assertion before a run of n consecutive statements (R-ACSL-6). */
void acsl_stmts(const LProgram *lp, LNode *const *stmts, int n, int ind, Buf *b);

/* ============================================================ sched.c (spec/schedule.md) */

typedef struct Schedule Schedule;

/* Parses a schedule file (R-SCH-1). NULL with a one-line message
 * FILE:LINE:COL: error: ... in err on a syntax error. */
Schedule *sched_parse(const char *file, const char *text, size_t len, char *err, size_t errlen);
/* Reads and parses FILE; NULL with err, *io (if not NULL) true for an I/O error. */
Schedule *sched_load(const char *file, char *err, size_t errlen, bool *io);
void sched_free(Schedule *s);
int sched_nsteps(const Schedule *s);
/* LScheduleFn for a schedule file: arg is the Schedule (R-SCH-3). */
int sched_apply(LProgram *lp, const void *arg, char *err, size_t errlen);
/* LScheduleFn of the default schedule (R-SCH-17). arg: NULL, or a Buf * to
 * which each applied step is appended as a line of a schedule file. */
int sched_default(LProgram *lp, const void *arg, char *err, size_t errlen);

/* ============================================================ lanes.c (R-SCH-27) */

/* Whether the program has the form of R-SCH-27 and the lanes pay (R-SCH-27 (d)). */
bool lanes_pays(LProgram *lp);
/* Lanes across elements: rebuilds the whole program as one loop over groups
 * of V elements. 0, or -1 with the reason in why (prefixed by what) and lp
 * unchanged when the program has not the form of R-SCH-27. */
int lanes_apply(LProgram *lp, const char *what, Buf *why);

/* ============================================================ legality.c (R-SCH-12..14) */

/* A statement and the loops around it, from the top level down. */
typedef struct LSRef {
  LNode *stmt;
  LNode **loops;
  int depth;
} LSRef;

/* Each check returns 0 if the transformation is legal, or -1 with the reason
 * (one line, no location) in why. Levels are 0-based indices into path. */
/* R-SCH-14(a): swapping path[a] and path[b] (a < b, a perfect band). what names the step ("interchange of levels 1 and 2 in C"). */
int leg_interchange(const LProgram *lp, LNode *const *path, int a, int b, const char *what, Buf *why);
/* R-SCH-14(b): fusing the sibling subtrees x (first) and y below the k shared
 * loops path[0..k-1] at levels k..last (0-based, inclusive). */
int leg_fuse(const LProgram *lp, LNode *const *path, int k, LNode *x, LNode *y, int last, const char *what, Buf *why);
/* R-SCH-14(b): moving y up before z, siblings below path[0..k-1]. */
int leg_move(const LProgram *lp, LNode *const *path, int k, LNode *z, LNode *y, const char *what, Buf *why);
/* R-SCH-14(d): splitting path[l] into one loop per child. */
int leg_distribute(const LProgram *lp, LNode *const *path, int l, const char *what, Buf *why);
/* R-SCH-14(c): whether path[l] carries no dependence (0) or which one it carries (-1). */
int leg_carried(const LProgram *lp, LNode *const *path, int l, const char *what, Buf *why);
/* The same for the pairs of statements of which one is among the first split
 * below path[l] (in tree order) and the other is not; split < 0: all pairs. */
int leg_carried_across(const LProgram *lp, LNode *const *path, int l, int split, const char *what, Buf *why);
/* R-CG-11 (nowait): whether no pair of conflicting accesses below path[l] touches one
 * element from two iterations of path[l], whatever the iterations of path[from..l-1]
 * (0), or which one does (-1). */
int leg_carried_any(const LProgram *lp, LNode *const *path, int l, int from, const char *what, Buf *why);

/* ============================================================ regblock.c (R-SCH-21) */

/* Scalar replacement of the sum s's target in the loop path[l] (0-based) of
 * s's path: 0, or -1 with the reason in why (prefixed by what). */
int rb_scalar_replace(LProgram *lp, LNode *const *path, int depth, int l, LNode *s, const char *what, Buf *why);
/* Storage contraction (R-SCH-23): the workspace tensor buf becomes a local
 * array of the loop path[l]; 0, or -1 with the reason in why. */
int rb_contract(LProgram *lp, LNode *const *path, int l, int buf, const char *what, Buf *why);
/* Private slices (R-SCH-25): the workspace tensor buf, accessed only inside the
 * top-level loop H, becomes one slice per thread of H's parallel region; 0,
 * or -1 with the reason in why. */
int rb_private(LProgram *lp, LNode *H, int buf, const char *what, Buf *why);
/* Elements between two copies of a private slice (each copy 64-byte aligned). */
int64_t lp_copy_stride(const LProgram *lp, const LBuf *b);
/* Packing (R-SCH-24): the statement s reads buf through a copy whose
 * dimension dim (0-based) is the last; with l >= 0 the copy is a local array
 * of path[l], one slice per iteration (R-SCH-24.1); 0, or -1 with the reason
 * in why (-2 when the slice of path[l] is refused). */
int rb_pack(LProgram *lp, LNode *s, LNode *const *path, int l, int buf, int dim, const char *what, Buf *why);
int rb_panel(LProgram *lp, LNode *s, int buf, const char *what, Buf *why);       /* R-SCH-26 */
/* R-CG-22: a register block whose target was just zeroed starts from zero; the
 * zeroing nest goes. Run after the schedule. */
void rb_fold_zero_inits(LProgram *lp);
/* R-CG-23: an element-wise statement after a register block's store is done
 * by the store. Run after rb_fold_zero_inits. */
void rb_fuse_consumers(LProgram *lp);
/* R-CG-11: marks LF_NOWAIT the one worksharing loop of a region whose iterations
 * touch disjoint elements in every execution (after R-CG-19's split). */
void rb_nowait(LProgram *lp);

#endif
