/*
 * cli.h - small helpers shared by the command-line tools: reading a source
 * file with a size limit, and parsing numeric option values.
 */
#ifndef TEIL_CLI_H
#define TEIL_CLI_H

#include <stddef.h>

/* Reads a whole file (at most max bytes). Returns a malloc'd buffer, or NULL
 * with a one-line reason in err. */
char *cli_read_file(const char *path, size_t max, size_t *len, char *err, size_t errlen);

/* Parses a decimal number in [lo, hi]; returns 0 on success. */
int cli_number(const char *s, long long lo, long long hi, long long *out);

#endif
