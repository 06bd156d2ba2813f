/*
 * pipeline.c - runs teilc's passes (spec/compiler.md R-CG-1): lift (if the
 * library has src/lift.c), lower, pad, schedule (R-CG-17, spec/schedule.md),
 * annotate, cgen;
 * prints --dump=PASS; picks C names (R-CG-12) and the parameter order (R-CG-9).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "compile.h"

#if defined(__has_include)
#if __has_include("lift.h")
#include "lift.h"
#define TEILC_HAVE_LIFT 1
#endif
#endif

bool teil_compile_have_lift(void) {
#ifdef TEILC_HAVE_LIFT
  return true;
#else
  return false;
#endif
}

void teil_compile_defaults(CompileOptions *o) {
  memset(o, 0, sizeof *o);
  o->func = "kernel";
  o->pad = 1;
  o->lift = true;
  o->openmp = true;
  o->stream = 1;                                    /* R-CG-26: large outputs */
  o->prefetch = 1;                                  /* R-CG-24.5: large parameters */
  o->schedule = sched_default;                     /* R-SCH-17 */
}

void teil_compile_free(CompileOutput *out) {
  free(out->c);
  free(out->h);
  memset(out, 0, sizeof *out);
}

void teil_compile_func_name(const char *path, char *buf, size_t n) {
  const char *base = path ? strrchr(path, '/') : NULL;
  base = base ? base + 1 : path ? path : "kernel";
  size_t len = strcspn(base, ".");
  Buf b = {0};
  if (len == 0 || isdigit((unsigned char)base[0]))
    buf_printf(&b, "kernel_");
  for (size_t i = 0; i < len; i++)
    buf_printf(&b, "%c", isalnum((unsigned char)base[i]) ? base[i] : '_');
  while (!teil_compile_valid_ident(b.s) || cgen_reserved(b.s))
    buf_printf(&b, "_kernel");
  snprintf(buf, n, "%s", b.s);
  buf_free(&b);
}

static char *text_of(const Program *p) {
  Buf b = {0};
  pr_program(p, &b);
  if (!b.s)
    buf_printf(&b, "%s", "");
  return b.s;
}

static bool name_taken(char **names, int n, const char *s) {
  for (int i = 0; i < n; i++)
    if (names[i] && !strcmp(names[i], s))
      return true;
  return false;
}

/* R-CG-12: C names for the tensors of p; params first keep their names where possible. */
static char **c_names(const Program *p, const char *func) {
  char **names = xcalloc((size_t)p->ntensors + 1, sizeof *names);
  for (int t = 0; t < p->ntensors; t++) {      /* names that need no change */
    const char *s = p->tensors[t].name;
    if (!cgen_reserved(s) && strcmp(s, func) && !name_taken(names, p->ntensors, s))
      names[t] = strdup(s);
  }
  for (int t = 0; t < p->ntensors; t++) {
    if (names[t])
      continue;
    Buf b = {0};
    const char *s = p->tensors[t].name;
    /* a reserved prefix (_X, __x, teil_) cannot be fixed by a suffix */
    bool prefix = s[0] == '_' || !strncmp(s, "teil_", 5) || !strncmp(s, "TEIL_", 5);
    buf_printf(&b, "%s%s%s", prefix ? "t" : "", s, prefix ? "" : "_");
    while (cgen_reserved(b.s) || !strcmp(b.s, func) || name_taken(names, p->ntensors, b.s))
      buf_printf(&b, "_");
    names[t] = strdup(b.s);
    buf_free(&b);
  }
  return names;
}

static void free_names(char **names, int n) {
  for (int i = 0; i < n; i++)
    free(names[i]);
  free(names);
}

int teil_compile(const TeilProgram *tp, const CompileOptions *o, CompileOutput *out, char *err, size_t errlen) {
  memset(out, 0, sizeof *out);
  const Program *src = &tp->p;
  FILE *dump = o->dump_out ? o->dump_out : stdout;
  if (!src->checked || src->diags.nerrors) {
    snprintf(err, errlen, "the program has errors; it cannot be compiled");
    return -1;
  }
  if (o->pad < 1 || o->pad > (1 << 20)) {
    snprintf(err, errlen, "the vector length for padding must be between 1 and %d, not %d", 1 << 20, o->pad);
    return -1;
  }
  if (!teil_compile_valid_ident(o->func) || cgen_reserved(o->func)) {
    snprintf(err, errlen, "'%s' cannot name the C function: it is not an identifier, or it is reserved", o->func);
    return -1;
  }
  if (o->dump == DUMP_TEIL)
    teil_print_teil(tp, dump);

  /* R-CG-18: contraction lifting. */
  TeilProgram *lifted = NULL;
  const Program *p = src;
#ifdef TEILC_HAVE_LIFT
  if (o->lift) {
    LiftStats st;
    memset(&st, 0, sizeof st);
    char lerr[512] = "";
    lifted = lift_program(tp, &st, lerr, sizeof lerr);
    if (!lifted) {
      snprintf(err, errlen, "contraction lifting failed: %s (--no-lift compiles without it)", lerr);
      return -1;
    }
    p = &lifted->p;
    out->lifted = true;
  }
#endif
  out->nlifted = p->nstmts;
  if (o->dump == DUMP_LIFT) {
    if (!out->lifted)
      fprintf(dump, "# the lift pass did not run (%s)\n",
              !o->lift ? "--no-lift" : "this library was built without src/lift.c");
    teil_print_teil(lifted ? lifted : tp, dump);
  }
  if (o->emit_teil) {
    out->c = text_of(p);
    teil_free(lifted);
    return 0;
  }

  /* R-CG-9: the parameters are the source's input and output tensors, in
   * declaration order, found in the compiled program by name. */
  int *param_pos = xcalloc((size_t)p->ntensors + 1, sizeof *param_pos);
  for (int t = 0; t < p->ntensors; t++)
    param_pos[t] = -1;
  int np = 0;
  for (int t = 0; t < src->ntensors; t++) {
    if (!(src->tensors[t].qual & (Q_INPUT | Q_OUTPUT)))
      continue;
    int u = prog_find(p, src->tensors[t].name);
    if (u < 0 || p->tensors[u].qual != src->tensors[t].qual || !ty_equal(p->tensors[u].ty, src->tensors[t].ty)) {
      snprintf(err, errlen, "the lifted program lost or changed tensor '%s'", src->tensors[t].name);
      free(param_pos);
      teil_free(lifted);
      return -1;
    }
    param_pos[u] = np++;
  }
  for (int t = 0; t < p->ntensors; t++)
    if (param_pos[t] < 0 && (p->tensors[t].qual & (Q_INPUT | Q_OUTPUT))) {
      snprintf(err, errlen, "the lifted program has a new input or output '%s'", p->tensors[t].name);
      free(param_pos);
      teil_free(lifted);
      return -1;
    }

  char **names = c_names(p, o->func);
  const char *reserved[] = {o->func, "work"};
  LProgram *lp = lower_program(p, o->pad, o->f32, (const char *const *)names, param_pos, reserved, 2, err, errlen);
  free(param_pos);
  if (!lp) {
    free_names(names, p->ntensors);
    teil_free(lifted);
    return -1;
  }
  if (o->dump == DUMP_LOWER)
    lp_print(lp, dump);
  lp_pad(lp);                                       /* R-CG-10 */
  if (o->dump == DUMP_PAD)
    lp_print(lp, dump);
  /* R-CG-17: a schedule (TeML transformations, spec/schedule.md) applies
   * here, between the pad pass and the annotation. */
  lp->openmp = o->openmp;
  lp->lanes = o->lanes;
  lp->no_inline = o->no_inline;
  lp->prefetch = o->prefetch;
  Buf steps = {0};
  const void *sarg = o->schedule_arg;
  if (o->dump == DUMP_SCHEDULE && o->schedule == sched_default)
    sarg = &steps;                                  /* R-SCH-17: record the steps */
  int sch_rc = o->schedule ? o->schedule(lp, sarg, err, errlen) : 0;
  if (o->dump == DUMP_SCHEDULE) {
    fprintf(dump, "# %s: %s\n", o->source ? o->source : "program",
            o->schedule == sched_default ? "the default schedule (R-SCH-17)" : "not the default schedule; no steps to show");
    if (steps.s)
      fputs(steps.s, dump);
  }
  buf_free(&steps);
  if (sch_rc) {
    lp_free(lp);
    free_names(names, p->ntensors);
    teil_free(lifted);
    return -2;                                      /* R-SCH-3 */
  }
  rb_fold_zero_inits(lp);                           /* R-CG-22 */
  rb_fuse_consumers(lp);                            /* R-CG-23 */
  lp_annotate(lp, o->openmp);                       /* R-CG-11 */
  lp_split_blocks(lp);                              /* R-CG-19 */
  sched_unroll_deferred(lp);                        /* R-CG-19.3 */
  lp_pad_lanes(lp);                                 /* R-CG-20 */
  lp_stream_outputs(lp, o->stream);                 /* R-CG-26 */
  rb_nowait(lp);                                    /* R-CG-11 */
  lp_split_remainders(lp);                          /* R-CG-20.1 */
  lp_name_aliases(lp);                              /* R-CG-21 */
  if (o->dump == DUMP_SCHED)
    lp_print(lp, dump);
  if (lp_layout(lp)) {                              /* R-CG-9 */
    snprintf(err, errlen, "the workspace would need more than 2^62 bytes");
    lp_free(lp);
    free_names(names, p->ntensors);
    teil_free(lifted);
    return -1;
  }

  CgenOptions co = {o->func, o->source, NULL, o->openmp, o->main, o->header, o->acsl};
  char *text = text_of(p);
  co.program_text = text;
  Buf c = {0};
  cgen_c(lp, p, &co, &c);
  out->c = c.s;
  if (o->header) {
    Buf h = {0};
    cgen_header(lp, p, &co, &h);
    out->h = h.s;
  }
  free(text);
  lp_free(lp);
  free_names(names, p->ntensors);
  teil_free(lifted);
  return 0;
}
