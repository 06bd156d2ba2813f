/*
 * fuzz_parse.c - fuzzing the front end (lexer, both parsers, type checker,
 * analyses, diagnostics printers) on arbitrary bytes.
 *
 * LLVMFuzzerTestOneInput is a libFuzzer entry point:
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -Iinclude -Isrc \
 *         tests/fuzz/fuzz_parse.c src/[a-z]*.c -lm -o build/fuzz_parse
 *   build/fuzz_parse -max_len=4096
 * Every input is parsed and checked as TeIL and as the model language. Besides
 * "no crash, no out-of-bounds access, no undefined behaviour" it checks the
 * contract of spec/ (a violation calls abort()):
 *   - error and warning counts match the diagnostics; every diagnostic has a
 *     location (line, column >= 1), a length >= 1, a one-line message, a
 *     category and a rule (R-AN-5), and they are sorted by position;
 *   - R-AN-2/R-AN-3 warnings only in files without errors (R-GR-7(f));
 *   - a program without errors is well-typed throughout: every statement is
 *     OK (R-TY-14), every expression node has a type whose extents are >= 1 and
 *     whose element count is at most 2^59 (R-TY-17, R-TY-19);
 *   - a program without errors, printed as TeIL (R-GR-6), parses and checks
 *     without errors again and prints the same (unless a tensor is named by a
 *     TeIL keyword, which R-GR-6 says cannot be printed).
 * The text and JSON printers and the type printer run on every input.
 *
 * Built with -DFUZZ_MAIN the file also has a plain main, so the fuzzer runs
 * under gcc with ASan/UBSan and no libFuzzer:
 *   make build/san/lib/libteil.a
 *   gcc -DFUZZ_MAIN -Iinclude -Isrc -g -O1 -fsanitize=address,undefined \
 *       tests/fuzz/fuzz_parse.c build/san/lib/libteil.a -lm -o build/fuzz_parse_main
 *   build/fuzz_parse_main [ITERATIONS [SEED [EXTRA_SEED_FILE...]]]
 * It runs a deterministic random-mutation loop (xorshift PRNG, fixed seed by
 * default) over built-in seed programs in both languages (the papers' kernels
 * and edge cases). Mutations are stacked byte edits, dictionary tokens
 * (keywords, punctuation, limit literals, NUL, UTF-8, CR LF), number edits,
 * chunk duplication (deep nesting, long chains) and splices. Inputs that
 * produce a set of diagnostic categories not seen before join the corpus - a
 * crude substitute for coverage feedback. Each input is passed in a malloc'd
 * block of exactly its length so that ASan catches any overrun; before each
 * run it is also kept so that a crash writes it to crash-fuzz_parse.bin.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A bit set of the categories seen by the last call, for the driver's feedback. */
static uint64_t fuzz_last_sig;
static int fuzz_last_ok;

/* Called before abort() on a contract violation (the driver saves the input). */
static void (*fuzz_on_fail)(void);

static FILE *fuzz_null(void) {
  static FILE *f;
  if (!f)
    f = fopen("/dev/null", "w");
  if (!f)
    abort();
  return f;
}

static void fuzz_fail(const Program *p, const char *what) {
  fprintf(stderr, "fuzz_parse: contract violated (%s): %s\n",
          p->lang == TEIL_LANG_MODEL ? "model language" : "TeIL", what);
  diag_print(&p->diags, stderr, false);
  if (fuzz_on_fail)
    fuzz_on_fail();
  abort();
}

static const char *const fuzz_categories[] = {
    "syntax", "literal-too-large", "redeclared", "undeclared", "type-mismatch", "position-out-of-range",
    "equal-positions", "index-out-of-range", "assign-undeclared", "assign-mismatch", "extent-zero",
    "too-large", "maybe-undefined", "dead-store", "mixed-operators", NULL};

static int fuzz_category_bit(const char *c) {
  for (int i = 0; fuzz_categories[i]; i++)
    if (!strcmp(fuzz_categories[i], c))
      return i;
  return -1;
}

static void fuzz_check_type(const Program *p, Type t, const char *what) {
  if (t.rank < 0)
    fuzz_fail(p, what);
  for (int i = 0; i < t.rank; i++)
    if (t.dims[i] < 1)
      fuzz_fail(p, "an extent below 1 in a well-formed program");
  if (ty_count(t) > TEIL_MAX_ELEMS)
    fuzz_fail(p, "a type above 2^59 elements in a well-formed program");
}

static void fuzz_check_expr(const Program *p, const Expr *e) {
  fuzz_check_type(p, e->ty, "an untyped expression node in a well-formed program");
  if (e->kind == EX_VAR) {
    if (e->tensor < 0 || e->tensor >= p->ntensors)
      fuzz_fail(p, "a variable without a tensor in a well-formed program");
    return;
  }
  if (!e->a || (ex_kids[e->kind] == 2) != (e->b != NULL))
    fuzz_fail(p, "an operator with the wrong number of operands");
  fuzz_check_expr(p, e->a);
  if (e->b)
    fuzz_check_expr(p, e->b);
}

/* Whether some tensor is named by a TeIL keyword (R-GR-6: not printable). */
static bool fuzz_teil_keyword_name(const Program *p) {
  for (int t = 0; t < p->ntensors; t++) {
    const char *n = p->tensors[t].name;
    if (!strcmp(n, "alloc") || !strcmp(n, "input") || !strcmp(n, "output"))
      return true;
    for (int k = 1; k < EX_COUNT; k++)
      if (!strcmp(n, ex_names[k]))
        return true;
  }
  return false;
}

static void fuzz_one(const char *buf, size_t size, TeilLang lang) {
  TeilProgram *tp = teil_parse(lang == TEIL_LANG_MODEL ? "fuzz.tm" : "fuzz.teil", buf, size, lang);
  if (!tp)
    abort();
  int nerr = teil_check(tp);
  const Program *p = &tp->p;
  if (teil_check(tp) != nerr || nerr != teil_nerrors(tp))
    fuzz_fail(p, "teil_check is not idempotent");

  /* The diagnostics (R-AN-5). */
  int ne = 0, nw = 0, nan23 = 0;
  const Diagnostic *prev = NULL;
  for (const Diagnostic *g = p->diags.first; g; g = g->next) {
    if (g->sev == SEV_ERROR)
      ne++;
    else
      nw++;
    if (g->loc.line < 1 || g->loc.col < 1 || g->len < 1)
      fuzz_fail(p, "a diagnostic without a location");
    if (!g->msg || !*g->msg || strchr(g->msg, '\n') || (g->note && strchr(g->note, '\n')))
      fuzz_fail(p, "a diagnostic message that is empty or not one line");
    if (!g->category || !g->rule)
      fuzz_fail(p, "a diagnostic without category or rule");
    int bit = fuzz_category_bit(g->category);
    if (bit < 0)
      fuzz_fail(p, "a diagnostic with an unknown category");
    fuzz_last_sig |= (uint64_t)1 << bit;
    if (!strcmp(g->category, "maybe-undefined") || !strcmp(g->category, "dead-store"))
      nan23++;
    if ((g->sev == SEV_ERROR) != (strcmp(g->category, "maybe-undefined") && strcmp(g->category, "dead-store") &&
                                  strcmp(g->category, "mixed-operators")))
      fuzz_fail(p, "a diagnostic with the wrong severity for its category");
    if (!strcmp(g->category, "mixed-operators") && lang != TEIL_LANG_MODEL)
      fuzz_fail(p, "R-AN-4 in a TeIL file");
    if (prev && (prev->loc.line > g->loc.line || (prev->loc.line == g->loc.line && prev->loc.col > g->loc.col)))
      fuzz_fail(p, "diagnostics not sorted by position");
    prev = g;
  }
  if (ne != p->diags.nerrors || nw != p->diags.nwarnings)
    fuzz_fail(p, "diagnostic counts do not match the list");
  if (ne && nan23)
    fuzz_fail(p, "R-AN-2/R-AN-3 warnings in a file with errors (R-GR-7(f))");

  /* A well-formed program is well-typed throughout (R-TY-14 .. R-TY-19). */
  if (!ne) {
    fuzz_last_ok = 1;
    for (int t = 0; t < p->ntensors; t++)
      fuzz_check_type(p, p->tensors[t].ty, "a tensor without a valid type in a well-formed program");
    for (int i = 0; i < p->nstmts; i++) {
      const Stmt *s = &p->stmts[i];
      if (!s->ok || s->target < 0 || !ty_equal(p->tensors[s->target].ty, s->rhs->ty))
        fuzz_fail(p, "a statement that is not OK in a well-formed program");
      fuzz_check_expr(p, s->rhs);
    }
  }

  /* The printers. */
  FILE *null = fuzz_null();
  teil_print_diagnostics(tp, null, 0);
  teil_print_diagnostics(tp, null, 1);
  teil_print_types(tp, null, size < 2048);

  /* Printing a well-formed program as TeIL and reading it back (R-GR-6). */
  if (!ne && !fuzz_teil_keyword_name(p)) {
    Buf b1 = {0};
    pr_program(p, &b1);
    const char *t1 = b1.s ? b1.s : "";
    TeilProgram *tq = teil_parse("print.teil", t1, strlen(t1), TEIL_LANG_TEIL);
    if (!tq)
      abort();
    if (teil_check(tq) != 0) {
      fprintf(stderr, "printed program:\n%s\n", t1);
      fuzz_fail(&tq->p, "the TeIL printout of a well-formed program does not check");
    }
    if (tq->p.nstmts != p->nstmts || tq->p.ntensors != p->ntensors)
      fuzz_fail(&tq->p, "the TeIL printout has other declarations or statements");
    for (int i = 0; i < p->nstmts; i++)
      if (!ty_equal(tq->p.stmts[i].rhs->ty, p->stmts[i].rhs->ty))
        fuzz_fail(&tq->p, "the TeIL printout types a statement differently");
    Buf b2 = {0};
    pr_program(&tq->p, &b2);
    if (strcmp(t1, b2.s ? b2.s : "")) {
      fprintf(stderr, "first printout:\n%s\nsecond printout:\n%s\n", t1, b2.s ? b2.s : "");
      fuzz_fail(&tq->p, "printing is not a fixpoint");
    }
    buf_free(&b2);
    buf_free(&b1);
    teil_free(tq);
  }
  teil_free(tp);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > ((size_t)1 << 20))
    return 0;
  /* An exact-size copy so that ASan sees any read past the end. */
  char *buf = malloc(size ? size : 1);
  if (!buf)
    abort();
  if (size)
    memcpy(buf, data, size);
  fuzz_last_sig = 0;
  fuzz_last_ok = 0;
  fuzz_one(buf, size, TEIL_LANG_TEIL);
  fuzz_one(buf, size, TEIL_LANG_MODEL);
  free(buf);
  return 0;
}

#ifdef FUZZ_MAIN

#if defined(__has_include)
#if __has_include(<sanitizer/common_interface_defs.h>) && defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#define FUZZ_HAVE_DEATH_CALLBACK 1
#endif
#endif

/* ---- a deterministic PRNG (xorshift64*) --------------------------------- */

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static uint64_t rng(void) {
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return rng_state * 0x2545F4914F6CDD1Dull;
}

static size_t rnd(size_t n) { return n ? (size_t)(rng() % n) : 0; }

/* ---- seeds and dictionary --------------------------------------------- */

static const char *const seeds[] = {
    /* TeIL Fig. 7, 10, 11 and the report's kernels */
    "alloc input A : [2, 3]\nalloc input B : [3, 4]\nalloc output C : [2, 4]\nC = red+ 2 (diag 2 3 (prod A B))\n",
    "alloc input A : [3, 7]        # (m, h)\nalloc input B : [5, 7]\nalloc output C : [3, 5]\nC = contr 1 3 (prod A B)\n",
    "alloc input A : [7, 3]\nalloc input B : [7, 5]\nalloc output C : [3, 5]\nC = contr 3 1 (prod A B)\n",
    "alloc input A : [3, 4]\nalloc input B : [5, 3, 4]\nalloc output C : [3, 4]\nalloc output D : [5, 3, 4]\n"
    "C = add A (proj 1 2 B)\nD = add (expa 1 5 A) B\n",
    "alloc A : [2 3 4]\nalloc s : []\nalloc T : [4, 3, 2]\nT = transp 1 3 (mul s A)\nA = div (transp 3 1 T) s\n"
    "s = red_+ 1 (red+ 1 (red+ 1 A))\n",
    "alloc input output M : [3, 3]\nalloc t : []\nalloc output v : [3]\nt = contr 1 2 M\nv = diag 1 2 (sub M M)\n"
    "M = transp 2 1 M\nM = M\nv = proj 2 3 M\n",
    "alloc A : [4611686018427387904]\nalloc B : [576460752303423488]\nalloc C : [0, 2]\nalloc A : []\n"
    "B = expa 1 2 (prod B B)\nX = Y\nalloc late : [1]\n",
    "alloc A : [3]\nA = add A\nA = (add A A\nB = ) A\nA = A $ \xc3\xa9\n# comment \x01\r\nA = ((((A))))\n",
    "var input A : [300 400]\nvar input B : [400 500]\nvar output C : [300 500]\nC = (A # B).[2 3]\n",
    "var A : [3 4]\nvar B : [4 3]\nvar s : []\ns = ((A # B).[2 3]).[1 2]\n",
    "var u : [2 3 4 5 6]\nvar v : [2 5 4 3 6]\nv = u ^[2 4]\n",
    "var input A : [3]\nvar input B : [3]\nvar input C : [3]\nvar output D : [3]\nD = A + B * C - A / B\n"
    "D = A # B .[1 2] * C\n",
    "var input output add : [2, 2] // names that are TeIL keywords\nvar contr : []\ncontr = add .[1 2]\n"
    "add = contr * add ^[2 1]\n",
    "var A : [3 4]\nvar B : [4 5]\nvar C : [3 5]\nvar A : [2]\nD = A\nC = A # B\nC = (A # E).[2 3]\n"
    "C = (A # A).[2 3]\n",
    "var A : [2]\nA = A + + A\nA = (A\nA = A .[1] ^[\nA = A ^[1 1]\n",
    "",
    "# only a comment",
    "// only a comment",
};

static const char *const dict[] = {
    "alloc ", "var ", "input ", "output ", "add ", "sub ", "mul ", "div ", "prod ", "red+ ", "red_+ ",
    "transp ", "diag ", "expa ", "proj ", "contr ", " A ", " B ", "x", "_", " = ", " : ", "[", "]", "[]",
    "(", ")", ",", ":", "=", "+", "-", "*", "/", "#", ".", "^", ".[1 2]", "^[2 1]", ".[", "^[", " 0 ", " 1 ",
    " 2 ", " 3 ", "4611686018427387904", "4611686018427387905", "576460752303423488", "1073741824",
    "99999999999999999999", "007", "\n", "\r\n", "\t", "\v", "# c\n", "// c\n", "\0", "\xc3\xa9", "\xff",
    "\x80", "\xe2\x82\xac", "(((", ")))", "A = ", "alloc A : [2, 2]\n", "var A : [2 2]\n", "A = A\n",
};

/* ---- the corpus --------------------------------------------------------- */

#define MAX_INPUT ((size_t)1 << 16)
#define MAX_CORPUS 1024

typedef struct {
  char *s;
  size_t n;
} Input;

static Input corpus[MAX_CORPUS];
static size_t ncorpus;
static uint64_t seen_sigs[4096];
static size_t nseen;

static void corpus_add(const char *s, size_t n) {
  Input in = {malloc(n ? n : 1), n};
  if (!in.s)
    abort();
  memcpy(in.s, s, n);
  if (ncorpus < MAX_CORPUS) {
    corpus[ncorpus++] = in;
  } else {
    size_t k = rnd(MAX_CORPUS);
    free(corpus[k].s);
    corpus[k] = in;
  }
}

static bool sig_new(uint64_t sig) {
  for (size_t i = 0; i < nseen; i++)
    if (seen_sigs[i] == sig)
      return false;
  if (nseen < sizeof seen_sigs / sizeof *seen_sigs)
    seen_sigs[nseen++] = sig;
  return true;
}

/* ---- mutations ------------------------------------------------------------ */

typedef struct {
  char *s;
  size_t n, cap;
} Work;

static void w_reserve(Work *w, size_t n) {
  if (n <= w->cap)
    return;
  size_t cap = w->cap ? w->cap : 256;
  while (cap < n)
    cap *= 2;
  w->s = realloc(w->s, cap);
  if (!w->s)
    abort();
  w->cap = cap;
}

static void w_insert(Work *w, size_t at, const char *s, size_t n) {
  if (w->n + n > MAX_INPUT)
    return;
  w_reserve(w, w->n + n);
  memmove(w->s + at + n, w->s + at, w->n - at);
  memcpy(w->s + at, s, n);
  w->n += n;
}

static void w_erase(Work *w, size_t at, size_t n) {
  if (at + n > w->n)
    n = w->n - at;
  memmove(w->s + at, w->s + at + n, w->n - at - n);
  w->n -= n;
}

static size_t dict_len(size_t i) {
  /* "\0" is one byte. */
  return dict[i][0] == '\0' ? 1 : strlen(dict[i]);
}

static void mutate(Work *w) {
  int rounds = 1 + (int)rnd(6);
  for (int r = 0; r < rounds; r++) {
    size_t at = rnd(w->n + 1);
    switch (rnd(12)) {
    case 0: /* flip a bit */
      if (w->n)
        w->s[rnd(w->n)] ^= (char)(1u << rnd(8));
      break;
    case 1: { /* a random byte */
      char c = (char)rnd(256);
      w_insert(w, at, &c, 1);
      break;
    }
    case 2: /* erase a range */
      if (w->n)
        w_erase(w, rnd(w->n), 1 + rnd(16));
      break;
    case 3:
    case 4:
    case 5: { /* a dictionary token */
      size_t i = rnd(sizeof dict / sizeof *dict);
      w_insert(w, at, dict[i], dict_len(i));
      break;
    }
    case 6: { /* replace a digit run with another number */
      size_t i = rnd(w->n + 1);
      while (i < w->n && (w->s[i] < '0' || w->s[i] > '9'))
        i++;
      size_t j = i;
      while (j < w->n && w->s[j] >= '0' && w->s[j] <= '9')
        j++;
      static const char *const nums[] = {"0", "1", "2", "3", "4", "5", "7", "12", "1073741824",
                                         "4611686018427387904", "4611686018427387905", "99999999999999999999"};
      const char *nu = nums[rnd(sizeof nums / sizeof *nums)];
      w_erase(w, i, j - i);
      w_insert(w, i, nu, strlen(nu));
      break;
    }
    case 7: { /* duplicate a chunk many times (nesting, chains, long lines) */
      if (!w->n)
        break;
      size_t from = rnd(w->n), len = 1 + rnd(12);
      if (from + len > w->n)
        len = w->n - from;
      char chunk[16];
      memcpy(chunk, w->s + from, len);
      size_t times = 1 + rnd(rnd(4) == 0 ? 3000 : 20);
      for (size_t k = 0; k < times && w->n + len <= MAX_INPUT; k++)
        w_insert(w, at, chunk, len);
      break;
    }
    case 8: { /* splice with a corpus entry */
      const Input *o = &corpus[rnd(ncorpus)];
      size_t from = rnd(o->n + 1), len = rnd(o->n - from + 1);
      w_insert(w, at, o->s + from, len);
      break;
    }
    case 9: { /* swap two bytes */
      if (w->n > 1) {
        size_t a = rnd(w->n), b = rnd(w->n);
        char c = w->s[a];
        w->s[a] = w->s[b];
        w->s[b] = c;
      }
      break;
    }
    case 10: { /* truncate */
      if (w->n)
        w->n = rnd(w->n + 1);
      break;
    }
    default: { /* wrap a range in parentheses */
      if (!w->n)
        break;
      size_t a = rnd(w->n), b = a + rnd(w->n - a + 1);
      w_insert(w, b, ")", 1);
      w_insert(w, a, "(", 1);
      break;
    }
    }
  }
}

/* ---- crash reporting ------------------------------------------------------- */

static const char *cur_data;
static size_t cur_size;

static void dump_current(void) {
  if (!cur_data)
    return;
  FILE *f = fopen("crash-fuzz_parse.bin", "wb");
  if (f) {
    fwrite(cur_data, 1, cur_size, f);
    fclose(f);
    fprintf(stderr, "fuzz_parse: the input (%zu bytes) is in crash-fuzz_parse.bin\n", cur_size);
  }
}

static void run_input(const char *s, size_t n) {
  cur_data = s;
  cur_size = n;
  LLVMFuzzerTestOneInput((const uint8_t *)s, n);
  cur_data = NULL;
}

static char *read_file(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  char *s = NULL;
  size_t cap = 0, len = 0;
  for (;;) {
    if (len == cap) {
      cap = cap ? 2 * cap : 4096;
      s = realloc(s, cap);
      if (!s)
        abort();
    }
    size_t k = fread(s + len, 1, cap - len, f);
    len += k;
    if (!k)
      break;
  }
  fclose(f);
  *n = len;
  return s;
}

int main(int argc, char **argv) {
  long iters = argc > 1 ? atol(argv[1]) : 100000;
  if (argc > 2)
    rng_state = strtoull(argv[2], NULL, 0) * 0x9E3779B97F4A7C15ull + 1;
#ifdef FUZZ_HAVE_DEATH_CALLBACK
  __sanitizer_set_death_callback(dump_current);
#endif
  fuzz_on_fail = dump_current;

  for (size_t i = 0; i < sizeof seeds / sizeof *seeds; i++) {
    corpus_add(seeds[i], strlen(seeds[i]));
    run_input(seeds[i], strlen(seeds[i]));
    sig_new(fuzz_last_sig);
  }
  for (int a = 3; a < argc; a++) {
    size_t n;
    char *s = read_file(argv[a], &n);
    if (!s) {
      fprintf(stderr, "fuzz_parse: cannot read %s\n", argv[a]);
      return 2;
    }
    corpus_add(s, n < MAX_INPUT ? n : MAX_INPUT);
    run_input(s, n);
    free(s);
  }

  Work w = {0};
  long ok = 0;
  for (long it = 0; it < iters; it++) {
    const Input *base = &corpus[rnd(ncorpus)];
    w.n = 0;
    w_reserve(&w, base->n + 1);
    memcpy(w.s, base->s, base->n);
    w.n = base->n;
    mutate(&w);
    /* Exact-size block for ASan. */
    char *in = malloc(w.n ? w.n : 1);
    if (!in)
      abort();
    memcpy(in, w.s, w.n);
    run_input(in, w.n);
    ok += fuzz_last_ok;
    if (sig_new(fuzz_last_sig) || (fuzz_last_ok && rnd(64) == 0))
      corpus_add(in, w.n);
    free(in);
    if (iters >= 10 && (it + 1) % (iters / 10) == 0)
      fprintf(stderr, "fuzz_parse: %ld/%ld runs, corpus %zu, %zu diagnostic signatures, %ld well-formed\n", it + 1,
              iters, ncorpus, nseen, ok);
  }
  free(w.s);
  for (size_t i = 0; i < ncorpus; i++)
    free(corpus[i].s);
  cur_data = NULL;
  fprintf(stderr, "fuzz_parse: done, %ld runs, no crash\n", iters);
  return 0;
}

#endif /* FUZZ_MAIN */
