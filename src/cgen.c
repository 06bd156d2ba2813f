/*
 * cgen.c - C code generation for teilc (spec/compiler.md R-CG-11..R-CG-14).
 *
 * The kernel is one function over the loop IR: parameters for the input and
 * output tensors, a caller-provided workspace, one C loop per IR loop with
 * OpenMP pragmas from the annotation pass, one C statement per IR statement
 * with row-major padded offsets. Optionally a header documenting the calling
 * convention and a standalone driver with an embedded .npy reader and writer.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "compile.h"

#define SPREAD_MIN_LINES 48   /* R-CG-24.1: chunks above this many lines are spread over a sum */

/* The OpenMP directives a loop gets: none (--no-openmp), only simd (the serial
 * copy of a site, R-CG-11.2), or all (R-CG-11). */
enum { OMP_OFF, OMP_SIMD, OMP_ON };

/* ------------------------------------------------------------ names (R-CG-12) */

static const char *const c_keywords[] = {
    "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else", "enum", "extern",
    "float", "for", "goto", "if", "inline", "int", "long", "register", "restrict", "return", "short", "signed",
    "sizeof", "static", "struct", "switch", "typedef", "union", "unsigned", "void", "volatile", "while", "asm",
    "typeof", "_Alignas", "_Alignof", "_Atomic", "_Bool", "_Complex", "_Generic", "_Imaginary", "_Noreturn",
    "_Static_assert", "_Thread_local", NULL};

/* Object-like macros of the headers the generated file includes, predefined
 * macros of GNU C modes, names of the driver's library calls, and names the
 * generated code itself uses. */
static const char *const c_reserved[] = {
    "NAN", "INFINITY", "HUGE_VAL", "HUGE_VALF", "HUGE_VALL", "FP_NAN", "FP_INFINITE", "FP_ZERO", "FP_SUBNORMAL",
    "FP_NORMAL", "FP_ILOGB0", "FP_ILOGBNAN", "FP_FAST_FMA", "FP_FAST_FMAF", "FP_FAST_FMAL", "MATH_ERRNO",
    "MATH_ERREXCEPT", "math_errhandling", "NULL", "EOF", "BUFSIZ", "FILENAME_MAX", "FOPEN_MAX", "TMP_MAX",
    "L_tmpnam", "SEEK_SET", "SEEK_CUR", "SEEK_END", "stdin", "stdout", "stderr", "errno", "EXIT_SUCCESS",
    "EXIT_FAILURE", "RAND_MAX", "MB_CUR_MAX", "CLOCKS_PER_SEC", "CLOCK_MONOTONIC", "CLOCK_REALTIME", "TIME_UTC",
    "bool", "true", "false", "complex", "imaginary", "I", "assert", "static_assert", "alignas", "alignof",
    "noreturn", "thread_local", "linux", "unix", "i386", "i686", "main", "work", "argc", "argv", "free",
    "malloc", "calloc", "realloc", "aligned_alloc", "exit", "abort", "memcpy", "memset", "memcmp", "strcmp",
    "strncmp", "strchr", "strlen", "strtoll", "strstr", "strerror", "fopen", "fclose", "fread", "fwrite", "fprintf",
    "printf", "vfprintf", "snprintf", "fputs", "qsort", "clock_gettime", "timespec", "madvise", "abs", "fabs", "sqrt", "exp",
    "log", "pow", "sin", "cos", "size_t", "ptrdiff_t", "FILE", "va_list", NULL};

bool cgen_reserved(const char *name) {
  for (int i = 0; c_keywords[i]; i++)
    if (!strcmp(name, c_keywords[i]))
      return true;
  for (int i = 0; c_reserved[i]; i++)
    if (!strcmp(name, c_reserved[i]))
      return true;
  if (name[0] == '_' && (name[1] == '_' || isupper((unsigned char)name[1])))
    return true;                                    /* reserved identifiers */
  if (!strncmp(name, "teil_", 5) || !strncmp(name, "TEIL_", 5))
    return true;                                    /* the generated code's own names */
  return false;
}

bool teil_compile_valid_ident(const char *s) {
  if (!s || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
    return false;
  for (const char *c = s; *c; c++)
    if (!(isalnum((unsigned char)*c) || *c == '_'))
      return false;
  for (int i = 0; c_keywords[i]; i++)
    if (!strcmp(s, c_keywords[i]))
      return false;
  return true;
}

/* ------------------------------------------------------------ expressions */

static const char *real_t(const LProgram *lp) { return lp->f32 ? "float" : "double"; }

/* Prints the terms t[0 .. nt-1] (none 0) and the constant c as one affine expression. */
static void c_terms(const LProgram *lp, const LTerm *t, int nt, int64_t c, Buf *b) {
  for (int j = 0; j < nt; j++) {
    int64_t m = t[j].coef < 0 ? -t[j].coef : t[j].coef;
    buf_printf(b, "%s", j ? (t[j].coef < 0 ? " - " : " + ") : (t[j].coef < 0 ? "-" : ""));
    if (m == 1)
      buf_printf(b, "%s", lp->its[t[j].it].name);
    else
      buf_printf(b, "%lld*%s", (long long)m, lp->its[t[j].it].name);
  }
  if (!nt)
    buf_printf(b, "%lld", (long long)c);
  else if (c)
    buf_printf(b, " %c %lld", c < 0 ? '-' : '+', (long long)(c < 0 ? -c : c));
}

/* Prints the row-major offset sum_d stride_d * idx_d as one affine expression. */
static void c_offset(const LProgram *lp, const LAccess *acc, Buf *b) {
  LTerm *t;
  int64_t c;
  int nt = lp_offset_terms(lp, acc, &t, &c);
  c_terms(lp, t, nt, c, b);
  free(t);
}

/* rd: the C name to read each buffer through (R-CG-21), or NULL. */
static void c_access(const LProgram *lp, const LAccess *acc, const char *const *rd, Buf *b) {
  buf_printf(b, "%s[", rd && rd[acc->buf] ? rd[acc->buf] : lp->bufs[acc->buf].cname);
  c_offset(lp, acc, b);
  buf_printf(b, "]");
}

static void c_load(const LProgram *lp, const LAccess *acc, const void *rd, Buf *b) {
  c_access(lp, acc, rd, b);
}

/* An expression in C; the floating-point evaluation order is the IR's (lp_write_expr). */
static void c_expr(const LProgram *lp, const LExpr *e, const char *const *rd, Buf *b) {
  const LExprStyle st = {c_load, rd, "NAN", "teil_div", "teil_divp"};   /* R-CG-6, R-CG-10 */
  lp_write_expr(lp, e, &st, b);
}

static void uses_div(const LExpr *e, bool *plain, bool *guarded) {
  if (!e)
    return;
  if (e->kind == LE_DIV)
    *(e->nguard ? guarded : plain) = true;
  uses_div(e->a, plain, guarded);
  uses_div(e->b, plain, guarded);
}

static void node_divs(const LNode *n, bool *plain, bool *guarded) {
  if (n->kind == LN_STMT) {
    uses_div(n->rhs, plain, guarded);
    return;
  }
  for (int i = 0; i < n->nkids; i++)
    node_divs(n->kids[i], plain, guarded);
}

static bool node_min(const LNode *n) {
  if (n->kind == LN_STMT)
    return false;
  if (n->nubx)
    return true;
  for (int i = 0; i < n->nkids; i++)
    if (node_min(n->kids[i]))
      return true;
  return false;
}

/* ------------------------------------------------------------ statements and loops */

/* spec/acsl.md: before the first of a run of statements, the assertion that
 * covers the run. */
static void acsl_run(const LProgram *lp, LNode *const *kids, int nkids, int i, int ind, Buf *b) {
  if (kids[i]->kind != LN_STMT || (i > 0 && kids[i - 1]->kind == LN_STMT))
    return;
  int n = 1;
  while (i + n < nkids && kids[i + n]->kind == LN_STMT)
    n++;
  acsl_stmts(lp, kids + i, n, ind, b);
}

static void dims_str(const int64_t *d, int rank, Buf *b);

/* Whether the access acc of buf indexes buf's first dimension by the iterator
 * it alone and no other dimension by it. */
/* R-CG-24: the elements per element of a loop over groups (R-SCH-27), else 1. */
static int64_t group_of(const LProgram *lp, const LNode *n) { return (n->flags & LF_GROUP) ? (lp->f32 ? 16 : 8) : 1; }

/* R-CG-24: the elements of x that one iteration of the element loop n covers. */
static int64_t elem_slice(const LProgram *lp, const LNode *n, const LBuf *x) { return x->stride[0] * group_of(lp, n); }

/* R-CG-24: acc's first index is it alone, or, for a loop over groups of g
 * elements, g*it + w with w another iterator (R-SCH-27); no other index uses it. */
static bool access_by_first(const LProgram *lp, const LAccess *acc, int it, int64_t g) {
  const LBuf *x = &lp->bufs[acc->buf];
  const LAff *f = x->rank >= 1 ? &acc->idx[0] : NULL;
  if (!f || !(g == 1 ? lp_aff_is_iter(f, it)
                     : f->c == 0 && f->n == 2 && lp_aff_coef(f, it) == g &&
                           ((f->it[0] == it && f->coef[1] == 1) || (f->it[1] == it && f->coef[0] == 1))))
    return false;
  for (int d = 1; d < x->rank; d++)
    if (lp_aff_coef(&acc->idx[d], it) != 0)
      return false;
  return true;
}

/* R-CG-24: how the loads (*rd) and stores (*wr) of buf below n index it;
 * *other is set by an access that does not index it by the element alone. */
static void expr_by_first(const LProgram *lp, const LExpr *e, int buf, int it, int64_t g, bool *rd, bool *other) {
  if (!e)
    return;
  if (e->kind == LE_LOAD && e->acc.buf == buf) {
    *rd = true;
    *other |= !access_by_first(lp, &e->acc, it, g);
  }
  expr_by_first(lp, e->a, buf, it, g, rd, other);
  expr_by_first(lp, e->b, buf, it, g, rd, other);
}

static void node_by_first(const LProgram *lp, const LNode *n, int buf, int it, int64_t g, bool *rd, bool *wr,
                          bool *other) {
  if (n->kind == LN_STMT) {
    if (n->lhs.buf == buf) {
      *wr = true;
      *other |= !access_by_first(lp, &n->lhs, it, g);
    }
    expr_by_first(lp, n->rhs, buf, it, g, rd, other);
    return;
  }
  for (int i = 0; i < n->nkids; i++)
    node_by_first(lp, n->kids[i], buf, it, g, rd, wr, other);
}

/* R-CG-24: a host of an element loop's prefetches: a child loop with constant
 * bounds, a trip of 2 or more, neither simd nor parallel, not a streaming
 * copy-out (R-CG-26: one teil_stream call, no body to hold a prefetch) and not
 * the copy of a packed copy per iteration (R-SCH-24.1: too short a time). */
static bool prefetch_host(const LNode *h) {
  return h->kind == LN_LOOP && h->step >= 1 && !h->nubx && lp_aff_is_const(&h->lb) && lp_aff_is_const(&h->ub) &&
         h->ub.c - h->lb.c > h->step && !(h->flags & (LF_SIMD | LF_PARALLEL | LF_STREAM | LF_COPY | LF_LANECOPY));
}

static int64_t host_trip(const LNode *h) { return (h->ub.c - h->lb.c + h->step - 1) / h->step; }

/* R-CG-24: the hosts' iterations before those of the child kids[k]; *total: all of them. */
static int64_t hosts_before(const LNode *n, int k, int64_t *total) {
  int64_t before = 0, t = 0;
  for (int i = 0; i < n->nkids; i++) {
    if (i == k)
      before = t;
    if (prefetch_host(n->kids[i]))
      t += host_trip(n->kids[i]);
  }
  *total = t;
  return before;
}

static bool has_sum(const LNode *n) {
  if (n->kind == LN_STMT)
    return n->accum;
  for (int i = 0; i < n->nkids; i++)
    if (has_sum(n->kids[i]))
      return true;
  return false;
}

/* R-CG-24: an element loop: one that declares local arrays (R-SCH-23), or a
 * parallel one (R-CG-11) whose body holds a sum. */
static bool has_locals(const LProgram *lp, const LNode *n) {
  for (int i = 0; i < n->nlocals; i++)
    if (lp->bufs[n->locals[i]].stageof < 0)      /* a staging array does not count (R-CG-26) */
      return true;
  return false;
}

static bool element_loop(const LProgram *lp, const LNode *n) {
  return has_locals(lp, n) || ((n->flags & LF_PARALLEL) && has_sum(n));
}

static bool rows_below(const LProgram *lp, const LNode *n, int i);

/* R-CG-24: whether the element loop n may prefetch parameter i: a slice of a
 * page or more that n accesses by element only (*wr: n stores it), unless a
 * block loop below prefetches its rows (R-CG-27), and only when the parameters
 * exceed a core's share of the last-level cache (R-CG-24.5). */
static bool prefetch_candidate(const LProgram *lp, const LNode *n, int i, bool *wr) {
  const LBuf *x = &lp->bufs[i];
  bool rd = false, other = false;
  *wr = false;
  if (lp->prefetch == 0 || (lp->prefetch == 1 && lp_param_bytes(lp) <= lp_llc_share_bytes()))
    return false;
  if (x->param < 0 || x->rank < 1 || elem_slice(lp, n, x) * (lp->f32 ? 4 : 8) < 4096)
    return false;
  node_by_first(lp, n, i, n->it, group_of(lp, n), &rd, wr, &other);
  return !other && (rd || *wr) && !(*wr && lp_streams(n)) &&   /* streamed lines bypass the caches (R-CG-26) */
         !rows_below(lp, n, i);
}

/* R-CG-24, R-CG-24.3: whether the element loop n prefetches parameter i: a candidate,
 * and in a loop over groups (R-SCH-27) one whose slice, with those of the
 * candidates declared before it, takes at most half the L2. */
static bool prefetched(const LProgram *lp, const LNode *n, int i, bool *wr) {
  if (!prefetch_candidate(lp, n, i, wr))
    return false;
  if (!(n->flags & LF_GROUP))
    return true;
  double bytes = 0;
  bool w;
  for (int j = 0; j <= i; j++)
    if (j == i || prefetch_candidate(lp, n, j, &w))
      bytes += (double)elem_slice(lp, n, &lp->bufs[j]) * (lp->f32 ? 4 : 8);
  return bytes <= (double)(lp_l2_bytes() / 2);
}

/* R-CG-24.6: whether an access below n to buf uses iterator it (*seen: buf is accessed). */
static bool expr_uses(const LProgram *lp, const LExpr *e, int buf, int it, bool *seen) {
  if (!e)
    return false;
  if (e->kind == LE_LOAD && e->acc.buf == buf) {
    *seen = true;
    for (int d = 0; d < lp->bufs[buf].rank; d++)
      if (lp_aff_coef(&e->acc.idx[d], it) != 0)
        return true;
  }
  return expr_uses(lp, e->a, buf, it, seen) || expr_uses(lp, e->b, buf, it, seen);
}

static bool node_uses(const LProgram *lp, const LNode *n, int buf, int it, bool *seen) {
  if (n->kind == LN_STMT)
    return expr_uses(lp, n->rhs, buf, it, seen);
  for (int i = 0; i < n->nkids; i++)
    if (node_uses(lp, n->kids[i], buf, it, seen))
      return true;
  return false;
}

/* R-CG-24.6: whether every iteration of host reads parameter buf whole: it reads
 * buf, and no access to buf below host uses host's iterator. */
static bool host_rereads(const LProgram *lp, const LNode *host, int buf) {
  bool seen = false;
  return !node_uses(lp, host, buf, host->it, &seen) && seen;
}

/* R-CG-24.6: the multiply-adds (statements that add into their target) below n. */
static double sum_work(const LNode *n) {
  if (n->kind == LN_STMT)
    return n->accum ? 1 : 0;
  double w = 0;
  for (int i = 0; i < n->nkids; i++)
    w += sum_work(n->kids[i]);
  return w * (double)lp_trip_estimate(n);
}

/* R-CG-24: the bytes of the slices that the element loop n prefetches. */
static double next_bytes(const LProgram *lp, const LNode *n) {
  double bytes = 0;
  bool wr;
  for (int i = 0; i < lp->nbufs; i++)
    if (prefetched(lp, n, i, &wr))
      bytes += (double)elem_slice(lp, n, &lp->bufs[i]) * (lp->f32 ? 4 : 8);
  return bytes;
}

/* R-CG-24: whether they take at most half the L2. */
static bool next_fits(const LProgram *lp, const LNode *n) {
  return next_bytes(lp, n) <= (double)(lp_l2_bytes() / 2);
}

#define L2_MAX_WORK 6 /* R-CG-24.4: the most statement instances per element of the slices */

/* R-CG-24.4: whether the element loop n prefetches into the L2 only: its slices
 * take the L1 or more, and one iteration runs at most L2_MAX_WORK statement
 * instances per element of them. */
static bool to_l2(const LProgram *lp, const LNode *n) {
  double bytes = next_bytes(lp, n), es = lp->f32 ? 4 : 8;
  return bytes >= (double)lp_l1_bytes() && lp_work(n) / (double)lp_trip_estimate(n) <= L2_MAX_WORK * (bytes / es);
}

/* R-CG-24.7: whether the element loop n is a batch loop from memory, which
 * prefetches into the L2 only: it holds no temporary (its local arrays are
 * packed copies and staging arrays), it is no loop over groups, and the
 * parameters exceed twice a core's share of the last-level cache. */
static bool batch_from_memory(const LProgram *lp, const LNode *n) {
  for (int i = 0; i < n->nlocals; i++)
    if (lp->bufs[n->locals[i]].stageof < 0 && lp->bufs[n->locals[i]].packof < 0)
      return false;
  return !(n->flags & LF_GROUP) && (double)lp_param_bytes(lp) > 2.0 * (double)lp_llc_share_bytes();
}

/* R-CG-24.1: a host's chunk spread over the iterations of its first sum loop:
 * path[0 .. np) are the loops from the host's child down to that loop (last),
 * span the iterations of all of them together. */
typedef struct {
  const LNode *elem, *host;                         /* the element loop and its child kids[k] */
  int k, np;
  const LNode *path[8];
  int64_t span;
} Spread;

/* R-CG-24.1: a loop the chunk may be spread through: constant bounds, one
 * iteration or more, neither simd nor parallel nor a streaming copy-out. */
static bool spread_through(const LNode *l) {
  return l->kind == LN_LOOP && l->step >= 1 && !l->nubx && lp_aff_is_const(&l->lb) && lp_aff_is_const(&l->ub) &&
         l->ub.c > l->lb.c && !(l->flags & (LF_SIMD | LF_PARALLEL | LF_STREAM | LF_REGION));
}

/* R-CG-24.1: the first sum loop (a trip of 2 or more) below n in program order,
 * reached through such loops; its path is appended to sp->path. */
static bool first_sum(const LNode *n, Spread *sp) {
  for (int i = 0; i < n->nkids; i++) {
    const LNode *c = n->kids[i];
    if (!spread_through(c) || sp->np == (int)(sizeof sp->path / sizeof sp->path[0]))
      continue;
    sp->path[sp->np++] = c;
    if (((c->flags & LF_REDUCTION) && host_trip(c) >= 2) || first_sum(c, sp))
      return true;
    sp->np--;
  }
  return false;
}

/* R-CG-24: the lines of parameter x in one host iteration's chunk (total: the hosts' iterations). */
static int64_t chunk_lines(const LProgram *lp, const LNode *n, const LBuf *x, int64_t total) {
  int64_t line = 64 / (lp->f32 ? 4 : 8), lines = (elem_slice(lp, n, x) + line - 1) / line;
  return (lines + total - 1) / total;
}

/* R-CG-24: the host's iteration t: the hosts' iterations before it plus its own index. */
static void host_index(const LProgram *lp, const LNode *n, const LNode *host, int k, Buf *t) {
  int64_t total, before = hosts_before(n, k, &total);
  const char *hv = lp->its[host->it].name;
  bool paren = before || host->lb.c || host->step != 1;
  buf_printf(t, "%s", paren ? "(" : "");
  if (before)
    buf_printf(t, "%lld + ", (long long)before);
  if (host->lb.c)
    buf_printf(t, "(%s - %lld)/%lld", hv, (long long)host->lb.c, (long long)host->step);
  else if (host->step != 1)
    buf_printf(t, "%s/%lld", hv, (long long)host->step);
  else
    buf_printf(t, "%s", hv);
  buf_printf(t, "%s", paren ? ")" : "");
}

/* R-CG-24.1: whether the host kids[k] of the element loop n spreads its chunk,
 * or, k < 0, n without hosts its whole slices (one chunk): the chunks of all
 * parameters exceed SPREAD_MIN_LINES lines and a sum loop is below (*sp). */
static bool spread_host(const LProgram *lp, const LNode *n, int k, Spread *sp) {
  int64_t total = 1, lines = 0;
  bool wr;
  if (k >= 0)
    (void)hosts_before(n, k, &total);
  for (int i = 0; i < lp->nbufs; i++)
    if (prefetched(lp, n, i, &wr))
      lines += chunk_lines(lp, n, &lp->bufs[i], total);
  *sp = (Spread){.elem = n, .host = k >= 0 ? n->kids[k] : NULL, .k = k};
  if ((lines <= SPREAD_MIN_LINES && !(n->flags & LF_GROUP)) || !next_fits(lp, n) || !first_sum(k >= 0 ? n->kids[k] : n, sp))
    return false;
  if ((n->flags & LF_GROUP) && sp->np > 1)          /* R-SCH-27: a sum of one vector a row; per block */
    sp->np--;
  sp->span = 1;
  for (int i = 0; i < sp->np; i++)
    sp->span *= host_trip(sp->path[i]);
  return true;
}

#define DENSE_MAX_WORK 64 /* R-CG-24.6: the most multiply-adds per chunk line of a dense spread */

/* R-CG-24.6: whether the host kids[k] of the element loop n, which spreads its
 * chunks (R-CG-24.1), is dense: one of its iterations runs at most
 * DENSE_MAX_WORK multiply-adds per line of its chunks, and a parameter that it
 * prefetches is not read whole by each of its iterations. */
static bool dense_spread(const LProgram *lp, const LNode *n, const LNode *host, int k) {
  int64_t total, lines = 0;
  bool wr, other = false;
  (void)hosts_before(n, k, &total);
  for (int i = 0; i < lp->nbufs; i++)
    if (prefetched(lp, n, i, &wr)) {
      lines += chunk_lines(lp, n, &lp->bufs[i], total);
      other |= wr || !host_rereads(lp, host, i);
    }
  return other && lines > 0 && sum_work(host) / (double)host_trip(host) <= DENSE_MAX_WORK * (double)lines;
}

/* R-CG-24: a prefetch of the next element's slice of each parameter that n
 * prefetches (for writing if n stores it), when together they take at most
 * half the L2: the whole slice (host NULL, at the top of n's body), the
 * chunk of the host's iteration, host being the child kids[k] of n, or, with
 * sp (R-CG-24.1, R-CG-24.2), the part of that chunk of the current iteration
 * of the path down to the host's first sum loop. */
static void prefetch_next(const LProgram *lp, const LNode *n, const LNode *host, int k, const Spread *sp, int ind,
                          bool acsl, Buf *b) {
  if (n->step != 1 || n->nubx || !lp_aff_is_const(&n->lb) || !lp_aff_is_const(&n->ub))
    return;
  const char *v = lp->its[n->it].name;
  int64_t line = 64 / (lp->f32 ? 4 : 8);
  bool wr;
  if (!next_fits(lp, n))
    return;
  Buf t = {0}, u = {0};                             /* the host's index t; the path's index u */
  int64_t total = 1;                                /* the hosts' iterations */
  if (host) {
    (void)hosts_before(n, k, &total);
    host_index(lp, n, host, k, &t);
  }
  for (int64_t i = 0, upto = 1; sp && i < sp->np; i++) {
    const LNode *l = sp->path[i];
    int64_t trip = host_trip(l);
    upto *= trip;                                   /* rest: the iterations of the loops below l */
    int64_t rest = sp->span / upto;
    if (trip == 1)
      continue;
    const char *lv = lp->its[l->it].name;
    bool paren = rest > 1 && (l->lb.c || l->step != 1);
    buf_printf(&u, "%s%s", u.s && u.s[0] ? " + " : "", paren ? "(" : "");
    if (l->lb.c)
      buf_printf(&u, "(%s - %lld)/%lld", lv, (long long)l->lb.c, (long long)l->step);
    else if (l->step != 1)
      buf_printf(&u, "%s/%lld", lv, (long long)l->step);
    else
      buf_printf(&u, "%s", lv);
    buf_printf(&u, "%s", paren ? ")" : "");
    if (rest > 1)
      buf_printf(&u, "*%lld", (long long)rest);
  }
  bool any = false, dense = sp && host && dense_spread(lp, n, host, k);
  bool l2 = to_l2(lp, n) || (!dense && batch_from_memory(lp, n));   /* R-CG-24.4, R-CG-24.7 */
  for (int i = 0; i < lp->nbufs; i++) {
    const LBuf *x = &lp->bufs[i];
    if (!prefetched(lp, n, i, &wr) || (dense && host_rereads(lp, host, i)))
      continue;
    if (!any)
      buf_printf(b, "%s%*sif (%s + 1 < %lld) { /* prefetch %sthe next element (R-CG-24%s) */\n",
                 acsl ? "#ifndef __FRAMAC__\n" : "", ind, "", v, (long long)n->ub.c, host ? "a part of " : "",
                 sp ? ".1: spread over the sum" : "");
    any = true;
    int64_t sz = elem_slice(lp, n, x);
    if (sp) {                                       /* iteration u's lines of the chunk (R-CG-24.1) */
      int64_t cl = chunk_lines(lp, n, x, total), ce = cl * line, span = sp->span;
      const char *us = u.s ? u.s : "0", *o = strpbrk(us, " /") ? "(" : "", *c = *o ? ")" : "";
      Buf base = {0}, lo = {0}, hi = {0};           /* chunk t's start (none without a host); the part's bounds */
      if (host)
        buf_printf(&base, "%lld*%s + ", (long long)ce, t.s);
      if (cl >= span || span > (int64_t)1 << 40) {  /* pl = ceil(cl/span) lines an iteration, from the first */
        int64_t pe = (cl + span - 1) / span * line;
        buf_printf(&lo, "%lld*%s%s%s", (long long)pe, o, us, c);
        buf_printf(&hi, "%s + %lld", lo.s, (long long)pe);
        if (host)                                   /* not past the chunk's end */
          buf_printf(&hi, " && teil_pf < %s%lld", base.s, (long long)ce);
      } else {                                      /* R-CG-24.2: line u*cl/span; u*cl < 2^53 (cl: half the L2) */
        buf_printf(&lo, "%lld*(%s%s%s*%lld/%lld)", (long long)line, o, us, c, (long long)cl, (long long)span);
        buf_printf(&hi, "%s + %lld", lo.s, (long long)line);
      }
      buf_printf(b, "%*sfor (long long teil_pf = %s%s; teil_pf < %s%s && teil_pf < %lld; teil_pf += %lld)\n", ind + 2, "",
                 base.s ? base.s : "", lo.s, base.s ? base.s : "", hi.s, (long long)sz, (long long)line);
      buf_free(&base);
      buf_free(&lo);
      buf_free(&hi);
    } else if (host) {                              /* chunk t of ce elements, t = the hosts' iteration */
      int64_t ce = chunk_lines(lp, n, x, total) * line;
      buf_printf(b, "%*sfor (long long teil_pf = %lld*%s; teil_pf < %lld*%s + %lld && teil_pf < %lld; teil_pf += %lld)\n",
                 ind + 2, "", (long long)ce, t.s, (long long)ce, t.s, (long long)ce, (long long)sz, (long long)line);
    } else {
      buf_printf(b, "%*sfor (long long teil_pf = 0; teil_pf < %lld; teil_pf += %lld)\n", ind + 2, "", (long long)sz,
                 (long long)line);
    }
    buf_printf(b, "%*s__builtin_prefetch(&%s[%lld*(%s + 1) + teil_pf]%s);\n", ind + 4, "", x->cname, (long long)sz, v,
               l2 ? (wr ? ", 1, 2" : ", 0, 2") : wr ? ", 1" : "");
  }
  buf_free(&t);
  buf_free(&u);
  if (any)
    buf_printf(b, "%*s}\n%s", ind, "", acsl ? "#endif\n" : "");
}

/* R-CG-27: the iterators of the loops below n (set in inner). */
static void inner_iters(const LNode *n, bool *inner) {
  for (int i = 0; i < n->nkids; i++)
    if (n->kids[i]->kind == LN_LOOP) {
      inner[n->kids[i]->it] = true;
      inner_iters(n->kids[i], inner);
    }
}

/* R-CG-27: whether acc indexes its buffer in some dimension d (*d, the same
 * for every access: -1 before the first) by n's iterator + c, 0 <= c < step,
 * and in every dimension before d by iterators of enclosing loops only. */
static bool row_access(const LNode *n, const LAccess *acc, int rank, const bool *inner, int *d) {
  int e = n->it, k = -1;
  for (int q = 0; q < rank && k < 0; q++) {
    const LAff *a = &acc->idx[q];
    for (int t = 0; t < a->n; t++)
      if (a->coef[t] && (a->it[t] == e || inner[a->it[t]]))
        k = q;
  }
  if (k < 0 || (*d >= 0 && k != *d))
    return false;
  const LAff *a = &acc->idx[k];
  for (int t = 0; t < a->n; t++)
    if (a->coef[t] && !(a->it[t] == e && a->coef[t] == 1))
      return false;
  *d = k;
  return a->c >= 0 && a->c < n->step;
}

static bool rows_expr(const LProgram *lp, const LExpr *e, const LNode *n, int buf, const bool *inner, int *d) {
  if (!e)
    return true;
  if (e->kind == LE_LOAD && e->acc.buf == buf && !row_access(n, &e->acc, lp->bufs[buf].rank, inner, d))
    return false;
  return rows_expr(lp, e->a, n, buf, inner, d) && rows_expr(lp, e->b, n, buf, inner, d);
}

/* Whether every access to buf below m (in the body of n) is a read by rows of n. */
static bool rows_node(const LProgram *lp, const LNode *m, const LNode *n, int buf, const bool *inner, int *d) {
  if (m->kind == LN_STMT)
    return m->lhs.buf != buf && rows_expr(lp, m->rhs, n, buf, inner, d);
  for (int i = 0; i < m->nkids; i++)
    if (!rows_node(lp, m->kids[i], n, buf, inner, d))
      return false;
  return true;
}

/* The first load of buf below n, or NULL. */
static const LAccess *load_expr(const LExpr *e, int buf) {
  if (!e)
    return NULL;
  if (e->kind == LE_LOAD && e->acc.buf == buf)
    return &e->acc;
  const LAccess *a = load_expr(e->a, buf);
  return a ? a : load_expr(e->b, buf);
}

static const LAccess *load_below(const LNode *n, int buf) {
  if (n->kind == LN_STMT)
    return load_expr(n->rhs, buf);
  for (int i = 0; i < n->nkids; i++) {
    const LAccess *a = load_below(n->kids[i], buf);
    if (a)
      return a;
  }
  return NULL;
}

/* R-CG-27: the dimension by whose rows the block loop n of dot products (its
 * register block's last extent is 1) reads parameter i, s rows of at most two
 * pages in all, or -1. */
static int rows_dim(const LProgram *lp, const LNode *n, int i) {
  const LBuf *x = &lp->bufs[i];
  if (n->kind != LN_LOOP || n->step < 2 || n->nubx || !lp_aff_is_const(&n->lb) || !lp_aff_is_const(&n->ub) ||
      x->param < 0)
    return -1;
  bool dots = false;
  for (int k = 0; k < n->nlocals; k++) {
    const LBuf *r = &lp->bufs[n->locals[k]];
    dots |= r->stageof < 0 && r->rank > 0 && r->dims[r->rank - 1] == 1;
  }
  if (!dots)
    return -1;
  bool *inner = xcalloc((size_t)lp->nits + 1, sizeof *inner);
  inner_iters(n, inner);
  int d = -1;
  bool ok = rows_node(lp, n, n, i, inner, &d) && d >= 0 && n->step * x->stride[d] * (lp->f32 ? 4 : 8) <= 8192 &&
            load_below(n, i);
  free(inner);
  return ok ? d : -1;
}

/* Whether a loop at or below n prefetches the rows of parameter i (R-CG-27). */
static bool rows_below(const LProgram *lp, const LNode *n, int i) {
  if (n->kind != LN_LOOP)
    return false;
  if (rows_dim(lp, n, i) >= 0)
    return true;
  for (int k = 0; k < n->nkids; k++)
    if (rows_below(lp, n->kids[k], i))
      return true;
  return false;
}

/* R-CG-27: the block loop n of dot products prefetches the rows that the block
 * two iterations ahead reads; after the last block they are those of the next
 * iteration of the loops outside (a batch), as long as they lie in X. */
static void prefetch_rows(const LProgram *lp, const LNode *n, int ind, bool acsl, Buf *b) {
  int64_t line = 64 / (lp->f32 ? 4 : 8);
  for (int i = 0; i < lp->nbufs; i++) {
    const LBuf *x = &lp->bufs[i];
    int d = rows_dim(lp, n, i);
    if (d < 0)
      continue;
    const LAccess *first = load_below(n, i);
    LAff *idx = xcalloc((size_t)x->rank, sizeof *idx);   /* index e + 2s in d, 0 after it */
    int one = n->it;
    int64_t coef1 = 1;
    for (int q = 0; q < x->rank; q++)
      idx[q] = q < d ? first->idx[q]
                     : (LAff){q == d ? 2 * n->step : 0, q == d, q == d ? &one : NULL, q == d ? &coef1 : NULL};
    LAccess acc = {i, idx};
    buf_printf(b, "%s%*s/* prefetch the rows of the block after next (R-CG-27) */\n", acsl ? "#ifndef __FRAMAC__\n" : "",
               ind, "");
    buf_printf(b, "%*sfor (long long teil_pf = 0; teil_pf < %lld && ", ind, "", (long long)(n->step * x->stride[d]));
    c_offset(lp, &acc, b);
    buf_printf(b, " + teil_pf < %lld; teil_pf += %lld)\n%*s__builtin_prefetch(&%s[", (long long)x->count,
               (long long)line, ind + 2, "", x->cname);
    c_offset(lp, &acc, b);
    buf_printf(b, " + teil_pf]);\n%s", acsl ? "#endif\n" : "");
    free(idx);
  }
}

/* R-CG-28: the loop below n whose iterator is v, or NULL. */
static const LNode *loop_below(const LNode *n, int v) {
  for (int i = 0; i < n->nkids; i++) {
    const LNode *k = n->kids[i];
    if (k->kind != LN_LOOP)
      continue;
    const LNode *s = k->it == v ? k : loop_below(k, v);
    if (s)
      return s;
  }
  return NULL;
}

/* R-CG-28: whether a is `coef·it + c` for at most one iterator it (*it, -1 for
 * none). */
static bool aff_one(const LAff *a, int *it, int64_t *coef, int64_t *c) {
  *it = -1;
  *coef = 0;
  *c = a->c;
  for (int t = 0; t < a->n; t++)
    if (a->coef[t]) {
      if (*it >= 0)
        return false;
      *it = a->it[t];
      *coef = a->coef[t];
    }
  return true;
}

/* R-CG-28: the loads of a vector operand below the sum loop k of column
 * blocks jt: the first one met, and its last index's start jt + c and width w. */
typedef struct PanelLoads {
  const LNode *k;
  int buf, rank, jt;
  const bool *inner;                                /* the iterators of the loops below k */
  const LAccess *first;
  int64_t c, w;
} PanelLoads;

/* Whether acc, a load below pl->k, has the first load's other indices (free of
 * jt and of k's inner iterators) and a last index v + c over a loop of v
 * [jt + c0, jt + c0 + w) of step 1, c + c0 and w the first load's. */
static bool panel_load(PanelLoads *pl, const LAccess *acc) {
  int v, w;
  int64_t coef, c, c0, cw;
  if (!aff_one(&acc->idx[pl->rank - 1], &v, &coef, &c) || v < 0 || coef != 1)
    return false;
  const LNode *l = loop_below(pl->k, v);
  if (!l || l->step != 1 || l->nubx || !aff_one(&l->lb, &w, &coef, &c0) || w != pl->jt || coef != 1 ||
      !aff_one(&l->ub, &w, &coef, &cw) || w != pl->jt || coef != 1 || cw <= c0)
    return false;
  for (int q = 0; q + 1 < pl->rank; q++) {
    const LAff *a = &acc->idx[q];
    for (int t = 0; t < a->n; t++)
      if (a->coef[t] && (a->it[t] == pl->jt || pl->inner[a->it[t]]))
        return false;
    if (pl->first && !lp_aff_equal(a, &pl->first->idx[q]))
      return false;
  }
  if (!pl->first) {
    pl->first = acc;
    pl->c = c + c0;
    pl->w = cw - c0;
  }
  return pl->c == c + c0 && pl->w == cw - c0;
}

static bool panel_loads_expr(PanelLoads *pl, const LExpr *e) {
  if (!e)
    return true;
  if (e->kind == LE_LOAD && e->acc.buf == pl->buf && !panel_load(pl, &e->acc))
    return false;
  return panel_loads_expr(pl, e->a) && panel_loads_expr(pl, e->b);
}

static bool panel_loads(PanelLoads *pl, const LNode *m) {
  if (m->kind == LN_STMT)
    return m->lhs.buf != pl->buf && panel_loads_expr(pl, m->rhs);
  for (int i = 0; i < m->nkids; i++)
    if (!panel_loads(pl, m->kids[i]))
      return false;
  return true;
}

/* R-CG-28: whether buf is a vector operand of the sum loop n (its parent i,
 * i's parent j); fills *pl. */
static bool panel_operand(const LProgram *lp, const LNode *n, const LNode *i, const LNode *j, int buf,
                          PanelLoads *pl) {
  const LBuf *x = &lp->bufs[buf];
  if (x->param < 0 || x->kind != LB_PARAM_IN || x->rank < 2 ||
      (double)x->count * (lp->f32 ? 4 : 8) <= (double)(lp_l2_bytes() / 2))
    return false;
  for (int k = 0; k < i->nkids; k++)
    if (i->kids[k] != n && lp_reads(i->kids[k], buf))
      return false;
  bool *inner = xcalloc((size_t)lp->nits + 1, sizeof *inner);
  inner_iters(n, inner);
  *pl = (PanelLoads){n, buf, x->rank, j->it, inner, NULL, 0, 0};
  bool ok = panel_loads(pl, n) && pl->first && pl->w <= j->step;
  free(inner);
  return ok;
}

/* R-CG-28: loop n's iterator minus its lower bound. */
static void c_iter_from(const LProgram *lp, const LNode *n, Buf *b) {
  if (lp_aff_is_const(&n->lb) && n->lb.c == 0) {
    buf_printf(b, "%s", lp->its[n->it].name);
    return;
  }
  buf_printf(b, "(%s - (", lp->its[n->it].name);
  lp_print_aff(lp, &n->lb, b);
  buf_printf(b, "))");
}

/* R-CG-28: at the top of the sum loop n's body, the row of each vector operand
 * that the next column block reads at this step of the sum, one row block in
 * T_I issuing it. */
static void prefetch_panel(const LProgram *lp, const LNode *n, int ind, bool acsl, Buf *b) {
  LNode *path[256];
  int depth = 0;
  if (n->kind != LN_LOOP || !(n->flags & LF_REDUCTION) || !lp_find_path(lp, n, path, &depth) || depth < 2)
    return;
  const LNode *i = path[depth - 1], *j = path[depth - 2];
  bool block = false;
  for (int k = 0; k < i->nlocals; k++) {
    const LBuf *r = &lp->bufs[i->locals[k]];
    block |= r->stageof < 0 && r->rank >= 2 && r->dims[r->rank - 1] > 1;
  }
  int64_t span;
  if (!block || i->nubx || !lp_aff_const_diff(&i->ub, &i->lb, &span) || j->nubx || j->step < 2 ||
      lp_bounds_use(i, j->it) || lp_bounds_use(n, j->it))
    return;
  int64_t ti = (span + i->step - 1) / i->step;
  if (ti < 2)
    return;
  int64_t line = 64 / (lp->f32 ? 4 : 8);
  bool open = false;
  for (int q = 0; q < lp->nbufs; q++) {
    PanelLoads pl;
    if (!panel_operand(lp, n, i, j, q, &pl))
      continue;
    const LBuf *x = &lp->bufs[q];
    if (!open) {
      buf_printf(b, "%s%*sif (", acsl ? "#ifndef __FRAMAC__\n" : "", ind, "");
      c_iter_from(lp, n, b);
      buf_printf(b, " %% %lld == ", (long long)ti);
      c_iter_from(lp, i, b);
      buf_printf(b, " / %lld && %s + %lld < ", (long long)i->step, lp->its[j->it].name, (long long)j->step);
      lp_print_aff(lp, &j->ub, b);
      buf_printf(b, ") { /* prefetch the next column block's rows (R-CG-28) */\n");
      open = true;
    }
    LAff *idx = xcalloc((size_t)x->rank, sizeof *idx);
    int one = j->it;
    int64_t coef1 = 1, w = pl.w;
    for (int d = 0; d + 1 < x->rank; d++)
      idx[d] = pl.first->idx[d];
    idx[x->rank - 1] = (LAff){pl.c + j->step, 1, &one, &coef1};
    LAccess acc = {q, idx};
    buf_printf(b, "%*sfor (long long teil_pf = 0; teil_pf < %lld; teil_pf += %lld)\n%*s__builtin_prefetch(&%s[",
               ind + 2, "", (long long)w, (long long)line, ind + 4, "", x->cname);
    c_offset(lp, &acc, b);
    buf_printf(b, " + teil_pf]);\n%*s__builtin_prefetch(&%s[", ind + 2, "", x->cname);
    c_offset(lp, &acc, b);
    buf_printf(b, " + %lld]);\n", (long long)(w - 1));
    free(idx);
  }
  if (open)
    buf_printf(b, "%*s}\n%s", ind, "", acsl ? "#endif\n" : "");
}

/* R-CG-23.1: whether e loads one of loop i's register blocks. */
static bool reads_block(const LProgram *lp, const LNode *i, const LExpr *e) {
  if (!e)
    return false;
  if (e->kind == LE_LOAD && lp->bufs[e->acc.buf].rblock)
    for (int k = 0; k < i->nlocals; k++)
      if (e->acc.buf == i->locals[k])
        return true;
  return reads_block(lp, i, e->a) || reads_block(lp, i, e->b);
}

/* R-CG-23.1: a fused operand's access below the row-block loop i, and the
 * access of the next block's row q = k - lb_K (k: the sum loop) at the column
 * loop's lower bound, built in idx (its two rebuilt indices keep their terms in
 * rt, rc, vt, vc); *w: the column loop's trip. inner: the iterators of i and below. */
typedef struct Fused {
  LAff *idx;                                        /* the buffer's rank */
  int rt[2], vt[1];
  int64_t rc[2], vc[1], w;
} Fused;

static bool fused_access(const LProgram *lp, const LNode *i, const LNode *k, const LAccess *acc, const bool *inner,
                         Fused *f) {
  const LBuf *x = &lp->bufs[acc->buf];
  int last = x->rank - 1, v, r = -1, it, d = -1;
  int64_t coef, cv, cr = 0, c0, c1 = 0, t;
  if (x->param < 0 || x->rank < 2 ||
      (double)x->count * (lp->f32 ? 4 : 8) <= (double)(lp_l2_bytes() / 2) ||
      !aff_one(&acc->idx[last], &v, &coef, &cv) || v < 0 || coef != 1)
    return false;
  const LNode *vl = loop_below(i, v);
  if (!vl || vl->step != 1 || vl->nubx || !lp_aff_const_diff(&vl->ub, &vl->lb, &t) || t < 1 ||
      !aff_one(&vl->lb, &it, &coef, &c0) || (it >= 0 && (coef != 1 || inner[it])))
    return false;
  f->w = t;
  f->vt[0] = it;
  f->vc[0] = 1;
  f->idx[last] = (LAff){c0 + cv, it >= 0, f->vt, f->vc};
  for (int q = 0; q < last; q++) {
    const LAff *a = &acc->idx[q];
    int u;
    int64_t cu, uc;
    const LNode *rl;
    if (d < 0 && aff_one(a, &u, &uc, &cu) && u >= 0 && uc == 1 && (rl = loop_below(i, u)) && rl->step == 1 &&
        !rl->nubx && lp_aff_const_diff(&rl->ub, &rl->lb, &t) && t == i->step && aff_one(&rl->lb, &it, &coef, &c1) &&
        it == i->it && coef == 1) {
      d = q;
      r = u;
      cr = cu;
      continue;
    }
    for (int e = 0; e < a->n; e++)
      if (a->coef[e] && inner[a->it[e]])
        return false;
    f->idx[q] = *a;
  }
  if (d < 0 || r < 0)
    return false;
  f->rt[0] = i->it;                                 /* it + c1 + MR + c' + (k - lb_K) */
  f->rt[1] = k->it;
  f->rc[0] = f->rc[1] = 1;
  f->idx[d] = (LAff){c1 + i->step + cr - k->lb.c, 2, f->rt, f->rc};
  return true;
}

/* R-CG-23.1: the prefetch of one fused operand's next row (write: its target). */
static void fused_prefetch(const LProgram *lp, const LAccess *acc, const Fused *f, bool write, int ind, Buf *b) {
  int64_t line = 64 / (lp->f32 ? 4 : 8);
  LAccess pa = {acc->buf, (LAff *)f->idx};
  const char *x = lp->bufs[acc->buf].cname, *w = write ? ", 1" : "";
  buf_printf(b, "%*sfor (long long teil_pf = 0; teil_pf < %lld; teil_pf += %lld)\n%*s__builtin_prefetch(&%s[", ind,
             "", (long long)f->w, (long long)line, ind + 2, "", x);
  c_offset(lp, &pa, b);
  buf_printf(b, " + teil_pf]%s);\n%*s__builtin_prefetch(&%s[", w, ind, "", x);
  c_offset(lp, &pa, b);
  buf_printf(b, " + %lld]%s);\n", (long long)(f->w - 1), w);
}

typedef struct FusedCtx {
  const LProgram *lp;
  LNode *const *path;                               /* the loops around k */
  int depth;
  const LNode *i, *k;
  const bool *inner;
  bool *done;                                       /* per buffer: prefetched already */
  bool open, acsl;
  int ind;
  Buf *b;
} FusedCtx;

static void fused_one(FusedCtx *c, const LAccess *acc, bool write) {
  Fused f;
  bool wr;
  if (c->done[acc->buf])
    return;
  for (int q = 0; q < c->depth; q++)               /* the next element's slice comes already (R-CG-24) */
    if (element_loop(c->lp, c->path[q]) && prefetched(c->lp, c->path[q], acc->buf, &wr))
      return;
  f.idx = xcalloc((size_t)c->lp->bufs[acc->buf].rank, sizeof *f.idx);
  if (!fused_access(c->lp, c->i, c->k, acc, c->inner, &f)) {
    free(f.idx);
    return;
  }
  c->done[acc->buf] = true;
  if (!c->open) {
    buf_printf(c->b, "%s%*sif (", c->acsl ? "#ifndef __FRAMAC__\n" : "", c->ind, "");
    c_iter_from(c->lp, c->k, c->b);
    buf_printf(c->b, " < %lld && %s + %lld < ", (long long)c->i->step, c->lp->its[c->i->it].name,
               (long long)c->i->step);
    lp_print_aff(c->lp, &c->i->ub, c->b);
    buf_printf(c->b, ") { /* prefetch the next row block's fused operands (R-CG-23.1) */\n");
    c->open = true;
  }
  fused_prefetch(c->lp, acc, &f, write, c->ind + 2, c->b);
  free(f.idx);
}

static void fused_expr(FusedCtx *c, const LExpr *e) {
  if (!e)
    return;
  if (e->kind == LE_LOAD)
    fused_one(c, &e->acc, false);
  fused_expr(c, e->a);
  fused_expr(c, e->b);
}

/* R-CG-23.1: whether e loads a fused operand. */
static bool has_fused(FusedCtx *c, const LExpr *e) {
  if (!e)
    return false;
  if (e->kind == LE_LOAD && !c->lp->bufs[e->acc.buf].rblock) {
    Fused f;
    f.idx = xcalloc((size_t)c->lp->bufs[e->acc.buf].rank, sizeof *f.idx);
    bool ok = fused_access(c->lp, c->i, c->k, &e->acc, c->inner, &f);
    free(f.idx);
    if (ok)
      return true;
  }
  return has_fused(c, e->a) || has_fused(c, e->b);
}

/* R-CG-23.1: the statements below m that read the block and a fused operand
 * (element-wise work fused into the block's store, R-CG-23). */
static void fused_node(FusedCtx *c, const LNode *m) {
  if (m->kind == LN_STMT) {
    if (reads_block(c->lp, c->i, m->rhs) && has_fused(c, m->rhs)) {
      fused_expr(c, m->rhs);
      fused_one(c, &m->lhs, true);
    }
    return;
  }
  for (int q = 0; q < m->nkids; q++)
    fused_node(c, m->kids[q]);
}

/* R-CG-23.1: at the top of the sum loop n's body, in its first MR iterations,
 * the rows of the fused operands that the next row block's store reads or writes. */
static void prefetch_fused(const LProgram *lp, const LNode *n, int ind, bool acsl, Buf *b) {
  LNode *path[256];
  int depth = 0;
  if (lp->prefetch == 0 || (lp->prefetch == 1 && lp_param_bytes(lp) <= lp_llc_share_bytes()))   /* R-CG-24.5 */
    return;
  if (n->kind != LN_LOOP || !(n->flags & LF_REDUCTION) || !lp_aff_is_const(&n->lb) ||
      !lp_find_path(lp, n, path, &depth) || depth < 1)
    return;
  const LNode *i = path[depth - 1];
  bool block = false;
  for (int q = 0; q < i->nlocals; q++)
    block |= lp->bufs[i->locals[q]].rblock;
  if (!block || i->step < 2 || i->nubx)
    return;
  bool *inner = xcalloc((size_t)lp->nits + 1, sizeof *inner), *done = xcalloc((size_t)lp->nbufs + 1, sizeof *done);
  inner_iters(i, inner);
  inner[i->it] = true;
  FusedCtx c = {lp, path, depth, i, n, inner, done, false, acsl, ind, b};
  for (int q = 0; q < i->nkids; q++)
    if (i->kids[q] != n)
      fused_node(&c, i->kids[q]);
  if (c.open)
    buf_printf(b, "%*s}\n%s", ind, "", acsl ? "#endif\n" : "");
  free(inner);
  free(done);
}

static const LNode *full_blocks;                    /* R-CG-19.5: a worksharing loop of c_body's region */

/* The loop's annotation, pragma, header and local arrays (R-SCH-21). */
static void c_loop_open(const LProgram *lp, const LNode *n, int depth, int omp, bool acsl, Buf *b) {
  int ind = 2 * depth;
  if (acsl)                                         /* spec/acsl.md */
    acsl_loop(lp, n, ind, b);
  bool par = omp == OMP_ON && (n->flags & LF_PARALLEL), simd = omp != OMP_OFF && (n->flags & LF_SIMD);
  if (par || simd) {                                /* R-CG-11; R-CG-26: the region is open */
    bool full = n == full_blocks;
    bool opens = par && !lp_streams(n) && !(n->flags & LF_WORKSHARE) && !full;
    buf_printf(b, "%s%*s#pragma omp %s%s%s%s\n%s", acsl ? "#ifndef __FRAMAC__\n" : "", ind, "",
               par ? (opens ? "parallel for" : "for") : "", par && simd ? " " : "", simd ? "simd" : "",
               par && ((n->flags & LF_NOWAIT) || full) ? " schedule(static) nowait" : "", acsl ? "#endif\n" : "");
  }
  const char *v = lp->its[n->it].name;
  buf_printf(b, "%*sfor (long long %s = ", ind, "", v);
  lp_print_aff(lp, &n->lb, b);
  buf_printf(b, "; %s < ", v);
  for (int k = 0; k < n->nubx; k++)                 /* R-SCH-15: min(ub, ubx...) */
    buf_printf(b, "teil_min(");
  lp_print_aff(lp, &n->ub, b);
  for (int k = 0; k < n->nubx; k++) {
    buf_printf(b, ", ");
    lp_print_aff(lp, &n->ubx[k], b);
    buf_printf(b, ")");
  }
  if (n->step == 1)
    buf_printf(b, "; %s++) {", v);
  else
    buf_printf(b, "; %s += %lld) {", v, (long long)n->step);
  if (n->flags & (LF_REDUCTION | LF_PADDED)) {
    bool both = (n->flags & LF_REDUCTION) && (n->flags & LF_PADDED);
    buf_printf(b, " /* %s%s%s */", (n->flags & LF_REDUCTION) ? "reduction" : "", both ? ", " : "",
               (n->flags & LF_PADDED) ? "padded extent (R-CG-10)" : "");
  }
  buf_printf(b, "\n");
  for (int i = 0; i < n->nlocals; i++) {            /* R-SCH-21: one per iteration */
    const LBuf *x = &lp->bufs[n->locals[i]];
    buf_printf(b, "%*s%s %s[%lld]; /* ", ind + 2, "", real_t(lp), x->cname, (long long)x->count);
    dims_str(x->dims, x->rank, b);
    buf_printf(b, " %s */\n", x->why ? x->why : "local");
  }
}

static void reads_writes_expr(const LExpr *e, bool *r) {
  if (!e)
    return;
  if (e->kind == LE_LOAD)
    r[e->acc.buf] = true;
  reads_writes_expr(e->a, r);
  reads_writes_expr(e->b, r);
}

/* The buffers the node reads (r) and stores (w); r = w marks both in one array. */
static void reads_writes(const LNode *n, bool *r, bool *w) {
  if (n->kind == LN_STMT) {
    w[n->lhs.buf] = true;
    reads_writes_expr(n->rhs, r);
    return;
  }
  for (int i = 0; i < n->nkids; i++)
    reads_writes(n->kids[i], r, w);
}

/* R-CG-21: in the body of a loop that declares local arrays, a restrict alias
 * X_ro of each non-parameter buffer X the body reads and never stores, unless
 * one is in scope (rd[X] set). Returns how many were declared; their buffer
 * indices go to mine[], to be cleared from rd[] when the loop closes. */
static int ro_open(const LProgram *lp, const LNode *n, int ind, const char **rd, int *mine, Buf *b) {
  if (!rd || n->nlocals == 0)
    return 0;
  bool *r = xcalloc((size_t)lp->nbufs * 2, sizeof *r), *w = r + lp->nbufs;
  reads_writes(n, r, w);
  int k = 0;
  for (int i = 0; i < lp->nbufs; i++) {
    const LBuf *x = &lp->bufs[i];
    if (!r[i] || w[i] || rd[i] || !x->roname)
      continue;
    buf_printf(b, "%*sconst %s *restrict %s = %s;\n", ind, "", real_t(lp), x->roname, x->cname);
    rd[i] = x->roname;
    mine[k++] = i;
  }
  free(r);
  return k;
}

/* R-CG-21.1: before the child kids[from] of a loop that declares local arrays,
 * a C block that declares the restrict alias X_ro of each packed copy X that
 * kids[from ..] read and never store (the copy per iteration before them stores
 * it, R-SCH-24.1), unless one is in scope. Returns how many were declared (the
 * block is opened only then); their buffer indices go to mine[]. */
static int ro_after(const LProgram *lp, const LNode *n, int from, int ind, const char **rd, int *mine, Buf *b) {
  if (!rd || n->nlocals == 0)
    return 0;
  bool *r = xcalloc((size_t)lp->nbufs * 2, sizeof *r), *w = r + lp->nbufs;
  for (int i = from; i < n->nkids; i++)
    reads_writes(n->kids[i], r, w);
  int k = 0;
  for (int i = 0; i < lp->nbufs; i++) {
    const LBuf *x = &lp->bufs[i];
    if (!r[i] || w[i] || rd[i] || !x->roname || x->packof < 0)
      continue;
    if (!k)
      buf_printf(b, "%*s{ /* read-only from here on (R-CG-21.1) */\n", ind, "");
    buf_printf(b, "%*sconst %s *restrict %s = %s;\n", ind + 2, "", real_t(lp), x->roname, x->cname);
    rd[i] = x->roname;
    mine[k++] = i;
  }
  free(r);
  return k;
}

/* R-CG-26: the run loop n of a streaming copy-out, and the loops below it, as
 * one call: their iterators at their lower bounds give the run's first element. */
static void c_stream(const LProgram *lp, const LNode *n, int ind, Buf *b) {
  const LNode *s = n;
  int64_t len = 1;
  buf_printf(b, "%*s{ /* copy-out with streaming stores (R-CG-26) */\n", ind, "");
  while (s->kind == LN_LOOP) {
    buf_printf(b, "%*s  const long long %s = ", ind, "", lp->its[s->it].name);
    lp_print_aff(lp, &s->lb, b);
    buf_printf(b, ";\n");
    len *= (s->ub.c - s->lb.c + s->step - 1) / s->step;
    s = s->kids[0];
  }
  buf_printf(b, "%*s  teil_stream(%s&", ind, "", (n->flags & LF_ALIGNED) ? "__builtin_assume_aligned(" : "");
  c_access(lp, &s->lhs, NULL, b);
  buf_printf(b, "%s, &", (n->flags & LF_ALIGNED) ? ", 64)" : "");
  c_access(lp, &s->rhs->acc, NULL, b);
  buf_printf(b, ", %lld);\n%*s}\n", (long long)len, ind, "");
}

/* R-SCH-27: the statement below the copy nest n of a group's slice. */
static const LNode *lanecopy_stmt(const LNode *n) {
  while (n->kind == LN_LOOP)
    n = n->kids[0];
  return n;
}

/* R-SCH-27 (c.1): the copy in of a product, L = X * L or L * X. */
static bool lanecopy_mul(const LNode *n) { return n->rhs->kind == LE_MUL; }

/* R-SCH-27: the copy nest n as one call of teil_lanes_in, teil_lanes_in_mul
 * (c.1) or teil_lanes_out: the parameter's group g starts at V*g times its
 * element's stride; the lanes that hold elements are V, or E - V*g in a
 * last, partial group. A streamed copy-out (R-CG-26.1) is teil_lanes_out_nt. */
static void c_lanecopy(const LProgram *lp, const LNode *n, int ind, Buf *b) {
  const LNode *s = lanecopy_stmt(n);
  bool in = lp->bufs[s->lhs.buf].kind == LB_LOCAL, mul = lanecopy_mul(s);
  const LExpr *pl = !mul ? s->rhs : lp->bufs[s->rhs->a->acc.buf].kind == LB_LOCAL ? s->rhs->b : s->rhs->a;
  const LAccess *pa = in ? &pl->acc : &s->lhs, *la = in ? &s->lhs : &s->rhs->acc;
  const LBuf *x = &lp->bufs[pa->buf];
  const LAff *f = &pa->idx[0];
  int k = f->coef[0] > 1 ? 0 : 1;                   /* V*g + w: g has the coefficient V */
  int64_t V = f->coef[k], E = x->dims[0], G = (E + V - 1) / V;
  const char *g = lp->its[f->it[k]].name;
  Buf lanes = {0};
  if (E % V)
    buf_printf(&lanes, "%s < %lld ? %lld : %lld", g, (long long)(G - 1), (long long)V, (long long)(E - V * (G - 1)));
  else
    buf_printf(&lanes, "%lld", (long long)V);
  buf_printf(b, "%*steil_lanes_%s(", ind, "", mul ? "in_mul" : in ? "in" : (n->flags & LF_STREAM) ? "out_nt" : "out");
  if (in)
    buf_printf(b, "%s, %s + %lld*%s, %s);\n", lp->bufs[la->buf].cname, x->cname, (long long)(V * x->stride[0]), g,
               lanes.s);
  else
    buf_printf(b, "%s + %lld*%s, %s, %s);\n", x->cname, (long long)(V * x->stride[0]), g, lp->bufs[la->buf].cname,
               lanes.s);
  buf_free(&lanes);
}

/* Whether n holds a copy nest of R-SCH-27 (*mul: one of a product, c.1;
 * *nt: a streamed copy-out, R-CG-26.1). */
static bool has_lanecopy(const LNode *n, bool *mul, bool *nt) {
  if (n->kind != LN_LOOP)
    return false;
  if (n->flags & LF_LANECOPY) {
    *mul |= lanecopy_mul(lanecopy_stmt(n));
    *nt |= (n->flags & LF_STREAM) != 0;
    return true;
  }
  bool any = false;
  for (int i = 0; i < n->nkids; i++)
    any |= has_lanecopy(n->kids[i], mul, nt);
  return any;
}

/* Whether a run of R-CG-26 (one teil_stream call) is below n. */
static bool has_stream_run(const LNode *n) {
  if (n->kind != LN_LOOP)
    return false;
  if (n->flags & LF_STREAM)
    return !(n->flags & LF_LANECOPY);
  for (int i = 0; i < n->nkids; i++)
    if (has_stream_run(n->kids[i]))
      return true;
  return false;
}

/* R-CG-26.1: teil_lanes_out_nt, teil_lanes_out that stores a whole group
 * (m = 8 doubles' slices of N, N >= 8, with AVX-512; dst on a line boundary)
 * in whole lines with non-temporal stores. After the 8 x 8 transpose, row j
 * holds element j's values x .. x + 7 for dst + j*N + x, which is s_j =
 * (j*N) mod 8 elements past a line boundary: the line that starts there
 * takes the last s_j values of the row before and the first 8 - s_j of this
 * one (valignq). The pieces left per element j, its last s_j + (N mod 8)
 * values and the first 8 - s_(j+1) of element j + 1 (held from x = 0), are
 * whole lines that start at dst + j*N + N8 - s_j, copied through a small
 * aligned array. Otherwise (and under Frama-C) it is teil_lanes_out. */
static void lanes_out_nt(const LProgram *lp, bool acsl, int64_t N, const char *mn1, const char *vn1, Buf *b) {
  int64_t N8 = N / 8 * 8;
  const char *rt = real_t(lp);
  if (acsl)
    buf_printf(b, "/*@ requires 1 <= m <= %d;\n"
                  "    requires \\valid(dst + (0 .. %s));\n"
                  "    requires \\valid_read(src + (0 .. %s));\n"
                  "    requires \\separated(dst + (0 .. %s), src + (0 .. %s));\n"
                  "    assigns dst[0 .. %s]; */\n",
               lp->f32 ? 16 : 8, mn1, vn1, mn1, vn1, mn1);
  buf_printf(b, "static void teil_lanes_out_nt(%s *restrict dst, const %s *restrict src, long long m)\n{\n", rt, rt);
  if (!lp->f32 && N8 >= 8) {
    buf_printf(b, "#ifdef TEIL_LANES_AVX512\n"
                  "  if (m == 8) {\n"
                  "    static const int s[9] = {");
    for (int j = 0; j <= 8; j++)
      buf_printf(b, "%s%d", j ? ", " : "", (int)(j * N % 8));
    buf_printf(b, "};\n"
                  "    __m512d c[8], h[8];\n"
                  "    for (int j = 0; j < 8; j++)\n"
                  "      c[j] = h[j] = _mm512_setzero_pd();\n"
                  "    for (long long x = 0; x < %lld; x += 8) {\n"
                  "      __m512d r[8];\n"
                  "      for (int j = 0; j < 8; j++)\n"
                  "        r[j] = _mm512_loadu_pd(src + (x + j)*8);\n"
                  "      teil_transpose8(r);\n",
               (long long)N8);
    for (int j = 0; j < 8; j++) {
      int s = (int)(j * N % 8);
      if (s == 0) {
        buf_printf(b, "      _mm512_stream_pd(dst + %lld + x, r[%d]);\n", (long long)(j * N), j);
        continue;
      }
      buf_printf(b, "      if (x == 0)\n        h[%d] = r[%d];\n      else\n"
                    "        _mm512_stream_pd(dst + %lld + x, _mm512_castsi512_pd(_mm512_alignr_epi64("
                    "_mm512_castpd_si512(r[%d]), _mm512_castpd_si512(c[%d]), %d)));\n"
                    "      c[%d] = r[%d];\n",
                 j, j, (long long)(j * N - s), j, j, 8 - s, j, j);
    }
    buf_printf(b, "    }\n"
                  "    for (int j = 0; j < 8; j++) {\n"
                  "      double t[24] __attribute__((aligned(64))), cj[8], hj[8];\n"
                  "      int k = 0;\n"
                  "      _mm512_storeu_pd(cj, c[j]);\n"
                  "      _mm512_storeu_pd(hj, h[j < 7 ? j + 1 : 7]);\n"
                  "      for (int i = 8 - s[j]; i < 8; i++)\n"
                  "        t[k++] = cj[i];\n"
                  "      for (long long x = %lld; x < %lld; x++)\n"
                  "        t[k++] = src[x*8 + j];\n"
                  "      for (int i = 0; s[j + 1] && i < 8 - s[j + 1]; i++)\n"
                  "        t[k++] = hj[i];\n"
                  "      for (int i = 0; i < k; i += 8)\n"
                  "        _mm512_stream_pd(dst + j*%lld + %lld - s[j] + i, _mm512_load_pd(t + i));\n"
                  "    }\n"
                  "    return;\n  }\n#endif\n",
               (long long)N8, (long long)N, (long long)N, (long long)N8);
  }
  buf_printf(b, "  teil_lanes_out(dst, src, m);\n}\n\n");
}

/* R-SCH-27, R-CG-29: an 8 x 8 transpose of doubles in registers (r[j][i] = r[i][j]). */
static void transpose8_helper(Buf *b) {
  buf_printf(b, "#ifdef TEIL_LANES_AVX512\n"
                  "static inline void teil_transpose8(__m512d r[8])\n{\n"
                  "  __m512d t[8], s[8];\n"
                  "  for (int i = 0; i < 4; i++) {\n"
                  "    t[2*i] = _mm512_unpacklo_pd(r[2*i], r[2*i + 1]);\n"
                  "    t[2*i + 1] = _mm512_unpackhi_pd(r[2*i], r[2*i + 1]);\n  }\n"
                  "  const __m512i i0 = _mm512_set_epi64(13, 12, 5, 4, 9, 8, 1, 0), i1 = _mm512_set_epi64(15, 14, 7, 6, 11, 10, 3, 2);\n"
                  "  for (int k = 0; k < 2; k++) {\n"
                  "    s[4*k] = _mm512_permutex2var_pd(t[4*k], i0, t[4*k + 2]);\n"
                  "    s[4*k + 1] = _mm512_permutex2var_pd(t[4*k + 1], i0, t[4*k + 3]);\n"
                  "    s[4*k + 2] = _mm512_permutex2var_pd(t[4*k], i1, t[4*k + 2]);\n"
                  "    s[4*k + 3] = _mm512_permutex2var_pd(t[4*k + 1], i1, t[4*k + 3]);\n  }\n"
                  "  const __m512i j0 = _mm512_set_epi64(11, 10, 9, 8, 3, 2, 1, 0), j1 = _mm512_set_epi64(15, 14, 13, 12, 7, 6, 5, 4);\n"
                  "  for (int k = 0; k < 4; k++) {\n"
                  "    r[k] = _mm512_permutex2var_pd(s[k], j0, s[k + 4]);\n"
                  "    r[k + 4] = _mm512_permutex2var_pd(s[k], j1, s[k + 4]);\n  }\n}\n#endif\n\n");
}

/* R-SCH-27: teil_lanes_in and teil_lanes_out transpose a group's slices of
 * m <= V elements (each N long) into a lane array and back, teil_lanes_in
 * setting the lanes from m on to 0; with AVX-512, doubles and m = 8 in
 * blocks of 8 x 8, otherwise element by element. With mul, also
 * teil_lanes_in_mul (c.1): teil_lanes_in that multiplies each value by the
 * one it overwrites; with nt, also teil_lanes_out_nt (R-CG-26.1). */
static void lanes_helpers(const LProgram *lp, bool acsl, bool mul, bool nt, Buf *b) {
  const char *rt = real_t(lp);
  int64_t V = lp->f32 ? 16 : 8, N = 0;
  for (int i = 0; i < lp->nbufs && !N; i++)
    if (lp->bufs[i].kind == LB_LOCAL && !lp->bufs[i].rblock && lp->bufs[i].why && strstr(lp->bufs[i].why, "R-SCH-27"))
      N = lp->bufs[i].count / V;
  bool x86 = !lp->f32;
  buf_printf(b, "/* R-SCH-27: a group's %lld elements of %lld values transposed into a lane array\n"
                " * (dst[x*%lld + w] = src[w*%lld + x]) and back. */\n",
             (long long)V, (long long)N, (long long)V, (long long)N);
  if (x86)
    transpose8_helper(b);
  char vn1[32], mn1[48], vs[24];                     /* V*N - 1, m*N - 1, V */
  snprintf(vn1, sizeof vn1, "%lld", (long long)(V * N - 1));
  snprintf(mn1, sizeof mn1, "m*%lld - 1", (long long)N);
  snprintf(vs, sizeof vs, "%lld", (long long)V);
  for (int h = 0; h < (mul ? 3 : 2); h++) {
    int dir = h == 1;
    const char *name = h == 2 ? "teil_lanes_in_mul" : dir ? "teil_lanes_out" : "teil_lanes_in";
    if (acsl)
      buf_printf(b, "/*@ requires 1 <= m <= %lld;\n"
                    "    requires \\valid(dst + (0 .. %s));\n"
                    "    requires \\valid_read(src + (0 .. %s));\n"
                    "    requires \\separated(dst + (0 .. %s), src + (0 .. %s));\n"
                    "    assigns dst[0 .. %s]; */\n",
                 (long long)V, dir ? mn1 : vn1, dir ? vn1 : mn1, dir ? mn1 : vn1,
                 dir ? vn1 : mn1, dir ? mn1 : vn1);
    buf_printf(b, "static void %s(%s *restrict dst, const %s *restrict src, long long m)\n{\n  long long x0 = 0;\n", name,
               rt, rt);
    char lane_ix[64], row_ix[32];                  /* src/dst index of row j of the 8 x 8 block */
    snprintf(lane_ix, sizeof lane_ix, "j*%lld + x", (long long)N);
    snprintf(row_ix, sizeof row_ix, "(x + j)*8");
    /* Where the blocks cover the whole slice the 8 x 8 path returns: gcc 12 warns
     * (-Waggressive-loop-optimizations) about the element loop after it when that
     * loop starts from x0 = N and the call's m is a constant other than 8. */
    char done[40];
    if (N % 8 == 0)
      snprintf(done, sizeof done, "return");
    else
      snprintf(done, sizeof done, "x0 = %lld", (long long)(N / 8 * 8));
    if (x86)
      buf_printf(b, "#ifdef TEIL_LANES_AVX512\n"
                    "  if (m == 8) {\n"
                    "    for (long long x = 0; x < %lld; x += 8) {\n"
                    "      __m512d r[8];\n"
                    "      for (int j = 0; j < 8; j++)\n"
                    "        r[j] = _mm512_loadu_pd(src + %s);\n"
                    "      teil_transpose8(r);\n"
                    "      for (int j = 0; j < 8; j++)\n"
                    "        _mm512_storeu_pd(dst + %s, %sr[j]%s);\n    }\n    %s;\n  }\n#endif\n",
                 (long long)(N / 8 * 8), dir ? row_ix : lane_ix, dir ? lane_ix : row_ix, h == 2 ? "_mm512_mul_pd(" : "",
                 h == 2 ? ", _mm512_loadu_pd(dst + (x + j)*8))" : "", done);
    if (acsl)
      buf_printf(b, "  /*@ loop invariant x0 <= x <= %lld;\n      loop assigns x, dst[0 .. %s];\n"
                    "      loop variant %lld - x; */\n",
                 (long long)N, dir ? mn1 : vn1, (long long)N);
    buf_printf(b, "  for (long long x = x0; x < %lld; x++) {\n", (long long)N);
    if (acsl)
      buf_printf(b, "    /*@ loop invariant 0 <= w <= %s;\n        loop assigns w, dst[0 .. %s];\n"
                    "        loop variant %s - w; */\n",
                 dir ? "m" : vs, dir ? mn1 : vn1, dir ? "m" : vs);
    buf_printf(b, "    for (long long w = 0; w < %s; w++)\n", dir ? "m" : vs);
    if (dir)
      buf_printf(b, "      dst[w*%lld + x] = src[x*%lld + w];\n  }\n}\n\n", (long long)N, (long long)V);
    else if (h == 2)
      buf_printf(b, "      dst[x*%lld + w] = w < m ? src[w*%lld + x] * dst[x*%lld + w] : 0;\n  }\n}\n\n", (long long)V,
                 (long long)N, (long long)V);
    else
      buf_printf(b, "      dst[x*%lld + w] = w < m ? src[w*%lld + x] : 0;\n  }\n}\n\n", (long long)V, (long long)N);
  }
  if (nt)
    lanes_out_nt(lp, acsl, N, mn1, vn1, b);
}

/* R-CG-11, R-SCH-25: this thread's copy of a private slice. */
static void private_ptr(const LProgram *lp, const LBuf *x, int ind, Buf *b) {
  size_t es = lp->f32 ? 4 : 8;
  buf_printf(b, "%*s%s *%s = __builtin_assume_aligned(work + %lld + %lld * (long long)teil_thread(), 64); /* ", ind, "",
             real_t(lp), x->cname, (long long)(x->offset / (int64_t)es), (long long)lp_copy_stride(lp, x));
  dims_str(x->dims, x->rank, b);
  buf_printf(b, " %s */\n", x->why);
}

/* R-CG-11: the parallel region of a loop with private slices (R-SCH-25), at
 * indentation ind, and the pointers to this thread's copies of those it uses;
 * a plain block in a site's serial copy (R-CG-11.2). */
static void region_open(const LProgram *lp, const LNode *n, int ind, bool acsl, int omp, Buf *b) {
  if (omp == OMP_ON)
    buf_printf(b, "%s%*s#pragma omp parallel num_threads(teil_threads())\n%s", acsl ? "#ifndef __FRAMAC__\n" : "",
               ind, "", acsl ? "#endif\n" : "");
  buf_printf(b, "%*s{\n", ind, "");
  bool *r = xcalloc((size_t)lp->nbufs * 2 + 1, sizeof *r), *w = r + lp->nbufs;
  reads_writes(n, r, w);
  for (int i = 0; i < lp->nbufs; i++)
    if ((r[i] || w[i]) && lp->bufs[i].priv) {
      private_ptr(lp, &lp->bufs[i], ind + 2, b);
      if (acsl)                                     /* R-ACSL-10: the children use their own */
        buf_printf(b, "%*s(void)%s;\n", ind + 2, "", lp->bufs[i].cname);
    }
  free(r);
}

/* R-CG-11.2: n opens a parallel region whose work is small enough that it runs
 * on one thread or on all as its first executions measure. */
static bool par_site(const LNode *n, int omp, bool acsl) {
  if (omp != OMP_ON || acsl || n->kind != LN_LOOP)
    return false;
  bool opens = (n->flags & LF_REGION) || ((n->flags & LF_PARALLEL) && (lp_streams(n) || !(n->flags & LF_WORKSHARE)));
  return opens && lp_par_work(n) < PARALLEL_SURE_WORK;
}

static int par_sites(const LNode *n, int omp, bool acsl) {
  int k = par_site(n, omp, acsl);
  for (int i = 0; n->kind == LN_LOOP && i < n->nkids; i++)
    k += par_sites(n->kids[i], omp, acsl);
  return k;
}

static int par_next;                                /* R-CG-11.2: the next site's number, in code order */

/* ------------------------------------------------- dot products (R-CG-29) */

/* A row-major offset with the one-iteration loops' iterators replaced by
 * their values: the constant c, the coefficient of the sum loop's iterator
 * r, and the other terms (iterators outside the sum loop). */
typedef struct {
  int64_t c, rc;
  LTerm *t;
  int nt;
} DotOff;

typedef struct {
  int64_t xs, ys, n;                              /* the function's constants */
} DotKind;

typedef struct {
  const LNode *s0;                                /* the first statement */
  const LAccess *x0, *y0;                         /* its row operand X and its shared operand Y */
  DotOff t0, x0o, y0o;
  int m;                                          /* rows, in groups of 8 */
  DotKind k;
} DotSite;

#define MAX_DOT_KINDS 16
#define MAX_DOT_ROWS 32
static DotKind dot_kinds[MAX_DOT_KINDS];
static int dot_nkinds;

static void dot_off(const LProgram *lp, const LAccess *acc, int jt, int64_t jv, int r, DotOff *o) {
  LTerm *t;
  int64_t c;
  int nt = lp_offset_terms(lp, acc, &t, &c), m = 0;
  o->rc = 0;
  for (int i = 0; i < nt; i++) {
    if (t[i].it == jt)
      c += t[i].coef * jv;
    else if (t[i].it == r)
      o->rc = t[i].coef;
    else
      t[m++] = t[i];
  }
  o->c = c;
  o->t = t;
  o->nt = m;
}

static bool dot_same_terms(const DotOff *a, const DotOff *b) {
  if (a->nt != b->nt || a->rc != b->rc)
    return false;
  for (int i = 0; i < a->nt; i++)
    if (a->t[i].it != b->t[i].it || a->t[i].coef != b->t[i].coef)
      return false;
  return true;
}

/* The statement of s_t (a statement, or a loop of one iteration at a
 * constant holding one), with that loop's iterator and value. */
static const LNode *dot_stmt(const LProgram *lp, const LNode *k, int *jt, int64_t *jv) {
  *jt = -1;
  *jv = 0;
  if (k->kind == LN_STMT)
    return k;
  int64_t d;
  if (k->nkids != 1 || k->kids[0]->kind != LN_STMT || k->step != 1 || k->nubx || k->nlocals ||
      (k->flags & (LF_PARALLEL | LF_STREAM | LF_LANECOPY | LF_REGION)) || !lp_aff_is_const(&k->lb) ||
      !lp_aff_const_diff(&k->ub, &k->lb, &d) || d != 1)
    return NULL;
  (void)lp;
  *jt = k->it;
  *jv = k->lb.c;
  return k->kids[0];
}

/* R-CG-29: whether the loop n is a block of m dot products (*ds). */
static bool dot_site(const LProgram *lp, const LNode *n, DotSite *ds) {
  int64_t N;
  int m = n->nkids;
  if (lp->f32 || n->kind != LN_LOOP || m < 8 || m > MAX_DOT_ROWS || m % 8 || n->step != 1 || n->nubx ||
      n->nlocals || (n->flags & (LF_SIMD | LF_PARALLEL | LF_STREAM | LF_LANECOPY | LF_REGION)) ||
      !lp_aff_const_diff(&n->ub, &n->lb, &N) || N < 8)
    return false;
  DotOff to[MAX_DOT_ROWS], ao[MAX_DOT_ROWS], bo[MAX_DOT_ROWS];
  const LNode *st[MAX_DOT_ROWS];
  int got = 0;
  bool ok = true;
  for (int t = 0; t < m && ok; t++) {
    int jt;
    int64_t jv;
    const LNode *s = st[t] = dot_stmt(lp, n->kids[t], &jt, &jv);
    if (!s || !s->accum || s->rhs->kind != LE_MUL || s->rhs->a->kind != LE_LOAD || s->rhs->b->kind != LE_LOAD) {
      ok = false;
      break;
    }
    const LBuf *T = &lp->bufs[s->lhs.buf];
    int xb = s->rhs->a->acc.buf, yb = s->rhs->b->acc.buf;
    if (T->kind != LB_LOCAL || !T->rblock || xb == s->lhs.buf || yb == s->lhs.buf ||
        (t && (s->lhs.buf != st[0]->lhs.buf || xb != st[0]->rhs->a->acc.buf || yb != st[0]->rhs->b->acc.buf))) {
      ok = false;
      break;
    }
    dot_off(lp, &s->lhs, jt, jv, n->it, &to[t]);
    dot_off(lp, &s->rhs->a->acc, jt, jv, n->it, &ao[t]);
    dot_off(lp, &s->rhs->b->acc, jt, jv, n->it, &bo[t]);
    got = t + 1;
  }
  /* the operand whose offset moves with t is X, the other Y */
  int which = -1;
  if (ok) {
    bool amoves = false, bmoves = false;
    for (int t = 1; t < m; t++) {
      amoves |= ao[t].c != ao[0].c;
      bmoves |= bo[t].c != bo[0].c;
    }
    which = amoves && !bmoves ? 0 : bmoves && !amoves ? 1 : -1;
    ok = which >= 0;
  }
  DotOff *xo = which == 0 ? ao : bo, *yo = which == 0 ? bo : ao;
  int64_t ts = 0, xs = 0;
  if (ok) {
    ts = to[1].c - to[0].c;
    xs = xo[1].c - xo[0].c;
    ok = ts == 1 && xs >= 1 && to[0].rc == 0 && xo[0].rc == 1 && yo[0].rc >= 0;
    for (int t = 1; t < m && ok; t++)
      ok = dot_same_terms(&to[t], &to[0]) && dot_same_terms(&xo[t], &xo[0]) && dot_same_terms(&yo[t], &yo[0]) &&
           to[t].c - to[0].c == t * ts && xo[t].c - xo[0].c == t * xs && yo[t].c == yo[0].c;
  }
  if (ok) {
    ds->s0 = st[0];
    ds->x0 = which == 0 ? &st[0]->rhs->a->acc : &st[0]->rhs->b->acc;
    ds->y0 = which == 0 ? &st[0]->rhs->b->acc : &st[0]->rhs->a->acc;
    ds->t0 = to[0];
    ds->x0o = xo[0];
    ds->y0o = yo[0];
    ds->m = m;
    ds->k = (DotKind){xs, yo[0].rc, N};
  }
  for (int t = ok ? 1 : 0; t < got; t++) {
    free(to[t].t);
    free(ao[t].t);
    free(bo[t].t);
  }
  return ok;
}

static void dot_site_free(DotSite *ds) {
  free(ds->t0.t);
  free(ds->x0o.t);
  free(ds->y0o.t);
}

static int dot_kind(const DotKind *k) {
  for (int i = 0; i < dot_nkinds; i++)
    if (!memcmp(&dot_kinds[i], k, sizeof *k))
      return i;
  return -1;
}

/* R-CG-29: registers the functions that the blocks of dot products below n
 * call; a block whose function would be the 17th stays loops. */
static void dot_collect(const LProgram *lp, const LNode *n) {
  if (n->kind != LN_LOOP)
    return;
  DotSite ds;
  if (dot_site(lp, n, &ds)) {
    if (dot_kind(&ds.k) < 0 && dot_nkinds < MAX_DOT_KINDS)
      dot_kinds[dot_nkinds++] = ds.k;
    dot_site_free(&ds);
    return;
  }
  for (int i = 0; i < n->nkids; i++)
    dot_collect(lp, n->kids[i]);
}

/* R-CG-29: teil_dot8_K for each registered (xs, ys, N). */
static void dot_helpers(bool acsl, Buf *b) {
  buf_printf(b, "/* R-CG-29: 8 dot products, t[i] += x[i*xs + k] * y[k*ys] for k = 0 .. n-1 in\n"
                " * order; with AVX-512 the whole groups of 8 values of k run with the 8 sums in\n"
                " * the lanes of a vector (a multiply, then an add, as the statements). Inlined:\n"
                " * a call per sum loop cost a tenth of mttkrp 1000 x 1 x 100 x 100's time. */\n"
                "#if defined(__GNUC__) && !defined(__FRAMAC__)\n"
                "#define TEIL_DOT8_INLINE __attribute__((always_inline))\n"
                "#else\n"
                "#define TEIL_DOT8_INLINE\n"
                "#endif\n");
  for (int i = 0; i < dot_nkinds; i++) {
    const DotKind *k = &dot_kinds[i];
    long long xs = k->xs, ys = k->ys, n = k->n, n8 = k->n / 8 * 8, tl = 7, xl = 7 * xs + n - 1;
    if (acsl)
      buf_printf(b, "/*@ requires \\valid(t + (0 .. %lld));\n"
                    "    requires \\valid_read(x + (0 .. %lld));\n"
                    "    requires \\valid_read(y + (0 .. %lld));\n"
                    "    requires \\separated(t + (0 .. %lld), x + (0 .. %lld));\n"
                    "    requires \\separated(t + (0 .. %lld), y + (0 .. %lld));\n"
                    "    assigns t[0 .. %lld]; */\n",
                 tl, xl, (n - 1) * ys, tl, xl, tl, (n - 1) * ys, tl);
    buf_printf(b, "static inline TEIL_DOT8_INLINE void teil_dot8_%d(double *restrict t, const double *restrict x,\n"
                  "                                              const double *restrict y)\n{\n"
                  "  long long k0 = 0;\n",
               i);
    buf_printf(b, "#ifdef TEIL_LANES_AVX512\n");
    buf_printf(b, "  __m512d acc = _mm512_loadu_pd(t);\n"
                  "  for (long long k = 0; k < %lld; k += 8) {\n"
                  "    __m512d r[8];\n"
                  "    for (int i = 0; i < 8; i++)\n"
                  "      r[i] = _mm512_loadu_pd(x + i*%lld + k);\n"
                  "    teil_transpose8(r);\n"
                  "    for (int j = 0; j < 8; j++)\n"
                  "      acc = _mm512_add_pd(acc, _mm512_mul_pd(r[j], _mm512_set1_pd(y[(k + j)*%lld])));\n"
                  "  }\n",
               n8, xs, ys);
    if (n > n8)                                     /* the last n - n8 values: masked loads */
      buf_printf(b, "  {\n"
                    "    __m512d r[8];\n"
                    "    for (int i = 0; i < 8; i++)\n"
                    "      r[i] = _mm512_maskz_loadu_pd(0x%x, x + i*%lld + %lld);\n"
                    "    teil_transpose8(r);\n"
                    "    for (int j = 0; j < %lld; j++)\n"
                    "      acc = _mm512_add_pd(acc, _mm512_mul_pd(r[j], _mm512_set1_pd(y[(%lld + j)*%lld])));\n"
                    "  }\n",
                 (1u << (n - n8)) - 1, xs, n8, n - n8, n8, ys);
    buf_printf(b, "  _mm512_storeu_pd(t, acc);\n");
    buf_printf(b, "  k0 = %lld;\n#endif\n", n);
    if (acsl)
      buf_printf(b, "  /*@ loop invariant k0 <= k <= %lld;\n      loop assigns k, t[0 .. %lld];\n"
                    "      loop variant %lld - k; */\n",
                 n, tl, n);
    buf_printf(b, "  for (long long k = k0; k < %lld; k++) {\n", n);
    if (acsl)
      buf_printf(b, "    /*@ loop invariant 0 <= i <= 8;\n        loop assigns i, t[0 .. %lld];\n"
                    "        loop variant 8 - i; */\n",
                 tl);
    buf_printf(b, "    for (long long i = 0; i < 8; i++)\n"
                  "      t[i] += x[i*%lld + k] * y[k*%lld];\n  }\n}\n\n",
               xs, ys);
  }
}

/* Prints &name[offset] of a DotOff, with r, the sum loop's iterator, last. */
static void dot_addr(const LProgram *lp, const char *name, const DotOff *o, int64_t delta, int r, Buf *b) {
  LTerm *t = xcalloc((size_t)o->nt + 1, sizeof *t);
  memcpy(t, o->t, (size_t)o->nt * sizeof *t);
  int nt = o->nt;
  if (o->rc)
    t[nt++] = (LTerm){r, o->rc};
  buf_printf(b, "&%s[", name);
  c_terms(lp, t, nt, o->c + delta, b);
  buf_printf(b, "]");
  free(t);
}

/* R-CG-29: the sum loop n of the block ds as one call. */
static void c_dot(const LProgram *lp, const LNode *n, const DotSite *ds, int ind, const char *const *rd, Buf *b) {
  const char *r = lp->its[n->it].name;
  buf_printf(b, "%*s{ /* %d dot products in the lanes of a vector (R-CG-29) */\n%*sconst long long %s = ", ind, "",
             ds->m, ind + 2, "", r);
  lp_print_aff(lp, &n->lb, b);
  buf_printf(b, ";\n");
  const char *xn = rd && rd[ds->x0->buf] ? rd[ds->x0->buf] : lp->bufs[ds->x0->buf].cname;
  const char *yn = rd && rd[ds->y0->buf] ? rd[ds->y0->buf] : lp->bufs[ds->y0->buf].cname;
  for (int g = 0; g < ds->m; g += 8) {             /* groups of 8 rows, the sums of one are independent of the others' */
    buf_printf(b, "%*steil_dot8_%d(", ind + 2, "", dot_kind(&ds->k));
    dot_addr(lp, lp->bufs[ds->s0->lhs.buf].cname, &ds->t0, g, n->it, b);
    buf_printf(b, ", ");
    dot_addr(lp, xn, &ds->x0o, g * ds->k.xs, n->it, b);
    buf_printf(b, ", ");
    dot_addr(lp, yn, &ds->y0o, 0, n->it, b);
    buf_printf(b, ");\n");
  }
  buf_printf(b, "%*s}\n", ind, "");
}

static void c_node(const LProgram *lp, const LNode *n, const LNode *elem, int elem_kid, const Spread *sp, int depth,
                   int omp, bool acsl, const char **rd, Buf *b);

/* The loop n with its region, if it opens one (R-CG-11, R-CG-26); the
 * arguments are c_node's. */
static void c_loop(const LProgram *lp, const LNode *n, const LNode *elem, int elem_kid, const Spread *sp, int depth,
                   int omp, bool acsl, const char **rd, Buf *b) {
  int ind = 2 * depth;
  bool region = omp != OMP_OFF && (n->flags & LF_PARALLEL) && lp_streams(n);
  bool priv = n->flags & LF_REGION;
  if (priv) {                                       /* R-CG-11: private slices (R-SCH-25) */
    region_open(lp, n, ind, acsl, omp, b);
    depth++;
    ind += 2;
  } else if (region) {                              /* R-CG-26: each thread fences its streams */
    if (omp == OMP_ON)
      buf_printf(b, "%s%*s#pragma omp parallel\n%s", acsl ? "#ifndef __FRAMAC__\n" : "", ind, "",
                 acsl ? "#endif\n" : "");
    buf_printf(b, "%*s{\n", ind, "");
    depth++;
    ind += 2;
  }
  c_loop_open(lp, n, depth, omp, acsl, b);
  bool elem_here = element_loop(lp, n);
  int64_t nhost = 0;
  if (elem_here)
    (void)hosts_before(n, 0, &nhost);
  Spread whole;                                     /* R-CG-24.1: no host, the whole slices spread */
  if (elem_here && !nhost && spread_host(lp, n, -1, &whole))
    sp = &whole;
  else if (elem_here && !nhost)
    prefetch_next(lp, n, NULL, 0, NULL, ind + 2, acsl, b);
  prefetch_rows(lp, n, ind + 2, acsl, b);
  prefetch_panel(lp, n, ind + 2, acsl, b);
  prefetch_fused(lp, n, ind + 2, acsl, b);
  int *mine = xcalloc((size_t)lp->nbufs + 1, sizeof *mine);
  int nmine = ro_open(lp, n, ind + 2, rd, mine, b);
  Spread mysp;
  if (elem && spread_host(lp, elem, elem_kid, &mysp))   /* R-CG-24.1: in the sum loop below */
    sp = &mysp;
  else if (elem)
    prefetch_next(lp, elem, n, elem_kid, NULL, ind + 2, acsl, b);
  if (sp && sp->path[sp->np - 1] == n)
    prefetch_next(lp, sp->elem, sp->host, sp->k, sp, ind + 2, acsl, b);
  int *later = xcalloc((size_t)lp->nbufs + 1, sizeof *later), nlater = 0;
  for (int i = 0; i < n->nkids; i++) {
    if (i > 0 && !nlater)                           /* R-CG-21.1 */
      nlater = ro_after(lp, n, i, ind + 2, rd, later, b);
    int dk = depth + 1 + (nlater > 0);
    if (acsl)                                       /* spec/acsl.md */
      acsl_run(lp, n->kids, n->nkids, i, 2 * dk, b);
    bool hosts = elem_here && nhost && prefetch_host(n->kids[i]);
    c_node(lp, n->kids[i], hosts ? n : NULL, i, sp, dk, omp, acsl, rd, b);
  }
  if (nlater)
    buf_printf(b, "%*s}\n", ind + 2, "");
  for (int i = 0; i < nlater; i++)
    rd[later[i]] = NULL;
  free(later);
  for (int i = 0; i < nmine; i++)
    rd[mine[i]] = NULL;
  free(mine);
  buf_printf(b, "%*s}\n", ind, "");
  if (priv)
    buf_printf(b, "%*s}\n", ind - 2, "");
  else if (region)
    buf_printf(b, "%*steil_stream_fence();\n%*s}\n", ind, "", ind - 2, "");
}

/* elem: the element loop whose prefetches n hosts (R-CG-24), or NULL; n is
 * then elem's child elem_kid. sp: a host's chunk spread over the loops below it
 * (R-CG-24.1), printed in the last of them. omp: OMP_ON, OMP_OFF (--no-openmp),
 * or OMP_SIMD in a site's serial copy (R-CG-11.2). */
static void c_node(const LProgram *lp, const LNode *n, const LNode *elem, int elem_kid, const Spread *sp, int depth,
                   int omp, bool acsl, const char **rd, Buf *b) {
  int ind = 2 * depth;
  if (n->note)
    buf_printf(b, "%*s/* %s */\n", ind, "", n->note);
  if (n->kind == LN_STMT) {
    buf_printf(b, "%*s", ind, "");
    c_access(lp, &n->lhs, NULL, b);
    buf_printf(b, " %s ", n->accum ? "+=" : "=");
    c_expr(lp, n->rhs, rd, b);
    buf_printf(b, ";\n");
    return;
  }
  if (n->flags & LF_LANECOPY) {
    c_lanecopy(lp, n, ind, b);
    return;
  }
  if (n->flags & LF_STREAM) {
    c_stream(lp, n, ind, b);
    return;
  }
  DotSite ds;
  if (dot_site(lp, n, &ds)) {                       /* R-CG-29 */
    bool known = dot_kind(&ds.k) >= 0;
    if (known)
      c_dot(lp, n, &ds, ind, (const char *const *)rd, b);
    dot_site_free(&ds);
    if (known)
      return;
  }
  if (!par_site(n, omp, acsl)) {
    c_loop(lp, n, elem, elem_kid, sp, depth, omp, acsl, rd, b);
    return;
  }
  int site = par_next++;                            /* R-CG-11.2: the parallel copy, then the serial one */
  buf_printf(b, "%*s{\n%*sdouble teil_t0;\n%*sint teil_p = teil_par_begin(%d, &teil_t0);\n%*sif (teil_p) {\n", ind, "",
             ind + 2, "", ind + 2, "", site, ind + 2, "");
  c_loop(lp, n, elem, elem_kid, sp, depth + 2, omp, acsl, rd, b);
  buf_printf(b, "%*s} else {\n", ind + 2, "");
  c_loop(lp, n, elem, elem_kid, sp, depth + 2, OMP_SIMD, acsl, rd, b);
  buf_printf(b, "%*s}\n%*steil_par_end(%d, teil_p, teil_t0);\n%*s}\n", ind + 2, "", ind + 2, "", site, ind, "");
}

/* R-CG-11.2: the run-time choice of each site between one thread and all. */
static void par_helpers(int nsites, Buf *b) {
  buf_printf(b,
             "/* R-CG-11.2: each small parallel region runs on one thread or on all, as\n"
             " * its first 9 executions measure: three untimed in parallel, three timed in\n"
             " * parallel, three serially (the serial copy of the loops, without their\n"
             " * parallel directives); the same loops either way, so the same results. */\n"
             "#ifdef _OPENMP\n"
             "#include <omp.h>\n"
             "static long long teil_par_st[%d][4]; /* executions; least serial, parallel ns; restarts */\n"
             "static inline int teil_par_begin(int k, double *t0)\n{\n"
             "  long long c = __atomic_load_n(&teil_par_st[k][0], __ATOMIC_RELAXED);\n"
             "  *t0 = 0;\n"
             "  if (c >= 9)\n"
             "    return __atomic_load_n(&teil_par_st[k][2], __ATOMIC_RELAXED) <\n"
             "           __atomic_load_n(&teil_par_st[k][1], __ATOMIC_RELAXED);\n"
             "  *t0 = omp_get_wtime();\n"
             "  return c < 6;\n}\n"
             "static inline void teil_par_end(int k, int p, double t0)\n{\n"
             "  long long c = __atomic_load_n(&teil_par_st[k][0], __ATOMIC_RELAXED), r;\n"
             "  if (c >= 9)\n    return;\n"
             "  long long ns = (long long)((omp_get_wtime() - t0) * 1e9) + 1, *m = &teil_par_st[k][1 + (p != 0)];\n"
             "  long long old = __atomic_load_n(m, __ATOMIC_RELAXED);\n"
             "  if (c >= 3 && (old == 0 || ns < old))\n"
             "    __atomic_store_n(m, ns, __ATOMIC_RELAXED);\n"
             "  r = __atomic_load_n(&teil_par_st[k][3], __ATOMIC_RELAXED);\n"
             "  if (c == 8 && r < 3 &&\n"
             "      __atomic_load_n(&teil_par_st[k][2], __ATOMIC_RELAXED) > 8 * __atomic_load_n(&teil_par_st[k][1], __ATOMIC_RELAXED)) {\n"
             "    __atomic_store_n(&teil_par_st[k][1], 0, __ATOMIC_RELAXED); /* the threads were not settled yet */\n"
             "    __atomic_store_n(&teil_par_st[k][2], 0, __ATOMIC_RELAXED);\n"
             "    __atomic_store_n(&teil_par_st[k][3], r + 1, __ATOMIC_RELAXED);\n"
             "    c = -1;\n"
             "  }\n"
             "  __atomic_store_n(&teil_par_st[k][0], c + 1, __ATOMIC_RELAXED);\n}\n"
             "#else\n"
             "static inline int teil_par_begin(int k, double *t0) { (void)k; *t0 = 0; return 0; }\n"
             "static inline void teil_par_end(int k, int p, double t0) { (void)k; (void)p; (void)t0; }\n"
             "#endif\n\n",
             nsites);
}

static void upper(const char *s, Buf *b) {
  for (; *s; s++)
    buf_printf(b, "%c", toupper((unsigned char)*s));
}

static void dims_str(const int64_t *d, int rank, Buf *b) {
  buf_printf(b, "[");
  for (int i = 0; i < rank; i++)
    buf_printf(b, "%s%lld", i ? ", " : "", (long long)d[i]);
  buf_printf(b, "]");
}

/* Parameter buffers in parameter order. */
static int *param_bufs(const LProgram *lp) {
  int *pb = xcalloc((size_t)lp->nparams + 1, sizeof *pb);
  for (int i = 0; i < lp->nbufs; i++)
    if (lp->bufs[i].param >= 0)
      pb[lp->bufs[i].param] = i;
  return pb;
}

static void prototype_named(const LProgram *lp, const char *name, Buf *b) {
  int *pb = param_bufs(lp);
  buf_printf(b, "void %s(", name);
  for (int i = 0; i < lp->nparams; i++) {
    const LBuf *x = &lp->bufs[pb[i]];
    buf_printf(b, "%s%s *restrict %s, ", x->kind == LB_PARAM_IN ? "const " : "", real_t(lp), x->cname);
  }
  buf_printf(b, "%s *restrict work)", real_t(lp));
  free(pb);
}

static void prototype(const LProgram *lp, const CgenOptions *o, Buf *b) { prototype_named(lp, o->func, b); }

/* The tensor table of the header and the file comment. */
static void tensor_doc(const LProgram *lp, const char *lead, Buf *b) {
  int *pb = param_bufs(lp);
  size_t es = lp->f32 ? 4 : 8;
  for (int i = 0; i < lp->nparams; i++) {
    const LBuf *x = &lp->bufs[pb[i]];
    buf_printf(b, "%s  %-10s %-13s type ", lead, x->cname,
               (x->qual & Q_INPUT) && (x->qual & Q_OUTPUT) ? "input output" : (x->qual & Q_INPUT) ? "input" : "output");
    dims_str(x->dims, x->rank, b);
    if (lp->pad > 1) {
      buf_printf(b, ", padded ");
      dims_str(x->pdims, x->rank, b);
    }
    buf_printf(b, ", strides ");
    dims_str(x->stride, x->rank, b);
    buf_printf(b, ", %lld bytes\n", (long long)(x->count * (int64_t)es));
  }
  free(pb);
}

static void contract_doc(const LProgram *lp, const CgenOptions *o, Buf *b) {
  Buf up = {0};
  upper(o->func, &up);
  buf_printf(b,
             " * Calling convention (spec/compiler.md R-CG-9):\n"
             " *  - every tensor is a %s array, row-major over its padded extents\n"
             " *    (every extent rounded up to a multiple of %d), 64-byte aligned, not\n"
             " *    overlapping any other argument; every padding element must be 0\n"
             " *    on entry, and the function keeps it 0;\n"
             " *  - inputs hold the caller's values and are never written unless they\n"
             " *    are also outputs; outputs need no initial values: the function gives\n"
             " *    the undefined value (NaN) to every element the program reads before\n"
             " *    assigning it or never assigns (R-CG-7);\n"
             " *  - work: %s_WORK_BYTES bytes, 64-byte aligned (may be NULL when 0);\n"
             " *  - the undefined value of TeIL is NaN here, and v/0 is NaN (R-CG-6).\n",
             real_t(lp), lp->pad, up.s);
  buf_free(&up);
}

void cgen_header(const LProgram *lp, const Program *p, const CgenOptions *o, Buf *b) {
  (void)p;
  Buf up = {0};
  upper(o->func, &up);
  buf_printf(b, "/*\n * Generated by teilc from %s; do not edit.\n *\n * ", o->source ? o->source : "<input>");
  prototype(lp, o, b);
  buf_printf(b, "\n *\n * Parameters, in order (R-CG-13):\n");
  tensor_doc(lp, " *", b);
  buf_printf(b, " *  %-10s workspace, %lld bytes\n *\n", "work", (long long)lp->work_bytes);
  contract_doc(lp, o, b);
  buf_printf(b, " */\n#ifndef TEIL_KERNEL_%s_H\n#define TEIL_KERNEL_%s_H\n\n", up.s, up.s);
  buf_printf(b, "#define %s_WORK_BYTES %lld\n#define %s_PAD %d\n\n", up.s, (long long)lp->work_bytes, up.s, lp->pad);
  prototype(lp, o, b);
  buf_printf(b, ";\n\n#endif\n");
  buf_free(&up);
}

/* ------------------------------------------------------------ the driver (R-CG-14) */

static const char driver_src[] =
    "/* ---------------------------------------------------------------------\n"
    " * Standalone driver (teilc --main, spec/compiler.md R-CG-14):\n"
    " *   ./kernel --in NAME=FILE.npy ... --out NAME=FILE.npy ... [--repeat N]\n"
    " * .npy files are unpadded, row-major ('<f8' or '<f4' read, '<f8' written).\n"
    " * ------------------------------------------------------------------- */\n"
    "#include <stdarg.h>\n"
    "#include <stdio.h>\n"
    "#include <stdlib.h>\n"
    "#include <string.h>\n"
    "#include <time.h>\n"
    "#if defined(__linux__) && !defined(__hppa__)\n"
    "/* madvise, which POSIX does not declare: <sys/mman.h> would need _DEFAULT_SOURCE,\n"
    " * which declares BSD names (bcopy, index, ...) a kernel may have (R-CG-14) */\n"
    "int madvise(void *addr, size_t length, int advice);\n"
    "#define TEIL_MADV_HUGEPAGE 14   /* MADV_HUGEPAGE, linux/mman.h */\n"
    "#endif\n"
    "\n"
    "typedef struct {\n"
    "  const char *name;\n"
    "  int rank;\n"
    "  const long long *dims, *pdims;\n"
    "  int input, output, restore;   /* restore: an input the kernel overwrites */\n"
    "  long long count;              /* padded element count */\n"
    "  teil_real *data, *saved;\n"
    "  const char *in, *out;\n"
    "} teil_tensor;\n"
    "\n"
    "static const char *teil_prog = \"kernel\";\n"
    "\n"
    "static void teil_die(const char *fmt, ...) {\n"
    "  va_list ap;\n"
    "  va_start(ap, fmt);\n"
    "  fprintf(stderr, \"%s: \", teil_prog);\n"
    "  vfprintf(stderr, fmt, ap);\n"
    "  fputc('\\n', stderr);\n"
    "  va_end(ap);\n"
    "  exit(2);\n"
    "}\n"
    "\n"
    "/* 64-byte aligned and zero; from 4 MiB on, on huge pages where Linux gives them, as\n"
    " * NumPy's arrays are (spec/compiler.md R-CG-14) */\n"
    "static void *teil_alloc(long long bytes) {\n"
    "  size_t n = (size_t)(bytes < 64 ? 64 : (bytes + 63) / 64 * 64), align = 64;\n"
    "#ifdef TEIL_MADV_HUGEPAGE\n"
    "  if (n >= ((size_t)4 << 20)) {\n"
    "    align = (size_t)2 << 20;\n"
    "    n = (n + align - 1) / align * align;\n"
    "  }\n"
    "#endif\n"
    "  void *p = aligned_alloc(align, n);\n"
    "  if (!p)\n"
    "    teil_die(\"out of memory (%lld bytes)\", bytes);\n"
    "#ifdef TEIL_MADV_HUGEPAGE\n"
    "  if (align > 64)\n"
    "    (void)madvise(p, n, TEIL_MADV_HUGEPAGE);\n"
    "#endif\n"
    "  memset(p, 0, n);\n"
    "  return p;\n"
    "}\n"
    "\n"
    "static void teil_shape(int rank, const long long *d, char *buf, size_t n) {\n"
    "  size_t len = (size_t)snprintf(buf, n, \"(\");\n"
    "  for (int i = 0; i < rank && len + 24 < n; i++)\n"
    "    len += (size_t)snprintf(buf + len, n - len, \"%s%lld\", i ? \", \" : \"\", d[i]);\n"
    "  snprintf(buf + len, n - len, rank == 1 ? \",)\" : \")\");\n"
    "}\n"
    "\n"
    "/* Copies between an unpadded row-major array and the padded layout, a row\n"
    " * (the last dimension, contiguous on both sides) at a time. */\n"
    "static void teil_convert(const teil_tensor *t, double *flat, int to_padded) {\n"
    "  long long *j = calloc((size_t)t->rank + 1, sizeof *j), *s = calloc((size_t)t->rank + 1, sizeof *s);\n"
    "  if (!j || !s)\n"
    "    teil_die(\"out of memory\");\n"
    "  long long st = 1, i = 0, row = t->rank ? t->dims[t->rank - 1] : 1;\n"
    "  for (int d = t->rank - 1; d >= 0; d--) {\n"
    "    s[d] = st;\n"
    "    st *= t->pdims[d];\n"
    "    if (t->dims[d] == 0)\n"
    "      row = 0;\n"
    "  }\n"
    "  while (row > 0) {\n"
    "    long long off = 0;\n"
    "    for (int d = 0; d < t->rank - 1; d++)\n"
    "      off += j[d] * s[d];\n"
    "    teil_real *p = t->data + off;\n"
    "    if (to_padded)\n"
    "      for (long long k = 0; k < row; k++)\n"
    "        p[k] = (teil_real)flat[i + k];\n"
    "    else\n"
    "      for (long long k = 0; k < row; k++)\n"
    "        flat[i + k] = (double)p[k];\n"
    "    i += row;\n"
    "    int d = t->rank - 2;\n"
    "    while (d >= 0 && ++j[d] == t->dims[d])\n"
    "      j[d--] = 0;\n"
    "    if (d < 0)\n"
    "      break;\n"
    "  }\n"
    "  free(j);\n"
    "  free(s);\n"
    "}\n"
    "\n"
    "static long long teil_real_count(const teil_tensor *t) {\n"
    "  long long n = 1;\n"
    "  for (int d = 0; d < t->rank; d++)\n"
    "    n *= t->dims[d];\n"
    "  return n;\n"
    "}\n"
    "\n"
    "/* The value after \"key\": in a .npy header dict, or NULL. */\n"
    "static const char *teil_npy_key(const char *h, const char *key) {\n"
    "  size_t k = strlen(key);\n"
    "  for (const char *p = h; (p = strstr(p, key)) != NULL; p += k) {\n"
    "    if (p == h || (p[-1] != '\\'' && p[-1] != '\"') || (p[k] != '\\'' && p[k] != '\"'))\n"
    "      continue;\n"
    "    const char *q = p + k + 1;\n"
    "    while (*q == ' ')\n"
    "      q++;\n"
    "    if (*q++ != ':')\n"
    "      continue;\n"
    "    while (*q == ' ')\n"
    "      q++;\n"
    "    return q;\n"
    "  }\n"
    "  return NULL;\n"
    "}\n"
    "\n"
    "/* Reads FILE (format 1.0-3.0, '<f8' or '<f4', C order) with the shape of t. */\n"
    "static double *teil_read_npy(const char *path, const teil_tensor *t) {\n"
    "  FILE *f = fopen(path, \"rb\");\n"
    "  if (!f)\n"
    "    teil_die(\"--in %s: cannot open '%s'\", t->name, path);\n"
    "  size_t cap = 1 << 16, len = 0;\n"
    "  if (fseek(f, 0, SEEK_END) == 0) {   /* one read when the size is known */\n"
    "    long size = ftell(f);\n"
    "    if (size >= 0 && (unsigned long)size < (size_t)-1 / 2)\n"
    "      cap = (size_t)size + 1;\n"
    "    rewind(f);\n"
    "  }\n"
    "  unsigned char *buf = malloc(cap);\n"
    "  for (;;) {\n"
    "    if (!buf)\n"
    "      teil_die(\"out of memory reading '%s'\", path);\n"
    "    len += fread(buf + len, 1, cap - len, f);\n"
    "    if (len < cap)\n"
    "      break;\n"
    "    unsigned char *nb = realloc(buf, cap *= 2);\n"
    "    if (!nb)\n"
    "      free(buf);\n"
    "    buf = nb;\n"
    "  }\n"
    "  if (ferror(f))\n"
    "    teil_die(\"--in %s: cannot read '%s'\", t->name, path);\n"
    "  fclose(f);\n"
    "  if (len < 10 || memcmp(buf, \"\\x93NUMPY\", 6) != 0 || buf[6] < 1 || buf[6] > 3)\n"
    "    teil_die(\"--in %s: '%s' is not a .npy file (version 1.0-3.0)\", t->name, path);\n"
    "  size_t hl = buf[6] == 1 ? (size_t)buf[8] | (size_t)buf[9] << 8\n"
    "                          : (len < 12 ? (size_t)-1 : (size_t)buf[8] | (size_t)buf[9] << 8 | (size_t)buf[10] << 16 | (size_t)buf[11] << 24);\n"
    "  size_t ho = buf[6] == 1 ? 10 : 12;\n"
    "  if (hl > len - ho)\n"
    "    teil_die(\"--in %s: '%s' is truncated (header)\", t->name, path);\n"
    "  char *h = malloc(hl + 1);\n"
    "  if (!h)\n"
    "    teil_die(\"out of memory\");\n"
    "  memcpy(h, buf + ho, hl);\n"
    "  h[hl] = '\\0';\n"
    "  const char *descr = teil_npy_key(h, \"descr\"), *fo = teil_npy_key(h, \"fortran_order\"), *sh = teil_npy_key(h, \"shape\");\n"
    "  if (!descr || !fo || !sh)\n"
    "    teil_die(\"--in %s: '%s' has a malformed header\", t->name, path);\n"
    "  size_t item = 0;\n"
    "  if (!strncmp(descr + 1, \"<f8\", 3) && descr[4] == descr[0])\n"
    "    item = 8;\n"
    "  else if (!strncmp(descr + 1, \"<f4\", 3) && descr[4] == descr[0])\n"
    "    item = 4;\n"
    "  else {\n"
    "    const char *e = strchr(descr + 1, descr[0]);\n"
    "    teil_die(\"--in %s: '%s' has dtype %.*s; expected '<f8' or '<f4'\", t->name, path, e && e - descr < 40 ? (int)(e - descr + 1) : 8, descr);\n"
    "  }\n"
    "  if (strncmp(fo, \"False\", 5) != 0)\n"
    "    teil_die(\"--in %s: '%s' is in Fortran order; only C order is read\", t->name, path);\n"
    "  long long shape[64];\n"
    "  int nd = 0;\n"
    "  const char *q = sh;\n"
    "  if (*q++ != '(')\n"
    "    teil_die(\"--in %s: '%s' has a malformed shape\", t->name, path);\n"
    "  for (;;) {\n"
    "    while (*q == ' ' || *q == ',')\n"
    "      q++;\n"
    "    if (*q == ')')\n"
    "      break;\n"
    "    char *end;\n"
    "    long long v = strtoll(q, &end, 10);\n"
    "    if (end == q || v < 0 || nd == 64)\n"
    "      teil_die(\"--in %s: '%s' has a malformed shape\", t->name, path);\n"
    "    shape[nd++] = v;\n"
    "    q = end;\n"
    "    if (*q == 'L')\n"
    "      q++;\n"
    "  }\n"
    "  int same = nd == t->rank;\n"
    "  for (int d = 0; same && d < nd; d++)\n"
    "    same = shape[d] == t->dims[d];\n"
    "  if (!same) {\n"
    "    char got[256], want[256];\n"
    "    teil_shape(nd, shape, got, sizeof got);\n"
    "    teil_shape(t->rank, t->dims, want, sizeof want);\n"
    "    teil_die(\"--in %s: '%s' has shape %s but tensor '%s' has shape %s\", t->name, path, got, t->name, want);\n"
    "  }\n"
    "  long long n = teil_real_count(t);\n"
    "  if (len - ho - hl != (size_t)n * item)\n"
    "    teil_die(\"--in %s: '%s' holds %zu data bytes, not %lld\", t->name, path, len - ho - hl, n * (long long)item);\n"
    "  double *v = malloc((size_t)n * sizeof *v);\n"
    "  if (!v)\n"
    "    teil_die(\"out of memory\");\n"
    "  const unsigned char *p = buf + ho + hl;\n"
    "  for (long long i = 0; i < n; i++, p += item) {\n"
    "    if (item == 8) {\n"
    "      unsigned long long u = 0;\n"
    "      for (int k = 7; k >= 0; k--)\n"
    "        u = u << 8 | p[k];\n"
    "      memcpy(&v[i], &u, 8);\n"
    "    } else {\n"
    "      unsigned int u = 0;\n"
    "      float x;\n"
    "      for (int k = 3; k >= 0; k--)\n"
    "        u = u << 8 | p[k];\n"
    "      memcpy(&x, &u, 4);\n"
    "      v[i] = x;\n"
    "    }\n"
    "  }\n"
    "  free(h);\n"
    "  free(buf);\n"
    "  return v;\n"
    "}\n"
    "\n"
    "/* Writes a version 1.0 '<f8' C-order file. */\n"
    "static void teil_write_npy(const char *path, const teil_tensor *t, const double *v) {\n"
    "  size_t cap = 128 + 24 * (size_t)t->rank, len;\n"
    "  char *h = malloc(cap + 64), shape[4096];\n"
    "  if (!h)\n"
    "    teil_die(\"out of memory\");\n"
    "  teil_shape(t->rank, t->dims, shape, sizeof shape);\n"
    "  len = (size_t)snprintf(h, cap, \"{'descr': '<f8', 'fortran_order': False, 'shape': %s, }\", shape);\n"
    "  while ((10 + len + 1) % 64)\n"
    "    h[len++] = ' ';\n"
    "  h[len++] = '\\n';\n"
    "  if (len > 65535)\n"
    "    teil_die(\"--out %s: the .npy header is too long\", t->name);\n"
    "  FILE *f = fopen(path, \"wb\");\n"
    "  if (!f)\n"
    "    teil_die(\"--out %s: cannot create '%s'\", t->name, path);\n"
    "  unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)(len & 255), (unsigned char)(len >> 8)};\n"
    "  int ok = fwrite(pre, 1, 10, f) == 10 && fwrite(h, 1, len, f) == len;\n"
    "  long long n = teil_real_count(t);\n"
    "  static unsigned char b[8 * 4096];   /* little-endian, a block at a time */\n"
    "  for (long long i = 0; ok && i < n;) {\n"
    "    size_t m = 0;\n"
    "    for (; m < sizeof b / 8 && i < n; m++, i++) {\n"
    "      unsigned long long u;\n"
    "      memcpy(&u, &v[i], 8);\n"
    "      for (int k = 0; k < 8; k++)\n"
    "        b[8 * m + (size_t)k] = (unsigned char)(u >> (8 * k));\n"
    "    }\n"
    "    ok = fwrite(b, 1, 8 * m, f) == 8 * m;\n"
    "  }\n"
    "  if (fclose(f) != 0 || !ok)\n"
    "    teil_die(\"--out %s: cannot write '%s'\", t->name, path);\n"
    "  free(h);\n"
    "}\n"
    "\n"
    "static int teil_cmp(const void *a, const void *b) {\n"
    "  double x = *(const double *)a, y = *(const double *)b;\n"
    "  return x < y ? -1 : x > y;\n"
    "}\n"
    "\n"
    "static double teil_now_ms(void) {\n"
    "  struct timespec ts;\n"
    "  clock_gettime(CLOCK_MONOTONIC, &ts);\n"
    "  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;\n"
    "}\n"
    "\n"
    "static teil_tensor *teil_find(teil_tensor *T, int nt, const char *arg, const char *opt, const char **file) {\n"
    "  const char *eq = arg ? strchr(arg, '=') : NULL;\n"
    "  if (!eq || eq == arg || !eq[1])\n"
    "    teil_die(\"%s takes NAME=FILE.npy, not '%s'\", opt, arg ? arg : \"\");\n"
    "  *file = eq + 1;\n"
    "  for (int i = 0; i < nt; i++)\n"
    "    if (strlen(T[i].name) == (size_t)(eq - arg) && !strncmp(T[i].name, arg, (size_t)(eq - arg)))\n"
    "      return &T[i];\n"
    "  teil_die(\"%s: the kernel has no tensor '%.*s'\", opt, (int)(eq - arg), arg);\n"
    "  return NULL;\n"
    "}\n"
    "\n"
    "static void teil_usage(const teil_tensor *T, int nt) {\n"
    "  printf(\"usage: %s --in NAME=FILE.npy ... [--out NAME=FILE.npy ...] [--repeat N]\\n\\ntensors:\\n\", teil_prog);\n"
    "  for (int i = 0; i < nt; i++) {\n"
    "    char s[256];\n"
    "    teil_shape(T[i].rank, T[i].dims, s, sizeof s);\n"
    "    printf(\"  %-12s %-13s shape %s\\n\", T[i].name, T[i].input && T[i].output ? \"input output\" : T[i].input ? \"input\" : \"output\", s);\n"
    "  }\n"
    "}\n"
    "\n"
    "static void teil_run(teil_tensor *T, teil_real *work);\n"
    "\n"
    "int main(int argc, char **argv) {\n"
    "  teil_tensor *T;\n"
    "  int nt = teil_tensors(&T);\n"
    "  long long repeat = 0;\n"
    "  if (argc > 0)\n"
    "    teil_prog = argv[0];\n"
    "  for (int i = 1; i < argc; i++) {\n"
    "    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL, *file;\n"
    "    if (!strcmp(a, \"-h\") || !strcmp(a, \"--help\")) {\n"
    "      teil_usage(T, nt);\n"
    "      return 0;\n"
    "    } else if (!strcmp(a, \"--in\") || !strcmp(a, \"--out\")) {\n"
    "      teil_tensor *t = teil_find(T, nt, v, a, &file);\n"
    "      if (a[2] == 'i' && !t->input)\n"
    "        teil_die(\"--in: tensor '%s' is not an input\", t->name);\n"
    "      if (a[2] == 'o' && !t->output)\n"
    "        teil_die(\"--out: tensor '%s' is not an output\", t->name);\n"
    "      if ((a[2] == 'i' ? t->in : t->out) != NULL)\n"
    "        teil_die(\"%s: tensor '%s' given twice\", a, t->name);\n"
    "      *(a[2] == 'i' ? &t->in : &t->out) = file;\n"
    "      i++;\n"
    "    } else if (!strcmp(a, \"--repeat\")) {\n"
    "      char *end;\n"
    "      repeat = v ? strtoll(v, &end, 10) : 0;\n"
    "      if (!v || *end || repeat < 1 || repeat > 1000000000)\n"
    "        teil_die(\"--repeat takes a number of runs >= 1, not '%s'\", v ? v : \"\");\n"
    "      i++;\n"
    "    } else {\n"
    "      teil_die(\"unknown argument '%s' (try --help)\", a);\n"
    "    }\n"
    "  }\n"
    "  for (int i = 0; i < nt; i++) {\n"
    "    if (T[i].input && !T[i].in)\n"
    "      teil_die(\"input tensor '%s' has no value: give --in %s=FILE.npy\", T[i].name, T[i].name);\n"
    "    T[i].data = teil_alloc(T[i].count * (long long)sizeof(teil_real));\n"
    "    if (T[i].in) {\n"
    "      double *v = teil_read_npy(T[i].in, &T[i]);\n"
    "      teil_convert(&T[i], v, 1);\n"
    "      free(v);\n"
    "    }\n"
    "    if (T[i].restore && repeat > 1) {\n"
    "      T[i].saved = teil_alloc(T[i].count * (long long)sizeof(teil_real));\n"
    "      memcpy(T[i].saved, T[i].data, (size_t)T[i].count * sizeof(teil_real));\n"
    "    }\n"
    "  }\n"
    "  teil_real *work = teil_alloc(TEIL_WORK_BYTES);\n"
    "  long long runs = repeat ? repeat : 1;\n"
    "  double *ms = calloc((size_t)runs, sizeof *ms);\n"
    "  if (!ms)\n"
    "    teil_die(\"out of memory\");\n"
    "  for (long long r = 0; r < runs; r++) {\n"
    "    for (int i = 0; i < nt && r > 0; i++)\n"
    "      if (T[i].saved)\n"
    "        memcpy(T[i].data, T[i].saved, (size_t)T[i].count * sizeof(teil_real));\n"
    "    double t0 = teil_now_ms();\n"
    "    teil_run(T, work);\n"
    "    ms[r] = teil_now_ms() - t0;\n"
    "  }\n"
    "  for (int i = 0; i < nt; i++) {\n"
    "    if (!T[i].out)\n"
    "      continue;\n"
    "    double *v = malloc((size_t)teil_real_count(&T[i]) * sizeof *v);\n"
    "    if (!v)\n"
    "      teil_die(\"out of memory\");\n"
    "    teil_convert(&T[i], v, 0);\n"
    "    teil_write_npy(T[i].out, &T[i], v);\n"
    "    free(v);\n"
    "  }\n"
    "  if (repeat) {\n"
    "    double mn = ms[0];\n"
    "    for (long long r = 1; r < runs; r++)\n"
    "      mn = ms[r] < mn ? ms[r] : mn;\n"
    "    qsort(ms, (size_t)runs, sizeof *ms, teil_cmp);\n"
    "    double med = runs % 2 ? ms[runs / 2] : (ms[runs / 2 - 1] + ms[runs / 2]) / 2;\n"
    "    printf(\"time_ms median=%.6f min=%.6f runs=%lld\\n\", med, mn, runs);\n"
    "  }\n"
    "  for (int i = 0; i < nt; i++) {\n"
    "    free(T[i].data);\n"
    "    free(T[i].saved);\n"
    "  }\n"
    "  free(work);\n"
    "  free(ms);\n"
    "  return 0;\n"
    "}\n";

static void cgen_driver(const LProgram *lp, const CgenOptions *o, Buf *b) {
  Buf up = {0};
  upper(o->func, &up);
  buf_printf(b, "\ntypedef %s teil_real;\n#define TEIL_WORK_BYTES %s_WORK_BYTES\n", real_t(lp), up.s);
  buf_free(&up);
  /* The generic part up to the declaration of teil_run, then the table of
   * parameters and the call, then main. */
  int *pb = param_bufs(lp);
  const char *mark = "static void teil_run(teil_tensor *T, teil_real *work);\n";
  const char *at = strstr(driver_src, mark);
  size_t pre = (size_t)(at - driver_src) + strlen(mark);
  buf_printf(b, "%.*s", (int)pre, driver_src);
  buf_printf(b, "\n/* The kernel's parameters, in order. */\nstatic int teil_tensors(teil_tensor **T) {\n");
  for (int i = 0; i < lp->nparams; i++) {
    const LBuf *x = &lp->bufs[pb[i]];
    buf_printf(b, "  static const long long d%d[] = {", i);
    for (int d = 0; d < x->rank; d++)
      buf_printf(b, "%s%lld", d ? ", " : "", (long long)x->dims[d]);
    buf_printf(b, "%s}, p%d[] = {", x->rank ? "" : "1", i);
    for (int d = 0; d < x->rank; d++)
      buf_printf(b, "%s%lld", d ? ", " : "", (long long)x->pdims[d]);
    buf_printf(b, "%s};\n", x->rank ? "" : "1");
  }
  buf_printf(b, "  static teil_tensor t[%d] = {\n", lp->nparams ? lp->nparams : 1);
  for (int i = 0; i < lp->nparams; i++) {
    const LBuf *x = &lp->bufs[pb[i]];
    bool restore = (x->qual & Q_INPUT) && x->written;
    buf_printf(b, "    {\"%s\", %d, d%d, p%d, %d, %d, %d, %lld, NULL, NULL, NULL, NULL},\n", x->name, x->rank, i, i,
               (x->qual & Q_INPUT) != 0, (x->qual & Q_OUTPUT) != 0, restore, (long long)x->count);
  }
  if (!lp->nparams)
    buf_printf(b, "    {NULL, 0, NULL, NULL, 0, 0, 0, 0, NULL, NULL, NULL, NULL},\n");
  buf_printf(b, "  };\n  *T = t;\n  return %d;\n}\n\n", lp->nparams);
  buf_printf(b, "static void teil_run(teil_tensor *T, teil_real *work) {\n  %s(", o->func);
  for (int i = 0; i < lp->nparams; i++)
    buf_printf(b, "T[%d].data, ", i);
  buf_printf(b, "work);\n%s}\n", lp->nparams ? "" : "  (void)T;\n");
  buf_printf(b, "%s", driver_src + pre);
  free(pb);
}

/* ------------------------------------------------------------ the C file (R-CG-12) */

/* The body of a function over the top-level nodes tops[0..n-1]: alignment
 * hints for the parameters and pointers into the workspace for the buffers in
 * used[] (NULL: every buffer some node uses, LBuf.used), then the nodes. */
/* R-CG-19.5: whether the top-level parallel loop full and its partial block
 * part run in one region: the full blocks without their barrier, the partial
 * block on the first thread done. */
static bool tail_region(const LNode *full, const LNode *part, const CgenOptions *o) {
  return o->openmp && !o->acsl && part->kind == LN_LOOP && (part->flags & LF_PARTIAL) && full->kind == LN_LOOP &&
         (full->flags & LF_PARALLEL) && !(full->flags & (LF_REGION | LF_WORKSHARE)) && !lp_streams(full) &&
         !lp_streams(part) && !par_site(full, OMP_ON, false);
}

static void c_body(const LProgram *lp, const CgenOptions *o, LNode *const *tops, int n, const bool *used, const char *iter,
                   Buf *b) {
  const char *rt = real_t(lp);
  buf_printf(b, "\n{\n");
  if (iter)                                         /* R-ACSL-10: a part's iterator argument */
    buf_printf(b, "  (void)%s;\n", iter);
  int *pb = param_bufs(lp);
  for (int i = 0; i < lp->nparams; i++) {
    const LBuf *x = &lp->bufs[pb[i]];
    if (used ? used[pb[i]] : x->used)
      buf_printf(b, "  %s = __builtin_assume_aligned(%s, 64);\n", x->cname, x->cname);
    else
      buf_printf(b, "  (void)%s;\n", x->cname);
  }
  free(pb);
  size_t es = lp->f32 ? 4 : 8;
  bool work = false;
  for (int i = 0; i < lp->nbufs; i++) {
    const LBuf *x = &lp->bufs[i];
    if (x->kind != LB_WORK || !(used ? used[i] : x->used))
      continue;
    work = true;
    if (x->priv) {                                  /* R-SCH-25: declared by its region */
      if (iter)
        private_ptr(lp, x, 2, b);
      continue;
    }
    buf_printf(b, "  %s *%s = __builtin_assume_aligned(work + %lld, 64); /* ", rt, x->cname,
               (long long)(x->offset / (int64_t)es));
    dims_str(x->dims, x->rank, b);
    buf_printf(b, " %s */\n", x->why ? x->why : x->tensor >= 0 ? "tensor" : "temporary");
  }
  if (!work)
    buf_printf(b, "  (void)work;\n");
  const char **rd = xcalloc((size_t)lp->nbufs + 1, sizeof *rd);   /* R-CG-21 */
  for (int i = 0; i < n; i++) {
    buf_printf(b, "\n");
    if (o->acsl)
      acsl_run(lp, tops, n, i, 2, b);
    if (i + 1 < n && tail_region(tops[i], tops[i + 1], o)) {   /* R-CG-19.5 */
      buf_printf(b, "  #pragma omp parallel\n  {\n");
      full_blocks = tops[i];
      c_node(lp, tops[i], NULL, 0, NULL, 2, OMP_ON, false, rd, b);
      full_blocks = NULL;
      buf_printf(b, "    #pragma omp single nowait\n    {\n");
      c_node(lp, tops[++i], NULL, 0, NULL, 3, OMP_ON, false, rd, b);
      buf_printf(b, "    }\n  }\n");
      continue;
    }
    c_node(lp, tops[i], NULL, 0, NULL, 1, o->openmp ? OMP_ON : OMP_OFF, o->acsl, rd, b);
  }
  free(rd);
  bool streams = false;
  for (int i = 0; i < n && !iter; i++)
    streams |= lp_streams(tops[i]);
  if (streams)                                      /* R-CG-26: this thread's streams */
    buf_printf(b, "  teil_stream_fence();\n");
  buf_printf(b, "}\n");
}

/* R-ACSL-10: with --acsl, a top-level loop L with several children is the
 * part teil_partK, whose body calls one function teil_partK_M per child with
 * L's iterator, the parameters and the local arrays of L the child uses, so
 * that WP proves each child in a function of its own. */
static void acsl_split(const LProgram *lp, const CgenOptions *o, int k, bool *used, Buf *b) {
  const LNode *L = lp->top[k];
  const char *rt = real_t(lp);
  const char *v = lp->its[L->it].name;
  for (int m = 0; m < L->nkids; m++) {
    memset(used, 0, (size_t)lp->nbufs * sizeof *used);
    reads_writes(L->kids[m], used, used);
    acsl_contract(lp, L->kids[m], L, b);
    buf_printf(b, "static void teil_part%d_%d(long long %s, ", k + 1, m + 1, v);
    int *pb = param_bufs(lp);
    for (int q = 0; q < lp->nparams; q++) {
      const LBuf *x = &lp->bufs[pb[q]];
      buf_printf(b, "%s%s *restrict %s, ", x->kind == LB_PARAM_IN ? "const " : "", rt, x->cname);
    }
    free(pb);
    buf_printf(b, "%s *restrict work", rt);
    for (int i = 0; i < L->nlocals; i++)
      if (used[L->locals[i]])
        buf_printf(b, ", %s *restrict %s", rt, lp->bufs[L->locals[i]].cname);
    buf_printf(b, ")");
    c_body(lp, o, L->kids + m, 1, used, v, b);
    buf_printf(b, "\n");
  }
  memset(used, 0, (size_t)lp->nbufs * sizeof *used);
  reads_writes(L, used, used);
  acsl_contract(lp, L, NULL, b);
  buf_printf(b, "static void teil_part%d(", k + 1);
  int *pb = param_bufs(lp);
  for (int q = 0; q < lp->nparams; q++) {
    const LBuf *x = &lp->bufs[pb[q]];
    buf_printf(b, "%s%s *restrict %s, ", x->kind == LB_PARAM_IN ? "const " : "", rt, x->cname);
  }
  buf_printf(b, "%s *restrict work)\n{\n", rt);
  size_t es = lp->f32 ? 4 : 8;
  for (int i = 0; i < lp->nbufs; i++) {             /* the loop annotation names L's workspace buffers */
    const LBuf *x = &lp->bufs[i];
    if (x->kind == LB_WORK && used[i] && !x->priv)
      buf_printf(b, "  %s *%s = work + %lld;\n  (void)%s;\n", rt, x->cname, (long long)(x->offset / (int64_t)es),
                 x->cname);
  }
  if (L->note)
    buf_printf(b, "  /* %s */\n", L->note);
  bool region = o->openmp && (L->flags & LF_PARALLEL) && lp_streams(L);
  if (L->flags & LF_REGION)                         /* R-CG-11, R-SCH-25 */
    region_open(lp, L, 2, true, o->openmp ? OMP_ON : OMP_OFF, b);
  else if (region)                                  /* R-CG-26 */
    buf_printf(b, "#ifndef __FRAMAC__\n  #pragma omp parallel\n#endif\n  {\n");
  c_loop_open(lp, L, 1, o->openmp ? OMP_ON : OMP_OFF, true, b);
  if (has_locals(lp, L))                            /* whole slices: the children are functions (R-CG-24) */
    prefetch_next(lp, L, NULL, 0, NULL, 4, true, b);
  for (int m = 0; m < L->nkids; m++) {
    memset(used, 0, (size_t)lp->nbufs * sizeof *used);
    reads_writes(L->kids[m], used, used);
    buf_printf(b, "    teil_part%d_%d(%s, ", k + 1, m + 1, v);
    for (int q = 0; q < lp->nparams; q++)
      buf_printf(b, "%s, ", lp->bufs[pb[q]].cname);
    buf_printf(b, "work");
    for (int i = 0; i < L->nlocals; i++)
      if (used[L->locals[i]])
        buf_printf(b, ", %s", lp->bufs[L->locals[i]].cname);
    buf_printf(b, ");\n");
  }
  free(pb);
  buf_printf(b, "  }\n");
  if (L->flags & LF_REGION)
    buf_printf(b, "  }\n");
  else if (region)
    buf_printf(b, "  teil_stream_fence();\n  }\n");
  else if (lp_streams(L))
    buf_printf(b, "  teil_stream_fence();\n");
  buf_printf(b, "}\n\n");
}

/* R-CG-26: teil_stream copies n elements, whole 64-byte lines of dst (32 or
 * 16 bytes with AVX or SSE2 only) with non-temporal stores. */
static void stream_copy_helper(const LProgram *lp, bool acsl, Buf *b) {
  static const struct { const char *isa; int bytes; const char *vec; } w[] = {
    {"defined(__AVX512F__)", 64, "_mm512"}, {"defined(__AVX__)", 32, "_mm256"}, {"1", 16, "_mm"}};
  const char *rt = real_t(lp), *sfx = lp->f32 ? "ps" : "pd";
  int es = lp->f32 ? 4 : 8;
  buf_printf(b, "/* R-CG-26: dst[0 .. n-1] = src[0 .. n-1]; the whole 64-byte lines of dst with\n"
                " * non-temporal stores, which write a line without reading it first. */\n");
  if (acsl)
    acsl_helper("teil_stream", b);
  buf_printf(b, "static void teil_stream(%s *restrict dst, const %s *restrict src, long long n)\n{\n"
                "  long long k = 0;\n", rt, rt);
  for (int i = 0; i < 3; i++) {
    int v = w[i].bytes / es;
    buf_printf(b, "#%s defined(TEIL_STREAM_X86) && %s\n", i ? "elif" : "if", w[i].isa);
    buf_printf(b, "  long long h = (long long)(((%d - ((uintptr_t)dst & %d)) & %d) / %d), m;\n"
                  "  if (h > n)\n    h = n;\n  m = h + (n - h) / %d * %d;\n",
               w[i].bytes, w[i].bytes - 1, w[i].bytes - 1, es, v, v);
    buf_printf(b, "  for (; k < h; k++)\n    dst[k] = src[k];\n");
    buf_printf(b, "  for (; k < m; k += %d)\n    %s_stream_%s(dst + k, %s_loadu_%s(src + k));\n",
               v, w[i].vec, sfx, w[i].vec, sfx);
  }
  buf_printf(b, "#endif\n");
  if (acsl)
    buf_printf(b, "  /*@ loop invariant 0 <= k <= n;\n      loop assigns k, dst[0 .. n-1];\n"
                  "      loop variant n - k; */\n");
  buf_printf(b, "  for (; k < n; k++)\n    dst[k] = src[k];\n}\n\n");
}

/* R-CG-26: teil_stream_fence orders a thread's non-temporal stores before what follows. */
static void stream_fence_helper(bool acsl, Buf *b) {
  if (acsl)
    acsl_helper("teil_stream_fence", b);
  buf_printf(b, "static void teil_stream_fence(void)\n{\n#ifdef TEIL_STREAM_X86\n  _mm_sfence();\n#endif\n}\n\n");
}

/* R-CG-25.1: whether the kernel holds a register block of 4 rows of 4 vectors. */
static bool block_4x4v(const LProgram *lp) {
  int64_t v4 = lp->f32 ? 64 : 32;
  for (int i = 0; i < lp->nbufs; i++) {
    const LBuf *x = &lp->bufs[i];
    if (x->used && x->kind == LB_LOCAL && x->why && !strncmp(x->why, "register block", 14) && x->rank == 2 &&
        x->dims[0] == 4 && x->dims[1] == v4)
      return true;
  }
  return false;
}

void cgen_c(const LProgram *lp, const Program *p, const CgenOptions *o, Buf *b) {
  (void)p;
  Buf up = {0};
  upper(o->func, &up);
  buf_printf(b, "/*\n * Generated by teilc from %s; do not edit. Rules: spec/compiler.md.\n *\n",
             o->source ? o->source : "<input>");
  if (o->program_text) {
    buf_printf(b, " * The program, as compiled%s:\n", lp->pad > 1 ? "" : "");
    for (const char *s = o->program_text; *s;) {
      const char *nl = strchr(s, '\n');
      int n = nl ? (int)(nl - s) : (int)strlen(s);
      buf_printf(b, " *   %.*s\n", n, s);
      s += n + (nl != NULL);
    }
    buf_printf(b, " *\n");
  }
  buf_printf(b, " * ");
  prototype(lp, o, b);
  buf_printf(b, "\n *\n * Parameters, in order:\n");
  tensor_doc(lp, " *", b);
  buf_printf(b, " *  %-10s workspace, %lld bytes\n *\n", "work", (long long)lp->work_bytes);
  contract_doc(lp, o, b);
  buf_printf(b, " */\n");
  if (o->main)                                      /* clock_gettime */
    buf_printf(b, "#define _POSIX_C_SOURCE 200809L\n");
  buf_printf(b, "#include <math.h>\n\n");
  bool streams = false;
  for (int i = 0; i < lp->ntop; i++)
    streams |= lp_streams(lp->top[i]);
  if (streams)                                      /* R-CG-26; before R-CG-25's pragma */
    buf_printf(b, "/* non-temporal stores on x86 (R-CG-26) */\n"
                  "#if (defined(__x86_64__) || defined(__i386__)) && defined(__SSE2__) && !defined(__FRAMAC__)\n"
                  "#include <immintrin.h>\n#include <stdint.h>\n#define TEIL_STREAM_X86 1\n#endif\n\n");
  bool lanes = false, lanes_mul = false, lanes_nt = false, runs = false;
  for (int i = 0; i < lp->ntop; i++) {
    lanes |= has_lanecopy(lp->top[i], &lanes_mul, &lanes_nt);
    runs |= has_stream_run(lp->top[i]);
  }
  dot_nkinds = 0;                                   /* R-CG-29 */
  for (int i = 0; i < lp->ntop; i++)
    dot_collect(lp, lp->top[i]);
  bool dots = dot_nkinds > 0;
  if ((lanes || dots) && !lp->f32)                  /* R-SCH-27, R-CG-29 */
    buf_printf(b, "/* 8 x 8 transposes with AVX-512 (%s) */\n"
                  "#if defined(__AVX512F__) && !defined(__FRAMAC__)\n"
                  "#include <immintrin.h>\n#define TEIL_LANES_AVX512 1\n#endif\n\n",
               !dots ? "R-SCH-27" : lanes ? "R-SCH-27, R-CG-29" : "R-CG-29");
  bool noiv = block_4x4v(lp);
  buf_printf(b, "/* no memset/memcpy calls for register blocks (R-CG-25)%s */\n"
                "#if defined(__GNUC__) && !defined(__clang__) && !defined(__FRAMAC__)\n"
                "#pragma GCC optimize (\"no-tree-loop-distribute-patterns\")\n%s"
                "#endif\n\n",
             noiv ? "; a 4 x 4V block's row in registers (R-CG-25.1)" : "",
             noiv ? "#pragma GCC optimize (\"no-ivopts\")\n" : "");
  buf_printf(b, "#define %s_WORK_BYTES %lld\n\n", up.s, (long long)lp->work_bytes);

  bool plain = false, guarded = false, min = false;
  for (int i = 0; i < lp->ntop; i++) {
    node_divs(lp->top[i], &plain, &guarded);
    min |= node_min(lp->top[i]);
  }
  if (o->acsl)                                      /* spec/acsl.md */
    acsl_preamble(lp, b);
  if (min) {
    buf_printf(b, "/* spec/schedule.md R-SCH-15: the bound of a partial block. */\n");
    if (o->acsl)
      acsl_helper("teil_min", b);
    buf_printf(b, "static inline long long teil_min(long long a, long long b) { return a < b ? a : b; }\n\n");
  }
  const char *rt = real_t(lp);
  if (plain) {
    buf_printf(b, "/* R-CG-6: v/0 is the undefined value (NaN), never an infinity. */\n");
    if (o->acsl)
      acsl_helper("teil_div", b);
    buf_printf(b, "static inline %s teil_div(%s n, %s d) { return d == 0 ? NAN : n / d; }\n\n", rt, rt, rt);
  }
  if (guarded) {
    buf_printf(b, "/* R-CG-10: controlled division; in a padding lane 0/0 is 0. */\n");
    if (o->acsl)
      acsl_helper("teil_divp", b);
    buf_printf(b, "static inline %s teil_divp(%s n, %s d, int pad) { return d == 0 ? (pad ? 0 : NAN) : n / d; }\n\n",
               rt, rt, rt);
  }

  if (runs)                                         /* not for streamed lane copy-outs alone (R-CG-26.1) */
    stream_copy_helper(lp, o->acsl, b);
  if (streams)
    stream_fence_helper(o->acsl, b);
  if (lanes)
    lanes_helpers(lp, o->acsl, lanes_mul, lanes_nt, b);
  if (dots) {                                       /* R-CG-29 */
    if (lanes)
      buf_printf(b, "/* R-CG-29 uses teil_transpose8 above. */\n");
    else
      transpose8_helper(b);
    dot_helpers(o->acsl, b);
  }
  bool regions = false;
  for (int i = 0; i < lp->ntop; i++)
    regions |= lp->top[i]->kind == LN_LOOP && (lp->top[i]->flags & LF_REGION);
  if (regions) {                                    /* R-CG-11, R-SCH-25; R-ACSL-4 */
    buf_printf(b, "/* R-CG-11: the thread number selects a copy of each private slice (R-SCH-25). */\n"
                  "#if defined(__FRAMAC__)\n"
                  "/*@ assigns \\nothing;\n    ensures 0 <= \\result < %d;\n*/\n"
                  "int teil_thread(void);\n"
                  "#elif defined(_OPENMP)\n"
                  "#include <omp.h>\n"
                  "static inline int teil_thread(void) { return omp_get_thread_num(); }\n"
                  "static inline int teil_threads(void) { int n = omp_get_max_threads(); return n < %d ? n : %d; }\n"
                  "#else\n"
                  "static inline int teil_thread(void) { return 0; }\n"
                  "#endif\n\n",
               LP_COPIES, LP_COPIES, LP_COPIES);
  }

  int nsites = 0;
  for (int i = 0; i < lp->ntop; i++)
    nsites += par_sites(lp->top[i], o->openmp ? OMP_ON : OMP_OFF, o->acsl);
  par_next = 0;
  if (nsites)
    par_helpers(nsites, b);

  if (o->acsl && lp->ntop > 0) {
    /* spec/acsl.md R-ACSL-7: with --acsl every top-level node is a static
     * function of its own, called in order, so that WP proves each against
     * its own contract (and in time linear in the kernel's size). */
    bool *used = xcalloc((size_t)lp->nbufs + 1, sizeof *used);
    for (int i = 0; i < lp->ntop; i++) {
      Buf name = {0};
      buf_printf(&name, "teil_part%d", i + 1);
      const LNode *L = lp->top[i];
      if (L->kind == LN_LOOP && L->nkids >= 2) {
        acsl_split(lp, o, i, used, b);               /* R-ACSL-10 */
        buf_free(&name);
        continue;
      }
      memset(used, 0, (size_t)lp->nbufs * sizeof *used);
      reads_writes(lp->top[i], used, used);
      acsl_contract(lp, lp->top[i], NULL, b);
      buf_printf(b, "static ");
      prototype_named(lp, name.s, b);
      c_body(lp, o, lp->top + i, 1, used, NULL, b);
      buf_printf(b, "\n");
      buf_free(&name);
    }
    free(used);
    acsl_contract(lp, NULL, NULL, b);
    prototype(lp, o, b);
    buf_printf(b, "\n{\n");
    int *pb = param_bufs(lp);
    for (int i = 0; i < lp->ntop; i++) {
      buf_printf(b, "  teil_part%d(", i + 1);
      for (int k = 0; k < lp->nparams; k++)
        buf_printf(b, "%s, ", lp->bufs[pb[k]].cname);
      buf_printf(b, "work);\n");
    }
    free(pb);
    buf_printf(b, "}\n");
  } else {
    if (o->acsl)
      acsl_contract(lp, NULL, NULL, b);
    prototype(lp, o, b);
    c_body(lp, o, lp->top, lp->ntop, NULL, NULL, b);
  }
  if (o->main) {
    if (o->acsl)                                    /* spec/acsl.md: WP proves the kernel only */
      buf_printf(b, "\n#ifndef __FRAMAC__");
    cgen_driver(lp, o, b);
    if (o->acsl)
      buf_printf(b, "#endif /* __FRAMAC__ */\n");
  }
  buf_free(&up);
}
