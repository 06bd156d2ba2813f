/*
 * legality.c - dependences between statement instances of the loop IR and the
 * legality checks of schedules (spec/schedule.md R-SCH-12 .. R-SCH-14).
 *
 * An instance of a statement is a value of the iterators of its loops. Two
 * instances depend on each other when they access one element and at least
 * one access writes (R-SCH-12); `+=` reads and writes (R-SCH-13), so the
 * terms of a sum keep their order. Whether a dependence with given
 * directions exists is an integer linear system over the iterators of both
 * instances, decided by exact elimination of unit equalities and
 * Fourier-Motzkin elimination with gcd tightening. What the solver cannot
 * refute counts as a dependence: a legal step may be refused, an illegal one
 * is never accepted.
 */
#include <stdlib.h>
#include <string.h>

#include "compile.h"

#define SYS_MAXROWS 4000
#define MAXCOEF ((int64_t)1 << 40)
#define MAXQUERIES 400000

/* ------------------------------------------------------------ linear systems */

/* Row r: sum_j a[r][j] x_j + a[r][nv] >= 0, or == 0 if eq[r]. */
typedef struct Sys {
  int nv;
  int n, cap;
  int64_t *a;
  char *eq;
  bool unknown;               /* too large, overflow, an iterator out of scope */
} Sys;

static void sys_init(Sys *s, int nv) {
  memset(s, 0, sizeof *s);
  s->nv = nv;
}

static void sys_free(Sys *s) {
  free(s->a);
  free(s->eq);
}

static int64_t *sys_row(Sys *s, bool eq) {
  if (s->n == s->cap) {
    s->cap = s->cap ? 2 * s->cap : 32;
    int64_t *a = xcalloc((size_t)s->cap * (size_t)(s->nv + 1), sizeof *a);
    char *e = xcalloc((size_t)s->cap, 1);
    if (s->n) {
      memcpy(a, s->a, (size_t)s->n * (size_t)(s->nv + 1) * sizeof *a);
      memcpy(e, s->eq, (size_t)s->n);
    }
    free(s->a);
    free(s->eq);
    s->a = a;
    s->eq = e;
  }
  int64_t *r = s->a + (size_t)s->n * (size_t)(s->nv + 1);
  memset(r, 0, (size_t)(s->nv + 1) * sizeof *r);
  s->eq[s->n++] = eq;
  return r;
}

static int64_t gcd64(int64_t a, int64_t b) {
  a = a < 0 ? -a : a;
  b = b < 0 ? -b : b;
  while (b) {
    int64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

static int64_t floor_div(int64_t a, int64_t b) { /* b > 0 */
  int64_t q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}

/* Normalizes a row by the gcd of its coefficients, rounding the constant of an
 * inequality down (valid for integer solutions). 0 keep, 1 trivially true,
 * -1 contradiction, 2 coefficients too large. */
static int normalize(int64_t *r, int nv, bool eq) {
  int64_t g = 0;
  for (int j = 0; j < nv; j++) {
    if (!r[j])
      continue;
    if (r[j] > MAXCOEF || r[j] < -MAXCOEF)
      return 2;
    if (g != 1)
      g = gcd64(g, r[j]);
  }
  int64_t c = r[nv];
  if (c > MAXCOEF || c < -MAXCOEF)
    return 2;
  if (g == 0)
    return (eq ? c == 0 : c >= 0) ? 1 : -1;
  if (g == 1)
    return 0;
  if (eq && c % g != 0)
    return -1;
  for (int j = 0; j < nv; j++)
    r[j] /= g;
  r[nv] = eq ? c / g : floor_div(c, g);
  return 0;
}

/* r := r - f * e, with overflow check. */
static bool row_axpy(int64_t *r, int64_t f, const int64_t *e, int nv) {
  for (int j = 0; j <= nv; j++) {
    __int128 v = (__int128)r[j] - (__int128)f * e[j];
    if (v > MAXCOEF || v < -MAXCOEF)
      return false;
    r[j] = (int64_t)v;
  }
  return true;
}

typedef struct RowSet {
  int nv, n, cap;
  int64_t *a;
  int *hash;                  /* open addressing over the coefficients, -1 empty */
  int hcap;
} RowSet;

static uint64_t row_hash(const int64_t *r, int nv) {
  uint64_t h = 1469598103934665603ull;
  for (int j = 0; j < nv; j++)
    h = (h ^ (uint64_t)r[j]) * 1099511628211ull;
  return h;
}

static void rs_init(RowSet *s, int nv) {
  memset(s, 0, sizeof *s);
  s->nv = nv;
}

static void rs_free(RowSet *s) {
  free(s->a);
  free(s->hash);
}

static void rs_rehash(RowSet *s) {
  free(s->hash);
  s->hcap = s->hcap ? 2 * s->hcap : 64;
  s->hash = xmalloc((size_t)s->hcap * sizeof *s->hash);
  for (int i = 0; i < s->hcap; i++)
    s->hash[i] = -1;
  for (int i = 0; i < s->n; i++) {
    uint64_t h = row_hash(s->a + (size_t)i * (size_t)(s->nv + 1), s->nv) & (uint64_t)(s->hcap - 1);
    while (s->hash[h] >= 0)
      h = (h + 1) & (uint64_t)(s->hcap - 1);
    s->hash[h] = i;
  }
}

/* Adds an inequality, keeping only the tightest of rows with equal coefficients. */
static void rs_add(RowSet *s, const int64_t *r) {
  int w = s->nv + 1;
  if (2 * (s->n + 1) > s->hcap)
    rs_rehash(s);
  uint64_t h = row_hash(r, s->nv) & (uint64_t)(s->hcap - 1);
  while (s->hash[h] >= 0) {
    int64_t *o = s->a + (size_t)s->hash[h] * (size_t)w;
    if (!memcmp(o, r, (size_t)s->nv * sizeof *r)) {
      if (r[s->nv] < o[s->nv])
        o[s->nv] = r[s->nv];
      return;
    }
    h = (h + 1) & (uint64_t)(s->hcap - 1);
  }
  if (s->n == s->cap) {
    s->cap = s->cap ? 2 * s->cap : 64;
    int64_t *a = xmalloc((size_t)s->cap * (size_t)w * sizeof *a);
    if (s->n)
      memcpy(a, s->a, (size_t)s->n * (size_t)w * sizeof *a);
    free(s->a);
    s->a = a;
  }
  memcpy(s->a + (size_t)s->n * (size_t)w, r, (size_t)w * sizeof *r);
  s->hash[h] = s->n++;
}

/* Whether the system may have an integer solution (R-SCH-12): false only if
 * it provably has none. */
static bool sys_feasible(Sys *s) {
  if (s->unknown)
    return true;
  int nv = s->nv, w = nv + 1;
  /* normalize; eliminate equalities that have a +-1 coefficient */
  for (int r = 0; r < s->n;) {
    int k = normalize(s->a + (size_t)r * (size_t)w, nv, s->eq[r]);
    if (k == 2)
      return true;
    if (k == -1)
      return false;
    if (k == 1) {
      memmove(s->a + (size_t)r * (size_t)w, s->a + (size_t)(r + 1) * (size_t)w, (size_t)(s->n - r - 1) * (size_t)w * sizeof *s->a);
      memmove(s->eq + r, s->eq + r + 1, (size_t)(s->n - r - 1));
      s->n--;
      continue;
    }
    r++;
  }
  for (;;) {
    int er = -1, ej = -1;
    for (int r = 0; r < s->n && er < 0; r++)
      if (s->eq[r])
        for (int j = 0; j < nv; j++)
          if (s->a[(size_t)r * (size_t)w + (size_t)j] == 1 || s->a[(size_t)r * (size_t)w + (size_t)j] == -1) {
            er = r;
            ej = j;
            break;
          }
    if (er < 0)
      break;
    int64_t *e = xmalloc((size_t)w * sizeof *e);
    memcpy(e, s->a + (size_t)er * (size_t)w, (size_t)w * sizeof *e);
    int m = 0;
    for (int r = 0; r < s->n; r++) {
      if (r == er)
        continue;
      int64_t *row = s->a + (size_t)r * (size_t)w;
      if (row[ej] && !row_axpy(row, row[ej] * e[ej], e, nv)) {
        free(e);
        return true;
      }
      int k = normalize(row, nv, s->eq[r]);
      if (k == 2) {
        free(e);
        return true;
      }
      if (k == -1) {
        free(e);
        return false;
      }
      if (k == 1)
        continue;
      memmove(s->a + (size_t)m * (size_t)w, row, (size_t)w * sizeof *row);
      s->eq[m++] = s->eq[r];
    }
    s->n = m;
    free(e);
  }
  /* the remaining equalities become two inequalities each (a relaxation) */
  RowSet cur;
  rs_init(&cur, nv);
  int64_t *tmp = xmalloc((size_t)w * sizeof *tmp);
  for (int r = 0; r < s->n; r++) {
    const int64_t *row = s->a + (size_t)r * (size_t)w;
    rs_add(&cur, row);
    if (s->eq[r]) {
      for (int j = 0; j <= nv; j++)
        tmp[j] = -row[j];
      rs_add(&cur, tmp);
    }
  }
  bool result = true;
  for (;;) {
    int best = -1;
    long long bestcost = 0;
    for (int j = 0; j < nv; j++) {
      long long pos = 0, neg = 0;
      for (int r = 0; r < cur.n; r++) {
        int64_t c = cur.a[(size_t)r * (size_t)w + (size_t)j];
        pos += c > 0;
        neg += c < 0;
      }
      if (pos + neg == 0)
        continue;
      long long cost = pos * neg;
      if (best < 0 || cost < bestcost) {
        best = j;
        bestcost = cost;
      }
    }
    if (best < 0)
      break;                                        /* no variables left: every row held */
    RowSet next;
    rs_init(&next, nv);
    bool contradiction = false, toobig = false;
    for (int r = 0; r < cur.n; r++)
      if (cur.a[(size_t)r * (size_t)w + (size_t)best] == 0)
        rs_add(&next, cur.a + (size_t)r * (size_t)w);
    for (int p = 0; p < cur.n && !contradiction && !toobig; p++) {
      const int64_t *P = cur.a + (size_t)p * (size_t)w;
      if (P[best] <= 0)
        continue;
      for (int q = 0; q < cur.n && !contradiction && !toobig; q++) {
        const int64_t *N = cur.a + (size_t)q * (size_t)w;
        if (N[best] >= 0)
          continue;
        bool ovf = false;
        for (int j = 0; j <= nv; j++) {
          __int128 v = (__int128)P[j] * (-N[best]) + (__int128)N[j] * P[best];
          if (v > MAXCOEF || v < -MAXCOEF)
            ovf = true;
          tmp[j] = ovf ? 0 : (int64_t)v;
        }
        if (ovf) {
          toobig = true;
          break;
        }
        int k = normalize(tmp, nv, false);
        if (k == 2)
          toobig = true;
        else if (k == -1)
          contradiction = true;
        else if (k == 0)
          rs_add(&next, tmp);
        if (next.n > SYS_MAXROWS)
          toobig = true;
      }
    }
    rs_free(&cur);
    cur = next;
    if (contradiction) {
      result = false;
      break;
    }
    if (toobig)
      break;                                        /* unknown: counts as a solution */
  }
  rs_free(&cur);
  free(tmp);
  return result;
}

/* ------------------------------------------------------------ statements and accesses */

typedef struct Acc {
  const LAccess *a;
  char kind;                  /* 'W' write, 'U' update (+=), 'R' read */
} Acc;

typedef struct SInfo {
  LSRef ref;
  Acc *acc;
  int nacc;
} SInfo;

typedef struct SList {
  SInfo *s;
  int n, cap;
  bool toodeep;
} SList;

static void add_loads(const LExpr *e, SInfo *si, int *cap) {
  if (!e)
    return;
  if (e->kind == LE_LOAD) {
    if (si->nacc == *cap) {
      *cap = *cap ? 2 * *cap : 8;
      Acc *a = xcalloc((size_t)*cap, sizeof *a);
      if (si->nacc)
        memcpy(a, si->acc, (size_t)si->nacc * sizeof *a);
      free(si->acc);
      si->acc = a;
    }
    si->acc[si->nacc].a = &e->acc;
    si->acc[si->nacc++].kind = 'R';
  }
  add_loads(e->a, si, cap);
  add_loads(e->b, si, cap);
}

static void collect(const LNode *n, LNode **stack, int depth, SList *out) {
  if (n->kind == LN_STMT) {
    if (out->n == out->cap) {
      out->cap = out->cap ? 2 * out->cap : 16;
      SInfo *s = xcalloc((size_t)out->cap, sizeof *s);
      if (out->n)
        memcpy(s, out->s, (size_t)out->n * sizeof *s);
      free(out->s);
      out->s = s;
    }
    SInfo *si = &out->s[out->n++];
    memset(si, 0, sizeof *si);
    si->ref.stmt = (LNode *)n;
    si->ref.depth = depth;
    si->ref.loops = xcalloc((size_t)depth + 1, sizeof *si->ref.loops);
    memcpy(si->ref.loops, stack, (size_t)depth * sizeof *stack);
    int cap = 0;
    si->acc = xcalloc(1, sizeof *si->acc);
    cap = 1;
    si->acc[0].a = &n->lhs;
    si->acc[0].kind = n->accum ? 'U' : 'W';
    si->nacc = 1;
    add_loads(n->rhs, si, &cap);
    return;
  }
  if (depth >= MAXDEPTH) {
    out->toodeep = true;
    return;
  }
  stack[depth] = (LNode *)n;
  for (int i = 0; i < n->nkids; i++)
    collect(n->kids[i], stack, depth + 1, out);
}

/* The statements below root, whose ancestors are prefix[0..k-1]. */
static void collect_under(const LNode *root, LNode *const *prefix, int k, SList *out) {
  LNode *stack[MAXDEPTH + 1];
  if (k > MAXDEPTH) {
    out->toodeep = true;
    return;
  }
  memcpy(stack, prefix, (size_t)k * sizeof *stack);
  collect(root, stack, k, out);
}

static void slist_free(SList *l) {
  for (int i = 0; i < l->n; i++) {
    free(l->s[i].ref.loops);
    free(l->s[i].acc);
  }
  free(l->s);
}

static bool conflict(const Acc *x, const Acc *y) { return x->a->buf == y->a->buf && (x->kind != 'R' || y->kind != 'R'); }

/* ------------------------------------------------------------ dependence queries */

typedef struct Q {
  const LProgram *lp;
  const LSRef *s1, *s2;
  const LAccess *a1, *a2;
  int np;                     /* loop pairs: s1->loops[p1[k]] and s2->loops[p2[k]] */
  int p1[MAXDEPTH], p2[MAXDEPTH];
  char d[MAXDEPTH];           /* '<', '=', '>' or '*' (no constraint) */
  long queries;
} Q;

/* q asks for the pair of accesses x of s1 and y of s2 over their first np
 * loops, paired in order, with '=' on the loops before eq and no constraint
 * on the others (callers then set a last loop's direction). */
static void q_pair(Q *q, const LSRef *s1, const Acc *x, const LSRef *s2, const Acc *y, int np, int eq) {
  q->s1 = s1;
  q->s2 = s2;
  q->a1 = x->a;
  q->a2 = y->a;
  q->np = np;
  for (int k = 0; k < np; k++) {
    q->p1[k] = q->p2[k] = k;
    q->d[k] = k < eq ? '=' : '*';
  }
}

static void add_aff(Sys *s, int64_t *row, const LSRef *r, int base, const LAff *a, int64_t mult) {
  row[s->nv] += mult * a->c;
  for (int t = 0; t < a->n; t++) {
    if (a->coef[t] == 0)
      continue;
    int j = r->depth - 1;                           /* the innermost loop of that iterator */
    while (j >= 0 && r->loops[j]->it != a->it[t])
      j--;
    if (j < 0) {
      s->unknown = true;                            /* not in scope: cannot reason */
      return;
    }
    row[base + j] += mult * a->coef[t];
  }
}

static int steps_of(const LSRef *r) {
  int n = 0;
  for (int j = 0; j < r->depth; j++)
    n += r->loops[j]->step > 1;
  return n;
}

static void add_domain(Sys *s, const LSRef *r, int base, int *next_t) {
  for (int j = 0; j < r->depth; j++) {
    const LNode *l = r->loops[j];
    int64_t *row = sys_row(s, false);               /* v - lb >= 0 */
    row[base + j] += 1;
    add_aff(s, row, r, base, &l->lb, -1);
    for (int k = -1; k < l->nubx; k++) {            /* ub - v - 1 >= 0 */
      row = sys_row(s, false);
      add_aff(s, row, r, base, k < 0 ? &l->ub : &l->ubx[k], 1);
      row[base + j] -= 1;
      row[s->nv] -= 1;
    }
    if (l->step > 1) {                              /* v = lb + step * t, t >= 0 */
      int t = (*next_t)++;
      row = sys_row(s, true);
      row[base + j] += 1;
      add_aff(s, row, r, base, &l->lb, -1);
      row[t] -= l->step;
      row = sys_row(s, false);
      row[t] = 1;
    }
  }
}

/* The level of the loop of r's path that declares the local buf, or -1. */
static int declaring_level(const LSRef *r, int buf) {
  for (int j = r->depth - 1; j >= 0; j--)
    for (int i = 0; i < r->loops[j]->nlocals; i++)
      if (r->loops[j]->locals[i] == buf)
        return j;
  return -1;
}

/* The innermost loop of r's path over iterator it, or -1. */
static int loop_of(const LSRef *r, int it) {
  int j = r->depth - 1;
  while (j >= 0 && r->loops[j]->it != it)
    j--;
  return j;
}

/* The single iterator term of a, or -1: a = coef * it + c. */
static int single_term(const LAff *a, int64_t *coef) {
  int t1 = -1;
  for (int t = 0; t < a->n; t++)
    if (a->coef[t]) {
      if (t1 >= 0)
        return -1;
      t1 = t;
    }
  if (t1 < 0)
    return -1;
  *coef = a->coef[t1];
  return a->it[t1];
}

/* The pair k of q with loops j1 of s1 and j2 of s2, or -1. */
static int pair_of(const Q *q, int j1, int j2) {
  for (int k = 0; k < q->np; k++)
    if (q->p1[k] == j1 && q->p2[k] == j2)
      return k;
  return -1;
}

/* R-SCH-12's quick refutations, each implied by the system (spec/schedule.md):
 * two different constants at one index position; an index position a·x + c1 against
 * a·y + c2 over a pair of loops whose direction the distance (c1 - c2)/a contradicts or
 * that is not an integer; a local array (R-SCH-21) of one iteration of a loop on which
 * the directions ask for two. */
static bool q_refuted(const Q *q) {
  const LSRef *s1 = q->s1, *s2 = q->s2;
  const LBuf *b = &q->lp->bufs[q->a1->buf];
  for (int dim = 0; dim < b->rank; dim++) {
    const LAff *x = &q->a1->idx[dim], *y = &q->a2->idx[dim];
    if (lp_aff_is_const(x) && lp_aff_is_const(y)) {
      if (x->c != y->c)
        return true;
      continue;
    }
    int64_t a, a2;
    int i1 = single_term(x, &a), i2 = single_term(y, &a2);
    if (i1 < 0 || i2 < 0 || a != a2)
      continue;
    int k = pair_of(q, loop_of(s1, i1), loop_of(s2, i2));
    if (k < 0 || loop_of(s1, i1) < 0 || loop_of(s2, i2) < 0)
      continue;
    int64_t diff = x->c - y->c;                     /* a·(y - x) = c1 - c2 */
    if (diff % a)
      return true;
    int64_t dist = diff / a;
    if ((q->d[k] == '<' && dist <= 0) || (q->d[k] == '=' && dist != 0) || (q->d[k] == '>' && dist >= 0))
      return true;
  }
  if (b->kind == LB_LOCAL) {
    int h = declaring_level(s1, q->a1->buf);
    if (h >= 0 && h < s2->depth && s2->loops[h] == s1->loops[h])
      for (int k = 0; k < q->np; k++)
        if (q->p1[k] == q->p2[k] && q->p1[k] <= h && (q->d[k] == '<' || q->d[k] == '>'))
          return true;
  }
  return false;
}

/* Whether instances x of s1 and y of s2 may exist with a1(x) = a2(y) and the directions d. */
static bool q_exists(Q *q) {
  q->queries++;
  const LSRef *s1 = q->s1, *s2 = q->s2;
  if (q_refuted(q))
    return false;
  int nv = s1->depth + s2->depth + steps_of(s1) + steps_of(s2);
  Sys s;
  sys_init(&s, nv);
  int next_t = s1->depth + s2->depth;
  add_domain(&s, s1, 0, &next_t);
  add_domain(&s, s2, s1->depth, &next_t);
  int rank = q->lp->bufs[q->a1->buf].rank;
  for (int dim = 0; dim < rank; dim++) {
    int64_t *row = sys_row(&s, true);
    add_aff(&s, row, s1, 0, &q->a1->idx[dim], 1);
    add_aff(&s, row, s2, s1->depth, &q->a2->idx[dim], -1);
  }
  if (q->lp->bufs[q->a1->buf].kind == LB_LOCAL) { /* R-SCH-21: one array per iteration of its loop */
    int h = declaring_level(s1, q->a1->buf);
    if (h >= 0 && h < s2->depth && s2->loops[h] == s1->loops[h])
      for (int j = 0; j <= h; j++) {
        int64_t *row = sys_row(&s, true);
        row[j] = 1;
        row[s1->depth + j] = -1;
      }
  }
  for (int k = 0; k < q->np; k++) {
    int x = q->p1[k], y = s1->depth + q->p2[k];
    int64_t *row;
    switch (q->d[k]) {
    case '<': row = sys_row(&s, false); row[y] = 1; row[x] = -1; row[nv] = -1; break;
    case '>': row = sys_row(&s, false); row[x] = 1; row[y] = -1; row[nv] = -1; break;
    case '=': row = sys_row(&s, true); row[x] = 1; row[y] = -1; break;
    default: break;
    }
  }
  bool r = sys_feasible(&s);
  sys_free(&s);
  return r;
}

typedef bool (*Visit)(Q *q, void *ctx);

/* Refines the directions from pos on (each '<', '=', '>'), pruning vectors
 * without a solution; stops when visit returns true. */
static bool enumerate(Q *q, int pos, Visit visit, void *ctx) {
  if (pos == q->np)
    return visit(q, ctx);
  static const char ds[] = "<=>";
  for (int k = 0; k < 3; k++) {
    q->d[pos] = ds[k];
    if (q_exists(q) && enumerate(q, pos + 1, visit, ctx))
      return true;
  }
  q->d[pos] = '*';
  return false;
}

/* ------------------------------------------------------------ messages */

static const char *dep_kind(const Acc *src, const Acc *snk) {
  if (src->kind == 'U' && snk->kind == 'U')
    return "sum";
  bool writes = src->kind != 'R', reads = snk->kind != 'W';
  if (writes && reads)
    return "flow";
  return writes ? "output" : "anti";
}

static const char *consequence(const char *kind) {
  if (!strcmp(kind, "flow"))
    return "the read would happen before the write";
  if (!strcmp(kind, "anti"))
    return "the write would happen before the read, which needs the old value";
  if (!strcmp(kind, "output"))
    return "the two writes would happen in the other order";
  return "the terms of the sum would be added in another order (teilc keeps the summation order, R-SCH-13)";
}

static void vec_str(const char *d, int from, int to, bool negate, Buf *b) {
  buf_printf(b, "(");
  for (int k = from; k < to; k++) {
    char c = d[k];
    if (negate)
      c = c == '<' ? '>' : c == '>' ? '<' : c;
    buf_printf(b, "%s%c", k > from ? ", " : "", c);
  }
  buf_printf(b, ")");
}

static void access_str(const LProgram *lp, const Acc *a, Buf *b) {
  lp_print_access(lp, a->a, b);
}

/* ------------------------------------------------------------ the checks (R-SCH-14) */

typedef struct Ctx {
  int from, to;               /* the enumerated positions [from, to) */
  int a, b;                   /* interchange: the swapped positions */
  char sign;                  /* the violating vector's orientation */
} Ctx;

static char first_nonzero(const char *d, int from, int to) {
  for (int k = from; k < to; k++)
    if (d[k] != '=')
      return d[k];
  return '=';
}

static bool visit_interchange(Q *q, void *vctx) {
  Ctx *c = vctx;
  char s = first_nonzero(q->d, c->from, c->to);
  if (s == '=')
    return false;
  char w[MAXDEPTH];
  memcpy(w, q->d, (size_t)q->np);
  w[c->a] = q->d[c->b];
  w[c->b] = q->d[c->a];
  if (first_nonzero(w, c->from, c->to) == s)
    return false;
  c->sign = s;
  return true;
}

static bool visit_fuse(Q *q, void *vctx) {
  Ctx *c = vctx;
  return first_nonzero(q->d, c->from, c->to) == '>';
}

static bool too_many(const Q *q, const char *what, Buf *why) {
  if (q->queries <= MAXQUERIES)
    return false;
  buf_printf(why, "%s: too many statement pairs to check the dependences", what);
  return true;
}

/* Starts q over lp: -1, with the reason, when a nest of the check is deeper than
 * the dependence vectors hold (toodeep from collect_under, or depth levels). */
static int q_start(Q *q, const LProgram *lp, bool toodeep, int depth, const char *what, Buf *why) {
  memset(q, 0, sizeof *q);
  q->lp = lp;
  if (toodeep || depth > MAXDEPTH) {
    buf_printf(why, "%s: the loop nest is deeper than %d levels", what, MAXDEPTH);
    return -1;
  }
  return 0;
}

/* " from SRC to SNK", the accesses of a dependence in a reason. */
static void from_to(const LProgram *lp, const Acc *src, const Acc *snk, Buf *why) {
  buf_printf(why, " from ");
  access_str(lp, src, why);
  buf_printf(why, " to ");
  access_str(lp, snk, why);
}

int leg_interchange(const LProgram *lp, LNode *const *path, int a, int b, const char *what, Buf *why) {
  SList sl = {0};
  collect_under(path[a], path, a, &sl);
  Q q;
  int rc = q_start(&q, lp, sl.toodeep, b + 1, what, why);
  for (int i = 0; i < sl.n && !rc; i++)
    for (int j = i; j < sl.n && !rc; j++)
      for (int x = 0; x < sl.s[i].nacc && !rc; x++)
        for (int y = (i == j ? x : 0); y < sl.s[j].nacc && !rc; y++) {
          const Acc *ax = &sl.s[i].acc[x], *ay = &sl.s[j].acc[y];
          if (!conflict(ax, ay))
            continue;
          q_pair(&q, &sl.s[i].ref, ax, &sl.s[j].ref, ay, b + 1, a);
          if (!q_exists(&q))
            continue;
          Ctx c = {a, b + 1, a, b, 0};
          if (enumerate(&q, a, visit_interchange, &c)) {
            bool neg = c.sign == '>';
            const Acc *src = neg ? ay : ax, *snk = neg ? ax : ay;
            const char *kind = dep_kind(src, snk);
            buf_printf(why, "%s reverses the %s dependence ", what, kind);
            vec_str(q.d, 0, b + 1, neg, why);
            from_to(lp, src, snk, why);
            buf_printf(why, ": %s", consequence(kind));
            rc = -1;
          } else if (too_many(&q, what, why)) {
            rc = -1;
          }
        }
  slist_free(&sl);
  return rc;
}

int leg_fuse(const LProgram *lp, LNode *const *path, int k, LNode *x, LNode *y, int last, const char *what, Buf *why) {
  SList sx = {0}, sy = {0};
  collect_under(x, path, k, &sx);
  collect_under(y, path, k, &sy);
  Q q;
  int rc = q_start(&q, lp, sx.toodeep || sy.toodeep, last + 1, what, why);
  for (int i = 0; i < sx.n && !rc; i++)
    for (int j = 0; j < sy.n && !rc; j++)
      for (int u = 0; u < sx.s[i].nacc && !rc; u++)
        for (int v = 0; v < sy.s[j].nacc && !rc; v++) {
          const Acc *ax = &sx.s[i].acc[u], *ay = &sy.s[j].acc[v];
          if (!conflict(ax, ay))
            continue;
          q_pair(&q, &sx.s[i].ref, ax, &sy.s[j].ref, ay, last + 1, k);
          if (!q_exists(&q))
            continue;
          Ctx c = {k, last + 1, 0, 0, 0};
          if (enumerate(&q, k, visit_fuse, &c)) {
            const char *kind = dep_kind(ax, ay);
            buf_printf(why, "%s reverses the %s dependence", what, kind);
            from_to(lp, ax, ay, why);
            buf_printf(why, " (direction ");
            vec_str(q.d, k, last + 1, false, why);
            buf_printf(why, " on the fused loops): %s", consequence(kind));
            rc = -1;
          } else if (too_many(&q, what, why)) {
            rc = -1;
          }
        }
  slist_free(&sx);
  slist_free(&sy);
  return rc;
}

int leg_move(const LProgram *lp, LNode *const *path, int k, LNode *z, LNode *y, const char *what, Buf *why) {
  SList sz = {0}, sy = {0};
  collect_under(z, path, k, &sz);
  collect_under(y, path, k, &sy);
  Q q;
  int rc = q_start(&q, lp, sz.toodeep || sy.toodeep, k, what, why);
  for (int i = 0; i < sz.n && !rc; i++)
    for (int j = 0; j < sy.n && !rc; j++)
      for (int u = 0; u < sz.s[i].nacc && !rc; u++)
        for (int v = 0; v < sy.s[j].nacc && !rc; v++) {
          const Acc *az = &sz.s[i].acc[u], *ay = &sy.s[j].acc[v];
          if (!conflict(az, ay))
            continue;
          q_pair(&q, &sz.s[i].ref, az, &sy.s[j].ref, ay, k, k);
          if (!q_exists(&q))
            continue;
          const char *kind = dep_kind(az, ay);
          buf_printf(why, "%s would move the second loop nest before the statement ", what);
          lp_print_access(lp, &sz.s[i].ref.stmt->lhs, why);
          buf_printf(why, " %s ... between them, which it depends on: the %s dependence",
                     sz.s[i].ref.stmt->accum ? "+=" : "=", kind);
          from_to(lp, az, ay, why);
          buf_printf(why, " would be reversed");
          rc = -1;
        }
  slist_free(&sz);
  slist_free(&sy);
  return rc;
}

static int carried(const LProgram *lp, LNode *const *path, int l, int split, int from, bool shared, const char *what,
                   Buf *why);

int leg_carried(const LProgram *lp, LNode *const *path, int l, const char *what, Buf *why) {
  return leg_carried_across(lp, path, l, -1, what, why);
}

int leg_carried_across(const LProgram *lp, LNode *const *path, int l, int split, const char *what, Buf *why) {
  return carried(lp, path, l, split, l, false, what, why);
}

int leg_carried_any(const LProgram *lp, LNode *const *path, int l, int from, const char *what, Buf *why) {
  return carried(lp, path, l, -1, from, true, what, why);
}

/* R-SCH-14(c), and R-CG-11's nowait: a pair of conflicting accesses below path[l]
 * with '=' on the levels before from, any direction on from .. l-1 and '<' at l;
 * with shared, only of buffers that threads share (not local arrays, which each
 * thread declares in its own scope, nor private slices). */
static int carried(const LProgram *lp, LNode *const *path, int l, int split, int from, bool shared, const char *what,
                   Buf *why) {
  SList sl = {0};
  collect_under(path[l], path, l, &sl);
  Q q;
  int rc = q_start(&q, lp, sl.toodeep, l + 1, what, why);
  for (int i = 0; i < sl.n && !rc; i++)
    for (int j = 0; j < sl.n && !rc; j++)
      for (int x = 0; x < sl.s[i].nacc && !rc && (split < 0 || (i < split) != (j < split)); x++)
        for (int y = 0; y < sl.s[j].nacc && !rc; y++) {
          const Acc *ax = &sl.s[i].acc[x], *ay = &sl.s[j].acc[y];
          const LBuf *xb = &lp->bufs[ax->a->buf];
          if (!conflict(ax, ay) || (shared && (xb->kind == LB_LOCAL || xb->priv)))
            continue;
          q_pair(&q, &sl.s[i].ref, ax, &sl.s[j].ref, ay, l + 1, from);
          q.d[l] = l < from ? '=' : '<';
          if (q_exists(&q)) {
            const char *kind = dep_kind(ax, ay);
            buf_printf(why, "%s: the loop carries the %s dependence ", what, kind);
            vec_str(q.d, 0, l + 1, false, why);
            from_to(lp, ax, ay, why);
            if (!strcmp(kind, "sum"))
              buf_printf(why, " (a reduction loop; OpenMP reductions are not generated because they would change the "
                              "summation order, R-SCH-13)");
            rc = -1;
          } else if (too_many(&q, what, why)) {
            rc = -1;
          }
        }
  slist_free(&sl);
  return rc;
}

int leg_distribute(const LProgram *lp, LNode *const *path, int l, const char *what, Buf *why) {
  LNode *L = path[l];
  SList *kid = xcalloc((size_t)L->nkids + 1, sizeof *kid);
  for (int i = 0; i < L->nkids; i++)
    collect_under(L->kids[i], path, l + 1, &kid[i]);
  bool toodeep = false;
  for (int i = 0; i < L->nkids; i++)
    toodeep |= kid[i].toodeep;
  Q q;
  int rc = q_start(&q, lp, toodeep, l + 1, what, why);
  /* child i's part at iteration x runs before child j's part (i < j) at
   * iteration y < x afterwards, after it before */
  for (int i = 0; i < L->nkids && !rc; i++)
    for (int j = i + 1; j < L->nkids && !rc; j++)
      for (int a = 0; a < kid[i].n && !rc; a++)
        for (int b = 0; b < kid[j].n && !rc; b++)
          for (int u = 0; u < kid[i].s[a].nacc && !rc; u++)
            for (int v = 0; v < kid[j].s[b].nacc && !rc; v++) {
              const Acc *ax = &kid[i].s[a].acc[u], *ay = &kid[j].s[b].acc[v];
              if (!conflict(ax, ay))
                continue;
              q_pair(&q, &kid[i].s[a].ref, ax, &kid[j].s[b].ref, ay, l + 1, l);
              q.d[l] = '>';
              if (q_exists(&q)) {
                const char *kind = dep_kind(ay, ax);
                buf_printf(why, "%s reverses the %s dependence ", what, kind);
                vec_str(q.d, 0, l + 1, true, why);
                from_to(lp, ay, ax, why);
                buf_printf(why, ": %s", consequence(kind));
                rc = -1;
              } else if (too_many(&q, what, why)) {
                rc = -1;
              }
            }
  for (int i = 0; i < L->nkids; i++)
    slist_free(&kid[i]);
  free(kid);
  return rc;
}
