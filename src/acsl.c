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
  else if (!strcmp(name, "teil_stream"))          /* R-CG-26 */
    /* n's upper bound is its type's range, which the natural model of R-ACSL-8 lacks */
    buf_printf(b, "/*@ requires 0 <= n <= 9223372036854775807;\n"
                  "    requires \\valid(dst + (0 .. n-1));\n"
                  "    requires \\valid_read(src + (0 .. n-1));\n"
                  "    requires \\separated(dst + (0 .. n-1), src + (0 .. n-1));\n"
                  "    assigns dst[0 .. n-1]; */\n");
  else
    buf_printf(b, "/*@ assigns \\nothing; */\n");
}

/* ------------------------------------------------------------ the function contract (R-ACSL-2) */

static void range(const char *name, int64_t n, Buf *b) { buf_printf(b, "%s + (0 .. %lld)", name, (long long)n - 1); }

static void mark_written(const LNode *n, bool *w);
static void aff(const LProgram *lp, const LAff *a, Buf *b);

static void mark_used_expr(const LExpr *e, bool *u) {
  if (!e)
    return;
  if (e->kind == LE_LOAD)
    u[e->acc.buf] = true;
  mark_used_expr(e->a, u);
  mark_used_expr(e->b, u);
}

static void mark_used(const LNode *n, bool *u) {
  if (n->kind == LN_STMT) {
    u[n->lhs.buf] = true;
    mark_used_expr(n->rhs, u);
    return;
  }
  for (int i = 0; i < n->nkids; i++)
    mark_used(n->kids[i], u);
}

/* A private slice (R-SCH-25) in assigns: all its copies, as the thread
 * number that picks one is not known to the proof (R-ACSL-4). */
static void private_range(const LProgram *lp, const LBuf *x, const char *sep, Buf *b) {
  int64_t off = x->offset / (lp->f32 ? 4 : 8);
  buf_printf(b, "%swork[%lld .. %lld]", sep, (long long)off, (long long)(off + LP_COPIES * lp_copy_stride(lp, x) - 1));
}

void acsl_contract(const LProgram *lp, const LNode *part, const LNode *outer, Buf *b) {
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
  /* R-ACSL-10: a part inside the loop outer gets its iterator and the local
   * arrays of outer that it uses */
  bool *loc = xcalloc((size_t)lp->nbufs + 1, sizeof *loc);
  int nloc = 0;
  if (outer) {
    bool *used = xcalloc((size_t)lp->nbufs + 1, sizeof *used);
    mark_used(part, used);
    for (int i = 0; i < outer->nlocals; i++)
      if (used[outer->locals[i]] && !loc[outer->locals[i]]) {
        loc[outer->locals[i]] = true;
        nloc++;
      }
    free(used);
    const char *v = lp->its[outer->it].name;
    buf_printf(b, "%srequires ", first ? "" : "\n    ");
    aff(lp, &outer->lb, b);
    buf_printf(b, " <= %s < ", v);
    aff(lp, &outer->ub, b);
    buf_printf(b, ";");
    for (int k = 0; k < outer->nubx; k++) {
      buf_printf(b, "\n    requires %s < ", v);
      aff(lp, &outer->ubx[k], b);
      buf_printf(b, ";");
    }
    if (outer->step > 1) {
      buf_printf(b, "\n    requires (%s - (", v);
      aff(lp, &outer->lb, b);
      buf_printf(b, ")) %% %lld == 0;", (long long)outer->step);
    }
    for (int i = 0; i < lp->nbufs; i++)
      if (loc[i]) {
        buf_printf(b, "\n    requires \\valid(");
        range(lp->bufs[i].cname, lp->bufs[i].count, b);
        buf_printf(b, ");");
      }
    first = false;
  }
  int nsep = np + (w > 0) + nloc;
  if (nsep >= 2) {                                   /* R-CG-9: restrict, no overlap */
    buf_printf(b, "\n    requires \\separated(");
    bool sep = false;
    for (int i = 0; i < np; i++) {
      buf_printf(b, "%s", sep ? ", " : "");
      range(lp->bufs[pb[i]].cname, lp->bufs[pb[i]].count, b);
      sep = true;
    }
    if (w > 0) {
      buf_printf(b, "%s", sep ? ", " : "");
      range("work", w, b);
      sep = true;
    }
    for (int i = 0; i < lp->nbufs; i++)
      if (loc[i]) {
        buf_printf(b, "%s", sep ? ", " : "");
        range(lp->bufs[i].cname, lp->bufs[i].count, b);
        sep = true;
      }
    buf_printf(b, ");");
  }
  buf_printf(b, "%sassigns ", first ? "" : "\n    ");
  bool any = false;
  bool *wr = xcalloc((size_t)lp->nbufs + 1, sizeof *wr);
  if (part)
    mark_written(part, wr);
  for (int i = 0; i < np; i++) {
    const LBuf *x = &lp->bufs[pb[i]];
    if (x->kind == LB_PARAM_IN || !(part ? wr[pb[i]] : x->written))
      continue;
    buf_printf(b, "%s%s[0 .. %lld]", any ? ", " : "", x->cname, (long long)x->count - 1);
    any = true;
  }
  if (w > 0 && !part) {
    buf_printf(b, "%swork[0 .. %lld]", any ? ", " : "", (long long)w - 1);
    any = true;
  }
  int64_t es = lp->f32 ? 4 : 8;
  for (int i = 0; part && i < lp->nbufs; i++) {      /* a part: its own workspace buffers */
    const LBuf *x = &lp->bufs[i];
    if (x->kind != LB_WORK || !wr[i])
      continue;
    if (x->priv)
      private_range(lp, x, any ? ", " : "", b);
    else
      buf_printf(b, "%swork[%lld .. %lld]", any ? ", " : "", (long long)(x->offset / es),
                 (long long)(x->offset / es + x->count - 1));
    any = true;
  }
  for (int i = 0; outer && i < lp->nbufs; i++)      /* R-ACSL-10: the local arrays it writes */
    if (loc[i] && wr[i]) {
      buf_printf(b, "%s%s[0 .. %lld]", any ? ", " : "", lp->bufs[i].cname, (long long)lp->bufs[i].count - 1);
      any = true;
    }
  free(wr);
  free(loc);
  buf_printf(b, "%s;\n*/\n", any ? "" : "\\nothing");
  free(pb);
}

/* ------------------------------------------------------------ loops (R-ACSL-3) */

static void aff(const LProgram *lp, const LAff *a, Buf *b) { lp_print_aff(lp, a, b); }

static void mark_written(const LNode *n, bool *w) {
  if (n->kind == LN_STMT) {
    w[n->lhs.buf] = true;
    return;
  }
  for (int i = 0; i < n->nkids; i++)
    mark_written(n->kids[i], w);
}

/* Local arrays declared in n's body or deeper (R-SCH-21) are not in scope
 * in n's loop annotation; each iteration has its own. */
static void unmark_locals(const LNode *n, bool *w) {
  if (n->kind == LN_STMT)
    return;
  for (int i = 0; i < n->nlocals; i++)
    w[n->locals[i]] = false;
  for (int i = 0; i < n->nkids; i++)
    unmark_locals(n->kids[i], w);
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
    if (lp_aff_const_diff(u, &n->lb, &dj) && (k == -1 ? true : dj < d)) {
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
  unmark_locals(n, w);
  for (int i = 0; i < lp->nbufs; i++)
    if (w[i] && lp->bufs[i].priv)
      private_range(lp, &lp->bufs[i], ", ", b);
    else if (w[i])
      buf_printf(b, ", %s[0 .. %lld]", lp->bufs[i].cname, (long long)lp->bufs[i].count - 1);
  free(w);
  buf_printf(b, ";\n%*s    loop variant ", ind, "");
  aff(lp, &n->ub, b);
  buf_printf(b, " - %s; */\n", v);
}

/* ------------------------------------------------------------ statements (R-ACSL-6) */

/* The provers must prove every runtime-error goal of an index expression
 * (each '+', '-' and '*' in range, each access valid), and WP's simplifier
 * Qed cannot add two bounded terms, so each of those goals would be a prover
 * call of its own. Instead, one assertion before a run of statements states
 * all of them, in exactly the form the RTE goals take: a C subexpression e of
 * type long long is written (long long)(...) as WP reads it (to_sint64), so
 * that Qed proves each RTE goal from the assertion, and the provers prove one
 * conjunction per run. The plain (mathematical) range of each stored offset
 * serves the assigns goals. */

typedef struct Conj {
  char **s;
  int n, cap;
} Conj;

static void conj_add(Conj *c, Buf *t) {
  for (int i = 0; i < c->n; i++)
    if (!strcmp(c->s[i], t->s)) {
      buf_free(t);
      return;
    }
  if (c->n == c->cap) {
    c->cap = c->cap ? 2 * c->cap : 16;
    char **s = xcalloc((size_t)c->cap, sizeof *s);
    if (c->n)
      memcpy(s, c->s, (size_t)c->n * sizeof *s);
    free(c->s);
    c->s = s;
  }
  c->s[c->n++] = t->s;
  t->s = NULL;
  t->len = t->cap = 0;
}

/* The terms of an affine expression as cgen.c prints it (lp_print_aff). */
static int aff_terms(const LAff *a, LTerm **out, int64_t *cst) {
  LTerm *t = xcalloc((size_t)a->n + 1, sizeof *t);
  int m = 0;
  for (int k = 0; k < a->n; k++)
    if (a->coef[k])
      t[m++] = (LTerm){a->it[k], a->coef[k]};
  *out = t;
  *cst = a->c;
  return m;
}

#define I64_RANGE_LO "-9223372036854775808"
#define I64_RANGE_HI "9223372036854775807"

static void in_range(const char *e, Conj *cj) {
  Buf t = {0};
  buf_printf(&t, I64_RANGE_LO " <= %s <= " I64_RANGE_HI, e);
  conj_add(cj, &t);
}

/* Writes into *f the term WP makes of the C expression cgen prints for
 * terms t[0..n-1] and constant c (left to right), and adds to cj the range of
 * every intermediate product and sum (the RTE overflow goals). */
static void c_structure(const LProgram *lp, const LTerm *t, int n, int64_t c, Conj *cj, Buf *f) {
  if (n == 0) {
    buf_printf(f, "%lld", (long long)c);
    return;
  }
  for (int j = 0; j < n; j++) {
    int64_t m = t[j].coef < 0 ? -t[j].coef : t[j].coef;
    const char *v = lp->its[t[j].it].name;
    Buf term = {0};                                  /* F(m*v), or F(-m*v) for a leading negative term */
    if (j == 0 && t[j].coef < 0) {
      Buf raw = {0};
      if (m == 1)
        buf_printf(&raw, "-%s", v);
      else
        buf_printf(&raw, "-%lld*%s", (long long)m, v);
      in_range(raw.s, cj);
      buf_printf(&term, "(long long)(%s)", raw.s);
      buf_free(&raw);
    } else if (m == 1) {
      buf_printf(&term, "%s", v);
    } else {
      Buf raw = {0};
      buf_printf(&raw, "%lld*%s", (long long)m, v);
      in_range(raw.s, cj);
      buf_printf(&term, "(long long)(%s)", raw.s);
      buf_free(&raw);
    }
    if (j == 0) {
      buf_printf(f, "%s", term.s);
    } else {
      Buf sum = {0};
      buf_printf(&sum, "%s %c %s", f->s, t[j].coef < 0 ? '-' : '+', term.s);
      in_range(sum.s, cj);
      f->len = 0;
      f->s[0] = '\0';
      buf_printf(f, "(long long)(%s)", sum.s);
      buf_free(&sum);
    }
    buf_free(&term);
  }
  if (c) {
    Buf sum = {0};
    buf_printf(&sum, "%s %c %lld", f->s, c < 0 ? '-' : '+', (long long)(c < 0 ? -c : c));
    in_range(sum.s, cj);
    f->len = 0;
    f->s[0] = '\0';
    buf_printf(f, "(long long)(%s)", sum.s);
    buf_free(&sum);
  }
}

static void access_facts(const LProgram *lp, const LAccess *acc, bool store, bool load, Conj *cj) {
  const LBuf *x = &lp->bufs[acc->buf];
  LTerm *t;
  int64_t c;
  int n = lp_offset_terms(lp, acc, &t, &c);
  Buf f = {0}, v = {0};
  c_structure(lp, t, n, c, cj, &f);
  if (store) {
    buf_printf(&v, "\\valid(%s + %s)", x->cname, f.s);
    conj_add(cj, &v);
  }
  if (load) {                                        /* a load, or the read of a += */
    buf_printf(&v, "\\valid_read(%s + %s)", x->cname, f.s);
    conj_add(cj, &v);
  }
  if (store && n > 0) {                              /* for the assigns goals: the plain offset */
    Buf p = {0};
    buf_printf(&p, "0 <= ");
    for (int j = 0; j < n; j++) {
      int64_t m = t[j].coef < 0 ? -t[j].coef : t[j].coef;
      buf_printf(&p, "%s", j ? (t[j].coef < 0 ? " - " : " + ") : (t[j].coef < 0 ? "-" : ""));
      if (m == 1)
        buf_printf(&p, "%s", lp->its[t[j].it].name);
      else
        buf_printf(&p, "%lld*%s", (long long)m, lp->its[t[j].it].name);
    }
    if (c)
      buf_printf(&p, " %c %lld", c < 0 ? '-' : '+', (long long)(c < 0 ? -c : c));
    buf_printf(&p, " <= %lld", (long long)x->count - 1);
    conj_add(cj, &p);
  }
  buf_free(&f);
  free(t);
}

static void expr_facts(const LProgram *lp, const LExpr *e, Conj *cj) {
  if (!e)
    return;
  if (e->kind == LE_LOAD)
    access_facts(lp, &e->acc, false, true, cj);
  expr_facts(lp, e->a, cj);
  expr_facts(lp, e->b, cj);
  for (int g = 0; g < e->nguard; g++) {             /* R-CG-10: the guards of teil_divp */
    LTerm *t;
    int64_t c;
    int n = aff_terms(&e->gidx[g], &t, &c);
    if (n > 1 || (n == 1 && (c || t[0].coef != 1))) {
      Buf f = {0};
      c_structure(lp, t, n, c, cj, &f);
      buf_free(&f);
    }
    free(t);
  }
}

void acsl_stmts(const LProgram *lp, LNode *const *stmts, int n, int ind, Buf *b) {
  Conj cj = {0};
  for (int i = 0; i < n; i++) {
    access_facts(lp, &stmts[i]->lhs, true, stmts[i]->accum, &cj);
    expr_facts(lp, stmts[i]->rhs, &cj);
  }
  if (cj.n) {
    buf_printf(b, "%*s/*@ assert teil_rte: ", ind, "");
    for (int i = 0; i < cj.n; i++) {
      if (i)
        buf_printf(b, " &&\n%*s      ", ind, "");
      buf_printf(b, "%s", cj.s[i]);
    }
    buf_printf(b, "; */\n");
  }
  for (int i = 0; i < cj.n; i++)
    free(cj.s[i]);
  free(cj.s);
}
