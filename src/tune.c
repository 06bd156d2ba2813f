/*
 * tune.c - the autotuner (spec/tune.md). Consumes a checked program and the
 * compile options; produces a schedule file (R-SCH-1) that is the fastest
 * candidate found, stored in the cache (R-TUNE-6).
 *
 * The search (R-TUNE-2) starts from the default schedule's steps (R-SCH-17)
 * and mutates step lines generically: factors, removal, swaps, additions per
 * target and level. Each candidate goes through teil_compile (a refused step
 * drops it), is built with the system C compiler in a temporary directory,
 * run by its --main driver on fixed random inputs, compared with the
 * interpreter's outputs (R-TUNE-3), and only then timed (R-TUNE-4).
 */
#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "npy.h"
#include "proc.h"
#include "teil.h"
#include "tune.h"

/* ------------------------------------------------------------ hashing, keys */

/* FNV-1a 64 (R-TUNE-6). */
static uint64_t fnv(uint64_t h, const char *s, size_t n) {
  for (size_t i = 0; i < n; i++) {
    h ^= (unsigned char)s[i];
    h *= 0x100000001b3ull;
  }
  return h;
}
#define FNV0 0xcbf29ce484222325ull

static uint64_t fnv_str(const char *s) { return fnv(FNV0, s, strlen(s)); }

static void hex16(uint64_t h, char out[17]) { snprintf(out, 17, "%016llx", (unsigned long long)h); }

void tune_program_key(const TeilProgram *p, const CompileOptions *o, char key[17]) {
  Buf b = {0};
  pr_program(&p->p, &b);                            /* the canonical TeIL text */
  buf_printf(&b, "\npad=%d dtype=%s lift=%d openmp=%d\n", o->pad, o->f32 ? "f32" : "f64",
             o->lift && teil_compile_have_lift(), (int)o->openmp);
  if (o->stream != 1)                               /* R-CG-26; the default keeps earlier keys */
    buf_printf(&b, "stream=%d\n", o->stream);
  if (o->prefetch != 1)                             /* R-CG-24.5 */
    buf_printf(&b, "prefetch=%d\n", o->prefetch);
  hex16(fnv_str(b.s), key);
  buf_free(&b);
}

int tune_cache_dir(char *dir, size_t n, char *err, size_t errlen) {
  const char *d = getenv("TEIL_CACHE_DIR");
  if (d && *d) {
    snprintf(dir, n, "%s", d);
    return 0;
  }
  d = getenv("XDG_CACHE_HOME");
  if (d && *d) {
    snprintf(dir, n, "%s/teil", d);
    return 0;
  }
  d = getenv("HOME");
  if (d && *d) {
    snprintf(dir, n, "%s/.cache/teil", d);
    return 0;
  }
  snprintf(err, errlen, "no cache directory: set TEIL_CACHE_DIR, XDG_CACHE_HOME or HOME");
  return -1;
}

static const char *cc_name(void) {
  const char *cc = getenv("CC");
  return cc && *cc ? cc : "cc";
}

int tune_machine(char *buf, size_t n, char *err, size_t errlen) {
  char model[256] = "unknown CPU";
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (f) {
    char line[512];
    while (fgets(line, sizeof line, f)) {
      if (strncmp(line, "model name", 10))
        continue;
      char *c = strchr(line, ':');
      if (!c)
        continue;
      c++;
      while (*c == ' ' || *c == '\t')
        c++;
      c[strcspn(c, "\r\n")] = 0;
      snprintf(model, sizeof model, "%s", c);
      break;
    }
    fclose(f);
  }
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  char ver[256];
  char *argv[] = {(char *)cc_name(), "--version", NULL};
  int st = proc_first_line(argv, ver, sizeof ver);
  if (st != 0 || !ver[0]) {
    snprintf(err, errlen, "the C compiler '%s' cannot be run (set CC)", cc_name());
    return -1;
  }
  snprintf(buf, n, "%s; %ld CPUs; %s", model, cpus, ver);
  return 0;
}

/* ------------------------------------------------------------ compiling */

/* What the schedule wrapper learns: the targets and the depth of their paths
 * after the schedule (for R-TUNE-2 additions). */
typedef struct Targets {
  char name[64][128];
  int depth[64];
  int n;
} Targets;

typedef struct Wrap {
  LScheduleFn fn;
  const void *arg;
  Targets *tg;
} Wrap;

static int wrap_schedule(LProgram *lp, const void *arg, char *err, size_t errlen) {
  const Wrap *w = arg;
  int rc = w->fn ? w->fn(lp, w->arg, err, errlen) : 0;
  if (rc || !w->tg)
    return rc;
  w->tg->n = 0;
  for (int u = 0; u < lp->nunits && w->tg->n < 64; u++) {
    LNode *loops[256];
    int depth = 0;
    if (!lp_find_path(lp, lp->units[u].stmt, loops, &depth))
      continue;
    Targets *t = w->tg;
    if (lp->units[u].occ > 1)
      snprintf(t->name[t->n], sizeof t->name[0], "%s#%d", lp->units[u].name, lp->units[u].occ);
    else
      snprintf(t->name[t->n], sizeof t->name[0], "%s", lp->units[u].name);
    t->depth[t->n++] = depth;
  }
  return 0;
}

/* Compiles p with schedule text (NULL: the default schedule; with steps,
 * the default's steps are appended there). Returns teil_compile's status. */
static int compile_with(const TeilProgram *p, const CompileOptions *o, const char *text, Buf *steps, Targets *tg,
                        CompileOutput *out, char *err, size_t errlen) {
  CompileOptions c = *o;
  c.main = true;
  c.header = false;
  c.dump = DUMP_NONE;
  c.emit_teil = false;
  c.acsl = false;
  Schedule *s = NULL;
  Wrap w = {sched_default, steps, tg};
  if (text) {
    s = sched_parse("candidate", text, strlen(text), err, errlen);
    if (!s)
      return -2;
    w.fn = sched_apply;
    w.arg = s;
  }
  c.schedule = wrap_schedule;
  c.schedule_arg = &w;
  int rc = teil_compile(p, &c, out, err, errlen);
  sched_free(s);
  return rc;
}

/* The default schedule's steps (R-SCH-17), as schedule lines. */
static char *default_steps(const TeilProgram *p, const CompileOptions *o) {
  Buf steps = {0};
  CompileOutput out;
  char err[512];
  if (compile_with(p, o, NULL, &steps, NULL, &out, err, sizeof err) == 0)
    teil_compile_free(&out);
  if (!steps.s)
    buf_printf(&steps, "%s", "");
  return steps.s;
}

/* ------------------------------------------------------------ the cache */

static char *read_all(const char *path, size_t max) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  Buf b = {0};
  char tmp[4096];
  size_t k, total = 0;
  while ((k = fread(tmp, 1, sizeof tmp, f)) > 0 && total <= max) {
    buf_printf(&b, "%.*s", (int)k, tmp);
    total += k;
  }
  int bad = ferror(f) || total > max || (b.s && strlen(b.s) != total);   /* a NUL byte is corrupt */
  fclose(f);
  if (bad) {
    buf_free(&b);
    return NULL;
  }
  if (!b.s)
    buf_printf(&b, "%s", "");
  return b.s;
}

/* The value of comment line "# NAME: value" in text, copied to buf. */
static bool header(const char *text, const char *name, char *buf, size_t n) {
  size_t nl = strlen(name);
  for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
    if (strncmp(l, "# ", 2) || strncmp(l + 2, name, nl) || strncmp(l + 2 + nl, ": ", 2))
      continue;
    const char *v = l + 4 + nl;
    size_t len = strcspn(v, "\r\n");
    snprintf(buf, n, "%.*s", (int)len, v);
    return true;
  }
  return false;
}

/* R-TUNE-6: 1 valid, -1 not valid (reason in err). */
static int validate(const char *path, const char *text, const char *key, const char *machine, const char *dsteps,
                    char *err, size_t errlen) {
  char v[1024];
  if (!header(text, "key", v, sizeof v) || strcmp(v, key)) {
    snprintf(err, errlen, "ignoring cache entry %s: its key line is missing or wrong", path);
    return -1;
  }
  if (!header(text, "machine", v, sizeof v) || strcmp(v, machine)) {
    snprintf(err, errlen, "ignoring cache entry %s: it is for another machine", path);
    return -1;
  }
  if (!header(text, "default-steps", v, sizeof v) || strcmp(v, dsteps)) {
    snprintf(err, errlen, "ignoring cache entry %s: stale, the default schedule has changed", path);
    return -1;
  }
  char perr[512];
  Schedule *s = sched_parse(path, text, strlen(text), perr, sizeof perr);
  if (!s) {
    snprintf(err, errlen, "ignoring cache entry %s: %s", path, perr);
    return -1;
  }
  sched_free(s);
  return 1;
}

/* The entry's path for p, o on this machine; 0, or -1 (no dir or no compiler). */
static int entry_path(const TeilProgram *p, const CompileOptions *o, char *path, size_t n, char *machine, size_t mn,
                      char *err, size_t errlen) {
  char dir[4096], key[17], mk[17];
  if (tune_cache_dir(dir, sizeof dir, err, errlen) || tune_machine(machine, mn, err, errlen))
    return -1;
  tune_program_key(p, o, key);
  hex16(fnv_str(machine), mk);
  snprintf(path, n, "%s/%s-%s.sched", dir, key, mk);
  return 0;
}

static int lookup(const TeilProgram *p, const CompileOptions *o, char *path, size_t pathlen, char **text,
                  bool cheap, char *err, size_t errlen) {
  *text = NULL;
  char dir[4096], key[17], machine[1024], dk[17];
  if (cheap) {                                      /* R-TUNE-7: only a directory lookup */
    if (tune_cache_dir(dir, sizeof dir, err, errlen))
      return 0;
    tune_program_key(p, o, key);
    char pat[4200];
    snprintf(pat, sizeof pat, "%s/%s-*.sched", dir, key);
    glob_t g;
    int grc = glob(pat, 0, NULL, &g);
    size_t found = grc == 0 ? g.gl_pathc : 0;
    if (grc == 0)
      globfree(&g);
    if (!found)
      return 0;
  }
  if (entry_path(p, o, path, pathlen, machine, sizeof machine, err, errlen))
    return 0;
  struct stat sb;
  if (stat(path, &sb) != 0)
    return 0;
  char *t = read_all(path, (size_t)1 << 22);
  if (!t) {
    snprintf(err, errlen, "ignoring cache entry %s: cannot read it, or it is not text", path);
    return -1;
  }
  char *ds = default_steps(p, o);
  hex16(fnv_str(ds), dk);
  free(ds);
  tune_program_key(p, o, key);
  if (validate(path, t, key, machine, dk, err, errlen) < 0) {
    free(t);
    return -1;
  }
  *text = t;
  return 1;
}

int tune_lookup(const TeilProgram *p, const CompileOptions *o, char *path, size_t pathlen, char **text, char *err,
                size_t errlen) {
  return lookup(p, o, path, pathlen, text, true, err, errlen);
}

static int mkdir_p(const char *dir) {
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s", dir);
  for (char *s = tmp + 1; *s; s++) {
    if (*s != '/')
      continue;
    *s = 0;
    if (mkdir(tmp, 0755) && errno != EEXIST)
      return -1;
    *s = '/';
  }
  if (mkdir(tmp, 0755) && errno != EEXIST)
    return -1;
  struct stat sb;
  return stat(tmp, &sb) == 0 && S_ISDIR(sb.st_mode) ? 0 : -1;
}

/* Writes the entry atomically (R-TUNE-6). */
static int write_entry(const char *path, const char *text, char *err, size_t errlen) {
  char dir[4096];
  snprintf(dir, sizeof dir, "%s", path);
  char *slash = strrchr(dir, '/');
  if (slash)
    *slash = 0;
  if (slash && mkdir_p(dir)) {
    snprintf(err, errlen, "cannot create the cache directory '%s': %s", dir, strerror(errno));
    return -1;
  }
  char tmp[4200];
  snprintf(tmp, sizeof tmp, "%s.tmpXXXXXX", path);
  int fd = mkstemp(tmp);
  if (fd < 0) {
    snprintf(err, errlen, "cannot write in the cache directory '%s': %s", slash ? dir : ".", strerror(errno));
    return -1;
  }
  size_t n = strlen(text);
  bool bad = write(fd, text, n) != (ssize_t)n;
  bad |= close(fd) != 0;
  if (bad || rename(tmp, path)) {
    unlink(tmp);
    snprintf(err, errlen, "cannot write the cache entry '%s'", path);
    return -1;
  }
  return 0;
}

/* ------------------------------------------------------------ running */

/* The first line of a file, for messages. */
static void log_line(const char *log, char *buf, size_t n) {
  buf[0] = 0;
  FILE *f = fopen(log, "r");
  if (!f)
    return;
  char line[512];
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\r\n")] = 0;
    if (line[0]) {
      snprintf(buf, n, "%s", line);
      break;
    }
  }
  fclose(f);
}

/* ------------------------------------------------------------ candidates (R-TUNE-2) */

#define MAXARG 8

typedef struct Step {
  char target[128];
  char prim[32];
  char arg[MAXARG][128];
  int narg;
} Step;

typedef struct Cand {
  Step *s;
  int n;
  int prio;                   /* order of trial (R-TUNE-2), lower first */
  int seq;                    /* generation order, for a stable sort */
} Cand;

static bool is_num(const char *s) {
  if (!*s)
    return false;
  for (; *s; s++)
    if (*s < '0' || *s > '9')
      return false;
  return true;
}

/* Parses the step lines of a schedule file (comments and blank lines dropped). */
static int parse_steps(const char *text, Step **out) {
  int n = 0, cap = 0;
  Step *v = NULL;
  const char *l = text;
  while (l && *l) {
    const char *e = strchr(l, '\n');
    size_t len = e ? (size_t)(e - l) : strlen(l);
    char line[1024];
    snprintf(line, sizeof line, "%.*s", (int)(len < 1023 ? len : 1023), l);
    l = e ? e + 1 : NULL;
    for (char *c = line; *c; c++)                   /* R-SCH-1: '#' at the start or after ws */
      if (*c == '#' && (c == line || c[-1] == ' ' || c[-1] == '\t')) {
        *c = 0;
        break;
      }
    char *colon = strchr(line, ':');
    if (!colon)
      continue;
    *colon = 0;
    Step s;
    memset(&s, 0, sizeof s);
    if (sscanf(line, "%127s", s.target) != 1)
      continue;
    char *tok = strtok(colon + 1, " \t\r");
    if (!tok)
      continue;
    snprintf(s.prim, sizeof s.prim, "%s", tok);
    while ((tok = strtok(NULL, " \t\r")) && s.narg < MAXARG)
      snprintf(s.arg[s.narg++], sizeof s.arg[0], "%s", tok);
    if (n == cap)
      v = realloc(v, (size_t)(cap = cap ? 2 * cap : 8) * sizeof *v);
    if (!v)
      abort();
    v[n++] = s;
  }
  *out = v;
  return n;
}

static char *render(const Step *s, int n) {
  Buf b = {0};
  for (int i = 0; i < n; i++) {
    buf_printf(&b, "%s: %s", s[i].target, s[i].prim);
    for (int k = 0; k < s[i].narg; k++)
      buf_printf(&b, " %s", s[i].arg[k]);
    buf_printf(&b, "\n");
  }
  if (!b.s)
    buf_printf(&b, "%s", "");
  return b.s;
}

/* The factor arguments of a primitive (R-TUNE-2 item 1): first index and count. */
static void factor_args(const Step *s, int *first, int *count) {
  static const struct { const char *prim; int first, count; } tab[] = {
      {"stripmine", 1, 1}, {"unroll", 1, 1}, {"tile", 2, 2},
      {"interchange", 0, 0}, {"fuse_outer", 0, 0}, {"fuse_inner", 0, 0},
      {"parallelize", 0, 0}, {"vectorize", 0, 0}, {"distribute", 0, 0},
  };
  for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++)
    if (!strcmp(s->prim, tab[i].prim)) {
      *first = tab[i].first;
      *count = tab[i].count;
      return;
    }
  int nnum = 0;                                     /* unknown: the last of >= 2 numbers */
  for (int k = 0; k < s->narg; k++)
    nnum += is_num(s->arg[k]);
  *first = s->narg - 1;
  *count = nnum >= 2 && is_num(s->arg[s->narg - 1]) ? 1 : 0;
}

static bool is_mark(const Step *s) { return !strcmp(s->prim, "parallelize") || !strcmp(s->prim, "vectorize"); }

typedef struct CandList {
  Cand *v;
  int n, cap, seq;
} CandList;

static void add_cand(CandList *cl, const Step *s, int n, int prio) {
  if (cl->n == cl->cap) {
    cl->cap = cl->cap ? 2 * cl->cap : 64;
    cl->v = realloc(cl->v, (size_t)cl->cap * sizeof *cl->v);
    if (!cl->v)
      abort();
  }
  Cand c = {xmalloc((size_t)(n ? n : 1) * sizeof *s), n, prio, cl->seq++};
  if (n)
    memcpy(c.s, s, (size_t)n * sizeof *s);
  cl->v[cl->n++] = c;
}

static Step mk(const char *target, const char *prim, int narg, const int *args) {
  Step s;
  memset(&s, 0, sizeof s);
  snprintf(s.target, sizeof s.target, "%s", target);
  snprintf(s.prim, sizeof s.prim, "%s", prim);
  for (int k = 0; k < narg && k < MAXARG; k++)
    snprintf(s.arg[k], sizeof s.arg[0], "%d", args[k]);
  s.narg = narg;
  return s;
}

/* b with step x inserted for its target: a mark replaces the target's step of
 * the same primitive (or goes last); other steps go before the target's first
 * mark (R-TUNE-2 item 4). Returns the new length. */
static int with_step(const Step *b, int n, Step x, Step *out) {
  int m = 0;
  bool done = false;
  for (int i = 0; i < n; i++) {
    bool same_t = !strcmp(b[i].target, x.target);
    if (is_mark(&x) && same_t && !strcmp(b[i].prim, x.prim)) {
      if (!done)
        out[m++] = x;
      done = true;
      continue;
    }
    if (!is_mark(&x) && !done && same_t && is_mark(&b[i])) {
      out[m++] = x;
      done = true;
    }
    out[m++] = b[i];
  }
  if (!done)
    out[m++] = x;
  return m;
}

static const int factors[] = {2, 4, 8, 16, 32, 64};
#define NFACT ((int)(sizeof factors / sizeof factors[0]))

/* The neighbours of b (R-TUNE-2), with priorities. */
static void neighbours(const Step *b, int n, const Targets *tg, CandList *cl) {
  Step *w = xmalloc((size_t)(2 * n + 2 + 2 * (tg->n + 1)) * sizeof *w);
  /* 1: factors */
  for (int i = 0; i < n; i++) {
    int first, count;
    factor_args(&b[i], &first, &count);
    for (int k = first; k < first + count && k < b[i].narg; k++) {
      if (!is_num(b[i].arg[k]))
        continue;
      long f = strtol(b[i].arg[k], NULL, 10);
      long vals[NFACT + 2];
      int nv = 0;
      vals[nv++] = f / 2;
      vals[nv++] = f * 2;
      for (int q = 0; q < NFACT; q++)
        vals[nv++] = factors[q];
      for (int q = 0; q < nv; q++) {
        if (vals[q] < 2 || vals[q] == f || vals[q] > 1 << 20)
          continue;
        memcpy(w, b, (size_t)n * sizeof *w);
        snprintf(w[i].arg[k], sizeof w[i].arg[0], "%ld", vals[q]);
        add_cand(cl, w, n, 10);
      }
    }
  }
  /* 4: additions, first for every target of the same depth at once, then one target */
  for (int t = 0; t < tg->n; t++) {
    for (int l = 1; l <= tg->depth[t]; l++) {
      Step add[32];
      int na = 0, prio[32];
      add[na] = mk(tg->name[t], "unroll", 1, &l), prio[na++] = 20;
      for (int q = 0; q < 3; q++) {
        int a[2] = {l, factors[q]};
        add[na] = mk(tg->name[t], "unroll", 2, a), prio[na++] = 25;
      }
      add[na] = mk(tg->name[t], "vectorize", 1, &l), prio[na++] = 20;
      add[na] = mk(tg->name[t], "parallelize", 1, &l), prio[na++] = 20;
      if (l < tg->depth[t]) {
        int a[2] = {l, l + 1};
        add[na] = mk(tg->name[t], "interchange", 2, a), prio[na++] = 40;
        for (int q = 2; q < NFACT; q++) {
          int c[3] = {l, l + 1, factors[q]};
          add[na] = mk(tg->name[t], "tile", 3, c), prio[na++] = 50;
        }
      }
      add[na] = mk(tg->name[t], "distribute", 1, &l), prio[na++] = 45;
      for (int q = 1; q < NFACT; q++) {
        int a[2] = {l, factors[q]};
        add[na] = mk(tg->name[t], "stripmine", 2, a), prio[na++] = 55;
      }
      for (int k = 0; k < na; k++) {
        /* every target of this depth (only once, from the first of them) */
        bool first = true;
        for (int u = 0; u < t; u++)
          first &= tg->depth[u] != tg->depth[t];
        int cnt = 0;
        for (int u = 0; u < tg->n; u++)
          cnt += tg->depth[u] == tg->depth[t];
        if (first && cnt > 1) {
          Step *cur = xmalloc((size_t)(n + tg->n + 1) * sizeof *cur);
          Step *nxt = xmalloc((size_t)(n + tg->n + 1) * sizeof *nxt);
          if (n)                                    /* b is NULL for a best of no steps */
            memcpy(cur, b, (size_t)n * sizeof *cur);
          int m = n;
          for (int u = 0; u < tg->n; u++) {
            if (tg->depth[u] != tg->depth[t])
              continue;
            Step x = add[k];
            snprintf(x.target, sizeof x.target, "%s", tg->name[u]);
            m = with_step(cur, m, x, nxt);
            Step *sw = cur;
            cur = nxt;
            nxt = sw;
          }
          add_cand(cl, cur, m, prio[k] - 5);
          free(cur);
          free(nxt);
        }
        int m = with_step(b, n, add[k], w);
        add_cand(cl, w, m, prio[k] + 10);
      }
    }
  }
  /* 4: fusion of consecutive targets at levels 1 .. the smaller depth */
  for (int t = 0; t + 1 < tg->n; t++)
    for (int l = 1; l <= tg->depth[t] && l <= tg->depth[t + 1]; l++) {
      Step x = mk(tg->name[t], "fuse_outer", 2, (int[]){0, l});
      snprintf(x.arg[0], sizeof x.arg[0], "%s", tg->name[t + 1]);
      int m = 0;                                    /* before every mark */
      w[m++] = x;
      if (n)
        memcpy(w + m, b, (size_t)n * sizeof *w);
      add_cand(cl, w, n + 1, 60);
    }
  /* 2: removal, 3: swaps */
  for (int i = 0; i < n; i++) {
    int m = 0;
    for (int j = 0; j < n; j++)
      if (j != i)
        w[m++] = b[j];
    add_cand(cl, w, m, 30);
    if (i + 1 < n) {
      memcpy(w, b, (size_t)n * sizeof *w);
      Step x = w[i];
      w[i] = w[i + 1];
      w[i + 1] = x;
      add_cand(cl, w, n, 35);
    }
  }
  free(w);
}

static int cand_cmp(const void *x, const void *y) {
  const Cand *a = x, *b = y;
  return a->prio != b->prio ? a->prio - b->prio : a->seq - b->seq;
}

static void free_cands(CandList *cl) {
  for (int i = 0; i < cl->n; i++)
    free(cl->v[i].s);
  cl->n = 0;
}

/* ------------------------------------------------------------ the reference (R-TUNE-3) */

typedef struct Ref {
  char name[256];
  size_t count;
  double *v;
  unsigned char *undef;
  double scale;
} Ref;

typedef struct Tuner {
  const TeilProgram *p;
  const CompileOptions *o;
  const TuneOptions *t;
  char dir[4096];             /* the temporary directory */
  char **args;                /* the driver's arguments: exe, --in/--out ..., --repeat R */
  int nargs, repeat_at;
  Ref *refs;
  int nrefs;
  uint64_t *seen;             /* hashes of generated C already measured */
  int nseen, capseen;
  double start, deadline, limit;
  int repeat;
  int measured, refused, rejected, generated;
  double default_ms, best_ms;
  double last_ms;             /* the last measured candidate, for the progress line */
  bool confirming;            /* timing B against the default again (R-TUNE-4) */
} Tuner;

static int make_reference(Tuner *tu, char *err, size_t errlen) {
  CompileOptions c = *tu->o;
  c.emit_teil = true;
  c.main = c.header = c.acsl = false;
  c.dump = DUMP_NONE;
  CompileOutput out;
  if (teil_compile(tu->p, &c, &out, err, errlen))
    return -1;
  TeilProgram *lp = teil_parse("compiled-program", out.c, strlen(out.c), TEIL_LANG_TEIL);
  teil_compile_free(&out);
  if (!lp || teil_check(lp)) {
    snprintf(err, errlen, "the compiled program does not check as TeIL (a compiler bug)");
    teil_free(lp);
    return -1;
  }
  TeilStore *s = teil_store_new(lp, 1, 0, err, errlen);
  if (!s) {
    teil_free(lp);
    return -1;
  }
  int n = teil_ntensors(lp);
  tu->args = xcalloc((size_t)(2 * n + 6), sizeof *tu->args);
  tu->refs = xcalloc((size_t)n + 1, sizeof *tu->refs);
  tu->args[tu->nargs++] = NULL;                     /* the executable, set per candidate */
  int rc = 0;
  for (int t = 0; t < n && !rc; t++) {
    unsigned q = teil_tensor_qual(lp, t);
    const char *name = teil_tensor_name(lp, t);
    char path[4400];
    if (q & TEIL_INPUT) {
      teil_store_fill_random(s, t, 1);
      snprintf(path, sizeof path, "%s/in_%s.npy", tu->dir, name);
      if (teil_store_write_npy(s, t, path, NULL, err, errlen)) {
        rc = -1;
        break;
      }
      Buf b = {0};
      buf_printf(&b, "%s=%s", name, path);
      tu->args[tu->nargs++] = "--in";
      tu->args[tu->nargs++] = b.s;
    }
    if (q & TEIL_OUTPUT) {
      snprintf(path, sizeof path, "%s/out_%s.npy", tu->dir, name);
      Buf b = {0};
      buf_printf(&b, "%s=%s", name, path);
      tu->args[tu->nargs++] = "--out";
      tu->args[tu->nargs++] = b.s;
    }
  }
  if (!rc && teil_run(lp, s, NULL, err, errlen))
    rc = -1;
  for (int t = 0; t < n && !rc; t++) {
    if (!(teil_tensor_qual(lp, t) & TEIL_OUTPUT))
      continue;
    Ref *r = &tu->refs[tu->nrefs++];
    snprintf(r->name, sizeof r->name, "%s", teil_tensor_name(lp, t));
    r->count = 1;
    for (int q = 0; q < teil_tensor_rank(lp, t); q++)
      r->count *= (size_t)teil_tensor_dims(lp, t)[q];
    r->v = xmalloc(r->count * sizeof *r->v + 1);
    r->undef = xmalloc(r->count + 1);
    teil_store_get(s, t, r->v, r->undef);
    for (size_t k = 0; k < r->count; k++)
      if (!r->undef[k] && isfinite(r->v[k]) && fabs(r->v[k]) > r->scale)
        r->scale = fabs(r->v[k]);
  }
  teil_store_free(s);
  teil_free(lp);
  tu->args[tu->nargs++] = "--repeat";
  tu->repeat_at = tu->nargs;
  tu->args[tu->nargs++] = NULL;
  tu->args[tu->nargs] = NULL;
  return rc;
}

/* R-CG-16 agreement with the R-TUNE-3 tolerance. */
static bool agree(double c, double i, double scale, double tol) {
  if (isnan(c) || isnan(i))
    return isnan(c) && isnan(i);
  if (c == i)
    return true;
  if (isinf(c) || isinf(i))
    return false;
  double m = fabs(i) > 1e-4 * scale ? fabs(i) : 1e-4 * scale;
  return fabs(c - i) <= tol * m;
}

static int check_outputs(Tuner *tu, char *why, size_t n) {
  double tol = tu->o->f32 ? 1e-4 : 1e-9;
  for (int k = 0; k < tu->nrefs; k++) {
    Ref *r = &tu->refs[k];
    char path[4400], err[512];
    snprintf(path, sizeof path, "%s/out_%s.npy", tu->dir, r->name);
    NpyArray a;
    memset(&a, 0, sizeof a);
    if (npy_read(path, r->count * sizeof(double) + 1, &a, err, sizeof err) || a.count != r->count) {
      snprintf(why, n, "output %s unreadable: %s", r->name, err);
      npy_free(&a);
      return -1;
    }
    for (size_t q = 0; q < r->count; q++)
      if (!r->undef[q] && !agree(a.data[q], r->v[q], r->scale, tol)) {
        snprintf(why, n, "%s[flat %zu] is %.17g, the interpreter says %.17g", r->name, q, a.data[q], r->v[q]);
        npy_free(&a);
        return -1;
      }
    npy_free(&a);
  }
  return 0;
}

/* Runs exe with --repeat; the median time in *ms. 0 ok, -1 with why. */
static int time_exe(Tuner *tu, const char *exe, bool check, double *ms, double *wall, char *why, size_t n) {
  char rep[32], log[4400];
  snprintf(rep, sizeof rep, "%d", tu->repeat);
  tu->args[0] = (char *)exe;
  tu->args[tu->repeat_at] = rep;
  snprintf(log, sizeof log, "%s/run.log", tu->dir);
  double t0 = proc_now();
  double lim = tu->limit;
  if (!tu->confirming && t0 + lim > tu->deadline + tu->limit)
    lim = tu->deadline + tu->limit - t0;
  if (lim < 1)
    lim = 1;
  int st = proc_run(tu->args, log, lim);
  if (wall)
    *wall = proc_now() - t0;
  if (st == -2) {
    snprintf(why, n, "killed after %.1f s", lim);
    return -1;
  }
  if (st != 0) {
    char l[300];
    log_line(log, l, sizeof l);
    snprintf(why, n, "the kernel failed (status %d): %s", st, l);
    return -1;
  }
  FILE *f = fopen(log, "r");
  bool got = false;
  if (f) {
    char line[512];
    while (fgets(line, sizeof line, f))
      if (sscanf(line, "time_ms median=%lf", ms) == 1)
        got = true;
    fclose(f);
  }
  if (!got) {
    snprintf(why, n, "the driver printed no time_ms line");
    return -1;
  }
  return check ? check_outputs(tu, why, n) : 0;
}

enum { M_OK, M_REFUSED, M_DUP, M_REJECTED };

/* Compiles, builds, checks and times one candidate (R-TUNE-3, R-TUNE-4). */
static int measure(Tuner *tu, const char *text, const char *exe, Targets *tg, double *ms, char *why, size_t n) {
  CompileOutput out;
  int rc = compile_with(tu->p, tu->o, text, NULL, tg, &out, why, n);
  if (rc == -2)
    return M_REFUSED;
  if (rc) {
    teil_compile_free(&out);
    return M_REJECTED;
  }
  uint64_t h = fnv_str(out.c);
  for (int i = 0; i < tu->nseen; i++)
    if (tu->seen[i] == h) {
      teil_compile_free(&out);
      return M_DUP;
    }
  if (tu->nseen == tu->capseen) {
    tu->capseen = tu->capseen ? 2 * tu->capseen : 64;
    tu->seen = realloc(tu->seen, (size_t)tu->capseen * sizeof *tu->seen);
    if (!tu->seen)
      abort();
  }
  tu->seen[tu->nseen++] = h;
  char cfile[4400], log[4400];
  snprintf(cfile, sizeof cfile, "%s/cand.c", tu->dir);
  snprintf(log, sizeof log, "%s/cc.log", tu->dir);
  FILE *f = fopen(cfile, "w");
  bool bad = !f || fputs(out.c, f) < 0;
  if (f)
    bad |= fclose(f) != 0;
  teil_compile_free(&out);
  if (bad) {
    snprintf(why, n, "cannot write %s", cfile);
    return M_REJECTED;
  }
  char *ccv[] = {(char *)cc_name(), "-O3", "-march=native", "-fopenmp", "-o", (char *)exe, cfile, "-lm", NULL};
  int st = proc_run(ccv, log, 300);
  if (st != 0) {
    char l[300];
    log_line(log, l, sizeof l);
    snprintf(why, n, st == 127 ? "the C compiler '%s' cannot be run" : "the C compiler '%s' failed: %s", cc_name(),
             l);
    return M_REJECTED;
  }
  return time_exe(tu, exe, true, ms, NULL, why, n) ? M_REJECTED : M_OK;
}

/* ------------------------------------------------------------ progress (R-TUNE-5) */

static void progress(Tuner *tu, bool final) {
  FILE *f = tu->t->progress;
  if (!f)
    return;
  char bar[11];
  int total = tu->generated > tu->measured ? tu->generated : tu->measured;
  int fill = total ? 10 * tu->measured / total : 0;
  double el = proc_now() - tu->start;
  double frac = el / tu->t->seconds;
  if (frac > (double)fill / 10)                     /* the budget bounds the search too */
    fill = frac >= 1 ? 10 : (int)(frac * 10);
  for (int i = 0; i < 10; i++)
    bar[i] = i < fill ? '#' : '.';
  bar[10] = 0;
  fprintf(f, "%stune %s: [%s] %d/%d best %.4g ms (%.2fx default) last %.4g ms %.0fs/%.0fs%s",
          tu->t->tty ? "\r" : "", tu->t->prog, bar, tu->measured, total, tu->best_ms,
          tu->best_ms > 0 ? tu->default_ms / tu->best_ms : 1.0, tu->last_ms, el, tu->t->seconds,
          tu->t->tty && !final ? "\033[K" : "\n");
  fflush(f);
}

static void note(Tuner *tu, const char *fmt, const char *a, const char *b) {
  FILE *f = tu->t->progress;
  if (!f)
    return;
  if (tu->t->tty)
    fprintf(f, "\r\033[K");
  fprintf(f, fmt, a, b);
  fprintf(f, "\n");
}

/* R-TUNE-2: the steps of the default schedule under other options o, or -1 when
 * they do not compile or are the text dtext of candidate 0. */
static int other_default(Tuner *tu, const CompileOptions *o, const char *dtext, Step **out) {
  Buf steps = {0};
  CompileOutput co;
  char why[512];
  int n = -1;
  *out = NULL;
  if (compile_with(tu->p, o, NULL, &steps, NULL, &co, why, sizeof why) == 0) {
    if (steps.s) {                                  /* NULL: no steps, as the default's */
      n = parse_steps(steps.s, out);
      char *text = render(*out, n);
      if (!strcmp(text, dtext)) {
        free(*out);
        *out = NULL;
        n = -1;
      }
      free(text);
    }
    teil_compile_free(&co);
  }
  buf_free(&steps);
  return n;
}

/* ------------------------------------------------------------ the search */

static void rm_dir(const char *dir) {
  DIR *d = opendir(dir);
  if (d) {
    struct dirent *e;
    char path[4400];
    while ((e = readdir(d)))
      if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        unlink(path);
      }
    closedir(d);
  }
  rmdir(dir);
}

static double median3(const double t[3]) {
  double lo = t[0] < t[1] ? t[0] : t[1], hi = t[0] < t[1] ? t[1] : t[0];
  return t[2] < lo ? lo : t[2] > hi ? hi : t[2];
}

static int search(Tuner *tu, char **best_text, char *err, size_t errlen) {
  char exe0[4400], exeb[4400], exec_[4400], why[1024];
  snprintf(exe0, sizeof exe0, "%s/default", tu->dir);
  snprintf(exeb, sizeof exeb, "%s/best", tu->dir);
  snprintf(exec_, sizeof exec_, "%s/cand", tu->dir);

  /* candidate 0: the default schedule (R-TUNE-2) */
  char *d0 = default_steps(tu->p, tu->o);
  Targets tg;
  memset(&tg, 0, sizeof tg);
  tu->repeat = 3;
  tu->limit = 600;
  double ms0;
  double t0 = proc_now();
  int m = measure(tu, d0, exe0, &tg, &ms0, why, sizeof why);
  if (m != M_OK) {
    snprintf(err, errlen, "the default schedule (candidate 0) %s: %s",
             m == M_REFUSED ? "was refused" : "failed the check", why);
    free(d0);
    return -1;
  }
  (void)t0;
  double wall;
  /* R-TUNE-4: about 0.3 s of kernel time per candidate */
  int r = ms0 > 0 ? (int)(300.0 / ms0) : 50;
  tu->repeat = r < 3 ? 3 : r > 50 ? 50 : r;
  if (time_exe(tu, exe0, false, &ms0, &wall, why, sizeof why)) {
    snprintf(err, errlen, "the default schedule (candidate 0) failed: %s", why);
    free(d0);
    return -1;
  }
  tu->limit = 3 * wall > 2 ? 3 * wall : 2;
  tu->default_ms = tu->best_ms = tu->last_ms = ms0;
  tu->measured = 1;
  tu->generated = 1;
  progress(tu, false);

  Step *best = NULL;
  int nbest = parse_steps(d0, &best);
  char *btext = render(best, nbest);
  /* R-TUNE-2: candidates 1, the defaults of the other choices of lanes (R-SCH-27)
   * and of inlining (R-SCH-28) */
  bool d0_lanes = false, d0_inline = false;
  for (int i = 0; i < nbest; i++) {
    d0_lanes |= !strcmp(best[i].prim, "lanes");
    d0_inline |= !strcmp(best[i].prim, "inline");
  }
  Step *alt[2] = {NULL, NULL};
  int nalt[2] = {-1, -1};
  CompileOptions other = *tu->o;
  other.lanes = d0_lanes ? -1 : 1;
  nalt[0] = other_default(tu, &other, btext, &alt[0]);
  if (nalt[0] >= 0)
    note(tu, "tune: candidate 1 is the default schedule %s%s", d0_lanes ? "without" : "with", " lanes (R-SCH-27)");
  if (d0_inline) {
    other = *tu->o;
    other.no_inline = true;
    nalt[1] = other_default(tu, &other, btext, &alt[1]);
    if (nalt[1] >= 0)
      note(tu, "tune: candidate %s is the default schedule %s", nalt[0] >= 0 ? "2" : "1",
           "without inlining (--no-inline, R-SCH-28)");
  }
  free(d0);
  bool best_is_default = true;
  Targets btg = tg;
  /* texts tried, so that no schedule is tried twice */
  uint64_t *tried = NULL;
  int ntried = 0, captried = 0;
  CandList cl = {0};
  bool out_of_time = false, failed = false;
  while (!out_of_time) {
    free_cands(&cl);
    neighbours(best, nbest, &btg, &cl);
    for (int a = 0; a < 2; a++)                     /* first, in the first round only */
      if (nalt[a] >= 0) {
        add_cand(&cl, alt[a], nalt[a], -1);
        free(alt[a]);
        alt[a] = NULL;
        nalt[a] = -1;
      }
    if (cl.n > 1)                                 /* cl.v is NULL when there are none */
      qsort(cl.v, (size_t)cl.n, sizeof *cl.v, cand_cmp);
    tu->generated = tu->measured + cl.n;
    bool improved = false;
    for (int i = 0; i < cl.n && !improved; i++) {
      if (proc_now() >= tu->deadline) {
        out_of_time = true;
        break;
      }
      char *text = render(cl.v[i].s, cl.v[i].n);
      uint64_t h = fnv_str(text);
      bool dup = false;
      for (int k = 0; k < ntried && !dup; k++)
        dup = tried[k] == h;
      if (dup) {
        free(text);
        continue;
      }
      if (ntried == captried) {
        captried = captried ? 2 * captried : 256;
        tried = realloc(tried, (size_t)captried * sizeof *tried);
        if (!tried)
          abort();
      }
      tried[ntried++] = h;
      Targets ctg;
      memset(&ctg, 0, sizeof ctg);
      double ms;
      int res = measure(tu, text, exec_, &ctg, &ms, why, sizeof why);
      if (res == M_REFUSED || res == M_DUP) {
        tu->refused += res == M_REFUSED;
        free(text);
        continue;
      }
      if (res == M_REJECTED) {
        tu->rejected++;
        char num[32];
        snprintf(num, sizeof num, "%d", tu->measured + tu->rejected - 1); /* the default is 0 */
        note(tu, "tune: candidate %s rejected: %s", num, why);
        free(text);
        if (strstr(why, "cannot be run")) {
          snprintf(err, errlen, "%s", why);
          failed = true;
          goto searched;
        }
        continue;
      }
      tu->measured++;
      tu->last_ms = ms;
      bool better = ms < tu->best_ms * 0.97;       /* R-TUNE-2: the noise margin */
      if (better) {                                 /* R-TUNE-2: B, then the candidate, again */
        double b2 = 0, c2 = 0;
        better = !time_exe(tu, best_is_default ? exe0 : exeb, false, &b2, NULL, why, sizeof why) &&
                 !time_exe(tu, exec_, false, &c2, NULL, why, sizeof why) && c2 < b2 * 0.97;
        if (better)
          ms = c2;
        else if (b2 > 0 && b2 < tu->best_ms) {      /* B's first time fell in a slow phase */
          tu->best_ms = b2;
          if (best_is_default)
            tu->default_ms = b2;
        }
      }
      if (better) {
        tu->best_ms = ms;
        rename(exec_, exeb);
        free(best);
        nbest = parse_steps(text, &best);
        free(btext);
        btext = text;
        btg = ctg;
        best_is_default = false;
        improved = true;
      } else {
        free(text);
      }
      progress(tu, false);
    }
    if (!improved)
      break;                                        /* out of candidates */
  }
searched:
  free(tried);
  free_cands(&cl);
  free(cl.v);
  free(best);
  free(alt[0]);
  free(alt[1]);
  if (failed) {
    free(btext);
    return -1;
  }

  /* R-TUNE-4: confirm the best against the default, alternately, with the
   * noise margin of R-TUNE-2 */
  if (!best_is_default) {
    double a[3], b[3];
    bool timed = true;
    tu->confirming = true;                          /* after the budget: the candidate limit only */
    for (int i = 0; i < 3 && timed; i++)
      timed = !time_exe(tu, exeb, false, &b[i], NULL, why, sizeof why) &&
              !time_exe(tu, exe0, false, &a[i], NULL, why, sizeof why);
    if (timed)
      tu->default_ms = median3(a);
    if (timed && median3(b) < tu->default_ms * 0.97) {
      tu->best_ms = median3(b);
    } else {
      if (timed)
        note(tu, "tune: the best candidate did not beat the default by %s when timed again; keeping the %s", "3 %",
             "default");
      else
        note(tu, "tune: the best candidate could not be timed again (%s); keeping the %s", why, "default");
      best_is_default = true;
    }
    if (best_is_default) {
      free(btext);
      char *d = default_steps(tu->p, tu->o);
      Step *s = NULL;
      int ns = parse_steps(d, &s);
      btext = render(s, ns);
      free(s);
      free(d);
      tu->best_ms = tu->default_ms;
    }
  }
  progress(tu, true);
  *best_text = btext;
  return 0;
}

int tune_run(const TeilProgram *p, const CompileOptions *o, const TuneOptions *t, TuneResult *r, char *err,
             size_t errlen) {
  memset(r, 0, sizeof *r);
  if (!(t->seconds > 0)) {
    snprintf(err, errlen, "the tuning budget must be a positive number of seconds");
    return -1;
  }
  char machine[1024], werr[1024];
  if (entry_path(p, o, r->path, sizeof r->path, machine, sizeof machine, err, errlen))
    return -1;
  char *text = NULL;
  int lk = lookup(p, o, r->path, sizeof r->path, &text, false, werr, sizeof werr);
  if (lk == 1) {
    r->text = text;
    r->from_cache = true;
    char v[256];
    if (header(text, "default", v, sizeof v))
      r->default_ms = atof(v);
    if (header(text, "best", v, sizeof v))
      r->best_ms = atof(v);
    return 0;
  }
  if (lk < 0 && t->progress)
    fprintf(t->progress, "teilc: warning: %s\n", werr);

  /* the entry must be writable before minutes are spent */
  char dir[4096];
  snprintf(dir, sizeof dir, "%s", r->path);
  *strrchr(dir, '/') = 0;
  if (mkdir_p(dir) || access(dir, W_OK)) {
    snprintf(err, errlen, "cannot create or write the cache directory '%s'", dir);
    return -1;
  }

  Tuner tu;
  memset(&tu, 0, sizeof tu);
  tu.p = p;
  tu.o = o;
  tu.t = t;
  tu.start = proc_now();
  tu.deadline = tu.start + t->seconds;
  const char *tmp = getenv("TMPDIR");
  snprintf(tu.dir, sizeof tu.dir, "%s/teil-tune-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(tu.dir)) {
    snprintf(err, errlen, "cannot create a temporary directory in %s", tmp && *tmp ? tmp : "/tmp");
    return -1;
  }
  char *best = NULL;
  int rc = make_reference(&tu, err, errlen);
  if (!rc)
    rc = search(&tu, &best, err, errlen);
  rm_dir(tu.dir);
  for (int i = 0; i < tu.nargs; i++)
    if (i != 0 && i != tu.repeat_at && tu.args[i] && tu.args[i][0] != '-') /* 0, repeat_at: gone buffers */
      free(tu.args[i]);
  free(tu.args);
  for (int i = 0; i < tu.nrefs; i++) {
    free(tu.refs[i].v);
    free(tu.refs[i].undef);
  }
  free(tu.refs);
  free(tu.seen);
  if (rc) {
    free(best);
    return -1;
  }

  char key[17], dk[17];
  tune_program_key(p, o, key);
  char *ds = default_steps(p, o);
  hex16(fnv_str(ds), dk);
  free(ds);
  Buf b = {0};
  buf_printf(&b, "# teil autotuner cache entry (spec/tune.md R-TUNE-6)\n");
  buf_printf(&b, "# program: %s\n", t->prog);
  buf_printf(&b, "# key: %s\n", key);
  buf_printf(&b, "# machine: %s\n", machine);
  buf_printf(&b, "# default-steps: %s\n", dk);
  buf_printf(&b, "# default: %.4f ms\n", tu.default_ms);
  buf_printf(&b, "# best: %.4f ms (%.2fx default), %d measured, %d refused, %d rejected\n", tu.best_ms,
             tu.best_ms > 0 ? tu.default_ms / tu.best_ms : 1.0, tu.measured, tu.refused, tu.rejected);
  buf_printf(&b, "%s", best);
  free(best);
  r->text = b.s;
  r->default_ms = tu.default_ms;
  r->best_ms = tu.best_ms;
  r->measured = tu.measured;
  r->refused = tu.refused;
  r->rejected = tu.rejected;
  if (t->progress)
    fprintf(t->progress, "tune %s: default %.3f ms, best %.3f ms (%.2fx), %d measured, %d refused, %d rejected\n",
            t->prog, tu.default_ms, tu.best_ms, tu.best_ms > 0 ? tu.default_ms / tu.best_ms : 1.0, tu.measured,
            tu.refused, tu.rejected);
  if (write_entry(r->path, r->text, err, errlen)) {
    tune_result_free(r);
    return -1;
  }
  return 0;
}

void tune_result_free(TuneResult *r) {
  free(r->text);
  r->text = NULL;
}
