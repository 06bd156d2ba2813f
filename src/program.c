/*
 * program.c - the public front-end API of include/teil.h: parse, check, print,
 * and query the tensors of a program. pipeline order: parse_program (parse.c),
 * ty_check (type.c), an_run (analyze.c).
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static TeilLang lang_of(const char *filename) {
  size_t n = filename ? strlen(filename) : 0;
  return n >= 3 && !strcmp(filename + n - 3, ".tm") ? TEIL_LANG_MODEL : TEIL_LANG_TEIL;
}

TeilProgram *teil_parse(const char *filename, const char *src, size_t len, TeilLang lang) {
  TeilProgram *tp = calloc(1, sizeof *tp);
  if (!tp)
    return NULL;
  Program *p = &tp->p;
  p->lang = lang == TEIL_LANG_AUTO ? lang_of(filename) : lang;
  p->src = arena_strndup(&p->arena, src, len);
  p->diags.arena = &p->arena;
  p->diags.file = arena_strndup(&p->arena, filename ? filename : "<input>", filename ? strlen(filename) : 7);
  p->diags.src = p->src;
  p->srclen = len;
  parse_program(p);
  return tp;
}

void teil_free(TeilProgram *tp) {
  if (!tp)
    return;
  arena_free(&tp->p.arena);
  free(tp);
}

int teil_check(TeilProgram *tp) {
  Program *p = &tp->p;
  if (!p->checked) {
    ty_check(p);
    an_run(p);
    diag_sort(&p->diags);
  }
  return p->diags.nerrors;
}

int teil_nerrors(const TeilProgram *tp) { return tp->p.diags.nerrors; }
int teil_nwarnings(const TeilProgram *tp) { return tp->p.diags.nwarnings; }

void teil_promote_warnings(TeilProgram *tp) {
  Diags *d = &tp->p.diags;
  for (Diagnostic *g = d->first; g; g = g->next)
    if (g->sev == SEV_WARNING)
      g->sev = SEV_ERROR;
  d->nerrors += d->nwarnings;
  d->nwarnings = 0;
}

void teil_print_diagnostics(const TeilProgram *tp, FILE *out, int json) {
  if (json)
    diag_print_json(&tp->p.diags, out);
  else
    diag_print(&tp->p.diags, out, false);
}

void teil_print_types(const TeilProgram *tp, FILE *out, int verbose) { pr_types(&tp->p, out, verbose); }

void teil_print_teil(const TeilProgram *tp, FILE *out) {
  Buf b = {0};
  pr_program(&tp->p, &b);
  if (b.s)
    fputs(b.s, out);
  buf_free(&b);
}

int teil_ntensors(const TeilProgram *tp) { return tp->p.ntensors; }
const char *teil_tensor_name(const TeilProgram *tp, int t) { return tp->p.tensors[t].name; }
int teil_tensor_rank(const TeilProgram *tp, int t) { return tp->p.tensors[t].ty.rank; }
const int64_t *teil_tensor_dims(const TeilProgram *tp, int t) { return tp->p.tensors[t].ty.dims; }
unsigned teil_tensor_qual(const TeilProgram *tp, int t) { return tp->p.tensors[t].qual; }
int teil_tensor_find(const TeilProgram *tp, const char *name) { return prog_find(&tp->p, name); }
