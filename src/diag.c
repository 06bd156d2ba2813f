/*
 * diag.c - diagnostics (R-AN-5). Errors and warnings are collected in a Diags
 * context during parsing, checking and analysis (SQLite's pParse->nErr style);
 * the tools decide how to print them and which exit code follows.
 *
 * Text form, as gcc and clang print it:
 *   k.teil:4:5: error: contr 1 3: dimension 1 has extent 3 but dimension 3 has extent 5
 *       C = contr 1 3 (prod A B)
 *           ^~~~~
 *   note: operand type [3, 7, 5, 7]
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static char *vformat(Arena *a, const char *fmt, va_list ap) {
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap);
  char *s = arena_alloc(a, (size_t)(n < 0 ? 0 : n) + 1);
  vsnprintf(s, (size_t)n + 1, fmt, ap2);
  va_end(ap2);
  return s;
}

static void add(Diags *d, Severity sev, Loc loc, int len, const char *fmt, va_list ap) {
  Diagnostic *g = arena_alloc(d->arena, sizeof *g);
  g->sev = sev;
  g->loc = loc;
  g->len = len > 0 ? len : 1;
  g->msg = vformat(d->arena, fmt, ap);
  if (d->last)
    d->last->next = g;
  else
    d->first = g;
  d->last = g;
  if (sev == SEV_ERROR)
    d->nerrors++;
  else
    d->nwarnings++;
}

void diag_error(Diags *d, Loc loc, int len, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  add(d, SEV_ERROR, loc, len, fmt, ap);
  va_end(ap);
}

void diag_warning(Diags *d, Loc loc, int len, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  add(d, SEV_WARNING, loc, len, fmt, ap);
  va_end(ap);
}

void diag_note(Diags *d, const char *fmt, ...) {
  if (!d->last)
    teil_unreachable();
  va_list ap;
  va_start(ap, fmt);
  d->last->note = vformat(d->arena, fmt, ap);
  va_end(ap);
}

void diag_tag(Diags *d, const char *category, const char *rule) {
  if (!d->last)
    teil_unreachable();
  d->last->category = category;
  d->last->rule = rule;
}

/* Orders by position; equal positions keep the order of detection (seq). */
static int cmp_diag(const void *x, const void *y) {
  const Diagnostic *a = *(Diagnostic *const *)x, *b = *(Diagnostic *const *)y;
  if (a->loc.line != b->loc.line)
    return a->loc.line < b->loc.line ? -1 : 1;
  if (a->loc.col != b->loc.col)
    return a->loc.col < b->loc.col ? -1 : 1;
  return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* Sorts diagnostics by position, stably, so that errors from the lexer, the
 * parser, the checker and the analyses interleave by line (R-AN-5). */
void diag_sort(Diags *d) {
  size_t n = 0;
  for (Diagnostic *g = d->first; g; g = g->next)
    g->seq = n++;
  if (n < 2)
    return;
  Diagnostic **v = xmalloc(n * sizeof *v);
  n = 0;
  for (Diagnostic *g = d->first; g; g = g->next)
    v[n++] = g;
  qsort(v, n, sizeof *v, cmp_diag);
  for (size_t i = 0; i + 1 < n; i++)
    v[i]->next = v[i + 1];
  v[n - 1]->next = NULL;
  d->first = v[0];
  d->last = v[n - 1];
  free(v);
}

/* Finds line 'line' (1-based) of src; sets *len to its length without the newline. */
static const char *find_line(const char *src, int line, int *len) {
  const char *p = src;
  for (int l = 1; l < line && *p; p++)
    if (*p == '\n')
      l++;
  const char *e = p;
  while (*e && *e != '\n')
    e++;
  *len = (int)(e - p);
  return p;
}

void diag_print(const Diags *d, FILE *out, bool color) {
  const char *bold = color ? "\033[1m" : "", *reset = color ? "\033[0m" : "";
  for (const Diagnostic *g = d->first; g; g = g->next) {
    const char *what = g->sev == SEV_ERROR ? "error" : "warning";
    const char *col = !color ? "" : g->sev == SEV_ERROR ? "\033[1;31m" : "\033[1;35m";
    if (g->loc.line > 0)
      fprintf(out, "%s%s:%d:%d:%s %s%s:%s %s\n", bold, d->file, g->loc.line, g->loc.col, reset,
              col, what, reset, g->msg);
    else
      fprintf(out, "%s%s:%s %s%s:%s %s\n", bold, d->file, reset, col, what, reset, g->msg);
    if (g->loc.line > 0 && d->src) {
      int len;
      const char *s = find_line(d->src, g->loc.line, &len);
      /* Long lines are shown as a window of at most 160 bytes around the caret. */
      int from = 0, to = len;
      if (len > 160) {
        from = g->loc.col - 1 > 80 ? g->loc.col - 1 - 80 : 0;
        to = from + 160 < len ? from + 160 : len;
      }
      fprintf(out, "    %s", from ? "..." : "");
      for (int i = from; i < to; i++)
        fputc(s[i] == '\t' ? ' ' : (unsigned char)s[i] < 32 ? '?' : s[i], out);
      fprintf(out, "%s\n    %s", to < len ? "..." : "", from ? "   " : "");
      for (int i = from + 1; i < g->loc.col && i <= len; i++)
        fputc(' ', out);
      fputc('^', out);
      for (int i = 1; i < g->len && g->loc.col + i <= len; i++)
        fputc('~', out);
      fputc('\n', out);
    }
    if (g->note)
      fprintf(out, "note: %s\n", g->note);
  }
}

static void json_str(FILE *out, const char *s) {
  fputc('"', out);
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\')
      fprintf(out, "\\%c", c);
    else if (c == '\n')
      fputs("\\n", out);
    else if (c < 32)
      fprintf(out, "\\u%04x", c);
    else
      fputc(c, out);
  }
  fputc('"', out);
}

void diag_print_json(const Diags *d, FILE *out) {
  fputs("{\"file\": ", out);
  json_str(out, d->file);
  fprintf(out, ", \"errors\": %d, \"warnings\": %d, \"diagnostics\": [", d->nerrors, d->nwarnings);
  for (const Diagnostic *g = d->first; g; g = g->next) {
    fprintf(out, "%s\n  {\"severity\": \"%s\", \"line\": %d, \"column\": %d, \"length\": %d, \"message\": ",
            g == d->first ? "" : ",", g->sev == SEV_ERROR ? "error" : "warning", g->loc.line,
            g->loc.col, g->len);
    json_str(out, g->msg);
    fputs(", \"category\": ", out);
    json_str(out, g->category ? g->category : "syntax");
    fputs(", \"rule\": ", out);
    json_str(out, g->rule ? g->rule : "R-GR-7");
    if (g->note) {
      fputs(", \"note\": ", out);
      json_str(out, g->note);
    }
    fputc('}', out);
  }
  fputs(d->first ? "\n]}\n" : "]}\n", out);
}

void buf_printf(Buf *b, const char *fmt, ...) {
  va_list ap, ap2;
  va_start(ap, fmt);
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0)
    n = 0;
  if (b->len + (size_t)n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 64;
    while (cap < b->len + (size_t)n + 1)
      cap *= 2;
    char *s = realloc(b->s, cap);
    if (!s)
      teil_unreachable();
    b->s = s;
    b->cap = cap;
  }
  vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap2);
  va_end(ap2);
  b->len += (size_t)n;
}

void buf_free(Buf *b) {
  free(b->s);
  b->s = NULL;
  b->len = b->cap = 0;
}
