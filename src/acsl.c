/*
 * acsl.c - ACSL contracts for the kernels teilc generates (teilc --acsl,
 * spec/acsl.md, rules R-ACSL-n), so that Frama-C/WP (acsl/wp-check) proves
 * every generated kernel free of out-of-bounds accesses and signed overflow,
 * and its loops terminating and assigning only outputs and workspace.
 *
 * cgen.c calls these functions while it prints the C file; every annotation
 * is a comment, so the compiled code is the same with and without --acsl
 * except that OpenMP pragmas are hidden from Frama-C (R-ACSL-4).
 *
 * Shapes are static, so every extent, stride and bound is a literal: the
 * index of an access is an affine expression with literal coefficients in
 * the iterators (cgen's row-major offset), and the contracts state literal
 * ranges. Everything the provers see is linear integer arithmetic.
 */
#include <stdlib.h>
#include <string.h>

#include "compile.h"

/* Elements of the workspace: work_bytes is a multiple of 64. */
static int64_t work_elems(const LProgram *lp) { return lp->work_bytes / (lp->f32 ? 4 : 8); }

/* ------------------------------------------------------------ preamble (R-ACSL-4, R-ACSL-5) */

void acsl_preamble(const LProgram *lp, Buf *b) {
  (void)lp;
  buf_printf(b,
             "/* ACSL (teilc --acsl, spec/acsl.md): Frama-C defines __FRAMAC__. For it,\n"
             " * __builtin_assume_aligned(p, a) is p (its value; the alignment is the\n"
             " * caller's obligation, R-CG-9), and the OpenMP pragmas are hidden\n"
             " * (R-ACSL-4): WP proves the loops as the sequential code they are. */\n"
             "#ifdef __FRAMAC__\n"
             "#define __builtin_assume_aligned(p, a) (p)\n"
             "#endif\n\n");
}

void acsl_helper(const char *name, Buf *b) {
  if (!strcmp(name, "teil_min"))
    buf_printf(b, "/*@ assigns \\nothing;\n"
                  "    ensures \\result <= a && \\result <= b && (\\result == a || \\result == b); */\n");
  else
    buf_printf(b, "/*@ assigns \\nothing; */\n");
}

/* ------------------------------------------------------------ the function contract (R-ACSL-2) */

static void range(const char *name, int64_t n, Buf *b) { buf_printf(b, "%s + (0 .. %lld)", name, (long long)n - 1); }

void acsl_contract(const LProgram *lp, Buf *b) {
  int np = lp->nparams;
  int *pb = xcalloc((size_t)np + 1, sizeof *pb);
  for (int i = 0; i < lp->nbufs; i++)
    if (lp->bufs[i].param >= 0)
      pb[lp->bufs[i].param] = i;
  int64_t w = work_elems(lp);
  buf_printf(b, "/*@ ");
  bool first = true;
  for (int i = 0; i < np; i++) {
    const LBuf *x = &lp->bufs[pb[i]];
    buf_printf(b, "%s%s(", first ? "requires " : "\n    requires ", x->kind == LB_PARAM_IN ? "\\valid_read" : "\\valid");
    range(x->cname, x->count, b);
    buf_printf(b, ");");
    first = false;
  }
  if (w > 0) {
    buf_printf(b, "%s\\valid(", first ? "requires " : "\n    requires ");
    range("work", w, b);
    buf_printf(b, ");");
    first = false;
  }
  int nsep = np + (w > 0);
  if (nsep >= 2) {                                   /* R-CG-9: restrict, no overlap */
    buf_printf(b, "\n    requires \\separated(");
    for (int i = 0; i < np; i++) {
      buf_printf(b, "%s", i ? ", " : "");
      range(lp->bufs[pb[i]].cname, lp->bufs[pb[i]].count, b);
    }
    if (w > 0) {
      buf_printf(b, ", ");
      range("work", w, b);
    }
    buf_printf(b, ");");
  }
  buf_printf(b, "%sassigns ", first ? "" : "\n    ");
  bool any = false;
  for (int i = 0; i < np; i++) {
    const LBuf *x = &lp->bufs[pb[i]];
    if (x->kind == LB_PARAM_IN || !x->written)
      continue;
    buf_printf(b, "%s%s[0 .. %lld]", any ? ", " : "", x->cname, (long long)x->count - 1);
    any = true;
  }
  if (w > 0) {
    buf_printf(b, "%swork[0 .. %lld]", any ? ", " : "", (long long)w - 1);
    any = true;
  }
  buf_printf(b, "%s;\n*/\n", any ? "" : "\\nothing");
  free(pb);
}

/* ------------------------------------------------------------ loops (R-ACSL-3) */

static void aff(const LProgram *lp, const LAff *a, Buf *b) { lp_print_aff(lp, a, b); }

/* ub - lb when it is a constant. */
static bool const_diff(const LAff *ub, const LAff *lb, int64_t *d) {
  for (int t = 0; t < ub->n; t++)
    if (lp_aff_coef(ub, ub->it[t]) != lp_aff_coef(lb, ub->it[t]))
      return false;
  for (int t = 0; t < lb->n; t++)
    if (lp_aff_coef(ub, lb->it[t]) != lp_aff_coef(lb, lb->it[t]))
      return false;
  *d = ub->c - lb->c;
  return true;
}

static void mark_written(const LNode *n, bool *w) {
  if (n->kind == LN_STMT) {
    w[n->lhs.buf] = true;
    return;
  }
  for (int i = 0; i < n->nkids; i++)
    mark_written(n->kids[i], w);
}

void acsl_loop(const LProgram *lp, const LNode *n, int ind, Buf *b) {
  const char *v = lp->its[n->it].name;
  int64_t s = n->step;
  buf_printf(b, "%*s/*@ loop invariant ", ind, "");
  aff(lp, &n->lb, b);
  buf_printf(b, " <= %s <= ", v);
  /* The last value of v: lb + ceil(D/s)*s for the bound at constant distance
   * D from lb; without one, ub + s - 1. */
  int64_t d = 0;
  int k = -1;
  for (int j = -1; j < n->nubx; j++) {
    const LAff *u = j < 0 ? &n->ub : &n->ubx[j];
    int64_t dj;
    if (const_diff(u, &n->lb, &dj) && (k == -1 ? true : dj < d)) {
      d = dj;
      k = j + 1;                                     /* 0: ub, 1..: ubx */
    }
  }
  if (k >= 0) {
    int64_t last = d <= 0 ? 0 : (d + s - 1) / s * s;
    Buf t = {0};
    aff(lp, &n->lb, &t);
    if (last == 0)
      buf_printf(b, "%s", t.s);
    else if (n->lb.n == 0)
      buf_printf(b, "%lld", (long long)(n->lb.c + last));
    else
      buf_printf(b, "%s + %lld", t.s, (long long)last);
    buf_free(&t);
  } else {
    aff(lp, &n->ub, b);
    if (s > 1)
      buf_printf(b, " + %lld", (long long)(s - 1));
  }
  buf_printf(b, ";\n");
  if (s > 1) {
    buf_printf(b, "%*s    loop invariant ", ind, "");
    if (n->lb.n == 0 && n->lb.c == 0)
      buf_printf(b, "%s", v);
    else {
      buf_printf(b, "(%s - (", v);
      aff(lp, &n->lb, b);
      buf_printf(b, "))");
    }
    buf_printf(b, " %% %lld == 0;\n", (long long)s);
  }
  buf_printf(b, "%*s    loop assigns %s", ind, "", v);
  bool *w = xcalloc((size_t)lp->nbufs + 1, sizeof *w);
  mark_written(n, w);
  for (int i = 0; i < lp->nbufs; i++)
    if (w[i])
      buf_printf(b, ", %s[0 .. %lld]", lp->bufs[i].cname, (long long)lp->bufs[i].count - 1);
  free(w);
  buf_printf(b, ";\n%*s    loop variant ", ind, "");
  aff(lp, &n->ub, b);
  buf_printf(b, " - %s; */\n", v);
}
