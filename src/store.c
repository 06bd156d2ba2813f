/*
 * store.c - the abstract store (spec/semantics.md R-EV-1..R-EV-3,
 * spec/padding.md R-PAD-1, R-PAD-2). Every tensor of a checked program owns a
 * Slot: doubles plus one flag byte per element marking the undefined value •,
 * which is kept apart from NaN. With vector length M > 1 every extent is
 * rounded up to a multiple of M and the padding holds 0 (report Fig. 13).
 * Values enter and leave the store unpadded and row-major: from memory, from
 * .npy files, or from a seeded generator; they leave as arrays, .npy files
 * (• written as NaN) or NumPy-style text (• printed as _).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "npy.h"
#include "storeprim.h"

int64_t st_round(int64_t d, int pad) { return (d + pad - 1) / pad * pad; }

/* Padded element count of a type, saturated at UINT64_MAX. */
static uint64_t padded_count(Type t, int pad) {
  uint64_t n = 1;
  for (int i = 0; i < t.rank; i++) {
    uint64_t d = (uint64_t)st_round(t.dims[i], pad);
    if (n > UINT64_MAX / d)
      return UINT64_MAX;
    n *= d;
  }
  return n;
}

static uint64_t add_sat(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }
static uint64_t bytes_of(uint64_t count) { return count > UINT64_MAX / 9 ? UINT64_MAX : count * 9; }

uint64_t teil_store_bytes(const TeilProgram *tp, int pad) {
  const Program *p = &tp->p;
  uint64_t total = 0, step = 0;
  for (int t = 0; t < p->ntensors; t++)
    total = add_sat(total, bytes_of(padded_count(p->tensors[t].ty, pad)));
  for (int i = 0; i < p->nstmts; i++) {
    int t = p->stmts[i].target;
    uint64_t b = t >= 0 ? bytes_of(padded_count(p->tensors[t].ty, pad)) : 0;
    step = b > step ? b : step;
  }
  return add_sat(total, step);
}

void st_each_real(const Slot *s, void (*f)(void *user, size_t off, size_t flat), void *user) {
  int64_t *j = xcalloc((size_t)s->rank + 1, sizeof *j);
  size_t flat = 0;
  for (;;) {
    f(user, (size_t)st_offset(s->rank, j, s->pdims), flat++);
    int d = s->rank - 1;
    while (d >= 0 && ++j[d] == s->dims[d])
      j[d--] = 0;
    if (d < 0)
      break;
  }
  free(j);
}

static void set_undef(void *user, size_t off, size_t flat) {
  (void)flat;
  Slot *x = user;
  st_write(x->v, x->undef, off, 0, true);         /* v[off] is already 0 */
}

TeilStore *teil_store_new(const TeilProgram *tp, int pad, uint64_t max_bytes, char *err, size_t errlen) {
  const Program *p = &tp->p;
  if (!p->checked || p->diags.nerrors) {
    snprintf(err, errlen, "the program has errors; run teil_check first");
    return NULL;
  }
  if (pad < 1 || pad > (1 << 20)) {
    snprintf(err, errlen, "the vector length for padding must be between 1 and %d, not %d", 1 << 20, pad);
    return NULL;
  }
  if (!max_bytes)
    max_bytes = TEIL_DEFAULT_MAX_BYTES;
  uint64_t need = teil_store_bytes(tp, pad);
  if (need > max_bytes || need > SIZE_MAX / 2) {
    int big = 0;
    for (int t = 1; t < p->ntensors; t++)
      if (padded_count(p->tensors[t].ty, pad) > padded_count(p->tensors[big].ty, pad))
        big = t;
    if (need == UINT64_MAX)
      snprintf(err, errlen, "the store would need more than 2^64 bytes (tensor '%s' is the largest); it cannot be allocated",
               p->tensors[big].name);
    else
      snprintf(err, errlen, "the store would need %llu bytes (the largest tensor is '%s'), more than the limit of %llu bytes; "
               "raise it with --max-bytes", (unsigned long long)need, p->tensors[big].name, (unsigned long long)max_bytes);
    return NULL;
  }
  TeilStore *s = xcalloc(1, sizeof *s);
  s->p = p;
  s->pad = pad;
  s->n = p->ntensors;
  s->slot = xcalloc((size_t)s->n + 1, sizeof *s->slot);
  for (int t = 0; t < s->n; t++) {
    Slot *x = &s->slot[t];
    Type ty = p->tensors[t].ty;
    x->rank = ty.rank;
    x->dims = ty.dims;
    x->pdims = xcalloc((size_t)ty.rank + 1, sizeof *x->pdims);
    x->stride = xcalloc((size_t)ty.rank + 1, sizeof *x->stride);
    x->count = 1;
    for (int d = ty.rank - 1; d >= 0; d--) {
      x->pdims[d] = st_round(ty.dims[d], pad);
      x->stride[d] = (int64_t)x->count;
      x->count *= (size_t)x->pdims[d];
    }
    x->v = xcalloc(x->count, sizeof *x->v);           /* R-PAD-2: padding is 0 */
    x->undef = xcalloc(x->count, 1);
    st_each_real(x, set_undef, x);                    /* R-EV-3: real elements start • */
  }
  return s;
}

void teil_store_free(TeilStore *s) {
  if (!s)
    return;
  for (int t = 0; t < s->n; t++) {
    free(s->slot[t].pdims);
    free(s->slot[t].stride);
    free(s->slot[t].v);
    free(s->slot[t].undef);
  }
  free(s->slot);
  free(s);
}

typedef struct {
  Slot *x;
  const double *in;
  double *out;
  unsigned char *undef;
  size_t nundef;
} Copy;

static void copy_in(void *user, size_t off, size_t flat) {
  Copy *c = user;
  st_write(c->x->v, c->x->undef, off, c->in[flat], false);
}

static void copy_out(void *user, size_t off, size_t flat) {
  Copy *c = user;
  double v;
  bool u = st_read(c->x->v, c->x->undef, off, &v);
  c->out[flat] = u ? NAN : v;
  if (c->undef)
    c->undef[flat] = u;
  c->nundef += u;
}

static size_t real_count(const Slot *x) {
  size_t n = 1;
  for (int d = 0; d < x->rank; d++)
    n *= (size_t)x->dims[d];
  return n;
}

int teil_store_set(TeilStore *s, int t, const double *data, size_t count, char *err, size_t errlen) {
  Slot *x = &s->slot[t];
  if (count != real_count(x)) {
    snprintf(err, errlen, "tensor '%s' has %zu elements, not %zu", s->p->tensors[t].name, real_count(x), count);
    return -1;
  }
  Copy c = {x, data, NULL, NULL, 0};
  st_each_real(x, copy_in, &c);
  return 0;
}

/* splitmix64: a small, well-mixed generator; the same seed gives the same values everywhere. */
static uint64_t splitmix(uint64_t *state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

void teil_store_fill_random(TeilStore *s, int t, uint64_t seed) {
  Slot *x = &s->slot[t];
  size_t n = real_count(x);
  double *d = xmalloc(n * sizeof *d);
  uint64_t state = seed * 0x100000001B3ull + (uint64_t)t * 0x9E3779B97F4A7C15ull;
  for (size_t i = 0; i < n; i++)
    d[i] = (double)(splitmix(&state) >> 11) * 0x1.0p-52 - 1.0;
  Copy c = {x, d, NULL, NULL, 0};
  st_each_real(x, copy_in, &c);
  free(d);
}

size_t teil_store_get(const TeilStore *s, int t, double *data, unsigned char *undef) {
  Copy c = {&s->slot[t], NULL, data, undef, 0};
  st_each_real(c.x, copy_out, &c);
  return c.nundef;
}

/* Formats a type as a NumPy shape for messages: (3, 4), (5,), (). */
static void shape_of(const Slot *x, char *buf, size_t n) {
  size_t shape[NPY_MAX_DIMS];
  int rank = x->rank > NPY_MAX_DIMS ? NPY_MAX_DIMS : x->rank;
  for (int d = 0; d < rank; d++)
    shape[d] = (size_t)x->dims[d];
  npy_shape_str(rank, shape, buf, n);
}

int teil_store_read_npy(TeilStore *s, int t, const char *path, char *err, size_t errlen) {
  Slot *x = &s->slot[t];
  const char *name = s->p->tensors[t].name;
  NpyArray a;
  char msg[400];
  if (npy_read(path, real_count(x) * sizeof(double), &a, msg, sizeof msg) != 0) {
    /* A size refusal is most often a shape mismatch; say so when the header shows it. */
    snprintf(err, errlen, "tensor '%s': %s", name, msg);
    return -1;
  }
  bool same = a.ndim == x->rank;
  for (int d = 0; same && d < x->rank; d++)
    same = a.shape[d] == (size_t)x->dims[d];
  if (!same) {
    char want[128], got[128];
    shape_of(x, want, sizeof want);
    npy_shape_str(a.ndim, a.shape, got, sizeof got);
    snprintf(err, errlen, "tensor '%s': '%s' has shape %s but '%s' has type %s, i.e. shape %s", name, path, got, name,
             ty_cstr((Arena *)&s->p->arena, s->p->tensors[t].ty), want);
    npy_free(&a);
    return -1;
  }
  Copy c = {x, a.data, NULL, NULL, 0};
  st_each_real(x, copy_in, &c);
  npy_free(&a);
  return 0;
}

int teil_store_write_npy(const TeilStore *s, int t, const char *path, size_t *nundef, char *err, size_t errlen) {
  const Slot *x = &s->slot[t];
  if (x->rank > NPY_MAX_DIMS) {
    snprintf(err, errlen, "tensor '%s' has rank %d; .npy files hold at most %d dimensions", s->p->tensors[t].name,
             x->rank, NPY_MAX_DIMS);
    return -1;
  }
  size_t n = real_count(x);
  double *d = xmalloc(n * sizeof *d);
  size_t nu = teil_store_get(s, t, d, NULL);
  size_t shape[NPY_MAX_DIMS];
  for (int i = 0; i < x->rank; i++)
    shape[i] = (size_t)x->dims[i];
  char msg[400];
  int rc = npy_write(path, d, x->rank, shape, msg, sizeof msg);
  free(d);
  if (rc) {
    snprintf(err, errlen, "tensor '%s': %s", s->p->tensors[t].name, msg);
    return -1;
  }
  if (nundef)
    *nundef = nu;
  return 0;
}

static void print_value(const Slot *x, size_t off, FILE *out) {
  double v;
  if (st_read(x->v, x->undef, off, &v))
    fputs("_", out);
  else
    fprintf(out, "%.6g", v);
}

static void print_rec(const Slot *x, int d, size_t off, FILE *out) {
  if (d == x->rank) {
    print_value(x, off, out);
    return;
  }
  fputc('[', out);
  for (int64_t i = 0; i < x->dims[d]; i++) {
    if (i > 0) {
      if (d == x->rank - 1) {
        fputc(' ', out);
      } else {
        for (int k = d; k < x->rank - 1; k++)
          fputc('\n', out);
        fprintf(out, "%*s", d + 1, "");
      }
    }
    print_rec(x, d + 1, (size_t)st_step((int64_t)off, x->pdims[d], i), out);   /* Horner: the leaf gets the row-major offset */
  }
  fputc(']', out);
}

void teil_store_print(const TeilStore *s, int t, FILE *out) {
  print_rec(&s->slot[t], 0, 0, out);
  fputc('\n', out);
}

/* Walks all padded offsets of a slot with a flag telling padding from real. */
static bool is_padding(const Slot *x, size_t off) {
  for (int d = 0; d < x->rank; d++) {
    int64_t j = (int64_t)(off / (size_t)x->stride[d]) % x->pdims[d];
    if (j >= x->dims[d])
      return true;
  }
  return false;
}

/* "[1, 4]": the 1-based index of padded offset off. */
static void index_str(const Slot *x, size_t off, char *buf, size_t n) {
  size_t len = (size_t)snprintf(buf, n, "[");
  for (int d = 0; d < x->rank && len + 24 < n; d++)
    len += (size_t)snprintf(buf + len, n - len, "%s%lld", d ? ", " : "",
                            (long long)((int64_t)(off / (size_t)x->stride[d]) % x->pdims[d]) + 1);
  snprintf(buf + len, n - len, "]");
}

static void value_str(double v, bool undef, char *buf, size_t n) {
  if (undef)
    snprintf(buf, n, "_");
  else
    snprintf(buf, n, "%.17g", v);
}

/* Padded offset of the real element with row-major number flat. */
static size_t padded_offset(const Slot *x, size_t flat) {
  size_t off = 0;
  for (int d = x->rank - 1; d >= 0; d--) {
    off += flat % (size_t)x->dims[d] * (size_t)x->stride[d];
    flat /= (size_t)x->dims[d];
  }
  return off;
}

/* R-PAD-6 (Theorem 2) and R-PAD-7 (Theorem 3), checked after a step. */
int teil_check_simulation(const TeilStore *plain, const TeilStore *padded, int step, char *err, size_t errlen) {
  char idx[256], v[64], w[64];
  if (plain->pad != 1 || plain->p != padded->p) {
    snprintf(err, errlen, "teil_check_simulation: the first store must be an unpadded store of the same program");
    return -1;
  }
  for (int t = 0; t < padded->n; t++) {
    const Slot *x = &padded->slot[t], *y = &plain->slot[t];
    const char *name = padded->p->tensors[t].name;
    for (size_t off = 0; off < x->count; off++) {
      double b;
      bool ub = st_read(x->v, x->undef, off, &b);
      if (!is_padding(x, off) || (!ub && b == 0))
        continue;
      index_str(x, off, idx, sizeof idx);
      value_str(b, ub, v, sizeof v);
      snprintf(err, errlen, "padding check failed (Theorem 2): %s%s is %s at a padding position after statement %d",
               name, idx, v, step);
      return -1;
    }
    for (size_t i = 0; i < y->count; i++) {          /* y is unpadded: offsets are row-major numbers */
      size_t off = padded_offset(x, i);
      double a, b;
      bool ua = st_read(y->v, y->undef, i, &a), ub = st_read(x->v, x->undef, off, &b);
      if (ua == ub && (ua || a == b || (isnan(a) && isnan(b))))
        continue;
      index_str(x, off, idx, sizeof idx);
      value_str(b, ub, v, sizeof v);
      value_str(a, ua, w, sizeof w);
      snprintf(err, errlen, "padding check failed (Theorem 3): %s%s is %s with padding %d but %s without padding "
               "after statement %d", name, idx, v, padded->pad, w, step);
      return -1;
    }
  }
  return 0;
}
