/*
 * proc.h - running the system's programs (the C compiler, a compiled
 * kernel's driver) for teil-check --diff (R-CG-16) and the autotuner
 * (spec/tune.md).
 */
#ifndef TEIL_PROC_H
#define TEIL_PROC_H

#include <stddef.h>

/* Seconds on a monotonic clock. */
double proc_now(void);

/* Runs argv with stdout and stderr into the file log (created or truncated)
 * and returns its exit status: -1 if it died or could not be waited for, 127
 * if it could not be started. With timeout > 0 it runs in a process group of
 * its own, which is killed after timeout seconds (-2); with timeout <= 0 it
 * stays in the caller's group (an interrupt reaches it) and is waited for. */
int proc_run(char *const argv[], const char *log, double timeout);

/* Runs argv (stderr discarded) and puts the first line of its stdout into
 * buf; returns the exit status, 127 if it could not be run. */
int proc_first_line(char *const argv[], char *buf, size_t n);

#endif
