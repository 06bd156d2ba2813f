/*
 * tune.h - the autotuner of teilc --tune (spec/tune.md): searches schedules
 * (spec/schedule.md) by compiling, checking against the interpreter and
 * timing candidates, and keeps the best in a per-program, per-machine cache
 * that plain compilations use (R-TUNE-6, R-TUNE-7).
 */
#ifndef TEIL_TUNE_H
#define TEIL_TUNE_H

#include <stdbool.h>
#include <stdio.h>

#include "compile.h"

typedef struct TuneOptions {
  const char *prog;           /* PROG as given: messages, the entry's comment */
  double seconds;             /* the budget, > 0 (R-TUNE-1) */
  FILE *progress;             /* where progress goes (stderr), NULL for none */
  bool tty;                   /* progress is a terminal: one redrawn line (R-TUNE-5) */
} TuneOptions;

typedef struct TuneResult {
  char path[4096];            /* the cache entry (a schedule file, R-TUNE-6) */
  char *text;                 /* its text, comments included (malloc'd) */
  bool from_cache;            /* a valid entry was used; nothing was searched */
  double default_ms, best_ms; /* measured times (0 when from the cache and not recorded) */
  int measured, refused, rejected;
} TuneResult;

/* The cache directory (R-TUNE-6); -1 with err if none can be determined. */
int tune_cache_dir(char *dir, size_t n, char *err, size_t errlen);

/* The program key K of R-TUNE-6: 16 hex digits and a NUL. */
void tune_program_key(const TeilProgram *p, const CompileOptions *o, char key[17]);

/* The machine string of R-TUNE-6. -1 with err if the C compiler cannot be run. */
int tune_machine(char *buf, size_t n, char *err, size_t errlen);

/* R-TUNE-7: looks up a valid entry for p compiled with o. Returns 1 and the
 * entry's path and schedule text (*text malloc'd), 0 if there is none, or -1
 * with a one-line warning in err if an entry exists but is not valid. */
int tune_lookup(const TeilProgram *p, const CompileOptions *o, char *path, size_t pathlen, char **text, char *err,
                size_t errlen);

/* R-TUNE-1: uses a valid cache entry, or searches (R-TUNE-2..5) and writes
 * the entry. Returns 0 and fills r (free with tune_result_free), or -1 with a
 * one-line error in err (R-TUNE-8). Warnings go to t->progress. */
int tune_run(const TeilProgram *p, const CompileOptions *o, const TuneOptions *t, TuneResult *r, char *err,
             size_t errlen);
void tune_result_free(TuneResult *r);

#endif
