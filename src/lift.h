/*
 * lift.h - lifting of nested contractions (TeIL paper Sec. 5; spec/lifting.md).
 *
 * lift_program rewrites a checked program so that every statement's right-hand
 * side is one contraction/reduction of at most two operands (or element-wise
 * work), choosing the contraction order with the fewest FLOPs and introducing
 * temporaries _t1, _t2, ... The code generator (src/lower.c) calls it.
 */
#ifndef TEIL_LIFT_H
#define TEIL_LIFT_H

#include <stddef.h>

#include "internal.h"

typedef struct LiftStats {
  int nlifted;            /* statements rewritten */
  int ntemps;             /* temporaries introduced */
  double flops_before;    /* nominal FLOPs (a multiply and an add count 1 each) of the program as written */
  double flops_after;     /* ... of the lifted program */
} LiftStats;

/* Rewrites a checked, error-free program into an equivalent one in which every
 * statement's right-hand side is a single contraction/reduction of at most two
 * operands (or element-wise work), introducing temporaries named _t1, _t2, ...
 * (never clashing with user names). Returns a new, checked TeilProgram (own arena)
 * or NULL with a message in err. The input is not modified. st may be NULL.
 * (R-LIFT-1 .. R-LIFT-12) */
TeilProgram *lift_program(const TeilProgram *in, LiftStats *st, char *err, size_t errlen);

/* Nominal FLOPs of evaluating a program statement by statement as written, each
 * sum unfused (the interpreter's cost model, R-LIFT-2). p must be checked. */
double lift_flops(const TeilProgram *p);

#endif
