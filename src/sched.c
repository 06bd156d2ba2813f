/*
 * sched.c - schedules of teilc (spec/schedule.md): schedule files (R-SCH-1),
 * targets and levels (R-SCH-2), applying a schedule (R-SCH-3), the TeML loop
 * transformations stripmine, interchange, fuse_outer, fuse_inner, unroll,
 * tile, parallelize and vectorize (R-SCH-4 .. R-SCH-11) and distribute
 * (R-SCH-20, not in TeML) on the loop IR, and
 * the default schedule (R-SCH-17).
 *
 * Every transformation first checks the shape of the loop tree and the
 * bounds (R-SCH-15), then asks legality.c whether the dependences allow it
 * (R-SCH-12 .. R-SCH-14), and only then changes the tree; a refused step
 * changes nothing. The default schedule builds the same primitives and sends
 * them through the same functions.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compile.h"

#define MAX_UNROLL_STMTS 4096
#define MAX_STEPS 10000
#define MAX_NUMBER 2147483647LL
#define PRIVATE_MIN_RATIO 16.0      /* R-SCH-17 step 5: the reader's work against the copies' */
#define INLINE_MAX_REUSE 128.0      /* R-SCH-17 step 0: the reader's work against the temporary's */
#define BAND 8                      /* R-SCH-17 bands: rows of the panel per k block */
#define PRIVATE_MIN_SUM 20          /* R-SCH-17 step 2: the sums go outside for R-SCH-25 from this N_k */
#define PANEL_ROW_BYTES 4096        /* R-SCH-17 step 2: rows a page apart get a panel copy (R-SCH-26) */
#define PANEL_MIN_REUSE 4           /* R-SCH-17 step 2: panel copies when at least this many blocks read each panel */
#define PANEL_MIN_USES 300          /* R-SCH-17 step 2: ... and every copied element feeds at least this many rows */
#define TALL_MAX_ROWS 28           /* R-SCH-17.2: rows of a block with a computed vector operand */

/* ------------------------------------------------------------ schedule files (R-SCH-1) */

typedef enum {
  SP_STRIPMINE,
  SP_INTERCHANGE,
  SP_FUSE_OUTER,
  SP_FUSE_INNER,
  SP_UNROLL,
  SP_TILE,
  SP_PARALLELIZE,
  SP_VECTORIZE,
  SP_DISTRIBUTE,
  SP_SCALAR_REPLACE,
  SP_FUSE_BEFORE,
  SP_CONTRACT,
  SP_PACK,
  SP_PANEL,
  SP_PRIVATE,
  SP_LANES,
  SP_INLINE
} SPrimKind;

typedef struct Prim {
  const char *name;
  SPrimKind kind;
  int minargs, maxargs;       /* numbers, after the target argument of fuse_outer */
  bool other;                 /* the first argument is a target */
  const char *usage;
} Prim;

static const Prim prims[] = {
    {"stripmine", SP_STRIPMINE, 2, 2, false, "stripmine LEVEL FACTOR"},
    {"interchange", SP_INTERCHANGE, 2, 2, false, "interchange LEVEL1 LEVEL2"},
    {"fuse_outer", SP_FUSE_OUTER, 1, 1, true, "fuse_outer TARGET LEVEL"},
    {"fuse_inner", SP_FUSE_INNER, 1, 1, false, "fuse_inner LEVEL"},
    {"unroll", SP_UNROLL, 1, 2, false, "unroll LEVEL [FACTOR]"},
    {"tile", SP_TILE, 3, 4, false, "tile LEVEL1 LEVEL2 FACTOR1 [FACTOR2]"},
    {"parallelize", SP_PARALLELIZE, 1, 1, false, "parallelize LEVEL"},
    {"vectorize", SP_VECTORIZE, 1, 1, false, "vectorize LEVEL"},
    {"distribute", SP_DISTRIBUTE, 1, 1, false, "distribute LEVEL"},
    {"scalar_replace", SP_SCALAR_REPLACE, 1, 1, false, "scalar_replace LEVEL"},
    {"fuse_before", SP_FUSE_BEFORE, 1, 1, false, "fuse_before LEVEL"},
    {"contract", SP_CONTRACT, 1, 1, false, "contract LEVEL"},
    {"pack", SP_PACK, 1, 2, true, "pack TENSOR DIM [LEVEL]"},
    {"panel", SP_PANEL, 0, 0, true, "panel TENSOR"},
    {"private", SP_PRIVATE, 1, 1, false, "private LEVEL"},
    {"lanes", SP_LANES, 0, 0, false, "lanes"},
    {"inline", SP_INLINE, 0, 0, false, "inline"},
};
#define NPRIMS ((int)(sizeof prims / sizeof prims[0]))

/* Whether a step's first argument names a tensor (pack, panel) rather than a target. */
static bool names_tensor(SPrimKind k) { return k == SP_PACK || k == SP_PANEL; }

typedef struct STarget {
  char *name;
  int occ;                    /* NAME#occ, 1 without # */
  int col;
  int unit;                   /* >= 0: a unit index (default schedule), else resolve by name */
} STarget;

typedef struct SStep {
  const Prim *prim;
  int line, col;              /* of the primitive's name */
  STarget target, other;
  int narg;
  int64_t arg[4];
  int argcol[4];
} SStep;

struct Schedule {
  char *file;
  SStep *steps;
  int n, cap;
};

void sched_free(Schedule *s) {
  if (!s)
    return;
  for (int i = 0; i < s->n; i++) {
    free(s->steps[i].target.name);
    free(s->steps[i].other.name);
  }
  free(s->steps);
  free(s->file);
  free(s);
}

int sched_nsteps(const Schedule *s) { return s ? s->n : 0; }

static bool is_ws(char c) { return c == ' ' || c == '\t'; }
static bool is_eol(const char *p, const char *end) { return p >= end || *p == '\n' || (*p == '\r' && (p + 1 >= end || p[1] == '\n')); }
static bool name_start(char c) { return isalpha((unsigned char)c) || c == '_'; }
static bool name_char(char c) { return isalnum((unsigned char)c) || c == '_'; }

typedef struct SParser {
  const char *file;
  const char *line_start, *p, *end;
  int line;
  char *err;
  size_t errlen;
} SParser;

static int perr(SParser *ps, const char *at, const char *fmt, const char *arg) {
  char msg[512];
  snprintf(msg, sizeof msg, fmt, arg);
  snprintf(ps->err, ps->errlen, "%s:%d:%d: error: %s", ps->file, ps->line, (int)(at - ps->line_start) + 1, msg);
  return -1;
}

/* A token's text for messages (at most 40 bytes, up to white space). */
static void token_text(const char *p, const char *end, char *buf, size_t n) {
  size_t k = 0;
  while (p + k < end && !is_ws(p[k]) && p[k] != '\n' && p[k] != '\r' && k < 40 && k + 1 < n)
    k++;
  if (k == 0 && p < end && k + 1 < n && p[0] != '\n')
    k = 1;
  memcpy(buf, p, k);
  buf[k] = 0;
  for (size_t i = 0; i < k; i++)
    if ((unsigned char)buf[i] < 0x20 || (unsigned char)buf[i] > 0x7e)
      buf[i] = '?';
}

static int parse_number(SParser *ps, int64_t *out) {
  const char *s = ps->p;
  int64_t v = 0;
  while (ps->p < ps->end && isdigit((unsigned char)*ps->p)) {
    v = v * 10 + (*ps->p - '0');
    if (v > MAX_NUMBER)
      return perr(ps, s, "number too large (the limit is %s)", "2147483647");
    ps->p++;
  }
  *out = v;
  return 0;
}

static int parse_target(SParser *ps, STarget *t, const char *what) {
  char tok[64];
  if (ps->p >= ps->end || !name_start(*ps->p)) {
    token_text(ps->p, ps->end, tok, sizeof tok);
    if (is_eol(ps->p, ps->end))
      return perr(ps, ps->p, "expected %s, found the end of the line", what);
    char msg[160];
    snprintf(msg, sizeof msg, "expected %s, found '%s'", what, tok);
    return perr(ps, ps->p, "%s", msg);
  }
  const char *s = ps->p;
  t->col = (int)(s - ps->line_start) + 1;
  while (ps->p < ps->end && name_char(*ps->p))
    ps->p++;
  t->name = strndup(s, (size_t)(ps->p - s));
  if (!t->name)
    return perr(ps, s, "%s", "out of memory");
  t->occ = 1;
  t->unit = -1;
  if (ps->p < ps->end && *ps->p == '#') {          /* NAME#k: an occurrence, not a comment */
    ps->p++;
    if (ps->p >= ps->end || !isdigit((unsigned char)*ps->p))
      return perr(ps, ps->p, "expected an occurrence number after '#' (as in %s#2)", t->name);
    int64_t k;
    const char *ks = ps->p;
    if (parse_number(ps, &k))
      return -1;
    if (k < 1)
      return perr(ps, ks, "occurrences count from 1; '%s#0' names no statement", t->name);
    t->occ = (int)k;
  }
  if (ps->p < ps->end && !is_ws(*ps->p) && !is_eol(ps->p, ps->end) && *ps->p != ':') {
    token_text(ps->p, ps->end, tok, sizeof tok);
    return perr(ps, ps->p, "unexpected '%s' after the target name", tok);
  }
  return 0;
}

static void skip_ws(SParser *ps) {
  while (ps->p < ps->end && is_ws(*ps->p))
    ps->p++;
}

static int parse_step(SParser *ps, SStep *st) {
  char tok[64];
  memset(st, 0, sizeof *st);
  st->other.unit = -1;
  if (parse_target(ps, &st->target, "a target (the name of an assigned tensor)"))
    return -1;
  skip_ws(ps);
  if (ps->p >= ps->end || *ps->p != ':') {
    if (is_eol(ps->p, ps->end))
      return perr(ps, ps->p, "expected ':' after the target '%s', found the end of the line", st->target.name);
    token_text(ps->p, ps->end, tok, sizeof tok);
    return perr(ps, ps->p, "expected ':' after the target, found '%s'", tok);
  }
  ps->p++;
  skip_ws(ps);
  const char *ns = ps->p;
  if (ps->p >= ps->end || !name_start(*ps->p)) {
    if (is_eol(ps->p, ps->end))
      return perr(ps, ps->p, "expected a primitive after ':' (%s)", "stripmine, interchange, fuse_outer, fuse_inner, unroll, tile, parallelize, vectorize, distribute, scalar_replace, fuse_before, contract, pack, panel, private, lanes or inline");
    token_text(ps->p, ps->end, tok, sizeof tok);
    return perr(ps, ps->p, "expected a primitive after ':', found '%s'", tok);
  }
  while (ps->p < ps->end && name_char(*ps->p))
    ps->p++;
  size_t nlen = (size_t)(ps->p - ns);
  for (int i = 0; i < NPRIMS; i++)
    if (strlen(prims[i].name) == nlen && !memcmp(prims[i].name, ns, nlen))
      st->prim = &prims[i];
  st->line = ps->line;
  st->col = (int)(ns - ps->line_start) + 1;
  if (!st->prim) {
    token_text(ns, ps->end, tok, sizeof tok);
    char msg[300];
    snprintf(msg, sizeof msg,
             "unknown primitive '%s' (expected stripmine, interchange, fuse_outer, fuse_inner, unroll, tile, "
             "parallelize, vectorize, distribute, scalar_replace, fuse_before, contract, pack, panel, private, lanes or inline)",
             tok);
    return perr(ps, ns, "%s", msg);
  }
  const Prim *pr = st->prim;
  bool need_other = pr->other;
  for (;;) {
    bool ws = ps->p < ps->end && is_ws(*ps->p);
    skip_ws(ps);
    if (is_eol(ps->p, ps->end) || (ws && *ps->p == '#'))
      break;
    if (!ws) {
      token_text(ps->p, ps->end, tok, sizeof tok);
      return perr(ps, ps->p, "unexpected '%s' (arguments are separated by white space)", tok);
    }
    if (need_other) {
      if (parse_target(ps, &st->other, names_tensor(pr->kind) ? "the tensor to pack" : "the target to fuse with"))
        return -1;
      need_other = false;
      continue;
    }
    if (!isdigit((unsigned char)*ps->p)) {
      token_text(ps->p, ps->end, tok, sizeof tok);
      char msg[300];
      snprintf(msg, sizeof msg, "expected a number, found '%s' (usage: %s)", tok, pr->usage);
      return perr(ps, ps->p, "%s", msg);
    }
    if (st->narg == pr->maxargs) {
      char msg[300];
      snprintf(msg, sizeof msg, "too many arguments (usage: %s)", pr->usage);
      return perr(ps, ps->p, "%s", msg);
    }
    st->argcol[st->narg] = (int)(ps->p - ps->line_start) + 1;
    if (parse_number(ps, &st->arg[st->narg]))
      return -1;
    if (ps->p < ps->end && !is_ws(*ps->p) && !is_eol(ps->p, ps->end)) {
      token_text(ps->p, ps->end, tok, sizeof tok);
      return perr(ps, ps->p, "unexpected '%s' after a number", tok);
    }
    st->narg++;
  }
  if (need_other || st->narg < pr->minargs) {
    char msg[300];
    snprintf(msg, sizeof msg, "too few arguments (usage: %s)", pr->usage);
    return perr(ps, ps->p, "%s", msg);
  }
  /* levels are 1-based (R-SCH-2); factors at least 2 (R-SCH-4, R-SCH-8, R-SCH-9) */
  for (int i = 0; i < st->narg; i++) {
    bool factor = (pr->kind == SP_STRIPMINE && i == 1) || (pr->kind == SP_UNROLL && i == 1) || (pr->kind == SP_TILE && i >= 2);
    const char *at = ps->line_start + st->argcol[i] - 1;
    if (!factor && st->arg[i] < 1)
      return perr(ps, at, "levels count from 1 (the outermost loop is level 1); %s is not a level", "0");
    if (factor && st->arg[i] < 2) {
      char v[32];
      snprintf(v, sizeof v, "%lld", (long long)st->arg[i]);
      return perr(ps, at, "a factor must be at least 2, not %s", v);
    }
  }
  return 0;
}

Schedule *sched_parse(const char *file, const char *text, size_t len, char *err, size_t errlen) {
  Schedule *s = xcalloc(1, sizeof *s);
  s->file = strdup(file ? file : "<schedule>");
  SParser ps = {s->file, text, text, text + len, 1, err, errlen};
  while (ps.p < ps.end) {
    ps.line_start = ps.p;
    skip_ws(&ps);
    if (!is_eol(ps.p, ps.end) && *ps.p != '#') {
      if (s->n == MAX_STEPS) {
        perr(&ps, ps.p, "too many steps (the limit is %s)", "10000");
        sched_free(s);
        return NULL;
      }
      if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 16;
        SStep *n = xcalloc((size_t)s->cap, sizeof *n);
        if (s->n)
          memcpy(n, s->steps, (size_t)s->n * sizeof *n);
        free(s->steps);
        s->steps = n;
      }
      SStep *st = &s->steps[s->n];
      int rc = parse_step(&ps, st);
      s->n++;                                       /* owned names are freed with s */
      if (rc) {
        sched_free(s);
        return NULL;
      }
    }
    while (ps.p < ps.end && *ps.p != '\n') {        /* the rest is a comment */
      if (*ps.p == 0) {
        perr(&ps, ps.p, "%s", "NUL byte in the schedule file");
        sched_free(s);
        return NULL;
      }
      ps.p++;
    }
    if (ps.p < ps.end)
      ps.p++;
    ps.line++;
  }
  return s;
}

Schedule *sched_load(const char *file, char *err, size_t errlen, bool *io) {
  if (io)
    *io = false;
  FILE *f = fopen(file, "rb");
  if (!f) {
    snprintf(err, errlen, "cannot open schedule '%s': %s", file, strerror(errno));
    if (io)
      *io = true;
    return NULL;
  }
  size_t cap = 4096, n = 0;
  char *buf = xmalloc(cap);
  for (;;) {
    if (n == cap) {
      if (cap > ((size_t)1 << 26)) {
        fclose(f);
        free(buf);
        snprintf(err, errlen, "schedule '%s' is larger than 64 MiB", file);
        if (io)
          *io = true;
        return NULL;
      }
      char *b = xmalloc(2 * cap);
      memcpy(b, buf, n);
      free(buf);
      buf = b;
      cap *= 2;
    }
    size_t k = fread(buf + n, 1, cap - n, f);
    n += k;
    if (k == 0)
      break;
  }
  bool bad = ferror(f) != 0;
  fclose(f);
  if (bad) {
    free(buf);
    snprintf(err, errlen, "cannot read schedule '%s'", file);
    if (io)
      *io = true;
    return NULL;
  }
  Schedule *s = sched_parse(file, buf, n, err, errlen);
  free(buf);
  return s;
}

/* ------------------------------------------------------------ tree helpers */



static int index_in(LProgram *lp, LNode *parent, const LNode *kid) {
  int n;
  LNode **k = lp_kids(lp, parent, &n);
  for (int i = 0; i < n; i++)
    if (k[i] == kid)
      return i;
  return -1;
}

static void replace_node(LProgram *lp, LNode *parent, LNode *old, LNode *fresh) {
  int n;
  LNode **k = lp_kids(lp, parent, &n);
  int i = index_in(lp, parent, old);
  if (i >= 0)
    k[i] = fresh;
}

static int count_stmts(const LNode *n) {
  if (n->kind == LN_STMT)
    return 1;
  int c = 0;
  for (int i = 0; i < n->nkids && c <= MAX_UNROLL_STMTS; i++)
    c += count_stmts(n->kids[i]);
  return c;
}

static int stmts_below(const LNode *n) {
  if (n->kind == LN_STMT)
    return 1;
  int c = 0;
  for (int i = 0; i < n->nkids; i++)
    c += stmts_below(n->kids[i]);
  return c;
}

static bool any_parallel(const LNode *n) {
  if (n->kind == LN_STMT)
    return false;
  if (n->flags & LF_PARALLEL)
    return true;
  for (int i = 0; i < n->nkids; i++)
    if (any_parallel(n->kids[i]))
      return true;
  return false;
}

static bool name_used_by_iter(const LProgram *lp, const char *name) {
  for (int i = 0; i < lp->nits; i++)
    if (lp->its[i].name && !strcmp(lp->its[i].name, name))
      return true;
  return false;
}

/* A new iterator name from base + suffix, unused by any iterator and free at function scope. */
static const char *fresh_name(LProgram *lp, const char *base, const char *suffix) {
  Buf b = {0};
  buf_printf(&b, "%s%s", base, suffix);
  while (name_used_by_iter(lp, b.s) || lp_taken(lp, b.s) || cgen_reserved(b.s))
    buf_printf(&b, "_");
  char *r = arena_strndup(&lp->arena, b.s, b.len);
  buf_free(&b);
  return r;
}

/* R-SCH-15: no loop's iterator shares its C name with an enclosing loop's. */
static void fix_names_rec(LProgram *lp, LNode *n, const char **stack, int depth) {
  if (n->kind == LN_STMT || depth >= MAXDEPTH)
    return;
  const char *nm = lp->its[n->it].name;
  bool clash = false;
  for (int i = 0; i < depth; i++)
    if (!strcmp(stack[i], nm))
      clash = true;
  if (clash) {
    Buf b = {0};
    buf_printf(&b, "%s_", nm);
    for (;;) {
      bool bad = lp_taken(lp, b.s) || cgen_reserved(b.s);
      for (int i = 0; i < depth && !bad; i++)
        bad = !strcmp(stack[i], b.s);
      if (!bad)
        break;
      buf_printf(&b, "_");
    }
    lp->its[n->it].name = arena_strndup(&lp->arena, b.s, b.len);
    buf_free(&b);
  }
  stack[depth] = lp->its[n->it].name;
  for (int i = 0; i < n->nkids; i++)
    fix_names_rec(lp, n->kids[i], stack, depth + 1);
}

static void fix_names(LProgram *lp) {
  const char *stack[MAXDEPTH];
  for (int i = 0; i < lp->ntop; i++)
    fix_names_rec(lp, lp->top[i], stack, 0);
}

/* A copy of the top-level nests top[first, first + n) (all of them, or the ones a
 * step may change), to undo a composite step (tile, fuse_inner, fuse_before). */
typedef struct Snap {
  LNode **top;                /* the copies of the n nests */
  int first, n, ntop;         /* where they were, and lp->ntop then */
  LNode **from, **to;         /* statements: original -> copy */
  int nst, cap;
  Arena arena;                /* the copy's nodes */
} Snap;

static void snap_stmt(void *ctx, LNode *from, LNode *to) {
  Snap *s = ctx;
  if (s->nst == s->cap) {
    s->cap = s->cap ? 2 * s->cap : 64;
    LNode **f = xcalloc((size_t)s->cap, sizeof *f), **t = xcalloc((size_t)s->cap, sizeof *t);
    if (s->nst) {
      memcpy(f, s->from, (size_t)s->nst * sizeof *f);
      memcpy(t, s->to, (size_t)s->nst * sizeof *t);
    }
    free(s->from);
    free(s->to);
    s->from = f;
    s->to = t;
  }
  s->from[s->nst] = from;
  s->to[s->nst++] = to;
}

/* The copy lives in an arena of its own, freed when the copy is dropped (most
 * steps are legal), and handed to the program's arena when it is restored. The
 * step may change, replace or remove the nests of the range (a fusion merges two
 * into one) but no other top-level node. */
static void snap_take_range(LProgram *lp, Snap *s, int first, int n) {
  memset(s, 0, sizeof *s);
  s->first = first;
  s->n = n;
  s->ntop = lp->ntop;
  s->top = xcalloc((size_t)n + 1, sizeof *s->top);
  Arena main = lp->arena;
  lp->arena = (Arena){0};
  for (int i = 0; i < n; i++)
    s->top[i] = lp_clone(lp, lp->top[first + i], false, true, snap_stmt, s);
  s->arena = lp->arena;
  lp->arena = main;
}

static void snap_take(LProgram *lp, Snap *s) { snap_take_range(lp, s, 0, lp->ntop); }

static void snap_release(Snap *s) {
  free(s->from);
  free(s->to);
  free(s->top);
}

/* Keeps the current tree and drops the copy. */
static void snap_drop(Snap *s) {
  for (int i = 0; i < s->n; i++)
    lp_free_tree(s->top[i]);
  arena_free(&s->arena);
  snap_release(s);
}

/* Goes back to the copy: the range, now cur nests long, gives way to the copies. */
static void snap_restore(LProgram *lp, Snap *s) {
  int cur = s->n - (s->ntop - lp->ntop), tail = lp->ntop - s->first - cur;
  for (int i = 0; i < cur; i++)
    lp_free_tree(lp->top[s->first + i]);
  LNode **top = xcalloc((size_t)s->ntop + 1, sizeof *top);
  memcpy(top, lp->top, (size_t)s->first * sizeof *top);
  memcpy(top + s->first, s->top, (size_t)s->n * sizeof *top);
  memcpy(top + s->first + s->n, lp->top + s->first + cur, (size_t)tail * sizeof *top);
  free(lp->top);
  lp->top = top;
  lp->ntop = lp->captop = s->ntop;
  arena_move(&lp->arena, &s->arena);
  for (int u = 0; u < lp->nunits; u++)
    for (int i = 0; i < s->nst; i++)
      if (s->from[i] == lp->units[u].stmt) {
        lp->units[u].stmt = s->to[i];
        break;
      }
  snap_release(s);
}

/* Ends a step tried on the tree: keeps it when rc is 0, else goes back to the copy. */
static void snap_end(LProgram *lp, Snap *s, int rc) {
  if (rc)
    snap_restore(lp, s);
  else
    snap_drop(s);
}

/* ------------------------------------------------------------ the primitives */

typedef struct Ctx {
  LProgram *lp;
  const char *tname;          /* the target for messages ("C", "C#2") */
  Buf *why;
  int line;                   /* the schedule line, 0 for the default schedule */
} Ctx;

static LAff *aff_plus(LProgram *lp, const LAff *a, int64_t c) {
  LAff *r = arena_alloc(&lp->arena, sizeof *r);
  *r = lp_aff_copy(lp, a);
  r->c += c;
  return r;
}

/* ub - lb if it is a constant (no min bound, equal iterator terms). */
static bool const_extent(const LNode *l, int64_t *d) {
  return !l->nubx && lp_aff_const_diff(&l->ub, &l->lb, d);
}

static void loop_str(const LProgram *lp, const LNode *l, Buf *b) {
  buf_printf(b, "for %s in [", lp->its[l->it].name);
  lp_print_aff(lp, &l->lb, b);
  buf_printf(b, ", ");
  if (l->nubx)
    buf_printf(b, "min(");
  lp_print_aff(lp, &l->ub, b);
  for (int k = 0; k < l->nubx; k++) {
    buf_printf(b, ", ");
    lp_print_aff(lp, &l->ubx[k], b);
  }
  buf_printf(b, "%s)", l->nubx ? ")" : "");
  if (l->step != 1)
    buf_printf(b, " step %lld", (long long)l->step);
}

/* R-SCH-4. path[l] is split; always legal. */
static int do_stripmine(Ctx *c, LNode **path, int l, int64_t f) {
  LProgram *lp = c->lp;
  LNode *L = path[l];
  int64_t sf;
  if (__builtin_mul_overflow(L->step, f, &sf) || sf > ((int64_t)1 << 40)) {
    buf_printf(c->why, "stripmine of level %d in %s: the factor %lld times the step %lld is too large", l + 1, c->tname,
               (long long)f, (long long)L->step);
    return -1;
  }
  const LIter *v = &lp->its[L->it];
  int it = lp_add_iter(lp, fresh_name(lp, lp->its[L->it].name, "t"), v->n);
  lp->its[it].p = lp->its[L->it].p;
  LNode *outer = lp_loop(lp, it, 0, 0, L->flags & LF_REDUCTION);
  outer->lb = lp_aff_copy(lp, &L->lb);
  outer->ub = lp_aff_copy(lp, &L->ub);
  outer->nubx = L->nubx;
  if (L->nubx) {
    outer->ubx = arena_alloc(&lp->arena, (size_t)L->nubx * sizeof *outer->ubx);
    for (int k = 0; k < L->nubx; k++)
      outer->ubx[k] = lp_aff_copy(lp, &L->ubx[k]);
  }
  outer->step = sf;
  outer->note = L->note;
  L->note = NULL;
  int64_t d;
  bool exact = const_extent(L, &d) && d % sf == 0;
  LAff *vt = lp_aff_iter(lp, it);
  LAff old_ub = L->ub;
  LAff *old_ubx = L->ubx;
  int old_n = L->nubx;
  L->lb = *vt;
  L->ub = *aff_plus(lp, vt, sf);
  if (exact) {
    L->ubx = NULL;
    L->nubx = 0;
  } else {                                          /* the last block may be shorter */
    L->nubx = old_n + 1;
    L->ubx = arena_alloc(&lp->arena, (size_t)L->nubx * sizeof *L->ubx);
    L->ubx[0] = old_ub;
    for (int k = 0; k < old_n; k++)
      L->ubx[k + 1] = old_ubx[k];
  }
  replace_node(lp, l > 0 ? path[l - 1] : NULL, L, outer);
  lp_append(lp, outer, L);
  return 0;
}

/* R-SCH-5: an interchange swaps the headers of two loops (iterator, bounds,
 * step, flags and the schedule lines that set them); their bodies stay. */
static void swap_header(LNode *x, LNode *y) {
  LNode t = *x;
#define SWAP_FIELD(f) (x->f = y->f, y->f = t.f)
  SWAP_FIELD(it);
  SWAP_FIELD(lb);
  SWAP_FIELD(ub);
  SWAP_FIELD(ubx);
  SWAP_FIELD(nubx);
  SWAP_FIELD(step);
  SWAP_FIELD(flags);
  SWAP_FIELD(par_line);
  SWAP_FIELD(simd_line);
#undef SWAP_FIELD
}

/* R-SCH-5: swaps path[a] and path[b], a < b. */
static int do_interchange(Ctx *c, LNode **path, int a, int b, const char *what) {
  LProgram *lp = c->lp;
  for (int k = a; k < b; k++)
    if (path[k]->nkids != 1 || path[k]->kids[0] != path[k + 1]) {
      buf_printf(c->why, "%s: the loops are not perfectly nested: level %d holds %d nodes, TeML's interchange needs the "
                         "loop of level %d as its only child",
                 what, k + 1, path[k]->nkids, k + 2);
      return -1;
    }
  for (int k = a; k < b; k++)
    if (lp_bounds_use(path[b], path[k]->it)) {
      buf_printf(c->why, "%s: the bounds of level %d (", what, b + 1);
      loop_str(lp, path[b], c->why);
      buf_printf(c->why, ") use the iterator %s of level %d, so that loop cannot move outside it", lp->its[path[k]->it].name,
                 k + 1);
      return -1;
    }
  for (int k = a + 1; k < b; k++)
    if (lp_bounds_use(path[k], path[a]->it)) {
      buf_printf(c->why, "%s: the bounds of level %d (", what, k + 1);
      loop_str(lp, path[k], c->why);
      buf_printf(c->why, ") use the iterator %s of level %d, which would move inside it", lp->its[path[a]->it].name, a + 1);
      return -1;
    }
  if (leg_interchange(lp, path, a, b, what, c->why))
    return -1;
  swap_header(path[a], path[b]);
  return 0;
}

/* Whether loops x (X's chain) and y (Y's chain) have the same range once Y's
 * iterators ys[0..n) are identified with X's xs[0..n). */
static bool same_range(LProgram *lp, const LNode *x, const LNode *y, const int *xs, const int *ys, int n) {
  if (x->step != y->step || x->nubx != y->nubx)
    return false;
  for (int k = -2; k < y->nubx; k++) {
    LAff a = lp_aff_copy(lp, k == -2 ? &y->lb : k == -1 ? &y->ub : &y->ubx[k]);
    for (int m = 0; m < n; m++)
      a = lp_aff_subst(lp, &a, ys[m], lp_aff_iter(lp, xs[m]));
    if (!lp_aff_equal(&a, k == -2 ? &x->lb : k == -1 ? &x->ub : &x->ubx[k]))
      return false;
  }
  return true;
}

/* What a fusion changed in X's chain, to take it back (fuse_undo). */
typedef struct FuseUndo {
  LNode *cx[MAXDEPTH];
  int n, nkids;               /* the chain's length; the last loop's kids before */
  int *locals[MAXDEPTH], nlocals[MAXDEPTH], par_line[MAXDEPTH], simd_line[MAXDEPTH];
  unsigned flags[MAXDEPTH];
} FuseUndo;

/* Gives X's chain back its loops and body; Y's statements merged into it are freed. */
static void fuse_undo(FuseUndo *un) {
  LNode *bx = un->cx[un->n - 1];
  for (int i = un->nkids; i < bx->nkids; i++)
    lp_free_tree(bx->kids[i]);
  bx->nkids = un->nkids;
  for (int m = 0; m < un->n; m++) {
    LNode *x = un->cx[m];
    x->locals = un->locals[m];
    x->nlocals = un->nlocals[m];
    x->flags = un->flags[m];
    x->par_line = un->par_line[m];
    x->simd_line = un->simd_line[m];
  }
}

/* R-SCH-6: fuses the sibling subtrees X (first) and Y below prefix[0..k-1] at
 * levels k..last (0-based): their single-child chains merge, Y's body follows X's.
 * With un, what changes in X is recorded there (Y is taken out whole). */
static int fuse_siblings(Ctx *c, LNode **prefix, int k, LNode *X, LNode *Y, int last, const char *what,
                         FuseUndo *un) {
  LProgram *lp = c->lp;
  int n = last - k + 1;
  LNode *cx[MAXDEPTH], *cy[MAXDEPTH];
  if (n > MAXDEPTH) {
    buf_printf(c->why, "%s: too many levels", what);
    return -1;
  }
  LNode *x = X, *y = Y;
  for (int m = 0; m < n; m++) {
    if (x->kind != LN_LOOP || y->kind != LN_LOOP) {
      buf_printf(c->why, "%s: there is no loop at level %d in both nests", what, k + m + 1);
      return -1;
    }
    cx[m] = x;
    cy[m] = y;
    if (m + 1 < n) {
      for (int side = 0; side < 2; side++) {
        LNode *z = side ? y : x;
        if (z->nkids != 1 || z->kids[0]->kind != LN_LOOP) {
          buf_printf(c->why, "%s: level %d of the %s nest is not perfectly nested (it holds %d nodes; TeML's fusion needs "
                             "one loop)",
                     what, k + m + 1, side ? "second" : "first", z->nkids);
          return -1;
        }
      }
      x = x->kids[0];
      y = y->kids[0];
    }
  }
  int xs[MAXDEPTH], ys[MAXDEPTH];
  for (int m = 0; m < n; m++) {
    if (!same_range(lp, cx[m], cy[m], xs, ys, m)) {
      buf_printf(c->why, "%s: the loops at level %d have different ranges: ", what, k + m + 1);
      loop_str(lp, cx[m], c->why);
      buf_printf(c->why, " and ");
      loop_str(lp, cy[m], c->why);
      return -1;
    }
    xs[m] = cx[m]->it;
    ys[m] = cy[m]->it;
  }
  LNode *parent = k > 0 ? prefix[k - 1] : NULL;
  int ix = index_in(lp, parent, X), iy = index_in(lp, parent, Y);
  if (ix < 0 || iy <= ix) {
    buf_printf(c->why, "%s: internal error: the nests are not siblings in order", what);
    return -1;
  }
  int nk;
  LNode **kids = lp_kids(lp, parent, &nk);
  for (int i = ix + 1; i < iy; i++)
    if (leg_move(lp, prefix, k, kids[i], Y, what, c->why))
      return -1;
  if (leg_fuse(lp, prefix, k, X, Y, last, what, c->why))
    return -1;
  /* merge */
  lp_remove(lp, parent, iy);
  LNode *by = cy[n - 1], *bx = cx[n - 1];
  if (un) {
    un->n = n;
    un->nkids = bx->nkids;
    for (int m = 0; m < n; m++) {
      un->cx[m] = cx[m];
      un->locals[m] = cx[m]->locals;
      un->nlocals[m] = cx[m]->nlocals;
      un->flags[m] = cx[m]->flags;
      un->par_line[m] = cx[m]->par_line;
      un->simd_line[m] = cx[m]->simd_line;
    }
  }
  const char *note = NULL;
  for (int m = 0; m < n; m++) {
    if (cy[m]->nlocals) {                           /* R-SCH-21: the merged body declares both */
      int *loc = arena_alloc(&lp->arena, (size_t)(cx[m]->nlocals + cy[m]->nlocals) * sizeof *loc);
      if (cx[m]->nlocals)
        memcpy(loc, cx[m]->locals, (size_t)cx[m]->nlocals * sizeof *loc);
      memcpy(loc + cx[m]->nlocals, cy[m]->locals, (size_t)cy[m]->nlocals * sizeof *loc);
      cx[m]->locals = loc;
      cx[m]->nlocals += cy[m]->nlocals;
    }
    if (!note && cy[m]->note)
      note = cy[m]->note;
    cx[m]->flags |= cy[m]->flags;
    if (!cx[m]->par_line)
      cx[m]->par_line = cy[m]->par_line;
    if (!cx[m]->simd_line)
      cx[m]->simd_line = cy[m]->simd_line;
  }
  for (int i = 0; i < by->nkids; i++) {
    LNode *kid = by->kids[i];
    for (int m = 0; m < n; m++)
      lp_subst_tree(lp, kid, ys[m], lp_aff_iter(lp, xs[m]));
    if (i == 0 && note && !kid->note)
      kid->note = note;
    lp_append(lp, bx, kid);
  }
  for (int m = 0; m < n; m++) {
    free(cy[m]->kids);
    cy[m]->kids = NULL;
    cy[m]->nkids = cy[m]->capkids = 0;
  }
  return 0;
}

/* R-SCH-8: a loop [v + a, min(v + a + F, U…)) with constant U…, the block of a
 * stripmined loop whose last block is partial: *f receives F. */
static bool partial_block(const LNode *U, int64_t *f) {
  LNode x = *U;
  x.nubx = 0;
  if (!U->nubx || !const_extent(&x, f) || lp_aff_is_const(&U->lb))
    return false;
  for (int k = 0; k < U->nubx; k++)
    if (!lp_aff_is_const(&U->ubx[k]))
      return false;
  return true;
}

/* R-SCH-8: unrolls path[l] completely (f == 0 or f >= trip) or by f; a complete
 * unroll of a partial block is deferred (R-CG-19.3). */
static int do_unroll(Ctx *c, LNode **path, int l, int64_t f) {
  LProgram *lp = c->lp;
  LNode *U = path[l];
  int64_t d;
  if (partial_block(U, &d) && U->step == 1 && (f == 0 || f >= d) && !U->nlocals &&
      (int64_t)count_stmts(U) * d <= MAX_UNROLL_STMTS) {
    U->flags |= LF_UNROLL;                          /* deferred: unrolled after the split (R-CG-19.3) */
    return 0;
  }
  if (!const_extent(U, &d)) {
    buf_printf(c->why, "unroll of level %d in %s: the trip count of ", l + 1, c->tname);
    loop_str(lp, U, c->why);
    buf_printf(c->why, " is not a constant");
    return -1;
  }
  int64_t trip = d <= 0 ? 0 : (d + U->step - 1) / U->step;
  if (trip == 0) {
    buf_printf(c->why, "unroll of level %d in %s: the loop runs no iteration", l + 1, c->tname);
    return -1;
  }
  bool complete = f == 0 || f >= trip;
  if (complete && U->nlocals) {                     /* R-SCH-21 */
    buf_printf(c->why, "unroll of level %d in %s: the loop holds the register block %s; a complete unroll would remove "
                       "the loop that declares it",
               l + 1, c->tname, lp->bufs[U->locals[0]].cname);
    return -1;
  }
  int64_t copies = complete ? trip : f;
  int64_t body = 0;
  for (int i = 0; i < U->nkids; i++)
    body += count_stmts(U->kids[i]);
  if (body * copies > MAX_UNROLL_STMTS) {
    buf_printf(c->why, "unroll of level %d in %s: the copies would hold %lld statements; the limit is %d", l + 1, c->tname,
               (long long)(body * copies), MAX_UNROLL_STMTS);
    return -1;
  }
  LNode *parent = l > 0 ? path[l - 1] : NULL;
  int pos = index_in(lp, parent, U);
  int64_t s = U->step;
  if (complete) {
    int nk = U->nkids;
    LNode **out = xcalloc((size_t)(nk * copies) + 1, sizeof *out);
    for (int64_t j = 1; j < copies; j++)           /* copies first, from the untouched body */
      for (int i = 0; i < nk; i++) {
        LNode *cp = lp_clone(lp, U->kids[i], true, false, NULL, NULL);
        lp_subst_tree(lp, cp, U->it, aff_plus(lp, &U->lb, j * s));
        out[j * nk + i] = cp;
      }
    for (int i = 0; i < nk; i++) {
      lp_subst_tree(lp, U->kids[i], U->it, aff_plus(lp, &U->lb, 0));
      out[i] = U->kids[i];
    }
    if (U->note && !out[0]->note)
      out[0]->note = U->note;
    lp_remove(lp, parent, pos);
    for (int64_t i = 0; i < nk * copies; i++)
      lp_insert(lp, parent, pos + (int)i, out[i]);
    free(U->kids);
    U->kids = NULL;
    U->nkids = U->capkids = 0;
    free(out);
    return 0;
  }
  int64_t q = trip / f, rem = trip % f;
  LNode *R = NULL;
  if (rem) {                                        /* the remainder loop, from the untouched loop */
    R = lp_clone(lp, U, true, false, NULL, NULL);
    R->lb = *aff_plus(lp, &U->lb, q * f * s);
    R->par_line = R->simd_line = 0;
    R->flags &= ~(unsigned)(LF_PARALLEL | LF_SIMD);
  }
  int nk = U->nkids;
  LNode **extra = xcalloc((size_t)(nk * (f - 1)) + 1, sizeof *extra);
  for (int64_t j = 1; j < f; j++)
    for (int i = 0; i < nk; i++) {
      LNode *cp = lp_clone(lp, U->kids[i], true, false, NULL, NULL);
      LAff *shift = aff_plus(lp, lp_aff_iter(lp, U->it), j * s);
      lp_subst_tree(lp, cp, U->it, shift);
      extra[(j - 1) * nk + i] = cp;
    }
  for (int64_t i = 0; i < nk * (f - 1); i++)
    lp_append(lp, U, extra[i]);
  free(extra);
  U->ub = *aff_plus(lp, &U->lb, q * f * s);
  U->step = f * s;
  if (R)
    lp_insert(lp, parent, pos + 1, R);
  return 0;
}

/* R-CG-19.3: the first loop marked LF_UNROLL below parent (path[0 .. l-1] its
 * ancestors), unrolled completely if its trip count is now a constant. */
static bool unroll_marked(Ctx *c, LNode **path, int l, LNode *parent) {
  int nk;
  LNode **kids = lp_kids(c->lp, parent, &nk);
  for (int i = 0; i < nk; i++) {
    LNode *n = kids[i];
    if (n->kind != LN_LOOP || l >= MAXDEPTH)
      continue;
    path[l] = n;
    int64_t d;
    if (n->flags & LF_UNROLL) {
      n->flags &= ~(unsigned)LF_UNROLL;
      if (const_extent(n, &d) && do_unroll(c, path, l, 0) == 0)
        return true;
    }
    if (unroll_marked(c, path, l + 1, n))
      return true;
  }
  return false;
}

void sched_unroll_deferred(LProgram *lp) {
  Buf why = {0};
  Ctx c = {lp, "", &why, 0};
  LNode *path[MAXDEPTH + 1];
  while (unroll_marked(&c, path, 0, NULL))
    ;
  buf_free(&why);
}

static int carried_what(Ctx *c, const char *prim, int l, Buf *what) {
  buf_printf(what, "%s of level %d in %s", prim, l + 1, c->tname);
  return 0;
}

/* R-SCH-10 */
static int do_parallelize(Ctx *c, LNode **path, int l) {
  LProgram *lp = c->lp;
  for (int m = 0; m < l; m++)
    if (path[m]->flags & LF_PARALLEL) {
      buf_printf(c->why, "parallelize of level %d in %s: level %d around it is already parallel (teilc does not nest "
                         "parallel regions)",
                 l + 1, c->tname, m + 1);
      return -1;
    }
  for (int i = 0; i < path[l]->nkids; i++)
    if (any_parallel(path[l]->kids[i])) {
      buf_printf(c->why, "parallelize of level %d in %s: a loop inside it is already parallel (teilc does not nest "
                         "parallel regions)",
                 l + 1, c->tname);
      return -1;
    }
  Buf what = {0};
  carried_what(c, "parallelize", l, &what);
  int rc = leg_carried(lp, path, l, what.s, c->why);
  buf_free(&what);
  if (rc)
    return -1;
  path[l]->flags |= LF_PARALLEL;
  path[l]->par_line = c->line;
  return 0;
}

static int64_t store_stride(const LProgram *lp, const LAccess *acc, int v) {
  const LBuf *b = &lp->bufs[acc->buf];
  int64_t s = 0;
  for (int d = 0; d < b->rank; d++)
    s += b->stride[d] * lp_aff_coef(&acc->idx[d], v);
  return s;
}

/* R-SCH-11: innermost and step 1; with stride, the unit-stride stores. */
static int simd_shape(Ctx *c, LNode **path, int l, const char *what, bool stride) {
  LProgram *lp = c->lp;
  LNode *L = path[l];
  for (int i = 0; i < L->nkids && !stride; i++)
    if (L->kids[i]->kind != LN_STMT) {
      buf_printf(c->why, "%s: the loop is not innermost (it contains loops)", what);
      return -1;
    }
  if (!stride && L->step != 1) {
    buf_printf(c->why, "%s: the loop has step %lld; vectorize needs step 1", what, (long long)L->step);
    return -1;
  }
  for (int i = 0; i < L->nkids && stride; i++)
    if (store_stride(lp, &L->kids[i]->lhs, L->it) != 1) {
      buf_printf(c->why, "%s: the store to ", what);
      lp_print_access(lp, &L->kids[i]->lhs, c->why);
      buf_printf(c->why, " does not have stride 1 in %s (vectorize needs unit-stride stores)", lp->its[L->it].name);
      return -1;
    }
  return 0;
}

/* Shape, then the dependences (so that a reduction loop is refused for its
 * sum, R-SCH-13), then the strides. */
static int simd_check(Ctx *c, LNode **path, int l, const char *what) {
  if (simd_shape(c, path, l, what, false) || leg_carried(c->lp, path, l, what, c->why) ||
      simd_shape(c, path, l, what, true))
    return -1;
  return 0;
}

static int do_vectorize(Ctx *c, LNode **path, int l) {
  Buf what = {0};
  carried_what(c, "vectorize", l, &what);
  int rc = simd_check(c, path, l, what.s);
  buf_free(&what);
  if (rc)
    return -1;
  path[l]->flags |= LF_SIMD;
  path[l]->simd_line = c->line;
  return 0;
}

/* R-SCH-20: one loop per child of path[l], in order (the inverse of fuse_inner). */
static int do_distribute(Ctx *c, LNode **path, int l) {
  LProgram *lp = c->lp;
  LNode *L = path[l];
  Buf what = {0};
  buf_printf(&what, "distribute of level %d in %s", l + 1, c->tname);
  int rc = 0;
  if (L->nkids < 2) {
    buf_printf(c->why, "%s: the loop holds only %d node%s; there is nothing to distribute", what.s, L->nkids,
               L->nkids == 1 ? "" : "s");
    rc = -1;
  }
  if (!rc && L->nlocals) {                          /* R-SCH-21 */
    buf_printf(c->why, "%s: the loop holds the register block %s, which its parts would not share", what.s,
               lp->bufs[L->locals[0]].cname);
    rc = -1;
  }
  if (!rc)
    rc = leg_distribute(lp, path, l, what.s, c->why);
  buf_free(&what);
  if (rc)
    return -1;
  LNode *parent = l > 0 ? path[l - 1] : NULL;
  int pos = index_in(lp, parent, L);
  int n = L->nkids;
  for (int i = 1; i < n; i++) {
    LNode *kid = L->kids[i];
    int it = lp_add_iter(lp, lp->its[L->it].name, lp->its[L->it].n);
    lp->its[it].p = lp->its[L->it].p;
    LNode *cp = lp_loop(lp, it, 0, 0, L->flags);
    cp->lb = lp_aff_copy(lp, &L->lb);
    cp->ub = lp_aff_copy(lp, &L->ub);
    cp->nubx = L->nubx;
    if (L->nubx) {
      cp->ubx = arena_alloc(&lp->arena, (size_t)L->nubx * sizeof *cp->ubx);
      for (int k = 0; k < L->nubx; k++)
        cp->ubx[k] = lp_aff_copy(lp, &L->ubx[k]);
    }
    cp->step = L->step;
    cp->par_line = L->par_line;
    cp->simd_line = L->simd_line;
    lp_subst_tree(lp, kid, L->it, lp_aff_iter(lp, it));
    lp_append(lp, cp, kid);
    lp_insert(lp, parent, pos + i, cp);
  }
  L->nkids = 1;
  return 0;
}

/* ------------------------------------------------------------ steps */

static void unit_name(const LUnit *u, char *buf, size_t n) {
  if (u->occ > 1)
    snprintf(buf, n, "%s#%d", u->name, u->occ);
  else
    snprintf(buf, n, "%s", u->name);
}

static int find_unit(const LProgram *lp, const STarget *t, Buf *why) {
  if (t->unit >= 0)
    return t->unit;
  int count = 0;
  for (int i = 0; i < lp->nunits; i++)
    if (!strcmp(lp->units[i].name, t->name) && ++count == t->occ)
      return i;
  if (count == 0) {
    buf_printf(why, "unknown target '%s': no statement assigns it (targets:", t->name);
    int shown = 0;
    for (int i = 0; i < lp->nunits && shown < 12; i++)
      if (lp->units[i].occ == 1) {
        buf_printf(why, " %s", lp->units[i].name);
        shown++;
      }
    buf_printf(why, "%s%s)", shown == 0 ? " none" : "", shown == 12 ? " ..." : "");
  } else {
    buf_printf(why, "'%s#%d': %s is assigned only %d time%s", t->name, t->occ, t->name, count, count == 1 ? "" : "s");
  }
  return -1;
}

static bool level_ok(Ctx *c, const SStep *st, int i, int depth, int *errcol) {
  int64_t L = st->arg[i];
  if (L >= 1 && L <= depth)
    return true;
  if (depth == 0)
    buf_printf(c->why, "level %lld is out of range: the target statement of %s is in no loop", (long long)L, c->tname);
  else
    buf_printf(c->why, "level %lld is out of range: the target statement of %s has %d loop%s (levels 1..%d)", (long long)L,
               c->tname, depth, depth == 1 ? "" : "s", depth);
  *errcol = st->argcol[i];
  return false;
}

static int step_tile(Ctx *c, LNode **path, int depth, int a, int b, int64_t f1, int64_t f2, const SStep *st, int *errcol) {
  LProgram *lp = c->lp;
  (void)depth;
  Buf what = {0};
  buf_printf(&what, "tile of levels %d and %d in %s", a + 1, b + 1, c->tname);
  if (b != a + 1) {
    buf_printf(c->why, "%s: tile takes two adjacent levels (L2 = L1 + 1)", what.s);
    if (st)
      *errcol = st->argcol[1];
    buf_free(&what);
    return -1;
  }
  if (path[a]->nkids != 1 || path[a]->kids[0] != path[b]) {
    buf_printf(c->why, "%s: the loops are not perfectly nested: level %d holds %d nodes", what.s, a + 1, path[a]->nkids);
    buf_free(&what);
    return -1;
  }
  Snap snap;
  snap_take_range(lp, &snap, index_in(lp, NULL, path[0]), 1); /* the step changes only this nest */
  LNode *la = path[a], *lb = path[b];
  int rc = do_stripmine(c, path, b, f2);            /* a, bt, b */
  if (!rc)
    rc = do_stripmine(c, path, a, f1);              /* at, a, bt, b */
  if (!rc) {
    LNode *q[MAXDEPTH + 4];
    memcpy(q, path, (size_t)a * sizeof *q);
    int nk;
    LNode **kids = lp_kids(lp, a > 0 ? path[a - 1] : NULL, &nk);
    LNode *at = NULL;
    for (int i = 0; i < nk; i++)
      if (kids[i]->kind == LN_LOOP && kids[i]->nkids == 1 && kids[i]->kids[0] == la)
        at = kids[i];
    q[a] = at;
    q[a + 1] = la;
    q[a + 2] = la->kids[0];
    q[a + 3] = lb;
    if (at)
      rc = do_interchange(c, q, a + 1, a + 2, what.s);   /* at, bt, a, b */
    else {
      buf_printf(c->why, "%s: internal error: the tile loop is missing", what.s);
      rc = -1;
    }
  }
  snap_end(lp, &snap, rc);
  buf_free(&what);
  return rc;
}

static int step_fuse_inner(Ctx *c, LNode **path, int l) {
  LProgram *lp = c->lp;
  Buf what = {0};
  buf_printf(&what, "fuse_inner of level %d in %s", l + 1, c->tname);
  LNode *P = path[l - 1];
  int rc = 0;
  if (P->nkids < 2) {
    buf_printf(c->why, "%s: level %d holds only %d node%s; there is nothing to fuse", what.s, l, P->nkids, P->nkids == 1 ? "" : "s");
    rc = -1;
  }
  for (int i = 0; i < P->nkids && !rc; i++)
    if (P->kids[i]->kind != LN_LOOP) {
      buf_printf(c->why, "%s: level %d holds a statement (", what.s, l);
      lp_print_access(lp, &P->kids[i]->lhs, c->why);
      buf_printf(c->why, " ...); TeML's fuse_inner needs loops only");
      rc = -1;
    }
  if (!rc) {
    Snap snap;
    snap_take_range(lp, &snap, index_in(lp, NULL, path[0]), 1); /* the step changes only this nest */
    while (!rc && P->nkids > 1)
      rc = fuse_siblings(c, path, l, P->kids[0], P->kids[1], l, what.s, NULL);
    snap_end(lp, &snap, rc);
  }
  buf_free(&what);
  return rc;
}

static int step_fuse_outer(Ctx *c, int ut, int uu, const char *uname, int level, int *errcol, int levelcol) {
  LProgram *lp = c->lp;
  LNode *pt[MAXDEPTH + 1], *pu[MAXDEPTH + 1];
  int dt, du;
  if (!lp_find_path(lp, lp->units[ut].stmt, pt, &dt) || !lp_find_path(lp, lp->units[uu].stmt, pu, &du)) {
    buf_printf(c->why, "fuse_outer: internal error: a target statement is not in the loop tree");
    return -1;
  }
  Buf what = {0};
  buf_printf(&what, "fuse_outer of %s and %s at level %d", c->tname, uname, level);
  int rc = -1;
  int k = 0;
  while (k < dt && k < du && pt[k] == pu[k])
    k++;
  if (ut == uu || lp->units[ut].stmt == lp->units[uu].stmt) {
    buf_printf(c->why, "%s: a nest cannot be fused with itself", what.s);
  } else if (level > dt || level > du) {
    buf_printf(c->why, "%s: level %d is out of range: %s has %d loop%s and %s has %d", what.s, level, c->tname, dt,
               dt == 1 ? "" : "s", uname, du);
    *errcol = levelcol;
  } else if (level <= k) {
    buf_printf(c->why, "%s: levels 1..%d of the two statements are already one loop nest", what.s, k);
    *errcol = levelcol;
  } else {
    LNode *parent = k > 0 ? pt[k - 1] : NULL;
    int ix = index_in(lp, parent, pt[k]), iy = index_in(lp, parent, pu[k]);
    if (ix < 0 || iy < 0)
      buf_printf(c->why, "%s: internal error: the nests are not siblings", what.s);
    else if (ix < iy)
      rc = fuse_siblings(c, pt, k, pt[k], pu[k], level - 1, what.s, NULL);
    else
      rc = fuse_siblings(c, pu, k, pu[k], pt[k], level - 1, what.s, NULL);
  }
  buf_free(&what);
  return rc;
}

/* R-SCH-22: fuses the top-level nest of the target with the top-level nest
 * just before it, at levels 1..level. */
static int step_fuse_before(Ctx *c, LNode **path, int depth, int level) {
  LProgram *lp = c->lp;
  Buf what = {0};
  buf_printf(&what, "fuse_before of level %d in %s", level, c->tname);
  int pos = index_in(lp, NULL, path[0]);
  int rc = -1;
  if (level > depth) {
    buf_printf(c->why, "%s: level %d is out of range: the target statement has %d loop%s", what.s, level, depth,
               depth == 1 ? "" : "s");
  } else if (pos <= 0) {
    buf_printf(c->why, "%s: there is no loop nest before the nest of %s", what.s, c->tname);
  } else if (lp->top[pos - 1]->kind != LN_LOOP) {
    buf_printf(c->why, "%s: the node before the nest of %s is a statement, not a loop", what.s, c->tname);
  } else {
    LNode *X = lp->top[pos - 1], *Y = path[0];
    bool ix = any_parallel(X) && !(X->flags & LF_PARALLEL), iy = any_parallel(Y) && !(Y->flags & LF_PARALLEL);
    if ((ix && (Y->flags & LF_PARALLEL)) || (iy && (X->flags & LF_PARALLEL))) {
      buf_printf(c->why, "%s: one nest is parallel in its outermost loop and the other in an inner loop (teilc does not "
                         "nest parallel regions)",
                 what.s);
    } else {
      /* fuse_siblings checks before it changes the tree, but a parallel X is checked
       * after: then a copy of Y and a record of X's changes take the fusion back */
      bool after = X->flags & LF_PARALLEL;
      Snap snap;
      FuseUndo un;
      if (after)
        snap_take_range(lp, &snap, pos, 1);
      LNode *none[1] = {NULL};
      /* both parallel: only pairs of a statement of X and one of Y can make the fused loop carry a dependence */
      int split = (X->flags & LF_PARALLEL) && (Y->flags & LF_PARALLEL) ? stmts_below(X) : -1;
      rc = fuse_siblings(c, none, 0, X, Y, level - 1, what.s, after ? &un : NULL);
      if (after) {
        bool fused = !rc;
        if (fused) {                               /* the fused loop must still carry no dependence */
          LNode *p1[1] = {X};
          rc = leg_carried_across(lp, p1, 0, split, what.s, c->why);
        }
        snap_end(lp, &snap, rc && fused);
        if (rc && fused)
          fuse_undo(&un);
      }
    }
  }
  buf_free(&what);
  return rc;
}

static bool node_reads(const LNode *n, int buf) {
  if (n->kind == LN_STMT)
    return lp_expr_reads(n->rhs, buf);
  for (int i = 0; i < n->nkids; i++)
    if (node_reads(n->kids[i], buf))
      return true;
  return false;
}

/* The first top-level node after top that reads buf, or NULL. */
static const LNode *next_reader(const LProgram *lp, const LNode *top, int buf) {
  for (int i = index_in((LProgram *)lp, NULL, top) + 1; i < lp->ntop; i++)
    if (node_reads(lp->top[i], buf))
      return lp->top[i];
  return NULL;
}

/* The dimension of buf that a load below n indexes by the iterator it alone, or -1. */
static int dim_by(const LProgram *lp, const LExpr *e, int buf, int it) {
  if (!e)
    return -1;
  if (e->kind == LE_LOAD && e->acc.buf == buf)
    for (int d = 0; d < lp->bufs[buf].rank; d++)
      if (lp_aff_is_iter(&e->acc.idx[d], it))
        return d;
  int d = dim_by(lp, e->a, buf, it);
  return d >= 0 ? d : dim_by(lp, e->b, buf, it);
}

static int node_dim_by(const LProgram *lp, const LNode *n, int buf, int it) {
  if (n->kind == LN_STMT)
    return dim_by(lp, n->rhs, buf, it);
  int d = -1;
  for (int i = 0; i < n->nkids && d < 0; i++)
    d = node_dim_by(lp, n->kids[i], buf, it);
  return d;
}

/* The dimension of buf that a load below n indexes by the iterator of a tile loop of q, or -1. */
static int node_dim_by_tile(const LProgram *lp, const LNode *n, int buf, const LNode *q) {
  if (n->kind != LN_LOOP)
    return -1;
  int d = lp_tile_of(n, q) ? node_dim_by(lp, n, buf, n->it) : -1;
  for (int i = 0; i < n->nkids && d < 0; i++)
    d = node_dim_by_tile(lp, n->kids[i], buf, q);
  return d;
}

static void drop_parallel(LNode *n) {
  if (n->kind != LN_LOOP)
    return;
  n->flags &= ~(unsigned)LF_PARALLEL;
  n->par_line = 0;
  for (int i = 0; i < n->nkids; i++)
    drop_parallel(n->kids[i]);
}

/* R-SCH-25: the nest X of the target moves down to the first later nest Y
 * that reads buf, its loop over the dimension that Y's outermost loop indexes
 * goes outermost, it fuses with Y in level 1, and buf becomes a private slice. */
static int step_private(Ctx *c, LNode **path, int depth, const LNode *st, int buf) {
  LProgram *lp = c->lp;
  Buf what = {0};
  buf_printf(&what, "private of level 1 in %s", c->tname);
  LNode *X = path[0];
  int pos = index_in(lp, NULL, X), iy = -1;
  for (int i = pos + 1; i < lp->ntop && iy < 0; i++)
    if (node_reads(lp->top[i], buf))
      iy = i;
  int rc = -1;
  if (iy < 0 || lp->top[iy]->kind != LN_LOOP) {
    buf_printf(c->why, "%s: no later loop nest reads %s", what.s, lp->bufs[buf].cname);
  } else if (lp->top[iy]->flags & LF_PARALLEL) {
    buf_printf(c->why, "%s: the outermost loop of the nest that reads %s is parallel (contract is the step for that)",
               what.s, lp->bufs[buf].cname);
  } else {
    LNode *Y = lp->top[iy], *none[1] = {NULL};
    Snap snap;
    snap_take(lp, &snap);
    rc = 0;
    for (int i = pos + 1; i < iy && !rc; i++)     /* X moves down past the nodes between */
      rc = leg_move(lp, none, 0, X, lp->top[i], what.s, c->why);
    int d = rc ? -1 : node_dim_by(lp, Y, buf, Y->it), m = -1;
    bool tiled = !rc && d < 0 && (d = node_dim_by_tile(lp, Y, buf, Y)) >= 0;
    for (int l = 0; l < depth && d >= 0; l++)      /* X's loop over that dimension */
      if (st->lhs.buf == buf && lp_aff_is_iter(&st->lhs.idx[d], path[l]->it))
        m = l;
    if (tiled && m >= 0) {                          /* Y's loop is a tile loop: X's must be its tile */
      int t = m;
      m = -1;
      for (int l = 0; l < t; l++)
        if (lp_tile_of(path[t], path[l]) && path[l]->step == Y->step)
          m = l;
      if (m < 0) {
        buf_printf(c->why, "%s: the outermost loop of the nest reading %s runs over tiles of %lld, and the loop of the "
                           "nest of %s over that dimension is not tiled by %lld (stripmine it first)",
                   what.s, lp->bufs[buf].cname, (long long)Y->step, c->tname, (long long)Y->step);
        rc = -1;
      }
    }
    if (!rc && m < 0) {
      buf_printf(c->why, "%s: no loop of the nest of %s is the loop over the dimension of %s that the outermost loop of "
                         "the nest reading it indexes",
                 what.s, c->tname, lp->bufs[buf].cname);
      rc = -1;
    }
    if (!rc && m > 0)
      rc = do_interchange(c, path, 0, m, what.s);
    if (!rc) {
      lp_remove(lp, NULL, pos);
      lp_insert(lp, NULL, iy - 1, X);
      drop_parallel(X);                             /* its loops run in every thread */
      rc = fuse_siblings(c, none, 0, X, Y, 0, what.s, NULL);
    }
    if (!rc)
      rc = rb_private(lp, X, buf, what.s, c->why);
    snap_end(lp, &snap, rc);
  }
  buf_free(&what);
  return rc;
}

/* The buffer a target names: the tensor or temporary it assigns. */
static int target_buf(const LProgram *lp, const LUnit *u) {
  for (int i = 0; i < lp->nbufs; i++)
    if (lp->bufs[i].kind != LB_LOCAL && (!strcmp(lp->bufs[i].name, u->name) || !strcmp(lp->bufs[i].cname, u->name)))
      return i;
  return u->stmt->lhs.buf;
}

/* ------------------------------------------------------------ inline (R-SCH-28) */

/* The range [lo, hi] of the affine x over the loops stack[0..depth-1], or false
 * when an iterator of x is not one of theirs (or the arithmetic overflows). Loop
 * bounds are ranged the same way from the loops outside them; a step or a further
 * bound only narrows. */
static bool aff_range(const LAff *x, LNode *const *stack, int depth, int64_t *lo, int64_t *hi) {
  int64_t l = x->c, h = x->c;
  for (int t = 0; t < x->n; t++) {
    int k = depth - 1;
    while (k >= 0 && stack[k]->it != x->it[t])
      k--;
    int64_t a, b, c, d, p, q;
    if (k < 0 || !aff_range(&stack[k]->lb, stack, k, &a, &b) || !aff_range(&stack[k]->ub, stack, k, &c, &d) || d - 1 < a)
      return false;
    int64_t f = x->coef[t];
    if (__builtin_mul_overflow(f, f > 0 ? a : d - 1, &p) || __builtin_mul_overflow(f, f > 0 ? d - 1 : a, &q) ||
        __builtin_add_overflow(l, p, &l) || __builtin_add_overflow(h, q, &h))
      return false;
  }
  *lo = l;
  *hi = h;
  return true;
}

/* Whether every load of buf below n lies in [0, ext[d]) in each dimension d. */
static bool reads_within(const LProgram *lp, const LExpr *e, int buf, LNode *const *stack, int depth, const int64_t *ext) {
  if (!e)
    return true;
  if (e->kind == LE_LOAD && e->acc.buf == buf)
    for (int d = 0; d < lp->bufs[buf].rank; d++) {
      int64_t lo, hi;
      if (!aff_range(&e->acc.idx[d], stack, depth, &lo, &hi) || lo < 0 || hi >= ext[d])
        return false;
    }
  return reads_within(lp, e->a, buf, stack, depth, ext) && reads_within(lp, e->b, buf, stack, depth, ext);
}

static bool node_reads_within(const LProgram *lp, const LNode *n, int buf, LNode **stack, int depth, const int64_t *ext) {
  if (n->kind == LN_STMT)
    return reads_within(lp, n->rhs, buf, stack, depth, ext);
  if (depth >= MAXDEPTH)
    return false;
  stack[depth] = (LNode *)n;
  for (int i = 0; i < n->nkids; i++)
    if (!node_reads_within(lp, n->kids[i], buf, stack, depth + 1, ext))
      return false;
  return true;
}

/* Whether e reads a tensor that some node stores, or divides. */
static bool reads_stored(const LProgram *lp, const LExpr *e) {
  if (!e)
    return false;
  if (e->kind == LE_DIV || (e->kind == LE_LOAD && lp->bufs[e->acc.buf].written))
    return true;
  return reads_stored(lp, e->a) || reads_stored(lp, e->b);
}

/* Every load of buf in e becomes a copy of rhs with the iterators its[d] of the
 * target's dimensions d replaced by the load's indices. */
static void inline_loads(LProgram *lp, LExpr *e, int buf, const LExpr *rhs, const int *its, const int *fresh) {
  if (!e)
    return;
  if (e->kind == LE_LOAD && e->acc.buf == buf) {
    LExpr *r = lp_expr_clone(lp, rhs);
    LAccess acc = e->acc;
    int rank = lp->bufs[buf].rank;
    for (int d = 0; d < rank; d++) {               /* through fresh iterators: the load's */
      LAff f = lp_aff_copy(lp, lp_aff_iter(lp, fresh[d]));   /* indices may use its[] */
      lp_subst_expr(lp, r, its[d], &f);
    }
    for (int d = 0; d < rank; d++)
      lp_subst_expr(lp, r, fresh[d], &acc.idx[d]);
    *e = *r;
    return;
  }
  inline_loads(lp, e->a, buf, rhs, its, fresh);
  inline_loads(lp, e->b, buf, rhs, its, fresh);
}

static void node_inline(LProgram *lp, LNode *n, int buf, const LExpr *rhs, const int *its, const int *fresh) {
  if (n->kind == LN_STMT)
    inline_loads(lp, n->rhs, buf, rhs, its, fresh);
  for (int i = 0; n->kind == LN_LOOP && i < n->nkids; i++)
    node_inline(lp, n->kids[i], buf, rhs, its, fresh);
}

/* R-SCH-28: the perfect nest X of the target, T[i1, ..., ir] = e, goes away, and
 * the one nest Y that reads T reads e at the indices of each of its loads. The
 * unit of the target goes with it. */
static int step_inline(Ctx *c, LNode **path, int depth, int unit, int buf) {
  LProgram *lp = c->lp;
  const LNode *s = lp->units[unit].stmt;
  const LBuf *T = &lp->bufs[buf];
  LNode *X = path[0];
  int pos = index_in(lp, NULL, X), iy = -1, its[MAXDEPTH + 1], fresh[MAXDEPTH + 1];
  int64_t ext[MAXDEPTH + 1];
  Buf what = {0};
  buf_printf(&what, "inline of %s", c->tname);
#define REFUSE(...) do { buf_printf(c->why, __VA_ARGS__); buf_free(&what); return -1; } while (0)
  if (T->kind != LB_WORK || T->priv || s->lhs.buf != buf)
    REFUSE("%s: only a temporary of the workspace, stored whole by its own nest, can be inlined", what.s);
  if (s->accum || count_stmts(X) != 1 || T->rank != depth)
    REFUSE("%s: its nest must be a perfect nest of rank(%s) loops and one statement '=' (a sum is not inlined)",
           what.s, T->cname);
  for (int d = 0; d < depth; d++) {               /* T[i1, ..., ir]: each loop over one whole dimension */
    int l = 0;
    while (l < depth && !lp_aff_is_iter(&s->lhs.idx[d], path[l]->it))
      l++;
    int64_t n;
    if (l == depth || path[l]->step != 1 || path[l]->nubx || path[l]->lb.n || path[l]->lb.c || !const_extent(path[l], &n))
      REFUSE("%s: its nest must store each element once, one loop [0, N) of step 1 per index", what.s);
    its[d] = path[l]->it;
    ext[d] = n;
    for (int e = 0; e < d; e++)
      if (its[e] == its[d])
        REFUSE("%s: its nest must store each element once, one loop [0, N) of step 1 per index", what.s);
  }
  if (reads_stored(lp, s->rhs))
    REFUSE("%s: its right-hand side must read only tensors that nothing stores, and divide nothing", what.s);
  for (int i = 0; i < lp->ntop; i++) {
    if (i != pos && (lp_writes(lp->top[i], buf) || (i < pos && lp_reads(lp->top[i], buf))))
      REFUSE("%s: another nest stores or reads %s before it", what.s, T->cname);
    if (i > pos && lp_reads(lp->top[i], buf)) {
      if (iy >= 0)
        REFUSE("%s: more than one nest reads %s", what.s, T->cname);
      iy = i;
    }
  }
  LNode *stack[MAXDEPTH + 1];
  if (iy < 0)
    REFUSE("%s: no later nest reads %s", what.s, T->cname);
  if (!node_reads_within(lp, lp->top[iy], buf, stack, 0, ext))
    REFUSE("%s: the nest that reads %s may read elements outside those its nest stores", what.s, T->cname);
  for (int d = 0; d < depth; d++)
    fresh[d] = lp_add_iter(lp, "teil_inl", 1);
  node_inline(lp, lp->top[iy], buf, s->rhs, its, fresh);
  lp_remove(lp, NULL, pos);
  lp_free_tree(X);
  lp->bufs[buf].used = lp->bufs[buf].written = false;
  memmove(&lp->units[unit], &lp->units[unit + 1], (size_t)(lp->nunits - unit - 1) * sizeof *lp->units);
  lp->nunits--;
#undef REFUSE
  buf_free(&what);
  return 0;
}


/* Applies one step to the unit's statement; 0 or -1 with c->why (and *errcol). */
static int apply_step(Ctx *c, const SStep *st, int unit, int other, int *errcol) {
  LProgram *lp = c->lp;
  LNode *path[MAXDEPTH + 1];
  int depth;
  if (!lp_find_path(lp, lp->units[unit].stmt, path, &depth)) {
    buf_printf(c->why, "the target statement of %s is not in the loop tree, or it is nested deeper than %d loops", c->tname,
               MAXDEPTH);
    return -1;
  }
  Buf what = {0};
  int rc = -1;
  switch (st->prim->kind) {
  case SP_STRIPMINE:
    if (level_ok(c, st, 0, depth, errcol))
      rc = do_stripmine(c, path, (int)st->arg[0] - 1, st->arg[1]);
    break;
  case SP_INTERCHANGE:
    if (level_ok(c, st, 0, depth, errcol) && level_ok(c, st, 1, depth, errcol)) {
      int a = (int)st->arg[0] - 1, b = (int)st->arg[1] - 1;
      buf_printf(&what, "interchange of levels %d and %d in %s", a + 1, b + 1, c->tname);
      if (a == b) {
        buf_printf(c->why, "%s: a level cannot be interchanged with itself", what.s);
        *errcol = st->argcol[1];
      } else {
        rc = do_interchange(c, path, a < b ? a : b, a < b ? b : a, what.s);
      }
    }
    break;
  case SP_FUSE_OUTER: {
    char un[300];
    unit_name(&lp->units[other], un, sizeof un);
    rc = step_fuse_outer(c, unit, other, un, (int)st->arg[0], errcol, st->argcol[0]);
    break;
  }
  case SP_FUSE_INNER:
    if (st->arg[0] < 2) {
      buf_printf(c->why, "fuse_inner of level 1 in %s: fuse_inner fuses the loops inside level LEVEL-1, so LEVEL must be at "
                         "least 2 (fuse_outer fuses two loop nests)",
                 c->tname);
      *errcol = st->argcol[0];
    } else if (level_ok(c, st, 0, depth, errcol)) {
      rc = step_fuse_inner(c, path, (int)st->arg[0] - 1);
    }
    break;
  case SP_UNROLL:
    if (level_ok(c, st, 0, depth, errcol))
      rc = do_unroll(c, path, (int)st->arg[0] - 1, st->narg > 1 ? st->arg[1] : 0);
    break;
  case SP_TILE:
    if (level_ok(c, st, 0, depth, errcol) && level_ok(c, st, 1, depth, errcol))
      rc = step_tile(c, path, depth, (int)st->arg[0] - 1, (int)st->arg[1] - 1, st->arg[2], st->narg > 3 ? st->arg[3] : st->arg[2],
                     st, errcol);
    break;
  case SP_PARALLELIZE:
    if (level_ok(c, st, 0, depth, errcol))
      rc = do_parallelize(c, path, (int)st->arg[0] - 1);
    break;
  case SP_VECTORIZE:
    if (level_ok(c, st, 0, depth, errcol))
      rc = do_vectorize(c, path, (int)st->arg[0] - 1);
    break;
  case SP_DISTRIBUTE:
    if (level_ok(c, st, 0, depth, errcol))
      rc = do_distribute(c, path, (int)st->arg[0] - 1);
    break;
  case SP_FUSE_BEFORE:
    if (st->arg[0] < 1) {
      buf_printf(c->why, "fuse_before: the level must be at least 1");
      *errcol = st->argcol[0];
    } else {
      rc = step_fuse_before(c, path, depth, (int)st->arg[0]);
      if (rc && st->arg[0] > depth)
        *errcol = st->argcol[0];
    }
    break;
  case SP_CONTRACT:
    if (level_ok(c, st, 0, depth, errcol)) {
      buf_printf(&what, "contract of level %d in %s", (int)st->arg[0], c->tname);
      rc = rb_contract(lp, path, (int)st->arg[0] - 1, target_buf(lp, &lp->units[unit]), what.s, c->why);
    }
    break;
  case SP_PRIVATE:
    if (st->arg[0] != 1) {
      buf_printf(c->why, "private of level %lld in %s: only level 1 is accepted (a parallel region is opened around "
                         "a top-level loop only)",
                 (long long)st->arg[0], c->tname);
      *errcol = st->argcol[0];
    } else {
      rc = step_private(c, path, depth, lp->units[unit].stmt, target_buf(lp, &lp->units[unit]));
    }
    break;
  case SP_PACK:
  case SP_PANEL: {
    int b = -1;
    for (int i = 0; i < lp->nbufs && b < 0; i++)
      if (lp->bufs[i].kind != LB_LOCAL && lp->bufs[i].packof < 0 &&
          (!strcmp(lp->bufs[i].name, st->other.name) || !strcmp(lp->bufs[i].cname, st->other.name)))
        b = i;
    buf_printf(&what, "%s of %s in %s", st->prim->name, st->other.name, c->tname);
    if (b < 0) {
      buf_printf(c->why, "%s: the program has no tensor '%s'", what.s, st->other.name);
      *errcol = st->other.col;
    } else if (st->prim->kind == SP_PANEL) {
      rc = rb_panel(lp, lp->units[unit].stmt, b, what.s, c->why);
      if (rc)
        *errcol = st->other.col;
    } else {
      int l = -1;                                   /* R-SCH-24.1: a copy per iteration of level l */
      if (st->narg < 2 || level_ok(c, st, 1, depth, errcol)) {
        l = st->narg < 2 ? -1 : (int)st->arg[1] - 1;
        rc = rb_pack(lp, lp->units[unit].stmt, path, l, b, (int)st->arg[0] - 1, what.s, c->why);
        if (rc)
          *errcol = st->argcol[rc == -2 ? 1 : 0];     /* -2: the slice of level l is refused */
        rc = rc ? -1 : 0;
      }
    }
    break;
  }
  case SP_INLINE:                                    /* R-SCH-28 */
    rc = step_inline(c, path, depth, unit, target_buf(lp, &lp->units[unit]));
    break;
  case SP_LANES:                                     /* R-SCH-27: the whole program */
    buf_printf(&what, "lanes in %s", c->tname);
    rc = lanes_apply(lp, what.s, c->why);
    break;
  case SP_SCALAR_REPLACE:
    if (level_ok(c, st, 0, depth, errcol)) {
      buf_printf(&what, "scalar_replace of level %d in %s", (int)st->arg[0], c->tname);
      rc = rb_scalar_replace(lp, path, depth, (int)st->arg[0] - 1, lp->units[unit].stmt, what.s, c->why);
    }
    break;
  }
  buf_free(&what);
  if (!rc)
    fix_names(lp);
  return rc;
}

/* R-SCH-11: the marks still hold on the final tree. */
typedef struct Marked {
  LNode *loop;
  int line;
  bool simd;
} Marked;

static void find_marked(LNode *n, Marked **m, int *nm, int *cap) {
  if (n->kind == LN_STMT)
    return;
  for (int s = 0; s < 2; s++) {
    int line = s ? n->simd_line : n->par_line;
    if (!line || !(n->flags & (s ? LF_SIMD : LF_PARALLEL)))
      continue;
    if (*nm == *cap) {
      *cap = *cap ? 2 * *cap : 8;
      Marked *x = xcalloc((size_t)*cap, sizeof *x);
      if (*nm)
        memcpy(x, *m, (size_t)*nm * sizeof *x);
      free(*m);
      *m = x;
    }
    (*m)[*nm].loop = n;
    (*m)[*nm].line = line;
    (*m)[(*nm)++].simd = s;
  }
  for (int i = 0; i < n->nkids; i++)
    find_marked(n->kids[i], m, nm, cap);
}

static int final_check(LProgram *lp, const Schedule *s, char *err, size_t errlen) {
  Marked *m = NULL;
  int nm = 0, cap = 0;
  for (int i = 0; i < lp->ntop; i++)
    find_marked(lp->top[i], &m, &nm, &cap);
  int rc = 0;
  for (int i = 0; i < nm && !rc; i++) {
    LNode *path[MAXDEPTH + 2];
    int depth;
    if (!lp_find_path(lp, m[i].loop, path, &depth))
      continue;
    path[depth] = m[i].loop;
    int col = 1;
    for (int k = 0; k < s->n; k++)
      if (s->steps[k].line == m[i].line)
        col = s->steps[k].col;
    Buf why = {0}, what = {0};
    buf_printf(&what, "after the last step, the loop %s marked by %s here", lp->its[m[i].loop->it].name,
               m[i].simd ? "vectorize" : "parallelize");
    Ctx c = {lp, "", &why, m[i].line};
    if (!m[i].simd) {
      for (int k = 0; k < depth && !rc; k++)
        if (path[k]->flags & LF_PARALLEL) {
          buf_printf(&why, "%s is inside another parallel loop (%s)", what.s, lp->its[path[k]->it].name);
          rc = -1;
        }
      for (int k = 0; k < m[i].loop->nkids && !rc; k++)
        if (any_parallel(m[i].loop->kids[k])) {
          buf_printf(&why, "%s contains another parallel loop", what.s);
          rc = -1;
        }
      if (!rc)
        rc = leg_carried(lp, path, depth, what.s, &why);
    } else {
      rc = simd_check(&c, path, depth, what.s);
    }
    if (rc)
      snprintf(err, errlen, "%s:%d:%d: error: %s", s->file, m[i].line, col, why.s ? why.s : "illegal");
    buf_free(&why);
    buf_free(&what);
  }
  free(m);
  return rc;
}

int sched_apply(LProgram *lp, const void *arg, char *err, size_t errlen) {
  const Schedule *s = arg;
  if (!s)
    return 0;
  for (int i = 0; i < s->n; i++) {
    const SStep *st = &s->steps[i];
    Buf why = {0};
    int errcol = st->col;
    int u = find_unit(lp, &st->target, &why), o = -1;
    if (u < 0)
      errcol = st->target.col;
    else if (st->prim->other && !names_tensor(st->prim->kind) && (o = find_unit(lp, &st->other, &why)) < 0)
      errcol = st->other.col;
    int rc = u < 0 || (st->prim->other && !names_tensor(st->prim->kind) && o < 0) ? -1 : 0;
    if (!rc) {
      char tn[300];
      unit_name(&lp->units[u], tn, sizeof tn);
      Ctx c = {lp, tn, &why, st->line};
      rc = apply_step(&c, st, u, o, &errcol);
    }
    if (rc) {
      snprintf(err, errlen, "%s:%d:%d: error: %s", s->file, st->line, errcol, why.s ? why.s : "refused");
      buf_free(&why);
      return -1;
    }
    buf_free(&why);
  }
  return final_check(lp, s, err, errlen);
}

/* ------------------------------------------------------------ the default schedule (R-SCH-17) */

static const Prim *prim_of(SPrimKind k) {
  for (int i = 0; i < NPRIMS; i++)
    if (prims[i].kind == k)
      return &prims[i];
  teil_unreachable();
}

/* One step of the default schedule, applied through apply_step (name: the
 * tensor argument of pack, else NULL); an accepted step is appended to rec
 * (if not NULL) as a line of a schedule file. 0, or -1 if refused. */
static int step(LProgram *lp, Buf *rec, int unit, SPrimKind k, const char *name, int narg, int64_t a0, int64_t a1) {
  const Prim *prim = prim_of(k);
  SStep st;
  memset(&st, 0, sizeof st);
  st.prim = prim;
  st.other.name = (char *)name;
  st.narg = narg;
  st.arg[0] = a0;
  st.arg[1] = a1;
  st.target.unit = unit;
  st.other.unit = -1;
  char tn[300];
  unit_name(&lp->units[unit], tn, sizeof tn);
  Buf why = {0};
  Ctx c = {lp, tn, &why, 0};
  int errcol = 0;
  int rc = apply_step(&c, &st, unit, -1, &errcol);
  buf_free(&why);
  if (!rc && rec) {
    buf_printf(rec, "%s: %s%s%s", tn, prim->name, name ? " " : "", name ? name : "");
    for (int i = 0; i < narg; i++)
      buf_printf(rec, " %lld", (long long)st.arg[i]);
    buf_printf(rec, "\n");
  }
  return rc;
}

static int default_step(LProgram *lp, Buf *rec, int unit, SPrimKind k, int narg, int64_t a0, int64_t a1) {
  return step(lp, rec, unit, k, NULL, narg, a0, a1);
}

static bool lhs_uses(const LNode *s, const LProgram *lp, int it) {
  for (int d = 0; d < lp->bufs[s->lhs.buf].rank; d++)
    if (lp_aff_coef(&s->lhs.idx[d], it))
      return true;
  return false;
}

/* Whether it is, alone, an index of s's target. */
static bool whole_index(const LProgram *lp, const LNode *s, int it) {
  for (int d = 0; d < lp->bufs[s->lhs.buf].rank; d++)
    if (lp_aff_is_iter(&s->lhs.idx[d], it))
      return true;
  return false;
}

static bool access_uses(const LProgram *lp, const LAccess *a, int it) {
  for (int d = 0; d < lp->bufs[a->buf].rank; d++)
    if (lp_aff_coef(&a->idx[d], it))
      return true;
  return false;
}

/* R-SCH-17 step 2 (the row loop): whether some load of e uses it, and no load that
 * uses jt (a vector load) does. *some: some load uses it. */
static bool broadcast_only(const LProgram *lp, const LExpr *e, int it, int jt, bool *some) {
  if (!e)
    return true;
  if (e->kind == LE_LOAD) {
    bool u = access_uses(lp, &e->acc, it);
    *some |= u;
    return !(u && access_uses(lp, &e->acc, jt));
  }
  return broadcast_only(lp, e->a, it, jt, some) && broadcast_only(lp, e->b, it, jt, some);
}

/* The stride in elements of an access along the iterator it. */
static int64_t access_stride(const LProgram *lp, const LAccess *a, int it) {
  int64_t st = 0;
  for (int d = 0; d < lp->bufs[a->buf].rank; d++)
    st += lp_aff_coef(&a->idx[d], it) * lp->bufs[a->buf].stride[d];
  return st;
}

/* Whether the load a can be packed (R-SCH-24) so that it walks it with
 * stride 1: a read-only input, it alone in one dimension d that is not the
 * last, and in no other. */
static bool packable(const LProgram *lp, const LAccess *a, int it, int *dim) {
  const LBuf *x = &lp->bufs[a->buf];
  if (x->kind != LB_PARAM_IN || x->count > ((int64_t)1 << 22) || x->rank < 2)
    return false;
  int d0 = -1;
  for (int d = 0; d < x->rank; d++)
    if (lp_aff_coef(&a->idx[d], it)) {
      if (d0 >= 0 || !lp_aff_is_iter(&a->idx[d], it))
        return false;
      d0 = d;
    }
  if (d0 < 0 || d0 == x->rank - 1)
    return false;
  *dim = d0;
  return true;
}

/* Whether e loads a parameter (an input or output tensor) along it: such a row
 * keeps its real extent (R-CG-20 pads only local arrays and packed copies). */
static bool loads_param_along(const LProgram *lp, const LExpr *e, int it) {
  if (!e)
    return false;
  if (e->kind == LE_LOAD && (lp->bufs[e->acc.buf].kind == LB_PARAM_IN || lp->bufs[e->acc.buf].kind == LB_PARAM) &&
      access_stride(lp, &e->acc, it) != 0)
    return true;
  return loads_param_along(lp, e->a, it) || loads_param_along(lp, e->b, it);
}

/* Whether some load of e reads along it with stride 1. */
static bool unit_load(const LProgram *lp, const LExpr *e, int it) {
  if (!e)
    return false;
  if (e->kind == LE_LOAD && access_stride(lp, &e->acc, it) == 1)
    return true;
  return unit_load(lp, e->a, it) || unit_load(lp, e->b, it);
}

/* How well the loads of e read along it as vectors: +2 for stride 1, 0 for
 * an invariant, +1 for a packable load, -2 for any other stride. */
static int vec_score(const LProgram *lp, const LExpr *e, int it) {
  if (!e)
    return 0;
  int sc = vec_score(lp, e->a, it) + vec_score(lp, e->b, it);
  if (e->kind == LE_LOAD) {
    int64_t st = access_stride(lp, &e->acc, it);
    int d;
    sc += st == 0 ? 0 : st == 1 ? 2 : packable(lp, &e->acc, it, &d) ? 1 : -2;
  }
  return sc;
}

/* R-SCH-17.1: whether every load of e whose last index is jt alone (the vector
 * operand) uses it and not o; they are appended to loads (at most 8, else false). */
static bool vector_loads_rows_not(const LProgram *lp, const LExpr *e, int jt, int it, int o,
                                  const LAccess **loads, int *nload) {
  if (!e)
    return true;
  if (e->kind == LE_LOAD && lp_aff_is_iter(&e->acc.idx[lp->bufs[e->acc.buf].rank - 1], jt)) {
    bool rows = false, outer = false;
    for (int d = 0; d < lp->bufs[e->acc.buf].rank; d++) {
      rows |= lp_aff_coef(&e->acc.idx[d], it) != 0;
      outer |= lp_aff_coef(&e->acc.idx[d], o) != 0;
    }
    if (!rows || outer || *nload == 8)
      return false;
    loads[(*nload)++] = &e->acc;
  }
  return vector_loads_rows_not(lp, e->a, jt, it, o, loads, nload) &&
         vector_loads_rows_not(lp, e->b, jt, it, o, loads, nload);
}

/* The strides of buf with its rows counted in whole vectors, as R-CG-20 pads them
 * after scheduling (when that at most doubles them). */
static void vector_strides(const LProgram *lp, int buf, int64_t *stride) {
  const LBuf *b = &lp->bufs[buf];
  int64_t vw = lp->f32 ? 16 : 8, s = 1;
  for (int d = b->rank - 1; d >= 0; d--) {
    stride[d] = s;
    int64_t e = b->pdims[d], w = (e + vw - 1) / vw * vw;
    s *= d == b->rank - 1 && w <= 2 * e ? w : e;
  }
}

/* The coefficient of iterator x in the element offset of access a. */
static int64_t flat_coef(const LProgram *lp, const LAccess *a, const int64_t *stride, int x) {
  int64_t c = 0;
  for (int d = 0; d < lp->bufs[a->buf].rank; d++)
    c += lp_aff_coef(&a->idx[d], x) * stride[d];
  return c;
}

static int cmp_i64(const void *x, const void *y) {
  int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
  return (a > b) - (a < b);
}

/* R-SCH-17.2: whether some load of e uses it. */
static bool expr_uses(const LProgram *lp, const LExpr *e, int it) {
  if (!e)
    return false;
  if (e->kind == LE_LOAD)
    return access_uses(lp, &e->acc, it);
  return expr_uses(lp, e->a, it) || expr_uses(lp, e->b, it);
}

/* R-SCH-17.2: the broadcast load x of e = x * y (either order), where x uses it and
 * not jt and y, not a single load, uses jt and not it: a vector operand that each
 * block computes; NULL if e is not such a product. */
static const LAccess *computed_vector(const LProgram *lp, const LExpr *e, int it, int jt) {
  if (!e || e->kind != LE_MUL)
    return NULL;
  for (int side = 0; side < 2; side++) {
    const LExpr *x = side ? e->b : e->a, *y = side ? e->a : e->b;
    if (x->kind == LE_LOAD && access_uses(lp, &x->acc, it) && !access_uses(lp, &x->acc, jt) &&
        y->kind != LE_LOAD && expr_uses(lp, y, jt) && !expr_uses(lp, y, it))
      return &x->acc;
  }
  return NULL;
}

/* R-SCH-17.2: whether the first elements of m rows of a (the rows along it) leave
 * every set of the L1 at least two lines free. */
static bool rows_uncrowded(const LProgram *lp, const LAccess *a, int it, int64_t m) {
  int assoc = lp_l1_assoc();
  int64_t sets = lp_l1_bytes() / (64 * assoc), st = access_stride(lp, a, it) * (lp->f32 ? 4 : 8);
  if (sets < 1 || assoc < 3 || st <= 0)
    return false;
  int64_t *per = xcalloc((size_t)sets, sizeof *per);
  bool ok = true;
  for (int64_t i = 0; i < m && ok; i++)
    ok = ++per[(i * st >> 6) % sets] <= assoc - 2;
  free(per);
  return ok;
}

/* R-SCH-17.1: whether the 64-byte lines that loads touch for rows [0, mr) of it, every
 * value of the reduction loops of path and row elements from the row's start, with
 * the rows in whole vectors, fit in the L1 without conflicts: no set holds more lines
 * than the associativity. */
static bool share_fits_l1(const LProgram *lp, LNode *const *path, int depth, const LAccess **loads,
                          int nload, int it, int64_t mr, int64_t row) {
  int64_t es = lp->f32 ? 4 : 8, ext[MAXDEPTH], seg = 1;
  int red[MAXDEPTH], nred = 0;
  for (int l = 0; l < depth; l++)
    if (path[l]->flags & LF_REDUCTION) {
      red[nred] = path[l]->it;
      ext[nred] = lp_trip_estimate(path[l]);
      if (ext[nred] < 1 || (seg *= ext[nred]) > 65536)
        return false;
      nred++;
    }
  int64_t lines_per = (row * es + 63) / 64 + 1, cap = (int64_t)nload * seg * mr * lines_per;
  if (cap > (1 << 22))
    return false;
  for (int q = 0; q < nload; q++)
    if (lp->bufs[loads[q]->buf].rank > MAXDEPTH)
      return false;
  int64_t *line = xmalloc((size_t)cap * sizeof *line), n = 0;
  for (int q = 0; q < nload; q++) {
    const LAccess *a = loads[q];
    int64_t base = 0, stride[MAXDEPTH];
    vector_strides(lp, a->buf, stride);
    for (int d = 0; d < lp->bufs[a->buf].rank; d++)
      base += a->idx[d].c * stride[d];
    for (int64_t v = 0; v < seg; v++) {             /* the reduction values, as an odometer */
      int64_t off = base, rest = v;
      for (int r = nred - 1; r >= 0; r--) {
        off += rest % ext[r] * flat_coef(lp, a, stride, red[r]);
        rest /= ext[r];
      }
      for (int64_t i = 0; i < mr; i++) {
        int64_t lo = (off + i * flat_coef(lp, a, stride, it)) * es, hi = lo + row * es - 1;
        for (int64_t b = lo >> 6; b <= hi >> 6; b++)
          line[n++] = b;
      }
    }
  }
  qsort(line, (size_t)n, sizeof *line, cmp_i64);
  int assoc = lp_l1_assoc();
  int64_t sets = lp_l1_bytes() / (64 * assoc), uniq = 0;
  int64_t *per = xcalloc((size_t)(sets > 0 ? sets : 1), sizeof *per);
  bool fits = sets > 0;
  for (int64_t k = 0; fits && k < n; k++)
    if (k == 0 || line[k] != line[k - 1]) {
      uniq++;
      fits = ++per[((line[k] % sets) + sets) % sets] <= assoc && uniq * 64 <= lp_l1_bytes();
    }
  free(per);
  free(line);
  return fits;
}

/* A load of e of a tensor of the workspace that an earlier top-level nest than
 * path[0] stores, with a whole index that is the iterator of a reduction loop of
 * path other than kt, so that R-SCH-25 can make it private to that loop: the
 * loop's level, its buffer in *buf; -1 if none. */
static int private_level(const LProgram *lp, const LExpr *e, LNode *const *path, int depth, int kt, int *buf) {
  if (!e)
    return -1;
  /* a computed temporary: not a packed or panel copy of an input (R-SCH-24, R-SCH-26) */
  if (e->kind == LE_LOAD && lp->bufs[e->acc.buf].kind == LB_WORK && lp->bufs[e->acc.buf].packof < 0) {
    bool before = false;
    for (int i = 0; i < lp->ntop && lp->top[i] != path[0]; i++)
      before |= lp_writes(lp->top[i], e->acc.buf);
    for (int l = 0; before && l < depth; l++)
      if ((path[l]->flags & LF_REDUCTION) && path[l]->it != kt)
        for (int d = 0; d < lp->bufs[e->acc.buf].rank; d++)
          if (lp_aff_is_iter(&e->acc.idx[d], path[l]->it)) {
            *buf = e->acc.buf;
            return l;
          }
  }
  int l = private_level(lp, e->a, path, depth, kt, buf);
  return l >= 0 ? l : private_level(lp, e->b, path, depth, kt, buf);
}

static bool private_operand(const LProgram *lp, const LExpr *e, LNode *const *path, int depth, int kt) {
  int b;
  return private_level(lp, e, path, depth, kt, &b) >= 0;
}

/* A load of e that walks it with a stride and can be packed: its buffer and dimension. */
static bool find_packable(const LProgram *lp, const LExpr *e, int it, int *buf, int *dim) {
  if (!e)
    return false;
  if (e->kind == LE_LOAD) {
    int64_t st = access_stride(lp, &e->acc, it);
    if (st != 0 && st != 1 && packable(lp, &e->acc, it, dim)) {
      *buf = e->acc.buf;
      return true;
    }
  }
  return find_packable(lp, e->a, it, buf, dim) || find_packable(lp, e->b, it, buf, dim);
}

/* A load of e that a panel copy would serve (R-SCH-17 step 2, R-SCH-26): of a
 * read-only input of at most 2^22 elements, with --pad 1, indexed by it alone
 * in its last index, whose rows lie a page or more apart. Its buffer in *buf. */
static bool find_panel(const LProgram *lp, const LExpr *e, int it, int *buf) {
  if (!e)
    return false;
  if (e->kind == LE_LOAD && lp->pad == 1) {
    const LBuf *x = &lp->bufs[e->acc.buf];
    if (x->kind == LB_PARAM_IN && x->rank >= 2 && x->count <= ((int64_t)1 << 22) &&
        x->dims[x->rank - 1] * (lp->f32 ? 4 : 8) >= PANEL_ROW_BYTES && lp_aff_is_iter(&e->acc.idx[x->rank - 1], it)) {
      *buf = e->acc.buf;
      return true;
    }
  }
  return find_panel(lp, e->a, it, buf) || find_panel(lp, e->b, it, buf);
}

/* A load of e that a padded copy would give whole vector rows (R-SCH-17 step
 * 2, R-SCH-24): of a read-only input, with --pad 1, indexed by j alone in its
 * last index, whose extent N = N_j <= 4V is a lane extent (R-CG-20), and
 * otherwise only by reduction loops of the path, so that every row is read
 * again by every iteration of the other loops. Its buffer in *buf. */
static bool find_row_copy(const LProgram *lp, const LExpr *e, LNode *const *path, int depth, int jt, int64_t tj,
                          int *buf) {
  if (!e)
    return false;
  if (e->kind == LE_LOAD && lp->pad == 1) {
    const LBuf *x = &lp->bufs[e->acc.buf];
    int64_t n = x->rank ? x->dims[x->rank - 1] : 0;
    bool ok = x->kind == LB_PARAM_IN && x->rank >= 1 && x->count <= ((int64_t)1 << 22) && n == tj &&
              n <= 4 * (lp->f32 ? 16 : 8) && lp_lane_extent(lp, n) && lp_aff_is_iter(&e->acc.idx[x->rank - 1], jt);
    for (int d = 0; ok && d < x->rank; d++)
      for (int l = 0; ok && l < depth; l++) {
        int v = path[l]->it;
        ok = !lp_aff_coef(&e->acc.idx[d], v) || (v == jt ? d == x->rank - 1 : (path[l]->flags & LF_REDUCTION) != 0);
      }
    if (ok) {
      *buf = e->acc.buf;
      return true;
    }
  }
  return find_row_copy(lp, e->a, path, depth, jt, tj, buf) || find_row_copy(lp, e->b, path, depth, jt, tj, buf);
}

/* A load of e that a batch copy would give whole vector rows (R-SCH-17 step 2,
 * R-SCH-24.1): of a read-only input, with --pad 1, indexed by j alone in its
 * last index, whose extent N = N_j is a lane extent (R-CG-20) whose last N mod V
 * lanes take two or more operations unpadded (two bits set), by the outermost
 * loop of the path (not a sum) alone in one other index, and otherwise only by
 * reduction loops; the rest of the input, one iteration's copy, has at most
 * 32768 elements. Its buffer in *buf. */
static bool find_batch_copy(const LProgram *lp, const LExpr *e, LNode *const *path, int depth, int jt, int64_t tj,
                            int *buf) {
  if (!e)
    return false;
  if (e->kind == LE_LOAD && lp->pad == 1 && depth >= 2 && !(path[0]->flags & LF_REDUCTION) && path[0]->it != jt) {
    const LBuf *x = &lp->bufs[e->acc.buf];
    int64_t n = x->rank ? x->dims[x->rank - 1] : 0, r = n % (lp->f32 ? 16 : 8);
    int batch = -1;
    bool ok = x->kind == LB_PARAM_IN && x->rank >= 2 && n == tj && lp_lane_extent(lp, n) && (r & (r - 1)) != 0 &&
              lp_aff_is_iter(&e->acc.idx[x->rank - 1], jt);
    for (int d = 0; ok && d < x->rank; d++)
      if (lp_aff_coef(&e->acc.idx[d], path[0]->it)) {
        ok = batch < 0 && d < x->rank - 1 && lp_aff_is_iter(&e->acc.idx[d], path[0]->it);
        batch = d;
      }
    for (int d = 0; d < x->rank; d++)
      for (int l = 1; ok && l < depth; l++) {
        int v = path[l]->it;
        ok = !lp_aff_coef(&e->acc.idx[d], v) || (v == jt ? d == x->rank - 1 : (path[l]->flags & LF_REDUCTION) != 0);
      }
    if (ok && batch >= 0 && x->count / x->dims[batch] <= 32768) {
      *buf = e->acc.buf;
      return true;
    }
  }
  return find_batch_copy(lp, e->a, path, depth, jt, tj, buf) || find_batch_copy(lp, e->b, path, depth, jt, tj, buf);
}

/* The level (0-based) of the loop of path with iterator it, or -1. */
static int level_of(LNode *const *path, int depth, int it) {
  for (int l = 0; l < depth; l++)
    if (path[l]->it == it)
      return l;
  return -1;
}

/* R-SCH-17 step 2: whether a sum of path other than kt lies outside kt (k is then not
 * tiled by KC: its block loop would go outside that sum, R-SCH-13). */
static bool sum_outside(LNode *const *path, int depth, int kt) {
  for (int l = 0; l < depth && path[l]->it != kt; l++)
    if (path[l]->flags & LF_REDUCTION)
      return true;
  return false;
}

/* Whether path has a loop of two or more iterations that is not a sum, i, j or one of
 * their block loops ib, jb and jc (a batch loop, which step 3 makes the parallel one). */
static bool batch_loop(LNode *const *path, int depth, int it, int jt, int ib, int jb, int jc) {
  for (int l = 0; l < depth; l++) {
    int64_t t, v = path[l]->it;
    if (!(path[l]->flags & LF_REDUCTION) && v != it && v != jt && v != ib && v != jb && v != jc &&
        const_extent(path[l], &t) && t >= 2)
      return true;
  }
  return false;
}

/* R-SCH-17 (dot rows): whether the row block of s, rows of one column on f64 over a
 * sum k of 8 or more terms, would be R-CG-29's dot products: s is T += X * Y with X
 * reading along k with stride 1 and along the rows i, and Y not along i. */
static bool dot_rows(const LProgram *lp, const LNode *s, int it, int kt, int64_t tj, int64_t tk) {
  const LExpr *e = s->rhs;
  if (lp->f32 || tj != 1 || tk < 8 || !s->accum || !e || e->kind != LE_MUL || e->a->kind != LE_LOAD ||
      e->b->kind != LE_LOAD)
    return false;
  for (int x = 0; x < 2; x++) {
    const LAccess *X = x ? &e->b->acc : &e->a->acc, *Y = x ? &e->a->acc : &e->b->acc;
    if (X->buf != s->lhs.buf && Y->buf != s->lhs.buf && access_stride(lp, X, kt) == 1 &&
        access_stride(lp, X, it) >= 1 && !access_uses(lp, Y, it))
      return true;
  }
  return false;
}

/* Whether e loads a tensor of the workspace (written by an earlier nest) whose last
 * index is the iterator jt. */
static bool temp_along(const LProgram *lp, const LExpr *e, int jt) {
  if (!e)
    return false;
  if (e->kind == LE_LOAD && lp->bufs[e->acc.buf].kind == LB_WORK && lp->bufs[e->acc.buf].rank > 0 &&
      lp_aff_is_iter(&e->acc.idx[lp->bufs[e->acc.buf].rank - 1], jt))
    return true;
  return temp_along(lp, e->a, jt) || temp_along(lp, e->b, jt);
}

/* R-SCH-17 step 2: whether a panel copy read by n rows (or columns) in blocks of m
 * repays its pass over the panel: at least PANEL_MIN_REUSE blocks and PANEL_MIN_USES
 * rows. */
static bool panel_pays(int64_t n, int64_t m) {
  return n / m >= PANEL_MIN_REUSE && n >= PANEL_MIN_USES;
}

/* The bytes of the panel that j reads over all the sums of path, per column. */
static double panel_column(const LProgram *lp, LNode *const *path, int depth) {
  double red = lp->f32 ? 4 : 8;
  for (int l = 0; l < depth; l++)
    if (path[l]->flags & LF_REDUCTION)
      red *= (double)lp_trip_estimate(path[l]);
  return red;
}

/* The elements per column that the loads along jt of e read over the sums, each load
 * over the sums whose iterators it uses and their tile loops (loads of no sum left
 * out): panel_column's
 * count (in elements) when one load uses every sum, less when the column comes from
 * several loads of fewer sums (an inlined product, R-SCH-28). */
static double panel_elems(const LProgram *lp, const LExpr *e, LNode *const *path, int depth, int jt) {
  if (!e)
    return 0;
  if (e->kind != LE_LOAD)
    return panel_elems(lp, e->a, path, depth, jt) + panel_elems(lp, e->b, path, depth, jt);
  double n = 1;
  bool sums = false, used[MAXDEPTH + 1] = {false};
  for (int l = depth - 1; l >= 0; l--) {           /* a sum the load uses, or a tile loop of one */
    used[l] = access_uses(lp, &e->acc, path[l]->it);
    for (int m = l + 1; m < depth && !used[l]; m++)
      used[l] = used[m] && lp_bounds_use(path[m], path[l]->it);
    if (used[l] && (path[l]->flags & LF_REDUCTION)) {
      n *= (double)lp_trip_estimate(path[l]);
      sums = true;
    }
  }
  return sums && access_uses(lp, &e->acc, jt) ? n : 0;
}

/* R-SCH-17 step 5: one slice of buf (an n0-th of it) takes at most half the L2, so
 * that it stays there and its LP_COPIES copies take at most 32 MiB with a 1 MiB L2. */
static bool slice_in_l2(const LProgram *lp, int b, int64_t n0) {
  return (double)lp->bufs[b].count / (double)n0 * (lp->f32 ? 4 : 8) <= (double)(lp_l2_bytes() / 2);
}

/* R-SCH-17: whether the panel that j reads over all the sums (N_j columns) is
 * larger than half the L2 cache. */
static bool panel_over_half_l2(const LProgram *lp, LNode *const *path, int depth, int64_t tj) {
  return (double)tj * panel_column(lp, path, depth) > (double)(lp_l2_bytes() / 2);
}

/* R-SCH-17 cache tile: NC, the largest multiple of NR that divides N_j and
 * whose panel fits in half the L2 (whole panels of whole blocks only: R-CG-19
 * cannot split blocks whose bounds depend on a cache tile), or 0. */
static int64_t cache_tile(const LProgram *lp, LNode *const *path, int depth, int64_t tj, int64_t nr) {
  int64_t nc = (int64_t)((double)(lp_l2_bytes() / 2) / panel_column(lp, path, depth)) / nr * nr;
  while (nc >= nr && tj % nc)
    nc -= nr;
  return nc >= nr && tj > nc ? nc : 0;
}

/* R-SCH-17: KC, the largest power of two (16 to 4096) whose KC x NR panel of
 * the vector operand takes at most an eighth of the L2 cache. */
static int64_t kc_for(int64_t nr, int64_t es) {
  int64_t kc = 16;
  while (16 * kc * nr * es <= lp_l2_bytes() && kc < 4096)
    kc *= 2;
  return kc;
}

/* Whether k is tiled by KC (R-SCH-17): N_k > 2 KC, or N_k > KC and the N_k x
 * NR panel of the vector operand would not fit in half of L1. */
static bool k_tiled(int64_t tk, int64_t kc, int64_t nr, int64_t es) {
  return tk > 2 * kc || (tk > kc && 2 * tk * nr * es > lp_l1_bytes());
}

/* Whether j wants a cache tile: k is not blocked (N_k <= 2 KC) and the panel
 * over all the sums is larger than half the L2, not than the LLC share. KC
 * depends on NR as in register_block. */
static bool cache_tile_wanted(const LProgram *lp, LNode *const *path, int depth, int64_t tj, int64_t tk,
                              int64_t nr) {
  int64_t es = lp->f32 ? 4 : 8, kc = kc_for(nr, es);
  double panel = (double)tj * panel_column(lp, path, depth);
  return !k_tiled(tk, kc, nr, es) && panel_over_half_l2(lp, path, depth, tj) && panel <= (double)lp_llc_share_bytes() &&
         cache_tile(lp, path, depth, tj, nr) > 0;
}

/* R-SCH-17 Balance: the rows of the busiest of P threads when N rows are blocks of
 * m, the full ones shared by the parallel loop and a partial block run after them
 * (split from it with 4 or more full blocks, R-CG-19, and serially, R-CG-19.4), or as
 * one more iteration of the loop. */
static int64_t busiest_rows(int64_t n, int64_t m, int64_t p) {
  int64_t q = n / m, r = n % m;
  if (r && q >= 4)
    return (q + p - 1) / p * m + r;
  return (q + (r > 0) + p - 1) / p * m;
}

#define SINGLE_MIN_SUMS 16                          /* R-SCH-17 single block: the fewest sums */
#define ROW_MIN_SUMS 32                             /* R-SCH-17 single row: the fewest sums */

/* The number of sums of the nest on path: the product of its reduction loops'
 * extents, a loop of unknown extent counted as SINGLE_MIN_SUMS; in a double, so
 * that no product of extents overflows. */
static double sum_count(LNode *const *path, int depth) {
  double sums = 1;
  for (int l = 0; l < depth; l++) {
    int64_t t;
    if (path[l]->flags & LF_REDUCTION)
      sums *= const_extent(path[l], &t) ? (double)t : SINGLE_MIN_SUMS;
  }
  return sums;
}

/* R-SCH-17 step 2: register blocking of a contraction's sum. Picks the
 * innermost loop j (the target's last index, vectorized), the innermost
 * reduction loop k and the innermost other loop i of the target (with bcast,
 * the innermost one that only the broadcast operand uses, if any); blocks i by
 * MR and j by NR, tiles k by KC, orders the band
 * [other parallel loops..., i', k', j', other reduction loops..., k, i, j]
 * (or, when the panel j reads over all the sums exceeds the last-level cache, [other parallel
 * loops..., other reduction loops..., k', i', j', k, i, j]),
 * keeps the MR x NR block of the target in a local array (scalar_replace,
 * R-SCH-21), vectorizes j and unrolls i. All steps go through the checks; if
 * one is refused, the nest is left as it was. 0 if done; if not, 1 when i was such
 * a broadcast row loop other than the innermost (try again without bcast), else -1. */
static int register_block(LProgram *lp, Buf *rec, int u, bool bcast) {
  LNode *path[MAXDEPTH + 1];
  int depth;
  LNode *s = lp->units[u].stmt;
  if (!s->accum || !lp_find_path(lp, s, path, &depth) || depth < 3)
    return -1;
  int rank = lp->bufs[s->lhs.buf].rank;
  if (rank < 1)
    return -1;
  Snap snap;
  snap_take(lp, &snap);
  int nbufs0 = lp->nbufs, nnames0 = lp->nnames;
  Buf steps = {0};
  int rc = 0;
  /* 1. a perfect band: distribute the loops of the path that hold more */
  for (int l = depth - 2; l >= 0 && !rc; l--) {      /* bottom up: a split makes its parent hold more */
    if (!lp_find_path(lp, s, path, &depth)) {
      rc = -1;
      break;
    }
    if (path[l]->nkids > 1)
      rc = default_step(lp, &steps, u, SP_DISTRIBUTE, 1, l + 1, 0);
  }
  /* the loops j, k, i and the block sizes */
  int jt = -1, kt = -1, it = -1;
  bool moved_row = false, tall = false;            /* tall: R-SCH-17.2's blocks */
  bool batch_row = false;                          /* R-SCH-17 batched scalar sums */
  bool dotr = false;                               /* R-SCH-17 dot rows */
  int64_t ti = 0, tj = 0, tk = 0, mr = 0, nr = 0, kc = 16;
  if (!rc && lp_find_path(lp, s, path, &depth)) {
    /* j: the loop of a whole index of the target whose operands are best read as vectors */
    int best = -1, bscore = 0, wide = -1, wscore = 0;   /* wide: the best of more than one iteration */
    for (int l = depth - 1; l >= 0; l--) {
      int64_t t;
      if ((path[l]->flags & LF_REDUCTION) || !whole_index(lp, s, path[l]->it) || !const_extent(path[l], &t))
        continue;
      int vs = vec_score(lp, s->rhs, path[l]->it);
      int sc = 4 * vs + 2 * lp_aff_is_iter(&s->lhs.idx[rank - 1], path[l]->it) + (l == depth - 1);
      if (best < 0 || sc > bscore) {
        best = l;
        bscore = sc;
      }
      if (t > 1 && unit_load(lp, s->rhs, path[l]->it) && (wide < 0 || sc > wscore)) {
        wide = l;
        wscore = sc;
      }
    }
    int64_t tb;                                     /* one iteration is no vector: a loop along which */
    if (best >= 0 && const_extent(path[best], &tb) && tb == 1 && wide >= 0)   /* a load has stride 1 is j */
      best = wide;
    if (best >= 0)
      jt = path[best]->it;
    for (int l = depth - 1; l >= 0 && kt < 0; l--)
      if ((path[l]->flags & LF_REDUCTION) && !lhs_uses(s, lp, path[l]->it))
        kt = path[l]->it;
    /* i: with bcast, the innermost other whole index that only the broadcast operand
     * uses; else (or if there is none) the innermost other whole index */
    for (int pass = !bcast; pass < 2 && it < 0; pass++)
      for (int l = depth - 1; l >= 0 && it < 0; l--) {
        bool some = false;
        if (!(path[l]->flags & LF_REDUCTION) && path[l]->it != jt && whole_index(lp, s, path[l]->it) &&
            (pass || (broadcast_only(lp, s->rhs, path[l]->it, jt, &some) && some)))
          it = path[l]->it;
      }
    for (int l = depth - 1; l >= 0; l--)            /* whether i is not the innermost candidate */
      if (!(path[l]->flags & LF_REDUCTION) && path[l]->it != jt && whole_index(lp, s, path[l]->it)) {
        moved_row = path[l]->it != it;
        break;
      }
    /* batched scalar sums: a row of one lane, one row; i is the innermost other whole
     * index of more than one iteration, so that MR sums share each step of k */
    int64_t e1, e2;
    if (it >= 0 && jt >= 0 && const_extent(path[level_of(path, depth, it)], &e1) && e1 == 1 &&
        const_extent(path[level_of(path, depth, jt)], &e2) && e2 == 1)
      for (int l = depth - 1; l >= 0; l--) {
        int64_t t;
        if (!(path[l]->flags & LF_REDUCTION) && path[l]->it != jt && whole_index(lp, s, path[l]->it) &&
            const_extent(path[l], &t) && t > 1) {
          it = path[l]->it;
          batch_row = true;
          break;
        }
      }
  }
  if (jt < 0 || kt < 0 || it < 0 || !const_extent(path[level_of(path, depth, it)], &ti) ||
      !const_extent(path[level_of(path, depth, jt)], &tj) || !const_extent(path[level_of(path, depth, kt)], &tk) ||
      ti < 1 || tj < 1 || tk < 1)
    rc = -1;
  /* one row over a panel within half the L2 (R-SCH-17 single row): blocked only when the
   * block holds the whole row (NR = N_j, below), of a parameter, over 32 or more sums */
  bool short_row = !rc && ti == 1 && !panel_over_half_l2(lp, path, depth, tj);
  if (short_row && (sum_count(path, depth) < ROW_MIN_SUMS || lp->bufs[s->lhs.buf].param < 0))
    rc = -1;
  /* the panel that j reads over all the sums, before any loop is tiled */
  double whole = rc ? 0 : (double)tj * panel_column(lp, path, depth);
  /* packed copies of read-only inputs that j would read with a stride (R-SCH-24) */
  for (int again = 1; !rc && again;) {
    again = 0;
    int b, d;
    if (find_packable(lp, s->rhs, jt, &b, &d)) {
      rc = step(lp, &steps, u, SP_PACK, lp->bufs[b].cname, 1, d + 1, 0);
      again = !rc;
    }
  }
  /* a padded copy of a read-only input whose short rows j reads whole (R-SCH-17, R-SCH-24) */
  for (int again = 1; !rc && again;) {
    int b;
    again = lp_find_path(lp, s, path, &depth) && find_row_copy(lp, s->rhs, path, depth, jt, tj, &b) &&
            !(rc = step(lp, &steps, u, SP_PACK, lp->bufs[b].cname, 1, lp->bufs[b].rank, 0));
  }
  /* a batch copy of such an input that the outermost loop indexes too (R-SCH-17, R-SCH-24.1) */
  for (int again = 1; !rc && again;) {
    int b;
    again = lp_find_path(lp, s, path, &depth) && find_batch_copy(lp, s->rhs, path, depth, jt, tj, &b) &&
            !(rc = step(lp, &steps, u, SP_PACK, lp->bufs[b].cname, 2, lp->bufs[b].rank, 1));
  }
  if (!rc) {
    int64_t vw = lp->f32 ? 16 : 8;                 /* elements of a 64-byte vector */
    int64_t es = lp->f32 ? 4 : 8;
    nr = tj <= 4 * vw ? tj : 4 * vw;               /* a whole short row, else four vectors; */
    if (tj <= 4 * vw && tj > vw && tj % vw && loads_param_along(lp, s->rhs, jt))
      nr = tj / vw * vw;                            /* whole vectors, when R-CG-20 cannot pad the row */
    if (ti <= 16)
      mr = ti;
    else if (batch_row)                             /* batched scalar sums: four in a block, */
      mr = 4;                                       /* a partial block for the rest */
    else {
      for (int64_t m = 8; m >= 4 && !mr; m--)
        if (ti % m == 0)
          mr = m;
      if (!mr)                                      /* a partial block (R-SCH-8, R-CG-19.3) after at */
        mr = ti / 4 < 8 ? ti / 4 : 8;               /* least 4 full ones, so R-CG-19 splits them */
    }
    if (tj > 4 * vw && (mr + 1) * 4 + 1 > 32 && lp_find_path(lp, s, path, &depth) &&    /* a long row: the MR x NR accumulators, a row of the */
        (!cache_tile_wanted(lp, path, depth, tj, tk, 4 * vw) || cache_tile(lp, path, depth, tj, 3 * vw)))
      nr = 3 * vw;                                  /* vector operand and a broadcast in 32 registers */
    /* dot rows: blocks of 8 rows, R-CG-29's dot products in lanes, and a partial block
     * of the rest, where MR above is not a multiple of 8 and R-CG-19 splits the partial
     * block (at least 4 full ones, or a batch loop that step 3 makes the parallel one);
     * one block of up to 16 rows without a batch loop is two halves (the second partial
     * when N_i is odd), which step 3 runs in parallel (at 16 rows, R-CG-29's blocks of 8) */
    bool batch = lp_find_path(lp, s, path, &depth) && batch_loop(path, depth, it, jt, -1, -1, -1);
    if (!batch_row && ti > 8 && lp_find_path(lp, s, path, &depth) && dot_rows(lp, s, it, kt, tj, tk)) {
      if (mr % 8 && (ti / 8 >= 4 || batch)) {
        mr = 8;
        dotr = true;
      } else if (ti <= 16 && mr == ti && !batch) {
        mr = (ti + 1) / 2;
        dotr = true;
      }
    }
    /* the register file for every row: MR x NV accumulators (NV vectors per row), the
     * row of the vector operand and a broadcast in 32 registers; a long row kept at 4V
     * for its cache tile (above) allows MR = 8, as measured */
    int64_t nv = (nr + vw - 1) / vw, lim = tj > 4 * vw && nr == 4 * vw ? 8 : 31 / nv - 1;
    if (mr > lim) {
      int64_t m = lim;
      while (m >= 4 && ti % m)
        m--;
      if (m < 4)                                    /* else a partial block after at least 4 full ones */
        m = ti / 4 < lim ? ti / 4 : lim;
      if (m >= 4)
        mr = m;
    }
    /* few rows (R-SCH-17): all of them in one block of two vectors per row, so that a panel
     * larger than half the L2 is read once rather than once per row block */
    if (mr < ti && ti <= 31 / 2 - 1 && nr > 2 * vw && lp_find_path(lp, s, path, &depth) &&
        panel_over_half_l2(lp, path, depth, tj)) {
      nr = 2 * vw;
      mr = ti;
    }
    /* one row: as many vectors per block as the register file holds (15 accumulators,
     * the row of the vector operand and a broadcast), so that each sum streams a long
     * stretch of the vector operand's row; over a panel within half the L2, one block */
    if (ti == 1 && tj > 4 * vw)
      nr = (tj < 15 * vw ? tj / vw : 15) * vw;
    if (short_row && nr < tj)
      rc = -1;
    /* a computed vector operand on a host that splits 512-bit operations (R-SCH-17.2):
     * one vector per row and as many rows as divide N_i evenly among the cores */
    const LAccess *x = lp_vec_split() && tj >= vw ? computed_vector(lp, s->rhs, it, jt) : NULL;
    for (int64_t m = TALL_MAX_ROWS; x && m > mr && !tall; m--)
      if (ti % m == 0 && (ti / m) % lp_cores() == 0 && rows_uncrowded(lp, x, it, m)) {
        mr = m;
        nr = vw;
        tall = true;
      }
    kc = kc_for(nr, es);
    if (!mr || (moved_row && mr >= ti))             /* the broadcast rows only over several row blocks */
      rc = -1;
  }
  /* 2. blocks: j by NC (cache tile) and NR, k by KC, i by MR */
  int jc = -1, jb = -1, kb = -1, ic = -1, ib = -1;
  /* one block of every row (R-SCH-17) reads the vector operand once: no tile keeps it for the others */
  bool rows_tiled = ti > mr;
  /* the sums go outside for R-SCH-25's private slices (step 5); when the panel fits in
   * the L2, no cache tile of j, which, outermost and parallel, would leave no serial
   * loop for the slices */
  bool priv_out = !rc && lp->openmp && tk >= PRIVATE_MIN_SUM && lp_find_path(lp, s, path, &depth) &&
                  private_operand(lp, s->rhs, path, depth, kt);
  /* private tiles (R-SCH-17 step 2, for step 5): the loop pt of the slices in tiles of
   * KS, the most whose slices take at most half the L2, so that the register block
   * spans KS slices rather than one; its tile loop goes outside the blocks, pt inside */
  int pt = -1;
  if (priv_out && lp_find_path(lp, s, path, &depth)) {
    int pb, lv = private_level(lp, s->rhs, path, depth, kt, &pb);
    int64_t tp, ks = 0;
    if (lv >= 0 && const_extent(path[lv], &tp) && tp >= 4 && path[lv]->step == 1 && lp_aff_is_const(&path[lv]->lb)) {
      double slice = (double)lp->bufs[pb].count / (double)tp * (lp->f32 ? 4 : 8);
      for (int64_t m = tp / 2; m >= 2 && !ks; m--)
        if (tp % m == 0 && (double)m * slice <= (double)(lp_l2_bytes() / 2))
          ks = m;
    }
    if (ks >= 2 && !(rc = default_step(lp, &steps, u, SP_STRIPMINE, 2, lv + 1, ks)))
      pt = path[lv]->it;
  }
  /* columns first: at most one row block per core, or a panel that an earlier nest
   * writes (step 4b then writes each thread's share of it in that thread's cache), over
   * a panel larger than half the L2, with k not tiled and every row's sums in half the
   * L2: the column blocks go outside the row blocks and step 3 makes them the parallel
   * loop, so that each thread reads its share of the panel once instead of the whole
   * panel; no cache or row tile */
  bool cols_first = !rc && lp->openmp && rows_tiled && tj > nr && (ti / mr <= lp_cores() || temp_along(lp, s->rhs, jt)) &&
                    tj / nr >= 2 * lp_cores() && !k_tiled(tk, kc, nr, lp->f32 ? 4 : 8) && !priv_out &&
                    whole <= (double)lp_llc_share_bytes() && lp_find_path(lp, s, path, &depth) &&
                    (double)ti * panel_column(lp, path, depth) <= (double)(lp_l2_bytes() / 2) &&
                    panel_over_half_l2(lp, path, depth, tj) && !batch_loop(path, depth, it, jt, -1, -1, -1);
  /* no cache tile for private slices whose panel fits in the L2, or in private tiles
   * (a tile's panel takes at most half the L2): its loop, outermost and parallel, would
   * leave no serial sum loop for the slices */
  if (!rc && rows_tiled && !cols_first && !tall && lp_find_path(lp, s, path, &depth) &&
      cache_tile_wanted(lp, path, depth, tj, tk, nr) &&
      !(priv_out && (pt >= 0 || (double)tj * panel_column(lp, path, depth) <= (double)lp_l2_bytes()))) {
    int64_t nc = cache_tile(lp, path, depth, tj, nr);
    if (nc && !(rc = default_step(lp, &steps, u, SP_STRIPMINE, 2, level_of(path, depth, jt) + 1, nc)))
      jc = lp->nits - 1;
  }
  if (!rc && lp_find_path(lp, s, path, &depth) && tj > nr &&
      !(rc = default_step(lp, &steps, u, SP_STRIPMINE, 2, level_of(path, depth, jt) + 1, nr)))
    jb = lp->nits - 1;
  /* other sums outside k: k's block loop goes inside them (R-SCH-13), below */
  bool sums_out = !rc && lp_find_path(lp, s, path, &depth) && sum_outside(path, depth, kt);
  if (!rc && rows_tiled && pt < 0 && lp_find_path(lp, s, path, &depth) && k_tiled(tk, kc, nr, lp->f32 ? 4 : 8) &&
      !(rc = default_step(lp, &steps, u, SP_STRIPMINE, 2, level_of(path, depth, kt) + 1, kc)))
    kb = lp->nits - 1;
  /* bands: one block holds every row, at most BAND, so each element of the panel feeds
   * few multiply-adds, the panel is larger than half the L2 and each of its rows spans a
   * page: k in blocks of BAND outside the column blocks, so that the panel streams band
   * after band instead of in column strips that enter a new page on every row. Without
   * a batch loop (another loop of two or more iterations outside the sums), the column
   * blocks of each band are the parallel loop, so a band must hold enough work for it */
  bool bands = false;
  if (!rc && !rows_tiled && ti <= BAND && tk > 2 * BAND && tj * (lp->f32 ? 4 : 8) >= 4096 &&
      lp_find_path(lp, s, path, &depth) && panel_over_half_l2(lp, path, depth, tj)) {
    if ((batch_loop(path, depth, it, jt, ib, jb, jc) || (double)(BAND * ti * tj) >= PARALLEL_MIN_WORK) &&
        !(rc = default_step(lp, &steps, u, SP_STRIPMINE, 2, level_of(path, depth, kt) + 1, BAND))) {
      kb = lp->nits - 1;
      kc = BAND;
      bands = true;
    }
  }
  /* the panel that j reads over all the sums (kb and k together: N_k) */
  bool outer = bands;
  if (!rc && lp_find_path(lp, s, path, &depth)) {
    double panel = (double)tj * panel_elems(lp, s->rhs, path, depth, jt) * (lp->f32 ? 4 : 8);
    outer = outer || panel > (double)lp_llc_share_bytes() || priv_out;   /* step 5: R-SCH-25 */
  }
  /* the bytes of KB sums (KC, or N_k when k is not tiled) of one row; with the sums
   * outside, a KB slice of the panel within half the L2 is read from there by every row
   * block, so no row tile (slice_fits); a larger one, when the row operand's KB slice fits
   * in half the L2, puts the column blocks outside the row blocks, so that each
   * micro-panel is read once, and needs no row tile either (cols_out) */
  double kbytes = (double)(kb >= 0 ? kc : tk) * (lp->f32 ? 4 : 8), half = (double)(lp_l2_bytes() / 2);
  bool slice_fits = outer && kb >= 0 && (double)tj * kbytes <= half;
  bool cols_out = outer && (double)ti * kbytes <= half && (double)tj * kbytes > half;
  /* the row tile: MC rows whose KB sums stay in L2 while every micro-panel of a panel
   * larger than half the L2 passes; they may take half the L2 when the whole panel is
   * larger than half a core's share of the LLC (it streams from memory once per row
   * tile), else an eighth, or a quarter when a panel copy (step 3b) will hold the
   * vector operand */
  if (!rc && jc < 0 && jb >= 0 && ti > mr && !slice_fits && !cols_out && !cols_first && lp_find_path(lp, s, path, &depth) &&
      panel_over_half_l2(lp, path, depth, tj)) {
    int pbuf;
    bool paneled = panel_pays(ti, mr) && find_panel(lp, s->rhs, jt, &pbuf);
    double cap = (double)(lp_l2_bytes() / (whole > (double)lp_llc_share_bytes() / 2 ? 2 : paneled ? 4 : 8));
    int64_t mc = 0;
    for (int64_t m = mr; 8 * m <= ti; m += mr)
      if (ti % m == 0 && (double)m * kbytes <= cap)
        mc = m;
    if (mc > mr && !(rc = default_step(lp, &steps, u, SP_STRIPMINE, 2, level_of(path, depth, it) + 1, mc)))
      ic = lp->nits - 1;
  }
  /* balance: few row blocks that step 3 makes the parallel loop (no batch loop, row
   * tile, or sums outside) are shared evenly by the host's cores, with the largest
   * MR >= 5 that divides N_i into a multiple of their count; else, when MR does not
   * divide N_i, the MR >= 5 that gives the busiest thread the fewest rows, if at most
   * 7/8 of MR's */
  int64_t np = lp_cores();
  if (!rc && !dotr && lp->openmp && ic < 0 && (!outer || pt >= 0) && !cols_first && ti > mr && ti / mr < 16 &&
      (ti % mr || (ti / mr) % np) &&
      lp_find_path(lp, s, path, &depth) && lp_par_pays(path[0]) &&
      !batch_loop(path, depth, it, jt, ib, jb, jc)) {
    int64_t best = mr, rows = busiest_rows(ti, mr, np);
    for (int64_t m = mr - 1; m >= 5; m--) {
      if (ti % m == 0 && (ti / m) % np == 0) {
        best = m;
        break;
      }
      int64_t r = busiest_rows(ti, m, np);
      if (ti % mr && 8 * r <= 7 * rows && r < busiest_rows(ti, best, np))
        best = m;
    }
    mr = best;
  }
  /* a single block (R-SCH-17): every row and column in one block, no tile and no other
   * loop but the sums, of which 16 or more: a block loop of one iteration holds it */
  bool single = !rc && jb < 0 && jc < 0 && kb < 0 && ic < 0 && lp_find_path(lp, s, path, &depth);
  for (int l = 0; single && l < depth; l++)
    if (!(path[l]->flags & LF_REDUCTION) && path[l]->it != it && path[l]->it != jt)
      single = false;
  single = single && sum_count(path, depth) >= SINGLE_MIN_SUMS;
  if (!rc && lp_find_path(lp, s, path, &depth) && (ti > mr || single) &&
      !(rc = default_step(lp, &steps, u, SP_STRIPMINE, 2, level_of(path, depth, it) + 1, mr)))
    ib = lp->nits - 1;
  /* R-SCH-17.1: the row blocks outside o, the innermost other parallel loop, when every
   * iteration of o reads the same elements of the vector operand, more than the L1, of
   * which one row block's share fits in the L1 without conflicts */
  int po = -1;
  if (!rc && ib >= 0 && jb < 0 && kb < 0 && jc < 0 && ic < 0 && !outer && !cols_first && pt < 0 &&
      lp_find_path(lp, s, path, &depth)) {
    int o = -1;
    int64_t to;
    for (int l = 0; l < depth; l++) {
      int v = path[l]->it;
      if (v != it && v != jt && v != kt && v != ib && !(path[l]->flags & LF_REDUCTION))
        o = l;
    }
    const LAccess *loads[8];
    int nload = 0;
    int64_t vw = lp->f32 ? 16 : 8, row = (tj + vw - 1) / vw * vw;  /* a row in whole vectors */
    double bytes = (double)ti * (double)row * panel_column(lp, path, depth), l1 = (double)lp_l1_bytes();
    if (o >= 0 && const_extent(path[o], &to) && to >= 2 && level_of(path, depth, ib) > o &&
        vector_loads_rows_not(lp, s->rhs, jt, it, path[o]->it, loads, &nload) && nload && bytes > l1 &&
        bytes * (double)mr / (double)ti <= l1 && share_fits_l1(lp, path, depth, loads, nload, it, mr, row))
      po = path[o]->it;
  }
  /* 3. the order [others..., ib, kb, jb, k, i, j] by interchanges (with sums outside k,
   * [others..., ib, sums..., kb, jb, k, i, j]); with a
   * row tile [others..., ic, kb, jb, ib, k, i, j]; when the panel that j
   * reads over all the sums exceeds the L3 cache, the sums go outside the
   * row blocks: [others..., kb, ib, jb, k, i, j] */
  int want[MAXDEPTH], nw = 0, home = 0;
  if (!rc && lp_find_path(lp, s, path, &depth)) {
    if (jc >= 0)                                    /* the cache tile of j outermost */
      want[nw++] = jc;
    for (int pass = 0; pass < 2; pass++) {          /* the other loops: parallel ones outside the blocks, */
      if (pass == 1 && ic >= 0 && !outer)           /* then the row tile, */
        want[nw++] = ic;
      if (pass == 1 && !outer) {                    /* reduction ones inside, around k */
        int blocks[3] = {po >= 0 ? -1 : ib, kb, jb};
        if (cols_first) {
          blocks[0] = jb;
          blocks[2] = ib;
        }
        if (ic >= 0) {
          blocks[0] = kb;
          blocks[1] = jb;
          blocks[2] = ib;
        }
        /* with other sums outside k, [ib, other sums…, kb, jb]: kb inside them (R-SCH-13) */
        bool split = sums_out && kb >= 0 && blocks[0] == ib && blocks[1] == kb;
        for (int t = 0; t < (split ? 1 : 3); t++)
          if (blocks[t] >= 0)
            want[nw++] = blocks[t];
        home = nw;
        if (split) {
          for (int l = 0; l < depth; l++)
            if (path[l]->it != kt && path[l]->it != kb && (path[l]->flags & LF_REDUCTION))
              want[nw++] = path[l]->it;
          want[nw++] = kb;
          if (jb >= 0)
            want[nw++] = jb;
          home = nw;
          continue;
        }
      }
      for (int l = 0; l < depth; l++) {
        int v = path[l]->it;
        if (v != it && v != jt && v != kt && v != ib && v != jb && v != kb && v != jc && v != ic && v != pt &&
            !(path[l]->flags & LF_REDUCTION) == !pass) {
          if (v == po)                              /* R-SCH-17.1 */
            want[nw++] = ib;
          want[nw++] = v;
        }
      }
    }
    if (outer) {                                    /* reduction ones outside the blocks */
      int blocks[4] = {ic, kb, jb, ib};             /* with a row tile or cols_out, the rows inside */
      if (ic < 0 && !cols_out) {                    /* the panels, else [kb, ib, jb] */
        blocks[2] = ib;
        blocks[3] = jb;
      }
      for (int t = 0; t < 4; t++)
        if (blocks[t] >= 0)
          want[nw++] = blocks[t];
      home = nw;
    }
    if (pt >= 0)                                    /* the private tile's sums inside the blocks */
      want[nw++] = pt;
    int tail[3] = {kt, it, jt};
    for (int t = 0; t < 3; t++)
      want[nw++] = tail[t];
    if (nw != depth)
      rc = -1;
    for (int p = 0; p < nw && !rc; p++) {
      if (!lp_find_path(lp, s, path, &depth)) {
        rc = -1;
        break;
      }
      int q = level_of(path, depth, want[p]);
      if (q < 0)
        rc = -1;
      else {
        bool swap = q == p || outer || want[p] == jc || ic >= 0 || cols_first;
        if (!swap && (rc = default_step(lp, &steps, u, SP_INTERCHANGE, 2, p + 1, q + 1)) && (moved_row || batch_row)) {
          rc = 0;                                   /* broadcast or batch rows: by adjacent swaps */
          swap = true;
        }
        if (swap)                                   /* outer sums, cache or row tile, columns first: */
          for (; q > p && !rc; q--)                 /* adjacent swaps, so no block loop passes */
            rc = default_step(lp, &steps, u, SP_INTERCHANGE, 2, q, q + 1);   /* over a loop whose bounds use it */
      }
    }
  }
  /* 3b. panel copies (R-SCH-26) of the read-only inputs read along j whose rows lie a
   * page or more apart, when enough row blocks and rows read each panel, and likewise
   * along i with the column blocks (a refused copy leaves the nest as it was) */
  for (int side = 0; side < 2 && !rc; side++) {
    int v = side ? it : jt, vb = side ? ib : jb, b;
    if (vb >= 0 && (side ? panel_pays(tj, nr) : panel_pays(ti, mr)) && find_panel(lp, s->rhs, v, &b))
      (void)step(lp, &steps, u, SP_PANEL, lp->bufs[b].cname, 0, 0, 0);
  }
  /* 4. the register block in the loop around k, the vector loop, the unrolled rows */
  if (!rc)                                          /* the block lives in the loop around the reductions */
    rc = home < 1 ? -1 : default_step(lp, &steps, u, SP_SCALAR_REPLACE, 1, home, 0);
  if (!rc && lp->openmp && lp_find_path(lp, s, path, &depth))
    rc = default_step(lp, &steps, u, SP_VECTORIZE, 1, depth, 0);
  if (!rc && lp_find_path(lp, s, path, &depth))
    rc = default_step(lp, &steps, u, SP_UNROLL, 1, level_of(path, depth, it) + 1, 0);
  /* with a cache tile, the threads share each panel: the loop below j'' is the parallel one
   * (refused if it carries a dependence; step 3 then picks one) */
  if (!rc && jc >= 0 && lp->openmp && lp_find_path(lp, s, path, &depth) && depth > 1 && path[0]->it == jc)
    (void)default_step(lp, &steps, u, SP_PARALLELIZE, 1, 2, 0);
  if (rc) {
    snap_restore(lp, &snap);
    for (int b = nbufs0; b < lp->nbufs; b++) {      /* buffers of the undone steps stay unused */
      lp->bufs[b].used = lp->bufs[b].written = false;
      lp->bufs[b].packof = -1;
      lp->bufs[b].panel = 0;
    }
    if (moved_row) {                                /* or go, with their names, before the retry */
      lp->nbufs = nbufs0;                           /* with the innermost row loop, which makes */
      lp->nnames = nnames0;                         /* them again */
    }
  } else {
    snap_drop(&snap);
    if (rec && steps.s)
      buf_printf(rec, "%s", steps.s);
  }
  buf_free(&steps);
  return rc ? (moved_row ? 1 : -1) : 0;
}

/* R-SCH-17 step 4b: whether every load of buf in e reads buf's last index by the
 * iterator of a loop on stack [q, q + S) of q's iterator, S = q's step. */
static bool loads_by_block(const LProgram *lp, const LExpr *e, int buf, const LNode *q, LNode *const *stack, int depth) {
  if (!e)
    return true;
  if (e->kind == LE_LOAD && e->acc.buf == buf) {
    const LAff *x = &e->acc.idx[lp->bufs[buf].rank - 1];
    bool ok = false;
    for (int l = 0; l < depth && !ok; l++)
      ok = lp_aff_is_iter(x, stack[l]->it) && lp_aff_is_iter(&stack[l]->lb, q->it) && stack[l]->ub.n == 1 &&
           stack[l]->ub.it[0] == q->it && stack[l]->ub.coef[0] == 1 && stack[l]->ub.c == q->step;
    if (!ok)
      return false;
  }
  return loads_by_block(lp, e->a, buf, q, stack, depth) && loads_by_block(lp, e->b, buf, q, stack, depth);
}

static bool node_by_block(const LProgram *lp, const LNode *n, int buf, const LNode *q, LNode **stack, int depth) {
  if (n->kind == LN_STMT)
    return loads_by_block(lp, n->rhs, buf, q, stack, depth);
  if (depth >= MAXDEPTH)
    return false;
  stack[depth] = (LNode *)n;
  for (int i = 0; i < n->nkids; i++)
    if (!node_by_block(lp, n->kids[i], buf, q, stack, depth + 1))
      return false;
  return true;
}

/* R-SCH-17 step 4b (aligned partitions): unit u's nest writes a whole temporary that the
 * next nest Q reading it reads in column blocks, Q's outermost loop [0, N) step S being
 * parallel; u's innermost loop walks the temporary's last index over [0, N): it is
 * stripmined by S, its block loop moved outermost and made parallel, so that each
 * thread writes the columns it reads in Q. Returns 0 if done. */
static int align_partition(LProgram *lp, Buf *rec, int u) {
  LNode *path[MAXDEPTH + 1], *stack[MAXDEPTH + 1];
  int depth;
  const LNode *s = lp->units[u].stmt;
  int b = s->lhs.buf, rank = lp->bufs[b].rank;
  if (!lp_find_path(lp, s, path, &depth) || depth < 2 || rank < 1 || s->accum)
    return -1;
  const LNode *q = next_reader(lp, path[0], b);
  int64_t n, t;
  const LNode *x = path[depth - 1];
  if (!q || q->kind != LN_LOOP || !(q->flags & LF_PARALLEL) || q->step < 2 || q->lb.n || q->lb.c ||
      !const_extent(q, &n) || !lp_aff_is_iter(&s->lhs.idx[rank - 1], x->it) || x->step != 1 ||
      !const_extent(x, &t) || x->lb.n || x->lb.c || t != n || t <= q->step ||
      !lp_par_pays(path[0]) || !node_by_block(lp, q, b, q, stack, 0))
    return -1;
  for (int d = 0; d < rank - 1; d++)
    if (lp_aff_coef(&s->lhs.idx[d], x->it))
      return -1;
  Snap snap;
  snap_take(lp, &snap);
  Buf steps = {0};
  int rc = step(lp, &steps, u, SP_STRIPMINE, NULL, 2, depth, q->step);
  for (int l = depth - 1; l >= 1 && !rc; l--)
    rc = step(lp, &steps, u, SP_INTERCHANGE, NULL, 2, l, l + 1);
  if (!rc)
    rc = step(lp, &steps, u, SP_PARALLELIZE, NULL, 1, 1, 0);
  if (rc)
    snap_restore(lp, &snap);
  else {
    snap_drop(&snap);
    if (rec && steps.s)
      buf_printf(rec, "%s", steps.s);
  }
  buf_free(&steps);
  return rc;
}

/* Whether unit u assigns a tensor of the workspace that a later top-level nest reads. */
static bool read_later(const LProgram *lp, int u) {
  LNode *path[MAXDEPTH + 1];
  int depth, b = target_buf(lp, &lp->units[u]);
  return lp->bufs[b].kind == LB_WORK && lp_find_path(lp, lp->units[u].stmt, path, &depth) && depth > 0 &&
         next_reader(lp, path[0], b);
}

/* R-SCH-17 step 3: the outermost parallel loop of unit u's nest, if it has none yet,
 * its work scaled to w0, the work of the canonical nest; step 4: a vectorized
 * innermost loop. */
static void parallel_simd(LProgram *lp, Buf *rec, int u, double w0) {
  LNode *path[MAXDEPTH + 1];
  int depth;
  if (!lp_find_path(lp, lp->units[u].stmt, path, &depth))
    return;
  double w = lp_par_work(path[0]), scale = w > w0 ? w0 / w : 1;
  if (!any_parallel(path[0]))
    for (int l = 0; l < depth; l++) {
      int64_t t;
      if (lp_par_work(path[l]) * scale < PARALLEL_MIN_WORK)
        break;
      if (const_extent(path[l], &t) && t < 2)       /* one iteration: nothing to share */
        continue;
      (void)default_step(lp, rec, u, SP_PARALLELIZE, 1, l + 1, 0);
      if (path[l]->flags & LF_PARALLEL)
        break;
    }
  if (lp_find_path(lp, lp->units[u].stmt, path, &depth) && !(path[depth - 1]->flags & LF_SIMD))
    (void)default_step(lp, rec, u, SP_VECTORIZE, 1, depth, 0);
}

/* R-SCH-17 step 0: the executions of the statements below n that load buf. */
static double reading_work(const LNode *n, int buf) {
  if (n->kind == LN_STMT)
    return lp_reads(n, buf) ? 1 : 0;
  double w = 0;
  for (int i = 0; i < n->nkids; i++)
    w += reading_work(n->kids[i], buf);
  return w * (double)lp_trip_estimate(n);
}

/* R-SCH-17 step 0: a temporary is recomputed where it is read (R-SCH-28), in
 * parallel code, when its statement is one operation on two loads and the
 * statements that read it do at most INLINE_MAX_REUSE times its work: each row
 * block then recomputes it, against a pass over memory or per-thread slices
 * (R-SCH-25) of which every thread computes all. */
static bool inline_pays(const LProgram *lp, int u) {
  LNode *path[MAXDEPTH + 1];
  int depth;
  const LNode *s = lp->units[u].stmt;
  if (!lp->openmp || lp->no_inline || !lp_find_path(lp, s, path, &depth) || depth == 0 || s->accum ||
      lp->bufs[s->lhs.buf].kind != LB_WORK || s->rhs->kind == LE_LOAD || s->rhs->kind == LE_ZERO ||
      s->rhs->kind == LE_UNDEF || s->rhs->a->kind != LE_LOAD || s->rhs->b->kind != LE_LOAD)
    return false;
  const LNode *Y = next_reader(lp, path[0], s->lhs.buf);
  return Y && reading_work(Y, s->lhs.buf) <= INLINE_MAX_REUSE * lp_work(path[0]);
}

int sched_default(LProgram *lp, const void *arg, char *err, size_t errlen) {
  Buf *rec = (Buf *)arg;
  (void)err;
  (void)errlen;
  if (lp->lanes >= 0 && lp->nunits > 0 && (lp->lanes > 0 || lanes_pays(lp)) &&
      default_step(lp, rec, 0, SP_LANES, 0, 0, 0) == 0) /* R-SCH-27: the whole program in lanes */
    return 0;
  /* 0. temporaries recomputed where they are read (R-SCH-28) */
  for (int u = 0; u < lp->nunits; u++)
    if (inline_pays(lp, u) && default_step(lp, rec, u, SP_INLINE, 0, 0, 0) == 0)
      u--;
  /* the work of each target's canonical nest, for step 3 */
  int nw0 = lp->nunits;
  double *w0 = xcalloc((size_t)(nw0 > 0 ? nw0 : 1), sizeof *w0);
  for (int u = 0; u < nw0; u++)
    w0[u] = HUGE_VAL;
  for (int u = 0; u < lp->nunits; u++) {
    LNode *path[MAXDEPTH + 1];
    int depth;
    if (!lp_find_path(lp, lp->units[u].stmt, path, &depth) || depth == 0)
      continue;
    if (u < nw0)
      w0[u] = lp_par_work(path[0]);
    /* 1. unit stride: the innermost loop walks the target's last index */
    const LNode *s = lp->units[u].stmt;
    int rank = lp->bufs[s->lhs.buf].rank;
    if (rank > 0 && !lp_aff_is_iter(&s->lhs.idx[rank - 1], path[depth - 1]->it))
      for (int l = 0; l < depth - 1; l++)
        if (lp_aff_is_iter(&s->lhs.idx[rank - 1], path[l]->it)) {
          (void)default_step(lp, rec, u, SP_INTERCHANGE, 2, l + 1, depth);
          break;
        }
    if (register_block(lp, rec, u, true) == 1)      /* 2. register blocking, with the */
      register_block(lp, rec, u, false);            /* innermost row loop if refused */
    if (!lp->openmp)
      continue;
    /* 3. and 4., except for a temporary that a later nest reads: after all targets,
     * so that step 4b sees the parallel loops of the nests that follow it */
    if (!read_later(lp, u))
      parallel_simd(lp, rec, u, u < nw0 ? w0[u] : HUGE_VAL);
  }
  /* 4b. aligned partitions, then 3. and 4., for those temporaries */
  for (int u = lp->nunits - 1; u >= 0 && lp->openmp; u--) {
    LNode *path[MAXDEPTH + 1];
    int depth;
    if (!read_later(lp, u) || !lp_find_path(lp, lp->units[u].stmt, path, &depth))
      continue;
    if (!any_parallel(path[0]))
      (void)align_partition(lp, rec, u);
    parallel_simd(lp, rec, u, u < nw0 ? w0[u] : HUGE_VAL);
  }
  free(w0);
  /* 5. the nests of consecutive statements fused in their outermost loop,
   * then temporaries kept per iteration of it (R-SCH-22, R-SCH-23) */
  for (int u = 0; u < lp->nunits; u++)
    while (default_step(lp, rec, u, SP_FUSE_BEFORE, 1, 1, 0) == 0)
      ;
  for (int u = 0; u < lp->nunits; u++) {
    int b = target_buf(lp, &lp->units[u]);
    if (lp->bufs[b].kind != LB_WORK || !lp->bufs[b].used || lp->bufs[b].priv ||
        default_step(lp, rec, u, SP_CONTRACT, 1, 1, 0) == 0 || !lp->openmp)
      continue;
    /* R-SCH-25: per-thread slices, when their copies take at most twice the room of the
     * tensor or one slice at most half the L2 */
    const LNode *s0 = lp->units[u].stmt;
    LNode *path[MAXDEPTH + 1];
    int depth;
    if (lp_find_path(lp, s0, path, &depth) && depth > 0) {
      int64_t n0;
      const LNode *Y = next_reader(lp, path[0], b); /* the nest that reads it */
      if (Y && const_extent(path[0], &n0) && (2 * n0 >= LP_COPIES || slice_in_l2(lp, b, n0)) && lhs_uses(s0, lp, path[0]->it) &&
          lp_work(Y) >= PRIVATE_MIN_RATIO * lp_work(path[0])) {
        int d = Y->kind == LN_LOOP ? node_dim_by_tile(lp, Y, b, Y) : -1;   /* Y's private tiles (step 2) */
        for (int l = 0; d >= 0 && l < depth; l++)
          if (s0->lhs.buf == b && lp_aff_is_iter(&s0->lhs.idx[d], path[l]->it)) {
            (void)default_step(lp, rec, u, SP_STRIPMINE, 2, l + 1, Y->step);
            break;
          }
        (void)default_step(lp, rec, u, SP_PRIVATE, 1, 1, 0);
      }
    }
  }
  return 0;
}
